#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Foundation's `NSISO8601DateFormatter`: the settings of an ISO 8601 date formatter.
///
/// The corresponding Foundation class is `ISO8601DateFormatter`.
///
/// Layout (the macOS 10.14 fixtures ISO8601DateFormatter-Default.archive and -OptionsSet.archive;
/// `$classes` `[NSISO8601DateFormatter, NSFormatter, NSObject]`):
/// - `NS.formatOptions`: inline integer, the raw value of `ISO8601DateFormatter.Options` (1907,
///   `.withInternetDateTime`, by default; 1366 in -OptionsSet); always written;
/// - `NS.timeZone`: UID → an NSTimeZone (``ArchivedTimeZone``; GMT with its TZif data in both fixtures);
///   left out when the formatter has no time zone.
public struct ArchivedISO8601DateFormatter: CataloguedValue {
    /// `.withInternetDateTime`, the options of a new `ISO8601DateFormatter`.
    public static let defaultFormatOptions = 1907

    /// The raw value of the formatter's `ISO8601DateFormatter.Options` (`NS.formatOptions`).
    public var formatOptions: Int
    /// The formatter's time zone (`NS.timeZone`), or nil.
    public var timeZone: ArchivedTimeZone?

    /// A formatter with the given options and time zone (by default Foundation's: internet date-time, GMT).
    public init(formatOptions: Int = Self.defaultFormatOptions,
                timeZone: ArchivedTimeZone? = ArchivedTimeZone(identifier: "GMT")) {
        self.formatOptions = formatOptions
        self.timeZone = timeZone
    }

    public static var archivedClassName: String { "NSISO8601DateFormatter" }
    public static var foundationValueName: String { "iso8601DateFormatter" }
    public static var archivedClassChain: [String] { ["NSISO8601DateFormatter", "NSFormatter", "NSObject"] }

    /// Reads `NS.formatOptions` and `NS.timeZone`.
    ///
    /// - Throws: ``KeyedArchiveError`` naming `NSISO8601DateFormatter` and the key when `NS.formatOptions`
    ///   is missing, not an integer or negative, or `NS.timeZone` is not a time zone.
    public init(from decoder: any ArchiveDecoder) throws {
        self = try namingClass(Self.archivedClassName) { try Self(reading: decoder) }
    }

    private init(reading decoder: any ArchiveDecoder) throws {
        formatOptions = try decoder.decode(Int.self, forKey: "NS.formatOptions")
        guard formatOptions >= 0 else {
            throw foundationTypeError(decoder, className: Self.archivedClassName, key: "NS.formatOptions",
                                      "negative options \(formatOptions)")
        }
        timeZone = try decoder.decodeIfPresent(ArchivedTimeZone.self, forKey: "NS.timeZone")
    }

    /// Writes `NS.formatOptions` inline and `NS.timeZone` as an NSTimeZone object when there is one, as
    /// Apple does.
    public func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(formatOptions, forKey: "NS.formatOptions")
        if let timeZone { try encoder.encodeObject(timeZone, forKey: "NS.timeZone") }
    }

    /// `NSISO8601DateFormatter options 1907 GMT`.
    public var description: String {
        "NSISO8601DateFormatter options \(formatOptions)" + (timeZone.map { " \($0.identifier)" } ?? "")
    }
}
