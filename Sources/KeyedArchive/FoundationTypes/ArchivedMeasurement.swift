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
        // The allow-list admits only the names of the two unit types (NSUnit; NSDimension and its Foundation
        // subclasses) before anything is created; the class name read here only says which dimension it is.
        let storedName = try decoder.storedClassName(forKey: "NS.unit")
        let object = try decoder.decodeObject(ofTypes: [BareUnitObject.self, DimensionObject.self], forKey: "NS.unit")
        switch object {
        case let bare as BareUnitObject:
            unit = bare.unit
        case let dimension as DimensionObject:
            unit = dimension.unit
            if let storedName, DimensionObject.names.contains(storedName) { unit.className = storedName }
        default:
            throw foundationTypeError(decoder, className: Self.archivedClassName, key: "NS.unit", "not a unit",
                                      code: .typeMismatch)
        }
    }

    /// Writes `NS.value` inline and the unit as an object of its class.
    ///
    /// - Throws: ``KeyedArchiveError/Code/invalidValue`` when ``Unit/className`` is not one this type
    ///   writes, or a dimension has no converter.
    public func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(value, forKey: "NS.value")
        if unit.className == BareUnitObject.archivedClassName {
            try encoder.encodeObject(BareUnitObject(unit: unit), forKey: "NS.unit")
            return
        }
        guard let position = DimensionObject.names.firstIndex(of: unit.className) else {
            throw KeyedArchiveError(.invalidValue, "unit class \"\(unit.className)\" is not NSUnit, NSDimension or a Foundation dimension",
                                    keyPath: "NS.unit", className: unit.className)
        }
        guard unit.converter != nil else {
            throw KeyedArchiveError(.invalidValue, "a \(unit.className) needs a converter", keyPath: "NS.unit", className: unit.className)
        }
        try WrittenDimension<FirstPosition>.encode(unit, position: position, to: encoder, forKey: "NS.unit")
    }

    /// `NSMeasurement 45.0 mi (NSUnitLength)`.
    public var description: String { "NSMeasurement \(value) \(unit.symbol) (\(unit.className))" }
}

// MARK: - Unit objects

/// A bare `NSUnit`: `NS.symbol` only.
struct BareUnitObject: KeyedArchivable {
    static var archivedClassName: String { "NSUnit" }
    let unit: ArchivedMeasurement.Unit
    init(unit: ArchivedMeasurement.Unit) { self.unit = unit }
    init(from decoder: any ArchiveDecoder) throws {
        unit = .init(className: Self.archivedClassName, symbol: try decoder.decode(String.self, forKey: "NS.symbol"))
    }
    func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(unit.symbol, forKey: "NS.symbol") }
}

/// An `NSDimension` or one of Foundation's subclasses (``ArchivedMeasurement/Unit/dimensionClassNames``), read:
/// `NS.symbol`, `NS.converter` and Darwin's optional `NS.specifier`. One type answers to every one of those
/// class names (its name and ``legacyClassNames``), so the allow-list names them all through it; which one an
/// object is comes from its stored class name (``ArchivedMeasurement``), and ``unit`` says `NSDimension` until
/// then.
struct DimensionObject: KeyedArchivable {
    /// Every class name read and written: `NSDimension`, then Foundation's dimensions.
    static let names = ["NSDimension"] + ArchivedMeasurement.Unit.dimensionClassNames

    static var archivedClassName: String { "NSDimension" }
    static var archivedClassChain: [String] { ["NSDimension", "NSUnit", "NSObject"] }
    static var legacyClassNames: [String] { ArchivedMeasurement.Unit.dimensionClassNames }

    let unit: ArchivedMeasurement.Unit
    init(from decoder: any ArchiveDecoder) throws {
        let symbol = try decoder.decode(String.self, forKey: "NS.symbol")
        let converter = try decoder.decodeObject(of: LinearConverterObject.self, forKey: "NS.converter")
        let specifier = try decoder.decodeIfPresent(Int.self, forKey: "NS.specifier")
        unit = .init(className: Self.archivedClassName, symbol: symbol, converter: converter.converter, specifier: specifier)
    }
    func encode(to encoder: any ArchiveEncoder) throws { try Self.encodeFields(of: unit, to: encoder) }

    /// Writes a dimension's fields: `NS.specifier` when there is one, `NS.symbol`, `NS.converter`.
    static func encodeFields(of unit: ArchivedMeasurement.Unit, to encoder: any ArchiveEncoder) throws {
        if let specifier = unit.specifier { try encoder.encode(specifier, forKey: "NS.specifier") }
        try encoder.encode(unit.symbol, forKey: "NS.symbol")
        try encoder.encodeObject(LinearConverterObject(converter: unit.converter ?? .init(coefficient: 1)), forKey: "NS.converter")
    }
}

// Writing: the archiver names an object after its type (`archivedClassName` is static), so each dimension
// class written needs a type of its own. They are made from the position of the class name in
// `DimensionObject.names` rather than declared one by one: `WrittenDimension<P>` writes the class at
// `P.position`, where `P` counts in types (`FirstPosition`, `NextPosition<FirstPosition>`, ...).

/// A position in `DimensionObject.names`, counted in types.
protocol DimensionPosition { static var position: Int { get } }
/// Position 0.
enum FirstPosition: DimensionPosition { static var position: Int { 0 } }
/// The position after `Previous`.
enum NextPosition<Previous: DimensionPosition>: DimensionPosition { static var position: Int { Previous.position + 1 } }

/// The dimension of class `DimensionObject.names[Position.position]`, written (never read: reading goes
/// through ``DimensionObject``).
struct WrittenDimension<Position: DimensionPosition>: KeyedArchivable {
    static var archivedClassName: String { DimensionObject.names[Position.position] }
    static var archivedClassChain: [String] {
        Position.position == 0 ? DimensionObject.archivedClassChain : [archivedClassName] + DimensionObject.archivedClassChain
    }
    let unit: ArchivedMeasurement.Unit
    init(unit: ArchivedMeasurement.Unit) { self.unit = unit }
    init(from decoder: any ArchiveDecoder) throws { unit = try DimensionObject(from: decoder).unit }
    func encode(to encoder: any ArchiveEncoder) throws { try DimensionObject.encodeFields(of: unit, to: encoder) }

    /// Writes `unit` under `key` as an object of the class `position` places after this type's
    /// (`position` < `DimensionObject.names.count`, which the caller checked: the walk is that many steps).
    static func encode(_ unit: ArchivedMeasurement.Unit, position: Int, to encoder: any ArchiveEncoder, forKey key: String) throws {
        if position == 0 {
            try encoder.encodeObject(Self(unit: unit), forKey: key)
        } else {
            try WrittenDimension<NextPosition<Position>>.encode(unit, position: position - 1, to: encoder, forKey: key)
        }
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
