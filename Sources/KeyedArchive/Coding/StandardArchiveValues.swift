#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// MARK: - Standard conformances

extension Bool: ArchiveValue {
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encoder.encode(self, forKey: key) }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Bool {
        try decoder.decode(Bool.self, forKey: key)
    }
}

/// Integers share one implementation: encoded inline, decoded with a range check.
public protocol _ArchiveInteger: FixedWidthInteger, ArchiveValue {}
extension _ArchiveInteger {
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encoder.encodeInteger(self, forKey: key) }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Self {
        try decoder.decodeInteger(Self.self, forKey: key)
    }
}
extension Int: _ArchiveInteger {}
extension Int8: _ArchiveInteger {}
extension Int16: _ArchiveInteger {}
extension Int32: _ArchiveInteger {}
extension Int64: _ArchiveInteger {}
extension UInt: _ArchiveInteger {}
extension UInt8: _ArchiveInteger {}
extension UInt16: _ArchiveInteger {}
extension UInt32: _ArchiveInteger {}
extension UInt64: _ArchiveInteger {}

extension Float: ArchiveValue {
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encoder.encode(self, forKey: key) }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Float {
        try decoder.decode(Float.self, forKey: key)
    }
}
extension Double: ArchiveValue {
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encoder.encode(self, forKey: key) }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Double {
        try decoder.decode(Double.self, forKey: key)
    }
}
extension String: ArchiveValue {
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encoder.encode(self, forKey: key) }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> String {
        try decoder.decode(String.self, forKey: key)
    }
}
extension Data: ArchiveValue {
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encoder.encode(self, forKey: key) }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Data {
        try decoder.decode(Data.self, forKey: key)
    }
}
extension Date: ArchiveValue {
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encoder.encode(self, forKey: key) }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Date {
        try decoder.decode(Date.self, forKey: key)
    }
}
extension UUID: ArchiveValue {
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encoder.encode(self, forKey: key) }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> UUID {
        try decoder.decode(UUID.self, forKey: key)
    }
}
extension URL: ArchiveValue {
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encoder.encode(self, forKey: key) }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> URL {
        try decoder.decode(URL.self, forKey: key)
    }
}

extension Optional: ArchiveValue where Wrapped: ArchiveValue {
    /// `nil` is written as `$null` (UID 0), as Foundation writes `encodeObject(nil, forKey:)`.
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws {
        switch self {
        case .none: try encoder.encodeNil(forKey: key)
        case .some(let wrapped): try wrapped.encode(to: encoder, forKey: key)
        }
    }
    /// An absent key or `$null` reads as nil.
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Wrapped? {
        if try decoder.decodeNil(forKey: key) { return nil }
        return try Wrapped.decode(from: decoder, forKey: key)
    }
}

extension Array: ArchiveValue where Element: ArchiveValue {
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encoder.encodeArray(self, forKey: key) }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> [Element] {
        try decoder.decodeArray(of: Element.self, forKey: key)
    }
}
extension Set: ArchiveValue where Element: ArchiveValue {
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encoder.encodeSet(self, forKey: key) }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Set<Element> {
        try decoder.decodeSet(of: Element.self, forKey: key)
    }
}
extension Dictionary: ArchiveValue where Key: ArchiveValue, Value: ArchiveValue {
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws {
        try encoder.encodeDictionary(self, forKey: key)
    }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> [Key: Value] {
        try decoder.decodeDictionary(keyType: Key.self, valueType: Value.self, forKey: key)
    }
}
