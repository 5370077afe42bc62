#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A property of an ``ArchivableCodable`` type whose value is archived by its hand-written coding: a
/// ``KeyedArchivable`` model (or an array or dictionary of them) that is not `Codable`.
///
/// ```swift
/// struct Folder: ArchivableCodable {
///     var name: String
///     @Archived var legacy: LegacyNote      // LegacyNote: KeyedArchivable, not Codable
/// }
/// ```
///
/// In a keyed archive the value is written and read exactly as ``ArchiveEncoder/encode(_:forKey:)-(T,_)`` and
/// ``ArchiveDecoder/decode(_:forKey:)->T`` do. Any other `Encoder` or `Decoder` (JSON, property lists) throws:
/// the wrapped value has no Codable form.
@propertyWrapper
public struct Archived<Value: ArchiveValue>: ArchiveValue, Codable {
    /// The wrapped value.
    public var wrappedValue: Value

    /// Wraps `wrappedValue`.
    public init(wrappedValue: Value) {
        self.wrappedValue = wrappedValue
    }

    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws {
        try wrappedValue.encode(to: encoder, forKey: key)
    }

    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Archived<Value> {
        Archived(wrappedValue: try Value.decode(from: decoder, forKey: key))
    }

    /// Throws: an `@Archived` value is only written to a keyed archive.
    public func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(wrappedValue, .init(codingPath: encoder.codingPath, debugDescription:
            "\(Value.self) is archived by its hand-written KeyedArchivable coding; it has no Codable form outside a keyed archive"))
    }

    /// Throws: an `@Archived` value is only read from a keyed archive.
    public init(from decoder: any Decoder) throws {
        throw DecodingError.typeMismatch(Value.self, .init(codingPath: decoder.codingPath, debugDescription:
            "\(Value.self) is read by its hand-written KeyedArchivable coding; it has no Codable form outside a keyed archive"))
    }
}

/// An `@Archived` property is `Sendable` when its wrapped value is, so a `Sendable` model may hold one.
extension Archived: Sendable where Value: Sendable {}
