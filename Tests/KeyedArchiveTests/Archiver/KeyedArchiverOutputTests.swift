import Foundation
import Testing
import KeyedArchive

/// `finishEncoding()` finishes the archive as Foundation's does; the two outputs (bytes and tree) read it.
@Suite struct KeyedArchiverOutputTests {
    /// An archiver holding `["a", "b", "a"]` under "root" and 7 under "count".
    private static func filledArchiver() throws -> KeyedArchiver {
        let archiver = KeyedArchiver()
        try archiver.encode(["a", "b", "a"], forKey: "root")
        try archiver.encode(7, forKey: "count")
        return archiver
    }

    @Test func encodedDataAfterFinishEncodingIsTheWholeArchive() throws {
        let finished = try Self.filledArchiver()
        try finished.finishEncoding()
        let unfinished = try Self.filledArchiver()
        let bytes = try finished.encodedData()
        #expect(bytes == (try unfinished.encodedData()))
        let (root, count) = try KeyedUnarchiver().withTopLevelDecoder(bytes) { top in
            (try top.decode([String].self, forKey: "root"), try top.decode(Int.self, forKey: "count"))
        }
        #expect(root == ["a", "b", "a"])
        #expect(count == 7)
    }

    @Test func encodingAfterFinishEncodingThrowsInvalidValue() throws {
        let archiver = try Self.filledArchiver()
        try archiver.finishEncoding()
        let error = try #require(throws: KeyedArchiveError.self) { try archiver.encode("late", forKey: "late") }
        #expect(error.code == .invalidValue)
    }

    @Test func finishEncodingTwiceChangesNothing() throws {
        let archiver = try Self.filledArchiver()
        try archiver.finishEncoding()
        let first = try archiver.encodedData()
        try archiver.finishEncoding()
        #expect(try archiver.encodedData() == first)
    }

    /// A class instance whose only reference is the one passed to `encode`.
    private final class Temporary: KeyedArchivable {
        static var archivedClassName: String { "Temporary" }  // private: its reflected name holds an address
        let number: Int
        init(_ number: Int) { self.number = number }
        init(from decoder: any ArchiveDecoder) throws { number = try decoder.decode(Int.self, forKey: "number") }
        func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(number, forKey: "number") }
    }

    /// The archiver keeps every archived instance alive until the archive is finished: otherwise a freed
    /// instance's address, reused by the next one, would make the next one look already archived.
    @Test func instancesDroppedByTheCallerBetweenEncodesStayDistinct() throws {
        let archiver = KeyedArchiver()
        for i in 0 ..< 200 { try archiver.encode(Temporary(i), forKey: "k\(i)") }
        let numbers = try KeyedUnarchiver().withTopLevelDecoder(archiver.encodedData()) { top in
            try (0 ..< 200).map { try top.decode(Temporary.self, forKey: "k\($0)").number }
        }
        #expect(numbers == Array(0 ..< 200))
    }

    @Test func encodedPropertyListIsTheTreeOfTheEncodedBytes() throws {
        let archiver = try Self.filledArchiver()
        try archiver.finishEncoding()
        let tree = try archiver.encodedPropertyList()
        #expect(tree == (try PropertyListValue(propertyListData: archiver.encodedData())))
        #expect(try archiver.encodedPropertyList() == tree)
        #expect(tree.dictionaryValue?["$archiver"] == .string("NSKeyedArchiver"))
    }
}
