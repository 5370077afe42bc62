import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension Workload {
    /// The prefix of this workload's result keys (`@time <prefix>.<operation id> ...`).
    var resultPrefix: String { name }
}

extension ArchiverWorkload {
    var resultPrefix: String { "\(name).\(count)" }

    /// Prints a size line the driver reads: `@size archiver.<count>.<key> <bytes>`.
    func reportSize(_ key: String, _ bytes: Int) {
        print("@size \(resultPrefix).\(key) \(bytes)")
    }
}

func format(_ seconds: Double) -> String {
    seconds >= 1 ? String(format: "%8.3f s ", seconds) : String(format: "%8.2f ms", seconds * 1000)
}

/// Runs one workload in this process (`--child`): a human-readable line per operation, and for each
/// operation with an id a line the driver reads, `@time <prefix>.<id> <median CPU seconds>`.
func runChild(_ workload: any Workload, runs: Int, warmups: Int, turns: Turns? = nil) throws {
    keepFreedMemory()
    print("== \(workload.name): \(workload.summary)")
    if printsSamples { print("  layout: " + processLayout()) }
    print("(medians of at least \(runs) runs (more for fast operations, up to \(minimumTimedSeconds) s of runs) after \(warmups) warm-ups "
          + "unless noted, CPU time of this process and wall-clock time)")
    let environment = ProcessInfo.processInfo.environment
    let groupFilter = environment["ARCHIVE_BENCH_GROUP"]
    let oursOnly = environment["ARCHIVE_BENCH_OURS_ONLY"] != nil
    let operationFilter = environment["ARCHIVE_BENCH_OPERATION"]
    var timingsByID: [String: Timing] = [:]
    for group in try workload.makeGroups() where groupFilter.map({ group.title.contains($0) }) ?? true {
        print("  \(group.title)")
        var reference: Double?
        let selected = operationFilter.map { id in group.operations.filter { $0.id == id } }
            ?? (oursOnly ? Array(group.operations.prefix(1)) : group.operations)
        for operation in selected {
            let timing = try medianTiming(of: operation, runs: runs, warmups: warmups, turns: turns)
            let label = operation.label.padding(toLength: 48, withPad: " ", startingAt: 0)
            let times = "cpu \(format(timing.cpu))  wall \(format(timing.wall))  \(timing.faults) faults, \(timing.preemptions) preempted"
            if let id = operation.id {
                timingsByID[id] = timing
                print("@time \(workload.resultPrefix).\(id) \(timing.cpu)")
                if operation.reportsWallClock { print("@time \(workload.resultPrefix).\(id).wall \(timing.wall)") }
            }
            if let (id, description) = operation.growthOf {
                let base = timingsByID[id].map { String(format: "%.2fx", timing.cpu / $0.cpu) } ?? "(not measured)"
                print("    \(label)\(times)   \(base) the time for \(description)")
            } else if let reference {
                print("    \(label)\(times)   KeyedArchive is \(String(format: "%.2f", timing.cpu / reference))x faster")
            } else {
                reference = timing.cpu
                print("    \(label)\(times)")
            }
            fflush(nil)  // show progress when stdout is a file or a pipe
        }
    }
}

/// Keeps memory the process frees for its next allocations (timing children only, not the memory probes):
/// glibc otherwise serves every allocation above its mmap threshold (an archive's bytes, a 64 MiB blob)
/// with fresh pages and gives freed memory back at once, so every timed run paid its output's page
/// faults (the kernel zeroing pages), whose cost swings with the machine's load. After the warm-up
/// runs, an operation now reuses pages the process already touched, for ours and Foundation's alike:
/// what a long-running program sees, and the same for every process.
func keepFreedMemory() {
    #if canImport(Glibc)
    // <malloc.h> is not in Swift's Glibc module: mallopt is looked up, with its constants' values.
    typealias Mallopt = @convention(c) (Int32, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt") else { return }
    let mallopt = unsafeBitCast(symbol, to: Mallopt.self)
    let trimThreshold: Int32 = -1, mmapMaximum: Int32 = -4  // M_TRIM_THRESHOLD, M_MMAP_MAX
    _ = mallopt(mmapMaximum, 0)  // every block from the heap, reused after free
    // And the heap's top never given back: with mallopt at most 2 GiB (an Int32); the driver sets a larger
    // threshold through GLIBC_TUNABLES (Driver.timingEnvironment), which this call would lower again.
    if !(ProcessInfo.processInfo.environment["GLIBC_TUNABLES"] ?? "").contains("trim_threshold") {
        _ = mallopt(trimThreshold, Int32.max)
    }
    #endif
}

/// Where this process's heap and stack start (they move with ASLR), for comparing processes' figures.
func processLayout() -> String {
    var local = 0
    let stack = withUnsafeMutablePointer(to: &local) { UInt(bitPattern: $0) }
    let heap = UInt(bitPattern: sbrk(0))
    let block = malloc(64).map { UInt(bitPattern: $0) } ?? 0
    defer { free(UnsafeMutableRawPointer(bitPattern: block)) }
    return String(format: "heap top 0x%lx (%% 2 MiB: 0x%lx), a malloc block 0x%lx, stack 0x%lx (%% 4 KiB: 0x%lx)",
                  heap, heap % (2 << 20), block, stack, stack % 4096)
}
