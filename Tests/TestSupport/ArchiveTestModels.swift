import Foundation
@testable import KeyedArchive

// Models shared by the archiver, graph and security tests.

/// A struct with one field of every supported kind.
struct EveryField: KeyedArchivable, Equatable {
    var bool = true
    var int = -42
    var int8: Int8 = -8
    var int16: Int16 = -1600
    var int32: Int32 = -320_000
    var int64: Int64 = .min
    var uint = UInt.max
    var uint8: UInt8 = 200
    var uint16: UInt16 = 60_000
    var uint32: UInt32 = 4_000_000_000
    var uint64: UInt64 = .max
    var float: Float = 1.25
    var double = -0.1
    var string = "héllo, wörld ✓"
    var data = Data([0, 1, 2, 255])
    var date = Date(timeIntervalSinceReferenceDate: 123_456.75)
    var uuid = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
    var url = URL(string: "https://example.com/a?b=c")!
    var relativeURL = URL(string: "docs/page.html", relativeTo: URL(string: "https://example.com/base/"))!
    var optionalPresent: String? = "here"
    var optionalAbsent: Int? = nil
    var strings = ["a", "b", "a"]
    var numbers: Set<Int> = [1, 2, 3]
    var scores: [String: Double] = ["x": 1.5, "y": -2]
    var nested: [[Int]] = [[1], [], [2, 3]]
    var dollar = "escaped"

    init() {}

    init(from decoder: any ArchiveDecoder) throws {
        bool = try decoder.decode(Bool.self, forKey: "bool")
        int = try decoder.decode(Int.self, forKey: "int")
        int8 = try decoder.decode(Int8.self, forKey: "int8")
        int16 = try decoder.decode(Int16.self, forKey: "int16")
        int32 = try decoder.decode(Int32.self, forKey: "int32")
        int64 = try decoder.decode(Int64.self, forKey: "int64")
        uint = try decoder.decode(UInt.self, forKey: "uint")
        uint8 = try decoder.decode(UInt8.self, forKey: "uint8")
        uint16 = try decoder.decode(UInt16.self, forKey: "uint16")
        uint32 = try decoder.decode(UInt32.self, forKey: "uint32")
        uint64 = try decoder.decode(UInt64.self, forKey: "uint64")
        float = try decoder.decode(Float.self, forKey: "float")
        double = try decoder.decode(Double.self, forKey: "double")
        string = try decoder.decode(String.self, forKey: "string")
        data = try decoder.decode(Data.self, forKey: "data")
        date = try decoder.decode(Date.self, forKey: "date")
        uuid = try decoder.decode(UUID.self, forKey: "uuid")
        url = try decoder.decode(URL.self, forKey: "url")
        relativeURL = try decoder.decode(URL.self, forKey: "relativeURL")
        optionalPresent = try decoder.decodeIfPresent(String.self, forKey: "optionalPresent")
        optionalAbsent = try decoder.decode(Int?.self, forKey: "optionalAbsent")
        strings = try decoder.decode([String].self, forKey: "strings")
        numbers = try decoder.decode(Set<Int>.self, forKey: "numbers")
        scores = try decoder.decode([String: Double].self, forKey: "scores")
        nested = try decoder.decode([[Int]].self, forKey: "nested")
        dollar = try decoder.decode(String.self, forKey: "$dollar")
    }

    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(bool, forKey: "bool")
        try encoder.encode(int, forKey: "int")
        try encoder.encode(int8, forKey: "int8")
        try encoder.encode(int16, forKey: "int16")
        try encoder.encode(int32, forKey: "int32")
        try encoder.encode(int64, forKey: "int64")
        try encoder.encode(uint, forKey: "uint")
        try encoder.encode(uint8, forKey: "uint8")
        try encoder.encode(uint16, forKey: "uint16")
        try encoder.encode(uint32, forKey: "uint32")
        try encoder.encode(uint64, forKey: "uint64")
        try encoder.encode(float, forKey: "float")
        try encoder.encode(double, forKey: "double")
        try encoder.encode(string, forKey: "string")
        try encoder.encode(data, forKey: "data")
        try encoder.encode(date, forKey: "date")
        try encoder.encode(uuid, forKey: "uuid")
        try encoder.encode(url, forKey: "url")
        try encoder.encode(relativeURL, forKey: "relativeURL")
        try encoder.encode(optionalPresent, forKey: "optionalPresent")
        try encoder.encode(optionalAbsent, forKey: "optionalAbsent")
        try encoder.encode(strings, forKey: "strings")
        try encoder.encode(numbers, forKey: "numbers")
        try encoder.encode(scores, forKey: "scores")
        try encoder.encode(nested, forKey: "nested")
        try encoder.encode(dollar, forKey: "$dollar")
    }
}

/// A class model with nested models in collections.
final class Library: KeyedArchivable {
    var name: String
    var books: [Book]
    var byCode: [String: Book]
    var shelf: Set<Tag>
    var featured: Book?

    init(name: String, books: [Book], byCode: [String: Book], shelf: Set<Tag>, featured: Book?) {
        self.name = name
        self.books = books
        self.byCode = byCode
        self.shelf = shelf
        self.featured = featured
    }

    init(from decoder: any ArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        books = try decoder.decode([Book].self, forKey: "books")
        byCode = try decoder.decode([String: Book].self, forKey: "byCode")
        shelf = try decoder.decode(Set<Tag>.self, forKey: "shelf")
        featured = try decoder.decodeIfPresent(Book.self, forKey: "featured")
    }

    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(books, forKey: "books")
        try encoder.encode(byCode, forKey: "byCode")
        try encoder.encode(shelf, forKey: "shelf")
        try encoder.encode(featured, forKey: "featured")
    }
}

final class Book: KeyedArchivable {
    var title: String
    var pages: Int

    init(title: String, pages: Int) {
        self.title = title
        self.pages = pages
    }

    init(from decoder: any ArchiveDecoder) throws {
        title = try decoder.decode(String.self, forKey: "title")
        pages = try decoder.decode(Int.self, forKey: "pages")
    }

    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(title, forKey: "title")
        try encoder.encode(pages, forKey: "pages")
    }
}

/// A struct that is Hashable, for sets and dictionary keys.
struct Tag: KeyedArchivable, Hashable {
    var label: String
    init(_ label: String) { self.label = label }
    init(from decoder: any ArchiveDecoder) throws { label = try decoder.decode(String.self, forKey: "label") }
    func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(label, forKey: "label") }
}

/// A graph node that reads its back-references through `decodeObjectReference`.
final class Node: KeyedArchivable {
    var name: String
    var next: Node?
    weak var parent: Node?
    var children: [Node] = []

    init(_ name: String) { self.name = name }

    init(from decoder: any ArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        children = try decoder.decodeIfPresent([Node].self, forKey: "children") ?? []
        try decoder.decodeObjectReference(of: Node.self, forKey: "next") { [unowned self] in self.next = $0 }
        try decoder.decodeObjectReference(of: Node.self, forKey: "parent") { [unowned self] in self.parent = $0 }
    }

    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        if !children.isEmpty { try encoder.encode(children, forKey: "children") }
        try encoder.encode(next, forKey: "next")
        try encoder.encodeConditionalObject(parent, forKey: "parent")
    }
}

/// A node that decodes `next` directly (no opt-in): fine for chains, a cycle error for rings.
final class ListNode: KeyedArchivable {
    var value: Int
    var next: ListNode?

    init(_ value: Int, next: ListNode? = nil) {
        self.value = value
        self.next = next
    }

    init(from decoder: any ArchiveDecoder) throws {
        value = try decoder.decode(Int.self, forKey: "value")
        next = try decoder.decodeIfPresent(ListNode.self, forKey: "next")
    }

    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(value, forKey: "value")
        try encoder.encode(next, forKey: "next")
    }

    /// Frees a long list without a recursive deinit.
    static func dismantle(_ head: ListNode?) {
        var current = head
        while let node = current {
            current = node.next
            node.next = nil
        }
    }
}

/// Counts how often its initializer ran, to prove rejected objects are never instantiated.
final class Tripwire: KeyedArchivable, @unchecked Sendable {
    nonisolated(unsafe) static var initCount = 0
    var payload: String

    init(payload: String) { self.payload = payload }

    init(from decoder: any ArchiveDecoder) throws {
        Tripwire.initCount += 1
        payload = try decoder.decode(String.self, forKey: "payload")
    }

    func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(payload, forKey: "payload") }
}

/// A class hierarchy whose names are overridable in subclasses.
class Animal: KeyedArchivable {
    class var archivedClassName: String { "Zoo.Animal" }
    var name: String
    init(name: String) { self.name = name }
    required init(from decoder: any ArchiveDecoder) throws { name = try decoder.decode(String.self, forKey: "name") }
    func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(name, forKey: "name") }
}

final class Dog: Animal {
    override class var archivedClassName: String { "Zoo.Dog" }
    var barks = 3
    init(name: String, barks: Int) {
        self.barks = barks
        super.init(name: name)
    }
    required init(from decoder: any ArchiveDecoder) throws {
        barks = try decoder.decode(Int.self, forKey: "barks")
        try super.init(from: decoder)
    }
    override func encode(to encoder: any ArchiveEncoder) throws {
        try super.encode(to: encoder)
        try encoder.encode(barks, forKey: "barks")
    }
}

/// Helpers to build archives by hand.
enum ArchiveFixture {
    static func archive(top: PropertyListDictionary = ["root": .uid(UID(1))], _ objects: [PropertyListValue]) -> PropertyListValue {
        .dictionary([
            "$archiver": "NSKeyedArchiver",
            "$version": 100000,
            "$top": .dictionary(top),
            "$objects": .array(objects),
        ])
    }

    static func uid(_ n: UInt64) -> PropertyListValue { .uid(UID(n)) }

    static func classDict(_ name: String, _ chain: [String]? = nil) -> PropertyListValue {
        .dictionary(["$classname": .string(name), "$classes": .array((chain ?? [name, "NSObject"]).map { .string($0) })])
    }

    /// The `$objects` of an archive, for inspection.
    static func objects(_ archive: PropertyListValue) -> [PropertyListValue] {
        archive.dictionaryValue?["$objects"]?.arrayValue ?? []
    }
}
