import Foundation
import Testing
@testable import KeyedArchive

/// Edits by key path and the lossless re-write (``ArchivedObjectGraph/replacingValue(at:with:)`` and its siblings).
@Suite struct ArchiveEditingTests {
    static func archive(_ value: FoundationValue, format: PropertyListFormat = .binary) throws -> Data {
        try KeyedArchiver.archivedData(withRootObject: value, format: format)
    }

    static func decoded(_ graph: ArchivedObjectGraph) throws -> FoundationValue {
        try KeyedUnarchiver().decode(FoundationValue.self, from: graph.archivedData())
    }

    @Test(arguments: PropertyListFormat.allCases)
    func unchangedRewriteOfOurArchiveIsByteEqual(_ format: PropertyListFormat) throws {
        let data = try Self.archive(ArchiveKeyPathTests.contacts, format: format)
        let graph = try ArchivedObjectGraph(data: data)
        #expect(try graph.rewritten() == graph)
        #expect(try ArchivedObjectGraph.editing(data) { try $0.rewritten() } == data)
    }

    @Test func replacingAStringEqualsArchivingTheEditedValue() throws {
        let graph = try ArchivedObjectGraph(data: Self.archive(ArchiveKeyPathTests.contacts))
        let edited = try graph.replacingValue(at: "root.contacts.0.name", with: "Anna")
        let expected = ArchiveKeyPathTests.contacts(firstName: "Anna")
        #expect(try Self.decoded(edited) == expected)
        // Same objects, same UIDs as the archiver gives the edited value: the bytes are equal.
        #expect(try edited.archivedData() == Self.archive(expected))
    }

    @Test func replacingASubtreeDropsWhatOnlyItReached() throws {
        let graph = try ArchivedObjectGraph(data: Self.archive(ArchiveKeyPathTests.contacts))
        let edited = try graph.replacingValue(at: "root.contacts", with: .array(["only"]))
        #expect(try edited.value(at: "root.contacts.0").node.string == "only")
        #expect(try edited.value(at: "root.contacts").node.count == 1)
        // Ann's and Bob's dictionaries, their strings, the date and NSDate's class are gone.
        #expect(edited.instanceCounts()["NSDate"] == nil)
        #expect(!edited.objects.contains { $0.content == .value(.string("Ann")) })
        #expect(edited.count < graph.count)
        #expect(try edited.value(at: "root.title").node.string == "Friends")
    }

    @Test func insertsAppendAndRemove() throws {
        var graph = try ArchivedObjectGraph(data: Self.archive(ArchiveKeyPathTests.contacts))
        graph = try graph.insertingValue(["city": "Oslo", "zip": 150], at: "root.contacts.0.address")
        #expect(try graph.value(at: "root.contacts.0.address.city").node.string == "Oslo")
        #expect(try graph.value(at: "root.contacts.0.address").className == "NSDictionary")
        graph = try graph.appendingValue(.date(Date(timeIntervalSinceReferenceDate: 5)), to: "root.contacts")
        #expect(try graph.value(at: "root.contacts.2").className == "NSDate")
        graph = try graph.insertingValue("zero", at: "root.ordered.0")
        #expect(try graph.value(at: "root.ordered.0").node.string == "zero")
        #expect(try graph.value(at: "root.ordered.2").node.string == "second")
        graph = try graph.removingValue(at: "root.ordered.1")
        #expect(try graph.value(at: "root.ordered").node.count == 2)
        graph = try graph.removingValue(at: "root.title")
        #expect(throws: KeyedArchiveError.self) { try graph.value(at: "root.title") }
        let value = try Self.decoded(graph)
        #expect(value["contacts"]?[0]?["address"]?["zip"] == .integer(150))
        #expect(value["contacts"]?[2] == .date(Date(timeIntervalSinceReferenceDate: 5)))
        #expect(value["ordered"] == .orderedSet([.string("zero"), .string("second")]))
        #expect(value["title"] == nil)
        #expect(value["tags"] == .set([.string("x")]))
    }

    /// An NSArray holding one inner NSArray twice, then a string: `[[s], [s], "edit me"]`, one inner object.
    static func sharedGraph() throws -> ArchivedObjectGraph {
        let arrayClass = ArchivedClass(name: "NSArray", chain: ["NSArray", "NSObject"], hints: nil, uid: UID(4))
        func list(_ uid: UInt64, _ elements: [UInt64]) -> ArchivedObject {
            ArchivedObject(uid: UID(uid), content: .instance(ArchivedInstance(
                classUID: UID(4), archivedClass: arrayClass,
                fields: [ArchivedField("NS.objects", .array(elements.map { .reference(UID($0)) }))])))
        }
        return try ArchivedObjectGraph(top: [ArchivedField("root", .reference(UID(1)))], objects: [
            ArchivedObject(uid: UID(0), content: .null), list(1, [2, 2, 5]), list(2, [3]),
            ArchivedObject(uid: UID(3), content: .value(.string("s"))),
            ArchivedObject(uid: UID(4), content: .classDefinition(arrayClass)),
            ArchivedObject(uid: UID(5), content: .value(.string("edit me"))),
        ])
    }

    @Test func sharedObjectsStayShared() throws {
        let graph = try Self.sharedGraph()
        #expect(try graph.rewritten() == graph)
        let edited = try graph.replacingValue(at: "root.2", with: ["new", "list"])
        let inner = try #require(try edited.value(at: "root.0").storedValue.uidValue)
        #expect(inner == UID(2))
        #expect(try edited.value(at: "root.1").storedValue.uidValue == inner)
        #expect(try edited.value(at: "root.2.1").node.string == "list")
        #expect(edited.count == graph.count + 2)
        // Removing the first reference keeps the object alive through the second.
        let removed = try edited.removingValue(at: "root.0")
        #expect(try removed.value(at: "root.0.0").node.string == "s")
        #expect(try removed.value(at: "root.0").storedValue.uidValue == UID(2))
    }

    @Test func inlineFieldsStayInlineAndNewFieldsFollowTheArchiver() throws {
        let top: [ArchivedField] = [ArchivedField("root", .reference(UID(1)))]
        let objects = [
            ArchivedObject(uid: UID(0), content: .null),
            ArchivedObject(uid: UID(1), content: .instance(ArchivedInstance(
                classUID: UID(3), archivedClass: ArchivedClass(name: "Custom", chain: ["Custom", "NSObject"], hints: ["Hint"], uid: UID(3)),
                fields: [ArchivedField("flags", .value(.integer(7))), ArchivedField("name", .reference(UID(2)))]))),
            ArchivedObject(uid: UID(2), content: .value(.string("n"))),
            ArchivedObject(uid: UID(3), content: .classDefinition(ArchivedClass(name: "Custom", chain: ["Custom", "NSObject"], hints: ["Hint"], uid: UID(3)))),
        ]
        let graph = try ArchivedObjectGraph(top: top, objects: objects)
        let replaced = try graph.replacingValue(at: "root.flags", with: 9)
        #expect(try replaced.value(at: "root.flags").storedValue == .integer(9))
        let inserted = try replaced.insertingValue(true, at: "root.enabled").insertingValue("text", at: "root.note")
        #expect(try inserted.value(at: "root.enabled").storedValue == .bool(true))
        #expect(try inserted.value(at: "root.note").storedValue.uidValue != nil)
        #expect(try inserted.value(at: "root.note").node.string == "text")
        // The class description, hints and all, is kept; the new string comes before it (fields, then $class).
        let instance = try #require(inserted.object(UID(1))?.instance)
        #expect(instance.archivedClass.hints == ["Hint"])
        #expect(instance.archivedClass.chain == ["Custom", "NSObject"])
        #expect(try inserted.value(at: "root.note").storedValue == .uid(UID(3)))
        #expect(instance.classUID == UID(4))
        let error = try #require(throws: KeyedArchiveError.self) { try inserted.insertingValue(1, at: "root.flags") }
        #expect(error.code == .valueExists)
        #expect(error.keyPath == "root.flags")
    }

    @Test func rawEditsStoreValuesAsGivenAndAreChecked() throws {
        let graph = try ArchivedObjectGraph(data: Self.archive(.array([.string("a"), .string("b")])))
        let a = try #require(try graph.value(at: "root.0").storedValue.uidValue)
        let edited = try graph.replacingValue(at: ArchiveKeyPath("$objects.\(a.value)"), with: "A")
        #expect(try edited.value(at: "root.0").node.string == "A")
        let other = try ArchivedObjectGraph(data: Self.archive(.string("whole")))
        #expect(try graph.replacingValue(at: "$", with: other.propertyList) == other)
        #expect(throws: KeyedArchiveError.self) { try graph.replacingValue(at: "$", with: ["$top": [:]]) }
        let broken = try #require(throws: KeyedArchiveError.self) { try graph.replacingValue(at: "$top.root", with: .uid(UID(99))) }
        #expect(broken.code == .invalidReference, "\(broken)")
        let badUID = try #require(throws: KeyedArchiveError.self) { try graph.appendingValue(.uid(UID(50)), to: "root") }
        #expect(badUID.code == .invalidReference)
        #expect(badUID.keyPath == "root.2")
    }

    @Test func hostileValuesThrow() throws {
        let graph = try ArchivedObjectGraph(data: Self.archive(.array([.string("a")])))
        var deep: PropertyListValue = "leaf"
        for _ in 0 ..< 600 { deep = .array([deep]) }
        let error = try #require(throws: KeyedArchiveError.self) { try graph.appendingValue(deep, to: "root") }
        #expect(error.code == .limitExceeded)
        #expect(throws: KeyedArchiveError.self) { try graph.removingValue(at: "$objects.1") }
        #expect(throws: KeyedArchiveError.self) { try graph.removingValue(at: "root.5") }
        #expect(throws: KeyedArchiveError.self) { try graph.insertingValue("x", at: "root.9") }
    }

    /// Every keyed archive of the corpus: a re-write without an edit gives an equal graph (UIDs included) when
    /// its writer numbered it depth first, and an archive that reads back to the same resolved values otherwise.
    @Test(.requiresCorpus) func corpusArchivesRewriteLosslessly() throws {
        var equal = 0, byteEqual = 0, renumbered: [String] = [], total = 0
        for file in Corpus.files() {
            let data = try Corpus.data(file)
            guard let graph = try? ArchivedObjectGraph(data: data) else { continue }
            total += 1
            let rewritten = try graph.rewritten()
            let format = PropertyListValue.detectFormat(of: data) ?? .binary
            let bytes = try ArchivedObjectGraph.editing(data) { try $0.rewritten() }
            if bytes == data { byteEqual += 1 }
            #expect(PropertyListValue.detectFormat(of: bytes) == format, "\(file)")
            if !ArchiveReferenceOrder.isDepthFirst(top: ArchiveWorkingCopy(graph).top, objects: Array(graph.storage)) {
                renumbered.append(file)
            }
            let entries = Array(graph.storage)
            let reachable = ArchiveReferenceOrder.depthFirst(
                top: ArchivedUIDWalk.references(in: .dictionary(ArchiveWorkingCopy(graph).top)).map { Int($0) }, count: entries.count
            ) { ArchivedUIDWalk.references(in: entries[$0]).map { Int($0) } }.count
            if reachable == graph.count {
                // Every UID kept: depth-first archives because the walk gives them their own numbers, the others
                // (compiled nibs) because their objects keep their order.
                #expect(rewritten == graph, "\(file)")
                equal += 1
            } else {
                #expect(rewritten.count == reachable, "\(file)")
            }
        }
        print("rewrote \(total) corpus archives: \(equal) equal graphs, \(byteEqual) byte-equal files; not numbered depth first: \(renumbered.count)")
        #expect(total > 80)
        #expect(equal > 80)
    }
}
