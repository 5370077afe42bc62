#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Memory for the writer's and the archiver's big buffers: the output, the scalar pool and the hash tables
/// that are probed at random.
///
/// On Linux, a block of 4 MB or more is aligned to 2 MB and advised to use transparent huge pages
/// (`madvise(MADV_HUGEPAGE)`, which the common `madvise` setting of THP honours): random probes into a
/// table of tens of megabytes then miss the TLB far less often, which is most of their cost in virtual
/// machines. Elsewhere, and for smaller blocks, it is plain `malloc`. Blocks are released with `free`.
enum LargeMemory {
    static let hugePageSize = 2 << 20

    /// A block of at least `byteCount` bytes, 16-byte aligned. Running out of memory traps, as it does for
    /// any Swift allocation.
    static func allocate(byteCount: Int) -> UnsafeMutableRawPointer {
        #if os(Linux)
        if byteCount >= 2 * hugePageSize {
            var pointer: UnsafeMutableRawPointer?
            let rounded = (byteCount + hugePageSize - 1) / hugePageSize * hugePageSize
            if posix_memalign(&pointer, hugePageSize, rounded) == 0, let pointer {
                _ = madvise(pointer, rounded, MADV_HUGEPAGE)  // failure only means small pages
                return pointer
            }
        }
        #endif
        // The standard allocator reports (and traps) when even `malloc` has nothing left; its blocks are
        // `malloc`'s, so `free` releases them too.
        return malloc(max(byteCount, 1)) ?? UnsafeMutableRawPointer.allocate(byteCount: max(byteCount, 1), alignment: 16)
    }

    /// Releases a block from ``allocate(byteCount:)``.
    static func deallocate(_ pointer: UnsafeMutableRawPointer) {
        free(pointer)
    }
}

/// A zero-filled array of fixed-width integers in ``LargeMemory``, freed with its last reference.
final class LargeZeroedBuffer<Element: FixedWidthInteger> {
    let base: UnsafeMutablePointer<Element>
    let count: Int

    init(zeroedCount count: Int) {
        let bytes = count * MemoryLayout<Element>.stride
        let raw = LargeMemory.allocate(byteCount: bytes)
        memset(raw, 0, bytes)
        base = raw.bindMemory(to: Element.self, capacity: count)
        self.count = count
    }

    deinit {
        LargeMemory.deallocate(UnsafeMutableRawPointer(base))
    }
}

/// Words (the scalar table's entries, the archiver's identity table).
typealias LargeWordBuffer = LargeZeroedBuffer<UInt64>
/// Half words (the UID table's slots).
typealias LargeHalfWordBuffer = LargeZeroedBuffer<UInt32>

extension LargeMemory {
    /// A block of at least `byteCount` bytes for a buffer written and read front to back (an output, the
    /// references), released with ``deallocate(_:)``.
    ///
    /// Plain `malloc`, not the 2 MB-aligned block of ``allocate(byteCount:)``: an aligned block asks the
    /// allocator for up to 2 MB more than its size, so the hole an equal buffer left when it was freed (the
    /// previous archive's output) is too small for it, and every archive of the same size took fresh pages
    /// at the heap's top (at 200,000 models about 50 MB a time, faulted in again). Sequential access gains
    /// little from huge pages, but the whole 2 MB pages inside a big block are still advised to use them.
    static func allocateSequential(byteCount: Int) -> UnsafeMutableRawPointer {
        guard let pointer = malloc(max(byteCount, 1)) else { return allocate(byteCount: byteCount) }
        adviseHugePages(pointer, byteCount: byteCount)
        return pointer
    }

    /// A block from ``allocateSequential(byteCount:)`` grown to `byteCount` bytes, its first `keeping`
    /// bytes kept; the old block is gone.
    ///
    /// `realloc` rather than a new block and a copy: the allocator can extend a block where it is (into free
    /// space after it, or at the heap's top) or, for a block it mapped on its own, move the mapping without
    /// copying, and the old and new blocks are never both held.
    static func reallocateSequential(_ pointer: UnsafeMutableRawPointer, byteCount: Int, keeping: Int) -> UnsafeMutableRawPointer {
        guard let grown = realloc(pointer, max(byteCount, 1)) else {
            // Out of memory: the old block is still valid; allocate's own failure path reports and traps.
            let bigger = allocate(byteCount: byteCount)
            bigger.copyMemory(from: pointer, byteCount: keeping)
            free(pointer)
            return bigger
        }
        adviseHugePages(grown, byteCount: byteCount)
        return grown
    }

    /// Advises the 2 MB pages wholly inside a block of 4 MB or more to use transparent huge pages (Linux;
    /// madvise needs page-aligned bounds, and its failure only means small pages).
    private static func adviseHugePages(_ pointer: UnsafeMutableRawPointer, byteCount: Int) {
        #if os(Linux)
        if byteCount >= 2 * hugePageSize {
            let mask = UInt(hugePageSize - 1)
            let first = (UInt(bitPattern: pointer) + mask) & ~mask
            let end = (UInt(bitPattern: pointer) + UInt(byteCount)) & ~mask
            if end > first, let start = UnsafeMutableRawPointer(bitPattern: first) {
                _ = madvise(start, Int(end - first), MADV_HUGEPAGE)
            }
        }
        #endif
    }
}
