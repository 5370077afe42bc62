#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One object of an ``ArchivedObjectGraph`` with the common Foundation classes interpreted.
///
/// The interpretation is shallow: children stay ``ArchivedValue`` references, so a caller walks the graph
/// at its own pace (with an explicit stack, cycles and all). An object whose keys do not have the
/// expected shape for its class is left as ``Kind/object(_:)`` rather than rejected.
public struct ResolvedArchivedObject: Hashable, Sendable {
    /// The object's UID.
    public var uid: UID
    /// The class, for instances; `nil` for inline values, `$null` and class descriptions.
    public var archivedClass: ArchivedClass?
    /// The interpretation.
    public var kind: Kind

    /// Creates a resolved object.
    public init(uid: UID, archivedClass: ArchivedClass?, kind: Kind) {
        self.uid = uid
        self.archivedClass = archivedClass
        self.kind = kind
    }

    /// What an object means.
    public enum Kind: Hashable, Sendable {
        /// `$null` (UID 0).
        case null
        /// An inline value (NSString, NSNumber, NSData stored without `$class`), or a container some
        /// writer stored without `$class`.
        case value(PropertyListValue)
        /// A class description entry.
        case classDefinition(ArchivedClass)
        /// NSString or NSMutableString stored as an object (`NS.string`).
        case string(String)
        /// NSData or NSMutableData stored as an object (`NS.data`).
        case data(Data)
        /// NSDate (`NS.time`, seconds since 2001-01-01 UTC).
        case date(Date)
        /// NSUUID (`NS.uuidbytes`).
        case uuid(UUID)
        /// NSURL: the relative string and the base URL (``ArchivedValue/null`` when absolute).
        case url(relative: String, base: ArchivedValue)
        /// NSNull.
        case nsNull
        /// NSArray, NSSet, NSOrderedSet and their mutable forms: the elements in stored order (for elements
        /// stored one key per element, `NS.object.0`, `NS.object.1`, ..., in index order).
        case list([ArchivedValue])
        /// NSDictionary and NSMutableDictionary: keys and values, parallel, in stored order.
        case map(keys: [ArchivedValue], values: [ArchivedValue])
        /// A catalogued class implemented by a ``KeyedArchivable`` value type (NSValue, NSIndexSet,
        /// NSCountedSet, NSAttributedString, ... : ``ArchivedSpecialValue``, ``ArchivedIndexSet``, ...):
        /// the object decoded with that type by the typed unarchiver (only that type allowed, default
        /// limits), shown as `description` (`String(describing:)`, as `"NSValue range {2, 5}"`) and, when
        /// the type is `Encodable`, as `json` (its JSON encoding, keys sorted).
        case decoded(typeName: String, description: String, json: String?)
        /// Any other instance, fields as stored. Unknown classes end up here.
        case object(ArchivedInstance)
    }
}

extension ArchivedObjectGraph {
    /// The object with this UID, with Foundation classes interpreted; `nil` when out of range.
    ///
    /// Interpreted (by `$classname` only, with the layouts of the package's catalogue of Foundation
    /// classes): NSArray/NSMutableArray/NSSet/NSMutableSet/NSCountedSet/NSOrderedSet/NSMutableOrderedSet
    /// (list; elements as an `NS.objects` array or one `NS.object.<index>` member each, in any stored order,
    /// indices without gaps), NSDictionary/NSMutableDictionary (map), NSDate, NSUUID, NSURL,
    /// NSNull, NSString/NSMutableString with `NS.string`, NSData/NSMutableData with `NS.data`. Classes
    /// implemented by a ``KeyedArchivable`` value type (NSValue, NSIndexSet, NSIndexPath, NSCountedSet,
    /// NSMeasurement, NSTimeZone, NSLocale, NSAttributedString, NSColor, NSFont) are decoded with it
    /// (``ResolvedArchivedObject/Kind/decoded(typeName:description:json:)``); one that does not decode is
    /// left as ``ResolvedArchivedObject/Kind/object(_:)``.
    public func resolvedObject(_ uid: UID) -> ResolvedArchivedObject? {
        resolvedObject(uid, catalogue: .standard)
    }

    /// ``resolvedObject(_:)`` with the classes of `catalogue`.
    func resolvedObject(_ uid: UID, catalogue: FoundationClassCatalogue) -> ResolvedArchivedObject? {
        guard let object = object(uid) else { return nil }
        switch object.content {
        case .null: return ResolvedArchivedObject(uid: uid, archivedClass: nil, kind: .null)
        case .value(let v): return ResolvedArchivedObject(uid: uid, archivedClass: nil, kind: .value(v))
        case .classDefinition(let d): return ResolvedArchivedObject(uid: uid, archivedClass: nil, kind: .classDefinition(d))
        case .instance(let instance):
            let kind = catalogue.entry(named: instance.className).flatMap { interpret(instance, uid: uid, as: $0) }
            return ResolvedArchivedObject(uid: uid, archivedClass: instance.archivedClass, kind: kind ?? .object(instance))
        }
    }

    /// The inline value a reference points at (an NSNumber or NSString stored inline), if any.
    public func inlineValue(_ value: ArchivedValue) -> PropertyListValue? {
        switch value {
        case .value(let v): return v
        case .reference(let u):
            guard u.value < UInt64(storage.count) else { return nil }
            let stored = storage[Int(u.value)]
            switch stored {
            case .dictionary, .array, .set, .uid: return nil
            default: return u.value == 0 ? nil : stored
            }
        default: return nil
        }
    }

    private func interpret(_ instance: ArchivedInstance, uid: UID, as entry: FoundationClass) -> ResolvedArchivedObject.Kind? {
        switch entry.family {
        case .array, .set, .orderedSet:
            return elementList(instance, allowsEmpty: true).map { .list($0) }
        case .dictionary:
            let keysKey = entry.key(.keys), valuesKey = entry.key(.elements)
            guard let keysValue = instance[keysKey], let valuesValue = instance[valuesKey] else {
                return instance[keysKey] == nil && instance[valuesKey] == nil ? .map(keys: [], values: []) : nil
            }
            guard let keys = referenceList(keysValue), let values = referenceList(valuesValue),
                  keys.count == values.count else { return nil }
            return .map(keys: keys, values: values)
        case .date:
            guard let time = instance[entry.key(.time)], let seconds = inlineValue(time).flatMap(Self.double) else { return nil }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .uuid:
            guard case .value(.data(let bytes))? = instance[entry.key(.uuidBytes)], bytes.count == 16 else { return nil }
            let b = Array(bytes)
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                                     b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        case .url:
            guard let relative = instance[entry.key(.relative)], case .string(let s)? = inlineValue(relative) else { return nil }
            let base = instance[entry.key(.base)] ?? .null
            switch base {
            case .null, .reference: return .url(relative: s, base: base)
            default: return nil
            }
        case .null:
            return .nsNull
        case .string:
            guard let v = instance[entry.key(.string)], case .string(let s)? = inlineValue(v) else { return nil }
            return .string(s)
        case .data:
            guard let v = instance[entry.key(.bytes)], case .data(let d)? = inlineValue(v) else { return nil }
            return .data(d)
        case .number:
            return nil
        case .archivable(let type):
            return decoded(uid, as: type)
        }
    }

    /// The elements of an array, set or ordered set: its `NS.objects` array of references, or its
    /// `NS.object.<index>` members in index order (any stored order; a gap or a bad index is not a list: nil).
    /// With neither, an empty list when `allowsEmpty`. The typed decoder reads the same layouts.
    private func elementList(_ instance: ArchivedInstance, allowsEmpty: Bool) -> [ArchivedValue]? {
        if let objects = instance[FoundationClassCatalogue.elementArrayKey] { return referenceList(objects) }
        let prefix = FoundationClassCatalogue.elementPerIndexPrefix
        guard instance.fields.contains(where: { $0.key.hasPrefix(prefix) }) else { return allowsEmpty ? [] : nil }
        return indexedElements(instance, prefix: prefix)
    }

    /// The `<prefix><index>` members of `instance` in index order; nil when the indices have a gap, a key
    /// has no valid index, or a member is not a reference.
    private func indexedElements(_ instance: ArchivedInstance, prefix: String) -> [ArchivedValue]? {
        guard let positions = FoundationClassCatalogue.indexedElementPositions(keys: instance.fields.lazy.map(\.key),
                                                                             prefix: prefix) else {
            return nil
        }
        var items: [ArchivedValue] = []
        items.reserveCapacity(positions.count)
        for position in positions {
            let value = instance.fields[position].value
            switch value {
            case .null, .reference: items.append(value)
            default: return nil
            }
        }
        return items
    }

    /// The object at `uid` decoded as `type` by the typed unarchiver (default limits, nothing else
    /// allowed), shown as its description and, when `type` is `Encodable`, its JSON; nil when it does not
    /// decode. Only the objects `uid` reaches are handed to the unarchiver (``KeyedUnarchiver/decodeObject(at:ofType:in:)``),
    /// so showing every such object of an archive costs what they reach, not the archive's size each.
    private func decoded(_ uid: UID, as type: any KeyedArchivable.Type) -> ResolvedArchivedObject.Kind? {
        guard let value = try? KeyedUnarchiver().decodeObject(at: uid, ofType: type, in: self) else { return nil }
        var json: String?
        if let encodable = value as? any Encodable {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            json = (try? encoder.encode(encodable)).flatMap { String(data: $0, encoding: .utf8) }
        }
        return .decoded(typeName: "\(type)", description: String(describing: value), json: json)
    }

    /// The elements of an `NS.objects`/`NS.keys` array: each must be a reference or nil.
    private func referenceList(_ value: ArchivedValue) -> [ArchivedValue]? {
        switch value {
        case .array(let items):
            for item in items {
                switch item {
                case .null, .reference: continue
                default: return nil
                }
            }
            return items
        case .value(.array(let items)) where items.isEmpty:
            return []
        default:
            return nil
        }
    }

    private static func double(_ v: PropertyListValue) -> Double? {
        switch v {
        case .real(let d): return d
        case .float(let f): return Double(f)
        case .integer(let i): return i.int64Value.map(Double.init) ?? i.uint64Value.map(Double.init)
        default: return nil
        }
    }
}

extension ArchivedObjectGraph {
    /// An archive holding `uid` (its root, `$top.root`) and only the objects it reaches, renumbered in the
    /// order they are met (`$null` stays 0); nil when more than `maximumObjectCount` objects are reached,
    /// a UID is out of range, or containers inside one object nest deeper than `maximumNesting` (the
    /// typed unarchiver would reject any of these).
    ///
    /// This is how the raw model decodes one object with the typed unarchiver: the cost is what the
    /// object reaches, not the whole archive (an NSValue reaches its class and two numbers).
    func reachableArchive(from uid: UID, maximumObjectCount: Int, maximumNesting: Int = 512) -> PropertyListValue? {
        let count = UInt64(storage.count)
        guard uid.value < count, uid.value != 0 else { return nil }
        var newIndex: [UInt64: UInt64] = [0: 0]
        var order: [Int] = [0]
        var next = 0
        newIndex[uid.value] = 1
        order.append(Int(uid.value))
        var rewritten: [PropertyListValue] = []
        rewritten.reserveCapacity(8)
        var failed = false

        /// The new UID of `old`, queuing the object the first time it is met.
        func renumber(_ old: UID) -> UID {
            if let known = newIndex[old.value] { return UID(known) }
            guard old.value < count, order.count < maximumObjectCount else {
                failed = true
                return old
            }
            let assigned = UInt64(order.count)
            newIndex[old.value] = assigned
            order.append(Int(old.value))
            return UID(assigned)
        }

        func rewrite(_ value: PropertyListValue, depth: Int) -> PropertyListValue {
            guard depth <= maximumNesting else {
                failed = true
                return value
            }
            switch value {
            case .uid(let u): return .uid(renumber(u))
            case .array(let items): return .array(items.map { rewrite($0, depth: depth + 1) })
            case .set(let items): return .set(items.map { rewrite($0, depth: depth + 1) })
            case .dictionary(let d):
                return .dictionary(PropertyListDictionary(keys: d.keys, values: d.values.map { rewrite($0, depth: depth + 1) }))
            default: return value
            }
        }

        while next < order.count, !failed {
            rewritten.append(rewrite(storage[order[next]], depth: 0))
            next += 1
        }
        guard !failed else { return nil }
        return .dictionary([
            "$archiver": .string("NSKeyedArchiver"),
            "$version": .integer(100000),
            "$top": .dictionary(["root": .uid(UID(1))]),
            "$objects": .array(rewritten),
        ])
    }
}

extension KeyedUnarchiver {
    /// Decodes the one object at `uid` of `graph` as `type` (nothing else is allowed at that point), with
    /// this unarchiver's limits and registry: how the raw model shows catalogued classes implemented by
    /// ``KeyedArchivable`` value types.
    ///
    /// Only the objects `uid` reaches (at most ``Limits/maximumObjectCount``) are handed to the decoder, so
    /// the cost is the object's own subgraph, not the whole archive.
    /// - Throws: ``KeyedArchiveError`` (``KeyedArchiveError/Code/limitExceeded`` when the object reaches more
    ///   objects than the limit allows, ``KeyedArchiveError/Code/invalidArchive`` when it refers outside
    ///   `$objects`), or the type's own error.
    package func decodeObject(at uid: UID, ofType type: any KeyedArchivable.Type, in graph: ArchivedObjectGraph) throws
        -> any KeyedArchivable
    {
        guard let archive = graph.reachableArchive(from: uid, maximumObjectCount: limits.maximumObjectCount) else {
            throw KeyedArchiveError(.invalidArchive,
                                    "object #\(uid.value) cannot be decoded on its own: it is out of range or $null, refers "
                                        + "outside $objects, nests too deeply, or reaches more than \(limits.maximumObjectCount) objects",
                                    objectUID: uid.value)
        }
        return try decodeObject(ofTypes: [type], forKey: "root", from: archive)
    }
}
