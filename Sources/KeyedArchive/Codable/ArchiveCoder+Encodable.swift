#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Apple's Swift overlay stores a Codable value inside an archived object as a property-list subtree:
// `NSKeyedArchiver.encodeEncodable(_:forKey:)` runs `PropertyListEncoder().encodeToTopLevelContainer(value)`
// and `encode(_:forKey:)`s the resulting NSDictionary / NSArray / NSNumber / NSString / NSData / NSDate;
// `NSKeyedUnarchiver.decodeDecodable(_:forKey:)` decodes an object of one of those classes (nil when absent)
// and runs `PropertyListDecoder().decode(_:fromTopLevel:)` on it. These do the same with the same
// encoder and decoder, so such fields read both ways between this package and Apple platforms.

extension ArchiveEncoder {
    /// Writes a Codable value as a property-list subtree (NSDictionary, NSArray, NSString, NSNumber, NSData,
    /// NSDate), as `PropertyListEncoder` represents it.
    ///
    /// The corresponding Foundation API is `NSKeyedArchiver.encodeEncodable(_:forKey:)` (Apple platforms).
    /// Unlike ``ArchivableCodable``, nothing is an object with a class: a nested value is a dictionary, a
    /// `Set` an array, `nil` the string `"$null"`, a `UUID` a string, exactly as `PropertyListEncoder` writes them.
    /// A top-level number or `Bool` is its own NSNumber object (as `encode(NSNumber, forKey:)` writes it).
    /// - Throws: `EncodingError` from `PropertyListEncoder`, or ``KeyedArchiveError``.
    public func encodeEncodable<T: Encodable>(_ value: T, forKey key: String) throws {
        // PropertyListEncoder rejects top-level fragments (a number, a string); Apple's overlay calls its
        // internal encodeToTopLevelContainer, which accepts them. Wrapping in a one-element array and taking
        // the element out gives the same subtree.
        let data = try PropertyListEncoder().encode([value])
        let tree = try PropertyListValue(propertyListData: data)
        guard case .array(let items) = tree, items.count == 1 else {
            throw KeyedArchiveError(.invalidValue, "PropertyListEncoder gave no value for \(T.self)", keyPath: key)
        }
        // `encode(_:forKey:)` of an NSNumber writes it as an object referenced by UID, not inline.
        switch try FoundationValue(propertyListSubtree: items[0], keyPath: key) {
        case .integer(let i):
            if let s = i.int64Value { try encodeIntegerObject(s, forKey: key) } else { try encodeIntegerObject(i.uint64Value ?? 0, forKey: key) }
        case .real(let d): try encodeRealObject(d, forKey: key)
        case .bool(let b): try encodeBoolObject(b, forKey: key)
        case let value: try encode(value, forKey: key)
        }
    }
}

extension ArchiveDecoder {
    /// Reads a Codable value stored as a property-list subtree (by ``ArchiveEncoder/encodeEncodable(_:forKey:)``
    /// or Apple's overlay), or nil when the key is absent or holds `$null`.
    ///
    /// The corresponding Foundation API is `NSKeyedUnarchiver.decodeDecodable(_:forKey:)` (Apple platforms).
    /// Only the property-list classes are accepted (NSDictionary, NSArray, NSString, NSNumber, NSData,
    /// NSDate), as Apple's overlay accepts.
    /// - Throws: `DecodingError` from `PropertyListDecoder`, or ``KeyedArchiveError``.
    public func decodeDecodable<T: Decodable>(_ type: T.Type, forKey key: String) throws -> T? {
        if try decodeNil(forKey: key) { return nil }
        let value = try decodeFoundationValue(forKey: key)
        let subtree = try value.propertyListSubtree(keyPath: keyPath.isEmpty ? key : keyPath + "." + key)
        let data: Data
        do {
            data = try PropertyListValue.array([subtree]).propertyListData(format: .binary)
        } catch let error as PropertyListError {
            throw KeyedArchiveError(.dataCorrupted, "the value under \(key) is not a property list: \(error.message)",
                                    keyPath: key, underlying: error)
        }
        let decoded = try PropertyListDecoder().decode([T].self, from: data)
        guard let first = decoded.first else {
            throw KeyedArchiveError(.dataCorrupted, "PropertyListDecoder gave no value for \(T.self)", keyPath: key)
        }
        return first
    }
}

extension FoundationValue {
    /// The Foundation value of a property list that `PropertyListEncoder` wrote.
    init(propertyListSubtree value: PropertyListValue, keyPath: String) throws {
        switch value {
        case .string(let s): self = .string(s)
        case .integer(let i): self = .integer(i)
        case .real(let d): self = .real(d)
        case .float(let f): self = .real(Double(f))
        case .bool(let b): self = .bool(b)
        case .date(let d): self = .date(d)
        case .data(let d): self = .data(d)
        case .array(let a): self = .array(try a.map { try FoundationValue(propertyListSubtree: $0, keyPath: keyPath) })
        case .dictionary(let d):
            var result: [FoundationValue: FoundationValue] = [:]
            for (k, v) in d { result[.string(k)] = try FoundationValue(propertyListSubtree: v, keyPath: keyPath) }
            self = .dictionary(result)
        case .set, .uid:
            throw KeyedArchiveError(.invalidValue, "PropertyListEncoder wrote a \(value.kindName)", keyPath: keyPath)
        }
    }

    /// The property list of a value made only of the property-list classes.
    func propertyListSubtree(keyPath: String) throws -> PropertyListValue {
        switch self {
        case .string(let s): return .string(s)
        case .integer(let i): return .integer(i)
        case .real(let d): return .real(d)
        case .bool(let b): return .bool(b)
        case .date(let d): return .date(d)
        case .data(let d): return .data(d)
        case .array(let a): return .array(try a.map { try $0.propertyListSubtree(keyPath: keyPath) })
        case .dictionary(let d):
            var pairs: [(String, PropertyListValue)] = []
            for (k, v) in d {
                guard case .string(let name) = k else {
                    throw KeyedArchiveError(.typeMismatch, "a property-list dictionary key must be a string", keyPath: keyPath)
                }
                pairs.append((name, try v.propertyListSubtree(keyPath: keyPath)))
            }
            return .dictionary(PropertyListDictionary(pairs.sorted { $0.0 < $1.0 }))
        default:   // NSNull, NSUUID, NSURL, NSSet, NSOrderedSet and the catalogue's value classes
            throw KeyedArchiveError(.classNotAllowed,
                                    "decodeDecodable reads only property-list classes (NSDictionary, NSArray, NSString, NSNumber, "
                                        + "NSData, NSDate), as Apple's overlay does", keyPath: keyPath)
        }
    }
}
