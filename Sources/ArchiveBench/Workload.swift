import Foundation

/// One benchmark workload: builds its inputs (untimed), then offers timed operations in comparison groups.
///
/// To add a workload: write a type conforming to `Workload` in its own file (`MyWorkload.swift`) and add
/// one line to the `workloads` list in main.swift.
protocol Workload {
    /// The short name `--only` selects, such as `small-dictionaries`.
    var name: String { get }
    /// One line saying what is measured.
    var summary: String { get }
    /// Builds the inputs and returns the comparison groups. Called once; only the operations are timed.
    func makeGroups() throws -> [BenchmarkGroup]
}

/// Operations that do the same job, timed side by side. The first operation is this package's (the
/// reference); every other line shows how many times faster the reference is.
struct BenchmarkGroup {
    /// What the operations do, such as `read 100,000 dictionaries`.
    var title: String
    var operations: [Operation]

    init(_ title: String, _ operations: [Operation]) {
        self.title = title
        self.operations = operations
    }
}

/// A named, timed closure. It should return something derived from its result (a count) so the work
/// cannot be optimised away.
struct Operation {
    var label: String
    var run: () throws -> Int

    init(_ label: String, _ run: @escaping () throws -> Int) {
        self.label = label
        self.run = run
    }
}

/// Accumulates results so the optimiser keeps the work.
nonisolated(unsafe) var benchmarkSink = 0

/// Runs `operation` `runs` times and returns the median duration in seconds.
func medianSeconds(of operation: Operation, runs: Int) throws -> Double {
    let clock = ContinuousClock()
    var samples: [Double] = []
    for _ in 0 ..< max(1, runs) {
        var result = 0
        let elapsed = try clock.measure { result = try operation.run() }
        benchmarkSink &+= result
        samples.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }
    samples.sort()
    let mid = samples.count / 2
    return samples.count % 2 == 1 ? samples[mid] : (samples[mid - 1] + samples[mid]) / 2
}
