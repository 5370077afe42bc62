#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// `Calendar` and `DateComponents` archived as NSCalendar and NSDateComponents, the classes Apple's archiver writes
// for them (see FoundationValueTypes+Archiving.swift for the protocol and the names earlier versions wrote).
//
// A calendar is only ever built from an identifier this process can build: FoundationEssentials builds the
// Gregorian and ISO 8601 calendars itself and asks FoundationInternationalization for any other
// (`_calendarClass(identifier:)` in swift-foundation's Calendar_Cache.swift force-unwraps the answer, so a process
// that links FoundationEssentials alone stops on `Calendar(identifier: .japanese)`). Reading refuses such an
// identifier with a thrown error instead (``CalendarIdentifiers``).

// MARK: - Calendar identifiers

/// The calendar identifiers an archive may name, and which of them this process can build.
enum CalendarIdentifiers {
    /// NSCalendar's identifiers (`NSCalendarIdentifierGregorian`...), which Calendar's Codable form and NSCalendar's
    /// `NS.identifier` hold, known to every Foundation that reads archives.
    static let classic: Set<String> = [
        "gregorian", "buddhist", "chinese", "coptic", "ethiopic", "ethiopic-amete-alem", "hebrew", "iso8601", "indian",
        "islamic", "islamic-civil", "japanese", "persian", "roc", "islamic-tbla", "islamic-umalqura",
    ]
    /// Identifiers added in 2025 (`Calendar.Identifier.bangla`...): Foundations from before swift-foundation stop on
    /// an identifier they do not know (`identifierMap[identifier]!` in their `Calendar.init(from:)`), so these are
    /// passed on only where swift-foundation reads them (Linux, macOS 14, iOS 17 and later), which throws instead.
    static let recent: Set<String> = [
        "bangla", "gujarati", "kannada", "malayalam", "marathi", "odia", "tamil", "telugu", "vikram", "dangi", "vietnamese",
    ]
    /// The identifiers FoundationEssentials builds without FoundationInternationalization.
    static let builtIn: Set<String> = ["gregorian", "iso8601"]

    /// Whether FoundationInternationalization is loaded: it supplies the calendars FoundationEssentials does not
    /// build itself (by replacing `_calendarICUClass()`, whose answer `_calendarClass(identifier:)` force-unwraps).
    /// On Apple platforms Foundation builds every calendar.
    static let internationalizationIsLoaded: Bool = {
        #if canImport(Darwin)
        return true
        #else
        return _typeByName("FoundationInternationalization._CalendarICU") != nil
        #endif
    }()

    /// Checks that `identifier` names a calendar this process can build, before anything builds it.
    /// - Throws: ``KeyedArchiveError/Code/dataCorrupted`` for an identifier Foundation does not know, and
    ///   ``KeyedArchiveError/Code/unsupported`` for one whose calendar needs FoundationInternationalization where
    ///   only FoundationEssentials is linked; both name the identifier and `key`.
    static func check(_ identifier: String, _ decoder: any ArchiveDecoder, key: String) throws {
        var known = classic.contains(identifier)
        if !known, recent.contains(identifier) {
            #if canImport(Darwin)
            if #available(macOS 14, iOS 17, tvOS 17, watchOS 10, *) { known = true }
            #else
            known = true
            #endif
        }
        guard known else {
            throw foundationTypeError(decoder, className: CalendarObject.archivedClassName, key: key,
                                      "no calendar has the identifier \"\(identifier)\"")
        }
        guard builtIn.contains(identifier) || internationalizationIsLoaded else {
            throw foundationTypeError(decoder, className: CalendarObject.archivedClassName, key: key,
                                      "the \"\(identifier)\" calendar needs FoundationInternationalization, which this process "
                                          + "does not link (FoundationEssentials builds only the gregorian and iso8601 calendars): "
                                          + "import Foundation to read it", code: .unsupported)
        }
    }

    /// The identifier string of `calendar` (`"gregorian"`, `"ethiopic-amete-alem"`), as its Codable form writes it.
    static func string(of calendar: Calendar) throws -> String {
        struct IdentifierField: Decodable { var identifier: String }
        let data = try PropertyListEncoder().encode([calendar])
        guard let field = try PropertyListDecoder().decode([IdentifierField].self, from: data).first else {
            throw KeyedArchiveError(.invalidValue, "calendar \(calendar.identifier) encoded no identifier",
                                    className: CalendarObject.archivedClassName)
        }
        return field.identifier
    }

    /// A calendar with `identifier`, which ``check(_:_:key:)`` has accepted: made by Calendar's own Codable form
    /// from a Gregorian calendar's fields with the identifier replaced (Calendar offers no public initializer that
    /// takes the identifier's string).
    static func calendar(_ identifier: String, _ decoder: any ArchiveDecoder, key: String) throws -> Calendar {
        let template = try PropertyListValue(propertyListData: PropertyListEncoder().encode([Calendar(identifier: .gregorian)]))
        guard case .array(let items) = template, items.count == 1, case .dictionary(var fields) = items[0] else {
            throw foundationTypeError(decoder, className: CalendarObject.archivedClassName, key: key,
                                      "Calendar's Codable form is not a dictionary")
        }
        fields["identifier"] = .string(identifier)
        let data = try PropertyListValue.array([.dictionary(fields)]).propertyListData(format: .binary)
        do {
            guard let calendar = try PropertyListDecoder().decode([Calendar].self, from: data).first else {
                throw foundationTypeError(decoder, className: CalendarObject.archivedClassName, key: key, "no calendar was made")
            }
            return calendar
        } catch let error as DecodingError {
            throw foundationTypeError(decoder, className: CalendarObject.archivedClassName, key: key,
                                      "Calendar refused the identifier \"\(identifier)\" (\(error.context.debugDescription))")
        }
    }

    /// The calendar an archive describes, its identifier checked by the caller (``check(_:_:key:)``), read before
    /// the other fields so that an identifier this process cannot build is what the error names; then the fields set
    /// that are present (`keyPrefix` is `"NS."` for NSCalendar's keys, `""` for the Codable form's).
    static func calendar(identifier: String, locale: Locale?, timeZone: TimeZone?, firstWeekday: Int?,
                         minimumDaysInFirstWeek: Int?, _ decoder: any ArchiveDecoder, identifierKey: String) throws -> Calendar {
        var calendar = try self.calendar(identifier, decoder, key: identifierKey)
        if let locale { calendar.locale = locale }
        if let timeZone { calendar.timeZone = timeZone }
        if let firstWeekday { calendar.firstWeekday = firstWeekday }
        if let minimumDaysInFirstWeek { calendar.minimumDaysInFirstWeek = minimumDaysInFirstWeek }
        return calendar
    }
}

// MARK: - Calendar

/// `NSCalendar`'s keyed form, as Apple's `-[NSCalendar encodeWithCoder:]` writes it: `NS.identifier` (a string),
/// `NS.locale` (NSLocale) and `NS.timezone` (NSTimeZone) when set, `NS.firstwkdy` and `NS.mindays` (integers).
/// swift-corelibs-foundation writes the same keys (with `$null` for a missing locale and Gregorian start date).
/// `$classes` is `[NSCalendar, NSObject]`.
///
/// `NS.gstartdate`, the Gregorian start date Apple writes when one is set, has no counterpart in `Calendar`: it is
/// checked to be a date and not kept. A current or autoupdating calendar is written with its present fields.
struct CalendarObject: KeyedArchivable {
    static var archivedClassName: String { "NSCalendar" }
    let calendar: Calendar

    init(_ calendar: Calendar) { self.calendar = calendar }

    /// Reads the fields; the identifier is checked before any calendar is built (``CalendarIdentifiers``).
    init(from decoder: any ArchiveDecoder) throws {
        calendar = try namingClass(Self.archivedClassName) {
            let identifier = try decoder.decode(String.self, forKey: "NS.identifier")
            try CalendarIdentifiers.check(identifier, decoder, key: "NS.identifier")
            let locale = try decoder.decodeIfPresent(Locale.self, forKey: "NS.locale")
            let timeZone = try decoder.decodeIfPresent(TimeZone.self, forKey: "NS.timezone")
            _ = try decoder.decodeIfPresent(Date.self, forKey: "NS.gstartdate")
            return try CalendarIdentifiers.calendar(
                identifier: identifier, locale: locale, timeZone: timeZone,
                firstWeekday: try decoder.decodeIfPresent(Int.self, forKey: "NS.firstwkdy"),
                minimumDaysInFirstWeek: try decoder.decodeIfPresent(Int.self, forKey: "NS.mindays"), decoder, identifierKey: "NS.identifier")
        }
    }

    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(try CalendarIdentifiers.string(of: calendar), forKey: "NS.identifier")
        if let locale = calendar.locale { try locale.encode(to: encoder, forKey: "NS.locale") }
        try calendar.timeZone.encode(to: encoder, forKey: "NS.timezone")
        try encoder.encode(calendar.firstWeekday, forKey: "NS.firstwkdy")
        try encoder.encode(calendar.minimumDaysInFirstWeek, forKey: "NS.mindays")
    }
}

extension Calendar: FoundationBridgedValue {
    static var foundationKey: String { "NS.identifier" }
    static var swiftTypeName: String { "Calendar" }
    init(archived: CalendarObject, decoder: any ArchiveDecoder) { self = archived.calendar }
    var archived: CalendarObject { CalendarObject(self) }

    /// The Codable form (`identifier`, `locale`, `timeZone`, `firstWeekday`, `minimumDaysInFirstWeek`, and
    /// `current`: 1 for the current calendar, 2 for the autoupdating one), read field by field so that the
    /// identifier is checked before Calendar's own `init(from:)` would build it.
    static func decodeCodableForm(_ adapter: ArchiveCodableDecoder, decoder: any ArchiveDecoder) throws -> Calendar {
        switch try decoder.decodeIfPresent(Int.self, forKey: "current") {
        case 1?: return .current
        case 2?: return .autoupdatingCurrent
        default: break
        }
        let identifier = try decoder.decode(String.self, forKey: "identifier")
        try CalendarIdentifiers.check(identifier, decoder, key: "identifier")
        return try CalendarIdentifiers.calendar(
            identifier: identifier,
            locale: try decoder.decodeIfPresent(Locale.self, forKey: "locale"),
            timeZone: try decoder.decodeIfPresent(TimeZone.self, forKey: "timeZone"),
            firstWeekday: try decoder.decodeIfPresent(Int.self, forKey: "firstWeekday"),
            minimumDaysInFirstWeek: try decoder.decodeIfPresent(Int.self, forKey: "minimumDaysInFirstWeek"),
            decoder, identifierKey: "identifier")
    }
}

/// A `Calendar` is archived as an `NSCalendar` (its identifier, locale, time zone, first weekday and minimum days
/// in the first week); the `FoundationEssentials.Calendar`/`Foundation.Calendar` objects earlier versions wrote are
/// read too.
/// - Throws: on reading, ``KeyedArchiveError/Code/unsupported`` for a calendar this process cannot build (any but
///   the Gregorian and ISO 8601 calendars where only FoundationEssentials is linked), and
///   ``KeyedArchiveError/Code/dataCorrupted`` for an unknown identifier.
extension Calendar: ArchiveValue {
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encodeBridged(to: encoder, forKey: key) }
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Calendar {
        try decodeBridged(from: decoder, forKey: key)
    }
}

// MARK: - DateComponents

/// `NSDateComponents`' keyed form. Apple (`-[NSDateComponents encodeWithCoder:]`, iOS 26) writes `NS.calendar` and
/// `NS.timezone` when set, each defined component as an integer (`NS.era`, `NS.year`, `NS.month`, `NS.day`,
/// `NS.hour`, `NS.minute`, `NS.second`, `NS.nanosec`, `NS.weekday`, `NS.weekdayOrdinal`, `NS.quarter`,
/// `NS.weekOfMonth`, `NS.weekOfYear`, `NS.yearForWOY`, `NS.dayOfYear`) and `NS.leapMonth` (an integer), and reads
/// a missing component as undefined. swift-corelibs-foundation writes every component of its own list, undefined
/// ones as `NSDateComponentUndefined` (`Int.max`), `NS.isLeapMonth` (a Boolean) instead, and reads a missing
/// component as 0. So every component of that list is written, `Int64.max` when undefined (the 64-bit
/// `NSIntegerMax`, on every platform), which both read as undefined; `NS.dayOfYear` when defined; and a
/// leap-month flag that is set under both keys. See ``ComponentWidth`` for the sentinel at both widths of
/// `NSInteger`. `$classes` is `[NSDateComponents, NSObject]`.
struct DateComponentsObject: KeyedArchivable {
    static var archivedClassName: String { "NSDateComponents" }
    /// What is written for a component that is not defined: `NSDateComponentUndefined` of a 64-bit writer
    /// (`NSIntegerMax`, 2^63 - 1) whatever this platform's `Int`, so that every 64-bit reader takes it as
    /// undefined; ``ComponentWidth`` reads it as undefined at 32 bits too.
    static let undefinedWritten: Int64 = .max
    /// The integer components swift-corelibs-foundation writes, by key.
    static var componentKeys: [(key: String, component: WritableKeyPath<DateComponents, Int?>)] { [
        ("NS.era", \.era), ("NS.year", \.year), ("NS.quarter", \.quarter), ("NS.month", \.month), ("NS.day", \.day),
        ("NS.hour", \.hour), ("NS.minute", \.minute), ("NS.second", \.second), ("NS.nanosec", \.nanosecond),
        ("NS.weekOfYear", \.weekOfYear), ("NS.weekOfMonth", \.weekOfMonth), ("NS.yearForWOY", \.yearForWeekOfYear),
        ("NS.weekday", \.weekday), ("NS.weekdayOrdinal", \.weekdayOrdinal),
    ] }
    let components: DateComponents

    init(_ components: DateComponents) { self.components = components }

    /// Reads the components Apple or swift-corelibs-foundation wrote: a missing key or `NSIntegerMax` of either
    /// width (2^63 - 1 or 2^31 - 1) is undefined;
    /// the leap-month flag is corelibs' `NS.isLeapMonth` when present, else Apple's `NS.leapMonth` (set when
    /// not 0, as Apple reads it). Darwin's deprecated `NS.week` and `NS.repeatedDay` have no counterpart and are
    /// not read.
    init(from decoder: any ArchiveDecoder) throws {
        components = try namingClass(Self.archivedClassName) {
            var components = DateComponents()
            components.calendar = try decoder.decodeIfPresent(Calendar.self, forKey: "NS.calendar")
            components.timeZone = try decoder.decodeIfPresent(TimeZone.self, forKey: "NS.timezone")
            for (key, component) in Self.componentKeys {
                components[keyPath: component] = try Self.component(decoder, key)
            }
            if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) {
                components.dayOfYear = try Self.component(decoder, "NS.dayOfYear")
            }
            if let isLeapMonth = try decoder.decodeIfPresent(Bool.self, forKey: "NS.isLeapMonth") {
                components.isLeapMonth = isLeapMonth
            } else if let leapMonth = try decoder.decodeIfPresent(Int64.self, forKey: "NS.leapMonth"), leapMonth != 0 {
                components.isLeapMonth = true
            }
            return components
        }
    }

    /// The component under `key`: nil when it is missing or undefined (see ``ComponentWidth``).
    /// - Throws: ``KeyedArchiveError/Code/dataCorrupted`` naming the key for a value that does not fit in `Int`.
    private static func component(_ decoder: any ArchiveDecoder, _ key: String) throws -> Int? {
        guard let archived = try decoder.decodeIfPresent(Int64.self, forKey: key) else { return nil }
        switch ComponentWidth.current.component(archived) {
        case .undefined:
            return nil
        case .defined(let value):
            return value
        case .outOfRange:
            throw foundationTypeError(decoder, className: archivedClassName, key: key,
                                      "the component \(archived) does not fit in a \(ComponentWidth.current.intBitWidth)-bit Int")
        }
    }

    /// How an archived component reads with an `Int` of `intBitWidth` bits: `Int.bitWidth` in use (64, or 32 on
    /// the `arm64_32` Apple Watch); tests run it with 32 on a 64-bit machine too.
    ///
    /// `NSDateComponentUndefined` is `NSIntegerMax`: 2^63 - 1 from a 64-bit writer, 2^31 - 1 from a 32-bit one
    /// (where `NSInteger` is 32 bits: `INT_MAX`, or `LONG_MAX` of an ILP32 `long` on `arm64_32`), and
    /// swift-corelibs-foundation writes its `Int.max` for every undefined component. Both values read as
    /// undefined at both widths: a 32-bit `Int` cannot hold 2^31 - 1 as a defined component (it is that
    /// platform's sentinel), so the 64-bit reading agrees with it, and no calendar unit has a value near 2^31.
    struct ComponentWidth {
        /// The width of the `Int` a component is read into, from 8 to 64.
        let intBitWidth: Int

        /// The reading for this machine's `Int`.
        static let current = ComponentWidth(intBitWidth: Int.bitWidth)

        /// What an archived integer stands for.
        enum Reading: Equatable {
            /// `NSDateComponentUndefined` of a 64-bit or a 32-bit writer.
            case undefined
            /// A defined component.
            case defined(Int)
            /// A value outside an `Int` of ``intBitWidth`` bits (the archive came from a 64-bit writer).
            case outOfRange
        }

        /// The reading of `archived`, the integer stored for a component.
        func component(_ archived: Int64) -> Reading {
            if archived == Int64.max || archived == Int64(Int32.max) { return .undefined }
            let largest = Int64.max >> (64 - intBitWidth)  // a smart shift: no width traps it
            guard archived <= largest, archived >= ~largest, let value = Int(exactly: archived) else { return .outOfRange }
            return .defined(value)
        }
    }

    func encode(to encoder: any ArchiveEncoder) throws {
        if let calendar = components.calendar { try calendar.encode(to: encoder, forKey: "NS.calendar") }
        if let timeZone = components.timeZone { try timeZone.encode(to: encoder, forKey: "NS.timezone") }
        for (key, component) in Self.componentKeys {
            try encoder.encode(components[keyPath: component].map { Int64($0) } ?? Self.undefinedWritten, forKey: key)
        }
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *), let dayOfYear = components.dayOfYear {
            try encoder.encode(dayOfYear, forKey: "NS.dayOfYear")
        }
        if let isLeapMonth = components.isLeapMonth {
            try encoder.encode(isLeapMonth, forKey: "NS.isLeapMonth")
            try encoder.encode(isLeapMonth ? 1 : 0, forKey: "NS.leapMonth")
        }
    }
}

extension DateComponents: FoundationBridgedValue {
    static var foundationKey: String { "NS.era" }
    static var swiftTypeName: String { "DateComponents" }
    /// NSDateComponents' form: `NS.era` (written by this package and swift-corelibs-foundation), `NS.leapMonth`
    /// (always written by Apple) or `NS.isLeapMonth` (always written by swift-corelibs-foundation).
    static func isFoundationForm(_ decoder: any ArchiveDecoder) -> Bool {
        decoder.containsValue(forKey: foundationKey) || decoder.containsValue(forKey: "NS.leapMonth")
            || decoder.containsValue(forKey: "NS.isLeapMonth")
    }
    init(archived: DateComponentsObject, decoder: any ArchiveDecoder) { self = archived.components }
    var archived: DateComponentsObject { DateComponentsObject(self) }
}

/// `DateComponents` are archived as an `NSDateComponents`; the `FoundationEssentials.DateComponents`/
/// `Foundation.DateComponents` objects earlier versions wrote are read too.
/// - Throws: on reading, what reading its calendar throws (see `Calendar`'s ``ArchiveValue`` conformance).
extension DateComponents: ArchiveValue {
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encodeBridged(to: encoder, forKey: key) }
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> DateComponents {
        try decodeBridged(from: decoder, forKey: key)
    }
}
