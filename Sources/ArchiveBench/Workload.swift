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
    /// The prefix of the result keys the driver reads (the name, or `archiver.<count>`).
    var resultPrefix: String { get }
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
    /// A name other operations' ``growthOf`` can refer to.
    var id: String?
    /// The id of a smaller operation and what it did (`"20,000 objects"`): the report shows how many times
    /// that operation's time this one took, instead of comparing it with the group's first operation.
    var growthOf: (id: String, description: String)?
    /// Runs before each run, outside the clock.
    var beforeEachRun: (() -> Void)?
    /// Timed and untimed runs for this operation instead of the command line's (a slow peer such as
    /// Foundation at 200,000 objects runs fewer times per process; the processes give the spread).
    var runs: (timed: Int, warmups: Int)?
    /// Whether the child also reports the median wall-clock time (`@time <prefix>.<id>.wall`): for an
    /// operation on several threads, whose CPU time adds up the threads.
    var reportsWallClock = false
    var run: () throws -> Int

    init(_ label: String, id: String? = nil, growthOf: (id: String, description: String)? = nil,
         beforeEachRun: (() -> Void)? = nil, runs: (timed: Int, warmups: Int)? = nil, _ run: @escaping () throws -> Int) {
        self.label = label
        self.id = id
        self.growthOf = growthOf
        self.beforeEachRun = beforeEachRun
        self.runs = runs
        self.run = run
    }
}

/// Accumulates results so the optimiser keeps the work.
nonisolated(unsafe) var benchmarkSink = 0

/// The result of the run being timed, freed only after its clock stops (see ``keep(_:)``).
nonisolated(unsafe) var benchmarkResult: Any?

/// Keeps an operation's result alive until its run's clock has stopped, and returns it.
///
/// A reader or unarchiver is timed making its result, not freeing it: the caller keeps the result, and
/// when it lets it go is the caller's business. (Freeing a 200,000-object graph, in an order unrelated to
/// the order it was allocated in, takes a large share of what decoding it takes.) Every operation of every
/// workload keeps its result, ours and Foundation's alike.
func keep<T>(_ result: T) -> T {
    benchmarkResult = result
    return result
}

/// The median wall-clock and CPU time of an operation, in seconds.
struct Timing {
    var wall: Double
    var cpu: Double
    /// The median page faults (minor + major) and involuntary context switches of one timed run.
    var faults = 0
    var preemptions = 0
}

/// This process's page faults and context switches so far (getrusage), to tell what a slow run paid for.
struct ResourceCounts {
    /// Minor and major page faults.
    var minor = 0, major = 0
    /// Voluntary and involuntary context switches (involuntary: the scheduler gave the CPU to another process).
    var voluntary = 0, involuntary = 0

    static func now() -> ResourceCounts {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)  // glibc's `who` is an enum
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return ResourceCounts(minor: usage.ru_minflt, major: usage.ru_majflt, voluntary: usage.ru_nvcsw, involuntary: usage.ru_nivcsw)
    }

    static func - (a: ResourceCounts, b: ResourceCounts) -> ResourceCounts {
        ResourceCounts(minor: a.minor - b.minor, major: a.major - b.major, voluntary: a.voluntary - b.voluntary, involuntary: a.involuntary - b.involuntary)
    }
}

/// This process's CPU time (user + system) in seconds.
func processCPUSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

/// The least total CPU time of an operation's timed runs (more runs are made until it is reached).
let minimumTimedSeconds = 0.5
/// The most timed runs of one operation.
let maximumRuns = 60

/// Whether every run's CPU time is printed (`ARCHIVE_BENCH_SAMPLES`), to see the spread behind a median.
let printsSamples = ProcessInfo.processInfo.environment["ARCHIVE_BENCH_SAMPLES"] != nil

/// Runs `operation` `warmups` times untimed, then at least `runs` times (until ``minimumTimedSeconds`` of
/// CPU time, at most ``maximumRuns``), and returns the median wall-clock and CPU durations of the timed runs.
///
/// CPU time is what the ratios use: on a shared machine other processes stretch wall-clock time but not
/// the CPU time this process spends (every operation here runs on one thread at a time). The warm-up
/// runs take the one-time costs (the heap growing to the operation's size, caches) out of the figures.
///
/// With `turns` (the driver's `--turns`), the operation starts in a turn of its own and its timed runs are
/// spread over ``Turns/turnsPerOperation`` turns; each later turn starts with one untimed run.
func medianTiming(of operation: Operation, runs: Int, warmups: Int, turns: Turns? = nil) throws -> Timing {
    let (runs, warmups) = operation.runs ?? (runs, warmups)
    turns?.next()
    var warmupSeconds: [Double] = []
    for _ in 0 ..< warmups {
        let start = processCPUSeconds()
        benchmarkSink &+= try operation.run()
        benchmarkResult = nil
        warmupSeconds.append(processCPUSeconds() - start)
    }
    var walls: [Double] = [], cpus: [Double] = [], faults: [Double] = [], preemptions: [Double] = []
    // Fast operations run more often (the command line's count is a minimum): a median of 5 runs of a
    // 5 ms operation moves with every hiccup of a shared machine, one of 50 much less. Operations with
    // their own run counts (the slow peers) keep them.
    let minimumTime = operation.runs == nil ? minimumTimedSeconds : 0
    // The timed runs to expect (from the warm-ups' time), to spread over the turns.
    let expectedRuns = warmupSeconds.isEmpty || minimumTime == 0 ? max(1, runs)
        : min(maximumRuns, max(runs, Int((minimumTime / max(median(warmupSeconds), 1e-6)).rounded(.up))))
    let runsPerTurn = turns?.runsPerTurn(of: expectedRuns) ?? Int.max
    while cpus.count < max(1, runs) || (cpus.reduce(0, +) < minimumTime && cpus.count < maximumRuns) {
        if let turns, !cpus.isEmpty, cpus.count % runsPerTurn == 0 {
            turns.next()
            benchmarkSink &+= try operation.run()  // untimed: the caches hold this operation's data again
            benchmarkResult = nil
        }
        operation.beforeEachRun?()
        let countsStart = ResourceCounts.now()
        let wallStart = DispatchTime.now().uptimeNanoseconds
        let cpuStart = processCPUSeconds()
        let result = try operation.run()
        let cpuEnd = processCPUSeconds()
        let wallEnd = DispatchTime.now().uptimeNanoseconds
        let counts = ResourceCounts.now() - countsStart
        benchmarkResult = nil
        benchmarkSink &+= result
        walls.append(Double(wallEnd - wallStart) / 1e9)
        cpus.append(cpuEnd - cpuStart)
        faults.append(Double(counts.minor + counts.major))
        preemptions.append(Double(counts.involuntary))
        if printsSamples {
            print(String(format: "      run %d: cpu %.2f ms, wall %.2f ms, %d minor + %d major faults, %d involuntary context switches",
                         cpus.count, (cpuEnd - cpuStart) * 1000, Double(wallEnd - wallStart) / 1e6, counts.minor, counts.major, counts.involuntary))
        }
    }
    return Timing(wall: median(walls), cpu: median(cpus), faults: Int(median(faults)), preemptions: Int(median(preemptions)))
}

func median(_ samples: [Double]) -> Double {
    let sorted = samples.sorted()
    let mid = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/// The unit of `rusage.ru_maxrss` in bytes: kilobytes on Linux (getrusage(2)), bytes on Darwin (xnu's
/// bsd/man/man2/getrusage.2, on iOS too: libuv/libuv#3721 and #4027).
let maximumResidentSetSizeUnit: Int = {
    #if canImport(Darwin)
    return 1
    #else
    return 1024
    #endif
}()
