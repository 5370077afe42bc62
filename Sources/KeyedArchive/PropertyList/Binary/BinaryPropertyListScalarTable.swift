/// De-duplicates scalar objects by their encoded bytes: the writer's and the archiver's shared "written once".
///
/// Each scalar is encoded into a buffer first; the table then says whether identical bytes were recorded
/// before (the caller drops the new copy and reuses the earlier id) or records them under a new id. Encodings
/// are prefix-free (the marker and length fix the size), so identical bytes mean the same value in the
/// writer's sense: reals by bit pattern, strings by their exact Unicode scalars.
///
/// The table is open-addressed (linear probing), its size a power of two, at most three quarters full. An
/// entry packs 32 bits of the hash above the id + 1 (32 bits); 0 marks an empty slot. The slot is taken from those same 32 bits, so
/// growing the table re-inserts entries without reading or hashing any scalar again, and eight bytes an
/// entry keep the table small (probing it is the main cost of de-duplication). `positions[id]` is where
/// scalar `id` starts in the buffer. Ids from ``Sizing/idLimit`` on (2^32 - 1 with a 64-bit `Int`) are not
/// recorded (``insert(_:at:)`` returns false), nor any once the table is full at its largest size: such
/// scalars are simply not shared, which no real input reaches.
///
/// A big table misses the cache on nearly every probe, and most scalars of an archive are new (names,
/// dates, numbers of each object). A bit filter, 16 times smaller than the slots, proves most of them new
/// without a probe; their entries wait among a few pending entries (searched by the scalars the filter
/// does not clear) while their slots are prefetched, and are written a batch at a time.
struct BinaryPropertyListScalarTable {
    /// The slots, in ``LargeMemory`` (huge pages for a big table).
    private var entries: LargeWordBuffer
    /// Entries recorded, in the slots or in ``pendingEntries``.
    private var count = 0
    /// One bit per value of the low bits of an entry's slot hash, ``Sizing/filterBitsPerSlot`` bits per slot: a clear
    /// bit proves that no recorded scalar has that hash, so a new scalar is known new without probing the
    /// slots. At 8 MB and more of slots the slots miss the cache on nearly every probe; the filter is 16 times
    /// smaller and mostly stays cached.
    private var filter: LargeWordBuffer
    /// `filter`'s bit count - 1.
    private var filterMask: Int
    /// Ids below this are recorded: ``Sizing/idLimit``, or 0 once the table is full at its largest size
    /// (later scalars are then simply not shared).
    private var idLimit = Sizing.current.idLimit
    /// New entries whose slots are not yet written (their scalars were proved new by the filter alone). Their
    /// slots were prefetched when they arrived and are written ``pendingCapacity`` at a time, so the cache
    /// misses of writing them overlap instead of each stalling the encoding of the next scalar.
    private var pendingEntries: LargeWordBuffer
    private var pendingCount = 0
    private static let pendingCapacity = 16

    /// A table sized for about `expectedCount` scalars before it first grows.
    init(expectedCount: Int = 128) {
        let size = Self.size(for: expectedCount)
        entries = LargeWordBuffer(zeroedCount: size)
        (filter, filterMask) = Self.emptyFilter(slotCount: size)
        pendingEntries = LargeWordBuffer(zeroedCount: Self.pendingCapacity)
    }

    private static func size(for expectedCount: Int) -> Int {
        Sizing.current.slotCount(for: expectedCount)
    }

    /// A cleared filter for `slotCount` slots, and its mask (the bit index comes from the 32 hash bits an entry keeps).
    private static func emptyFilter(slotCount: Int) -> (LargeWordBuffer, Int) {
        let bitCount = Sizing.current.filterBitCount(slotCount: slotCount)
        return (LargeWordBuffer(zeroedCount: bitCount / 64), bitCount - 1)
    }

    /// The table's size arithmetic for an `Int` of `intBitWidth` bits: `Int.bitWidth` in use (64, or 32 on
    /// the `arm64_32` Apple Watch); tests run it with 32 on a 64-bit machine too. Every count it gives,
    /// and the slots' size in bytes, is below 2^(intBitWidth - 1): no shift by the width or more (which
    /// gives 0) and no product that overflows `Int`.
    struct Sizing {
        let intBitWidth: Int

        /// The sizing for this machine's `Int`.
        static let current = Sizing(intBitWidth: Int.bitWidth)
        /// Filter bits per slot.
        static let filterBitsPerSlot = 4

        /// The most slots: 2^40 with a 64-bit `Int`; 2^27 (1 GiB of 8-byte slots) with a 32-bit one.
        var maximumSlotCount: Int { 1 << min(40, intBitWidth - 5) }
        /// The most filter bits: 2^32 (the hash bits an entry keeps) with a 64-bit `Int`, 2^30 with a 32-bit one.
        var maximumFilterBitCount: Int { 1 << min(32, intBitWidth - 2) }
        /// The largest id recorded, plus 1: ids are stored + 1 in an entry's low 32 bits, and `id + 1` must
        /// not overflow `Int`.
        var idLimit: Int { Int(truncatingIfNeeded: (UInt64(1) << UInt64(min(32, intBitWidth - 1))) - 1) }

        /// The slots of a table for about `expectedCount` scalars: a power of two from 256, at most three
        /// quarters full, at most ``maximumSlotCount``.
        func slotCount(for expectedCount: Int) -> Int {
            var size = 256
            while size / 4 * 3 <= expectedCount && size < maximumSlotCount { size <<= 1 }
            return size
        }

        /// The filter's bits for `slotCount` slots (a power of two, a multiple of 64).
        func filterBitCount(slotCount: Int) -> Int {
            min(slotCount * Self.filterBitsPerSlot, maximumFilterBitCount)
        }
    }

    /// The outcome of ``find(_:start:length:positions:)``.
    struct Probe {
        /// The id of the identical scalar already recorded, or -1.
        var existing: Int
        /// The empty slot the probe ended at, or -1 when the filter proved the scalar new without a probe.
        var slot: Int
        var tag: UInt64
    }

    /// Looks for a recorded scalar whose bytes equal `base[start ..< start + length]` (every recorded
    /// scalar starts before `start`, so the comparison stays in bounds).
    @inline(__always)
    func find(_ base: UnsafeRawPointer, start: Int, length: Int, positions: [Int]) -> Probe {
        let tag = Self.hashEncoded(base + start, length) & ~Self.idMask
        let hashBits = Self.hashBits(tag)
        let filterBit = hashBits & filterMask
        if filter.base[filterBit >> 6] & (1 << UInt64(filterBit & 63)) == 0 {
            return Probe(existing: -1, slot: -1, tag: tag)
        }
        let mask = entries.count - 1
        let table = entries.base
        var slot = hashBits & mask
        while true {
            let entry = table[slot]
            if entry == 0 { break }
            if entry & ~Self.idMask == tag {
                let candidate = Int(truncatingIfNeeded: entry & Self.idMask) - 1
                if Self.equalBytes(base + positions[candidate], base + start, length) {
                    return Probe(existing: candidate, slot: slot, tag: tag)
                }
            }
            slot = (slot + 1) & mask
        }
        for i in 0 ..< pendingCount {
            let entry = pendingEntries.base[i]
            if entry & ~Self.idMask == tag {
                let candidate = Int(truncatingIfNeeded: entry & Self.idMask) - 1
                if Self.equalBytes(base + positions[candidate], base + start, length) {
                    return Probe(existing: candidate, slot: slot, tag: tag)
                }
            }
        }
        return Probe(existing: -1, slot: slot, tag: tag)
    }

    /// Records `id` in the empty slot `probe` found, or among the pending entries when the filter proved
    /// the scalar new (and grows the table when it is 3/4 full). Returns false, recording nothing, when `id`
    /// is too large for an entry.
    @inline(__always)
    @discardableResult
    mutating func insert(_ id: Int, at probe: Probe) -> Bool {
        guard id < idLimit else { return false }
        let entry = probe.tag | UInt64(id + 1)
        Self.setFilterBit(filter, hashBits: Self.hashBits(probe.tag) & filterMask)
        if probe.slot >= 0 {
            entries.base[probe.slot] = entry
        } else {
            prefetchForWriting(entries.base + Self.hashBits(probe.tag) & (entries.count - 1))
            pendingEntries.base[pendingCount] = entry
            pendingCount += 1
            if pendingCount == Self.pendingCapacity { writePendingEntries() }
        }
        count += 1
        if count >= entries.count / 4 * 3 { grow() }
        return true
    }

    /// Sets bit `index` of `filter`.
    @inline(__always)
    private static func setFilterBit(_ filter: LargeWordBuffer, hashBits index: Int) {
        filter.base[index >> 6] |= 1 << UInt64(index & 63)
    }

    /// Writes the pending entries into their slots.
    @inline(never)
    private mutating func writePendingEntries() {
        let mask = entries.count - 1
        let table = entries.base
        for i in 0 ..< pendingCount {
            let entry = pendingEntries.base[i]
            var slot = Self.hashBits(entry) & mask
            while table[slot] != 0 { slot = (slot + 1) & mask }
            table[slot] = entry
        }
        pendingCount = 0
    }

    /// Doubles the slots, or, at ``Sizing/maximumSlotCount``, stops recording (a full table would probe forever).
    @inline(never)
    private mutating func grow() {
        if entries.count < Sizing.current.maximumSlotCount {
            resize(to: entries.count * 2)
        } else {
            idLimit = 0
        }
    }

    /// Re-inserts every entry into a table of `size` slots, by the hash bits the entry keeps, and rebuilds
    /// the filter for it.
    @inline(never)
    private mutating func resize(to size: Int) {
        writePendingEntries()
        let bigger = LargeWordBuffer(zeroedCount: size)
        let mask = size - 1
        let table = bigger.base
        let (biggerFilter, biggerFilterMask) = Self.emptyFilter(slotCount: size)
        for i in 0 ..< entries.count {
            let entry = entries.base[i]
            guard entry != 0 else { continue }
            let hashBits = Self.hashBits(entry)
            var slot = hashBits & mask
            while table[slot] != 0 { slot = (slot + 1) & mask }
            table[slot] = entry
            Self.setFilterBit(biggerFilter, hashBits: hashBits & biggerFilterMask)
        }
        entries = bigger
        filter = biggerFilter
        filterMask = biggerFilterMask
    }

    /// The 32 hash bits an entry (or a probe's tag) keeps above its id, as an `Int` (negative on a 32-bit
    /// `Int`; every use masks it with a non-negative mask).
    @inline(__always)
    static func hashBits(_ entry: UInt64) -> Int { Int(truncatingIfNeeded: entry >> 32) }

    /// The low 32 bits of an entry: id + 1.
    static let idMask: UInt64 = (1 << 32) - 1

    /// Whether `length` bytes at `a` and `b` are equal (short lengths without a library call).
    @inline(__always)
    static func equalBytes(_ a: UnsafeRawPointer, _ b: UnsafeRawPointer, _ length: Int) -> Bool {
        if length >= 8 {
            var i = 0
            while i + 8 <= length {
                if a.loadUnaligned(fromByteOffset: i, as: UInt64.self) != b.loadUnaligned(fromByteOffset: i, as: UInt64.self) {
                    return false
                }
                i += 8
            }
            // The last 8 bytes, overlapping what was compared.
            return a.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
                == b.loadUnaligned(fromByteOffset: length - 8, as: UInt64.self)
        }
        for i in 0 ..< length where a.load(fromByteOffset: i, as: UInt8.self) != b.load(fromByteOffset: i, as: UInt8.self) {
            return false
        }
        return true
    }

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

    /// Multiplies to 128 bits and folds the halves (the step of wyhash-style hashes).
    @inline(__always)
    static func fold(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (high, low) = a.multipliedFullWidth(by: b)
        return high ^ low
    }

    private static let k0: UInt64 = 0xA076_1D64_78BD_642F
    private static let k1: UInt64 = 0xE703_7ED1_A0B4_28DB
    private static let k2: UInt64 = 0x8EBC_6AF0_9C88_C6E3

    /// A hash of an encoded object. Objects up to 128 bytes are hashed whole; longer ones by length and
    /// their first and last 64 bytes, so a large blob is not read again (equality is checked in full).
    @inline(__always)
    static func hashEncoded(_ p: UnsafeRawPointer, _ length: Int) -> UInt64 {
        if length <= 128 { return hashBytes(p, length) }
        return mix(hashBytes(p, 64) ^ mix(hashBytes(p + (length - 64), 64) ^ UInt64(length)))
    }

    /// A seeded hash of `count` bytes: 16 bytes per 128-bit multiply, the tail read with overlapping loads.
    @inline(__always)
    static func hashBytes(_ p: UnsafeRawPointer, _ count: Int) -> UInt64 {
        var h = seed ^ (UInt64(truncatingIfNeeded: count) &* k0)
        var i = 0
        while count - i > 16 {
            h = fold(p.loadUnaligned(fromByteOffset: i, as: UInt64.self) ^ k1,
                     p.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self) ^ h)
            i += 16
        }
        // 0...16 bytes left, at i ..< count.
        let left = count - i
        var a: UInt64 = 0
        var b: UInt64 = 0
        if left >= 8 {
            a = p.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            b = p.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        } else if left >= 4 {
            a = UInt64(p.loadUnaligned(fromByteOffset: i, as: UInt32.self))
            b = UInt64(p.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
        } else if left > 0 {
            a = UInt64(p.load(fromByteOffset: i, as: UInt8.self)) << 16
                | UInt64(p.load(fromByteOffset: i + left / 2, as: UInt8.self)) << 8
                | UInt64(p.load(fromByteOffset: count - 1, as: UInt8.self))
        }
        return mix(fold(a ^ k1, b ^ h ^ k2) ^ UInt64(truncatingIfNeeded: left))
    }
}
