import Foundation

/// The driver's command-line settings.
struct DriverSettings {
    var processes = 5
    var sizes = [20_000, 200_000, 2_000_000]
    /// The largest size at which Foundation's archiver and unarchiver are timed.
    var foundationMaximum = 200_000
    var runs = 5
    var warmups = 3
    var only: Set<String> = []
    var libplist: String?
    /// GNUstep's archive/unarchive peer (`--gnustep`; default ``GNUstepPeer/defaultPath``).
    var gnustep: String?
    var markdown = false
    /// Whether the processes of one workload and size take turns (see Turns.swift); `--one-after-another` turns it off.
    var turns = true

    /// The largest archiver size whose processes run at the same time, taking turns (see Turns.swift):
    /// above it, a process holds gigabytes, so its processes run one after another.
    static let largestSizeInTurns = 200_000

    /// Whether the archiver's processes at `size` models take turns: not above ``largestSizeInTurns``, nor
    /// above 20,000 where Foundation runs (its graphs and what its unarchiver leaves in the heap reach
    /// gigabytes per process at 200,000 models).
    func takesTurns(size: Int) -> Bool {
        turns && size <= Self.largestSizeInTurns && (size <= 20_000 || size > foundationMaximum)
    }
    var verbose = false
    /// `--from-log`: earlier runs' output to report from, instead of measuring.
    var logs: [String] = []
    /// The size of the archive `archive-dump`'s peak memory is measured on (`--dump-size`, in MB).
    var dumpSize = 100_000_000
    /// The size of the archive opened lazily (`--lazy-size`, in MB).
    var lazySize = 1_024_000_000
}

/// Runs every workload in child processes, `processes` times each (round-robin, so that a busy moment of a
/// shared machine does not fall on one workload's processes only), and reports medians across processes.
struct Driver {
    var settings: DriverSettings
    /// Per result key, one value per process.
    private var times: [String: [Double]] = [:]
    private var sizes: [String: Int] = [:]
    private var memory: [String: (peak: Int, kept: Int)] = [:]
    /// `@note` lines: what was skipped and why.
    private var notes: [String] = []

    init(settings: DriverSettings) { self.settings = settings }

    private func wants(_ name: String) -> Bool { settings.only.isEmpty || settings.only.contains(name) }

    /// Whether the processes of the child run by `arguments` take turns rather than run one after another.
    func fitsInTurns(_ arguments: [String]) -> Bool {
        guard let index = arguments.firstIndex(of: "--count"), index + 1 < arguments.count, let count = Int(arguments[index + 1]) else { return true }
        return settings.takesTurns(size: count)
    }

    /// The environment of the timing children (ours and libplist-bench; not the memory probes): glibc's
    /// trim threshold set above anything a run frees. `keepFreedMemory()` sets it with `mallopt`, whose
    /// `int` stops at 2 GiB: at 2,000,000 models a run frees more than that at once, glibc gave it back to
    /// the kernel, and the next run faulted it in again (archive: 186,000-247,000 page faults per timed run
    /// after its warm-up; libplist's read: 1,720,000). The tunable takes a 64-bit size.
    var timingEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        let tunable = "glibc.malloc.trim_threshold=\(UInt64(1) << 62)"
        environment["GLIBC_TUNABLES"] = [environment["GLIBC_TUNABLES"], tunable].compactMap { $0 }.joined(separator: ":")
        return environment
    }

    mutating func run() throws {
        if !settings.logs.isEmpty {
            for path in settings.logs { try collect(String(contentsOfFile: path, encoding: .utf8)) }
            settings.processes = times.values.map(\.count).max() ?? 0
            settings.foundationMaximum = settings.sizes.filter { times["archiver.\($0).foundation-archive"] != nil }.max() ?? 0
            print("archive-bench: report from \(settings.logs.joined(separator: ", ")) (up to \(settings.processes) processes per figure)")
            Report(times: times, sizes: sizes, memory: memory, settings: settings, libplistNote: "", notes: notes).print()
            return
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("archive-bench-\(getpid())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let processes = settings.processes
        print("archive-bench: each figure is the median over \(processes) processes of each process's median CPU time "
              + "(±: the spread of those medians, (max - min) / median); every size runs in processes of its own")
        var plan: [[String]] = []
        if wants("small-dictionaries") { plan.append(["--child", "small-dictionaries"]) }
        if wants("data-blob") { plan.append(["--child", "data-blob"]) }
        if wants("archiver") || wants("memory") || wants("libplist") {
            for size in settings.sizes { plan.append(["--child", "archiver", "--count", "\(size)"]) }
        }
        if wants("codable") { plan.append(["--child", "codable"]) }
        if wants("collections") { plan.append(["--child", "collections"]) }
        if wants("typedstream") { plan.append(["--child", "typedstream"]) }
        if wants("chatdb") { plan.append(["--child", "chatdb"]) }
        let common = ["--runs", "\(settings.runs)", "--warmup", "\(settings.warmups)", "--foundation-max", "\(settings.foundationMaximum)"]
        // The first process of each writes the archives for the memory probes and libplist.
        let inTurns = settings.turns ? plan.filter { fitsInTurns($0) } : []
        for arguments in inTurns {
            print("  processes 1-\(processes) in turns: \(arguments.joined(separator: " "))")
            fflush(nil)
            for output in try runInTurns(arguments + common, processes: processes, firstExtra: ["--dir", directory],
                                         environment: timingEnvironment, verbose: settings.verbose) {
                try collect(output)
            }
        }
        let oneAfterAnother = plan.filter { !inTurns.contains($0) }
        for round in 1 ... processes where !oneAfterAnother.isEmpty {
            for arguments in oneAfterAnother {
                let extra = round == 1 ? ["--dir", directory] : []
                print("  process \(round)/\(processes): \(arguments.joined(separator: " "))")
                fflush(nil)
                try collect(runSelf(arguments + common + extra, environment: timingEnvironment))
            }
        }
        if wants("memory") || (settings.only.isEmpty) {
            for size in settings.sizes {
                var kinds = ["archive", "unarchive", "read"]
                if size <= settings.foundationMaximum { kinds.append("foundation-unarchive") }
                for kind in kinds {
                    print("  memory: \(kind) \(size.formatted())")
                    fflush(nil)
                    try collect(runSelf(["--memory", kind, "--count", "\(size)", "--dir", directory]))
                }
            }
            try collect(runSelf(["--memory", "blob-read"]))
        }
        for kind in MemoryProbe.inputFreeKinds where wants(kind.hasPrefix("typedstream") ? "typedstream" : kind) {
            print("  memory: \(kind)")
            fflush(nil)
            try collect(runSelf(["--memory", kind]))
        }
        if wants("typedstream") { try runPytypedstream(directory: directory) }
        // The large archives: made once each (in a process of its own), then measured in fresh processes.
        for (name, size, kind, rounds) in [("dump-memory", settings.dumpSize, "dump", 1), ("lazy-open", settings.lazySize, "lazy-open", processes)]
            where settings.only.contains(name) || settings.only.isEmpty {
            let file = "\(directory)/\(name)-\(size).bplist"
            print("  \(name): writing a \(size.formatted())-byte archive")
            fflush(nil)
            try collect(runSelf(["--large", "make-archive", "--file", file, "--bytes", "\(size)"]))
            guard FileManager.default.fileExists(atPath: file) else { continue }
            for round in 1 ... rounds {
                print("  process \(round)/\(rounds): \(name)")
                fflush(nil)
                try collect(runSelf(["--large", kind, "--file", file]))
            }
            try? FileManager.default.removeItem(atPath: file)
        }
        let libplist = settings.libplist ?? "Benchmarks/.build/release/libplist-bench"
        var libplistNote = ""
        if wants("libplist") {
            if FileManager.default.isExecutableFile(atPath: libplist) {
                // Files above 100 MB (2,000,000 models) get 1 timed run after 1 warm-up per process (libplist-bench says so).
                let files = settings.sizes.map { "\(directory)/archive-\($0).bplist" }
                    + ["\(directory)/small-dictionaries.bplist"]
                for round in 1 ... processes {
                    print("  process \(round)/\(processes): libplist-bench")
                    fflush(nil)
                    try collect(run(libplist, files.filter { FileManager.default.fileExists(atPath: $0) }, environment: timingEnvironment))
                }
            } else {
                libplistNote = "libplist: not measured (build it: swift build -c release --package-path Benchmarks)"
            }
        }
        var gnustepNote = ""
        if wants("gnustep") {
            let peer = GNUstepPeer(executable: settings.gnustep ?? GNUstepPeer.defaultPath, directory: directory)
            if FileManager.default.isExecutableFile(atPath: peer.executable) {
                let counts = settings.sizes.filter { $0 <= GNUstepPeer.largestSize }
                if counts.count < settings.sizes.count { notes.append(GNUstepPeer.tooLargeNote) }
                for round in 1 ... processes {
                    for count in counts {
                        print("  process \(round)/\(processes): GNUstep archive-peer --count \(count)")
                        fflush(nil)
                        try collect(run(peer.executable, peer.arguments(count: count, settings: settings, writesArchive: round == 1),
                                        environment: timingEnvironment))
                        if round == 1 { notes.append(peer.check(count: count)) }
                    }
                }
            } else {
                gnustepNote = GNUstepPeer.buildHint
            }
        }
        Report(times: times, sizes: sizes, memory: memory, settings: settings, libplistNote: libplistNote, notes: notes,
               gnustepNote: gnustepNote).print()
    }

    /// Runs pytypedstream on the typedstream workload's files once per process round (``PytypedstreamPeer``),
    /// or notes that its comparison was skipped.
    private mutating func runPytypedstream(directory: String) throws {
        guard let python = PytypedstreamPeer.interpreter else {
            notes.append(PytypedstreamPeer.missingNote)
            return
        }
        let peer = PytypedstreamPeer(directory: directory)
        for round in 1 ... settings.processes {
            print("  process \(round)/\(settings.processes): pytypedstream (\(python))")
            fflush(nil)
            try collect(run(python, peer.arguments(), environment: timingEnvironment))
        }
    }

    /// Runs this executable again with `arguments`: `/proc/self/exe` itself, not the path it names, so that
    /// a rebuild replacing the file while the driver runs does not change or break the children.
    private func runSelf(_ arguments: [String], environment: [String: String]? = nil) throws -> String {
        try run("/proc/self/exe", arguments, environment: environment)
    }

    /// Runs `executable` and returns its standard output; fails when it fails.
    private func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        var output = Data()
        while true {
            let chunk = pipe.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            output.append(chunk)
            if settings.verbose { FileHandle.standardOutput.write(chunk) }
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchError("\(executable) \(arguments.joined(separator: " ")) exited with status \(process.terminationStatus)")
        }
        return String(decoding: output, as: UTF8.self)
    }

    private mutating func collect(_ output: String) throws {
        for line in output.split(separator: "\n") where line.hasPrefix("@note ") {
            notes.append(String(line.dropFirst(6)))
        }
        for line in output.split(separator: "\n") where line.hasPrefix("@time ") || line.hasPrefix("@size ") || line.hasPrefix("@mem ") {
            let fields = line.split(separator: " ").map(String.init)
            switch fields.first {
            case "@time" where fields.count == 3: times[fields[1], default: []].append(Double(fields[2]) ?? .nan)
            case "@size" where fields.count == 3: sizes[fields[1]] = Int(fields[2])
            case "@mem" where fields.count == 4: memory[fields[1]] = (Int(fields[2]) ?? 0, Int(fields[3]) ?? 0)
            default: throw BenchError("unreadable result line: \(line)")
            }
        }
    }
}
