import KeyedArchive

/// Something a renderer prints: a stored property-list value, or a field value of an archived object.
enum DumpNode {
    case plist(PropertyListValue)
    case archived(ArchivedValue)
    /// Object `n` of a property list read container by container (`--raw` of a large binary file).
    case mapped(MappedPropertyList, Int)
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
    case mappedArray(MappedPropertyList, [Int])
    case mappedDictionary(MappedPropertyList, keys: [String], values: [Int])

    var count: Int {
        switch self {
        case .plistArray(let a): return a.count
        case .plistDictionary(let d): return d.count
        case .archivedArray(let a): return a.count
        case .fields(let f): return f.count
        case .pairs(let k, _): return k.count
        case .mappedArray(_, let a): return a.count
        case .mappedDictionary(_, let k, _): return k.count
        }
    }

    func child(_ i: Int) -> (ChildLabel, DumpNode) {
        switch self {
        case .plistArray(let a): return (.index(i), .plist(a[i]))
        case .plistDictionary(let d): return (.key(d.keys[i]), .plist(d.values[i]))
        case .archivedArray(let a): return (.index(i), .archived(a[i]))
        case .fields(let f): return (.key(f[i].key), .archived(f[i].value))
        case .pairs(let k, let v): return (.archivedKey(k[i]), .archived(v[i]))
        case .mappedArray(let p, let a): return (.index(i), .mapped(p, a[i]))
        case .mappedDictionary(let p, let k, let v): return (.key(k[i]), .mapped(p, v[i]))
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

extension MappedPropertyList {
    /// Object `n` as a renderer shows it: a value, or a container's kind (`array`, `set`, `dictionary`)
    /// and its children.
    func shown(_ n: Int) -> (value: PropertyListValue?, kind: String, children: ChildList) {
        switch node(n) {
        case .value(let v): return (v, "", .mappedArray(self, []))
        case .array(let items): return (nil, "array", .mappedArray(self, items))
        case .set(let items): return (nil, "set", .mappedArray(self, items))
        case .dictionary(let keys, let values): return (nil, "dictionary", .mappedDictionary(self, keys: keys, values: values))
        }
    }
}
