#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Foundation value types a model can hold, archived as the Foundation class Apple's archiver writes for the
// bridged object (`encode(_:forKey:)` of a `Decimal`, a `Locale`... stores an NSDecimalNumber, an NSLocale...),
// never under the Swift type's module-qualified name (`FoundationEssentials.Decimal` on Linux,
// `Foundation.Decimal` on Apple platforms), which differs between platforms.
//
// Each also reads the form earlier versions of this package wrote for such a field of an `ArchivableCodable`
// model: an object named after the Swift type (`FoundationEssentials.Decimal` or `Foundation.Decimal`) holding
// the type's own Codable fields, read back through its Codable initializer.

/// A Foundation value type stored as the object of a Foundation class (``FoundationBridgedObject``).
protocol FoundationBridgedValue: Decodable {
    /// The keyed-archive form: a model whose class is the Foundation class.
    associatedtype Archived: KeyedArchivable
    /// A key only the Foundation class's form holds (`"NS.mantissa"`), telling it apart from the Codable form.
    static var foundationKey: String { get }
    /// The type's name as Swift code spells it (`"Decimal"`), from which the names earlier versions wrote are
    /// made. Not taken from the runtime, which names some of these types differently on Apple platforms
    /// (`Decimal` is the C struct `__C.NSDecimal` there).
    static var swiftTypeName: String { get }
    /// Whether `decoder`'s object is in the Foundation class's form (by default: it holds ``foundationKey``).
    static func isFoundationForm(_ decoder: any ArchiveDecoder) -> Bool
    init(archived: Archived, decoder: any ArchiveDecoder) throws
    var archived: Archived { get throws }
    /// Reads the Codable form earlier versions wrote, through `adapter` over `decoder`'s object.
    static func decodeCodableForm(_ adapter: ArchiveCodableDecoder, decoder: any ArchiveDecoder) throws -> Self
}

extension FoundationBridgedValue {
    static func isFoundationForm(_ decoder: any ArchiveDecoder) -> Bool { decoder.containsValue(forKey: foundationKey) }

    static func decodeCodableForm(_ adapter: ArchiveCodableDecoder, decoder: any ArchiveDecoder) throws -> Self {
        try Self(from: adapter)
    }
}

/// The names earlier versions wrote for a Foundation value type called `swiftTypeName` in Swift code: the type
/// in `FoundationEssentials` (Linux) and in `Foundation` (Apple platforms), the same on every platform.
func foundationBridgedLegacyClassNames(swiftTypeName: String) -> [String] {
    ["FoundationEssentials." + swiftTypeName, "Foundation." + swiftTypeName]
}

/// The object a ``FoundationBridgedValue`` is archived as: the Foundation class's name, chain and fields.
struct FoundationBridgedObject<Value: FoundationBridgedValue>: KeyedArchivable {
    static var archivedClassName: String { Value.Archived.archivedClassName }
    static var archivedClassChain: [String] { Value.Archived.archivedClassChain }
    /// The names earlier versions wrote on Linux and on Apple platforms: the type's name (`Decimal`) in
    /// either module.
    static var legacyClassNames: [String] { foundationBridgedLegacyClassNames(swiftTypeName: Value.swiftTypeName) }

    let value: Value

    init(_ value: Value) { self.value = value }

    init(from decoder: any ArchiveDecoder) throws {
        if Value.isFoundationForm(decoder) {
            value = try Value(archived: Value.Archived(from: decoder), decoder: decoder)
        } else {
            let adapter = ArchiveCodableDecoder(object: decoder, codingPath: [])
            defer { adapter.close() }
            value = try Value.decodeCodableForm(adapter, decoder: decoder)
        }
    }

    func encode(to encoder: any ArchiveEncoder) throws {
        try value.archived.encode(to: encoder)
    }
}

extension FoundationBridgedValue {
    func encodeBridged(to encoder: any ArchiveEncoder, forKey key: String) throws {
        try encoder.encodeObject(FoundationBridgedObject(self), forKey: key)
    }

    static func decodeBridged(from decoder: any ArchiveDecoder, forKey key: String) throws -> Self {
        try decoder.decodeObject(of: FoundationBridgedObject<Self>.self, forKey: key).value
    }
}

// MARK: - Decimal

/// The stored fields of a `Decimal`, which FoundationEssentials does not make public: taken from and given
/// to `Decimal`'s own Codable form, whose keys are these on Linux and on Apple platforms.
struct DecimalFields: Codable {
    var exponent: Int32
    var length: UInt32
    var isNegative: Bool
    var isCompact: Bool
    var mantissa: [UInt16]

    init(exponent: Int32, length: UInt32, isNegative: Bool, isCompact: Bool, mantissa: [UInt16]) {
        self.exponent = exponent
        self.length = length
        self.isNegative = isNegative
        self.isCompact = isCompact
        self.mantissa = mantissa
    }

    init(_ decimal: Decimal) throws {
        let data = try PropertyListEncoder().encode([decimal])
        guard let fields = try PropertyListDecoder().decode([DecimalFields].self, from: data).first else {
            throw KeyedArchiveError(.invalidValue, "Decimal \(decimal) encoded no fields", className: "NSDecimalNumber")
        }
        self = fields
    }

    /// The decimal these fields describe, checked first: `Decimal` stops the process on a length above 8
    /// (its `_length` setter calls `fatalError`, swift-foundation Decimal.swift) and keeps the exponent in a
    /// signed byte; the mantissa has 8 words, as `Decimal.encode(to:)` writes it.
    /// - Throws: ``KeyedArchiveError/Code/dataCorrupted`` naming the field (`NS.length`, or `length` in the
    ///   Codable form, `keyPrefix` being `"NS."` or `""`).
    func decimal(_ decoder: any ArchiveDecoder, keyPrefix: String) throws -> Decimal {
        func corrupt(_ key: String, _ message: String) -> KeyedArchiveError {
            foundationTypeError(decoder, className: ArchivedDecimalNumber.archivedClassName, key: keyPrefix + key, message)
        }
        guard length <= 8 else { throw corrupt("length", "length \(length) is above 8") }
        guard (-128 ... 127).contains(exponent) else { throw corrupt("exponent", "exponent \(exponent) is outside -128...127") }
        guard mantissa.count == 8 else { throw corrupt("mantissa", "the mantissa has \(mantissa.count) words, not 8") }
        let data = try PropertyListEncoder().encode([self])
        guard let decimal = try PropertyListDecoder().decode([Decimal].self, from: data).first else {
            throw corrupt("mantissa", "no Decimal was made")
        }
        return decimal
    }
}

extension Decimal: FoundationBridgedValue {
    static var foundationKey: String { "NS.mantissa" }
    static var swiftTypeName: String { "Decimal" }
    init(archived: ArchivedDecimalNumber, decoder: any ArchiveDecoder) { self = archived.decimal }
    var archived: ArchivedDecimalNumber { ArchivedDecimalNumber(self) }

    /// The Codable fields, checked before `Decimal` sees them (``DecimalFields/decimal(_:keyPrefix:)``).
    static func decodeCodableForm(_ adapter: ArchiveCodableDecoder, decoder: any ArchiveDecoder) throws -> Decimal {
        try DecimalFields(from: adapter).decimal(decoder, keyPrefix: "")
    }
}

/// A `Decimal` is archived as an `NSDecimalNumber`, as Apple's archiver stores it; the
/// `FoundationEssentials.Decimal`/`Foundation.Decimal` objects earlier versions wrote are read too.
extension Decimal: ArchiveValue {
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encodeBridged(to: encoder, forKey: key) }
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Decimal {
        try decodeBridged(from: decoder, forKey: key)
    }
}

// MARK: - Locale, TimeZone

extension Locale: FoundationBridgedValue {
    static var foundationKey: String { "NS.identifier" }
    static var swiftTypeName: String { "Locale" }
    init(archived: ArchivedLocale, decoder: any ArchiveDecoder) { self = archived.locale }
    var archived: ArchivedLocale { ArchivedLocale(self) }
}

/// A `Locale` is archived as an `NSLocale` (``ArchivedLocale``, its identifier); the
/// `FoundationEssentials.Locale`/`Foundation.Locale` objects earlier versions wrote are read too.
extension Locale: ArchiveValue {
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encodeBridged(to: encoder, forKey: key) }
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Locale {
        try decodeBridged(from: decoder, forKey: key)
    }
}

extension TimeZone: FoundationBridgedValue {
    static var foundationKey: String { "NS.name" }
    static var swiftTypeName: String { "TimeZone" }
    init(archived: ArchivedTimeZone, decoder: any ArchiveDecoder) throws {
        guard let timeZone = archived.timeZone else {
            throw foundationTypeError(decoder, className: ArchivedTimeZone.archivedClassName, key: "NS.name",
                                      "no time zone is named \"\(archived.identifier)\"")
        }
        self = timeZone
    }
    var archived: ArchivedTimeZone { ArchivedTimeZone(self) }
}

/// A `TimeZone` is archived as an `NSTimeZone` (``ArchivedTimeZone``, its identifier); the
/// `FoundationEssentials.TimeZone`/`Foundation.TimeZone` objects earlier versions wrote are read too.
/// - Throws: on reading, ``KeyedArchiveError/Code/dataCorrupted`` for an identifier this system knows no time zone by.
extension TimeZone: ArchiveValue {
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encodeBridged(to: encoder, forKey: key) }
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> TimeZone {
        try decodeBridged(from: decoder, forKey: key)
    }
}

// MARK: - DateInterval

/// `NSDateInterval`'s keyed form, as swift-corelibs-foundation's `NSDateInterval.encode(with:)` writes it:
/// `NS.startDate` and `NS.endDate`, NSDate objects. `$classes` is `[NSDateInterval, NSObject]`.
struct DateIntervalObject: KeyedArchivable {
    static var archivedClassName: String { "NSDateInterval" }
    let interval: DateInterval

    init(_ interval: DateInterval) { self.interval = interval }

    /// Reads both dates; the end may not come before the start (`DateInterval` requires it).
    init(from decoder: any ArchiveDecoder) throws {
        let start = try decoder.decode(Date.self, forKey: "NS.startDate")
        let end = try decoder.decode(Date.self, forKey: "NS.endDate")
        guard end >= start else {
            throw foundationTypeError(decoder, className: Self.archivedClassName, key: "NS.endDate",
                                      "the end \(end) comes before the start \(start)")
        }
        interval = DateInterval(start: start, end: end)
    }

    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(interval.start, forKey: "NS.startDate")
        try encoder.encode(interval.end, forKey: "NS.endDate")
    }
}

extension DateInterval: FoundationBridgedValue {
    static var foundationKey: String { "NS.startDate" }
    static var swiftTypeName: String { "DateInterval" }
    init(archived: DateIntervalObject, decoder: any ArchiveDecoder) { self = archived.interval }
    var archived: DateIntervalObject { DateIntervalObject(self) }
}

/// A `DateInterval` is archived as an `NSDateInterval`; the `FoundationEssentials.DateInterval`/
/// `Foundation.DateInterval` objects earlier versions wrote are read too.
extension DateInterval: ArchiveValue {
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encodeBridged(to: encoder, forKey: key) }
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> DateInterval {
        try decodeBridged(from: decoder, forKey: key)
    }
}
