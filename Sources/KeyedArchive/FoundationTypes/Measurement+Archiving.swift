#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// `Measurement<UnitType>` held by a Codable model, archived as an NSMeasurement (Apple's layout, read and written by
// ``ArchivedMeasurement``: `NS.value`, and `NS.unit` an object of the unit's NSUnit class) instead of an object
// named after the Swift type with its generic parameter (`Foundation.Measurement<Foundation.UnitLength>` on Linux,
// `Foundation.Measurement<__C.NSUnitLength>` on Apple platforms, where UnitLength is the Objective-C class).
//
// `Measurement` and `Unit` live in Foundation, not FoundationEssentials, so this package cannot name them: a
// measurement is recognised by its type's name (once per type, in the Codable adapter's type cache), its fields are
// taken from and given to its own Codable form (`value`, and `unit`: `symbol` and, for a dimension, `converter`'s
// `coefficient` and `constant`), which is the same on Linux and Apple platforms.

/// What the Codable adapter needs to archive a `Measurement<UnitType>` of one unit type.
struct MeasurementArchiving {
    /// The NSUnit class of the unit type: `NSUnit`, `NSDimension` or one of
    /// ``ArchivedMeasurement/Unit/dimensionClassNames``.
    let unitClassName: String

    private static let typePrefix = "Foundation.Measurement<"

    /// The measurement archiving of `type` when it is `Measurement` of one of Foundation's unit classes, from its
    /// name (`Foundation.Measurement<Foundation.UnitLength>` or `Foundation.Measurement<__C.NSUnitLength>`); nil
    /// for any other type, and for a unit class of the app's own (kept in the Codable form).
    init?(_ type: Any.Type) {
        let name = String(reflecting: type)
        guard name.hasPrefix(Self.typePrefix), name.hasSuffix(">") else { return nil }
        let unit = name.dropFirst(Self.typePrefix.count).dropLast()
        let className: String
        if unit.hasPrefix("Foundation.") {
            className = "NS" + unit.dropFirst("Foundation.".count)
        } else if unit.hasPrefix("__C.NS") {
            className = String(unit.dropFirst("__C.".count))
        } else {
            return nil
        }
        guard className == "NSUnit" || className == "NSDimension"
            || ArchivedMeasurement.Unit.dimensionClassNames.contains(className) else { return nil }
        unitClassName = className
    }

    /// The names earlier versions wrote for the measurement: its type's name on Linux and on Apple platforms.
    var legacyClassNames: [String] {
        let swiftName = unitClassName.dropFirst(2)
        return [Self.typePrefix + "Foundation." + swiftName + ">", Self.typePrefix + "__C." + unitClassName + ">"]
    }

    /// The fields of a measurement's Codable form.
    struct Fields: Codable {
        struct Converter: Codable {
            var coefficient: Double
            var constant: Double
        }
        struct Unit: Codable {
            var symbol: String
            var converter: Converter?
        }
        var value: Double
        var unit: Unit
    }

    /// Writes `measurement` under `key` as an NSMeasurement whose unit is of ``unitClassName``.
    func encode<T: Encodable>(_ measurement: T, to sink: any ArchiveEncoder, forKey key: String) throws {
        let data = try PropertyListEncoder().encode([measurement])
        guard let fields = try PropertyListDecoder().decode([Fields].self, from: data).first else {
            throw KeyedArchiveError(.invalidValue, "\(T.self) encoded no fields", keyPath: key, className: ArchivedMeasurement.archivedClassName)
        }
        let converter = unitClassName == "NSUnit" ? nil : fields.unit.converter.map {
            ArchivedMeasurement.LinearConverter(coefficient: $0.coefficient, constant: $0.constant)
        }
        let unit = ArchivedMeasurement.Unit(className: unitClassName, symbol: fields.unit.symbol, converter: converter)
        try sink.encodeObject(ArchivedMeasurement(value: fields.value, unit: unit), forKey: key)
    }

    /// Reads a measurement of type `T` under `key`: an NSMeasurement, or the Codable form earlier versions wrote.
    func decode<T: Decodable>(_ type: T.Type, from archive: any ArchiveDecoder, forKey key: String) throws -> T {
        try archive.decodeObject(of: ArchivedMeasurementValue<T>.self, forKey: key).value
    }

    /// `T` made from an archived NSMeasurement, whose unit must be one `T` holds: any unit for `Measurement<Unit>`,
    /// any dimension for `Measurement<Dimension>`, else exactly ``unitClassName`` (as Foundation's bridging from
    /// NSMeasurement to `Measurement<UnitType>` requires the unit to be a `UnitType`).
    /// - Throws: ``KeyedArchiveError/Code/typeMismatch`` naming both unit classes.
    func value<T: Decodable>(_ type: T.Type, from measurement: ArchivedMeasurement, _ decoder: any ArchiveDecoder) throws -> T {
        let unit = measurement.unit
        let fits: Bool
        switch unitClassName {
        case "NSUnit": fits = true
        case "NSDimension": fits = unit.converter != nil
        default: fits = unit.className == unitClassName && unit.converter != nil
        }
        guard fits else {
            throw foundationTypeError(decoder, className: ArchivedMeasurement.archivedClassName, key: "NS.unit",
                                      "a \(unit.className) cannot be the unit of a \(T.self) (\(unitClassName))", code: .typeMismatch)
        }
        let converter = unit.converter.map { Fields.Converter(coefficient: $0.coefficient, constant: $0.constant) }
        let fields = Fields(value: measurement.value, unit: .init(symbol: unit.symbol, converter: converter))
        let data = try PropertyListEncoder().encode([fields])
        guard let value = try PropertyListDecoder().decode([T].self, from: data).first else {
            throw foundationTypeError(decoder, className: ArchivedMeasurement.archivedClassName, key: "NS.unit", "no \(T.self) was made")
        }
        return value
    }
}

/// A `Measurement<UnitType>` being read: an NSMeasurement object, or an object of the Codable form under the
/// names earlier versions wrote (``MeasurementArchiving/legacyClassNames``).
struct ArchivedMeasurementValue<T: Decodable>: KeyedArchivable {
    static var archivedClassName: String { ArchivedMeasurement.archivedClassName }
    static var legacyClassNames: [String] { MeasurementArchiving(T.self)?.legacyClassNames ?? [] }
    let value: T

    init(from decoder: any ArchiveDecoder) throws {
        guard let archiving = MeasurementArchiving(T.self) else {
            throw KeyedArchiveError(.typeMismatch, "\(T.self) is not a Measurement of a Foundation unit", keyPath: decoder.keyPath)
        }
        if decoder.containsValue(forKey: "NS.value") {
            value = try archiving.value(T.self, from: ArchivedMeasurement(from: decoder), decoder)
        } else {
            let adapter = ArchiveCodableDecoder(object: decoder, codingPath: [])
            defer { adapter.close() }
            value = try CodableArchiving.decodingObject(decoder) { try T(from: adapter) }
        }
    }

    func encode(to encoder: any ArchiveEncoder) throws {
        throw KeyedArchiveError(.invalidValue, "a decoded measurement is only read, never written")
    }
}
