#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes a graph as resolved JSON.
struct ResolvedJSONWriter {
    let graph: ArchivedObjectGraph
    let maximumDepth: Int
    /// How many references reach each object (from `$top` and the objects it reaches).
    private var referenceCounts: [UInt64: Int] = [:]
    /// The `$id` given to each object written so far that is reached more than once.
    private var ids: [UInt64: Int] = [:]
    /// Values that may still be written before the limit on shared containers is reached.
    private var budget: Int
    private let catalogue = FoundationClassCatalogue.standard

    init(graph: ArchivedObjectGraph, maximumDepth: Int) {
        self.graph = graph
        self.maximumDepth = maximumDepth
        budget = max(1_000_000, graph.count.multipliedReportingOverflow(by: 64).partialValue)
    }

    private func tooDeep(_ uid: UInt64?) -> KeyedArchiveError {
        KeyedArchiveError(.limitExceeded, "the object graph nests deeper than \(maximumDepth) JSON levels; write it as typed JSON (the stored form) instead",
                          objectUID: uid)
    }

    private mutating func spend(_ uid: UInt64?) throws {
        budget -= 1
        guard budget >= 0 else {
            throw KeyedArchiveError(.limitExceeded, "containers shared by many places would make the resolved JSON too large",
                                    objectUID: uid)
        }
    }

    /// The whole document: `$archiver`, `$version`, `$top`.
    mutating func document() throws -> ResolvedJSONText {
        try countReferences()
        var top: [(String, ResolvedJSONText)] = []
        for field in graph.top {
            top.append((ResolvedJSONMarker.escaped(field.key), try self.field(field.value, depth: 2, owner: nil)))
        }
        return .object([
            (ResolvedJSONMarker.archiver, .scalar(.string(graph.archiverName))),
            (ResolvedJSONMarker.version, .scalar(.integer(graph.version))),
            (ResolvedJSONMarker.top, .object(top)),
        ])
    }

    /// Counts the references to each object reached from `$top`, without recursion.
    private mutating func countReferences() throws {
        var pending: [ArchivedValue] = graph.top.map(\.value)
        var visited: Set<UInt64> = []
        while let value = pending.popLast() {
            try spend(nil)
            switch value {
            case .null, .value: continue
            case .array(let items), .set(let items): pending.append(contentsOf: items)
            case .dictionary(let fields): pending.append(contentsOf: fields.map(\.value))
            case .reference(let uid):
                referenceCounts[uid.value, default: 0] += 1
                guard visited.insert(uid.value).inserted, let object = graph.object(uid) else { continue }
                switch object.content {
                case .instance(let instance): pending.append(contentsOf: instance.fields.map(\.value))
                case .value(let stored): pending.append(ArchivedValue(stored))
                case .null, .classDefinition: continue
                }
            }
        }
    }

    /// A field's value (a UID is the object it refers to; see the format at the top of this file).
    private mutating func field(_ value: ArchivedValue, depth: Int, owner: UInt64?) throws -> ResolvedJSONText {
        try spend(owner)
        switch value {
        case .null: return .null
        case .reference(let uid):
            let node = try object(uid, depth: depth)
            if case .scalar(let scalar) = node, !Self.isObjectInField(scalar) {
                guard depth < maximumDepth else { throw tooDeep(uid.value) }
                return .object([(ResolvedJSONMarker.object, node)])
            }
            return node
        case .value(let stored):
            switch stored {
            case .integer, .real, .float, .bool, .data: return .scalar(stored)
            default: return try inline(value, depth: depth, owner: owner)
            }
        case .array, .set, .dictionary:
            return try inline(value, depth: depth, owner: owner)
        }
    }

    /// Whether an entry of `$objects` is an NSString, NSNumber or NSData stored inline (written as a scalar).
    private static func isInlineScalar(_ value: PropertyListValue) -> Bool {
        switch value {
        case .string, .integer, .real, .float, .bool, .data: return true
        default: return false
        }
    }

    /// Whether an object written as a scalar stays bare in a field: a string (NSString) or a `$date` (NSDate);
    /// a bare number, Boolean or `$data` in a field is a value stored there, so such an object is marked `$object`.
    private static func isObjectInField(_ value: PropertyListValue) -> Bool {
        switch value {
        case .string, .date: return true
        default: return false
        }
    }

    /// `{"$inline": ...}`: a value stored in the field, its elements fields again.
    private mutating func inline(_ value: ArchivedValue, depth: Int, owner: UInt64?) throws -> ResolvedJSONText {
        guard depth < maximumDepth else { throw tooDeep(owner) }
        return .object([(ResolvedJSONMarker.inline, try inlineContent(value, depth: depth + 1, owner: owner))])
    }

    /// What `$inline` and `$stored` hold: the stored value, written at `depth`, its elements fields.
    private mutating func inlineContent(_ value: ArchivedValue, depth: Int, owner: UInt64?) throws -> ResolvedJSONText {
        switch value {
        case .array(let items):
            guard depth < maximumDepth else { throw tooDeep(owner) }
            return .array(try items.map { try field($0, depth: depth + 1, owner: owner) })
        case .set(let items):
            guard depth + 1 < maximumDepth else { throw tooDeep(owner) }
            return .object([(TypedJSONMarker.set, .array(try items.map { try field($0, depth: depth + 2, owner: owner) }))])
        case .dictionary(let fields):
            guard depth < maximumDepth else { throw tooDeep(owner) }
            return .object(try fields.map { (ResolvedJSONMarker.escaped($0.key), try field($0.value, depth: depth + 1, owner: owner)) })
        case .value(let stored):
            switch stored {
            case .array(let items):
                return try inlineContent(.array(items.map(ArchivedValue.value)), depth: depth, owner: owner)
            case .set(let items):
                return try inlineContent(.set(items.map(ArchivedValue.value)), depth: depth, owner: owner)
            case .dictionary(let d):
                return try inlineContent(.dictionary(zip(d.keys, d.values).map { ArchivedField($0, .value($1)) }), depth: depth, owner: owner)
            default:
                return .scalar(stored)
            }
        case .null, .reference:
            return try field(value, depth: depth, owner: owner)
        }
    }

    /// The object with `uid`, written where it is reached.
    private mutating func object(_ uid: UID, depth: Int) throws -> ResolvedJSONText {
        if let id = ids[uid.value] { return .object([(ResolvedJSONMarker.ref, .scalar(.integer(PropertyListInteger(Int64(id)))))]) }
        guard let object = graph.object(uid) else { return .null }
        if case .value(let stored) = object.content, Self.isInlineScalar(stored) { return .scalar(stored) }
        // Only objects get an id: an inline string, number or data is a value, equal wherever it is reached.
        let shared = referenceCounts[uid.value, default: 0] > 1
        var head: [(String, ResolvedJSONText)] = []
        if shared {
            let id = ids.count + 1
            ids[uid.value] = id
            head.append((ResolvedJSONMarker.id, .scalar(.integer(PropertyListInteger(Int64(id))))))
        }
        guard depth + 1 < maximumDepth else { throw tooDeep(uid.value) }
        switch object.content {
        case .null:
            return .null
        case .value(let stored):
            return .object(head + [(ResolvedJSONMarker.stored, try inlineContent(ArchivedValue(stored), depth: depth + 1, owner: uid.value))])
        case .classDefinition:
            guard let stored = graph.storage.indices.contains(Int(uid.value)) ? graph.storage[Int(uid.value)] : nil else { return .null }
            return .object(head + [(ResolvedJSONMarker.stored, try inlineContent(ArchivedValue(stored), depth: depth + 1, owner: uid.value))])
        case .instance(let instance):
            return try self.instance(instance, uid: uid, shared: shared, head: head, depth: depth)
        }
    }

    private mutating func instance(_ instance: ArchivedInstance, uid: UID, shared: Bool, head: [(String, ResolvedJSONText)],
                                   depth: Int) throws -> ResolvedJSONText {
        let archivedClass = instance.archivedClass
        let standardChain = catalogue.entry(named: archivedClass.name)?.chain(for: archivedClass.name)
        let canonicalClass = archivedClass.hints == nil && archivedClass.chain == standardChain
        let fields = instance.fields
        let elements = fields.count == 1 && fields[0].key == FoundationClassCatalogue.elementArrayKey
            ? Self.references(fields[0].value) : nil
        // NS.keys and NS.objects in either order (corelibs writes them in its dictionary's order); read back keys first.
        let keysField = fields.first { $0.key == "NS.keys" }, valuesField = fields.first { $0.key == FoundationClassCatalogue.elementArrayKey }
        let entries = fields.count == 2 && keysField != nil && valuesField != nil
            ? keysField.flatMap { Self.references($0.value) }.flatMap { keys in valuesField.flatMap { Self.references($0.value) }.map { (keys, $0) } }
            : nil
        let family = catalogue.entry(named: archivedClass.name)?.family

        if !shared, canonicalClass {
            if archivedClass.name == "NSArray", let elements {
                return .array(try elements.map { try object(member: $0, depth: depth + 1) })
            }
            if archivedClass.name == "NSDictionary", let entries, let names = stringKeys(entries.0) {
                return .object(try zip(names, entries.1).map { (ResolvedJSONMarker.escaped($0), try object(member: $1, depth: depth + 1)) })
            }
            if case .date? = family, fields.count == 1, fields[0].key == "NS.time", case .value(.real(let time)) = fields[0].value {
                return .scalar(.date(Date(timeIntervalSinceReferenceDate: time)))
            }
        }
        var out = [(ResolvedJSONMarker.className, ResolvedJSONText.scalar(.string(archivedClass.name)))]
        if archivedClass.chain != (standardChain ?? []) {
            out.append((ResolvedJSONMarker.classes, .array(archivedClass.chain.map { .scalar(.string($0)) })))
        }
        if let hints = archivedClass.hints {
            out.append((ResolvedJSONMarker.classHints, .array(hints.map { .scalar(.string($0)) })))
        }
        out += head
        if let elements {
            out.append((ResolvedJSONMarker.elements, .array(try elements.map { try object(member: $0, depth: depth + 2) })))
        } else if let entries {
            let (keys, values) = entries
            if let names = stringKeys(keys) {
                out.append((ResolvedJSONMarker.entries,
                            .object(try zip(names, values).map { ($0, try object(member: $1, depth: depth + 2)) })))
            } else {
                guard depth + 3 < maximumDepth else { throw tooDeep(uid.value) }
                out.append((ResolvedJSONMarker.entries, .array(try zip(keys, values).map {
                    .array([try object(member: $0, depth: depth + 3), try object(member: $1, depth: depth + 3)])
                })))
            }
        } else {
            for field in fields {
                out.append((ResolvedJSONMarker.escaped(field.key), try self.field(field.value, depth: depth + 1, owner: uid.value)))
            }
        }
        return .object(out)
    }

    /// An element of a list or dictionary: always an object (UID 0 is `null`).
    private mutating func object(member: ArchivedValue, depth: Int) throws -> ResolvedJSONText {
        try spend(nil)
        guard case .reference(let uid) = member else { return .null }
        return try object(uid, depth: depth)
    }

    /// The elements of an `NS.objects`/`NS.keys` array when each is a reference or nil.
    private static func references(_ value: ArchivedValue) -> [ArchivedValue]? {
        switch value {
        case .array(let items):
            return items.allSatisfy { if case .value = $0 { false } else { true } } ? items : nil
        case .value(.array(let items)) where items.isEmpty:
            return []
        default:
            return nil
        }
    }

    /// The keys as strings when each refers to a string stored inline and no two are equal (a JSON object
    /// cannot hold one key twice), else nil.
    private func stringKeys(_ keys: [ArchivedValue]) -> [String]? {
        var names: [String] = []
        var seen: Set<String> = []
        for key in keys {
            guard case .reference(let uid) = key, case .value(.string(let s))? = graph.object(uid)?.content,
                  seen.insert(s).inserted else { return nil }
            names.append(s)
        }
        return names
    }

    /// Writes `value` as JSON text (nesting bounded by the writer's depth limit).
    static func write(_ value: ResolvedJSONText, prettyPrinted: Bool, indent: Int, into out: inout String) {
        func newline(_ level: Int) {
            guard prettyPrinted else { return }
            out += "\n" + String(repeating: "  ", count: level)
        }
        switch value {
        case .null: out += "null"
        case .scalar(let scalar): out += TypedJSONWriter.scalarText(scalar) ?? "null"
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                newline(indent + 1)
                write(item, prettyPrinted: prettyPrinted, indent: indent + 1, into: &out)
            }
            if !items.isEmpty { newline(indent) }
            out += "]"
        case .object(let members):
            out += "{"
            for (i, (key, item)) in members.enumerated() {
                if i > 0 { out += "," }
                newline(indent + 1)
                out += TypedJSONWriter.quoted(key) + (prettyPrinted ? ": " : ":")
                write(item, prettyPrinted: prettyPrinted, indent: indent + 1, into: &out)
            }
            if !members.isEmpty { newline(indent) }
            out += "}"
        }
    }
}
