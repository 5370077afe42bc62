#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Scalar objects encoded one after another into a buffer, each distinct one kept once.
///
/// A scalar is encoded straight into ``output``; ``BinaryPropertyListScalarTable`` then says whether the
/// same bytes were kept before (the new copy is dropped and the earlier id returned) or the scalar gets the
/// next id. `positions[id]` is where scalar `id` starts. ``BinaryPropertyListBuilder`` keeps a file's
/// objects in one (an object's number is its id; containers reserve an id without bytes), and
/// ``KeyedArchiveEmitter`` keeps an archive's scalars in one while it encodes, before the layout.
struct BinaryPropertyListScalarPool {
    /// The encoded scalars (after `prefix`).
    private(set) var output: BinaryPropertyListOutput
    /// Where each id's bytes start in ``output``; -1 for an id reserved without bytes.
    private(set) var positions: [Int] = []
    private var table: BinaryPropertyListScalarTable

    /// A pool whose buffer starts with `prefix`, with room for `capacity` bytes and about
    /// `expectedCount` distinct scalars before its table grows.
    init(capacity: Int, expectedCount: Int, prefix: StaticString? = nil) {
        output = BinaryPropertyListOutput(capacity: capacity)
        table = BinaryPropertyListScalarTable(expectedCount: expectedCount)
        if let prefix { output.append(contentsOf: prefix) }
    }

    /// The number of ids given so far.
    var count: Int { positions.count }

    /// Reserves room for `count` ids in ``positions``.
    mutating func reserveCapacity(_ count: Int) { positions.reserveCapacity(count) }

    /// The id of the scalar `encode` writes: an earlier identical scalar's id, or a new one.
    @inline(__always)
    mutating func add(_ encode: (inout BinaryPropertyListOutput) -> Void) -> Int {
        let start = output.count
        encode(&output)
        let probe = table.find(output.base, start: start, length: output.count - start, positions: positions)
        if probe.existing >= 0 {
            output.count = start
            return probe.existing
        }
        let id = positions.count
        positions.append(start)
        table.insert(id, at: probe)
        return id
    }

    /// A new id for a scalar the caller knows to be distinct from every other (not looked up, not recorded).
    @inline(__always)
    mutating func addUnique(_ encode: (inout BinaryPropertyListOutput) -> Void) -> Int {
        positions.append(output.count)
        encode(&output)
        return positions.count - 1
    }

    /// A new id without bytes (its position is -1 until ``setPosition(of:)``).
    @inline(__always)
    mutating func reserveID() -> Int {
        positions.append(-1)
        return positions.count - 1
    }

    /// Records that the bytes of reserved `id` start at the end of ``output``.
    @inline(__always)
    mutating func setPosition(of id: Int) {
        positions[id] = output.count
    }

    /// Frees the de-duplication table: no scalar is added with ``add(_:)`` afterwards.
    mutating func releaseTable() {
        table = BinaryPropertyListScalarTable(expectedCount: 0)
    }

    /// The buffer as `Data`, which takes over its memory; the pool must not be used afterwards.
    mutating func takeData() -> Data {
        positions = []
        return output.takeData()
    }

    /// Frees the buffer of a pool that is not handed over with ``takeData()``.
    mutating func deallocate() {
        output.deallocate()
        positions = []
    }

    /// Appends the end of the buffer to ``positions``, so that scalar `id` is
    /// `output.base[positions[id] ..< positions[id + 1]]` (for a pool of scalars only: no reserved ids),
    /// until ``removeEndPosition()``. No scalar is added in between.
    mutating func appendEndPosition() {
        positions.append(output.count)
    }

    /// Undoes ``appendEndPosition()``.
    mutating func removeEndPosition() {
        positions.removeLast()
    }

    /// Runs `body` on the buffer and the positions (to append what follows the objects).
    @inline(__always)
    mutating func withOutput<R>(_ body: (inout BinaryPropertyListOutput, _ positions: inout [Int]) -> R) -> R {
        body(&output, &positions)
    }

    /// Decodes scalar `id` (written by ``BinaryPropertyListOutput``, so well-formed).
    func value(of id: Int) -> PropertyListValue {
        let p = UnsafeRawPointer(output.base) + positions[id]
        let byte = p.load(as: UInt8.self)
        let nibble = BinaryPropertyListMarker.nibble(byte)
        func bigEndian(_ offset: Int, _ width: Int) -> UInt64 {
            var v: UInt64 = 0
            for i in 0 ..< width { v = v << 8 | UInt64(p.load(fromByteOffset: offset + i, as: UInt8.self)) }
            return v
        }
        switch BinaryPropertyListMarker(byte: byte) {
        case .singleton?: return .bool(byte == BinaryPropertyListMarker.trueByte)
        case .integer? where nibble <= 2: return .integer(PropertyListInteger(bigEndian(1, 1 << Int(nibble))))
        case .integer? where nibble == 3: return .integer(PropertyListInteger(Int64(bitPattern: bigEndian(1, 8))))
        case .integer?: return .integer(PropertyListInteger(bigEndian(9, 8)))
        case .real? where nibble == 2: return .float(Float(bitPattern: UInt32(bigEndian(1, 4))))
        case .real?: return .real(Double(bitPattern: bigEndian(1, 8)))
        case .date?: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: bigEndian(1, 8))))
        case .uid?: return .uid(UID(bigEndian(1, Int(nibble) + 1)))
        default: break
        }
        var count = Int(nibble)
        var header = 1
        if nibble == BinaryPropertyListMarker.extendedCount {
            let width = 1 << Int(BinaryPropertyListMarker.nibble(p.load(fromByteOffset: 1, as: UInt8.self)))
            count = Int(bigEndian(2, width))
            header = 2 + width
        }
        let kind = BinaryPropertyListMarker(byte: byte)
        let body = UnsafeRawBufferPointer(start: p + header, count: kind == .utf16String ? 2 * count : count)
        switch kind {
        case .data?: return .data(Data(body))
        case .asciiString?: return .string(String(decoding: body, as: UTF8.self))
        default:
            let units = (0 ..< count).map { UInt16(bigEndian(header + 2 * $0, 2)) }
            return .string(String(decoding: units, as: UTF16.self))
        }
    }
}
