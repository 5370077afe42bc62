#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Resolved JSON: a keyed archive as the object graph it stands for, in JSON that a person or `jq` edits and
// that reads back to an archive with the same graph (classes, sharing, values). Each object is written where
// it is reached; `$objects`, UIDs and class descriptions are not shown.
//
// Objects (what a UID refers to):
// - `null`: UID 0 (nil).
// - a string, a number, `true`/`false`, `{"$real": ...}`, `{"$float": ...}`, `{"$data": ...}`: an NSString,
//   NSNumber or NSData stored inline in `$objects` (typed JSON's scalars).
// - `{"$date": ...}`: an NSDate (class `NSDate`, `NS.time` a real), reached once.
// - `[...]`: an NSArray (`NS.objects`), reached once, its elements objects.
// - `{"key": ...}` without `$class`: an NSDictionary whose keys are all strings, reached once.
// - `{"$class": "Name", ...}`: any other instance. `$classes` (the chain, when it is not the one Apple
//   writes for a Foundation class: always for other classes), `$classhints` when stored, `$id` when the
//   object is reached more than once; then `"$elements": [...]` (`NS.objects`, an array of objects),
//   `"$entries": {...}` or `[[key, value], ...]` (`NS.keys` and `NS.objects`), and the other fields.
// - `{"$ref": n}`: the object written elsewhere with `"$id": n`.
// - `{"$stored": ...}`: any other entry of `$objects` (a date or a container stored without `$class`), as a
//   field holds it; it may carry `$id`.
//
// Fields (an instance's keyed values and `$top`) hold either an object (a UID) or a value stored in the field
// itself. A field is written as an object (a string is an NSString, `$date` an NSDate), except that a number,
// a Boolean, `$real`, `$float` and `$data` are values stored in the field (what `encodeInteger`, `encodeBool`, `encodeDouble`, `encodeBytes` write); the other
// two cases are marked: `{"$object": 7}` is an NSNumber object (`{"$object": {"$data": ...}}` an NSData
// object), `{"$inline": ...}` a string, date, array, set (`{"$set": [...]}`) or dictionary stored in the
// field, its elements read as fields again.
//
// Every JSON object key that starts with `$` and is not one of these markers is written with one more `$`
// (a coder's `$0` is `$$0`, an archive's escaped `$$key` is `$$$key`).

/// The marker keys of resolved JSON beside typed JSON's scalars.
enum ResolvedJSONMarker {
    static let archiver = "$archiver"
    static let version = "$version"
    static let top = "$top"
    static let className = "$class"
    static let classes = "$classes"
    static let classHints = "$classhints"
    static let id = "$id"
    static let ref = "$ref"
    static let elements = "$elements"
    static let entries = "$entries"
    static let stored = "$stored"
    static let object = "$object"
    static let inline = "$inline"
    /// The keys an instance object may carry beside its fields.
    static let instanceKeys: Set<String> = [className, classes, classHints, id, elements, entries]
    /// Typed JSON's scalar markers, read as in typed JSON.
    static let scalars: Set<String> = [TypedJSONMarker.real, TypedJSONMarker.float, TypedJSONMarker.data]

    /// `key` as a JSON object key: one more `$` when it starts with `$`.
    static func escaped(_ key: String) -> String { key.hasPrefix("$") ? "$" + key : key }
}

extension ArchivedObjectGraph {
    /// The archive as resolved JSON: the object graph reached from `$top`, each object written where it is
    /// reached, with its class; shared objects and cycles written once with an `$id` and referred to by
    /// `{"$ref": n}`; NSArray, NSDictionary and NSDate as JSON arrays, objects and `$date`; strings, numbers and
    /// data as typed JSON's scalars (see <doc:CommandLineTools> for the whole format).
    ///
    /// ``init(resolvedJSON:options:)`` reads it back to an archive whose graph is equal: the same classes
    /// (names, `$classes` chains, `$classhints`), the same sharing, the same values, fields in the same order
    /// (`NS.keys` before `NS.objects` in a dictionary written as `$entries`).
    /// The bytes are not kept: objects nothing reaches are dropped, equal strings and numbers become one entry,
    /// equal class descriptions one, and the objects are numbered again as Apple's archiver numbers them. For
    /// an archive as stored (UIDs, `$objects`), use ``typedJSONData(prettyPrinted:)``.
    /// - Parameters:
    ///   - prettyPrinted: whether to indent nested values by two spaces, one per line.
    ///   - maximumDepth: the deepest nesting of JSON arrays and objects written (512 by default, what
    ///     ``PropertyListReadingOptions/maximumDepth`` lets the reader read).
    /// - Returns: the JSON text, UTF-8.
    /// - Throws: ``KeyedArchiveError`` with code ``KeyedArchiveError/Code/limitExceeded`` (and the UID of the
    ///   object where it stopped) when the graph nests deeper than `maximumDepth` or, through containers that
    ///   several places share, would write more than 64 values per stored value.
    public func resolvedJSONData(prettyPrinted: Bool = false, maximumDepth: Int = 512) throws -> Data {
        var writer = ResolvedJSONWriter(graph: self, maximumDepth: maximumDepth)
        let document = try writer.document()
        var text = ""
        ResolvedJSONWriter.write(document, prettyPrinted: prettyPrinted, indent: 0, into: &text)
        return Data(text.utf8)
    }

    /// Reads an archive written as resolved JSON (``resolvedJSONData(prettyPrinted:maximumDepth:)``, perhaps
    /// edited since) and checks it as any archive.
    ///
    /// Objects are numbered depth first from `$top`, as Apple's archiver numbers them; equal inline strings,
    /// numbers and data share one entry; each class has one description. A `{"$ref": n}` may come before the
    /// object with `"$id": n`.
    /// - Parameters:
    ///   - data: UTF-8 JSON text.
    ///   - options: `maximumDepth` bounds the nesting of JSON arrays and objects (default 512).
    /// - Throws: ``PropertyListError`` with code ``PropertyListError/Code/invalidJSON``: the byte offset of text
    ///   that is not JSON (or nests too deep), or the key path (as `$top.root.$elements.2`) of a value that is not
    ///   resolved JSON: an unknown `$` key, a `$ref` to an id no object has, an `$id` given twice, a class
    ///   name that is not a string, a typed-JSON scalar that does not read. ``KeyedArchiveError`` when the
    ///   archive built breaks a rule of keyed archives.
    public init(resolvedJSON data: Data, options: PropertyListReadingOptions = .init()) throws {
        var scanner = JSONScanner(data, maximumDepth: options.maximumDepth)
        var reader = ResolvedJSONReader()
        let copy = try reader.archive(scanner.parse())
        self = try copy.rewritten(originalIsDepthFirst: true)
    }
}

/// A JSON document being written: scalars as typed JSON's text.
indirect enum ResolvedJSONText {
    case null
    case scalar(PropertyListValue)
    case array([ResolvedJSONText])
    case object([(String, ResolvedJSONText)])
}

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

/// Reads resolved JSON into an archive's objects (recursion bounded by the scanner's depth limit).
struct ResolvedJSONReader {
    /// `$objects` being built; index 0 is `$null`.
    private var objects: [PropertyListValue] = [.string("$null")]
    /// Inline strings, numbers and data already stored, to their index.
    private var scalars: [PropertyListValue: Int] = [:]
    /// Class descriptions already stored, to their index.
    private var classes: [PropertyListValue: Int] = [:]
    /// Each `$id` met (in a definition or a `$ref`) to its object's index, with the path of its first `$ref`.
    private var ids: [String: (index: Int, defined: Bool, firstReference: [String])] = [:]
    private let catalogue = FoundationClassCatalogue.standard

    private func error(_ message: String, _ path: [String]) -> PropertyListError {
        TypedJSONDecoding.error(message, path)
    }

    /// The archive the document stands for, objects in the order they were met.
    mutating func archive(_ json: JSONValue) throws -> ArchiveWorkingCopy {
        guard case .object(let members) = json else { throw error("expected the archive as an object with $top, found a \(json.kindName)", []) }
        var archiver = "NSKeyedArchiver"
        var version = PropertyListInteger(100000)
        var top: PropertyListDictionary?
        for (key, value) in members {
            switch key {
            case ResolvedJSONMarker.archiver:
                guard case .string(let s) = value else { throw error("$archiver must be a string", [key]) }
                archiver = s
            case ResolvedJSONMarker.version:
                guard case .integer(let v) = try TypedJSONDecoding.value(value, path: [key]) else { throw error("$version must be an integer", [key]) }
                version = v
            case ResolvedJSONMarker.top:
                guard case .object(let fields) = value else { throw error("$top must be an object, found a \(value.kindName)", [key]) }
                top = try dictionary(fields, path: [key])
            default:
                throw error("unknown key \"\(key)\" beside $archiver, $version and $top", [key])
            }
        }
        guard let top else { throw error("the archive has no $top", []) }
        if let dangling = ids.first(where: { !$0.value.defined }) {
            throw error("$ref \(dangling.key) names no object (no \"$id\": \(dangling.key) in the document)", dangling.value.firstReference)
        }
        return ArchiveWorkingCopy(archiverName: archiver, version: version, top: top, objects: objects)
    }

    /// A JSON object of fields: keys unescaped, values read as fields.
    private mutating func dictionary(_ members: [(key: String, value: JSONValue)], path: [String]) throws -> PropertyListDictionary {
        var out = PropertyListDictionary()
        for (key, value) in members {
            out[try fieldKey(key, path + [key])] = try fieldValue(value, path: path + [key])
        }
        return out
    }

    /// A stored key from a JSON key: `$$x` is `$x`; another key that starts with `$` is an unknown marker.
    private func fieldKey(_ key: String, _ path: [String]) throws -> String {
        guard key.hasPrefix("$") else { return key }
        guard key.hasPrefix("$$") else {
            throw error("unknown key \"\(key)\" (a stored key that starts with $ is written with one more $)", path)
        }
        return String(key.dropFirst())
    }

    /// A field's stored value.
    private mutating func fieldValue(_ json: JSONValue, path: [String]) throws -> PropertyListValue {
        switch json {
        case .null: return .uid(UID(0))
        case .number, .bool: return try TypedJSONDecoding.value(json, path: path)
        default: break
        }
        if case .object(let members) = json, members.count == 1 {
            let key = members[0].key
            if key == ResolvedJSONMarker.inline { return try storedValue(members[0].value, path: path + [key]) }
            if key == ResolvedJSONMarker.object { return .uid(UID(UInt64(try objectIndex(members[0].value, path: path + [key])))) }
            if ResolvedJSONMarker.scalars.contains(key) { return try TypedJSONDecoding.value(json, path: path) }
        }
        return .uid(UID(UInt64(try objectIndex(json, path: path))))
    }

    /// The content of `{"$inline": ...}` (or `{"$stored": ...}`): a value stored in place, its elements fields.
    private mutating func storedValue(_ json: JSONValue, path: [String]) throws -> PropertyListValue {
        switch json {
        case .null: throw error("$inline null has no meaning (nil is null without $inline)", path)
        case .string(let s): return .string(s)
        case .number, .bool: return try TypedJSONDecoding.value(json, path: path)
        case .array(let items):
            var out: [PropertyListValue] = []
            out.reserveCapacity(items.count)
            for (i, item) in items.enumerated() { out.append(try fieldValue(item, path: path + [String(i)])) }
            return .array(out)
        case .object(let members):
            if members.count == 1, members[0].key == TypedJSONMarker.set {
                guard case .array(let items) = members[0].value else { throw error("$set must be an array", path + [TypedJSONMarker.set]) }
                var out: [PropertyListValue] = []
                for (i, item) in items.enumerated() { out.append(try fieldValue(item, path: path + [TypedJSONMarker.set, String(i)])) }
                return .set(out)
            }
            if members.count == 1, ResolvedJSONMarker.scalars.contains(members[0].key) || members[0].key == TypedJSONMarker.date {
                return try TypedJSONDecoding.value(json, path: path)
            }
            return .dictionary(try dictionary(members, path: path))
        }
    }

    /// The index of a new slot in `$objects`, or of the slot `id` names (taken by an earlier `$ref`).
    private mutating func slot(defining id: JSONValue?, path: [String]) throws -> Int {
        guard let id else { return newSlot() }
        guard case .number(let text) = id, let number = UInt64(text) else {
            throw error("$id must be a non-negative integer, found \(id.kindName)", path + [ResolvedJSONMarker.id])
        }
        let name = String(number)
        if let known = ids[name] {
            guard !known.defined else { throw error("$id \(name) is given to two objects", path + [ResolvedJSONMarker.id]) }
            ids[name] = (known.index, true, known.firstReference)
            return known.index
        }
        let index = newSlot()
        ids[name] = (index, true, [])
        return index
    }

    private mutating func newSlot() -> Int {
        objects.append(.string("$null"))
        return objects.count - 1
    }

    private mutating func fill(_ index: Int, _ value: PropertyListValue) {
        objects[index] = value
    }

    /// The index of an inline scalar, stored once per value.
    private mutating func scalar(_ value: PropertyListValue) -> Int {
        if let known = scalars[value] { return known }
        objects.append(value)
        scalars[value] = objects.count - 1
        return objects.count - 1
    }

    /// The index of the class description for `name`, `chain` and `hints`, stored once.
    private mutating func classDescription(_ name: String, chain: [String], hints: [String]?) -> Int {
        var description: PropertyListDictionary = [:]
        if !chain.isEmpty { description["$classes"] = .array(chain.map(PropertyListValue.string)) }
        description["$classname"] = .string(name)
        if let hints { description["$classhints"] = .array(hints.map(PropertyListValue.string)) }
        let value = PropertyListValue.dictionary(description)
        if let known = classes[value] { return known }
        objects.append(value)
        classes[value] = objects.count - 1
        return objects.count - 1
    }

    /// An instance of `name` with the catalogue's chain, in a slot already taken.
    private mutating func fillInstance(_ index: Int, _ name: String, _ fields: PropertyListDictionary) {
        var stored = fields
        stored["$class"] = .uid(UID(UInt64(classDescription(name, chain: catalogue.entry(named: name)?.chain(for: name) ?? [], hints: nil))))
        fill(index, .dictionary(stored))
    }

    private static func uidArray(_ indices: [Int]) -> PropertyListValue {
        .array(indices.map { .uid(UID(UInt64($0))) })
    }

    /// The index of the object `json` stands for.
    private mutating func objectIndex(_ json: JSONValue, path: [String]) throws -> Int {
        switch json {
        case .null: return 0
        case .string(let s): return scalar(.string(s))
        case .number, .bool: return scalar(try TypedJSONDecoding.value(json, path: path))
        case .array(let items):
            let index = newSlot()
            var elements: [Int] = []
            elements.reserveCapacity(items.count)
            for (i, item) in items.enumerated() { elements.append(try objectIndex(item, path: path + [String(i)])) }
            fillInstance(index, "NSArray", [FoundationClassCatalogue.elementArrayKey: Self.uidArray(elements)])
            return index
        case .object(let members):
            let keys = members.map { $0.key }
            if keys.contains(ResolvedJSONMarker.ref) {
                guard members.count == 1 else { throw error("$ref takes no other key beside it", path) }
                return try reference(members[0].value, path: path + [ResolvedJSONMarker.ref])
            }
            if members.count == 1, ResolvedJSONMarker.scalars.contains(keys[0]) {
                return scalar(try TypedJSONDecoding.value(json, path: path))
            }
            if members.count == 1, keys[0] == TypedJSONMarker.date {
                guard case .date(let date) = try TypedJSONDecoding.value(json, path: path) else { return 0 }
                let index = newSlot()
                fillInstance(index, "NSDate", ["NS.time": .real(date.timeIntervalSinceReferenceDate)])
                return index
            }
            if keys.contains(ResolvedJSONMarker.stored) {
                var id: JSONValue?
                var content: JSONValue = .null
                for (key, value) in members {
                    switch key {
                    case ResolvedJSONMarker.id: id = value
                    case ResolvedJSONMarker.stored: content = value
                    default: throw error("unknown key \"\(key)\" beside $stored (only $id may be)", path + [key])
                    }
                }
                let index = try slot(defining: id, path: path)
                fill(index, try storedValue(content, path: path + [ResolvedJSONMarker.stored]))
                return index
            }
            if keys.contains(ResolvedJSONMarker.className) { return try instance(members, path: path) }
            // An NSDictionary with string keys.
            let index = newSlot()
            var keyIndices: [Int] = []
            var valueIndices: [Int] = []
            for (key, value) in members {
                guard !key.hasPrefix("$") || key.hasPrefix("$$") else {
                    throw error("unknown key \"\(key)\" (an object with $id needs $class; a dictionary key that starts with $ is written with one more $)",
                                path + [key])
                }
                keyIndices.append(scalar(.string(try fieldKey(key, path + [key]))))
                valueIndices.append(try objectIndex(value, path: path + [key]))
            }
            fillInstance(index, "NSDictionary", ["NS.keys": Self.uidArray(keyIndices),
                                                 FoundationClassCatalogue.elementArrayKey: Self.uidArray(valueIndices)])
            return index
        }
    }

    /// The index `{"$ref": n}` names (a slot kept for it when its `$id` comes later).
    private mutating func reference(_ json: JSONValue, path: [String]) throws -> Int {
        guard case .number(let text) = json, let number = UInt64(text) else {
            throw error("$ref must be a non-negative integer, found \(json.kindName)", path)
        }
        let name = String(number)
        if let known = ids[name] { return known.index }
        let index = newSlot()
        ids[name] = (index, false, path)
        return index
    }

    /// `{"$class": ..., ...}`: an instance with its fields.
    private mutating func instance(_ members: [(key: String, value: JSONValue)], path: [String]) throws -> Int {
        var name = ""
        var chain: [String]?
        var hints: [String]?
        var id: JSONValue?
        func strings(_ value: JSONValue, _ key: String) throws -> [String] {
            guard case .array(let items) = value else { throw error("\(key) must be an array of strings", path + [key]) }
            var out: [String] = []
            for (i, item) in items.enumerated() {
                guard case .string(let s) = item else { throw error("\(key) must be an array of strings", path + [key, String(i)]) }
                out.append(s)
            }
            return out
        }
        for (key, value) in members where ResolvedJSONMarker.instanceKeys.contains(key) {
            switch key {
            case ResolvedJSONMarker.className:
                guard case .string(let s) = value else { throw error("$class must be a class name (a string), found a \(value.kindName)", path + [key]) }
                name = s
            case ResolvedJSONMarker.classes: chain = try strings(value, key)
            case ResolvedJSONMarker.classHints: hints = try strings(value, key)
            case ResolvedJSONMarker.id: id = value
            default: continue
            }
        }
        let index = try slot(defining: id, path: path)
        var fields = PropertyListDictionary()
        func add(_ key: String, _ value: PropertyListValue, _ at: [String]) throws {
            guard fields[key] == nil else { throw error("the field \"\(key)\" is given twice", at) }
            fields[key] = value
        }
        for (key, value) in members {
            let at = path + [key]
            switch key {
            case ResolvedJSONMarker.className, ResolvedJSONMarker.classes, ResolvedJSONMarker.classHints, ResolvedJSONMarker.id:
                continue
            case ResolvedJSONMarker.elements:
                guard case .array(let items) = value else { throw error("$elements must be an array, found a \(value.kindName)", at) }
                var elements: [Int] = []
                for (i, item) in items.enumerated() { elements.append(try objectIndex(item, path: at + [String(i)])) }
                try add(FoundationClassCatalogue.elementArrayKey, Self.uidArray(elements), at)
            case ResolvedJSONMarker.entries:
                var keyIndices: [Int] = []
                var valueIndices: [Int] = []
                switch value {
                case .object(let entries):
                    for (entryKey, entryValue) in entries {
                        keyIndices.append(scalar(.string(entryKey)))
                        valueIndices.append(try objectIndex(entryValue, path: at + [entryKey]))
                    }
                case .array(let pairs):
                    for (i, pair) in pairs.enumerated() {
                        guard case .array(let both) = pair, both.count == 2 else {
                            throw error("each of $entries must be a [key, value] pair", at + [String(i)])
                        }
                        keyIndices.append(try objectIndex(both[0], path: at + [String(i), "0"]))
                        valueIndices.append(try objectIndex(both[1], path: at + [String(i), "1"]))
                    }
                default:
                    throw error("$entries must be an object or an array of [key, value] pairs, found a \(value.kindName)", at)
                }
                try add("NS.keys", Self.uidArray(keyIndices), at)
                try add(FoundationClassCatalogue.elementArrayKey, Self.uidArray(valueIndices), at)
            default:
                try add(try fieldKey(key, at), try fieldValue(value, path: at), at)
            }
        }
        let classIndex = classDescription(name, chain: chain ?? catalogue.entry(named: name)?.chain(for: name) ?? [], hints: hints)
        fields["$class"] = .uid(UID(UInt64(classIndex)))
        fill(index, .dictionary(fields))
        return index
    }
}

extension ArchiveWorkingCopy {
    /// A working copy of objects built from scratch (every object counts as the archive's own).
    init(archiverName: String, version: PropertyListInteger, top: PropertyListDictionary, objects: [PropertyListValue]) {
        self.archiverName = archiverName
        self.version = version
        self.top = top
        self.objects = objects
        originalCount = objects.count
    }
}
