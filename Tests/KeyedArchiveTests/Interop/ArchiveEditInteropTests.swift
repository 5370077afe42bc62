import Foundation
import Testing
@testable import KeyedArchive

/// Archives edited by key path (``ArchivedObjectGraph/replacingValue(at:with:)`` and its siblings), read by
/// Foundation's NSKeyedUnarchiver in-process and by GNUstep: the edit shows, everything else is unchanged.
@Suite struct ArchiveEditFoundationTests {
    static let date = Date(timeIntervalSinceReferenceDate: 700_000_000.5)

    static func foundationArchive(_ object: Any) throws -> Data {
        try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false)
    }

    static func foundationRead(_ data: Data) throws -> Any? {
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        defer { unarchiver.finishDecoding() }
        return unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey)
    }

    @Test func foundationReadsAnEditedFoundationArchive() throws {
        let original = NSArray(array: [NSString(string: "a"), NSDate(timeIntervalSinceReferenceDate: 5),
                                       NSArray(array: [NSString(string: "x"), NSString(string: "y")])])
        let data = try Self.foundationArchive(original)
        let edited = try ArchivedObjectGraph.editing(data) { graph in
            try graph.replacingValue(at: "root.2.1", with: "z").appendingValue(.date(Self.date), to: "root")
        }
        let read = try #require(try Self.foundationRead(edited) as? NSArray)
        let expected = NSArray(array: [NSString(string: "a"), NSDate(timeIntervalSinceReferenceDate: 5),
                                       NSArray(array: [NSString(string: "x"), NSString(string: "z")]),
                                       NSDate(timeIntervalSinceReferenceDate: Self.date.timeIntervalSinceReferenceDate)])
        #expect(read == expected)
        // The objects and their UIDs are those Foundation's archiver gives the edited array.
        #expect(try ArchivedObjectGraph(data: edited) == ArchivedObjectGraph(data: Self.foundationArchive(expected)))
    }

    @Test func foundationReadsAnEditedModelWithEverythingElseUnchanged() throws {
        let child = FNote(title: "child", count: 3)
        let note = FNote(title: "parent", count: 2, children: [child])
        let data = try Self.foundationArchive(note)
        let edited = try ArchivedObjectGraph.editing(data) { graph in
            try graph.replacingValue(at: "root.title", with: "renamed")
                .replacingValue(at: "root.count", with: 41)
                .replacingValue(at: "root.tags.1", with: "edited")
                .removingValue(at: "root.counts.b")
        }
        let read = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClasses: [FNote.self], from: edited) as? FNote)
        #expect(read.title == "renamed")
        #expect(read.count == 41)
        #expect(read.tags == ["t2", "edited"])
        #expect(read.counts == ["a": 2])
        // Everything else as archived.
        #expect(read.score == note.score && read.ratio == note.ratio && read.flag == note.flag)
        #expect(read.created == note.created && read.id == note.id && read.link == note.link)
        #expect(read.members == note.members && read.blob == note.blob)
        #expect(read.children.count == 1)
        #expect(read.children.first.map { Note(matching: $0).matches(child) } == [])
    }

    @Test func unchangedRewriteOfAFoundationArchiveKeepsItsGraph() throws {
        let data = try Self.foundationArchive(FNote(title: "n", count: 1, children: [FNote(title: "c", count: 2)]))
        let graph = try ArchivedObjectGraph(data: data)
        let bytes = try ArchivedObjectGraph.editing(data) { try $0.rewritten() }
        #expect(try ArchivedObjectGraph(data: bytes) == graph)
        #expect(try NSKeyedUnarchiver.unarchivedObject(ofClasses: [FNote.self], from: bytes) is FNote)
    }

    static let complexTest = "corelibs-foundation/Resources/NSKeyedUnarchiver-ComplexTest.plist"

    @Test(.requiresCorpus) func foundationReadsAnEditedAppleArchive() throws {
        let data = try Corpus.data(Self.complexTest)
        let edited = try ArchivedObjectGraph.editing(data) { graph in
            try graph.replacingValue(at: "root.string", with: "bye").insertingValue(["k": 1], at: "root.added")
        }
        #expect(PropertyListValue.detectFormat(of: edited) == PropertyListValue.detectFormat(of: data))
        let before = try #require(try Self.foundationRead(data) as? NSDictionary)
        let after = try #require(try Self.foundationRead(edited) as? NSDictionary)
        #expect(after["string"] as? String == "bye")
        #expect(after["added"] as? NSDictionary == ["k": 1] as NSDictionary)
        #expect(after.count == before.count + 1)
        for key in ["array", "url", "uuid"] {
            #expect((after[key] as? NSObject) == (before[key] as? NSObject), "\(key)")
        }
    }
}

@Suite(.enabled(if: GNUstepOracle.isAvailable, "GNUstep not installed (apt-get install gobjc libgnustep-base-dev gnustep-base-runtime)"))
struct ArchiveEditGNUstepTests {
    /// GNUstep reads the edited archive as it reads our archiver's archive of the edited value.
    @Test(arguments: PropertyListFormat.allCases)
    func gnustepReadsAnEditedArchive(_ format: PropertyListFormat) throws {
        let data = try KeyedArchiver.archivedData(withRootObject: ArchiveKeyPathTests.contacts, format: format)
        let edited = try ArchivedObjectGraph.editing(data) { graph in
            try graph.replacingValue(at: "root.contacts.0.age", with: 31)
                .insertingValue("Oslo", at: "root.contacts.1.city")
                .removingValue(at: "root.tags")
        }
        #expect(PropertyListValue.detectFormat(of: edited) == format)
        let value = try KeyedUnarchiver().decode(FoundationValue.self, from: edited)
        let expected: FoundationValue = .dictionary([
            .string("title"): .string("Friends"),
            .string("contacts"): .array([
                .dictionary([.string("name"): .string("Ann"), .string("age"): .integer(31)]),
                .dictionary([.string("name"): .string("Bob"), .string("born"): .date(Date(timeIntervalSinceReferenceDate: 86_400)),
                             .string("city"): .string("Oslo")]),
            ]),
            .string("ordered"): .orderedSet([.string("first"), .string("second")]),
        ])
        #expect(value == expected)
        let gnustep = try GNUstepOracle.decode(edited)
        #expect(gnustep == (try GNUstepOracle.decode(KeyedArchiver.archivedData(withRootObject: expected, format: format))))
        #expect(gnustep.contains("\"Oslo\""))
    }

    /// Apple's ArrayTest fixture (`["baa", "baa", "black", "sheep"]`, the two "baa" one object) with its last
    /// element replaced: GNUstep reads the edit, and the shared string stays one object.
    @Test(.requiresCorpus) func gnustepReadsAnEditedAppleArchive() throws {
        let data = try Corpus.data("corelibs-foundation/Resources/NSKeyedUnarchiver-ArrayTest.plist")
        let edited = try ArchivedObjectGraph.editing(data) { try $0.replacingValue(at: "root.3", with: "goat") }
        #expect(PropertyListValue.detectFormat(of: edited) == .xml)
        let graph = try ArchivedObjectGraph(data: edited)
        #expect(try graph.value(at: "root.0").storedValue == graph.value(at: "root.1").storedValue)
        let expected: FoundationValue = .array([.string("baa"), .string("baa"), .string("black"), .string("goat")])
        #expect(try KeyedUnarchiver().decode(FoundationValue.self, from: edited) == expected)
        #expect(try GNUstepOracle.decode(edited) == GNUstepOracle.decode(KeyedArchiver.archivedData(withRootObject: expected)))
        #expect(try GNUstepOracle.decode(data) != GNUstepOracle.decode(edited))
    }
}
