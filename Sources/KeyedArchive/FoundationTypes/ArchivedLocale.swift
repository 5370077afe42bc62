#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Foundation's `NSLocale`: a locale by identifier.
///
/// The corresponding Foundation types are `NSLocale` and `Locale` (see ``locale``).
///
/// Layout (the Darwin DateIntervalFormatter-*.archive fixtures, macOS 10.14, where NSLocale is nested;
/// `$classes` `[NSLocale, NSObject]`): `NS.identifier`, UID → string (`"ja-JP"`; `""` for the system locale).
public struct ArchivedLocale: CataloguedValue {
    /// The locale's identifier (`NS.identifier`).
    public var identifier: String

    /// A locale with the given identifier.
    public init(identifier: String) { self.identifier = identifier }

    /// The identifier of `locale`.
    public init(_ locale: Locale) { self.init(identifier: locale.identifier) }

    /// The locale as Foundation's value type.
    public var locale: Locale { Locale(identifier: identifier) }

    public static var archivedClassName: String { "NSLocale" }
    public static var foundationValueName: String { "locale" }

    /// Reads `NS.identifier`.
    ///
    /// - Throws: ``KeyedArchiveError`` naming `NSLocale` and the key when it is missing or not a string.
    public init(from decoder: any ArchiveDecoder) throws {
        self = try namingClass(Self.archivedClassName) { try Self(reading: decoder) }
    }

    private init(reading decoder: any ArchiveDecoder) throws {
        identifier = try decoder.decode(String.self, forKey: "NS.identifier")
    }

    /// Writes `NS.identifier` as a string object, as Apple does.
    public func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(identifier, forKey: "NS.identifier")
    }

    /// `NSLocale ja-JP`.
    public var description: String { "NSLocale \(identifier)" }
}
