#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
