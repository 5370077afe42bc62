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
/// machines. Elsewhere, and for smaller blocks, it is plain `malloc`. Blocks are released with `free`, but
/// for the zero-filled tables of ``allocateZeroed(byteCount:)``, which on Linux are mappings of their own.
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

extension LargeMemory {
    /// A zero-filled block of at least `byteCount` bytes, and whether it is a mapping of its own; released
    /// with ``deallocateZeroed(_:byteCount:mapped:)``.
    ///
    /// On Linux a block of 4 MB or more is a mapping of its own (2 MB-aligned, advised to use transparent
    /// huge pages), which the kernel hands over already zeroed and takes back when it is released. From
    /// `malloc`, these short-lived tables (the scalar table doubles as an archive grows, the old one freed
    /// after the new one is made) left holes in the heap that the next archive's buffers did not fit, so
    /// the heap grew at its top from one archive to the next and each time faulted fresh pages in (at
    /// 200,000 models, 500-2,600 page faults in most archives of a process). Smaller blocks, other systems,
    /// or a failed mapping: ``allocate(byteCount:)`` and `memset`.
    static func allocateZeroed(byteCount: Int) -> (pointer: UnsafeMutableRawPointer, mapped: Bool) {
        #if os(Linux)
        if byteCount >= 2 * hugePageSize, let block = mapZeroed(byteCount: byteCount) { return (block, true) }
        #endif
        let pointer = allocate(byteCount: byteCount)
        memset(pointer, 0, byteCount)
        return (pointer, false)
    }

    /// Releases a block from ``allocateZeroed(byteCount:)``, given the same `byteCount` and what it said of `mapped`.
    static func deallocateZeroed(_ pointer: UnsafeMutableRawPointer, byteCount: Int, mapped: Bool) {
        #if os(Linux)
        if mapped {
            munmap(pointer, mappedLength(byteCount))
            return
        }
        #endif
        deallocate(pointer)
    }

    #if os(Linux)
    private static func mappedLength(_ byteCount: Int) -> Int {
        (byteCount + hugePageSize - 1) / hugePageSize * hugePageSize
    }

    /// A fresh anonymous mapping of `byteCount` bytes rounded up to 2 MB, starting on a 2 MB boundary (2 MB
    /// more is mapped, and what lies outside the aligned block is unmapped again).
    private static func mapZeroed(byteCount: Int) -> UnsafeMutableRawPointer? {
        let length = mappedLength(byteCount)
        guard let raw = mmap(nil, length + hugePageSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              raw != MAP_FAILED else { return nil }
        let mask = UInt(hugePageSize - 1)
        let start = (UInt(bitPattern: raw) + mask) & ~mask
        let head = Int(start - UInt(bitPattern: raw))
        if head > 0 { munmap(raw, head) }
        let block = raw + head
        if hugePageSize - head > 0 { munmap(block + length, hugePageSize - head) }
        _ = madvise(block, length, MADV_HUGEPAGE)  // failure only means small pages
        return block
    }
    #endif
}

/// A zero-filled array of fixed-width integers in ``LargeMemory``, freed with its last reference.
final class LargeZeroedBuffer<Element: FixedWidthInteger> {
    let base: UnsafeMutablePointer<Element>
    let count: Int
    /// Whether ``base`` is a mapping of its own (see ``LargeMemory/allocateZeroed(byteCount:)``).
    private let mapped: Bool

    init(zeroedCount count: Int) {
        let (raw, mapped) = LargeMemory.allocateZeroed(byteCount: count * MemoryLayout<Element>.stride)
        base = raw.bindMemory(to: Element.self, capacity: count)
        self.count = count
        self.mapped = mapped
    }

    deinit {
        LargeMemory.deallocateZeroed(UnsafeMutableRawPointer(base), byteCount: count * MemoryLayout<Element>.stride, mapped: mapped)
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

    /// A block from ``allocateSequential(byteCount:)`` (or ``allocate(byteCount:)``) grown to `byteCount`
    /// bytes, its first `keeping` bytes kept; the old block is gone.
    ///
    /// `realloc`, not a new block and a copy: the allocator can often extend the block where it is (into the
    /// free space after it, or at the heap's top), so the old and new blocks are not both held and the heap
    /// is not left with a hole of the old size, which the next archive's buffers did not fit (they took fresh
    /// pages at the heap's top instead).
    static func reallocateSequential(_ pointer: UnsafeMutableRawPointer, byteCount: Int, keeping: Int) -> UnsafeMutableRawPointer {
        guard let grown = realloc(pointer, max(byteCount, 1)) else {
            let bigger = allocate(byteCount: byteCount)
            bigger.copyMemory(from: pointer, byteCount: keeping)
            free(pointer)
            return bigger
        }
        adviseHugePages(grown, byteCount: byteCount)
        return grown
    }

    /// Advises the 2 MB pages wholly inside a block of 4 MB or more to use transparent huge pages (Linux).
    private static func adviseHugePages(_ pointer: UnsafeMutableRawPointer, byteCount: Int) {
        #if os(Linux)
        if byteCount >= 2 * hugePageSize {
            // madvise needs page-aligned bounds; failure only means small pages.
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
