// libplist-bench [--write-max-bytes N] FILE...: times KeyedArchive's binary property-list reader and writer against the C library
// libplist (`plist_from_bin`, `plist_to_bin`) on the same bytes, in the same process, alternating the two.
//
// Reading: each library reads the file's bytes into its own tree. Writing: each library's tree of the file
// is made once, untimed (`plist_from_bin` for libplist, our reader for ours), then each writer turns its
// tree into binary property-list bytes (`plist_to_bin`; our `PropertyListValue.propertyListData(format:
// .binary)`, the writer archive-bench's "write" line times). For each file it prints the medians of CPU time
// and `@time libplist.<file stem>.ours|libplist|ours-write|libplist-write <seconds>` lines that
// `archive-bench` (the root package's benchmark) reads. Each result is freed after the clock stops, for
// both libraries: a read tree with `plist_free`, written bytes with `plist_to_bin_free` (so neither free is
// timed, as archive-bench's `keep` does for every operation).
//
// Both readers run on a warm heap: glibc's malloc is told to keep freed memory in the process (see
// `keepFreedMemory()`). Without that, the figures measured page faults, not parsing: the process held
// nothing above the results, so freeing one reader's result gave the top of the heap back to the kernel
// (brk) and the next run, of either reader, took fresh zeroed pages again (9,000-30,000 faults a run,
// counted in CPU time). Which reader paid how much depended on the other's allocation pattern, so our
// 20,000-model read took 36 ms here against 14 ms in `archive-bench` (whose long-lived allocations hold
// the heap), and libplist's time moved with our build. The page faults per timed run are printed.
import CLibplist
import Foundation
import KeyedArchive

/// Timed and untimed runs per reader and file; a file above ``largeFileBytes`` (the 2,000,000-model
/// archive, whose every read takes seconds) gets 1 timed run after 1 warm-up, and says so.
let runs = 5
let warmups = 3
let largeFileBytes = 100_000_000

/// The largest file whose writing is timed (`--write-max-bytes` changes it): libplist 2.2's `plist_to_bin` is
/// quadratic in the objects (it de-duplicates them through a hash table of a fixed 4,096 buckets;
/// libimobiledevice/libplist#151). Measured here: 10.9 ms for the 2,000-model archive, 3.25 s for the
/// 20,000-model one (4.2 MB; 298x for 10x models), so the 200,000-model one would take minutes a run.
var writeMaxBytes = 20_000_000

/// Keeps freed memory in the process for the next run: no trimming of the heap's top, and blocks up to
/// 32 MiB (glibc's largest mmap threshold) from the heap rather than from fresh mappings. Setting the
/// thresholds also stops glibc's dynamic threshold, which made the heap's state depend on the order of
/// earlier frees.
func keepFreedMemory() {
    // At most 2 GiB through mallopt (an Int32): archive-bench sets a larger threshold through GLIBC_TUNABLES
    // (libplist's tree of the 2,000,000-model archive frees more than 2 GiB at once), which this would lower.
    if !(ProcessInfo.processInfo.environment["GLIBC_TUNABLES"] ?? "").contains("trim_threshold") {
        _ = mallopt(M_TRIM_THRESHOLD, Int32.max)
    }
    _ = mallopt(M_MMAP_THRESHOLD, 32 << 20)
}

/// Makes glibc merge the small blocks the last free left in its fast bins now, outside the clock.
///
/// Freeing a result leaves hundreds of thousands of small blocks in the fast bins; glibc merges them
/// all (`malloc_consolidate`) at the next allocation of a large block. Without this, that work for one
/// reader's garbage fell inside the next timed run, of the other reader: a large part of each figure was
/// the other library's deallocation pattern.
/// (The block is kept until the next call: a `free(malloc(n))` pair would be optimised away.)
func settleHeap() {
    free(settlingBlock)
    settlingBlock = malloc(1 << 20)
}
nonisolated(unsafe) var settlingBlock: UnsafeMutableRawPointer?

/// Minor page faults of this process so far.
func pageFaults() -> Int {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    return usage.ru_minflt
}

func cpuSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

func median(_ samples: [Double]) -> Double {
    let sorted = samples.sorted()
    let mid = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/// Times `body` once and counts its page faults; `body` returns a value to free after the clock stops.
func timed(_ body: () throws -> () -> Void) rethrows -> (seconds: Double, faults: Int) {
    let faults = pageFaults()
    let start = cpuSeconds()
    let free = try body()
    let seconds = cpuSeconds() - start
    let taken = pageFaults() - faults
    free()
    settleHeap()
    return (seconds, taken)
}

/// The medians of two operations timed alternately, with their page faults per run.
struct Comparison {
    var ours: Double, libplist: Double
    var oursFaults: Int, libplistFaults: Int
    var timedRuns: Int, warmupRuns: Int

    /// `KeyedArchive 1.23 ms, libplist <function> 4.56 ms: 3.71x faster (...)`.
    func line(libplist function: String) -> String {
        "KeyedArchive " + String(format: "%.2f ms, libplist \(function) %.2f ms: %.2fx faster", ours * 1000, libplist * 1000, libplist / ours)
            + " (page faults per run: \(oursFaults) ours, \(libplistFaults) libplist; medians of \(timedRuns) runs after \(warmupRuns) warm-ups)"
    }
}

/// Runs `ours` and `libplist` alternately, `warmupRuns` times untimed, then `timedRuns` times timed.
func compare(_ ours: () throws -> () -> Void, _ libplist: () throws -> () -> Void, timedRuns: Int, warmupRuns: Int) throws -> Comparison {
    for _ in 0 ..< warmupRuns {
        _ = try timed(ours)
        _ = try timed(libplist)
    }
    var oursTimes: [Double] = [], theirTimes: [Double] = []
    var oursFaults: [Double] = [], theirFaults: [Double] = []
    for _ in 0 ..< timedRuns {
        let (o, of) = try timed(ours)
        let (l, lf) = try timed(libplist)
        oursTimes.append(o)
        theirTimes.append(l)
        oursFaults.append(Double(of))
        theirFaults.append(Double(lf))
    }
    return Comparison(ours: median(oursTimes), libplist: median(theirTimes), oursFaults: Int(median(oursFaults)),
                      libplistFaults: Int(median(theirFaults)), timedRuns: timedRuns, warmupRuns: warmupRuns)
}

keepFreedMemory()
var options = PropertyListReadingOptions()
options.maximumObjectCount = Int.max

var files = Array(CommandLine.arguments.dropFirst())
if files.count >= 2, files[0] == "--write-max-bytes", let bytes = Int(files[1]) {
    writeMaxBytes = bytes
    files.removeFirst(2)
}
if files.isEmpty {
    FileHandle.standardError.write(Data("Usage: libplist-bench [--write-max-bytes N] FILE...\n".utf8))
    exit(64)
}
do {
    for path in files {
        let data = try FileReader().read(atPath: path)
        let stem = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let reader = BinaryPropertyListReader(options: options)
        let ours = {
            let value = try reader.read(data)
            return { withExtendedLifetime(value) {} }
        }
        let libplist = {
            var root: plist_t?
            data.withUnsafeBytes { raw in
                plist_from_bin(raw.baseAddress?.assumingMemoryBound(to: CChar.self), UInt32(raw.count), &root)
            }
            guard let root else { throw CocoaError(.propertyListReadCorrupt) }
            return { plist_free(root) }
        }
        let (timedRuns, warmupRuns) = data.count > largeFileBytes ? (1, 1) : (runs, warmups)
        let read = try compare(ours, libplist, timedRuns: timedRuns, warmupRuns: warmupRuns)
        print("\(stem) (\(data.count) bytes): read: " + read.line(libplist: "plist_from_bin"))
        print("@time libplist.\(stem).ours \(read.ours)")
        print("@time libplist.\(stem).libplist \(read.libplist)")

        guard data.count <= writeMaxBytes else {
            print("@note libplist plist_to_bin not timed on \(stem) (\(data.count.formatted()) bytes, above --write-max-bytes "
                  + "\(writeMaxBytes.formatted())): quadratic in libplist 2.2 (a fixed 4,096-bucket table, libimobiledevice/libplist#151)")
            continue
        }
        // Writing: both trees made once, untimed, and kept for the writers' runs.
        let ourTree = try reader.read(data)
        var theirTree: plist_t?
        data.withUnsafeBytes { raw in
            plist_from_bin(raw.baseAddress?.assumingMemoryBound(to: CChar.self), UInt32(raw.count), &theirTree)
        }
        guard let theirTree else { throw CocoaError(.propertyListReadCorrupt) }
        defer { plist_free(theirTree) }
        let oursWrite = {
            let bytes = try ourTree.propertyListData(format: .binary)
            return { withExtendedLifetime(bytes) {} }
        }
        let libplistWrite = {
            var buffer: UnsafeMutablePointer<CChar>?
            var length: UInt32 = 0
            plist_to_bin(theirTree, &buffer, &length)
            guard let buffer, length > 0 else { throw CocoaError(.propertyListWriteInvalid) }
            return { plist_to_bin_free(buffer) }
        }
        let write = try compare(oursWrite, libplistWrite, timedRuns: timedRuns, warmupRuns: warmupRuns)
        print("\(stem) (\(data.count) bytes): write: " + write.line(libplist: "plist_to_bin"))
        print("@time libplist.\(stem).ours-write \(write.ours)")
        print("@time libplist.\(stem).libplist-write \(write.libplist)")
    }
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}
