/// LLVM's `prefetch` intrinsic: address, read (0) or write (1), locality 0-3 (3: keep in every level),
/// data cache (1). It never faults and changes no value, whatever the address; unlike a load, the
/// instructions after it do not wait for the line. Bound by name because Swift has no prefetch of its own;
/// every LLVM target has the intrinsic (on targets without a prefetch instruction it compiles to nothing).
@_silgen_name("llvm.prefetch.p0")
private func llvmPrefetch(_ address: UnsafeRawPointer, _ forWriting: Int32, _ locality: Int32, _ dataCache: Int32)

/// Asks the processor to bring the cache line holding `address` into its caches, to be read soon: the
/// archiver's read-ahead, which knows a random address well before it loads it, overlaps those misses.
@inline(__always)
func prefetch(_ address: UnsafeRawPointer) {
    llvmPrefetch(address, 0, 3, 1)
}

/// ``prefetch(_:)`` for a line about to be written (for example a class instance's header, whose reference
/// count a retain updates).
@inline(__always)
func prefetchForWriting(_ address: UnsafeRawPointer) {
    llvmPrefetch(address, 1, 3, 1)
}
