// archive-bench: times KeyedArchive against Foundation (and libplist and GNUstep, when built), each size in processes of its own.
//
//     swift run -c release archive-bench [--processes N] [--sizes LIST] [--only NAME] [--markdown] [--help]
//
// The driver (the default mode) runs every workload in `--processes` child processes (this executable again,
// with `--child`), so that each size's figures come from a fresh process, and reports the median over the
// processes of each process's median, with the spread. The processes of one workload and size take turns
// (Turns.swift), so that a busy minute of a shared machine falls on all of them alike. `--child NAME` runs one workload in this process and
// prints human-readable lines plus machine-readable `@time`/`@size` lines; `--memory KIND` measures one
// operation's peak memory (see MemoryProbe.swift).
//
// To add a workload, conform a type to `Workload` in its own file, add it to `makeWorkload`, and to the
// driver's plan (Driver.swift). For profiling, ARCHIVE_BENCH_OURS_ONLY=1 times only KeyedArchive's
// operations, ARCHIVE_BENCH_GROUP=TEXT runs only the groups whose title contains TEXT,
// ARCHIVE_BENCH_OPERATION=ID times only the operations with that id (`codable-unarchive`), and
// ARCHIVE_BENCH_SAMPLES=1 prints every run's CPU time under its median (all with --child).
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Stops before anything starts where the benchmark cannot run: it reads `/proc` (its own executable, which
/// it runs again for each child; the memory figures; the page counters it resets) and tunes glibc's malloc.
func exitUnlessLinux() {
    #if !os(Linux)
    FileHandle.standardError.write(Data("archive-bench runs on Linux only: it needs /proc and glibc's malloc.\n".utf8))
    exit(69)  // EX_UNAVAILABLE
    #endif
}
exitUnlessLinux()

let workloadNames = ["small-dictionaries", "data-blob", "archiver", "codable", "collections", "typedstream", "chatdb"]
/// `--only` names of the large-archive measurements (LargeArchiveProbe.swift), run by the driver itself.
let largeNames = ["dump-memory", "lazy-open"]

/// The workload `name` for a child process.
@MainActor func makeWorkload(_ name: String, count: Int?, directory: String?) -> any Workload {
    switch name {
    case "small-dictionaries": return SmallDictionariesWorkload(outputDirectory: directory)
    case "data-blob": return DataBlobWorkload()
    case "codable": return CodableWorkload()
    case "collections": return CollectionsWorkload()
    case "typedstream": return TypedstreamWorkload(outputDirectory: directory)
    case "chatdb": return ChatDBWorkload()
    default:
        let count = count ?? 20_000
        return ArchiverWorkload(count: count, includesFoundation: count <= settings.foundationMaximum, outputDirectory: directory)
    }
}

@MainActor func printHelp() {
    print("""
    OVERVIEW: Times KeyedArchive against Foundation (and libplist and GNUstep, when built), each size in processes of its own.

    USAGE: archive-bench [--processes <n>] [--sizes <list>] [--only <name>] [--markdown]

    OPTIONS:
      --processes <n> Child processes per workload and size; figures are the median over the processes
                      of each process's median CPU time, with the spread (default: 5). The processes of one
                      workload and size run at the same time and take turns, a few timed runs each, so that
                      each one's runs are spread over the same stretch of time (for memory, one after
                      another: archiver sizes above \(DriverSettings.largestSizeInTurns.formatted()), and above 20,000 where Foundation runs).
      --one-after-another  Run each process's runs in one stretch, the processes one after another.
      --sizes <list>  Archiver sizes, comma-separated (default: 20000,200000,2000000). Foundation is
                      timed up to --foundation-max models.
      --foundation-max <n>  The largest size Foundation's archiver is timed at (default: 200000).
      --runs <n>      Timed runs per operation in each process (default: 5; fewer for the slow ones).
      --warmup <n>    Untimed runs before them (default: 3).
      --only <name>   Run only this workload (repeatable): \(workloadNames.joined(separator: ", ")), memory, libplist,
                      gnustep, \(largeNames.joined(separator: ", ")) (libplist runs the archiver's children too: it
                      reads the archives they write)
      --dump-size <MB>  The archive archive-dump's peak memory is measured on (default: 100 MB).
      --lazy-size <MB>  The archive opened lazily to read one object (default: 1024 MB; skipped with a note
                      when the disk has not that much room).
      --libplist <path>  The libplist comparison (default: Benchmarks/.build/release/libplist-bench, when built
                      with `swift build -c release --package-path Benchmarks`).
      --gnustep <path>  GNUstep's NSKeyedArchiver/NSKeyedUnarchiver as the archive/unarchive peer (default:
                      \(GNUstepPeer.defaultPath), when built with Benchmarks/GNUstep/build.sh).
      --markdown      Also print the Performance article's table from this run's figures.
      --verbose       Show the children's own output.
      --from-log <path>  Report (and --markdown) from the @ lines of earlier --verbose runs' output instead of
                      measuring (repeatable: merges runs, e.g. an interrupted one).
      -h, --help      Show help information.

    INTERNAL (what the driver runs):
      --child <name> [--count <n>] [--dir <path>] [--turns]   one workload in this process (--turns: wait for
                                                     a line on standard input before each turn, print @turn after it)
      --memory <kind> --count <n> --dir <path>       peak memory of one operation (see MemoryProbe.swift)
      --large <kind> --file <path> [--bytes <n>]     a large-archive measurement (see LargeArchiveProbe.swift)

    Build with optimisations: swift run -c release archive-bench
    """)
}

func usageError(_ message: String) -> Never {
    FileHandle.standardError.write(Data("""
    Error: \(message)
    Usage: archive-bench [--processes <n>] [--sizes <list>] [--only <name>] [--markdown]
    See 'archive-bench --help' for more information.

    """.utf8))
    exit(64)
}

var settings = DriverSettings()
var child: String?
var memoryKind: String?
var largeKind: String?
var file: String?
var bytes = 100_000_000
var count: Int?
var directory: String?
var takesTurns = false
var arguments = CommandLine.arguments.dropFirst()
@MainActor func positive(_ flag: String, minimum: Int = 1) -> Int {
    guard let text = arguments.popFirst(), let n = Int(text), n >= minimum else { usageError("\(flag) needs an integer >= \(minimum)") }
    return n
}
while let argument = arguments.popFirst() {
    switch argument {
    case "-h", "--help":
        printHelp()
        exit(0)
    case "--runs": settings.runs = positive(argument)
    case "--warmup": settings.warmups = positive(argument, minimum: 0)
    case "--processes": settings.processes = positive(argument)
    case "--count": count = positive(argument)
    case "--sizes":
        guard let text = arguments.popFirst() else { usageError("--sizes needs a list") }
        let sizes = text.split(separator: ",").compactMap { Int($0) }
        guard !sizes.isEmpty, sizes.allSatisfy({ $0 > 0 }) else { usageError("--sizes needs positive integers separated by commas") }
        settings.sizes = sizes
    case "--only":
        guard let name = arguments.popFirst(), workloadNames.contains(name) || largeNames.contains(name) || ["memory", "libplist", "gnustep"].contains(name) else {
            usageError("--only needs one of \(workloadNames.joined(separator: ", ")), memory, libplist, gnustep, \(largeNames.joined(separator: ", "))")
        }
        settings.only.insert(name)
    case "--child":
        guard let name = arguments.popFirst(), workloadNames.contains(name) else { usageError("--child needs a workload name") }
        child = name
    case "--memory":
        guard let kind = arguments.popFirst(), MemoryProbe.kinds.contains(kind) else {
            usageError("--memory needs one of \(MemoryProbe.kinds.joined(separator: ", "))")
        }
        memoryKind = kind
    case "--large":
        guard let kind = arguments.popFirst(), LargeArchiveProbe.kinds.contains(kind) else {
            usageError("--large needs one of \(LargeArchiveProbe.kinds.joined(separator: ", "))")
        }
        largeKind = kind
    case "--file":
        guard let path = arguments.popFirst() else { usageError("--file needs a path") }
        file = path
    case "--bytes": bytes = positive(argument)
    case "--dump-size": settings.dumpSize = positive(argument) * 1_000_000
    case "--lazy-size": settings.lazySize = positive(argument) * 1_000_000
    case "--dir":
        guard let path = arguments.popFirst() else { usageError("--dir needs a path") }
        directory = path
    case "--libplist":
        guard let path = arguments.popFirst() else { usageError("--libplist needs a path") }
        settings.libplist = path
    case "--gnustep":
        guard let path = arguments.popFirst() else { usageError("--gnustep needs a path") }
        settings.gnustep = path
    case "--foundation-max": settings.foundationMaximum = positive(argument)
    case "--from-log":
        guard let path = arguments.popFirst() else { usageError("--from-log needs a path") }
        settings.logs.append(path)
    case "--turns": takesTurns = true
    case "--one-after-another": settings.turns = false
    case "--markdown": settings.markdown = true
    case "--verbose": settings.verbose = true
    default:
        usageError("unknown argument '\(argument)'")
    }
}

#if DEBUG
print("warning: this is a debug build; use `swift run -c release archive-bench` for meaningful figures")
#endif

do {
    if let largeKind {
        guard let file else { usageError("--large needs --file <path>") }
        try LargeArchiveProbe(kind: largeKind, file: file, bytes: bytes).run()
    } else if let memoryKind {
        try MemoryProbe(kind: memoryKind, count: count ?? 20_000, directory: directory ?? ".").run()
    } else if let child {
        try runChild(makeWorkload(child, count: count, directory: directory), runs: settings.runs, warmups: settings.warmups,
                     turns: takesTurns ? Turns() : nil)
    } else {
        var driver = Driver(settings: settings)
        try driver.run()
    }
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}
