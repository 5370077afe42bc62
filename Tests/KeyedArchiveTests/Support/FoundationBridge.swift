import Foundation
@testable import KeyedArchive

/// Converts between ``PropertyListValue`` and the `Any` trees of Foundation's `PropertyListSerialization`,
/// for interop tests that run Foundation's real reader and writer in-process.
///
/// Foundation cannot carry everything: dictionaries lose their key order (compare with `==`, which ignores
/// order), sets and UIDs have no `Any` form here (``foundationObject(_:)`` returns `nil`).
enum FoundationBridge {
    /// The Foundation object for `value` (`NSNumber`, `String`, `Data`, `Date`, `[Any]`, `[String: Any]`,
    /// `Bool`), or `nil` when `value` contains a set or a UID.
    static func foundationObject(_ value: PropertyListValue) -> Any? {
        switch value {
        case .string(let s): return s
        case .integer(let i):
            if let s = i.int64Value { return NSNumber(value: s) }
            return NSNumber(value: i.uint64Value ?? 0)
        case .real(let d): return NSNumber(value: d)
        case .float(let f): return NSNumber(value: f)
        case .bool(let b): return b
        case .date(let d): return d
        case .data(let d): return d
        case .array(let a):
            var out: [Any] = []
            for e in a {
                guard let o = foundationObject(e) else { return nil }
                out.append(o)
            }
            return out
        case .dictionary(let d):
            var out: [String: Any] = [:]
            for (k, v) in d {
                guard let o = foundationObject(v) else { return nil }
                out[k] = o
            }
            return out
        case .set, .uid: return nil
        }
    }

    /// The ``PropertyListValue`` for what `PropertyListSerialization.propertyList(from:...)` returned, or
    /// `nil` for an object it cannot map. Dictionary keys come out sorted (Foundation keeps no order).
    static func value(_ object: Any) -> PropertyListValue? {
        if type(of: object) == Bool.self, let b = object as? Bool { return .bool(b) }
        if let n = object as? NSNumber {
            switch String(cString: n.objCType) {
            case "f": return .float(n.floatValue)
            case "d": return .real(n.doubleValue)
            case "Q": return .integer(PropertyListInteger(n.uint64Value))
            case "c": return .bool(n.boolValue)  // swift-corelibs-foundation's boolean NSNumber
            default: return .integer(PropertyListInteger(n.int64Value))
            }
        }
        if let s = object as? String { return .string(s) }
        if let d = object as? Data { return .data(d) }
        if let d = object as? Date { return .date(d) }
        if let a = object as? [Any] {
            var out: [PropertyListValue] = []
            for e in a {
                guard let v = value(e) else { return nil }
                out.append(v)
            }
            return .array(out)
        }
        if let d = object as? [String: Any] {
            var out = PropertyListDictionary()
            for k in d.keys.sorted() {
                guard let v = value(d[k] as Any) else { return nil }
                out[k] = v
            }
            return .dictionary(out)
        }
        return nil
    }

    /// Foundation's binary encoding of `value`, or `nil` when the bridge cannot express it.
    static func foundationBinary(_ value: PropertyListValue) throws -> Data? {
        guard let object = foundationObject(value) else { return nil }
        return try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
    }

    /// Foundation's reading of `data`, mapped back to a ``PropertyListValue``.
    static func foundationRead(_ data: Data) throws -> PropertyListValue? {
        value(try PropertyListSerialization.propertyList(from: data, options: [], format: nil))
    }
}
