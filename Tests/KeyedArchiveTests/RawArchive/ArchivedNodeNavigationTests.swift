import Foundation
import Testing
@testable import KeyedArchive

/// A model holding what app models hold: strings, numbers, an array of other models, a dictionary.
final class NavigationTestShelf: KeyedArchivable {
    static var archivedClassName: String { "TSShelf" }
    var name: String
    var books: [NavigationTestBook]
    var labels: [String: Int]
    var created: Date
    var id: UUID
    var owner: NavigationTestShelf?

    init(name: String, books: [NavigationTestBook], labels: [String: Int], created: Date, id: UUID) {
        self.name = name
        self.books = books
        self.labels = labels
        self.created = created
        self.id = id
    }

    init(from decoder: any ArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        books = try decoder.decode([NavigationTestBook].self, forKey: "books")
        labels = try decoder.decode([String: Int].self, forKey: "labels")
        created = try decoder.decode(Date.self, forKey: "created")
        id = try decoder.decode(UUID.self, forKey: "id")
        owner = try decoder.decodeIfPresent(NavigationTestShelf.self, forKey: "owner")
    }

    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(books, forKey: "books")
        try encoder.encode(labels, forKey: "labels")
        try encoder.encode(created, forKey: "created")
        try encoder.encode(id, forKey: "id")
        if let owner { try encoder.encodeObject(owner, forKey: "owner") }
    }
}

struct NavigationTestBook: KeyedArchivable {
    static var archivedClassName: String { "TSBook" }
    var title: String
    var pages: Int
    var rating: Double
    var cover: Data
    init(title: String, pages: Int, rating: Double, cover: Data) {
        self.title = title
        self.pages = pages
        self.rating = rating
        self.cover = cover
    }
    init(from decoder: any ArchiveDecoder) throws {
        title = try decoder.decode(String.self, forKey: "title")
        pages = try decoder.decode(Int.self, forKey: "pages")
        rating = try decoder.decode(Double.self, forKey: "rating")
        cover = try decoder.decode(Data.self, forKey: "cover")
    }
    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(title, forKey: "title")
        try encoder.encode(pages, forKey: "pages")
        try encoder.encode(rating, forKey: "rating")
        try encoder.encode(cover, forKey: "cover")
    }
}

@Suite struct ArchivedNodeNavigationTests {
    static let id = UUID(uuid: (9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 1, 2, 3, 4, 5, 6))

    static func shelfGraph() throws -> ArchivedObjectGraph {
        let books = (0 ..< 5).map { NavigationTestBook(title: "Book \($0)", pages: 100 + $0, rating: 3.5, cover: Data([UInt8($0)])) }
        let shelf = NavigationTestShelf(name: "Fiction", books: books, labels: ["new": 2, "old": 40],
                                        created: Date(timeIntervalSinceReferenceDate: 5000), id: id)
        shelf.owner = shelf  // a cycle: navigation follows it only as far as asked
        return try ArchivedObjectGraph(data: KeyedArchiver.archivedData(withRootObject: shelf))
    }

    @Test func fieldsElementsAndDictionaryEntriesAreReachedWithSubscripts() throws {
        let graph = try Self.shelfGraph()
        let root = try #require(graph["root"])
        #expect(root.className == "TSShelf")
        #expect(root["name"]?.string == "Fiction")
        #expect(root["books"]?.className == "NSArray")
        #expect(root["books"]?.count == 5)
        #expect(root["books"]?[3]?["title"]?.string == "Book 3")
        #expect(root["books"]?[3]?.className == "TSBook")
        #expect(root["books"]?[4]?["pages"]?.int == 104)
        #expect(root["books"]?[4]?["pages"]?.integer(as: UInt8.self) == 104)
        #expect(root["books"]?[0]?["rating"]?.double == 3.5)
        #expect(root["books"]?[2]?["cover"]?.data == Data([2]))
        #expect(root["labels"]?["old"]?.int == 40)
        #expect(root["labels"]?.count == 2)
        #expect(root["created"]?.date == Date(timeIntervalSinceReferenceDate: 5000))
        #expect(root["id"]?.uuid == Self.id)
        #expect(root["owner"]?["owner"]?["name"]?.string == "Fiction")
        #expect(root["owner"]?.uid == root.uid)
        #expect(graph.node(try #require(root.uid))["name"]?.string == "Fiction")
    }

    @Test func stepsThatFindNothingAreNil() throws {
        let graph = try Self.shelfGraph()
        let root = try #require(graph["root"])
        #expect(graph["missing"] == nil)
        #expect(root["missing"] == nil)
        #expect(root["books"]?[5] == nil)
        #expect(root["books"]?[-1] == nil)
        #expect(root[0] == nil)                        // a model object has no index
        #expect(root["books"]?["title"] == nil)        // an array has no field
        #expect(root["labels"]?["none"] == nil)
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
