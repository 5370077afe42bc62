import KeyedArchive

/// Something a renderer prints: a stored property-list value, or a field value of an archived object.
enum DumpNode {
    case plist(PropertyListValue)
    case archived(ArchivedValue)
}

/// How a child is introduced: by position, by key, or by an archived key object (NSDictionary keys).
enum ChildLabel {
    case none
    case index(Int)
    case key(String)
    case archivedKey(ArchivedValue)
}

/// The children of one container, read by index so the renderers keep an explicit stack of
/// (container, next index) frames instead of recursing.
enum ChildList {
    case plistArray([PropertyListValue])
    case plistDictionary(PropertyListDictionary)
    case archivedArray([ArchivedValue])
    case fields([ArchivedField])
    case pairs(keys: [ArchivedValue], values: [ArchivedValue])

    var count: Int {
        switch self {
        case .plistArray(let a): return a.count
        case .plistDictionary(let d): return d.count
        case .archivedArray(let a): return a.count
        case .fields(let f): return f.count
        case .pairs(let k, _): return k.count
        }
    }

    func child(_ i: Int) -> (ChildLabel, DumpNode) {
        switch self {
        case .plistArray(let a): return (.index(i), .plist(a[i]))
        case .plistDictionary(let d): return (.key(d.keys[i]), .plist(d.values[i]))
        case .archivedArray(let a): return (.index(i), .archived(a[i]))
        case .fields(let f): return (.key(f[i].key), .archived(f[i].value))
        case .pairs(let k, let v): return (.archivedKey(k[i]), .archived(v[i]))
        }
    }
}

/// One open container on a renderer's explicit stack.
struct DumpFrame {
    var children: ChildList
    var next: Int = 0
    let depth: Int
    /// Written when the frame closes (`]`, `}`), already indented.
    let closer: String
    /// The archived object to take off the "being printed" path when the frame closes (cycle marking).
    let leaving: UID?
}

/// Indentation that stays bounded: two spaces a level up to level 64, then a fixed margin and the depth
/// number, so a million-deep chain does not print a quadratic amount of spaces.
struct Indentation {
    private var cache: [String] = (0...64).map { String(repeating: "  ", count: $0) }
    private let deepMargin = String(repeating: "  ", count: 64)

    func callAsFunction(_ depth: Int) -> String {
        depth < cache.count ? cache[depth] : deepMargin + "<\(depth)> "
    }
}
