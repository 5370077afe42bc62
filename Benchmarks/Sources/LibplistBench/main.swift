// libplist-bench FILE...: times KeyedArchive's binary property-list reader against the C library libplist
// (`plist_from_bin`) on the same bytes, in the same process, alternating the two.
//
// For each file it prints the medians of CPU time and `@time libplist.<file stem>.ours|libplist <seconds>`
// lines that `archive-bench` (the root package's benchmark) reads. Each result is freed after the clock
// stops, for both readers.
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

keepFreedMemory()
var options = PropertyListReadingOptions()
options.maximumObjectCount = Int.max

let files = CommandLine.arguments.dropFirst()
if files.isEmpty {
    FileHandle.standardError.write(Data("Usage: libplist-bench FILE...\n".utf8))
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
        let o = median(oursTimes), l = median(theirTimes)
        print("\(stem) (\(data.count) bytes): KeyedArchive " + String(format: "%.2f ms, libplist plist_from_bin %.2f ms: %.2fx faster",
                                                                                 o * 1000, l * 1000, l / o)
              + " (page faults per run: \(Int(median(oursFaults))) ours, \(Int(median(theirFaults))) libplist; "
              + "medians of \(timedRuns) runs after \(warmupRuns) warm-ups)")
        print("@time libplist.\(stem).ours \(o)")
        print("@time libplist.\(stem).libplist \(l)")
    }
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}
