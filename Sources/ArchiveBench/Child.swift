import Foundation

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
func runChild(_ workload: any Workload, runs: Int, warmups: Int) throws {
    print("== \(workload.name): \(workload.summary)")
    print("(medians of \(runs) runs after \(warmups) warm-ups unless noted, CPU time of this process and wall-clock time)")
    let environment = ProcessInfo.processInfo.environment
    let groupFilter = environment["ARCHIVE_BENCH_GROUP"]
    let oursOnly = environment["ARCHIVE_BENCH_OURS_ONLY"] != nil
    var timingsByID: [String: Timing] = [:]
    for group in try workload.makeGroups() where groupFilter.map({ group.title.contains($0) }) ?? true {
        print("  \(group.title)")
        var reference: Double?
        for operation in oursOnly ? Array(group.operations.prefix(1)) : group.operations {
            let timing = try medianTiming(of: operation, runs: runs, warmups: warmups)
            let label = operation.label.padding(toLength: 48, withPad: " ", startingAt: 0)
            let times = "cpu \(format(timing.cpu))  wall \(format(timing.wall))"
            if let id = operation.id {
                timingsByID[id] = timing
                print("@time \(workload.resultPrefix).\(id) \(timing.cpu)")
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
