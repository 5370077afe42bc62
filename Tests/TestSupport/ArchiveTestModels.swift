import Foundation
import KeyedArchive

// Models shared by the archiver, graph and security tests, and by the unarchiver fuzz target: Scripts/fuzz.sh
// compiles this file into Fuzz/Unarchiver.swift's module, so the archives the test suite writes as seeds
// decode there in full. The archived class names are fixed ("KeyedArchiveTests.Book", as when these models
// lived in the KeyedArchiveTests module), so they do not depend on the module that compiles this file.

/// A struct with one field of every supported kind.
public struct EveryField: KeyedArchivable, Equatable {
    public static var archivedClassName: String { "KeyedArchiveTests.EveryField" }
    public var bool = true
    public var int = -42
    public var int8: Int8 = -8
    public var int16: Int16 = -1600
    public var int32: Int32 = -320_000
    public var int64: Int64 = .min
    public var uint = UInt.max
    public var uint8: UInt8 = 200
    public var uint16: UInt16 = 60_000
    public var uint32: UInt32 = 4_000_000_000
    public var uint64: UInt64 = .max
    public var float: Float = 1.25
    public var double = -0.1
    public var string = "héllo, wörld ✓"
    public var data = Data([0, 1, 2, 255])
    public var date = Date(timeIntervalSinceReferenceDate: 123_456.75)
    public var uuid = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
    public var url = URL(string: "https://example.com/a?b=c")!
    public var relativeURL = URL(string: "docs/page.html", relativeTo: URL(string: "https://example.com/base/"))!
    public var optionalPresent: String? = "here"
    public var optionalAbsent: Int? = nil
    public var strings = ["a", "b", "a"]
    public var numbers: Set<Int> = [1, 2, 3]
    public var scores: [String: Double] = ["x": 1.5, "y": -2]
    public var nested: [[Int]] = [[1], [], [2, 3]]
    public var dollar = "escaped"

    public init() {}

    public init(from decoder: any ArchiveDecoder) throws {
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

    public func encode(to encoder: any ArchiveEncoder) throws {
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
public final class Library: KeyedArchivable {
    public static var archivedClassName: String { "KeyedArchiveTests.Library" }
    public var name: String
    public var books: [Book]
    public var byCode: [String: Book]
    public var shelf: Set<Tag>
    public var featured: Book?

    public init(name: String, books: [Book], byCode: [String: Book], shelf: Set<Tag>, featured: Book?) {
        self.name = name
        self.books = books
        self.byCode = byCode
        self.shelf = shelf
        self.featured = featured
    }

    public init(from decoder: any ArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        books = try decoder.decode([Book].self, forKey: "books")
        byCode = try decoder.decode([String: Book].self, forKey: "byCode")
        shelf = try decoder.decode(Set<Tag>.self, forKey: "shelf")
        featured = try decoder.decodeIfPresent(Book.self, forKey: "featured")
    }

    public func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(books, forKey: "books")
        try encoder.encode(byCode, forKey: "byCode")
        try encoder.encode(shelf, forKey: "shelf")
        try encoder.encode(featured, forKey: "featured")
    }
}

public final class Book: KeyedArchivable {
    public static var archivedClassName: String { "KeyedArchiveTests.Book" }
    public var title: String
    public var pages: Int

    public init(title: String, pages: Int) {
        self.title = title
        self.pages = pages
    }

    public init(from decoder: any ArchiveDecoder) throws {
        title = try decoder.decode(String.self, forKey: "title")
        pages = try decoder.decode(Int.self, forKey: "pages")
    }

    public func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(title, forKey: "title")
        try encoder.encode(pages, forKey: "pages")
    }
}

/// A struct that is Hashable, for sets and dictionary keys.
public struct Tag: KeyedArchivable, Hashable {
    public static var archivedClassName: String { "KeyedArchiveTests.Tag" }
    public var label: String
    public init(_ label: String) { self.label = label }
    public init(from decoder: any ArchiveDecoder) throws { label = try decoder.decode(String.self, forKey: "label") }
    public func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(label, forKey: "label") }
}

/// A graph node that reads its back-references through `decodeObjectReference`.
public final class Node: KeyedArchivable {
    public static var archivedClassName: String { "KeyedArchiveTests.Node" }
    public var name: String
    public var next: Node?
    public weak var parent: Node?
    public var children: [Node] = []

    public init(_ name: String) { self.name = name }

    public init(from decoder: any ArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        children = try decoder.decodeIfPresent([Node].self, forKey: "children") ?? []
        try decoder.decodeObjectReference(of: Node.self, forKey: "next") { [unowned self] in self.next = $0 }
        try decoder.decodeObjectReference(of: Node.self, forKey: "parent") { [unowned self] in self.parent = $0 }
    }

    public func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        if !children.isEmpty { try encoder.encode(children, forKey: "children") }
        try encoder.encode(next, forKey: "next")
        try encoder.encodeConditionalObject(parent, forKey: "parent")
    }
}

/// A node that decodes `next` directly (no opt-in): fine for chains, a cycle error for rings.
public final class ListNode: KeyedArchivable {
    public static var archivedClassName: String { "KeyedArchiveTests.ListNode" }
    public var value: Int
    public var next: ListNode?

    public init(_ value: Int, next: ListNode? = nil) {
        self.value = value
        self.next = next
    }

    public init(from decoder: any ArchiveDecoder) throws {
        value = try decoder.decode(Int.self, forKey: "value")
        next = try decoder.decodeIfPresent(ListNode.self, forKey: "next")
    }

    public func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(value, forKey: "value")
        try encoder.encode(next, forKey: "next")
    }

    /// Frees a long list without a recursive deinit.
    public static func dismantle(_ head: ListNode?) {
        var current = head
        while let node = current {
            current = node.next
            node.next = nil
        }
    }
}

// MARK: - A Codable model

// The unarchiver fuzz target's Codable model, whose seed Tests/KeyedArchiveTests/Fuzz/FuzzRegressionSeedCorpus.swift
// writes (the seed test rewrites the module prefix of the nested Codable struct's name to the fuzz module's).

public enum FuzzCodableKind: String, Codable, Hashable { case plain, fancy }

public struct FuzzCodablePoint: Codable, Hashable {
    public var x: Int
    public var y: Double
    public init(x: Int, y: Double) { self.x = x; self.y = y }
}

public final class FuzzCodableItem: ArchivableCodable, Equatable {
    public static var archivedClassName: String { "KeyedArchiveTests.FuzzCodableItem" }
    public static func == (a: FuzzCodableItem, b: FuzzCodableItem) -> Bool { a.label == b.label && a.weight == b.weight }
    public var label: String
    public var weight: Int
    public init(label: String, weight: Int) { self.label = label; self.weight = weight }
}

public struct FuzzCodableModel: ArchivableCodable, Equatable {
    public static var archivedClassName: String { "KeyedArchiveTests.FuzzCodableModel" }
    public var name: String
    public var count: Int
    public var ratio: Double
    public var tags: [String]
    public var point: FuzzCodablePoint?
    public var kind: FuzzCodableKind
    public var items: [FuzzCodableItem]

    public init(name: String, count: Int, ratio: Double, tags: [String], point: FuzzCodablePoint?,
                kind: FuzzCodableKind, items: [FuzzCodableItem]) {
        self.name = name
        self.count = count
        self.ratio = ratio
        self.tags = tags
        self.point = point
        self.kind = kind
        self.items = items
    }
}
