import Foundation
import Testing
@testable import KeyedArchive

/// Offset-table entries wider than 8 bytes: refused by the strict reader (no writer writes them), read
/// when lenient as CoreFoundation reads them (each entry's low 8 bytes), which Foundation on Linux's
/// `PropertyListSerialization` shows by reading the same files.
@Suite struct WideOffsetTableTests {
    static var lenient: PropertyListReadingOptions {
        var options = PropertyListReadingOptions()
        options.isLenient = true
        return options
    }

    /// A Foundation-written file with a few kinds of objects, shared ones and a data value among them.
    static func foundationFile() throws -> Data {
        let shared = "shared"
        let object: [String: Any] = ["a": [1, 2.5, shared, Data([1, 2, 3])], "b": shared, "c": ["x": true, "y": "é"]]
        return try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
    }

    static func foundationReads(_ data: Data) throws -> NSObject? {
        try PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? NSObject
    }

    @Test(arguments: [(9, UInt8(0)), (16, UInt8(0)), (16, UInt8(0xFF)), (255, UInt8(0x7F))])
    func lenientReadsWideOffsetsAsFoundationDoes(width: Int, high: UInt8) throws {
        let file = try Self.foundationFile()
        let wide = BinaryPropertyListRewrite.widened(file, offsetSize: width, high: high)
        try Self.checkLenientReadsAsFoundation(file, wide, refusedAt: wide.count - 32 + 6, "offset size \(width) is not 1...8")
    }

    /// `wide`, `file` rewritten with a trailer size above 8: the strict reader refuses it as before, with
    /// `message` at the trailer's byte `refusedAt`; the lenient reader reads the value of `file`, and so does
    /// Foundation on Linux (the evidence: it keeps the low 8 bytes of each entry or reference).
    static func checkLenientReadsAsFoundation(_ file: Data, _ wide: Data, refusedAt: Int, _ message: String,
                                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        let error = try #require(throws: PropertyListError.self, sourceLocation: sourceLocation) {
            try BinaryPropertyListReader().read(wide)
        }
        #expect(error.code == .invalidTrailer, sourceLocation: sourceLocation)
        #expect(error.location.byteOffset == refusedAt, sourceLocation: sourceLocation)
        #expect(error.message.contains(message), "\(error)", sourceLocation: sourceLocation)
        let expected = try BinaryPropertyListReader().read(file)
        #expect(try BinaryPropertyListReader(options: lenient).read(wide) == expected, sourceLocation: sourceLocation)
        #expect(try PropertyListValue(propertyListData: wide, options: lenient) == expected, sourceLocation: sourceLocation)
        let theirs = try #require(try foundationReads(wide), sourceLocation: sourceLocation)
        #expect(theirs.isEqual(try foundationReads(file)), sourceLocation: sourceLocation)
    }

    /// An error in the object area names the same byte offset as in the file before widening: the rewrite
    /// keeps the object area where it was.
    @Test func errorInAnObjectNamesTheInputsOffset() throws {
        let bad = Data(BinaryPropertyListAssembly(objects: [[0xA2, 0x01, 0x07], [0x10, 0x05]]).bytes)  // reference 7 of 2 objects
        let narrowError = try #require(throws: PropertyListError.self) { try BinaryPropertyListReader(options: Self.lenient).read(bad) }
        let wideError = try #require(throws: PropertyListError.self) {
            try BinaryPropertyListReader(options: Self.lenient).read(BinaryPropertyListRewrite.widened(bad, offsetSize: 12))
        }
        #expect(wideError.code == narrowError.code)
        #expect(wideError.location == narrowError.location)
    }

    /// An entry whose low 8 bytes lie at or past the offset table is refused (CF refuses it up front),
    /// naming the entry in the input.
    @Test func entryPastTheObjectAreaNamesItsEntry() throws {
        var a = BinaryPropertyListAssembly(objects: [[0x10, 0x05], [0x10, 0x06]])
        a.offsetSize = 10
        a.offsets = [1: 12]  // the offset table's own offset
        let bytes = a.bytes
        let error = try #require(throws: PropertyListError.self) {
            try BinaryPropertyListReader(options: Self.lenient).read(Data(bytes))
        }
        #expect(error.code == .invalidReference)
        #expect(error.location.byteOffset == 8 + 4 + 10)  // the table follows the two 2-byte objects; entry 1
        #expect(error.location.objectNumber == 1)
    }

    /// Hostile trailers with wide entries throw before anything the size of the count is allocated.
    @Test func hugeCountWithWideEntriesThrows() throws {
        var overLimit = BinaryPropertyListAssembly(objects: [[0x10, 0x05]])
        overLimit.offsetSize = 255
        overLimit.count = UInt64.max
        let limitError = try #require(throws: PropertyListError.self) {
            try BinaryPropertyListReader(options: Self.lenient).read(Data(overLimit.bytes))
        }
        #expect(limitError.code == .limitExceeded)

        var pastTrailer = BinaryPropertyListAssembly(objects: [[0x10, 0x05]])
        pastTrailer.offsetSize = 255
        pastTrailer.count = 1 << 24  // the default limit: 16,777,216 entries x 255 bytes in a file of 300 bytes
        let bytes = pastTrailer.bytes
        let tableError = try #require(throws: PropertyListError.self) {
            try BinaryPropertyListReader(options: Self.lenient).read(Data(bytes))
        }
        #expect(tableError.code == .invalidTrailer)
        #expect(tableError.location.byteOffset == bytes.count - 32 + 8)
    }

    /// Without a trailer's room the file is left to the scanner, which names what is wrong.
    @Test func shortFileIsTheScannersToRefuse() throws {
        let error = try #require(throws: PropertyListError.self) {
            try BinaryPropertyListReader(options: Self.lenient).read(Data("bplist00".utf8) + Data(count: 20))
        }
        #expect(error.code == .truncated)
    }
}
