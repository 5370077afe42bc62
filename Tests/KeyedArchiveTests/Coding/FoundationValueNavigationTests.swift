import Foundation
import Testing
@testable import KeyedArchive

@Suite struct FoundationValueNavigationTests {
    static let order: FoundationValue = .dictionary([
        .string("customer"): .dictionary([.string("name"): .string("Ada"), .string("id"): .uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)))]),
        .string("items"): .array([
            .dictionary([.string("sku"): .string("A-1"), .string("quantity"): .integer(2), .string("price"): .real(9.5)]),
            .dictionary([.string("sku"): .string("B-7"), .string("quantity"): .integer(300), .string("gift"): .bool(true)]),
        ]),
        .string("tags"): .set([.string("new"), .string("sale")]),
        .string("steps"): .orderedSet([.string("paid"), .string("shipped")]),
        .string("placed"): .date(Date(timeIntervalSinceReferenceDate: 1000)),
        .string("note"): .null,
        .string("receipt"): .data(Data([1, 2, 3])),
        .string("page"): .url(URL(string: "https://example.com/o/1")!),
        .integer(7): .string("a key that is not a string"),
    ])

    @Test func keysAndIndexesReachNestedValuesWithoutPatterns() throws {
        let order = try Self.archivedAndRead(Self.order)
        #expect(order["items"]?[1]?["sku"]?.string == "B-7")
        #expect(order["items"]?[0]?["price"]?.double == 9.5)
        #expect(order["items"]?[1]?["gift"]?.bool == true)
        #expect(order["customer"]?["name"]?.string == "Ada")
        #expect(order["customer"]?["id"]?.uuid == UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)))
        #expect(order["tags"]?[1]?.string == "sale")
        #expect(order["steps"]?[0]?.string == "paid")
        #expect(order["placed"]?.date == Date(timeIntervalSinceReferenceDate: 1000))
        #expect(order["note"]?.isNull == true)
        #expect(order["receipt"]?.data == Data([1, 2, 3]))
        #expect(order["page"]?.url?.absoluteString == "https://example.com/o/1")
        #expect(order.dictionary?[.integer(7)]?.string == "a key that is not a string")
        #expect(order.count == 9)
        #expect(order["items"]?.count == 2)
        #expect(order["items"]?.array?.count == 2)
        #expect(order["tags"]?.set?.count == 2)
        #expect(order["steps"]?.orderedSet?.count == 2)
        #expect(order["items"]?.elements?.count == 2)
    }

    @Test func stepsThatFindNothingAreNilNeverATrap() {
        let order = Self.order
        #expect(order["missing"] == nil)
        #expect(order["items"]?[2] == nil)
        #expect(order["items"]?[-1] == nil)
        #expect(order["items"]?[Int.max] == nil)
        #expect(order[0] == nil)                          // a dictionary has no index
        #expect(order["items"]?["sku"] == nil)            // an array has no key
        #expect(order["customer"]?["name"]?["x"] == nil)  // a string has neither
        #expect(FoundationValue.string("s")[0] == nil)
        #expect(order["customer"]?["name"]?.int == nil)
        #expect(order["items"]?.string == nil)
        #expect(order["note"]?.count == nil)
        #expect(order["customer"]?.isNull == false)
    }

    @Test func integersConvertOnlyWhenTheyFitExactly() {
        let big = FoundationValue.integer(PropertyListInteger(UInt64.max))
        #expect(big.integer == PropertyListInteger(UInt64.max))
        #expect(big.int == nil)
        #expect(big.integer(as: UInt64.self) == UInt64.max)
        #expect(big.double == nil)  // 2^64 - 1 has no exact Double
        #expect(FoundationValue.integer(PropertyListInteger(UInt64(1) << 63)).double == 9223372036854775808.0)
        let three = FoundationValue.integer(300)
        #expect(three.integer(as: UInt8.self) == nil)
        #expect(three.integer(as: Int16.self) == 300)
        #expect(three.int == 300)
        #expect(three.double == 300)
        #expect(FoundationValue.integer(PropertyListInteger(Int64(-1))).integer(as: UInt32.self) == nil)
        // 2^53 + 1 has no exact Double.
        #expect(FoundationValue.integer(PropertyListInteger(Int64(1) << 53 + 1)).double == nil)
        #expect(FoundationValue.real(2.5).int == nil)
        #expect(FoundationValue.bool(true).int == nil)
        #expect(FoundationValue.integer(1).bool == nil)
    }

    @Test func catalogueConstructorsAndAccessorsKeepTheFormerCaseNames() throws {
        let indexes = ArchivedIndexSet(ranges: [1 ..< 4])
        let range = ArchivedSpecialValue(range: 2 ..< 7)
        let value: FoundationValue = .array([.indexSet(indexes), .specialValue(range), .string("x")])
        let back = try Self.archivedAndRead(value)
        #expect(back[0]?.indexSet == indexes)
        #expect(back[0]?.specialValue == nil)
        #expect(back[1]?.specialValue == range)
        #expect(back[1]?.catalogued(as: ArchivedSpecialValue.self) == range)
        #expect(back[2]?.indexSet == nil)
        #expect(back[2]?.cataloguedValue == nil)
        #expect(back[0]?.kindName == "indexSet")
        #expect(back[2]?.kindName == "string")
        // The one case matches any catalogued type, and a type pattern picks one.
        guard case .catalogued(let picked as ArchivedIndexSet)? = back[0] else {
            Issue.record("not a catalogued index set: \(String(describing: back[0]))")
            return
        }
        #expect(picked == indexes)
    }

    /// A switch over every case, as a user writes it: it names no catalogued class, so a class added to
    /// the catalogue later keeps it compiling (this test would stop compiling otherwise).
    @Test func anExhaustiveSwitchNamesOneCaseForEveryCataloguedClass() {
        func kind(_ value: FoundationValue) -> String {
            switch value {
            case .null, .bool, .integer, .real, .string, .data, .date, .uuid, .url: return "plain"
            case .array, .orderedSet, .set, .dictionary: return "collection"
            case .catalogued(let catalogued): return String(describing: type(of: catalogued))
            }
        }
        #expect(kind(.color(ArchivedColor(.white(white: 1, alpha: 1, calibrated: false)))) == "ArchivedColor")
        #expect(kind(.catalogued(CatalogueTestTemperature(degrees: 4, label: "mild"))) == "CatalogueTestTemperature")
        #expect(kind(.array([])) == "collection")
        #expect(kind(.null) == "plain")
    }

    /// A catalogued type that is not in the package's catalogue needs no case: it compares, hashes,
    /// describes and archives as its class; reading it back as a `FoundationValue` is refused before it
    /// is created, because only the catalogue's classes are read there.
    @Test func aCataloguedTypeOutsideTheCatalogueNeedsNoCaseAndIsNeverReadUntyped() throws {
        let mild = FoundationValue.catalogued(CatalogueTestTemperature(degrees: 4, label: "mild"))
        #expect(mild == .catalogued(CatalogueTestTemperature(degrees: 4, label: "mild")))
        #expect(mild != .catalogued(CatalogueTestTemperature(degrees: 5, label: "mild")))
        #expect(mild != .indexSet(ArchivedIndexSet(ranges: [4 ..< 5])))
        #expect(Set([mild, .catalogued(CatalogueTestTemperature(degrees: 4, label: "mild"))]).count == 1)
        #expect(mild.description == "4.0°C mild")
        #expect(mild.kindName == "temperature")
        let data = try KeyedArchiver.archivedData(withRootObject: mild)
        #expect(try ArchivedObjectGraph(data: data)["root"]?.className == "TSTemperature")
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: CatalogueTestTemperature.self, from: data).degrees == 4)
        let error = try #require(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver().decode(FoundationValue.self, from: data)
        }
        #expect(error.code == .classNotAllowed)
        #expect(error.className == "TSTemperature")
    }

    /// Archives `value` and reads it back as a `FoundationValue`, checking that nothing changed.
    static func archivedAndRead(_ value: FoundationValue) throws -> FoundationValue {
        let back = try KeyedUnarchiver().decode(FoundationValue.self, from: KeyedArchiver.archivedData(withRootObject: value))
        #expect(back == value)
        return back
    }
}
