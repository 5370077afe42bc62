import Foundation
import Testing
@testable import KeyedArchive

// The scalar table proves most new scalars new by its filter alone and writes their slots later, a batch at
// a time (pending entries). A scalar equal to one still pending must be found among the pending entries, one
// whose filter bit another scalar set must be probed and still be taken as new, and both must survive the
// table's growth. The ids are checked against a dictionary of encoded bytes, and the bytes of an archive and
// of a written property list against the writer's tree oracle, for scalars of every kind with bodies of
// equal length and equal bytes (only the marker differs), repeated at distances around the batch size.

@Suite struct BinaryPropertyListScalarTableTests {
    /// Eight ASCII bytes, the body of every kind of scalar below (so the encodings differ only in their
    /// marker), distinct for `n` below 1,664.
    private static func body(_ n: Int) -> UInt64 { 0x4142_4344_4546_0000 | UInt64(0x41 + n / 64 % 26) << 8 | UInt64(0x30 + n % 64) }

    /// Scalar `n` of kind `n % 4`: an 8-byte integer, a double, an 8-character ASCII string or 8 bytes of
    /// data, each encoded in 9 bytes with the same body for the same `n / 4`.
    private static func scalar(_ n: Int) -> PropertyListValue {
        let bits = body(n / 4)
        let bytes = withUnsafeBytes(of: bits.bigEndian) { [UInt8]($0) }
        switch n % 4 {
        case 0: return .integer(PropertyListInteger(Int64(bitPattern: bits)))
        case 1: return .real(Double(bitPattern: bits))
        case 2: return .string(String(decoding: bytes, as: UTF8.self))
        default: return .data(Data(bytes))
        }
    }

    /// The numbers of a sequence of scalars where each new one is followed by repeats of earlier ones at
    /// distances around the pending batch (1...40) and far back, so repeats meet both pending and written entries.
    private static func numbers(newCount: Int) -> [Int] {
        var numbers: [Int] = []
        for n in 0 ..< newCount {
            numbers.append(n)
            for distance in [1, 7, 15, 16, 17, 33, 40, 1000] where n >= distance && (n + distance) % 3 == 0 {
                numbers.append(n - distance)
            }
        }
        return numbers
    }

    private static func sequence(newCount: Int) -> [PropertyListValue] { numbers(newCount: newCount).map(scalar) }

    private static func encode(_ value: PropertyListValue, into out: inout BinaryPropertyListOutput) {
        switch value {
        case .string(let s): out.appendString(s)
        case .integer(let i): out.appendInteger(i)
        case .real(let d): out.appendReal(d)
        case .data(let d): out.appendData(d)
        default: Issue.record("not a scalar of this test: \(value)")
        }
    }

    @Test(arguments: [0, 64, 20_000])
    func idsMatchADictionaryOfEncodedBytes(expectedCount: Int) {
        var table = BinaryPropertyListScalarTable(expectedCount: expectedCount)
        var out = BinaryPropertyListOutput(capacity: 64)
        defer { out.deallocate() }
        var positions: [Int] = []
        var oracle: [[UInt8]: Int] = [:]
        var mismatches = 0
        for value in Self.sequence(newCount: 6000) {
            let start = out.count
            Self.encode(value, into: &out)
            let bytes = [UInt8](UnsafeRawBufferPointer(start: out.base + start, count: out.count - start))
            let probe = table.find(out.base, start: start, length: out.count - start, positions: positions)
            let id: Int
            if probe.existing >= 0 {
                out.count = start
                id = probe.existing
            } else {
                id = positions.count
                positions.append(start)
                let inserted = table.insert(id, at: probe)
                #expect(inserted)
            }
            let expected = oracle[bytes] ?? oracle.count
            oracle[bytes] = expected
            if id != expected { mismatches += 1 }
        }
        #expect(mismatches == 0)
        #expect(positions.count == oracle.count)
        #expect(oracle.count == 6000)
    }

    @Test func writerWritesEachDistinctScalarOnceAsTheTreeReads() throws {
        let values = Self.sequence(newCount: 3000)
        let tree = PropertyListValue.array(values)
        let bytes = BinaryPropertyListWriter().write(tree)
        #expect(try BinaryPropertyListReader().read(bytes) == tree)
        // The trailer's object count: the array and 3,000 distinct scalars, each once.
        let trailer = [UInt8](bytes.suffix(32))
        let objectCount = trailer[8 ..< 16].reduce(0) { $0 << 8 | Int($1) }
        #expect(objectCount == 3001)
    }

    /// A model whose fields are scalars of every kind with equal 9-byte encodings (``scalar(_:)``), repeated across models.
    private final class Row: KeyedArchivable {
        static var archivedClassName: String { "BinaryPropertyListScalarTableTests.Row" }
        let numbers: [Int]
        init(_ numbers: [Int]) { self.numbers = numbers }

        init(from decoder: any ArchiveDecoder) throws {
            numbers = []
        }

        func encode(to encoder: any ArchiveEncoder) throws {
            for (i, n) in numbers.enumerated() {
                let key = "f\(i)"
                let bits = BinaryPropertyListScalarTableTests.body(n / 4)
                let bytes = withUnsafeBytes(of: bits.bigEndian) { [UInt8]($0) }
                switch n % 4 {
                case 0: try encoder.encode(Int64(bitPattern: bits), forKey: key)
                case 1: try encoder.encode(Double(bitPattern: bits), forKey: key)
                case 2: try encoder.encode(String(decoding: bytes, as: UTF8.self), forKey: key)
                default: try encoder.encode(Data(bytes), forKey: key)
                }
            }
        }
    }

    @Test func archiveOfRepeatedEqualLengthScalarsMatchesTheOracle() throws {
        let numbers = Self.numbers(newCount: 4000)
        let rows = stride(from: 0, to: numbers.count, by: 9).map { Row(Array(numbers[$0 ..< min($0 + 9, numbers.count)])) }
        _ = try expectArchiveMatchesOracle(rows)
    }
}

/// The scalar table's size arithmetic at both widths of `Int` Apple's platforms have: 64 bits, and 32 on the
/// `arm64_32` Apple Watch, where `1 << 32` is 0 (a filter of no words and a mask of -1 would be read and
/// written out of bounds). The 32-bit case runs here through the width parameter.
@Suite struct BinaryPropertyListScalarTableSizingTests {
    typealias Sizing = BinaryPropertyListScalarTable.Sizing

    @Test(arguments: [32, 64])
    func everyCountIsPositiveAndFitsTheWidth(bits: Int) {
        let sizing = Sizing(intBitWidth: bits)
        let largest = Int64.max >> (64 - bits)  // Int\(bits).max
        for expected in [0, 1, 191, 192, 1 << 20, 1 << 30, Int(Int32.max)] + (bits == 64 ? [1 << 45, Int.max] : []) {
            let slots = sizing.slotCount(for: expected)
            #expect(slots >= 256 && slots & (slots - 1) == 0, "slots \(slots) for \(expected)")
            #expect(slots <= sizing.maximumSlotCount)
            #expect(Int64(slots) * 8 <= largest, "the slots' bytes fit in Int\(bits)")
            #expect(expected >= sizing.maximumSlotCount / 4 * 3 || expected < slots / 4 * 3, "room for \(expected) at \(slots)")
            let filterBits = sizing.filterBitCount(slotCount: slots)
            #expect(filterBits >= 64 && filterBits % 64 == 0 && filterBits & (filterBits - 1) == 0)
            #expect(Int64(filterBits) <= largest && Int64(filterBits) <= Int64(1) << 32)
            #expect(filterBits - 1 >= 0, "the filter mask is never -1")
        }
        #expect(Int64(sizing.idLimit) <= min(largest, Int64(UInt32.max)), "id + 1 fits both Int\(bits) and an entry's 32 bits")
        #expect(sizing.idLimit > 0)
    }

    @Test func sixtyFourBitsKeepTheTableAsItWas() {
        let sizing = Sizing(intBitWidth: 64)
        #expect(sizing.maximumSlotCount == 1 << 40)
        #expect(sizing.maximumFilterBitCount == 1 << 32)
        #expect(sizing.idLimit == Int(UInt32.max))
        #expect(sizing.slotCount(for: 0) == 256)
        #expect(sizing.slotCount(for: 20_000) == 32_768)
        #expect(sizing.filterBitCount(slotCount: 32_768) == 131_072)
    }

    @Test func thirtyTwoBitsStopWhereAWatchCanAddressTheTable() {
        let sizing = Sizing(intBitWidth: 32)
        #expect(sizing.maximumSlotCount == 1 << 27)
        #expect(sizing.slotCount(for: Int(Int32.max)) == 1 << 27)
        #expect(sizing.filterBitCount(slotCount: 1 << 27) == 1 << 29)
        #expect(sizing.idLimit == Int(Int32.max))
        // Small tables are the same at both widths.
        #expect(sizing.slotCount(for: 20_000) == Sizing(intBitWidth: 64).slotCount(for: 20_000))
    }
}

/// The UID table's growth is checked arithmetic too: a value whose slot count would not fit in `Int` is left
/// to the scalar table rather than doubling the size past `Int.max` (on a 32-bit `Int`, past 2^30).
@Suite struct BinaryPropertyListUIDTableSizingTests {
    @Test func aValueBeyondAnyTableIsNotCovered() {
        var table = BinaryPropertyListUIDTable()
        let huge = table.cover(UInt64(Int.max / 2) + 1, bound: .max)
        #expect(!huge)
        #expect(table.capacity == 0)
        let small = table.cover(5, bound: 100)
        #expect(small)
        #expect(table.capacity == 4096)
    }
}
