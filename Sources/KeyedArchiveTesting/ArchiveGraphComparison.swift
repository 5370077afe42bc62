#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// Compares two raw keyed-archive object graphs side by side, from the top keys down.
///
/// Objects are matched by position (the same key path on both sides), never by UID, so two archives of
/// equal graphs compare equal even when their objects are numbered differently. Identity is compared too:
/// when the original reaches one object from two places, the copy must reach one object (the same one)
/// from those places, and vice versa. Walks with an explicit stack: any depth and any cycle is fine.
///
/// Arrays compare in order; sets and dictionaries whose elements (keys) are plain values compare by
/// content regardless of stored order.
public struct ArchiveGraphComparison: Sendable {
    /// The differences found, in the order met.
    public private(set) var differences: [RoundTripDifference] = []
    /// Whether the walk stopped at the limit.
    public private(set) var isTruncated = false

    private let a: ArchivedObjectGraph
    private let b: ArchivedObjectGraph
    private let limit: Int
    private var aToB: [UID: UID] = [:]
    private var bToA: [UID: UID] = [:]
    private var firstPath: [UID: String] = [:]
    private var pending: [(ArchivedValue?, ArchivedValue?, String)] = []

    /// Compares `original` and `copy` under every top-level key of `original` (and any extra of `copy`).
    ///
    /// - Parameters:
    ///   - original: the expected graph.
    ///   - copy: the graph to check.
    ///   - maximumDifferences: stop after this many differences.
    public init(original: ArchivedObjectGraph, copy: ArchivedObjectGraph, maximumDifferences: Int = 100) {
        a = original
        b = copy
        limit = max(maximumDifferences, 1)
        var pairs: [(ArchivedValue?, ArchivedValue?, String)] = []
        for field in original.top {
            pairs.append((field.value, copy.top.first { $0.key == field.key }?.value, Self.keyText(field.key)))
        }
        for field in copy.top where !original.top.contains(where: { $0.key == field.key }) {
            pairs.append((nil, field.value, Self.keyText(field.key)))
        }
        pending = pairs.reversed()
        run()
    }

    // MARK: Walk

    private mutating func run() {
        while let (x, y, path) = pending.popLast() {
            if differences.count >= limit {
                isTruncated = true
                return
            }
            compare(x, y, at: path)
        }
    }

    private mutating func report(_ path: String, _ original: String, _ copy: String, _ kind: RoundTripDifference.Kind) {
        differences.append(RoundTripDifference(keyPath: path, original: original, copy: copy, kind: kind))
    }

    /// Schedules children so that they are compared in order (the stack is last-in, first-out).
    private mutating func schedule(_ children: [(ArchivedValue?, ArchivedValue?, String)]) {
        pending.append(contentsOf: children.reversed())
    }

    private mutating func compare(_ x: ArchivedValue?, _ y: ArchivedValue?, at path: String) {
        guard let x, let y else {
            if x == nil && y == nil { return }
            report(path, x.map { describe($0, in: a) } ?? "(absent)", y.map { describe($0, in: b) } ?? "(absent)", .missingField)
            return
        }
        let nodeA = node(x, in: a), nodeB = node(y, in: b)
        switch (nodeA, nodeB) {
        case (.null, .null):
            return
        case (.leaf(let va), .leaf(let vb)):
            if va != vb { report(path, Self.text(va), Self.text(vb), .value) }
        case (.container(let ca), .container(let cb)):
            compareContainers(ca, cb, path: path)
        case (.object(let ua), .object(let ub)):
            compareObjects(ua, ub, path: path)
        default:
            report(path, describe(x, in: a), describe(y, in: b), .value)
        }
    }

    private mutating func compareObjects(_ ua: UID, _ ub: UID, path: String) {
        if let matched = aToB[ua] {
            if matched != ub {
                report(path, "the same object as \(firstPath[ua] ?? "?")", "a different object", .identity)
            }
            return
        }
        if let matched = bToA[ub] {
            report(path, "a different object from \(firstPath[matched] ?? "?")", "the same object as \(firstPath[matched] ?? "?")", .identity)
            return
        }
        aToB[ua] = ub
        bToA[ub] = ua
        firstPath[ua] = path
        guard let ra = a.resolvedObject(ua), let rb = b.resolvedObject(ub) else {
            report(path, "object #\(ua.value)", "object #\(ub.value)", .value)
            return
        }
        let nameA = ra.archivedClass?.name, nameB = rb.archivedClass?.name
        if nameA != nameB {
            report(path, nameA.map { "\($0) object" } ?? "value", nameB.map { "\($0) object" } ?? "value", .className)
            return
        }
        switch (ra.kind, rb.kind) {
        case (.object(let ia), .object(let ib)):
            var children: [(ArchivedValue?, ArchivedValue?, String)] = []
            for field in ia.fields {
                children.append((field.value, ib[field.key], path + "." + Self.keyText(field.key)))
            }
            for field in ib.fields where ia[field.key] == nil {
                children.append((nil, field.value, path + "." + Self.keyText(field.key)))
            }
            schedule(children)
        case (.list(let la), .list(let lb)):
            let unordered = nameA.map { ["NSSet", "NSMutableSet", "NSCountedSet"].contains($0) } ?? false
            compareContainers(unordered ? .set(la) : .array(la), unordered ? .set(lb) : .array(lb), path: path)
        case (.map(let ka, let va), .map(let kb, let vb)):
            compareContainers(.dictionary(Array(zip(ka, va))), .dictionary(Array(zip(kb, vb))), path: path)
        case (.url(let ra, let ba), .url(let rb, let bb)):
            if ra != rb { report(path, Self.quoted(ra), Self.quoted(rb), .value) }
            schedule([(ba, bb, path + ".base")])
        default:
            if ra.kind != rb.kind { report(path, Self.text(ra.kind), Self.text(rb.kind), .value) }
        }
    }

    private enum Container {
        case array([ArchivedValue])
        case set([ArchivedValue])
        case dictionary([(ArchivedValue, ArchivedValue)])

        var kindName: String {
            switch self {
            case .array(let x): return "array of \(x.count)"
            case .set(let x): return "set of \(x.count)"
            case .dictionary(let x): return "dictionary of \(x.count)"
            }
        }
    }

    private mutating func compareContainers(_ ca: Container, _ cb: Container, path: String) {
        switch (ca, cb) {
        case (.array(let xa), .array(let xb)), (.set(let xa), .set(let xb)):
            if xa.count != xb.count {
                report(path, "\(xa.count) elements", "\(xb.count) elements", .count)
            }
            if case .set = ca, let sa = plainKeys(xa, in: a), let sb = plainKeys(xb, in: b) {
                let onlyA = sa.filter { !sb.contains($0) }, onlyB = sb.filter { !sa.contains($0) }
                for v in onlyA.sorted() { report(path, v, "(absent)", .missingField) }
                for v in onlyB.sorted() { report(path, "(absent)", v, .missingField) }
                return
            }
            var children: [(ArchivedValue?, ArchivedValue?, String)] = []
            for i in 0..<max(xa.count, xb.count) {
                children.append((i < xa.count ? xa[i] : nil, i < xb.count ? xb[i] : nil, path + "[\(i)]"))
            }
            schedule(children)
        case (.dictionary(let da), .dictionary(let db)):
            if da.count != db.count {
                report(path, "\(da.count) entries", "\(db.count) entries", .count)
            }
            guard let ka = plainKeys(da.map(\.0), in: a), let kb = plainKeys(db.map(\.0), in: b) else {
                // Keys that are objects: compare entries in stored order.
                var children: [(ArchivedValue?, ArchivedValue?, String)] = []
                for i in 0..<max(da.count, db.count) {
                    children.append((i < da.count ? da[i].0 : nil, i < db.count ? db[i].0 : nil, path + ".keys[\(i)]"))
                    children.append((i < da.count ? da[i].1 : nil, i < db.count ? db[i].1 : nil, path + "[\(i)]"))
                }
                schedule(children)
                return
            }
            var children: [(ArchivedValue?, ArchivedValue?, String)] = []
            for (i, key) in ka.enumerated() {
                let j = kb.firstIndex(of: key)
                children.append((da[i].1, j.map { db[$0].1 }, path + "[\(key)]"))
            }
            for (j, key) in kb.enumerated() where !ka.contains(key) {
                children.append((nil, db[j].1, path + "[\(key)]"))
            }
            schedule(children)
        default:
            report(path, ca.kindName, cb.kindName, .value)
        }
    }

    // MARK: Reading the graphs

    private enum Node {
        case null
        case leaf(ResolvedArchivedObject.Kind)
        case container(Container)
        case object(UID)
    }

    private func node(_ value: ArchivedValue, in graph: ArchivedObjectGraph) -> Node {
        switch value {
        case .null: return .null
        case .value(let v): return .leaf(.value(v))
        case .array(let items): return .container(.array(items))
        case .set(let items): return .container(.set(items))
        case .dictionary(let fields): return .container(.dictionary(fields.map { (.value(.string($0.key)), $0.value) }))
        case .reference(let uid):
            if let inline = graph.inlineValue(value) { return .leaf(.value(inline)) }
            guard let resolved = graph.resolvedObject(uid) else { return .object(uid) }
            switch resolved.kind {
            case .null: return .null
            case .value(let v): return .leaf(.value(v))
            default: return .object(uid)
            }
        }
    }

    /// The texts of values that are all plain (strings, numbers, ...), or nil if one is an object.
    private func plainKeys(_ values: [ArchivedValue], in graph: ArchivedObjectGraph) -> [String]? {
        var out: [String] = []
        for v in values {
            switch node(v, in: graph) {
            case .leaf(let kind): out.append(Self.text(kind))
            case .object(let uid):
                guard let kind = graph.resolvedObject(uid)?.kind else { return nil }
                switch kind {
                case .string, .data, .date, .uuid, .nsNull: out.append(Self.text(kind))
                default: return nil
                }
            default: return nil
            }
        }
        return out
    }

    private func describe(_ value: ArchivedValue, in graph: ArchivedObjectGraph) -> String {
        switch node(value, in: graph) {
        case .null: return "nil"
        case .leaf(let kind): return Self.text(kind)
        case .container: return "container"
        case .object(let uid):
            guard let resolved = graph.resolvedObject(uid) else { return "object #\(uid.value)" }
            switch resolved.kind {
            case .object, .list, .map, .url: return "\(resolved.archivedClass?.name ?? "unnamed") object"
            default: return Self.text(resolved.kind)
            }
        }
    }

    // MARK: Text

    static func keyText(_ key: String) -> String {
        key.hasPrefix("$$") ? String(key.dropFirst()) : key
    }

    static func text(_ kind: ResolvedArchivedObject.Kind) -> String {
        switch kind {
        case .null: return "nil"
        case .value(let v): return text(v)
        case .string(let s): return quoted(s)
        case .data(let d): return "<\(d.count) bytes>"
        case .date(let d): return "date(\(d.timeIntervalSinceReferenceDate))"
        case .uuid(let u): return u.uuidString
        case .nsNull: return "NSNull"
        case .url(let relative, _): return "URL(\(quoted(relative)))"
        case .list(let items): return "list of \(items.count)"
        case .map(let keys, _): return "map of \(keys.count)"
        case .classDefinition(let d): return "class \(d.name)"
        case .decoded(_, let description, _): return description
        case .object(let i): return "\(i.className) object"
        }
    }

    static func text(_ value: PropertyListValue) -> String {
        switch value {
        case .string(let s): return quoted(s)
        case .integer(let i): return "\(i)"
        case .real(let d): return "\(d)"
        case .float(let f): return "\(f) (4-byte)"
        case .bool(let b): return b ? "true" : "false"
        case .date(let d): return "date(\(d.timeIntervalSinceReferenceDate))"
        case .data(let d): return "<\(d.count) bytes>"
        case .array(let items): return "array of \(items.count)"
        case .set(let items): return "set of \(items.count)"
        case .dictionary(let d): return "dictionary of \(d.count)"
        case .uid(let u): return "UID(\(u.value))"
        }
    }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
