#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A type that supplies the value a ``DefaultFrom`` property takes when its key is missing.
///
/// The default must be known where the synthesized `init(from:)` runs, with no instance at hand, so it is a
/// static property of a type. A value type that has one natural default is its own provider
/// (``ArchiveDefaultValue``, used by ``DefaultWhenMissing``); for any other default, declare a small provider:
///
/// ```swift
/// enum DefaultFontSize: ArchiveDefaultProvider { static var archiveDefault: Double { 12 } }
/// ```
public protocol ArchiveDefaultProvider {
    /// The type of the value supplied.
    associatedtype DefaultedValue: Codable
    /// The value a property takes when the archive (or any Codable input) has no value for its key.
    static var archiveDefault: DefaultedValue { get }
}

/// A `Codable` type whose own natural default a ``DefaultWhenMissing`` property takes when its key is missing.
///
/// Built in: `Bool` (`false`), every integer and floating-point type (`0`), `String` (`""`), arrays, sets and
/// dictionaries (empty) and optionals (`nil`). Adopt it for your own types, such as an enum with a natural
/// first case.
public protocol ArchiveDefaultValue: Codable {
    /// The value a property of this type takes when the input has no value for its key.
    static var archiveDefault: Self { get }
}

/// The provider of a type's own default (``ArchiveDefaultValue``).
public enum TypeDefault<Value: ArchiveDefaultValue>: ArchiveDefaultProvider {
    public static var archiveDefault: Value { Value.archiveDefault }
}

/// A property that takes its type's own default (``ArchiveDefaultValue``) when its key is missing: see
/// ``DefaultFrom``.
public typealias DefaultWhenMissing<Value: ArchiveDefaultValue> = DefaultFrom<TypeDefault<Value>>

/// A property of a `Codable` model that takes a default when the input has no value for its key (or a null),
/// so that a field added to a model reads old archives, written before the field existed, without a
/// hand-written `init(from:)`.
///
/// ```swift
/// struct Note: ArchivableCodable {
///     var title: String
///     @DefaultWhenMissing var tags: [String]                            // [] when missing
///     @DefaultFrom<DefaultFontSize> var fontSize: Double                 // 12 when missing
/// }
/// ```
///
/// Synthesized `Codable` ignores a property's initial value (`var tags: [String] = []` still throws
/// `keyNotFound` for an old archive); this wrapper's decoding reads a missing key as
/// `Provider.archiveDefault`. It does what a hand-written `init(from:)` does with
/// `try container.decodeIfPresent([String].self, forKey: .tags) ?? []`. It works with any `Decoder` (a keyed
/// archive, `JSONDecoder`, `PropertyListDecoder`): the missing-key rule is an overload of
/// `KeyedDecodingContainer.decode(_:forKey:)` that the synthesized code calls. A value present but of the
/// wrong type still throws.
///
/// The default for a missing key is the provider's, never the property's initial value: with
/// `@DefaultWhenMissing var isFavorite: Bool = true`, an archive without `isFavorite` reads `false` (the
/// initial value only applies to values you create in code). For any other default, name a provider:
/// `@DefaultFrom<FavoriteByDefault> var isFavorite: Bool`.
///
/// The value is written as the value itself (the wrapper adds nothing to the archive), so the bytes equal
/// those of the same model without the wrapper.
@propertyWrapper
public struct DefaultFrom<Provider: ArchiveDefaultProvider>: Codable {
    /// The wrapped value.
    public var wrappedValue: Provider.DefaultedValue

    /// Wraps `wrappedValue`.
    public init(wrappedValue: Provider.DefaultedValue) {
        self.wrappedValue = wrappedValue
    }

    /// Wraps the provider's default.
    public init() {
        self.wrappedValue = Provider.archiveDefault
    }

    /// Reads the wrapped value from a single-value container.
    public init(from decoder: any Decoder) throws {
        wrappedValue = try decoder.singleValueContainer().decode(Provider.DefaultedValue.self)
    }

    /// Writes the wrapped value as a single value.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}

extension DefaultFrom: Equatable where Provider.DefaultedValue: Equatable {}
extension DefaultFrom: Hashable where Provider.DefaultedValue: Hashable {}
extension DefaultFrom: Sendable where Provider.DefaultedValue: Sendable {}

extension KeyedDecodingContainer {
    /// Reads a ``DefaultFrom`` (or ``DefaultWhenMissing``) property: its provider's default when `key` is absent or holds null,
    /// else the stored value.
    ///
    /// The synthesized `init(from:)` of a model calls this overload for a `@DefaultFrom` or
    /// `@DefaultWhenMissing` property.
    /// - Throws: `DecodingError` when a value is present but cannot be read as the property's type.
    public func decode<Provider>(_ type: DefaultFrom<Provider>.Type, forKey key: Key) throws -> DefaultFrom<Provider> {
        try decodeIfPresent(type, forKey: key) ?? DefaultFrom()
    }
}

extension ArchiveDefaultValue where Self: AdditiveArithmetic {
    /// Zero.
    public static var archiveDefault: Self { .zero }
}

extension Bool: ArchiveDefaultValue { public static var archiveDefault: Bool { false } }
extension String: ArchiveDefaultValue { public static var archiveDefault: String { "" } }
extension Int: ArchiveDefaultValue {}
extension Int8: ArchiveDefaultValue {}
extension Int16: ArchiveDefaultValue {}
extension Int32: ArchiveDefaultValue {}
extension Int64: ArchiveDefaultValue {}
extension UInt: ArchiveDefaultValue {}
extension UInt8: ArchiveDefaultValue {}
extension UInt16: ArchiveDefaultValue {}
extension UInt32: ArchiveDefaultValue {}
extension UInt64: ArchiveDefaultValue {}
extension Double: ArchiveDefaultValue {}
extension Float: ArchiveDefaultValue {}
extension Decimal: ArchiveDefaultValue {}
extension Array: ArchiveDefaultValue where Element: Codable {
    public static var archiveDefault: [Element] { [] }
}
extension Set: ArchiveDefaultValue where Element: Codable {
    public static var archiveDefault: Set<Element> { [] }
}
extension Dictionary: ArchiveDefaultValue where Key: Codable, Value: Codable {
    public static var archiveDefault: [Key: Value] { [:] }
}
extension Optional: ArchiveDefaultValue where Wrapped: Codable {
    public static var archiveDefault: Wrapped? { nil }
}
