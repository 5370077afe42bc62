import Foundation
import Testing
@testable import KeyedArchive

/// A test-only value type for a made-up class, to plug into the catalogue as an `.archivable` entry; a
/// ``CataloguedValue``, as a class added to the catalogue is.
struct CatalogueTestTemperature: CataloguedValue {
    static var archivedClassName: String { "TSTemperature" }
    static var foundationValueName: String { "temperature" }
    var degrees: Double
    var label: String

    init(degrees: Double, label: String) {
        self.degrees = degrees
        self.label = label
    }

    init(from decoder: any ArchiveDecoder) throws {
        degrees = try decoder.decode(Double.self, forKey: "degrees")
        label = try decoder.decode(String.self, forKey: "label")
    }

    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(degrees, forKey: "degrees")
        try encoder.encode(label, forKey: "label")
    }

    var description: String { "\(degrees)°C \(label)" }
}

/// The same, without `Encodable`: the raw model falls back to the description.
struct CatalogueTestOpaque: KeyedArchivable, CustomStringConvertible {
    static var archivedClassName: String { "TSOpaque" }
    var code: Int
    init(code: Int) { self.code = code }
    init(from decoder: any ArchiveDecoder) throws { code = try decoder.decode(Int.self, forKey: "code") }
    func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(code, forKey: "code") }
    var description: String { "opaque #\(code)" }
}

@Suite struct FoundationClassCatalogueTests {
    static let testCatalogue = FoundationClassCatalogue.standard.adding([
        FoundationClass("TSTemperature", .archivable(CatalogueTestTemperature.self)),
        FoundationClass("TSOpaque", .archivable(CatalogueTestOpaque.self)),
    ])

    @Test func everyNameFindsItsEntryWithApplesChain() {
        let catalogue = FoundationClassCatalogue.standard
        #expect(catalogue.entry(named: "NSMutableArray")?.chain(for: "NSMutableArray") == ["NSMutableArray", "NSArray", "NSObject"])
        #expect(catalogue.entry(named: "NSArray")?.chain(for: "NSArray") == ["NSArray", "NSObject"])
        #expect(catalogue.entry(named: "NSMutableOrderedSet")?.chain(for: "NSMutableOrderedSet")
                == ["NSMutableOrderedSet", "NSOrderedSet", "NSObject"])
        #expect(catalogue.entry(named: "NSMutableString")?.chain(for: "NSMutableString") == ["NSMutableString", "NSString", "NSObject"])
        #expect(catalogue.entry(named: "NSMutableData")?.chain(for: "NSMutableData") == ["NSMutableData", "NSData", "NSObject"])
        #expect(catalogue.entry(named: "NSDate")?.chain(for: "NSMutableDate") == nil)
        #expect(catalogue.entry(named: "Note") == nil)
        // Every name belongs to exactly one entry.
        let names = catalogue.entries.flatMap(\.names)
        #expect(Set(names).count == names.count)
        for name in names { #expect(catalogue.entry(named: name)?.names.contains(name) == true) }
    }

    /// Every member key the archiver and the decoder take from the catalogue is the key Apple stores (an entry
    /// without the role would give the empty string, which no stored key equals).
    @Test func everyMemberKeyTheCoderAsksForIsApples() {
        typealias C = FoundationClassCatalogue
        #expect(C.string.key(.string) == "NS.string")
        #expect(C.data.key(.bytes) == "NS.data")
        #expect(C.date.key(.time) == "NS.time")
        #expect(C.uuid.key(.uuidBytes) == "NS.uuidbytes")
        #expect(C.url.key(.base) == "NS.base")
        #expect(C.url.key(.relative) == "NS.relative")
        #expect(C.array.key(.elements) == "NS.objects")
        #expect(C.set.key(.elements) == "NS.objects")
        #expect(C.dictionary.key(.keys) == "NS.keys")
        #expect(C.dictionary.key(.elements) == "NS.objects")
        #expect(C.orderedSet.key(.elements) == "NS.object.")
        #expect(C.date.key(.keys) == "")
    }

    @Test func indexedElementPositionsRejectGapsAndBadIndices() {
        typealias C = FoundationClassCatalogue
        #expect(C.indexedElementPositions(keys: ["$class", "NS.object.1", "NS.object.0"]) == [2, 1])
        #expect(C.indexedElementPositions(keys: ["$class"]) == [])
        #expect(C.indexedElementPositions(keys: ["NS.object.0", "NS.object.2"]) == nil)
        #expect(C.indexedElementPositions(keys: ["NS.object.0", "NS.object.0"]) == [1])  // last wins
        #expect(C.indexedElementPositions(keys: ["NS.object.0", "NS.object.01"]) == nil)
        #expect(C.indexedElementPositions(keys: ["NS.object.-1"]) == nil)
        #expect(C.indexedElementPositions(keys: ["NS.object.x"]) == nil)
        #expect(C.indexedElementPositions(keys: ["NS.objects", "NS.object.0"]) == [1])
    }

    /// An ordered set of 10, 11, 12, 13 whose members are stored in the order `order` (indices).
    static func orderedSet(storedInOrder order: [Int], className: String = "NSOrderedSet") -> (PropertyListValue, UID) {
        var b = ArchiveBuilder()
        let numbers = (0 ..< 4).map { b.add(.integer(PropertyListInteger(Int64(10 + $0)))) }
        let set = b.object(className, ["NSObject"], order.map { ("NS.object.\($0)", numbers[$0 < numbers.count ? $0 : 0]) })
        guard case .uid(let uid) = set else { return (b.archive(root: set), UID(0)) }
        return (b.archive(root: set), uid)
    }

    @Test func elementsStoredOneKeyEachInAnyOrderAreOneOrderedList() throws {
        let (archive, uid) = Self.orderedSet(storedInOrder: [3, 0, 2, 1])
        let graph = try ArchivedObjectGraph(propertyList: archive)
        guard case .list(let items)? = graph.resolvedObject(uid)?.kind else {
            Issue.record("not a list: \(String(describing: graph.resolvedObject(uid)?.kind))")
            return
        }
        #expect(items.compactMap { graph.inlineValue($0) } == [10, 11, 12, 13])
        #expect(try KeyedUnarchiver().decode([Int].self, from: archive) == [10, 11, 12, 13])
        #expect(try KeyedUnarchiver().decode(FoundationValue.self, from: archive) == .orderedSet([.integer(10), .integer(11), .integer(12), .integer(13)]))
    }

    @Test func orderedSetStoredAsAnObjectsArrayIsAList() throws {
        var b = ArchiveBuilder()
        let x = b.add("x"), y = b.add("y")
        let set = b.object("NSMutableOrderedSet", ["NSOrderedSet", "NSObject"], [("NS.objects", [x, y])])
        let archive = b.archive(root: set)
        let graph = try ArchivedObjectGraph(propertyList: archive)
        guard case .uid(let uid) = set, case .list(let items)? = graph.resolvedObject(uid)?.kind else {
            Issue.record("not a list")
            return
        }
        #expect(items.compactMap { graph.inlineValue($0) } == ["x", "y"])
        #expect(try KeyedUnarchiver().decode(FoundationValue.self, from: archive) == .orderedSet([.string("x"), .string("y")]))
    }

    @Test func gapsInIndexedElementsAreNotAShorterList() throws {
        for order in [[0, 2], [1], [0, 1, 3]] {
            let (archive, uid) = Self.orderedSet(storedInOrder: order)
            let graph = try ArchivedObjectGraph(propertyList: archive)
            guard case .object(let instance)? = graph.resolvedObject(uid)?.kind else {
                Issue.record("\(order): expected the raw object, got \(String(describing: graph.resolvedObject(uid)?.kind))")
                continue
            }
            #expect(instance.fields.count == order.count)
            let error = try #require(throws: KeyedArchiveError.self) { try KeyedUnarchiver().decode([Int].self, from: archive) }
            #expect(error.code == .dataCorrupted)
            #expect(error.message.contains("without a gap"))
            #expect(error.className == "NSOrderedSet")
        }
    }

    @Test func repeatedKeyInStoredBytesReadsAlikeInBothModels() throws {
        // Binary bytes can repeat a dictionary key: NS.object.0 twice, NS.object.1 once. Both readers take
        // the last value of a repeated key (the package's rule), so both see [y, x].
        var b = ArchiveBuilder()
        let x = b.add("x"), y = b.add("y")
        let cls = b.classRef("NSOrderedSet")
        let set = b.add(.dictionary(PropertyListDictionary(distinctKeys: ["$class", "NS.object.0", "NS.object.0", "NS.object.1"],
                                                           values: [cls, x, y, x])))
        let data = try b.archive(root: set).propertyListData(format: .binary)
        #expect(try KeyedUnarchiver().decode([String].self, from: data) == ["y", "x"])
        let graph = try ArchivedObjectGraph(data: data)
        guard case .uid(let uid) = set, case .list(let items)? = graph.resolvedObject(uid)?.kind else {
            Issue.record("not a list")
            return
        }
        #expect(items.compactMap { graph.inlineValue($0) } == ["y", "x"])
    }

    @Test func arraysAcceptTheIndexedLayoutToo() throws {
        let (archive, uid) = Self.orderedSet(storedInOrder: [1, 0], className: "NSArray")
        let graph = try ArchivedObjectGraph(propertyList: archive)
        guard case .list(let items)? = graph.resolvedObject(uid)?.kind else { Issue.record("not a list"); return }
        #expect(items.count == 2)
        #expect(try KeyedUnarchiver().decode([Int].self, from: archive) == [10, 11])
    }

    @Test func archivableEntryShowsTheObjectDecodedByItsType() throws {
        let value = CatalogueTestTemperature(degrees: 21.5, label: "kitchen")
        let graph = try ArchivedObjectGraph(data: KeyedArchiver.archivedData(withRootObject: [value]))
        let list = try #require(graph.top.first?.value.referenceUID.flatMap { graph.resolvedObject($0) })
        guard case .list(let items) = list.kind, let uid = items.first?.referenceUID else { Issue.record("no list"); return }
        // Without the entry, the object is raw fields.
        guard case .object? = graph.resolvedObject(uid)?.kind else { Issue.record("standard catalogue decoded it"); return }
        let resolved = try #require(graph.resolvedObject(uid, catalogue: Self.testCatalogue))
        #expect(resolved.archivedClass?.name == "TSTemperature")
        #expect(resolved.kind == .decoded(typeName: "CatalogueTestTemperature", description: "21.5°C kitchen",
                                          json: #"{"degrees":21.5,"label":"kitchen"}"#))
    }

    @Test func archivableEntryWithoutEncodableFallsBackToItsDescription() throws {
        let graph = try ArchivedObjectGraph(data: KeyedArchiver.archivedData(withRootObject: CatalogueTestOpaque(code: 7)))
        let uid = try #require(graph.top.first?.value.referenceUID)
        #expect(graph.resolvedObject(uid, catalogue: Self.testCatalogue)?.kind
                == .decoded(typeName: "CatalogueTestOpaque", description: "opaque #7", json: nil))
    }

    @Test func archivableEntryThatDoesNotDecodeStaysRaw() throws {
        var b = ArchiveBuilder()
        let label = b.add("no degrees")
        let object = b.object("TSTemperature", ["NSObject"], [("label", label)])
        let graph = try ArchivedObjectGraph(propertyList: b.archive(root: object))
        guard case .uid(let uid) = object, case .object(let instance)? = graph.resolvedObject(uid, catalogue: Self.testCatalogue)?.kind else {
            Issue.record("expected the raw object")
            return
        }
        #expect(instance.fields.map(\.key) == ["label"])
    }

    @Test func decodingOneObjectAllowsOnlyTheGivenType() throws {
        // The object at the UID is a Book: asking for the temperature type must not instantiate it.
        let graph = try ArchivedObjectGraph(data: KeyedArchiver.archivedData(withRootObject: Book(title: "b", pages: 2)))
        let uid = try #require(graph.top.first?.value.referenceUID)
        let error = try #require(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver().decodeObject(at: uid, ofType: CatalogueTestTemperature.self, in: graph)
        }
        #expect(error.code == .classNotAllowed)
        let book = try KeyedUnarchiver().decodeObject(at: uid, ofType: Book.self, in: graph) as? Book
        #expect(book?.title == "b")
        #expect(book?.pages == 2)
    }

    @Test func theValueTypesAreCataloguedWithTheirTypesNamesAndChains() {
        let catalogue = FoundationClassCatalogue.standard
        let expected: [(String, any KeyedArchivable.Type)] = [
            ("NSValue", ArchivedSpecialValue.self), ("NSIndexSet", ArchivedIndexSet.self), ("NSMutableIndexSet", ArchivedIndexSet.self),
            ("NSIndexPath", ArchivedIndexPath.self), ("NSCountedSet", ArchivedCountedSet.self), ("NSMeasurement", ArchivedMeasurement.self),
            ("NSTimeZone", ArchivedTimeZone.self), ("NSLocale", ArchivedLocale.self),
            ("NSISO8601DateFormatter", ArchivedISO8601DateFormatter.self), ("NSAttributedString", ArchivedAttributedString.self),
            ("NSMutableAttributedString", ArchivedAttributedString.self), ("NSColor", ArchivedColor.self), ("NSFont", ArchivedFont.self),
            ("NSPersonNameComponents", ArchivedPersonNameComponents.self), ("NSDecimalNumber", ArchivedDecimalNumber.self),
        ]
        for (name, type) in expected {
            guard case .archivable(let found)? = catalogue.entry(named: name)?.family else {
                Issue.record("\(name) is not an archivable entry")
                continue
            }
            #expect(ObjectIdentifier(found) == ObjectIdentifier(type), "\(name)")
            // The entry holds no members: the type is the one place its keys are written.
            #expect(catalogue.entry(named: name)?.members.isEmpty == true, "\(name)")
        }
        #expect(catalogue.entry(named: "NSISO8601DateFormatter")?.chain(for: "NSISO8601DateFormatter") == ["NSISO8601DateFormatter", "NSFormatter", "NSObject"])
        #expect(catalogue.entry(named: "NSCountedSet")?.chain(for: "NSCountedSet") == ["NSCountedSet", "NSMutableSet", "NSSet", "NSObject"])
        #expect(catalogue.entry(named: "NSMutableIndexSet")?.chain(for: "NSMutableIndexSet") == ["NSMutableIndexSet", "NSIndexSet", "NSObject"])
        #expect(FoundationClassCatalogue.valueTypes.count == 13)
    }

    @Test func oneObjectIsDecodedFromTheObjectsItReachesOnly() throws {
        // Two index sets and an NSValue in a long array of strings: each decodes from its own few objects.
        let values: [FoundationValue] = (0 ..< 200).map { .string("s\($0)") }
            + [.indexSet(ArchivedIndexSet(ranges: [1 ..< 4])), .specialValue(ArchivedSpecialValue(range: 2 ..< 7))]
        let graph = try ArchivedObjectGraph(data: KeyedArchiver.archivedData(withRootObject: FoundationValue.array(values)))
        guard case .list(let items)? = graph.topReference().flatMap(graph.resolvedObject)?.kind,
              let indexSet = items[200].referenceUID, let range = items[201].referenceUID else {
            Issue.record("not the array written")
            return
        }
        let sub = try #require(graph.reachableArchive(from: range, maximumObjectCount: 100))
        // $null, the NSValue, its class and its two NSNumbers: nothing of the 200 strings.
        #expect(sub.dictionaryValue?["$objects"]?.arrayValue?.count == 5)
        #expect(try KeyedUnarchiver().decodeObject(at: range, ofType: ArchivedSpecialValue.self, in: graph) as? ArchivedSpecialValue
                == ArchivedSpecialValue(range: 2 ..< 7))
        #expect(graph.resolvedObject(indexSet)?.kind == .decoded(typeName: "ArchivedIndexSet", description: "NSIndexSet [1-3]",
                                                                json: #"{"ranges":[[1,4]]}"#))
        // Reaching more objects than the limit, $null, or a UID past the end: not decoded on its own.
        #expect(graph.reachableArchive(from: range, maximumObjectCount: 3) == nil)
        #expect(graph.reachableArchive(from: UID(0), maximumObjectCount: 100) == nil)
        #expect(graph.reachableArchive(from: UID(UInt64(graph.count)), maximumObjectCount: 100) == nil)
        var limited = KeyedUnarchiver()
        limited.limits.maximumObjectCount = 3
        let error = try #require(throws: KeyedArchiveError.self) {
            try limited.decodeObject(at: range, ofType: ArchivedSpecialValue.self, in: graph)
        }
        #expect(error.objectUID == range.value)
    }
}
