import Foundation
import Testing
@testable import KeyedArchive

@Suite struct ArchivedNodeNavigationTests {
    static func libraryGraph() throws -> ArchivedObjectGraph {
        let books = (0 ..< 5).map { Book(title: "Book \($0)", pages: 100 + $0) }
        let library = Library(name: "Fiction", books: books, byCode: ["b2": books[2]], shelf: [Tag("new")], featured: books[4])
        return try ArchivedObjectGraph(data: KeyedArchiver.archivedData(withRootObject: library))
    }

    @Test func fieldsElementsAndDictionaryEntriesAreReachedWithSubscripts() throws {
        let graph = try Self.libraryGraph()
        let root = try #require(graph["root"])
        #expect(root.className == "KeyedArchiveTests.Library")
        #expect(root["name"]?.string == "Fiction")
        #expect(root["books"]?.className == "NSArray")
        #expect(root["books"]?.count == 5)
        #expect(root["books"]?[3]?["title"]?.string == "Book 3")
        #expect(root["books"]?[3]?.className == "KeyedArchiveTests.Book")
        #expect(root["books"]?[4]?["pages"]?.int == 104)
        #expect(root["byCode"]?["b2"]?["title"]?.string == "Book 2")
        #expect(root["byCode"]?.count == 1)
        #expect(root["byCode"]?["b2"]?.uid == root["books"]?[2]?.uid)  // one object, shared
        #expect(root["shelf"]?[0]?["label"]?.string == "new")
        #expect(root["featured"]?["pages"]?.integer(as: UInt8.self) == 104)
        #expect(graph.node(try #require(root.uid))["name"]?.string == "Fiction")
    }

    @Test func scalarsConvertOnlyWhenTheyFitExactly() throws {
        let fields = EveryField()
        let graph = try ArchivedObjectGraph(data: KeyedArchiver.archivedData(withRootObject: fields))
        let root = try #require(graph["root"])
        #expect(root["double"]?.double == fields.double)
        #expect(root["bool"]?.bool == true)
        #expect(root["data"]?.data == fields.data)
        #expect(root["date"]?.date == fields.date)
        #expect(root["uuid"]?.uuid == fields.uuid)
        #expect(root["string"]?.string == fields.string)
        #expect(root["uint8"]?.integer(as: UInt8.self) == 200)
        #expect(root["uint8"]?.integer(as: Int8.self) == nil)
        #expect(root["uint64"]?.integer == PropertyListInteger(UInt64.max))
        #expect(root["uint64"]?.int == nil)
        #expect(root["int"]?.int == -42)
        #expect(root["nested"]?[2]?[1]?.int == 3)
        #expect(root["strings"]?[1]?.string == "b")
        #expect(root["scores"]?["y"]?.double == -2)
    }

    @Test func aCycleIsFollowedAsFarAsAsked() throws {
        let a = Node("a"), b = Node("b")
        a.next = b
        b.next = a
        let graph = try ArchivedObjectGraph(data: KeyedArchiver.archivedData(withRootObject: a))
        let root = try #require(graph["root"])
        #expect(root["next"]?["name"]?.string == "b")
        #expect(root["next"]?["next"]?["next"]?["name"]?.string == "b")
        #expect(root["next"]?["next"]?.uid == root.uid)
    }

    @Test func stepsThatFindNothingAreNil() throws {
        let graph = try Self.libraryGraph()
        let root = try #require(graph["root"])
        #expect(graph["missing"] == nil)
        #expect(root["missing"] == nil)
        #expect(root["books"]?[5] == nil)
        #expect(root["books"]?[-1] == nil)
        #expect(root[0] == nil)                        // a model object has no index
        #expect(root["books"]?["title"] == nil)        // an array has no field
        #expect(root["byCode"]?["none"] == nil)
        #expect(root["name"]?[0] == nil)
        #expect(root["name"]?.int == nil)
        #expect(root["books"]?[0]?["pages"]?.string == nil)
        #expect(graph.node(UID(0)).isNull)
        #expect(graph.node(UID(1_000_000))["name"] == nil)  // a dangling reference
        #expect(graph.node(UID(1_000_000)).object == nil)
    }

    /// Fields stored as plain containers (no references) and `$null` are navigated too.
    @Test func plainContainersAndNullAreNavigated() throws {
        var b = ArchiveBuilder()
        let root = b.object("TSPlain", ["NSObject"], [
            ("grid", .array([.array([1, 2]), .array([3, 4])])),
            ("settings", .dictionary(["depth": 3, "name": "x"])),
            ("nothing", .ref(0)),
            ("flag", .bool(true)),
        ])
        let graph = try ArchivedObjectGraph(propertyList: b.archive(root: root))
        let node = try #require(graph["root"])
        #expect(node["grid"]?[1]?[0]?.int == 3)
        #expect(node["grid"]?.count == 2)
        #expect(node["settings"]?["depth"]?.int == 3)
        #expect(node["settings"]?["name"]?.string == "x")
        #expect(node["nothing"]?.isNull == true)
        #expect(node["flag"]?.bool == true)
        #expect(node["grid"]?[2] == nil)
    }
}
