/// The archiver's map from a class instance to its UID ("each instance is written once").
///
/// An open-addressed table keyed by the instance's address (`ObjectIdentifier`'s bits), at most half full: one
/// hash and usually one probe per reference, without the generic `Dictionary` machinery. The archiver keeps
/// every instance in it alive, so an address is never reused for another object while it is recorded.
struct ArchivedObjectIdentities {
    private struct Entry {
        /// The instance's address; 0 marks an empty slot (no object lives at address 0).
        var key: UInt
        var uid: Int
    }

    private var entries = [Entry](repeating: Entry(key: 0, uid: 0), count: 64)
    private var count = 0

    /// The UID recorded for the instance at `key`, or nil.
    @inline(__always)
    func uid(for key: UInt) -> Int? {
        let mask = entries.count - 1
        var slot = Self.slot(key, mask)
        return entries.withUnsafeBufferPointer { table in
            while true {
                let entry = table[slot]
                if entry.key == key { return entry.uid }
                if entry.key == 0 { return nil }
                slot = (slot + 1) & mask
            }
        }
    }

    /// Records `uid` for the instance at `key` (not 0, not recorded yet).
    @inline(__always)
    mutating func insert(_ key: UInt, uid: Int) {
        if (count + 1) * 2 > entries.count { grow() }
        let mask = entries.count - 1
        var slot = Self.slot(key, mask)
        while entries[slot].key != 0 { slot = (slot + 1) & mask }
        entries[slot] = Entry(key: key, uid: uid)
        count += 1
    }

    @inline(__always)
    private static func slot(_ key: UInt, _ mask: Int) -> Int {
        Int(truncatingIfNeeded: BinaryPropertyListScalarTable.mix(UInt64(key))) & mask
    }

    @inline(never)
    private mutating func grow() {
        var bigger = [Entry](repeating: Entry(key: 0, uid: 0), count: entries.count * 2)
        let mask = bigger.count - 1
        for entry in entries where entry.key != 0 {
            var slot = Self.slot(entry.key, mask)
            while bigger[slot].key != 0 { slot = (slot + 1) & mask }
            bigger[slot] = entry
        }
        entries = bigger
    }
}
