import Testing
import Foundation
@testable import KeyedArchive

@Suite struct RawArchiveGraphTests {
    /// Note { title: "Shopping", items: NSArray["milk", "eggs"], count: 3, parent: nil }
    static func noteArchive() -> PropertyListValue {
        var b = ArchiveBuilder()
        let note = b.reserve()                                   // #1
        let title = b.add("Shopping")                             // #2
        let milk = b.add("milk")                                  // #3
        let eggs = b.add("eggs")                                  // #4
        let items = b.object("NSArray", ["NSObject"], [("NS.objects", [milk, eggs])])  // #6, class #5
        b.set(note, b.instance("Note", ["NSObject"], [("title", title), ("items", items), ("count", 3), ("parent", .ref(0))]))
        return b.archive(root: note)
    }

    @Test func instancesExposeClassAndFieldsInStoredOrder() throws {
        let graph = try ArchivedObjectGraph(propertyList: Self.noteArchive())
        #expect(graph.archiverName == "NSKeyedArchiver")
        #expect(graph.version == 100000)
        #expect(graph.top == [ArchivedField("root", .reference(UID(1)))])
        #expect(graph.topReference() == UID(1))
        #expect(graph.count == 8)

        let note = try #require(graph.object(UID(1))?.instance)
        #expect(note.className == "Note")
        #expect(note.archivedClass.chain == ["Note", "NSObject"])
        #expect(note.classUID == UID(7))
        #expect(note.fields.map(\.key) == ["title", "items", "count", "parent"])
        #expect(note["title"] == .reference(UID(2)))
        #expect(note["items"] == .reference(UID(6)))
        #expect(note["count"] == .value(3))
        #expect(note["parent"] == .null)
        #expect(note["missing"] == nil)

        #expect(graph.object(UID(0))?.content == .null)
        #expect(graph.object(UID(2))?.content == .value("Shopping"))
        #expect(graph.object(UID(5))?.content == .classDefinition(ArchivedClass(name: "NSArray", chain: ["NSArray", "NSObject"], uid: UID(5))))
        let array = try #require(graph.object(UID(6))?.instance)
        #expect(array["NS.objects"] == .array([.reference(UID(3)), .reference(UID(4))]))
        #expect(graph.object(UID(8)) == nil)
        #expect(graph.instanceCounts() == ["Note": 1, "NSArray": 1])
    }

    @Test func cyclesAndSharedReferencesLoadAsPlainUIDs() throws {
        var b = ArchiveBuilder()
        let a = b.reserve()                                       // #1
        let shared = b.add("shared")                              // #2
        let c = b.object("Node", ["NSObject"], [("next", a), ("label", shared)])  // class #3, node #4
        b.set(a, b.instance("Node", ["NSObject"], [("next", c), ("label", shared), ("me", a)]))
        let graph = try ArchivedObjectGraph(propertyList: b.archive(root: a))
        let first = try #require(graph.object(UID(1))?.instance)
        let second = try #require(graph.object(UID(4))?.instance)
        #expect(first["next"] == .reference(UID(4)))
        #expect(second["next"] == .reference(UID(1)))
        #expect(first["me"] == .reference(UID(1)))
        #expect(first["label"] == second["label"])
        #expect(first.classUID == second.classUID)
    }

    @Test func anInstancesClassEqualsItsClassEntryHintsIncluded() throws {
        var b = ArchiveBuilder()
        let thing = b.reserve()                                                          // #1
        let hinted = b.add(.dictionary(["$classname": "Hinted", "$classes": ["Hinted", "NSObject"],
                                        "$classhints": ["H1", "H2"]]))                  // #2
        b.set(thing, .dictionary(["$class": hinted, "n": 1]))
        let graph = try ArchivedObjectGraph(propertyList: b.archive(root: thing))
        let instance = try #require(graph.object(UID(1))?.instance)
        let expected = ArchivedClass(name: "Hinted", chain: ["Hinted", "NSObject"], hints: ["H1", "H2"], uid: UID(2))
        #expect(instance.archivedClass == expected)
        #expect(graph.object(UID(2))?.content == .classDefinition(expected))
        #expect(graph.resolvedObject(UID(1))?.archivedClass == expected)
    }

    @Test func unknownClassesAndOddEntriesAreKeptIntact() throws {
        var b = ArchiveBuilder()
        let blob = b.add(.data(Data([1, 2, 3])))
        let thing = b.object("Mystery.Thing", ["Mystery.Base", "NSObject"], [
            ("$$escaped", 1), ("blob", blob), ("nested", .dictionary(["refs": [.ref(1), .ref(0)], "n": 2.5])),
            ("plain", [1, 2]),
        ])
        let odd = b.add(.array([.ref(1), "loose"]))                   // an array without $class
        let hinted = b.add(.dictionary(["$classname": "Hinted", "$classes": ["Hinted"], "$classhints": ["H"]]))
        let original = b.archive(top: ["root": thing, "extra": odd, "hint": hinted])
        let graph = try ArchivedObjectGraph(propertyList: original)

        let instance = try #require(graph.object(UID(3))?.instance)
        #expect(instance.className == "Mystery.Thing")
        #expect(instance.archivedClass.chain == ["Mystery.Thing", "Mystery.Base", "NSObject"])
        #expect(instance["$$escaped"] == .value(1))
        #expect(instance["nested"] == .dictionary([ArchivedField("refs", .array([.reference(UID(1)), .null])),
                                                   ArchivedField("n", .value(2.5))]))
        #expect(instance["plain"] == .value([1, 2]))
        #expect(graph.object(UID(4))?.content == .value(.array([.ref(1), "loose"])))
        #expect(graph.object(UID(5))?.content == .classDefinition(ArchivedClass(name: "Hinted", chain: ["Hinted"], hints: ["H"], uid: UID(5))))
        #expect(graph.top.map(\.key) == ["root", "extra", "hint"])
        #expect(graph.top[2].value == ArchivedValue(hinted))

        // Nothing is lost: the property list written back is the one read.
        #expect(graph.propertyList == original)
        let again = try ArchivedObjectGraph(propertyList: graph.propertyList)
        #expect(again == graph)
    }

    @Test func graphBuiltFromObjectsEqualsTheLoadedOne() throws {
        let loaded = try ArchivedObjectGraph(propertyList: Self.noteArchive())
        let rebuilt = try ArchivedObjectGraph(top: loaded.top, objects: loaded.objects)
        #expect(rebuilt == loaded)
        #expect(rebuilt.objects == loaded.objects)
        // Every object's stored form is its entry in $objects.
        let stored = try #require(Self.noteArchive().dictionaryValue?["$objects"]?.arrayValue)
        #expect(loaded.objects.map(\.storedValue) == stored)
    }

    @Test func builtArchivesRoundTripThroughBothFormats() throws {
        var b = ArchiveBuilder()
        let a = b.reserve()
        // Whole seconds and 8-byte reals: XML keeps neither fractions of dates nor 4-byte widths.
        let c = b.object("Node", ["NSObject"], [("next", a), ("weight", .real(0.25)), ("when", .date(Date(timeIntervalSinceReferenceDate: 12)))])
        b.set(a, b.instance("Node", ["NSObject"], [("next", c), ("big", .integer(PropertyListInteger(UInt64.max))), ("bytes", .data(Data([0, 255])))]))
        for archive in [Self.noteArchive(), b.archive(root: a)] {
            let graph = try ArchivedObjectGraph(propertyList: archive)
            for format in PropertyListFormat.allCases {
                let again = try ArchivedObjectGraph(data: try graph.archivedData(format: format))
                #expect(again == graph, "\(format)")
                #expect(again.objects == graph.objects, "\(format)")
                #expect(again.top == graph.top)
                #expect(again.archiverName == graph.archiverName)
                #expect(again.version == graph.version)
            }
        }
        // The binary format keeps 4-byte reals and fractional dates exactly.
        var f = ArchiveBuilder()
        let x = f.object("Sample", ["NSObject"], [("weight", .float(0.1)), ("when", .date(Date(timeIntervalSinceReferenceDate: 0.125)))])
        let graph = try ArchivedObjectGraph(propertyList: f.archive(root: x))
        #expect(try ArchivedObjectGraph(data: try graph.archivedData(format: .binary)) == graph)
    }

    @Test func buildingRejectsMisplacedUIDsAndMismatchedClasses() throws {
        let loaded = try ArchivedObjectGraph(propertyList: Self.noteArchive())
        var objects = loaded.objects
        objects.swapAt(2, 3)
        #expect(throws: KeyedArchiveError.self) { try ArchivedObjectGraph(top: loaded.top, objects: objects) }

        objects = loaded.objects
        guard case .instance(var note) = objects[1].content else { Issue.record("not an instance"); return }
        note.archivedClass.name = "Other"
        objects[1].content = .instance(note)
        let error = try #require(throws: KeyedArchiveError.self) { try ArchivedObjectGraph(top: loaded.top, objects: objects) }
        #expect(error.code == .invalidClass)
        #expect(error.objectUID == 1)
    }

    /// A chain far deeper than any stack could recurse through (sized for a debug build; the tool's
    /// depth guarantee is described in SecureUnarchiving.md, "Depth and bounded work").
    @Test func deepChainLoadsWithoutRecursion() throws {
        let depth = 250_000
        var objects: [PropertyListValue] = ["$null", .dictionary(["$classname": "Link", "$classes": ["Link", "NSObject"]])]
        objects.reserveCapacity(depth + 2)
        for i in 0..<depth {
            // #(i+2) -> #(i+3); the last one points back to the first (a cycle at the end of the chain).
            let next: UInt64 = i == depth - 1 ? 2 : UInt64(i + 3)
            objects.append(.dictionary(["next": .ref(next), "$class": .ref(1)]))
        }
        let archive: PropertyListValue = .dictionary([
            "$version": 100000, "$archiver": "NSKeyedArchiver", "$top": ["root": .ref(2)], "$objects": .array(objects),
        ])
        let graph = try ArchivedObjectGraph(propertyList: archive)
        #expect(graph.count == depth + 2)
        #expect(graph.object(UID(UInt64(depth + 1)))?.instance?["next"] == .reference(UID(2)))
        #expect(graph.instanceCounts() == ["Link": depth])
    }

    // MARK: - Errors name the object and the key path

    @Test func referenceOutOfRangeNamesObjectAndKeyPath() throws {
        var b = ArchiveBuilder()
        let a = b.object("NSArray", ["NSObject"], [("NS.objects", [.ref(0), .ref(99)])])
        let error = try #require(throws: KeyedArchiveError.self) { try ArchivedObjectGraph(propertyList: b.archive(root: a)) }
        #expect(error.code == .invalidReference)
        #expect(error.objectUID == 2)
        #expect(error.className == "NSArray")
        #expect(error.keyPath == "NS.objects[1]")
        #expect(error.description == "keyed archive: NS.objects[1] (object #2, class NSArray): UID 99 is out of range: $objects has 3 entries")
    }

    @Test func nestedReferenceOutOfRangeNamesTheFullPath() throws {
        var b = ArchiveBuilder()
        let a = b.object("Thing", ["NSObject"], [("deep", .dictionary(["list": [1, [.ref(7)]]]))])
        let error = try #require(throws: KeyedArchiveError.self) { try ArchivedObjectGraph(propertyList: b.archive(root: a)) }
        #expect(error.keyPath == "deep.list[1][0]")
        #expect(error.objectUID == 2)
    }

    @Test func topReferenceOutOfRangeIsRejected() throws {
        let b = ArchiveBuilder()
        let error = try #require(throws: KeyedArchiveError.self) { try ArchivedObjectGraph(propertyList: b.archive(root: .ref(5))) }
        #expect(error.code == .invalidReference)
        #expect(error.keyPath == "$top.root")
    }

    @Test func invalidClassReferencesAreRejected() throws {
        // $class is not a UID.
        var b = ArchiveBuilder()
        let a = b.add(.dictionary(["$class": "NSArray"]))
        var error = try #require(throws: KeyedArchiveError.self) { try ArchivedObjectGraph(propertyList: b.archive(root: a)) }
        #expect(error.code == .invalidClass)
        #expect(error.objectUID == 1)

        // $class points at a string.
        b = ArchiveBuilder()
        let s = b.add("not a class")
        let c = b.add(.dictionary(["$class": s]))
        error = try #require(throws: KeyedArchiveError.self) { try ArchivedObjectGraph(propertyList: b.archive(root: c)) }
        #expect(error.code == .invalidClass)
        #expect(error.objectUID == 2)

        // $classes holds a number: informational only (no reader acts on it), so the instance is shown without a chain.
        b = ArchiveBuilder()
        let bad = b.add(.dictionary(["$classname": "X", "$classes": ["X", 5]]))
        let d = b.add(.dictionary(["$class": bad]))
        let graph = try ArchivedObjectGraph(propertyList: b.archive(root: d))
        #expect(graph.object(UID(2))?.instance?.archivedClass == ArchivedClass(name: "X", chain: [], uid: UID(1)))
    }

    @Test func brokenEnvelopesAreRejected() {
        #expect(throws: KeyedArchiveError.self) { try ArchivedObjectGraph(propertyList: ["a": 1]) }
        #expect(throws: KeyedArchiveError.self) {
            try ArchivedObjectGraph(propertyList: ["$archiver": "NSKeyedArchiver", "$version": 100000, "$top": [:]])
        }
        #expect(throws: KeyedArchiveError.self) {
            try ArchivedObjectGraph(propertyList: ["$archiver": "NSKeyedArchiver", "$version": 100000, "$top": [:], "$objects": []])
        }
        #expect(throws: KeyedArchiveError.self) { try ArchivedObjectGraph(propertyList: [1, 2]) }
    }

    @Test func bytesThatAreNotAPropertyListReportTheUnderlyingError() throws {
        let error = try #require(throws: KeyedArchiveError.self) { try ArchivedObjectGraph(data: Data("%PDF-1.4".utf8)) }
        #expect(error.code == .invalidPropertyList)
        #expect(error.underlying?.code == .unknownFormat)
    }
}
