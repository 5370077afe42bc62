import Foundation
import Testing
@testable import KeyedArchive

/// The archiver writes the layouts Apple's NSKeyedArchiver writes, where Foundation's readers depend on them.
@Suite struct AppleLayoutTests {
    /// The `$objects` entry a `$top` key refers to; fails the test when the key's value is not a UID.
    static func topObject(_ tree: PropertyListValue, key: String = "root") throws -> PropertyListValue {
        let envelope = try #require(tree.dictionaryValue)
        let top = try #require(envelope["$top"]?.dictionaryValue)
        guard case .uid(let uid)? = top[key] else {
            Issue.record("$top.\(key) is \(String(describing: top[key])), not a UID")
            throw KeyedArchiveError(.typeMismatch, "$top.\(key) is not a UID")
        }
        let objects = try #require(envelope["$objects"]?.arrayValue)
        return try #require(objects.indices.contains(Int(uid.value)) ? objects[Int(uid.value)] : nil)
    }

    @Test func scalarRootIsAnObjectReferencedByUID() throws {
        #expect(try Self.topObject(KeyedArchiver.archivedPropertyList(withRootObject: 42)) == .integer(42))
        #expect(try Self.topObject(KeyedArchiver.archivedPropertyList(withRootObject: true)) == .bool(true))
        #expect(try Self.topObject(KeyedArchiver.archivedPropertyList(withRootObject: 2.5)) == .real(2.5))
        #expect(try Self.topObject(KeyedArchiver.archivedPropertyList(withRootObject: Float(1.5))) == .float(1.5))
        #expect(try Self.topObject(KeyedArchiver.archivedPropertyList(withRootObject: UInt8(7))) == .integer(7))
        #expect(try Self.topObject(KeyedArchiver.archivedPropertyList(withRootObject: FoundationValue.integer(-3))) == .integer(-3))
        #expect(try Self.topObject(KeyedArchiver.archivedPropertyList(withRootObject: FoundationValue.bool(false))) == .bool(false))
    }

    @Test func scalarTopKeysAreInlineStringTopKeysUIDsAndAllReadBack() throws {
        let archiver = KeyedArchiver()
        try archiver.encode(5, forKey: "count")
        try archiver.encode(false, forKey: "flag")
        try archiver.encode(0.25, forKey: "ratio")
        try archiver.encode("text", forKey: "name")
        let tree = try archiver.encodedPropertyList()
        let top = try #require(tree.dictionaryValue?["$top"]?.dictionaryValue)
        #expect(top["count"] == .integer(5))
        #expect(top["flag"] == .bool(false))
        #expect(top["ratio"] == .real(0.25))
        #expect(try Self.topObject(tree, key: "name") == .string("text"))
        let data = try archiver.encodedData()
        let unarchiver = KeyedUnarchiver()
        #expect(try unarchiver.decode(Int.self, forKey: "count", from: data) == 5)
        #expect(try unarchiver.decode(Bool.self, forKey: "flag", from: data) == false)
        #expect(try unarchiver.decode(Double.self, forKey: "ratio", from: data) == 0.25)
        #expect(try unarchiver.decode(String.self, forKey: "name", from: data) == "text")
    }

    @Test func scalarFieldsOfObjectsStayInline() throws {
        let tree = try KeyedArchiver.archivedPropertyList(withRootObject: Book(title: "t", pages: 12))
        let book = try #require(Self.topObject(tree).dictionaryValue)
        #expect(book["pages"] == .integer(12))
    }

    @Test func scalarRootRoundTrips() throws {
        #expect(try KeyedUnarchiver().decode(Int.self, from: KeyedArchiver.archivedData(withRootObject: 42)) == 42)
        #expect(try KeyedUnarchiver().decode(Bool.self, from: KeyedArchiver.archivedData(withRootObject: true)) == true)
        #expect(try KeyedUnarchiver().decode(Double.self, from: KeyedArchiver.archivedData(withRootObject: 2.5)) == 2.5)
        #expect(try KeyedUnarchiver().decode(Float.self, from: KeyedArchiver.archivedData(withRootObject: Float(0.5))) == 0.5)
        #expect(try KeyedUnarchiver().decode(FoundationValue.self, from: KeyedArchiver.archivedData(withRootObject: FoundationValue.integer(9)))
                == .integer(9))
    }

    @Test func foundationReadsOurScalarRoots() throws {
        func unarchive(_ data: Data) throws -> NSNumber? {
            try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSNumber.self], from: data) as? NSNumber
        }
        #expect(try unarchive(KeyedArchiver.archivedData(withRootObject: 42))?.intValue == 42)
        #expect(try unarchive(KeyedArchiver.archivedData(withRootObject: true))?.boolValue == true)
        #expect(try unarchive(KeyedArchiver.archivedData(withRootObject: 2.5))?.doubleValue == 2.5)
        #expect(try unarchive(KeyedArchiver.archivedData(withRootObject: Float(1.5)))?.floatValue == 1.5)
        #expect(try unarchive(KeyedArchiver.archivedData(withRootObject: FoundationValue.integer(-8)))?.intValue == -8)
        let any = try NSKeyedUnarchiver.unarchiveTopLevelObjectWithData(KeyedArchiver.archivedData(withRootObject: 42))
        #expect((any as? NSNumber)?.intValue == 42)
    }

    @Test func orderedSetHasOneMemberPerElement() throws {
        let tree = try KeyedArchiver.archivedPropertyList(withRootObject: FoundationValue.orderedSet([.integer(1), .string("b"), .integer(3)]))
        let object = try #require(Self.topObject(tree).dictionaryValue)
        #expect(Set(object.keys) == ["$class", "NS.object.0", "NS.object.1", "NS.object.2"])
        let objects = try #require(tree.dictionaryValue?["$objects"]?.arrayValue)
        func element(_ i: Int) -> PropertyListValue? {
            guard case .uid(let uid)? = object["NS.object.\(i)"] else { return nil }
            return objects[Int(uid.value)]
        }
        #expect([element(0), element(1), element(2)] == [.integer(1), .string("b"), .integer(3)])
        guard case .uid(let cls)? = object["$class"] else { Issue.record("no $class UID"); return }
        #expect(objects[Int(cls.value)].dictionaryValue?["$classes"] == .array(["NSOrderedSet", "NSObject"]))
        let empty = try #require(Self.topObject(KeyedArchiver.archivedPropertyList(withRootObject: FoundationValue.orderedSet([]))).dictionaryValue)
        #expect(Array(empty.keys) == ["$class"])
    }

    @Test func orderedSetRoundTripsThroughUsAndFoundation() throws {
        let value: FoundationValue = .orderedSet([.string("x"), .integer(2), .string("y")])
        let data = try KeyedArchiver.archivedData(withRootObject: value)
        #expect(try KeyedUnarchiver().decode(FoundationValue.self, from: data) == value)
        #expect(try KeyedUnarchiver().decode([FoundationValue].self, from: data) == [.string("x"), .integer(2), .string("y")])
        let back = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSOrderedSet.self, NSString.self, NSNumber.self], from: data)
                                as? NSOrderedSet)
        #expect(back.array.map { "\($0)" } == ["x", "2", "y"])
    }

    @Test(.enabled(if: Corpus.isPresent, "needs ../shared/corpus"))
    func orderedSetMatchesAppleFixtureMembers() throws {
        let fixture = try PropertyListValue(propertyListData: Corpus.data("corelibs-foundation/Fixtures/macOS-10.14/NSOrderedSet-Numbers.archive"))
        let ours = try KeyedArchiver.archivedPropertyList(withRootObject: FoundationValue.orderedSet((1 ... 5).map { .integer(PropertyListInteger(Int64($0))) }))
        let theirs = try #require(try Self.topObject(fixture).dictionaryValue)
        let mine = try #require(Self.topObject(ours).dictionaryValue)
        #expect(Set(theirs.keys) == Set(mine.keys))
    }
}
