import Foundation
import Testing
@testable import KeyedArchive

/// The fuzzers' seed inputs, built from the test models with the real writers and archiver.
///
/// Always checks that every seed reads back to the value it was written from (so the seeds are valid
/// starting points). With `FUZZ_SEED_DIR` set (Scripts/fuzz.sh does this), it also writes them there:
/// `binary/`, `xml/`, `archives-binary/`, `archives-xml/`, one file per seed.
@Suite struct FuzzSeedCorpus {
    /// Plain property lists covering every kind and the object-reference widths of the binary format.
    static func propertyLists() -> [(String, PropertyListValue)] {
        let manyStrings = PropertyListValue.array((0..<300).map { .string("s\($0)") })
        var bigDictionary = PropertyListDictionary()
        for i in 0..<40 { bigDictionary["key\(i)"] = .integer(PropertyListInteger(Int64(i) * 1_000_003)) }
        return [
            ("empty-dict", .dictionary([:])),
            ("empty-array", .array([])),
            ("string-ascii", "hello"),
            ("string-unicode", "héllo wörld ✓ 𝄞"),
            ("string-empty", ""),
            ("integers", [0, 1, -1, 255, 256, 65_535, 65_536, .integer(PropertyListInteger(Int64.min)),
                          .integer(PropertyListInteger(Int64.max)), .integer(PropertyListInteger(UInt64.max))]),
            ("reals", [.real(0), .real(-0.0), .real(1.5), .real(.infinity), .real(-.infinity), .real(.nan),
                       .real(.leastNonzeroMagnitude)]),
            ("floats", [.float(1.25), .float(-3), .float(.nan)]),
            ("bools", [true, false]),
            ("dates", [.date(Date(timeIntervalSinceReferenceDate: 0)), .date(Date(timeIntervalSinceReferenceDate: 123_456.75)),
                       .date(Date(timeIntervalSinceReferenceDate: -978_307_200))]),
            ("data", [.data(Data()), .data(Data([0, 1, 2, 255])), .data(Data(repeating: 0xAB, count: 100))]),
            ("set", .set(["a", "b", 3])),
            ("uids", [.uid(UID(0)), .uid(UID(255)), .uid(UID(256)), .uid(UID(UInt64(UInt32.max)))]),
            ("nested", ["a": [["b": ["c": [1, 2, ["d": "e"]]]]], "f": .data(Data([1]))]),
            ("shared-values", ["x": "same", "y": "same", "z": ["same", "same"]]),
            ("many-objects", manyStrings),
            ("big-dictionary", .dictionary(bigDictionary)),
            ("dollar-keys", ["$key": "v", "CF$UID": 3, "": "empty key"]),
        ]
    }

    /// Keyed archives of the test models: every field kind, shared objects, a cyclic back-reference,
    /// rings, a self-reference and a linked list.
    static func archives() throws -> [(String, PropertyListValue)] {
        var result: [(String, PropertyListValue)] = []
        result.append(("every-field", try KeyedArchiver.archivedPropertyList(withRootObject: EveryField())))

        let shared = Book(title: "Shared", pages: 10)
        let library = Library(name: "Main", books: [shared, Book(title: "Other", pages: 250), shared],
                              byCode: ["S": shared, "X": Book(title: "Extra", pages: 1)],
                              shelf: [Tag("fiction"), Tag("new")], featured: shared)
        result.append(("library", try KeyedArchiver.archivedPropertyList(withRootObject: library)))
        result.append(("library-empty", try KeyedArchiver.archivedPropertyList(
            withRootObject: Library(name: "", books: [], byCode: [:], shelf: [], featured: nil))))

        let parent = Node("parent"), child1 = Node("child1"), child2 = Node("child2")
        parent.children = [child1, child2]
        child1.parent = parent
        child2.parent = parent
        child1.next = child2
        result.append(("node-tree", try KeyedArchiver.archivedPropertyList(withRootObject: parent)))

        let a = Node("a"), b = Node("b"), c = Node("c")
        a.next = b; b.next = c; c.next = a
        result.append(("node-ring", try KeyedArchiver.archivedPropertyList(withRootObject: a)))
        a.next = nil

        let single = Node("self")
        single.next = single
        result.append(("node-self", try KeyedArchiver.archivedPropertyList(withRootObject: single)))
        single.next = nil

        let list = ListNode(1, next: ListNode(2, next: ListNode(3)))
        result.append(("list", try KeyedArchiver.archivedPropertyList(withRootObject: list)))
        result += try valueTypeArchives()
        result.append(("codable-model", try codableModelArchive()))
        return result
    }

    /// Archives of the catalogue's value types, as FoundationValue roots and inside an array.
    static func valueTypeArchives() throws -> [(String, PropertyListValue)] {
        let range = ArchivedSpecialValue(range: 3..<10)
        let indexSet = ArchivedIndexSet(ranges: [1..<4, 10..<11, 100..<200])
        let attributed = try ArchivedAttributedString(string: "bold plain", runs: [
            .init(range: 0..<4, attributes: ["NSFont": .string("Helvetica-Bold"), "weight": .integer(7)]),
            .init(range: 4..<10, attributes: ["NSLink": .string("https://example.com")]),
        ])
        let color = ArchivedColor(.rgb(red: 0.25, green: 0.5, blue: 1, alpha: 1, calibrated: false))
        let countedSet = ArchivedCountedSet(counts: [.string("a"): 3, .string("b"): 1, .integer(5): 2])
        let mixed: FoundationValue = .array([.specialValue(range), .indexSet(indexSet), .attributedString(attributed),
                                             .color(color), .countedSet(countedSet), .string("tail")])
        return [
            ("value-range", try KeyedArchiver.archivedPropertyList(withRootObject: range)),
            ("value-index-set", try KeyedArchiver.archivedPropertyList(withRootObject: indexSet)),
            ("value-attributed-string", try KeyedArchiver.archivedPropertyList(withRootObject: attributed)),
            ("value-color", try KeyedArchiver.archivedPropertyList(withRootObject: color)),
            ("value-counted-set", try KeyedArchiver.archivedPropertyList(withRootObject: countedSet)),
            ("value-mixed-array", try KeyedArchiver.archivedPropertyList(withRootObject: mixed)),
        ]
    }

    /// The Codable model of Fuzz/Unarchiver.swift, with a shared item. Its nested Codable struct is archived
    /// under its Swift type name, which has this module's prefix; the seed names the fuzz target's module.
    static func codableModelArchive() throws -> PropertyListValue {
        let shared = FuzzCodableItem(label: "shared", weight: 2)
        let model = FuzzCodableModel(name: "model", count: 3, ratio: 0.75, tags: ["x", "y"],
                                     point: FuzzCodablePoint(x: -1, y: 2.5), kind: .fancy,
                                     items: [shared, FuzzCodableItem(label: "other", weight: 9), shared])
        let data = try KeyedArchiver.archivedData(withRootObject: model, format: .xml)
        let again = try KeyedUnarchiver().decode(FuzzCodableModel.self, from: data)
        #expect(again == model, "the Codable seed model round-trips")
        #expect(again.items[0] === again.items[2], "the shared item stays shared")
        let testName = String(reflecting: FuzzCodablePoint.self)
        let xml = String(decoding: data, as: UTF8.self)
        #expect(xml.contains(testName))
        let renamed = xml.replacingOccurrences(of: testName, with: "Fuzz_unarchiver.FuzzCodablePoint")
        return try PropertyListValue(propertyListData: Data(renamed.utf8))
    }

    @Test func seedsRoundTripAndAreWrittenWhenRequested() throws {
        let directory = ProcessInfo.processInfo.environment["FUZZ_SEED_DIR"].map { URL(fileURLWithPath: $0) }
        func write(_ data: Data, _ kind: String, _ name: String) throws {
            guard let directory else { return }
            let folder = directory.appendingPathComponent(kind)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try data.write(to: folder.appendingPathComponent(name))
        }

        var written = 0
        for (name, value) in Self.propertyLists() {
            let binary = BinaryPropertyListWriter().write(value)
            #expect(try BinaryPropertyListReader().read(binary) == value, "binary seed \(name)")
            try write(binary, "binary", name + ".bplist")
            written += 1
            // XML has no sets, no UIDs and no 4-byte reals: those seeds exist in binary only.
            if name != "floats", let xml = try? XMLPropertyListWriter().write(value) {
                // XML dates have whole seconds, so compare the value XML gives back with its own round trip.
                let fromXML = try XMLPropertyListReader().read(xml)
                #expect(try XMLPropertyListReader().read(XMLPropertyListWriter().write(fromXML)) == fromXML, "XML seed \(name)")
                try write(xml, "xml", name + ".plist")
                written += 1
            }
        }
        for (name, archive) in try Self.archives() {
            let binary = try archive.propertyListData(format: .binary)
            let xml = try archive.propertyListData(format: .xml)
            #expect(try PropertyListValue(propertyListData: binary) == archive, "binary archive seed \(name)")
            let fromXML = try PropertyListValue(propertyListData: xml)
            #expect(try PropertyListValue(propertyListData: fromXML.propertyListData(format: .xml)) == fromXML,
                    "XML archive seed \(name)")
            #expect(try ArchivedObjectGraph(propertyList: archive).propertyList == archive, "raw graph of \(name)")
            try write(binary, "archives-binary", name + ".bplist")
            try write(xml, "archives-xml", name + ".plist")
            written += 2
        }
        // The OpenStep reader's seeds: the texts its tests read with Foundation.
        for (index, entry) in OpenStepReaderTests.foundationTable.enumerated() {
            let text = Data(entry.text.utf8)
            let value = try OpenStepPropertyListReader().read(text)
            #expect(try BinaryPropertyListReader().read(BinaryPropertyListWriter().write(value)) == value, "OpenStep seed \(entry.name)")
            try write(text, "openstep", "\(index).txt")
            written += 1
        }
        #expect(written >= 40)
    }
}

extension FuzzSeedCorpus {
    /// The record Fuzz/Typedstream.swift reads as its `FuzzRecord` (class "FuzzRecord" version 2: a string,
    /// a `q`, a `d`, a Foundation value, a child record), written with the real archiver.
    final class TypedstreamRecordSeed: TypedstreamEncodable {
        static let typedstreamClassName = "FuzzRecord"
        static let typedstreamClassVersion = 2
        let title: String?, number: Int, real: Double, value: FoundationValue, child: TypedstreamRecordSeed?
        init(title: String?, number: Int, real: Double, value: FoundationValue, child: TypedstreamRecordSeed?) {
            (self.title, self.number, self.real, self.value, self.child) = (title, number, real, value, child)
        }
        func encode(to encoder: TypedstreamEncoder) throws {
            try encoder.encodeString(title)
            try encoder.encodeInteger(number, ofObjCType: "q")
            try encoder.encodeDouble(real)
            try encoder.encodeFoundationValue(value)
            try encoder.encodeObject(child)
        }
    }

    /// Typedstream seeds besides the shared corpus: records of the fuzz target's class, alone and inside an
    /// NSArray (objects with no Foundation value, read as kept objects).
    @Test func typedstreamSeedsReadBackAndAreWrittenWhenRequested() throws {
        let leaf = TypedstreamRecordSeed(title: "leaf", number: -3, real: 0.5, value: .null, child: nil)
        let record = TypedstreamRecordSeed(title: "root", number: 1 << 40, real: 2.25,
                                           value: .array([.string("a"), .integer(7), .dictionary([.string("k"): .data(Data([1, 2]))])]),
                                           child: leaf)
        let archiver = TypedstreamArchiver()
        var bigEndian = TypedstreamArchiver()
        bigEndian.byteOrder = .bigEndian
        let seeds = [("record", try archiver.archivedData(withRootObject: record)),
                     ("record-big-endian", try bigEndian.archivedData(withRootObject: record)),
                     ("record-untitled", try archiver.archivedData(withRootObject: TypedstreamRecordSeed(
                        title: nil, number: 0, real: -0.0, value: .string("only"), child: nil)))]
        var unarchiver = TypedstreamUnarchiver()
        unarchiver.keepsUnknownObjects = true
        var written = 0
        for (name, data) in seeds {
            let value = try unarchiver.foundationValue(from: data)
            let kept = try #require(value.catalogued(as: ArchivedTypedstreamObject.self), "\(name)")
            #expect(kept.classChain == [TypedstreamClassVersion(name: "FuzzRecord", version: 2), TypedstreamClassVersion(name: "NSObject", version: 0)], "\(name)")
            let inArray = try archiver.archivedData(withRootValue: .array([.catalogued(kept), .string("after")]))
            #expect(try unarchiver.foundationValue(from: inArray).array?.count == 2, "\(name) in an array")
            if let directory = ProcessInfo.processInfo.environment["FUZZ_SEED_DIR"].map({ URL(fileURLWithPath: $0) }) {
                let folder = directory.appendingPathComponent("typedstream")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try data.write(to: folder.appendingPathComponent(name + ".typedstream"))
                try inArray.write(to: folder.appendingPathComponent(name + "-in-array.typedstream"))
                written += 2
            }
        }
        #expect(written == 0 || written == 2 * seeds.count)
    }
}
