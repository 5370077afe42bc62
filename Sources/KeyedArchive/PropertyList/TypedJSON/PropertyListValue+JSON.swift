#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PropertyListValue {
    /// Reads plain JSON as a property list, as Foundation's `JSONSerialization` and Apple's `plutil` read a
    /// JSON file: objects become dictionaries (keys in the order written; a repeated key keeps its last
    /// value), arrays arrays, strings strings, `true` and `false` Booleans. A number written without `.`,
    /// `e` or `E` that fits in 64 bits (signed or unsigned) is an integer, any other number a real. No
    /// marker is interpreted (`{"$date": ...}` is a dictionary): for JSON that keeps dates, data and UIDs,
    /// see ``init(typedJSON:options:)``.
    ///
    /// The corresponding Foundation API is `JSONSerialization.jsonObject(with:options:)` with
    /// `.fragmentsAllowed`.
    /// - Parameters:
    ///   - data: UTF-8 JSON text (a leading byte-order mark is skipped); a fragment such as `"text"` or `12`
    ///     is a value too.
    ///   - options: `maximumDepth` bounds the nesting of arrays and objects (default 512).
    /// - Throws: ``PropertyListError`` with code ``PropertyListError/Code/invalidJSON``: the byte offset of
    ///   text that is not JSON (or nests too deep), or the key path of a `null` (which has no property-list
    ///   form) or of a number no 64-bit real holds.
    public init(json data: Data, options: PropertyListReadingOptions = .init()) throws {
        var scanner = JSONScanner(data, maximumDepth: options.maximumDepth, keepsRepeatedKeys: true)
        self = try PlainJSONDecoding.value(scanner.parse(), path: [])
    }
}

/// Plain JSON to property-list values (recursion bounded by the scanner's depth limit).
enum PlainJSONDecoding {
    static func value(_ json: JSONValue, path: [String]) throws -> PropertyListValue {
        switch json {
        case .null: throw TypedJSONDecoding.error("null has no property-list equivalent", path)
        case .bool(let b): return .bool(b)
        case .string(let s): return .string(s)
        case .number(let text):
            if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
                if let i = Int64(text) { return .integer(PropertyListInteger(i)) }
                if let u = UInt64(text) { return .integer(PropertyListInteger(u)) }
            }
            guard let d = Double(text), d.isFinite else {
                throw TypedJSONDecoding.error("the number \(text) does not fit in a 64-bit real", path)
            }
            return .real(d)
        case .array(let items):
            return .array(try items.enumerated().map { try value($0.element, path: path + [String($0.offset)]) })
        case .object(let entries):
            var out = PropertyListDictionary()
            for (key, item) in entries { out[key] = try value(item, path: path + [key]) }
            return .dictionary(out)
        }
    }
}
