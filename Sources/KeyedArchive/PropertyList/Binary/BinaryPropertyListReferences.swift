/// The object references of a file's containers, one after another, for ``BinaryPropertyListBuilder``.
///
/// A growable buffer of `UInt32` in ``LargeMemory``: one append per reference is the builder's hottest
/// step, and an `Array` in a mutable struct checks on every append that its storage is not shared. This
/// buffer is never shared, so an append is a capacity check and a store. Like
/// ``BinaryPropertyListOutput``, it is a plain value holding a pointer: its owner frees it once, with
/// ``deallocate()``.
struct BinaryPropertyListReferences {
    private var base: UnsafeMutablePointer<UInt32>
    private var capacity: Int
    /// The number of references appended.
    private(set) var count = 0

    /// A buffer with room for `capacity` references before it grows.
    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = Self.allocate(self.capacity)
    }

    private static func allocate(_ count: Int) -> UnsafeMutablePointer<UInt32> {
        LargeMemory.allocateSequential(byteCount: count * MemoryLayout<UInt32>.stride).bindMemory(to: UInt32.self, capacity: count)
    }

    /// Appends a reference (doubling the room when it is full, so appends are amortised O(1)).
    @inline(__always)
    mutating func append(_ reference: UInt32) {
        if count == capacity { grow() }
        // In bounds: count < capacity, checked just above.
        base[count] = reference
        count += 1
    }

    /// Appends `references` (growing at most once, geometrically).
    @inline(__always)
    mutating func append(contentsOf references: UnsafeBufferPointer<UInt32>) {
        guard let source = references.baseAddress else { return }
        if references.count > capacity - count { grow(toHold: count + references.count) }
        // In bounds: capacity - count >= references.count, checked just above.
        (base + count).update(from: source, count: references.count)
        count += references.count
    }

    /// Appends `count` references for the caller to fill in: the returned room (valid until the next append or
    /// ``deallocate()``) must be written whole before the references are read.
    @inline(__always)
    mutating func appendRoom(_ count: Int) -> UnsafeMutableBufferPointer<UInt32> {
        if count > capacity - self.count { grow(toHold: self.count + count) }
        // In bounds: capacity - self.count >= count, checked just above.
        let room = UnsafeMutableBufferPointer(start: base + self.count, count: count)
        self.count += count
        return room
    }

    /// Reference `index`; the caller keeps `index` below ``count``.
    subscript(index: Int) -> UInt32 {
        @inline(__always) get { buffer[index] }
        @inline(__always) set { mutableBuffer[index] = newValue }
    }

    @inline(never)
    private mutating func grow() {
        grow(toHold: capacity + 1)
    }

    /// Doubles the room (or more, to hold `needed` references).
    @inline(never)
    private mutating func grow(toHold needed: Int) {
        let newCapacity = max(2 * capacity, needed)
        let bigger = Self.allocate(newCapacity)
        bigger.update(from: base, count: count)
        LargeMemory.deallocate(UnsafeMutableRawPointer(base))
        base = bigger
        capacity = newCapacity
    }

    /// The references appended so far (valid until the next append or ``deallocate()``).
    var buffer: UnsafeBufferPointer<UInt32> { UnsafeBufferPointer(start: base, count: count) }

    /// The references appended so far, to rewrite in place (valid until the next append or ``deallocate()``).
    var mutableBuffer: UnsafeMutableBufferPointer<UInt32> { UnsafeMutableBufferPointer(start: base, count: count) }

    /// Frees the memory; the buffer must not be used afterwards.
    mutating func deallocate() {
        LargeMemory.deallocate(UnsafeMutableRawPointer(base))
        capacity = 0
        count = 0
    }
}
