#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// De-duplicates scalar objects by their encoded bytes: the writer's and the archiver's shared "written once".
///
/// Each scalar is encoded into a buffer first; the table then says whether identical bytes were recorded
/// before (the caller drops the new copy and reuses the earlier id) or records them under a new id. Encodings
/// are prefix-free (the marker and length fix the size), so identical bytes mean the same value in the
/// writer's sense: reals by bit pattern, strings by their exact Unicode scalars.
///
/// The table is open-addressed, its size a power of two, at most half full. An entry packs the top 24 bits
/// of the hash above the id + 1 (40 bits); 0 marks an empty slot. Eight bytes an entry keep the table small,
/// which matters: probing it is the main cost of de-duplication. `positions[id]` is where scalar `id`
/// starts in the buffer; negative positions (containers) are skipped.
struct BinaryPropertyListScalarTable {
    private var entries: [UInt64]
    private var count = 0
    /// Whether UIDs (`0x8n`) are in the table. The archiver keeps them out (it finds them by value).
    private let includesUIDs: Bool

    /// A table sized for about `expectedCount` scalars before it first grows.
    init(expectedCount: Int = 128, includesUIDs: Bool = true) {
        var size = 256
        while size < 2 * expectedCount && size < 1 << 40 { size <<= 1 }
        entries = [UInt64](repeating: 0, count: size)
        self.includesUIDs = includesUIDs
    }

    /// The outcome of ``find(_:start:length:positions:)``.
    struct Probe {
        /// The id of the identical scalar already recorded, or -1.
        var existing: Int
        var slot: Int
        var tag: UInt64
    }

    /// Looks for a recorded scalar whose bytes equal `base[start ..< start + length]` (every recorded
    /// scalar starts before `start`, so the comparison stays in bounds).
    @inline(__always)
    func find(_ base: UnsafeRawPointer, start: Int, length: Int, positions: [Int]) -> Probe {
        let hash = Self.hashEncoded(base + start, length)
        let tag = hash & ~Self.idMask
        let mask = entries.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        return entries.withUnsafeBufferPointer { table in
            while true {
                let entry = table[slot]
                if entry == 0 { break }
                if entry & ~Self.idMask == tag {
                    let candidate = Int(truncatingIfNeeded: entry & Self.idMask) - 1
                    if memcmp(base + positions[candidate], base + start, length) == 0 {
                        return Probe(existing: candidate, slot: slot, tag: tag)
                    }
                }
                slot = (slot + 1) & mask
            }
            return Probe(existing: -1, slot: slot, tag: tag)
        }
    }

    /// Records `id` in the empty slot `probe` found. Call ``growIfNeeded(_:positions:)`` once
    /// `positions[id]` is set.
    @inline(__always)
    mutating func insert(_ id: Int, at probe: Probe) {
        entries[probe.slot] = probe.tag | UInt64(id + 1)
        count += 1
    }

    /// Doubles the table when it is half full.
    @inline(__always)
    mutating func growIfNeeded(_ base: UnsafeRawPointer, positions: [Int]) {
        if count * 2 >= entries.count { grow(base, positions: positions) }
    }

    /// Re-inserts every recorded scalar by its full hash (entries keep only 24 bits of it). The scalars are
    /// visited in id order, so the buffer is read front to back rather than at random.
    @inline(never)
    private mutating func grow(_ base: UnsafeRawPointer, positions: [Int]) {
        var bigger = [UInt64](repeating: 0, count: entries.count * 2)
        let mask = bigger.count - 1
        var inserted = 0
        bigger.withUnsafeMutableBufferPointer { table in
            for (id, start) in positions.enumerated() where start >= 0 {
                let p = base + start
                if !includesUIDs && p.load(as: UInt8.self) >> 4 == 0x8 { continue }
                let hash = Self.hashEncoded(p, BinaryPropertyListOutput.encodedLength(p))
                var i = Int(truncatingIfNeeded: hash) & mask
                while table[i] != 0 { i = (i + 1) & mask }
                table[i] = (hash & ~Self.idMask) | UInt64(id + 1)
                inserted += 1
            }
        }
        entries = bigger
        count = inserted
    }

    /// The low 40 bits of an entry: id + 1.
    static let idMask: UInt64 = (1 << 40) - 1

    // MARK: - Hashing

    /// A per-process random seed, so a crafted set of values cannot be made to collide.
    static let seed = UInt64.random(in: 1 ... .max)

    /// SplitMix64's finalizer: a fast 64-bit mix.
    @inline(__always)
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A hash of an encoded object. Objects up to 128 bytes are hashed whole; longer ones by length and
    /// their first and last 64 bytes, so a large blob is not read again (equality is checked in full).
    @inline(__always)
    static func hashEncoded(_ p: UnsafeRawPointer, _ length: Int) -> UInt64 {
        if length <= 128 { return hashBytes(p, length) }
        return mix(hashBytes(p, 64) ^ mix(hashBytes(p + (length - 64), 64) ^ UInt64(length)))
    }

    static func hashBytes(_ p: UnsafeRawPointer, _ count: Int) -> UInt64 {
        var h = mix(seed ^ UInt64(count) &* 0x9E37_79B9_7F4A_7C15)
        var i = 0
        while i + 8 <= count {
            h = mix(h ^ p.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            i += 8
        }
        if i < count {
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while i < count {
                tail |= UInt64(p.load(fromByteOffset: i, as: UInt8.self)) << shift
                shift += 8
                i += 1
            }
            h = mix(h ^ tail ^ 0xFF)
        }
        return h
    }
}
