#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Foundation's `NSDecimalNumber`: a base-10 number, held as a `Decimal`.
///
/// The corresponding Foundation types are `NSDecimalNumber` and `Decimal` (see ``decimal``). A `Decimal`
/// field of a model is archived as this class too, with the same keys.
///
/// Layout (swift-corelibs-foundation's `NSDecimalNumber.encode(with:)` and `init(coder:)`; `$classes`
/// `[NSDecimalNumber, NSNumber, NSValue, NSObject]`): `NS.exponent` and `NS.length` (32-bit integers),
/// `NS.negative` and `NS.compact` (Booleans), `NS.bo` (1 when the mantissa is little-endian, 0 for
/// big-endian; 1 when missing) and `NS.mantissa`, UID → data: the eight 16-bit words of the mantissa, 16 bytes.
public struct ArchivedDecimalNumber: CataloguedValue {
    /// The number.
    public var decimal: Decimal

    /// The decimal number with the value `decimal`.
    public init(_ decimal: Decimal) { self.decimal = decimal }

    public static var archivedClassName: String { "NSDecimalNumber" }
    public static var archivedClassChain: [String] { ["NSDecimalNumber", "NSNumber", "NSValue", "NSObject"] }
    public static var foundationValueName: String { "decimalNumber" }

    /// Reads the fields.
    ///
    /// - Throws: ``KeyedArchiveError`` naming `NSDecimalNumber` and the key when a field is missing or has
    ///   another type, when the mantissa is not 16 bytes (swift-corelibs-foundation refuses any other size
    ///   as corrupt), when `NS.length` is negative or above 8, or when `NS.exponent` is outside -128...127
    ///   (what `Decimal` holds).
    public init(from decoder: any ArchiveDecoder) throws {
        self = try namingClass(Self.archivedClassName) { try Self(reading: decoder) }
    }

    private init(reading decoder: any ArchiveDecoder) throws {
        let exponent = try decoder.decodeInteger(Int32.self, forKey: "NS.exponent")
        let length = try decoder.decodeInteger(Int32.self, forKey: "NS.length")
        let negative = try decoder.decode(Bool.self, forKey: "NS.negative")
        let compact = try decoder.decode(Bool.self, forKey: "NS.compact")
        let byteOrder = try decoder.decodeIfPresent(Int32.self, forKey: "NS.bo") ?? 1
        let bytes = try decoder.decode(Data.self, forKey: "NS.mantissa")
        guard bytes.count == 16 else {
            throw foundationTypeError(decoder, className: Self.archivedClassName, key: "NS.mantissa",
                                      "the mantissa is \(bytes.count) bytes, not 16")
        }
        guard length >= 0 else {
            throw foundationTypeError(decoder, className: Self.archivedClassName, key: "NS.length",
                                      "length \(length) is negative")
        }
        let words = Array(bytes)
        func word(_ i: Int) -> UInt16 {
            let first = UInt16(words[2 * i]), second = UInt16(words[2 * i + 1])
            return byteOrder == 0 ? first << 8 | second : second << 8 | first
        }
        let fields = DecimalFields(exponent: exponent, length: UInt32(length), isNegative: negative, isCompact: compact,
                                   mantissa: (0 ..< 8).map(word))
        decimal = try fields.decimal(decoder, keyPrefix: "NS.")
    }

    /// Writes every field, the mantissa little-endian (`NS.bo` 1), as swift-corelibs-foundation does.
    ///
    /// - Throws: ``KeyedArchiveError`` when the decimal's fields cannot be read.
    public func encode(to encoder: any ArchiveEncoder) throws {
        let fields = try DecimalFields(decimal)
        try encoder.encode(fields.exponent, forKey: "NS.exponent")
        try encoder.encode(Int32(fields.length), forKey: "NS.length")
        try encoder.encode(fields.isNegative, forKey: "NS.negative")
        try encoder.encode(fields.isCompact, forKey: "NS.compact")
        try encoder.encode(Int32(1), forKey: "NS.bo")
        var bytes = Data(capacity: 16)
        for index in 0 ..< 8 {
            let word = index < fields.mantissa.count ? fields.mantissa[index] : 0
            bytes.append(UInt8(truncatingIfNeeded: word))
            bytes.append(UInt8(truncatingIfNeeded: word >> 8))
        }
        try encoder.encode(bytes, forKey: "NS.mantissa")
    }

    /// `NSDecimalNumber -12.5`.
    public var description: String { "NSDecimalNumber \(decimal)" }
}
