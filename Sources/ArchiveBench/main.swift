// archive-bench: times KeyedArchive against Foundation in one run.
//
//     swift run -c release archive-bench [--runs N] [--warmup N] [--only NAME] [--help]
//
// To add a workload, conform a type to `Workload` in its own file and add it to this list.
// For profiling, ARCHIVE_BENCH_OURS_ONLY=1 times only KeyedArchive's operation in each group, and
// ARCHIVE_BENCH_GROUP=TEXT runs only the groups whose title contains TEXT; ARCHIVE_BENCH_SAMPLES=1 prints
// every run's CPU time under its median; ARCHIVE_BENCH_GROWTH_COUNT=N sets the archiver's growth size
// (default 200,000).
import Foundation

#if canImport(Glibc)
import Glibc
#endif

let workloads: [any Workload] = [
    SmallDictionariesWorkload(),
    DataBlobWorkload(),
    ArchiverWorkload(),
    CodableWorkload(),
]

@MainActor func printHelp() {
    print("""
    OVERVIEW: Times KeyedArchive's property-list reader and writer against Foundation.

    USAGE: archive-bench [--runs <n>] [--warmup <n>] [--only <name>]

    OPTIONS:
      --runs <n>      Timed runs per operation; the medians of CPU and wall-clock time are
                      reported, and ratios use CPU time (default: 5).
      --warmup <n>    Untimed runs of each operation before its timed runs (default: 3). The
                      first run in a process also pays for growing the heap.
      --only <name>   Run only this workload (repeatable). Workloads: \(workloads.map(\.name).joined(separator: ", "))
      -h, --help      Show help information.

    Build with optimisations: swift run -c release archive-bench
    """)
}

func usageError(_ message: String) -> Never {
    FileHandle.standardError.write(Data("""
    Error: \(message)
    Usage: archive-bench [--runs <n>] [--warmup <n>] [--only <name>]
    See 'archive-bench --help' for more information.

    """.utf8))
    exit(64)
}

var runs = 5
var warmups = 3
var only: Set<String> = []
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "-h", "--help":
        printHelp()
        exit(0)
    case "--runs":
        guard let text = arguments.popFirst(), let n = Int(text), n > 0 else { usageError("--runs needs a positive integer") }
        runs = n
    case "--warmup":
        guard let text = arguments.popFirst(), let n = Int(text), n >= 0 else { usageError("--warmup needs a non-negative integer") }
        warmups = n
    case "--only":
        guard let name = arguments.popFirst() else { usageError("--only needs a workload name") }
        guard workloads.contains(where: { $0.name == name }) else {
            usageError("unknown workload '\(name)' (known: \(workloads.map(\.name).joined(separator: ", ")))")
        }
        only.insert(name)
    default:
        usageError("unknown argument '\(argument)'")
    }
}

#if DEBUG
print("warning: this is a debug build; use `swift run -c release archive-bench` for meaningful figures")
#endif
print("archive-bench: medians of \(runs) run\(runs == 1 ? "" : "s") after \(warmups) untimed warm-up run\(warmups == 1 ? "" : "s") "
      + "(CPU time of this process, wall-clock time); 'x faster' compares CPU-time medians")

func format(_ seconds: Double) -> String {
    seconds >= 1 ? String(format: "%8.3f s ", seconds) : String(format: "%8.2f ms", seconds * 1000)
}

/// Medians of the operations with an id, for growth lines.
var timingsByID: [String: Timing] = [:]

do {
    for workload in workloads where only.isEmpty || only.contains(workload.name) {
        print("\n== \(workload.name): \(workload.summary)")
        let groups = try workload.makeGroups()
        let groupFilter = ProcessInfo.processInfo.environment["ARCHIVE_BENCH_GROUP"]
        for group in groups where groupFilter.map({ group.title.contains($0) }) ?? true {
            print("  \(group.title)")
            var reference: Double?
            let oursOnly = ProcessInfo.processInfo.environment["ARCHIVE_BENCH_OURS_ONLY"] != nil
            for operation in oursOnly ? Array(group.operations.prefix(1)) : group.operations {
                let timing = try medianTiming(of: operation, runs: runs, warmups: warmups)
                let label = operation.label.padding(toLength: 44, withPad: " ", startingAt: 0)
                let times = "cpu \(format(timing.cpu))  wall \(format(timing.wall))"
                if let id = operation.id { timingsByID[id] = timing }
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
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}
