#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Foundation's `NSTimeZone`: a time zone by name, with the zone's rules as TZif bytes when Apple had them.
///
/// The corresponding Foundation types are `NSTimeZone` and `TimeZone` (see ``timeZone``).
///
/// Layout (the Darwin DateIntervalFormatter-*.archive and ISO8601DateFormatter-*.archive fixtures, macOS
/// 10.14, where NSTimeZone is nested; `$classes` `[NSTimeZone, NSObject]`):
/// - `NS.name`: UID → string, the identifier (`"GMT"`, `"Europe/Paris"`, `"GMT+0100"`);
/// - `NS.data`: UID → an NSMutableData object holding the zone's TZif file, or `$null` for a zone that has
///   none (a fixed offset such as `"GMT+0100"`).
public struct ArchivedTimeZone: CataloguedValue {
    /// The time zone's identifier (`NS.name`).
    public var identifier: String
    /// The zone's rules as a TZif file (`NS.data`), or nil.
    public var tzifData: Data?

    /// A time zone named `identifier`, with its TZif rules when known.
    public init(identifier: String, tzifData: Data? = nil) {
        self.identifier = identifier
        self.tzifData = tzifData
    }

    /// The identifier of `timeZone`, without TZif data (Foundation reads the rules by name).
    public init(_ timeZone: TimeZone) { self.init(identifier: timeZone.identifier) }

    /// The time zone as Foundation's value type, when this system knows the identifier.
    public var timeZone: TimeZone? { TimeZone(identifier: identifier) }

    public static var archivedClassName: String { "NSTimeZone" }
    public static var foundationValueName: String { "timeZone" }

    /// Reads `NS.name` and `NS.data`.
    ///
    /// - Throws: ``KeyedArchiveError`` naming `NSTimeZone` and the key when `NS.name` is missing or not a
    ///   string, or `NS.data` is not data.
    public init(from decoder: any ArchiveDecoder) throws {
        self = try namingClass(Self.archivedClassName) { try Self(reading: decoder) }
    }

    private init(reading decoder: any ArchiveDecoder) throws {
        identifier = try decoder.decode(String.self, forKey: "NS.name")
        tzifData = try decoder.decodeIfPresent(Data.self, forKey: "NS.data")
    }

    /// Writes `NS.name` and `NS.data` (an NSMutableData object, or `$null`), as Apple does.
    public func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(identifier, forKey: "NS.name")
        if let tzifData {
            try encoder.encode(MutableDataObject(tzifData), forKey: "NS.data")
        } else {
            try encoder.encodeNil(forKey: "NS.data")
        }
    }

    /// `NSTimeZone Europe/Paris`.
    public var description: String { "NSTimeZone \(identifier)" }
}
