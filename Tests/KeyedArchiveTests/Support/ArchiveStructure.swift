import Foundation
@testable import KeyedArchive

/// Compares two keyed archives by their structure, not their bytes: what Apple's archiver and ours must
/// agree on for a reader to treat them alike.
///
/// Each `$top` key must be stored alike on both sides, as an object's member is (an inline value of the same
/// kind, or a UID). From each `$top` UID, the walk follows both graphs in step and, for
/// each pair of objects met, checks: the same kind (inline string / integer / real / bool / data, or an
/// object); for objects the same `$classname` and `$classes` chain, the same member keys, and per member
/// the same storage (inline value of the same kind, UID, nil UID, array of N UIDs); then it walks the
/// members' targets in pairs. UID numbering may differ, and so may sharing (Apple shares one NSString
/// written twice; we may not). Elements of sets and dictionaries are paired after sorting by a shallow
/// description of each element (its inline value or class), since the two writers order them differently.
///
/// Use it to check that re-archiving a value decoded from an Apple archive gives Apple's layout:
///
/// ```swift
/// let fixture = try PropertyListValue(propertyListData: Corpus.data("…/NSSet-Numbers.archive"))
/// let value = try KeyedUnarchiver().decode(FoundationValue.self, from: fixture)
/// let ours = try KeyedArchiver.archivedPropertyList(withRootObject: value)
/// #expect(ArchiveStructure.differences(expected: fixture, actual: ours) == [])
/// ```
enum ArchiveStructure {
    /// The structural differences between `expected` and `actual`, each a line naming its path; empty
    /// when they agree.
    ///
    /// - Parameters:
    ///   - expected: the reference archive (Apple's).
    ///   - actual: the archive to check (ours).
    ///   - immutableForMutable: compare an expected mutable Foundation class (`NSMutableArray`, ...) as
    ///     its immutable counterpart, after checking that the expected chain is the one the catalogue gives
    ///     the mutable class: Swift values have no mutability, so our archiver writes the immutable class.
    static func differences(expected: PropertyListValue, actual: PropertyListValue,
                            immutableForMutable: Bool = false) -> [String] {
        var walk = Walk(immutableForMutable: immutableForMutable)
        guard let e = Archive(expected) else { return ["expected: not a keyed archive"] }
        guard let a = Archive(actual) else { return ["actual: not a keyed archive"] }
        walk.expected = e
        walk.actual = a
        walk.run()
        return walk.differences
    }

    /// `archive` with `$top` replaced by `{root: UID(uid)}`: a view of one object inside a larger archive
    /// (Apple's NSMutableArray inside an NSAttributedString), to decode and compare on its own.
    static func rooted(_ archive: PropertyListValue, at uid: Int) -> PropertyListValue {
        guard case .dictionary(var envelope) = archive else { return archive }
        envelope["$top"] = .dictionary(["root": .uid(UID(UInt64(uid)))])
        return .dictionary(envelope)
    }

    /// The UIDs of the instances of `className` in `archive`'s `$objects`, in order.
    static func instances(of className: String, in archive: PropertyListValue) -> [Int] {
        guard let a = Archive(archive) else { return [] }
        return a.objects.indices.filter { a.className(of: $0) == className }
    }

    // MARK: Outline: one archive's structure as text

    /// The structure of `data`'s object under `$top.<topKey>`, one line per member, indented by depth: each
    /// object's `$classes` chain (`NSIndexSet < NSObject`), its member keys (sorted), whether each is inline
    /// (and of which kind) or a UID, and (through UIDs) what it points at. Values are compared by kind only.
    /// For assertions on parts of a structure (its top level, one nested dictionary); to compare two whole
    /// archives, use ``differences(expected:actual:immutableForMutable:)``.
    ///
    /// - Parameter path: member keys to follow from the root first (`["NS.timeZone"]`): the outline is then
    ///   that of the nested object, labelled `root`.
    static func outline(_ data: Data, topKey: String = "root", path: [String] = []) throws -> String {
        guard let archive = Archive(try PropertyListValue(propertyListData: data)), var root = archive.top[topKey] else {
            return "not a keyed archive"
        }
        for key in path {
            guard case .uid(let uid) = root, case .dictionary(let d)? = archive.object(Int(uid.value)),
                  let member = d[key] else { return "no member \(key)" }
            root = member
        }
        var lines: [String] = []
        archive.describe(root, depth: 0, label: "root", lines: &lines)
        return lines.joined(separator: "\n")
    }

    /// The plain value at `path` from the root (following UIDs), such as the bytes of a nested NSMutableData.
    static func value(_ data: Data, path: [String]) throws -> PropertyListValue? {
        guard let archive = Archive(try PropertyListValue(propertyListData: data)), var value = archive.top["root"] else { return nil }
        for key in path {
            if case .uid(let uid) = value, let target = archive.object(Int(uid.value)) { value = target }
            guard case .dictionary(let d) = value, let member = d[key] else { return nil }
            value = member
        }
        if case .uid(let uid) = value, let target = archive.object(Int(uid.value)) { value = target }
        return value
    }

    /// The classes (`$classname`s) an archive's objects use, sorted.
    static func classNames(_ data: Data) throws -> [String] {
        guard let archive = Archive(try PropertyListValue(propertyListData: data)) else { return [] }
        var names: Set<String> = []
        for case .dictionary(let d) in archive.objects { if case .string(let n)? = d["$classname"] { names.insert(n) } }
        return names.sorted()
    }

    /// ``differences(expected:actual:immutableForMutable:)`` of two archives' bytes; with `expectedPath`, the
    /// expected side is the object reached from its root through those member keys (Apple's NSTimeZone
    /// inside a formatter fixture), compared with `actual`'s root.
    static func differences(expected: Data, actual: Data, expectedPath: [String] = [],
                            immutableForMutable: Bool = false) throws -> [String] {
        var e = try PropertyListValue(propertyListData: expected)
        if !expectedPath.isEmpty {
            guard let archive = Archive(e), var uid = archive.top["root"]?.uidValue else { return ["expected: no root"] }
            for key in expectedPath {
                guard case .dictionary(let d)? = archive.object(Int(uid.value)), let next = d[key]?.uidValue else {
                    return ["expected: no member \(key)"]
                }
                uid = next
            }
            e = rooted(e, at: Int(uid.value))
        }
        return differences(expected: e, actual: try PropertyListValue(propertyListData: actual),
                           immutableForMutable: immutableForMutable)
    }

    struct Archive {
        let top: PropertyListDictionary
        let objects: [PropertyListValue]

        init?(_ value: PropertyListValue) {
            guard let envelope = value.dictionaryValue, let top = envelope["$top"]?.dictionaryValue,
                  let objects = envelope["$objects"]?.arrayValue else { return nil }
            self.top = top
            self.objects = objects
        }

        func object(_ uid: Int) -> PropertyListValue? { objects.indices.contains(uid) ? objects[uid] : nil }

        func classDefinition(of uid: Int) -> PropertyListDictionary? {
            guard case .dictionary(let d)? = object(uid), case .uid(let c)? = d["$class"],
                  case .dictionary(let definition)? = object(Int(c.value)) else { return nil }
            return definition
        }

        func className(of uid: Int) -> String? {
            guard case .string(let s)? = classDefinition(of: uid)?["$classname"] else { return nil }
            return s
        }

        func chain(of uid: Int) -> [String]? {
            classDefinition(of: uid)?["$classes"]?.arrayValue?.compactMap { v -> String? in
                if case .string(let s) = v { return s }
                return nil
            }
        }

        /// Appends the outline lines of `value` (see ``ArchiveStructure/outline(_:topKey:path:)``).
        func describe(_ value: PropertyListValue, depth: Int, label: String, lines: inout [String]) {
            let indent = String(repeating: "  ", count: depth)
            guard depth < 30 else { lines.append(indent + label + ": (too deep)"); return }
            switch value {
            case .uid(let uid):
                guard uid.value != 0 else { lines.append(indent + label + ": -> $null"); return }
                guard let target = object(Int(uid.value)) else { lines.append(indent + label + ": -> bad UID"); return }
                if case .dictionary(let d) = target, d["$class"] != nil {
                    lines.append(indent + label + ": -> " + (chain(of: Int(uid.value))?.joined(separator: " < ") ?? "bad class"))
                    for key in d.keys.sorted() where key != "$class" {
                        if let member = d[key] { describe(member, depth: depth + 1, label: key, lines: &lines) }
                    }
                } else {
                    lines.append(indent + label + ": -> " + target.kindName)
                }
            case .array(let elements):
                lines.append(indent + label + ": inline array of \(elements.count)")
                for (i, e) in elements.enumerated() { describe(e, depth: depth + 1, label: "[\(i)]", lines: &lines) }
            default:
                lines.append(indent + label + ": inline " + value.kindName)
            }
        }

        /// A shallow description of the object at `uid`: its inline value, or its class name.
        func shallow(_ uid: Int) -> String {
            guard let o = object(uid) else { return "missing" }
            if case .dictionary = o { return "object " + (className(of: uid) ?? "?") }
            return Self.kind(o) + " " + String(describing: o)
        }

        static func kind(_ v: PropertyListValue) -> String {
            switch v {
            case .string: return "string"
            case .integer: return "integer"
            case .real: return "real"
            case .float: return "4-byte real"
            case .bool: return "bool"
            case .data: return "data"
            case .date: return "date"
            case .uid(let u): return u.value == 0 ? "nil UID" : "UID"
            case .array(let items): return "array of \(items.count)" + (items.allSatisfy { if case .uid = $0 { true } else { false } } ? " UIDs" : "")
            case .set(let items): return "set of \(items.count)"
            case .dictionary: return "dictionary"
            }
        }
    }

    private struct Walk {
        let immutableForMutable: Bool
        var expected = Archive(.dictionary(["$top": [:], "$objects": []]))!
        var actual = Archive(.dictionary(["$top": [:], "$objects": []]))!
        var differences: [String] = []
        var visited = Set<[Int]>()
        var pending: [(Int, Int, String)] = []

        init(immutableForMutable: Bool) { self.immutableForMutable = immutableForMutable }

        mutating func run() {
            let eKeys = Set(expected.top.keys), aKeys = Set(actual.top.keys)
            if eKeys != aKeys { differences.append("$top: keys \(eKeys.sorted()) vs \(aKeys.sorted())") }
            for key in expected.top.keys.sorted() where aKeys.contains(key) {
                guard let ev = expected.top[key], let av = actual.top[key] else { continue }
                if Archive.kind(ev) != Archive.kind(av) {
                    differences.append("$top.\(key): stored as \(Archive.kind(ev)) vs \(Archive.kind(av))")
                } else if case .uid(let e) = ev, case .uid(let a) = av {
                    pending.append((Int(e.value), Int(a.value), key))
                }
            }
            pending.reverse()
            while let (e, a, path) = pending.popLast(), differences.count < 50 {
                guard visited.insert([e, a]).inserted else { continue }
                compare(e, a, path)
            }
        }

        mutating func compare(_ e: Int, _ a: Int, _ path: String) {
            if e == 0 || a == 0 {
                if e != a { differences.append("\(path): nil on one side only") }
                return
            }
            guard let eo = expected.object(e), let ao = actual.object(a) else {
                differences.append("\(path): UID out of range")
                return
            }
            guard case .dictionary(let ed) = eo else {
                if case .dictionary = ao { differences.append("\(path): expected inline \(Archive.kind(eo)), found an object") }
                else if Archive.kind(eo) != Archive.kind(ao) {
                    differences.append("\(path): expected inline \(Archive.kind(eo)), found inline \(Archive.kind(ao))")
                }
                return
            }
            guard case .dictionary(let ad) = ao else {
                differences.append("\(path): expected an object, found inline \(Archive.kind(ao))")
                return
            }
            var eName = expected.className(of: e) ?? "?"
            var eChain = expected.chain(of: e) ?? []
            let aName = actual.className(of: a) ?? "?"
            if immutableForMutable, let entry = FoundationClassCatalogue.standard.entry(named: eName),
               eName == entry.mutableName {
                if entry.chain(for: eName) != eChain {
                    differences.append("\(path): \(eName)'s chain is \(eChain), the catalogue says \(entry.chain(for: eName) ?? [])")
                }
                eName = entry.name
                eChain = entry.chain
            }
            if eName != aName { differences.append("\(path): class \(eName) vs \(aName)") }
            let aChain = actual.chain(of: a) ?? []
            if eChain != aChain { differences.append("\(path): $classes \(eChain) vs \(aChain)") }
            let eMembers = Set(ed.keys).subtracting(["$class"]), aMembers = Set(ad.keys).subtracting(["$class"])
            if eMembers != aMembers {
                differences.append("\(path) (\(eName)): members \(eMembers.sorted()) vs \(aMembers.sorted())")
            }
            let family = FoundationClassCatalogue.standard.entry(named: eName)?.family
            for key in eMembers.intersection(aMembers).sorted() {
                guard let ev = ed[key], let av = ad[key] else { continue }
                let memberPath = "\(path).\(key)"
                if Archive.kind(ev) != Archive.kind(av) {
                    differences.append("\(memberPath): stored as \(Archive.kind(ev)) vs \(Archive.kind(av))")
                    continue
                }
                switch (ev, av) {
                case (.uid(let x), .uid(let y)):
                    pending.append((Int(x.value), Int(y.value), memberPath))
                case (.array(let xs), .array(let ys)):
                    let (ex, ay) = (uids(xs.elements), uids(ys.elements))
                    let unordered: Bool
                    switch family {
                    case .set?: unordered = true
                    default: unordered = false
                    }
                    if unordered {
                        pairSorted(ex, ay, memberPath)
                    } else if case .dictionary? = family, key == "NS.objects",
                              case .array(let ek)? = ed["NS.keys"], case .array(let ak)? = ad["NS.keys"] {
                        // Values follow their keys' order.
                        let eOrder = order(uids(ek.elements), in: expected), aOrder = order(uids(ak.elements), in: actual)
                        guard eOrder.count == ex.count, aOrder.count == ay.count else { continue }
                        for (i, (x, y)) in zip(eOrder.map { ex[$0] }, aOrder.map { ay[$0] }).enumerated() {
                            pending.append((x, y, "\(memberPath)[\(i)]"))
                        }
                    } else if case .dictionary? = family, key == "NS.keys" {
                        pairSorted(ex, ay, memberPath)
                    } else {
                        for (i, (x, y)) in zip(ex, ay).enumerated() { pending.append((x, y, "\(memberPath)[\(i)]")) }
                    }
                default:
                    continue
                }
            }
        }

        func uids(_ items: [PropertyListValue]) -> [Int] {
            items.compactMap { if case .uid(let u) = $0 { Int(u.value) } else { nil } }
        }

        /// The indices of `uids` sorted by their targets' shallow descriptions.
        func order(_ uids: [Int], in archive: Archive) -> [Int] {
            uids.indices.sorted { archive.shallow(uids[$0]) < archive.shallow(uids[$1]) }
        }

        mutating func pairSorted(_ ex: [Int], _ ay: [Int], _ path: String) {
            let eOrder = order(ex, in: expected), aOrder = order(ay, in: actual)
            for (i, (x, y)) in zip(eOrder.map { ex[$0] }, aOrder.map { ay[$0] }).enumerated() {
                pending.append((x, y, "\(path)[sorted \(i)]"))
            }
        }
    }
}
