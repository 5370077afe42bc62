import Foundation
@testable import KeyedArchive

/// The structure of a keyed archive, without UID numbering: each object's `$classes` chain, its member
/// keys, whether each member is inline or a UID, and (through UIDs) the structure of what it points at.
///
/// Two archives have the same structure when they store the same classes with the same keys in the same
/// places; the values themselves (numbers, strings, bytes) are compared only by kind (`integer`, `real`,
/// `string`, `data`...). Dictionary key order is ignored.
enum ArchiveStructureOutline {
    /// The structure of `data`'s root object (`$top.root`), one line per member, indented by depth.
    ///
    /// - Parameter path: member keys to follow from the root first (`["NS.timeZone"]`): the structure is
    ///   then that of the nested object, labelled `root`, to compare with an archive whose root it is.
    static func of(_ data: Data, topKey: String = "root", path: [String] = []) throws -> String {
        let archive = try PropertyListValue(propertyListData: data)
        guard case .dictionary(let envelope)? = Optional(archive),
              case .array(let objects)? = envelope["$objects"],
              case .dictionary(let top)? = envelope["$top"],
              var root = top[topKey] else {
            return "not a keyed archive"
        }
        for key in path {
            guard case .uid(let uid) = root, uid.value < UInt64(objects.count),
                  case .dictionary(let d) = objects[Int(uid.value)], let member = d[key] else { return "no member \(key)" }
            root = member
        }
        var lines: [String] = []
        describe(root, objects: objects, depth: 0, label: "root", lines: &lines)
        return lines.joined(separator: "\n")
    }

    /// The plain value at `path` from the root (following UIDs), such as the bytes of a nested NSMutableData.
    static func value(_ data: Data, path: [String]) throws -> PropertyListValue? {
        guard case .dictionary(let envelope) = try PropertyListValue(propertyListData: data),
              case .array(let objects)? = envelope["$objects"], case .dictionary(let top)? = envelope["$top"],
              var value = top["root"] else { return nil }
        for key in path {
            if case .uid(let uid) = value, uid.value < UInt64(objects.count) { value = objects[Int(uid.value)] }
            guard case .dictionary(let d) = value, let member = d[key] else { return nil }
            value = member
        }
        if case .uid(let uid) = value, uid.value < UInt64(objects.count) { value = objects[Int(uid.value)] }
        return value
    }

    /// The classes (`$classname`s) an archive's objects use, as a sorted list.
    static func classNames(_ data: Data) throws -> [String] {
        let archive = try PropertyListValue(propertyListData: data)
        guard case .dictionary(let envelope) = archive, case .array(let objects)? = envelope["$objects"] else { return [] }
        var names: Set<String> = []
        for case .dictionary(let d) in objects { if case .string(let n)? = d["$classname"] { names.insert(n) } }
        return names.sorted()
    }

    private static func describe(_ value: PropertyListValue, objects: [PropertyListValue], depth: Int, label: String,
                                 lines: inout [String]) {
        let indent = String(repeating: "  ", count: depth)
        guard depth < 30 else { lines.append(indent + label + ": (too deep)"); return }
        switch value {
        case .uid(let uid):
            guard uid.value != 0 else { lines.append(indent + label + ": -> $null"); return }
            guard uid.value < UInt64(objects.count) else { lines.append(indent + label + ": -> bad UID"); return }
            let target = objects[Int(uid.value)]
            if case .dictionary(let d) = target, case .uid(let cls)? = d["$class"] {
                lines.append(indent + label + ": -> " + chain(cls, objects: objects))
                for key in d.keys.sorted() where key != "$class" {
                    if let member = d[key] { describe(member, objects: objects, depth: depth + 1, label: key, lines: &lines) }
                }
            } else {
                lines.append(indent + label + ": -> " + target.kindName)
            }
        case .array(let elements):
            lines.append(indent + label + ": inline array of \(elements.count)")
            for (i, e) in elements.enumerated() {
                describe(e, objects: objects, depth: depth + 1, label: "[\(i)]", lines: &lines)
            }
        default:
            lines.append(indent + label + ": inline " + value.kindName)
        }
    }

    private static func chain(_ cls: UID, objects: [PropertyListValue]) -> String {
        guard cls.value < UInt64(objects.count), case .dictionary(let d) = objects[Int(cls.value)],
              case .array(let chain)? = d["$classes"] else { return "bad class" }
        return chain.compactMap { if case .string(let s) = $0 { return s } else { return nil } }.joined(separator: " < ")
    }
}

/// The macOS-written fixtures of swift-corelibs-foundation in the shared corpus.
enum FoundationFixtures {
    /// `corelibs-foundation/Fixtures/macOS-10.14/<name>` or `corelibs-foundation/Resources/<name>`.
    static func data(_ name: String) throws -> Data {
        let folder = name.hasPrefix("NSKeyedUnarchiver-") ? "corelibs-foundation/Resources/" : "corelibs-foundation/Fixtures/macOS-10.14/"
        return try Corpus.data(folder + name)
    }

    /// Whether the corpus is there (tests that read fixtures are skipped when it is not).
    static var available: Bool { Corpus.isPresent }
}

/// Hand-made archives for malformed-input tests.
enum HandMadeArchive {
    /// A binary keyed archive whose `$objects` are `"$null"` followed by `objects`; the root is UID 1.
    static func binary(_ objects: [PropertyListValue]) throws -> Data {
        let envelope: PropertyListValue = .dictionary([
            "$archiver": "NSKeyedArchiver",
            "$version": 100000,
            "$top": .dictionary(["root": .uid(UID(1))]),
            "$objects": .array(["$null"] + objects),
        ])
        return try envelope.propertyListData(format: .binary)
    }

    /// A `{"$classname": name, "$classes": chain}` class dictionary.
    static func classDict(_ chain: [String]) -> PropertyListValue {
        .dictionary(["$classname": .string(chain[0]), "$classes": .array(chain.map { .string($0) })])
    }

    /// A UID value.
    static func uid(_ n: UInt64) -> PropertyListValue { .uid(UID(n)) }
}

/// Asserts-friendly summary of an error: code, class and key path.
func errorSummary(_ body: () throws -> Void) -> (code: String, className: String?, keyPath: String?)? {
    do {
        try body()
        return nil
    } catch let e as KeyedArchiveError {
        return (e.code.name, e.className, e.keyPath)
    } catch {
        return ("not a KeyedArchiveError: \(error)", nil, nil)
    }
}
