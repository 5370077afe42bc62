import Foundation
import Testing
@testable import KeyedArchive

/// The 32-byte trailer of a `bplist00` file: 6 unused bytes, the sort version, the offset size, the
/// object-reference size, then the object count, the top object and the offset table's position (8 bytes
/// each, big-endian).
private struct Trailer: Equatable, CustomStringConvertible {
    let offsetSize: Int
    let refSize: Int
    let objectCount: UInt64
    let topObject: UInt64
    let tableOffset: UInt64

    init(_ data: Data) {
        let t = [UInt8](data.suffix(32))
        func bigEndian(_ range: Range<Int>) -> UInt64 { t[range].reduce(0) { $0 << 8 | UInt64($1) } }
        offsetSize = Int(t[6])
        refSize = Int(t[7])
        objectCount = bigEndian(8 ..< 16)
        topObject = bigEndian(16 ..< 24)
        tableOffset = bigEndian(24 ..< 32)
    }

    var description: String {
        "offset size \(offsetSize), ref size \(refSize), \(objectCount) objects, table at \(tableOffset)"
    }

    /// How many UIDs of each marker (`0x80 | (width - 1)`) the file's objects hold, read through its
    /// offset table.
    static func uidMarkers(_ data: Data) -> [UInt8: Int] {
        let bytes = [UInt8](data)
        let trailer = Trailer(data)
        // Built in UInt64 and converted with a check: the file is this test's own, and small enough for any Int.
        func bigEndian(_ start: Int, _ width: Int) -> UInt64 { bytes[start ..< start + width].reduce(0) { $0 << 8 | UInt64($1) } }
        var markers: [UInt8: Int] = [:]
        guard let count = Int(exactly: trailer.objectCount), let table = Int(exactly: trailer.tableOffset) else { return [:] }
        for n in 0 ..< count {
            guard let offset = Int(exactly: bigEndian(table + n * trailer.offsetSize, trailer.offsetSize)) else { return [:] }
            if bytes[offset] >> 4 == 0x8 { markers[bytes[offset], default: 0] += 1 }
        }
        return markers
    }
}

/// The widths of offsets, object references and UIDs are CoreFoundation's (CFBinaryPList.c's `_byteCount`:
/// 1, 2, 4 or 8 bytes), checked against Foundation on Linux, whose `PropertyListSerialization` and
/// `NSKeyedArchiver` write through CFBinaryPList.c.
@Suite struct CoreFoundationSizesTests {
    /// The rule itself, at every boundary, up to files past 4 GB (by arithmetic: no such file is written).
    @Test func cfByteCountRoundsUpToOneTwoFourOrEightBytes() {
        let expected: [(UInt64, Int)] = [
            (0, 1), (1, 1), (255, 1), (256, 2), (65_535, 2), (65_536, 4), (16_777_215, 4), (16_777_216, 4),
            (UInt64(UInt32.max), 4), (UInt64(UInt32.max) + 1, 8), (1 << 40, 8), (UInt64.max, 8),
        ]
        for (value, width) in expected {
            #expect(BinaryPropertyListOutput.cfByteCount(value) == width, "\(value)")
        }
    }

    /// Arrays of `count` distinct strings (`count + 1` objects) around 256 and 65,536 objects, the second
    /// also taking the offset table past 64 KB: the same trailer as Foundation's, and the same file size.
    @Test(arguments: [254, 255, 256, 65_534, 65_535, 65_536, 70_000])
    func stringArrayHasFoundationsTrailer(count: Int) throws {
        let value: PropertyListValue = .array((0 ..< count).map { .string("s\($0)") })
        let ours = BinaryPropertyListWriter().write(value)
        let theirs = try #require(try FoundationBridge.foundationBinary(value))
        #expect(Trailer(ours) == Trailer(theirs), "ours: \(Trailer(ours)); Foundation: \(Trailer(theirs))")
        #expect(ours.count == theirs.count)
        #expect(try BinaryPropertyListReader().read(ours) == value)
    }

    /// A data object sized so that the offset table starts at each side of 255, 65,535 and 16,777,215
    /// bytes: the offset size follows the table's position, as Foundation's does.
    @Test(arguments: [255, 65_535, 16_777_215])
    func offsetSizeFollowsTheTablesPositionAsFoundations(boundary: Int) throws {
        var seen: Set<UInt64> = []
        // [data]: 8-byte header, the data (marker, length integer, bytes), the array (marker, one reference);
        // the length integer's width is the only unknown, so a few lengths around the boundary cover it.
        for length in boundary - 16 ... boundary - 8 {
            let value: PropertyListValue = [.data(Data(count: length))]
            let ours = BinaryPropertyListWriter().write(value)
            let table = Trailer(ours).tableOffset
            guard table == UInt64(boundary) || table == UInt64(boundary + 1) else { continue }
            seen.insert(table)
            let theirs = try #require(try FoundationBridge.foundationBinary(value))
            #expect(Trailer(ours) == Trailer(theirs), "ours: \(Trailer(ours)); Foundation: \(Trailer(theirs))")
            #expect(Trailer(ours).offsetSize == BinaryPropertyListOutput.cfByteCount(table))
        }
        #expect(seen == [UInt64(boundary), UInt64(boundary + 1)])
    }

    /// UIDs are 1, 2, 4 or 8 bytes: never 3 (CoreFoundation writes its 32-bit UIDs in 1, 2 or 4).
    @Test func uidWidthsAreOneTwoFourOrEightBytes() throws {
        let values: [(UInt64, UInt8)] = [
            (0, 0x80), (255, 0x80), (256, 0x81), (65_535, 0x81), (65_536, 0x83), (16_777_215, 0x83),
            (16_777_216, 0x83), (UInt64(UInt32.max), 0x83), (UInt64(UInt32.max) + 1, 0x87),
        ]
        for (value, marker) in values {
            var out = BinaryPropertyListOutput(capacity: 16)
            out.appendUID(value)
            let bytes = [UInt8](UnsafeRawBufferPointer(start: out.base, count: out.count))
            out.deallocate()
            let width = Int(marker & 0x0F) + 1
            #expect(bytes == [marker] + (0 ..< width).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * (width - 1 - $0))) },
                    "UID \(value)")
        }
    }

    /// 4-byte UIDs read back: the reader keeps those below 2^31 decoded in its per-object table (where bit
    /// 31 marks a decoded UID) and reads larger ones from their bytes.
    @Test func fourByteUIDsReadBack() throws {
        let uids: [PropertyListValue] = [65_536, 16_777_216, (1 << 31) - 1, 1 << 31, UInt64(UInt32.max), 7].map { .uid(UID($0)) }
        let value: PropertyListValue = .array(uids + uids)
        let bytes = BinaryPropertyListWriter().write(value)
        #expect(Trailer.uidMarkers(bytes) == [0x80: 1, 0x83: 5])
        #expect(try BinaryPropertyListReader().read(bytes) == value)
    }

    /// Python's plistlib, which writes the same sizes as CoreFoundation, re-encodes our files with our
    /// trailer sizes and UID widths: a keyed archive past 65,536 objects, and a plain list past 64 KB.
    @Test(.requiresPlistlib) func plistlibWritesTheSameSizes() throws {
        let archive = try KeyedArchiver.archivedData(withRootObject: (0 ..< 70_000).map { "string number \($0)" })
        let list = BinaryPropertyListWriter().write(.array((0 ..< 6_000).map { .string("item \($0)") }))
        for ours in [archive, list] {
            let theirs = try PlistlibOracle.rewrite(bytes: ours, as: .binary)
            let (o, t) = (Trailer(ours), Trailer(theirs))
            #expect(o.offsetSize == t.offsetSize && o.refSize == t.refSize, "ours: \(o); plistlib: \(t)")
            #expect(Trailer.uidMarkers(ours) == Trailer.uidMarkers(theirs))
        }
        #expect(Trailer(list).offsetSize == 4 && Trailer(list).refSize == 2)
    }

    /// A keyed archive of more than 65,536 objects has the trailer sizes and the UID widths of the archive
    /// Foundation's NSKeyedArchiver writes for the same graph.
    @Test func keyedArchiveHasFoundationsSizes() throws {
        let strings = (0 ..< 70_000).map { "string number \($0)" }
        let ours = try KeyedArchiver.archivedData(withRootObject: strings)
        let theirs = try NSKeyedArchiver.archivedData(withRootObject: NSArray(array: strings.map { NSString(string: $0) }),
                                                      requiringSecureCoding: false)
        let (o, t) = (Trailer(ours), Trailer(theirs))
        #expect(o.objectCount > 65_536 && t.objectCount > 65_536)
        #expect(o.offsetSize == t.offsetSize && o.refSize == t.refSize, "ours: \(o); Foundation: \(t)")
        #expect(o.refSize == 4 && o.offsetSize == 4)
        #expect(Trailer.uidMarkers(ours) == Trailer.uidMarkers(theirs))
        #expect(Trailer.uidMarkers(ours)[0x82] == nil)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSArray.self, NSString.self], from: ours) as? [String])
        #expect(decoded == strings)
    }
}
