import Foundation
import Testing
@testable import KeyedArchive

// The encoding core shared by BinaryPropertyListWriter and KeyedArchiver: the scalar table that makes
// "each distinct scalar is written once" exact, and the output buffer with its large-memory path.

@Suite struct BinaryPropertyListCoreTests {
    /// Encodes `values` one after another into a buffer and records each in `table` the way the writer
    /// does; returns each value's id.
    private func intern(_ values: [PropertyListValue], in table: inout BinaryPropertyListScalarTable) -> [Int] {
        var out = BinaryPropertyListOutput(capacity: 64)
        defer { out.deallocate() }
        var positions: [Int] = []
        var ids: [Int] = []
        for value in values {
            let start = out.count
            switch value {
            case .string(let s): out.appendString(s)
            case .integer(let i): out.appendInteger(i)
            case .real(let d): out.appendReal(d)
            case .float(let f): out.appendFloat(f)
            case .bool(let b): out.appendBool(b)
            case .data(let d): out.appendData(d)
            case .uid(let u): out.appendUID(u.value)
            default: Issue.record("not a scalar: \(value)")
            }
            let probe = table.find(out.base, start: start, length: out.count - start, positions: positions)
            if probe.existing >= 0 {
                out.count = start
                ids.append(probe.existing)
            } else {
                positions.append(start)
                let inserted = table.insert(positions.count - 1, at: probe)
                #expect(inserted)
                ids.append(positions.count - 1)
            }
        }
        return ids
    }

    @Test func equalEncodingsShareAnIdAndEverythingElseIsDistinct() {
        var table = BinaryPropertyListScalarTable()
        let values: [PropertyListValue] = [
            "a", "a", "ab", .data(Data("a".utf8)), 1, .integer(PropertyListInteger(UInt64(1))), 1.0, .float(1), true,
            .uid(UID(1)), "caf\u{E9}", "cafe\u{301}", "caf\u{E9}", .real(-0.0), .real(0.0), .real(-0.0),
            .string(String(repeating: "x", count: 300)), .string(String(repeating: "x", count: 300)),
            .string(String(repeating: "x", count: 299) + "y"),
        ]
        let ids = intern(values, in: &table)
        #expect(ids[1] == ids[0])              // "a" twice
        #expect(ids[5] == ids[4])              // 1 as Int64 and as UInt64 encode alike
        #expect(ids[12] == ids[10])            // the same precomposed string
        #expect(ids[11] != ids[10])            // canonically equal, different scalars
        #expect(ids[15] == ids[13])            // -0.0 twice
        #expect(ids[14] != ids[13])            // 0.0 and -0.0 differ by bit pattern
        #expect(ids[17] == ids[16])            // long strings hashed by their ends, compared in full
        #expect(ids[18] != ids[16])
        // "a", "ab", data "a", 1, 1.0, float 1, true, UID 1: all distinct.
        #expect(Set([ids[0], ids[2], ids[3], ids[4], ids[6], ids[7], ids[8], ids[9]]).count == 8)
    }

    @Test func growingKeepsEveryIdFindable() {
        var table = BinaryPropertyListScalarTable(expectedCount: 0)
        let values = (0 ..< 5000).map { PropertyListValue.integer(PropertyListInteger(Int64($0 * 7919))) }
        // 5,000 new values (the table grows several times), then each again: found under its first id.
        let ids = intern(values + values, in: &table)
        #expect(ids == Array(0 ..< 5000) + Array(0 ..< 5000))
    }

    @Test func idsTooLargeForAnEntryAreNotRecorded() {
        var table = BinaryPropertyListScalarTable()
        var out = BinaryPropertyListOutput(capacity: 64)
        defer { out.deallocate() }
        out.appendInteger(Int64(5))
        let probe = table.find(out.base, start: 0, length: out.count, positions: [])
        #expect(probe.existing == -1)
        let inserted = table.insert(Int(clamping: UInt32.max), at: probe)
        #expect(!inserted)
        #expect(table.find(out.base, start: 0, length: out.count, positions: [0]).existing == -1)
    }

    @Test func largeMemoryBlocksAreUsableAndReleased() {
        for size in [1, 4096, 5 << 20] {
            let block = LargeMemory.allocate(byteCount: size)
            block.storeBytes(of: 0xAB, toByteOffset: size - 1, as: UInt8.self)
            #expect(block.load(fromByteOffset: size - 1, as: UInt8.self) == 0xAB)
            LargeMemory.deallocate(block)
        }
        let words = LargeWordBuffer(zeroedCount: 1 << 20)  // 8 MB: the huge-page path on Linux
        #expect(words.base[0] == 0 && words.base[(1 << 20) - 1] == 0)
    }

    @Test func archiveLargerThan16MBUsesFourByteOffsetsAndReadsBack() throws {
        // A 17 MB blob puts the offset table past 2^24: 4-byte offsets, and buffers on the large-memory path.
        var blob = Data(repeating: 7, count: 17 << 20)
        blob[12_345] = 1
        blob[blob.count - 1] = 2
        let value: PropertyListValue = ["blob": .data(blob), "after": "end", "n": 3]
        let bytes = BinaryPropertyListWriter().write(value)
        let trailer = [UInt8](bytes.suffix(32))
        #expect(trailer[6] == 4)  // offset size
        #expect(try BinaryPropertyListReader().read(bytes) == value)
        let foundation = try PropertyListSerialization.propertyList(from: bytes, format: nil) as? [String: Any]
        #expect((foundation?["blob"] as? Data) == blob)

        let archived = try KeyedArchiver.archivedData(withRootObject: [blob, Data([1, 2])])
        #expect([UInt8](archived.suffix(32))[6] == 4)
        #expect(try KeyedUnarchiver().decode([Data].self, from: archived) == [blob, Data([1, 2])])
        let reference = TreeReferenceArchiver()
        try reference.encode([blob, Data([1, 2])], forKey: "root")
        #expect(archived == BinaryPropertyListWriter().write(try reference.finishEncoding()))
    }

    @Test func sequentialBlocksGrowKeepingTheirBytes() {
        var block = LargeMemory.allocateSequential(byteCount: 5 << 20)
        for offset in stride(from: 0, to: 5 << 20, by: 4096) { block.storeBytes(of: UInt8(truncatingIfNeeded: offset >> 12), toByteOffset: offset, as: UInt8.self) }
        block = LargeMemory.reallocateSequential(block, byteCount: 13 << 20, keeping: 5 << 20)
        block.storeBytes(of: 0xEE, toByteOffset: (13 << 20) - 1, as: UInt8.self)
        #expect(stride(from: 0, to: 5 << 20, by: 4096).allSatisfy { block.load(fromByteOffset: $0, as: UInt8.self) == UInt8(truncatingIfNeeded: $0 >> 12) })
        #expect(block.load(fromByteOffset: (13 << 20) - 1, as: UInt8.self) == 0xEE)
        LargeMemory.deallocate(block)
    }

    @Test func sequentialBlocksAreUsableAndReleased() {
        for size in [1, 4096, 5 << 20, (5 << 20) + 12_345] {
            let block = LargeMemory.allocateSequential(byteCount: size)
            block.storeBytes(of: 0xAB, toByteOffset: 0, as: UInt8.self)
            block.storeBytes(of: 0xCD, toByteOffset: size - 1, as: UInt8.self)
            #expect(block.load(fromByteOffset: 0, as: UInt8.self) == (size == 1 ? 0xCD : 0xAB))
            #expect(block.load(fromByteOffset: size - 1, as: UInt8.self) == 0xCD)
            LargeMemory.deallocate(block)
        }
    }
}

