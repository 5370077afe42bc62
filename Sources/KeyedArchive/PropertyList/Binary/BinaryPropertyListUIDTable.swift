#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The object numbers of the UIDs a file holds, indexed by the UID's value: ``BinaryPropertyListBuilder/uid(_:)``
/// finds a UID written before without hashing it.
///
/// Why: a keyed archive's UIDs are indexes into its `$objects`, so their values are dense, and an object's
/// UIDs mostly lie close together. In ``BinaryPropertyListScalarTable`` each one took a random probe into a
/// table of 8 bytes per scalar, then a load of the candidate's position and bytes to compare them: three
/// dependent cache misses per UID once a file outgrows the caches (at 200,000 archived models, over half
/// of the writer's time). Here it is one load from 4 bytes per UID value, in value order.
///
/// The table covers values below ``capacity``; it grows only to cover a value below the bound its caller
/// gives (twice the objects numbered so far), so its memory stays proportional to the file's whatever
/// values a tree holds. A UID beyond that is recorded in the scalar table instead, and once one has been
/// (``hasOverflow``), a UID not found here is looked for there too: each value keeps one object.
struct BinaryPropertyListUIDTable {
    /// Owns the slots: object number + 1 per UID value below ``capacity``; 0: none yet. Nil until the first UID.
    private var storage: LargeHalfWordBuffer?
    /// `storage`'s slots (nil with it), kept beside it so a look-up is one load.
    private var slots: UnsafeMutablePointer<UInt32>?
    /// The values below this have a slot.
    private(set) var capacity = 0
    /// Whether some UID was recorded in the scalar table (its value was beyond the bound when it came).
    var hasOverflow = false

    /// The object number + 1 recorded for `value` (below ``capacity``), or 0.
    @inline(__always)
    func recorded(_ value: Int) -> UInt32 {
        // In bounds: callers check value < capacity, and capacity is 0 without slots.
        slots?[value] ?? 0
    }

    /// Records `number` for `value` (below ``capacity``); a number from 2^32 - 1 on is not recorded (the UID
    /// is then not shared, as the scalar table does with such numbers).
    @inline(__always)
    mutating func record(_ value: Int, number: Int) {
        // In bounds: callers give value < capacity.
        guard let slots, number < Int(clamping: UInt32.max) else { return }  // and number + 1 fits a 32-bit Int
        slots[value] = UInt32(number + 1)
    }

    /// Grows the table to cover `value` if `value < bound`; returns whether `value` is covered.
    mutating func cover(_ value: UInt64, bound: Int) -> Bool {
        if value < UInt64(capacity) { return true }
        guard value < UInt64(max(bound, 0)) else { return false }
        var size = max(4096, 2 * capacity)
        while UInt64(size) <= value {
            // Checked: with a 32-bit Int a shift past 2^30 would turn the size negative.
            let (doubled, overflow) = size.multipliedReportingOverflow(by: 2)
            guard !overflow else { return false }
            size = doubled
        }
        let bigger = LargeHalfWordBuffer(zeroedCount: size)
        if let slots { bigger.base.update(from: slots, count: capacity) }
        storage = bigger
        slots = bigger.base
        capacity = size
        return true
    }
}
