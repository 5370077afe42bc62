internal import KeyedArchiveCSupport

/// Asks the processor to bring the cache line holding `address` into its caches, to be read soon: the
/// archiver's read-ahead, which knows a random address well before it loads it, overlaps those misses.
/// A hint only: it never faults and changes no value, whatever the address (C's `__builtin_prefetch`,
/// through the package's C target, which the optimizer inlines to one instruction).
@inline(__always)
func prefetch(_ address: UnsafeRawPointer) {
    keyedarchive_prefetch_read(address)
}

/// ``prefetch(_:)`` for a line about to be written (for example a class instance's header, whose reference
/// count a retain updates).
@inline(__always)
func prefetchForWriting(_ address: UnsafeRawPointer) {
    keyedarchive_prefetch_write(address)
}
