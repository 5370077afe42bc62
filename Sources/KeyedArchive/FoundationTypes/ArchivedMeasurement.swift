#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Foundation's `NSMeasurement`: a value with a unit.
///
/// The corresponding Foundation types are `NSMeasurement` and `Measurement<UnitType>`; `Measurement` and
/// `Unit` are not part of FoundationEssentials, so this type holds the unit's archived fields as plain data
/// (``Unit``).
///
/// Layout (the Darwin NSMeasurement-*.archive fixtures, macOS 10.14):
/// - NSMeasurement (`[NSMeasurement, NSObject]`): `NS.value` inline real, `NS.unit` UID → the unit;
/// - a dimension such as NSUnitLength (`[NSUnitLength, NSDimension, NSUnit, NSObject]`): `NS.symbol` UID →
///   string, `NS.converter` UID → NSUnitConverterLinear, and `NS.specifier`, an inline integer naming the
///   predefined unit (Darwin only: 1287 is miles, 256 degrees; swift-corelibs-foundation neither writes nor
///   needs it);
/// - NSUnitConverterLinear (`[NSUnitConverterLinear, NSUnitConverter, NSObject]`): `NS.coefficient` and
///   `NS.constant`, inline reals;
/// - a bare NSUnit (`[NSUnit, NSObject]`, NSMeasurement-Zero.archive): `NS.symbol` only.
///
/// Unit classes read and written: NSUnit, NSDimension and the dimensions listed in ``Unit/dimensionClassNames``.
/// Not read: other converters (Darwin's private reciprocal converter of fuel-efficiency units) and app-defined
/// unit classes.
public struct ArchivedMeasurement: CataloguedValue {
    /// A unit as archived: its class, symbol and (for a dimension) linear converter to the base unit.
    public struct Unit: Hashable, Sendable, Codable {
        /// The unit's class: `"NSUnit"`, `"NSDimension"` or one of ``dimensionClassNames``.
        public var className: String
        /// The symbol (`"mi"`, `"°"`, `""`).
        public var symbol: String
        /// The converter to the dimension's base unit (value × coefficient + constant); nil for a bare NSUnit.
        public var converter: LinearConverter?
        /// Darwin's `NS.specifier` for a predefined unit (nil when absent).
        public var specifier: Int?

        /// A unit of class `className` (see ``className``).
        public init(className: String, symbol: String, converter: LinearConverter? = nil, specifier: Int? = nil) {
            self.className = className
            self.symbol = symbol
            self.converter = converter
            self.specifier = specifier
        }

        /// The NSDimension subclasses of Foundation (macOS 10.12 to 15).
        public static let dimensionClassNames = [
            "NSUnitAcceleration", "NSUnitAngle", "NSUnitArea", "NSUnitConcentrationMass", "NSUnitDispersion",
            "NSUnitDuration", "NSUnitElectricCharge", "NSUnitElectricCurrent", "NSUnitElectricPotentialDifference",
            "NSUnitElectricResistance", "NSUnitEnergy", "NSUnitFrequency", "NSUnitFuelEfficiency", "NSUnitIlluminance",
            "NSUnitInformationStorage", "NSUnitLength", "NSUnitMass", "NSUnitPower", "NSUnitPressure", "NSUnitSpeed",
            "NSUnitTemperature", "NSUnitVolume",
        ]
    }

    /// `NSUnitConverterLinear`: base value = value × coefficient + constant.
    public struct LinearConverter: Hashable, Sendable, Codable {
        public var coefficient: Double
        public var constant: Double
        /// A converter with the given coefficient and constant.
        public init(coefficient: Double, constant: Double = 0) {
            self.coefficient = coefficient
            self.constant = constant
        }
    }

    /// The measured value.
    public var value: Double
    /// The unit.
    public var unit: Unit

    /// A measurement of `value` in `unit`.
    public init(value: Double, unit: Unit) {
        self.value = value
        self.unit = unit
    }

    public static var archivedClassName: String { "NSMeasurement" }
    public static var foundationValueName: String { "measurement" }

    /// Reads `NS.value` and the unit object under `NS.unit`.
    ///
    /// - Throws: ``KeyedArchiveError`` naming the class and key when a member is missing or of the wrong
    ///   kind, or the unit's class is not one of those listed above (``KeyedArchiveError/Code/classNotAllowed``).
    public init(from decoder: any ArchiveDecoder) throws {
        self = try namingClass(Self.archivedClassName) { try Self(reading: decoder) }
    }

    private init(reading decoder: any ArchiveDecoder) throws {
        value = try decoder.decode(Double.self, forKey: "NS.value")
        let object = try decoder.decodeObject(ofTypes: unitObjectTypes, forKey: "NS.unit")
        guard let unitObject = object as? any UnitObject else {
            throw foundationTypeError(decoder, className: Self.archivedClassName, key: "NS.unit", "not a unit",
                                      code: .typeMismatch)
        }
        unit = unitObject.unit
    }

    /// Writes `NS.value` inline and the unit as an object of its class.
    ///
    /// - Throws: ``KeyedArchiveError/Code/invalidValue`` when ``Unit/className`` is not one this type
    ///   writes, or a dimension has no converter.
    public func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(value, forKey: "NS.value")
        guard let type = unitObjectTypes.first(where: { $0.archivedClassName == unit.className }) else {
            throw KeyedArchiveError(.invalidValue, "unit class \"\(unit.className)\" is not NSUnit, NSDimension or a Foundation dimension",
                                    keyPath: "NS.unit", className: unit.className)
        }
        if type != BareUnitObject.self && unit.converter == nil {
            throw KeyedArchiveError(.invalidValue, "a \(unit.className) needs a converter", keyPath: "NS.unit", className: unit.className)
        }
        try type.encodeUnit(unit, to: encoder, forKey: "NS.unit")
    }

    /// `NSMeasurement 45.0 mi (NSUnitLength)`.
    public var description: String { "NSMeasurement \(value) \(unit.symbol) (\(unit.className))" }
}

// MARK: - Unit objects

/// The archived unit classes: each a KeyedArchivable with its own `$classname`.
protocol UnitObject: KeyedArchivable {
    var unit: ArchivedMeasurement.Unit { get }
    init(unit: ArchivedMeasurement.Unit)
}

extension UnitObject {
    static func encodeUnit(_ unit: ArchivedMeasurement.Unit, to encoder: any ArchiveEncoder, forKey key: String) throws {
        try encoder.encodeObject(Self(unit: unit), forKey: key)
    }
}

/// A bare `NSUnit`: `NS.symbol` only.
struct BareUnitObject: UnitObject {
    static var archivedClassName: String { "NSUnit" }
    let unit: ArchivedMeasurement.Unit
    init(unit: ArchivedMeasurement.Unit) { self.unit = unit }
    init(from decoder: any ArchiveDecoder) throws {
        unit = .init(className: Self.archivedClassName, symbol: try decoder.decode(String.self, forKey: "NS.symbol"))
    }
    func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(unit.symbol, forKey: "NS.symbol") }
}

/// Names one NSDimension class.
protocol DimensionClass { static var name: String { get } }

/// An `NSDimension` (or subclass): `NS.symbol`, `NS.converter` and Darwin's optional `NS.specifier`.
struct DimensionObject<Class: DimensionClass>: UnitObject {
    static var archivedClassName: String { Class.name }
    static var archivedClassChain: [String] {
        Class.name == "NSDimension" ? ["NSDimension", "NSUnit", "NSObject"] : [Class.name, "NSDimension", "NSUnit", "NSObject"]
    }
    let unit: ArchivedMeasurement.Unit
    init(unit: ArchivedMeasurement.Unit) { self.unit = unit }
    init(from decoder: any ArchiveDecoder) throws {
        let symbol = try decoder.decode(String.self, forKey: "NS.symbol")
        let converter = try decoder.decodeObject(of: LinearConverterObject.self, forKey: "NS.converter")
        let specifier = try decoder.decodeIfPresent(Int.self, forKey: "NS.specifier")
        unit = .init(className: Class.name, symbol: symbol, converter: converter.converter, specifier: specifier)
    }
    func encode(to encoder: any ArchiveEncoder) throws {
        if let specifier = unit.specifier { try encoder.encode(specifier, forKey: "NS.specifier") }
        try encoder.encode(unit.symbol, forKey: "NS.symbol")
        try encoder.encodeObject(LinearConverterObject(converter: unit.converter ?? .init(coefficient: 1)), forKey: "NS.converter")
    }
}

/// `NSUnitConverterLinear`: `NS.coefficient`, `NS.constant`.
struct LinearConverterObject: KeyedArchivable {
    static var archivedClassName: String { "NSUnitConverterLinear" }
    static var archivedClassChain: [String] { ["NSUnitConverterLinear", "NSUnitConverter", "NSObject"] }
    let converter: ArchivedMeasurement.LinearConverter
    init(converter: ArchivedMeasurement.LinearConverter) { self.converter = converter }
    init(from decoder: any ArchiveDecoder) throws {
        converter = .init(coefficient: try decoder.decode(Double.self, forKey: "NS.coefficient"),
                          constant: try decoder.decode(Double.self, forKey: "NS.constant"))
    }
    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(converter.coefficient, forKey: "NS.coefficient")
        try encoder.encode(converter.constant, forKey: "NS.constant")
    }
}

enum NSDimensionClass: DimensionClass { static var name: String { "NSDimension" } }
enum NSUnitAccelerationClass: DimensionClass { static var name: String { "NSUnitAcceleration" } }
enum NSUnitAngleClass: DimensionClass { static var name: String { "NSUnitAngle" } }
enum NSUnitAreaClass: DimensionClass { static var name: String { "NSUnitArea" } }
enum NSUnitConcentrationMassClass: DimensionClass { static var name: String { "NSUnitConcentrationMass" } }
enum NSUnitDispersionClass: DimensionClass { static var name: String { "NSUnitDispersion" } }
enum NSUnitDurationClass: DimensionClass { static var name: String { "NSUnitDuration" } }
enum NSUnitElectricChargeClass: DimensionClass { static var name: String { "NSUnitElectricCharge" } }
enum NSUnitElectricCurrentClass: DimensionClass { static var name: String { "NSUnitElectricCurrent" } }
enum NSUnitElectricPotentialDifferenceClass: DimensionClass { static var name: String { "NSUnitElectricPotentialDifference" } }
enum NSUnitElectricResistanceClass: DimensionClass { static var name: String { "NSUnitElectricResistance" } }
enum NSUnitEnergyClass: DimensionClass { static var name: String { "NSUnitEnergy" } }
enum NSUnitFrequencyClass: DimensionClass { static var name: String { "NSUnitFrequency" } }
enum NSUnitFuelEfficiencyClass: DimensionClass { static var name: String { "NSUnitFuelEfficiency" } }
enum NSUnitIlluminanceClass: DimensionClass { static var name: String { "NSUnitIlluminance" } }
enum NSUnitInformationStorageClass: DimensionClass { static var name: String { "NSUnitInformationStorage" } }
enum NSUnitLengthClass: DimensionClass { static var name: String { "NSUnitLength" } }
enum NSUnitMassClass: DimensionClass { static var name: String { "NSUnitMass" } }
enum NSUnitPowerClass: DimensionClass { static var name: String { "NSUnitPower" } }
enum NSUnitPressureClass: DimensionClass { static var name: String { "NSUnitPressure" } }
enum NSUnitSpeedClass: DimensionClass { static var name: String { "NSUnitSpeed" } }
enum NSUnitTemperatureClass: DimensionClass { static var name: String { "NSUnitTemperature" } }
enum NSUnitVolumeClass: DimensionClass { static var name: String { "NSUnitVolume" } }

/// Every unit class NSMeasurement's `NS.unit` may hold.
var unitObjectTypes: [any UnitObject.Type] { [
    BareUnitObject.self, DimensionObject<NSDimensionClass>.self,
    DimensionObject<NSUnitAccelerationClass>.self, DimensionObject<NSUnitAngleClass>.self, DimensionObject<NSUnitAreaClass>.self,
    DimensionObject<NSUnitConcentrationMassClass>.self, DimensionObject<NSUnitDispersionClass>.self,
    DimensionObject<NSUnitDurationClass>.self, DimensionObject<NSUnitElectricChargeClass>.self,
    DimensionObject<NSUnitElectricCurrentClass>.self, DimensionObject<NSUnitElectricPotentialDifferenceClass>.self,
    DimensionObject<NSUnitElectricResistanceClass>.self, DimensionObject<NSUnitEnergyClass>.self,
    DimensionObject<NSUnitFrequencyClass>.self, DimensionObject<NSUnitFuelEfficiencyClass>.self,
    DimensionObject<NSUnitIlluminanceClass>.self, DimensionObject<NSUnitInformationStorageClass>.self,
    DimensionObject<NSUnitLengthClass>.self, DimensionObject<NSUnitMassClass>.self, DimensionObject<NSUnitPowerClass>.self,
    DimensionObject<NSUnitPressureClass>.self, DimensionObject<NSUnitSpeedClass>.self,
    DimensionObject<NSUnitTemperatureClass>.self, DimensionObject<NSUnitVolumeClass>.self,
] }
