import Foundation
import Testing
@testable import KeyedArchive

/// A model type, never allowed where only Foundation values are.
private final class CatalogueTestNote: KeyedArchivable {
    static var archivedClassName: String { "CatalogueTestNote" }
    nonisolated(unsafe) static var instances = 0
    init() {}
    init(from decoder: any ArchiveDecoder) throws { Self.instances += 1 }
    func encode(to encoder: any ArchiveEncoder) throws {}
}

/// The catalogue's value types as ``FoundationValue`` cases: read, written and mixed with plain values.
@Suite struct CatalogueFoundationValueTests {
    static let red = ArchivedColor(.rgb(red: 1, green: 0, blue: 0, alpha: 1, calibrated: false))
    static let styled = ArchivedAttributedString(string: "red text", attributes: ["NSColor": .color(red)])
    static let indexes = ArchivedIndexSet(ranges: [1 ..< 4, 9 ..< 10])
    static let mixed: FoundationValue = .array([.string("plain"), .attributedString(styled), .indexSet(indexes)])

    @Test func mixedArrayOfStringAttributedStringAndIndexSetReadsAsFoundationValue() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Self.mixed)
        let value = try KeyedUnarchiver().decode(FoundationValue.self, from: data)
        #expect(value == Self.mixed)
        // The attribute is a color, read as the value type through the attributes' FoundationValue dictionary.
        guard case .array(let items) = value, items.count == 3, let text = items[1].attributedString else {
            Issue.record("not the array written: \(value)")
            return
        }
        #expect(text.runs.first?.attributes["NSColor"] == .color(Self.red))
        // Writing the cases wrote the value types' classes.
        let graph = try ArchivedObjectGraph(data: data)
        let classes = Set(graph.uids.compactMap { graph.object($0)?.instance?.className })
        #expect(classes.isSuperset(of: ["NSArray", "NSAttributedString", "NSColor", "NSIndexSet", "NSDictionary"]), "\(classes)")
    }

    @Test func mixedArrayReadsWithDecodeArrayOfAnyOf() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Self.mixed)
        let items = try KeyedUnarchiver().withTopLevelDecoder(data) {
            try $0.decodeArray(ofAnyOf: [String.self, ArchivedAttributedString.self, ArchivedIndexSet.self], forKey: "root")
        }
        #expect(items.count == 3)
        #expect(items.first as? String == "plain")
        #expect(items.dropFirst().first as? ArchivedAttributedString == Self.styled)
        #expect(items.last as? ArchivedIndexSet == Self.indexes)
        // FoundationValue in the allow-list takes the value types too.
        let values = try KeyedUnarchiver().withTopLevelDecoder(data) {
            try $0.decodeArray(ofAnyOf: [CatalogueTestNote.self, FoundationValue.self], forKey: "root")
        }
        #expect(values.compactMap { $0 as? FoundationValue } == [.string("plain"), .attributedString(Self.styled), .indexSet(Self.indexes)])
    }

    @Test func classesOutsideTheAllowListAreNotInstantiated() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Self.mixed)
        // NSAttributedString is not allowed here: rejected by name before its initializer runs.
        #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver().withTopLevelDecoder(data) {
                try $0.decodeArray(ofAnyOf: [String.self, ArchivedIndexSet.self], forKey: "root")
            }
        }
        do {
            _ = try KeyedUnarchiver().withTopLevelDecoder(data) {
                try $0.decodeArray(ofAnyOf: [String.self, ArchivedIndexSet.self], forKey: "root")
            }
        } catch let error as KeyedArchiveError {
            #expect(error.code == .classNotAllowed)
            #expect(error.message.contains("NSAttributedString"), "\(error.message)")
        }
        // A model object among Foundation values: FoundationValue never instantiates it.
        let withModel = try KeyedArchiver.archivedData(withRootObject: [CatalogueTestNote()])
        let before = CatalogueTestNote.instances
        do {
            _ = try KeyedUnarchiver().decode(FoundationValue.self, from: withModel)
            Issue.record("a model class was read as a FoundationValue")
        } catch let error as KeyedArchiveError {
            #expect(error.code == .classNotAllowed)
            #expect(error.className == "CatalogueTestNote")
            #expect(error.message.contains("NSIndexSet"), "the message lists the value types: \(error.message)")
        }
        #expect(CatalogueTestNote.instances == before)
    }

    @Test func everyCataloguedValueTypeRoundTripsThroughFoundationValue() throws {
        let values: [FoundationValue] = [
            .specialValue(ArchivedSpecialValue(range: 2 ..< 7)),
            .indexSet(Self.indexes),
            .indexPath(ArchivedIndexPath(indexes: [1, 4, 2])),
            .countedSet(ArchivedCountedSet([.string("a"), .string("a"), .integer(3)])),
            .timeZone(ArchivedTimeZone(identifier: "Europe/Paris")),
            .locale(ArchivedLocale(identifier: "fr_FR")),
            .iso8601DateFormatter(ArchivedISO8601DateFormatter(formatOptions: 1366, timeZone: ArchivedTimeZone(identifier: "Europe/Paris"))),
            .iso8601DateFormatter(ArchivedISO8601DateFormatter(timeZone: nil)),
            .attributedString(Self.styled),
            .color(Self.red),
            .font(ArchivedFont(name: "Helvetica", size: 12)),
            .catalogued(ArchivedPersonNameComponents(givenName: "Ada", familyName: "Lovelace",
                                                     phoneticRepresentation: ArchivedPersonNameComponents(givenName: "エイダ"))),
            .measurement(ArchivedMeasurement(value: 45, unit: .init(className: "NSUnitLength", symbol: "mi",
                                                                      converter: .init(coefficient: 1609.34)))),
            .catalogued(ArchivedDecimalNumber(Decimal(string: "-1234.5678") ?? 0)),
        ]
        for value in values {
            let data = try KeyedArchiver.archivedData(withRootObject: value)
            #expect(try KeyedUnarchiver().decode(FoundationValue.self, from: data) == value)
            #expect(value.cataloguedValue.flatMap(FoundationValue.init(cataloguedValue:)) == value)
            // The Codable form (archive-dump's JSON) keeps the case.
            let json = try JSONEncoder().encode(CodableFoundationValue(value))
            #expect(try JSONDecoder().decode(CodableFoundationValue.self, from: json).value == value)
            // Its one key is the type's name, the former case name (`{"color": {...}}`).
            let object = try JSONSerialization.jsonObject(with: json) as? [String: Any]
            #expect(object.map { Array($0.keys) } == [value.kindName], "\(value.kindName)")
        }
        #expect(FoundationValue.string("s").cataloguedValue == nil)
        // Every value type of the catalogue is a CataloguedValue, has a name of its own and a value above.
        let catalogued = FoundationClassCatalogue.valueTypes.compactMap { entry -> (any CataloguedValue.Type)? in
            guard case .archivable(let type) = entry.family else { return nil }
            return type as? any CataloguedValue.Type
        }
        #expect(catalogued.count == FoundationClassCatalogue.valueTypes.count)
        #expect(Set(catalogued.map { $0.foundationValueName }).count == catalogued.count)
        let tested = Set(values.compactMap { $0.cataloguedValue.map { ObjectIdentifier(type(of: $0)) } })
        #expect(tested == Set(catalogued.map { ObjectIdentifier($0) }))
    }
}
