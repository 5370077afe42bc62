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
        return result
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
        #expect(written >= 40)
    }
}
