import Foundation
import Testing
@testable import KeyedArchive

/// The unarchiver reads kinds, UIDs, container headers, short integers, reals and short ASCII keys from
/// one word per property-list object and the bytes, and leaves everything else to the scanner: these
/// tests pin that both roads give the same values and the same errors.
@Suite struct ArchiveObjectWordTests {
    @Test func integersOfEveryWidthAndRealsReadBackExactly() throws {
        // 1, 2, 4 and 8-byte integers (the 8-byte ones signed), at each width's edges, and 8-byte reals.
        let integers = [0, 1, 255, 256, 65_535, 65_536, 4_294_967_295, 4_294_967_296, -1, -256, Int.min, Int.max]
        #expect(try KeyedUnarchiver().decode([Int].self, from: KeyedArchiver.archivedData(withRootObject: integers)) == integers)
        let reals = [0.0, -0.0, 1.5, -2.25e300, Double.greatestFiniteMagnitude, Double.leastNonzeroMagnitude]
        let back = try KeyedUnarchiver().decode([Double].self, from: KeyedArchiver.archivedData(withRootObject: reals))
        #expect(back.map(\.bitPattern) == reals.map(\.bitPattern))
    }

    @Test func keyThatIsNotAStringNamesTheReferenceThatHoldsIt() throws {
        // Object 12 is the Counter dictionary, keys [14 "$class", 15 "value", 15 "value"]; its second key
        // reference becomes 17 (the integer 1). The $class lookup scans the keys from the last one.
        var bytes = [UInt8](OnDemandUnarchiverTests.binaryArchiveWithRepeatedKey())
        let objectOffset = try Self.offset(of: 12, in: bytes)
        try #require(bytes[objectOffset] == 0xD3 && bytes[objectOffset + 2] == 15)
        bytes[objectOffset + 2] = 17
        let error = try #require(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver().decode(Counter.self, from: Data(bytes))
        }
        #expect(error.code == .invalidPropertyList)
        let underlying = try #require(error.underlying)
        #expect(underlying.code == .invalidKey)
        #expect(underlying.message == "bplist: dictionary key is a integer, not a string")
        #expect(underlying.location.byteOffset == objectOffset + 2)
        #expect(underlying.location.objectNumber == 12)
    }

    @Test func dictionaryWhoseReferencesRunPastTheObjectAreaIsReportedByTheScanner() throws {
        // The last object ("NSObject", an element of $classes, 8 bytes before the offset table) becomes a
        // dictionary of 14 entries: its 28 references would run into the offset table.
        var bytes = [UInt8](OnDemandUnarchiverTests.binaryArchiveWithRepeatedKey())
        let objectOffset = try Self.offset(of: 23, in: bytes)
        try #require(bytes[objectOffset] == 0x58)
        bytes[objectOffset] = 0xDE
        let error = try #require(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver().decode(Counter.self, from: Data(bytes))
        }
        #expect(error.code == .invalidPropertyList)
        let underlying = try #require(error.underlying)
        #expect(underlying.code == .limitExceeded)
        #expect(underlying.message.contains("dictionary reference count 28"))
        #expect(underlying.location.objectNumber == 23)
    }

    @Test func uidCutOffByTheOffsetTableIsReportedWhereItIs() throws {
        // The last object ("NSObject", 9 bytes before the offset table) becomes a 4-byte UID whose value
        // starts 2 bytes before the table: the word keeps its offset and the scanner reports the cut.
        var bytes = [UInt8](OnDemandUnarchiverTests.binaryArchiveWithRepeatedKey())
        let objectOffset = try Self.offset(of: 23, in: bytes)
        let tableOffset = Int(bytes[bytes.count - 1])
        bytes.replaceSubrange(objectOffset ..< tableOffset, with: [UInt8](repeating: 0, count: tableOffset - objectOffset - 3) + [0x83, 0, 0])
        let uidOffset = tableOffset - 3
        bytes[tableOffset + 23] = UInt8(uidOffset)
        let error = try #require(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver().decode(Counter.self, from: Data(bytes))
        }
        #expect(error.code == .invalidPropertyList)
        let underlying = try #require(error.underlying)
        #expect(underlying.code == .truncated)
        #expect(underlying.location.objectNumber == 23)
    }

    /// The offset of object `n` in an archive with one-byte offsets (the last trailer byte is the
    /// offset table's position).
    static func offset(of n: Int, in bytes: [UInt8]) throws -> Int {
        let tableOffset = Int(try #require(bytes.last))
        return Int(bytes[tableOffset + n])
    }
}
