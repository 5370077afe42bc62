import Foundation
import KeyedArchive

#if canImport(Glibc)
import Glibc
#endif

/// The large-archive measurements of issue #18's memory goal, each in a process of its own
/// (`--large KIND --file PATH [--bytes N]`):
///
/// - `make-archive`: writes an archive of the archiver workload's model of about `--bytes` bytes with
///   `KeyedArchiver` (once per run, in the driver's temporary folder), or prints a `@note` and writes
///   nothing when the disk has not that much room (with a margin).
/// - `dump`: runs the built `archive-dump` (beside this executable) on the file, output to /dev/null, and
///   prints its peak RSS from `wait4`'s `ru_maxrss`: `@mem memory.dump <peak bytes> <file bytes>`.
/// - `lazy-open`: opens the file with `LazyArchivedObjectGraph` (mapped) and reads one object (the one in
///   the middle of `$objects`),
///   timed (`@time large.lazy-open <CPU seconds>`) and with its peak RSS above the start, mapped pages
///   included (`@mem memory.lazy-open <peak> <file bytes>`). The file was just written, so its pages are
///   in the page cache: this is the warm-cache figure.
struct LargeArchiveProbe {
    static let kinds = ["make-archive", "dump", "lazy-open"]
    /// About this many archive bytes per model (measured: 100,013,717 bytes for 400,000 models, 1,201,444,543 for 4,096,000).
    static let bytesPerModel = 275
    /// Timed opens per process in `lazy-open`.
    static let opens = 25
    var kind: String
    var file: String
    var bytes: Int

    func run() throws {
        switch kind {
        case "make-archive": try makeArchive()
        case "dump": try dump()
        default: try lazyOpen()
        }
    }

    private func makeArchive() throws {
        var info = statvfs()
        let directory = (file as NSString).deletingLastPathComponent
        if statvfs(directory, &info) == 0 {
            let free = Int(info.f_bavail) * Int(info.f_frsize)
            guard free > bytes + bytes / 4 + (256 << 20) else {
                print("@note skipped the \(bytes.formatted())-byte archive: \(free.formatted()) bytes free in \(directory)")
                return
            }
        }
        let count = max(1_000, bytes / Self.bytesPerModel)
        let data = try KeyedArchiver.archivedData(withRootObject: BenchPerson.graph(count: count))
        try data.write(to: URL(fileURLWithPath: file))
        print("  wrote \(file): \(data.count.formatted()) bytes, \(count.formatted()) models")
    }

    /// The `archive-dump` built with this executable.
    static var dumpTool: String {
        let me = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return ((me as NSString).deletingLastPathComponent as NSString).appendingPathComponent("archive-dump")
    }

    private func dump() throws {
        let tool = Self.dumpTool
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            print("@note archive-dump peak memory: not measured (build it: swift build -c release --product archive-dump)")
            return
        }
        let size = try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int ?? 0
        // An opaque pointer (`void *`) in Darwin's <spawn.h>, a struct in glibc's.
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        let arguments = [tool, file]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        // This process's environment, passed explicitly: Darwin's C library does not declare `environ`.
        var envp: [UnsafeMutablePointer<CChar>?] = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        guard posix_spawn(&pid, tool, &actions, nil, &argv, &envp) == 0 else { throw BenchError("cannot start \(tool)") }
        var status: Int32 = 0
        var usage = rusage()
        guard wait4(pid, &status, 0, &usage) == pid, status == 0 else { throw BenchError("\(tool) \(file) failed (status \(status))") }
        let peak = Int(usage.ru_maxrss) * maximumResidentSetSizeUnit
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        print("  archive-dump \(file): peak RSS \(peak.formatted()) bytes for \(size.formatted()) (\(String(format: "%.2f", Double(peak) / Double(max(1, size))))x), CPU \(String(format: "%.2f", cpu)) s")
        print("@mem memory.dump \(peak) \(size)")
        print("@time large.dump \(cpu)")
    }

    private func lazyOpen() throws {
        let size = try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int ?? 0
        let start = MemoryProbe.status("VmRSS")
        MemoryProbe.resetPeak()
        // One untimed open (the process's first use of this code: its pages and one-time setup), then
        // `Self.opens` opens, each mapping the file afresh; the median CPU time and the peak over all of them.
        // An open takes 0.05-0.3 ms, so a single interrupt or page-cache delay moves one open by half; the
        // median of 5 opens moved 43-170% from process to process (measured, 200 MB archive), of 25 much less.
        _ = try openAndReadOne()
        var cpus: [Double] = [], walls: [Double] = []
        var shown = ""
        for _ in 0 ..< Self.opens {
            let wallStart = DispatchTime.now().uptimeNanoseconds
            let cpuStart = processCPUSeconds()
            let (uid, object, count) = try openAndReadOne()
            cpus.append(processCPUSeconds() - cpuStart)
            walls.append(Double(DispatchTime.now().uptimeNanoseconds - wallStart) / 1e9)
            shown = "\(count.formatted()) objects) and object #\(uid.value) (\(object.instance?.className ?? "a value")"
        }
        let peak = max(0, MemoryProbe.status("VmHWM") - start)
        print("  lazy open of \(size.formatted()) bytes (\(shown)): cpu \(format(median(cpus))) wall \(format(median(walls))) "
              + "(medians of \(Self.opens)), peak RSS +\(peak.formatted()) bytes")
        print("@time large.lazy-open \(median(cpus))")
        print("@mem memory.lazy-open \(peak) \(size)")
    }

    /// Opens the file lazily and reads one model object from the middle (the root is the array of all of
    /// them: not "one object"): the first instance from the middle of `$objects` on (the entries before
    /// it, strings and such, are read too).
    private func openAndReadOne() throws -> (UID, ArchivedObject, Int) {
        // The bench's own file: trusted, so above the default object limit (16,777,216) that guards untrusted input.
        var options = PropertyListReadingOptions()
        options.maximumObjectCount = Int.max
        let graph = try LazyArchivedObjectGraph(contentsOfFile: file, options: options)
        var uid = UID(UInt64(graph.count / 2))
        var object = try graph.object(uid)
        while object?.instance == nil, uid.value + 1 < UInt64(graph.count) {
            uid = UID(uid.value + 1)
            object = try graph.object(uid)
        }
        guard let object else { throw BenchError("\(file) has no object \(uid.value)") }
        return (uid, object, graph.count)
    }
}
