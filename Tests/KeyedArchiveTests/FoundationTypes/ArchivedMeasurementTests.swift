import Foundation
import Testing
@testable import KeyedArchive

@Suite struct ArchivedMeasurementTests {
    typealias M = ArchivedMeasurement

    static let fixtures: [(String, M)] = [
        ("Angle", M(value: 90, unit: .init(className: "NSUnitAngle", symbol: "°", converter: .init(coefficient: 1, constant: 0), specifier: 256))),
        ("Frequency", M(value: 1400, unit: .init(className: "NSUnitFrequency", symbol: "MHz", converter: .init(coefficient: 1_000_000), specifier: 4098))),
        ("Length", M(value: 45, unit: .init(className: "NSUnitLength", symbol: "mi", converter: .init(coefficient: 1609.34), specifier: 1287))),
        ("Zero", M(value: 0, unit: .init(className: "NSUnit", symbol: ""))),
    ]

    @Test(.enabled(if: FoundationFixtures.available))
    func darwinMeasurementFixturesRead() throws {
        for (name, expected) in Self.fixtures {
            let m = try KeyedUnarchiver.unarchivedObject(ofClass: M.self, from: FoundationFixtures.data("NSMeasurement-\(name).archive"))
            #expect(m.value == expected.value, "\(name)")
            #expect(m.unit.className == expected.unit.className, "\(name)")
            #expect(m.unit.symbol == expected.unit.symbol, "\(name)")
            #expect(m.unit.converter == expected.unit.converter, "\(name)")
            #expect(m.unit.specifier == expected.unit.specifier, "\(name)")
        }
    }

    @Test(.enabled(if: FoundationFixtures.available))
    func ourMeasurementsHaveTheFixturesStructure() throws {
        for (name, value) in Self.fixtures {
            let ours = try KeyedArchiver.archivedData(withRootObject: value)
            #expect(try ArchiveStructure.differences(expected: FoundationFixtures.data("NSMeasurement-\(name).archive"), actual: ours) == [],
                    "\(name)")
        }
    }

    @Test func measurementsRoundTrip() throws {
        let values = Self.fixtures.map(\.1) + [
            M(value: -40, unit: .init(className: "NSUnitTemperature", symbol: "°F", converter: .init(coefficient: 0.5555555555555556, constant: 255.37222222222223))),
            M(value: 1.5, unit: .init(className: "NSDimension", symbol: "x", converter: .init(coefficient: 2))),
        ]
        for m in values {
            let back = try KeyedUnarchiver.unarchivedObject(ofClass: M.self, from: KeyedArchiver.archivedData(withRootObject: m))
            #expect(back == m)
            #expect(back.unit.specifier == m.unit.specifier)
            #expect(try JSONDecoder().decode(M.self, from: JSONEncoder().encode(m)) == m)
        }
        #expect(Self.fixtures[2].1.description == "NSMeasurement 45.0 mi (NSUnitLength)")
    }

    /// Every unit class the allow-list admits is written under its own name with Apple's chain
    /// (`[NSUnitLength, NSDimension, NSUnit, NSObject]`) and read back as that class.
    @Test func everyDimensionClassIsWrittenWithItsChainAndReadBack() throws {
        for className in ["NSDimension"] + M.Unit.dimensionClassNames {
            let m = M(value: 2, unit: .init(className: className, symbol: "u", converter: .init(coefficient: 3, constant: 1)))
            let data = try KeyedArchiver.archivedData(withRootObject: m)
            let unitClass = try #require(ArchivedObjectGraph(data: data)["root"]?["NS.unit"]?.object?.instance?.archivedClass)
            let expectedChain = className == "NSDimension" ? ["NSDimension", "NSUnit", "NSObject"]
                : [className, "NSDimension", "NSUnit", "NSObject"]
            #expect(unitClass.name == className)
            #expect(unitClass.chain == expectedChain)
            let back = try KeyedUnarchiver.unarchivedObject(ofClass: M.self, from: data)
            #expect(back == m, "\(className)")
        }
    }

    @Test func unknownUnitClassesAreNotWritten() throws {
        let custom = M(value: 1, unit: .init(className: "MyApp.Furlongs", symbol: "fur", converter: .init(coefficient: 201.168)))
        let e = errorSummary { _ = try KeyedArchiver.archivedData(withRootObject: custom) }
        #expect(e?.code == "invalidValue")
        #expect(e?.className == "MyApp.Furlongs")
        let noConverter = M(value: 1, unit: .init(className: "NSUnitLength", symbol: "m"))
        #expect(errorSummary { _ = try KeyedArchiver.archivedData(withRootObject: noConverter) }?.code == "invalidValue")
    }

    // The Foundation at hand: both directions, for a dimension.
    @Test func foundationAndWeReadEachOthersMeasurements() throws {
        let foundation = NSMeasurement(doubleValue: 45, unit: UnitLength.miles)
        let theirs = try NSKeyedArchiver.archivedData(withRootObject: foundation, requiringSecureCoding: true)
        #expect(try ArchiveStructure.classNames(theirs) == ["NSMeasurement", "NSUnitConverterLinear", "NSUnitLength"])
        let m = try KeyedUnarchiver.unarchivedObject(ofClass: M.self, from: theirs)
        #expect(m.value == 45)
        #expect(m.unit.symbol == "mi")
        #expect(m.unit.converter == .init(coefficient: 1609.34))

        let ours = try KeyedArchiver.archivedData(withRootObject: Self.fixtures[2].1)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSMeasurement.self, UnitLength.self], from: ours) as? NSMeasurement)
        #expect(decoded.doubleValue == 45)
        #expect(decoded.unit.symbol == "mi")
        #expect((decoded.unit as? UnitLength)?.converter.baseUnitValue(fromValue: 1) == 1609.34)
    }

    /// swift-corelibs-foundation writes Darwin's classes and keys but no NS.specifier (Apple's Foundation
    /// writes one, as the GNUstep interop sample of Darwin's form shows).
    @Test(.describesCorelibsFoundation) func corelibsFoundationWritesNoSpecifier() throws {
        let foundation = NSMeasurement(doubleValue: 45, unit: UnitLength.miles)
        let theirs = try NSKeyedArchiver.archivedData(withRootObject: foundation, requiringSecureCoding: true)
        #expect(try !ArchiveStructure.outline(theirs).contains("NS.specifier"))
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: M.self, from: theirs).unit.specifier == nil)
    }

    @Test func malformedMeasurementsThrowNamingClassAndKey() throws {
        let measurement = HandMadeArchive.classDict(["NSMeasurement", "NSObject"])
        let length = HandMadeArchive.classDict(["NSUnitLength", "NSDimension", "NSUnit", "NSObject"])
        let linear = HandMadeArchive.classDict(["NSUnitConverterLinear", "NSUnitConverter", "NSObject"])
        func read(_ root: PropertyListDictionary, unit: PropertyListDictionary, converter: PropertyListDictionary)
            throws -> (code: String, className: String?, keyPath: String?)?
        {
            var r = root, u = unit, c = converter
            r["$class"] = HandMadeArchive.uid(2)
            u["$class"] = HandMadeArchive.uid(4)
            c["$class"] = HandMadeArchive.uid(6)
            let data = try HandMadeArchive.binary([.dictionary(r), measurement, .dictionary(u), length, .dictionary(c), linear, "mi",
                                                   HandMadeArchive.classDict(["NSUnitEvil", "NSDimension", "NSUnit", "NSObject"])])
            return errorSummary { _ = try KeyedUnarchiver.unarchivedObject(ofClass: M.self, from: data) }
        }
        let goodRoot: PropertyListDictionary = ["NS.value": 1.0, "NS.unit": HandMadeArchive.uid(3)]
        let goodUnit: PropertyListDictionary = ["NS.symbol": HandMadeArchive.uid(7), "NS.converter": HandMadeArchive.uid(5)]
        let goodConverter: PropertyListDictionary = ["NS.coefficient": 2.0, "NS.constant": 0.0]
        #expect(try read(goodRoot, unit: goodUnit, converter: goodConverter) == nil)

        let valueAsString = try read(["NS.value": "1", "NS.unit": HandMadeArchive.uid(3)], unit: goodUnit, converter: goodConverter)
        #expect(valueAsString?.code == "typeMismatch" && valueAsString?.className == "NSMeasurement" && valueAsString?.keyPath == "root.NS.value")
        let unitInline = try read(["NS.value": 1.0, "NS.unit": 3], unit: goodUnit, converter: goodConverter)
        #expect(unitInline?.code == "typeMismatch" && unitInline?.keyPath == "root.NS.unit")
        let symbolMissing = try read(goodRoot, unit: ["NS.converter": HandMadeArchive.uid(5)], converter: goodConverter)
        #expect(symbolMissing?.code == "keyNotFound" && symbolMissing?.className == "NSUnitLength" && symbolMissing?.keyPath == "root.NS.unit.NS.symbol")
        let converterIsString = try read(goodRoot, unit: ["NS.symbol": HandMadeArchive.uid(7), "NS.converter": HandMadeArchive.uid(7)], converter: goodConverter)
        #expect(converterIsString?.code == "typeMismatch" && converterIsString?.keyPath == "root.NS.unit.NS.converter")
        let badConstant = try read(goodRoot, unit: goodUnit, converter: ["NS.coefficient": 2.0, "NS.constant": "zero"])
        #expect(badConstant?.code == "typeMismatch" && badConstant?.className == "NSUnitConverterLinear"
                && badConstant?.keyPath == "root.NS.unit.NS.converter.NS.constant")
        var evilUnit = goodUnit
        evilUnit["$class"] = HandMadeArchive.uid(8)
        let evil = try HandMadeArchive.binary([.dictionary(goodRoot.merging(["$class": HandMadeArchive.uid(2)])), measurement,
                                               .dictionary(evilUnit), length, .dictionary(goodConverter), linear, "mi",
                                               HandMadeArchive.classDict(["NSUnitEvil", "NSDimension", "NSUnit", "NSObject"])])
        let notAllowed = errorSummary { _ = try KeyedUnarchiver.unarchivedObject(ofClass: M.self, from: evil) }
        #expect(notAllowed?.code == "classNotAllowed" && notAllowed?.className == "NSUnitEvil" && notAllowed?.keyPath == "root.NS.unit")
    }
}

extension PropertyListDictionary {
    /// This dictionary with `other`'s entries added (replacing equal keys).
    func merging(_ other: PropertyListDictionary) -> PropertyListDictionary {
        var result = self
        for (k, v) in other { result[k] = v }
        return result
    }
}
