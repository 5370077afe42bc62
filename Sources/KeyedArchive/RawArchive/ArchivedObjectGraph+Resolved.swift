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
        case classDefinition(ArchivedClassDefinition)
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
        /// NSArray, NSSet, NSOrderedSet and their mutable and counted forms: the elements in stored order.
        case list([ArchivedValue])
        /// NSDictionary and NSMutableDictionary: keys and values, parallel, in stored order.
        case map(keys: [ArchivedValue], values: [ArchivedValue])
        /// NSValue holding an NSRange.
        case range(location: PropertyListInteger, length: PropertyListInteger)
        /// NSValue holding a point, size or rect, as its stored string (`"{{0, 0}, {10, 20}}"`).
        case geometry(String)
        /// Any other instance, fields as stored. Unknown classes end up here.
        case object(ArchivedInstance)
    }
}

extension ArchivedObjectGraph {
    /// The object with this UID, with Foundation classes interpreted; `nil` when out of range.
    ///
    /// Interpreted: NSArray/NSMutableArray/NSSet/NSMutableSet/NSCountedSet/NSOrderedSet/NSMutableOrderedSet
    /// (list), NSDictionary/NSMutableDictionary (map), NSDate, NSUUID, NSURL, NSNull,
    /// NSString/NSMutableString with `NS.string`, NSData/NSMutableData with `NS.data`, and NSValue holding a
    /// range, point, size or rect. Interpretation goes by `$classname` only.
    public func resolvedObject(_ uid: UID) -> ResolvedArchivedObject? {
        guard let object = object(uid) else { return nil }
        switch object.content {
        case .null: return ResolvedArchivedObject(uid: uid, archivedClass: nil, kind: .null)
        case .value(let v): return ResolvedArchivedObject(uid: uid, archivedClass: nil, kind: .value(v))
        case .classDefinition(let d): return ResolvedArchivedObject(uid: uid, archivedClass: nil, kind: .classDefinition(d))
        case .instance(let instance):
            let kind = interpret(instance) ?? .object(instance)
            return ResolvedArchivedObject(uid: uid, archivedClass: instance.archivedClass, kind: kind)
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

    private func interpret(_ instance: ArchivedInstance) -> ResolvedArchivedObject.Kind? {
        switch instance.className {
        case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSCountedSet":
            guard let objects = instance["NS.objects"] else {
                // An empty collection may be written with no NS.objects at all.
                return instance.fields.allSatisfy({ !$0.key.hasPrefix("NS.object") }) && instance.className != "NSCountedSet"
                    ? .list([]) : nil
            }
            return referenceList(objects).map { .list($0) }
        case "NSOrderedSet", "NSMutableOrderedSet":
            var items: [ArchivedValue] = []
            for field in instance.fields where field.key.hasPrefix("NS.object.") {
                guard field.key == "NS.object.\(items.count)" else { return nil }
                items.append(field.value)
            }
            return .list(items)
        case "NSDictionary", "NSMutableDictionary":
            guard let keysValue = instance["NS.keys"], let valuesValue = instance["NS.objects"] else {
                return instance["NS.keys"] == nil && instance["NS.objects"] == nil ? .map(keys: [], values: []) : nil
            }
            guard let keys = referenceList(keysValue), let values = referenceList(valuesValue),
                  keys.count == values.count else { return nil }
            return .map(keys: keys, values: values)
        case "NSDate":
            guard let time = instance["NS.time"], let seconds = inlineValue(time).flatMap(Self.double) else { return nil }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case "NSUUID":
            guard case .value(.data(let bytes))? = instance["NS.uuidbytes"], bytes.count == 16 else { return nil }
            let b = Array(bytes)
            return .uuid(UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                                     b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15])))
        case "NSURL":
            guard let relative = instance["NS.relative"], case .string(let s)? = inlineValue(relative) else { return nil }
            let base = instance["NS.base"] ?? .null
            switch base {
            case .null, .reference: return .url(relative: s, base: base)
            default: return nil
            }
        case "NSNull":
            return .nsNull
        case "NSString", "NSMutableString":
            guard let v = instance["NS.string"], case .string(let s)? = inlineValue(v) else { return nil }
            return .string(s)
        case "NSData", "NSMutableData":
            guard let v = instance["NS.data"], case .data(let d)? = inlineValue(v) else { return nil }
            return .data(d)
        case "NSValue":
            guard case .integer(let special)?? = instance["NS.special"].map(inlineValue) else { return nil }
            switch special.int64Value {
            case 4?:
                guard let l = instance["NS.rangeval.location"].flatMap(inlineValue)?.integerValue,
                      let n = instance["NS.rangeval.length"].flatMap(inlineValue)?.integerValue else { return nil }
                return .range(location: l, length: n)
            case 1?, 2?, 3?:
                let key = ["NS.pointval", "NS.sizeval", "NS.rectval"][Int(special.int64Value ?? 1) - 1]
                guard let v = instance[key], case .string(let s)? = inlineValue(v) else { return nil }
                return .geometry(s)
            default:
                return nil
            }
        default:
            return nil
        }
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
