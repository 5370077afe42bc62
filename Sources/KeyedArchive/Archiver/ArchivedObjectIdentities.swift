/// The archiver's map from a class instance to its UID ("each instance is written once").
///
/// An open-addressed table keyed by the instance's address (`ObjectIdentifier`'s bits), at most half full:
/// one hash and usually one probe per reference, without the generic `Dictionary` machinery. Each slot is
/// two words, address then UID; address 0 marks an empty slot (no object lives at address 0). The slots
/// are in ``LargeMemory``, as a big table is probed at random. The archiver keeps every instance in the
/// table alive, so an address is never reused for another object while it is recorded.
struct ArchivedObjectIdentities {
    private var slots = LargeWordBuffer(zeroedCount: 2 * 64)
    private var capacity = 64
    private var count = 0

    /// The UID recorded for the instance at `key`, or nil.
    @inline(__always)
    func uid(for key: UInt) -> ArchiveObjectID? {
        let table = slots.base
        let key = UInt64(key)
        let mask = capacity - 1
        var slot = Self.slot(key, mask)
        while true {
            let stored = table[2 * slot]
            if stored == key { return ArchiveObjectID(Int(truncatingIfNeeded: table[2 * slot + 1])) }
            if stored == 0 { return nil }
            slot = (slot + 1) & mask
        }
    }

    /// Asks the processor to bring in the slot where a lookup of `key` starts, so that a lookup made a little
    /// later finds it in the cache. Reads nothing and changes nothing (a prefetch never faults).
    @inline(__always)
    func prefetchSlot(for key: UInt) {
        let slot = Self.slot(UInt64(key), capacity - 1)
        prefetch(UnsafeRawPointer(slots.base + 2 * slot))
    }

    /// Records `uid` for the instance at `key` (not 0, not recorded yet).
    @inline(__always)
    mutating func insert(_ key: UInt, uid: ArchiveObjectID) {
        if (count + 1) * 2 > capacity { grow() }
        Self.place(UInt64(key), UInt64(uid.rawValue), in: slots.base, mask: capacity - 1)
        count += 1
    }

    @inline(__always)
    private static func slot(_ key: UInt64, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: BinaryPropertyListScalarTable.mix(key)) & mask
    }

    @inline(__always)
    private static func place(_ key: UInt64, _ uid: UInt64, in table: UnsafeMutablePointer<UInt64>, mask: Int) {
        var slot = slot(key, mask)
        while table[2 * slot] != 0 { slot = (slot + 1) & mask }
        table[2 * slot] = key
        table[2 * slot + 1] = uid
    }

    @inline(never)
    private mutating func grow() {
        let bigger = LargeWordBuffer(zeroedCount: 4 * capacity)
        for slot in 0 ..< capacity where slots.base[2 * slot] != 0 {
            Self.place(slots.base[2 * slot], slots.base[2 * slot + 1], in: bigger.base, mask: 2 * capacity - 1)
        }
        slots = bigger
        capacity *= 2
    }
}
