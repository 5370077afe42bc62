import Foundation
import KeyedArchive

/// Measures the peak memory of one operation in a process of its own (`--memory KIND --count N --dir D`).
///
/// It notes the resident set size (`VmRSS` in /proc/self/status) before the operation, resets the peak
/// (`echo 5 > /proc/self/clear_refs`), runs the operation once keeping its result, and reads the peak
/// (`VmHWM`) and the resident size after. It prints `@mem <key> <peak above the start> <kept above the start>`:
/// the peak includes the input (for the readers, the archive file as `FileReader` maps it), the kept figure
/// is what the result (and, for zero-copy readers, the input it shares) still holds.
struct MemoryProbe {
    static let kinds = ["archive", "unarchive", "read", "foundation-unarchive", "blob-read"] + inputFreeKinds
    /// The kinds that make their input in the process (no `--count`, no `--dir`): typedstream's and chat.db's,
    /// whose inputs (blobs, the large file, the hex lines) exist before the peak is reset.
    static let inputFreeKinds = ["typedstream-blobs", "typedstream-large", "chatdb"]
    var kind: String
    var count: Int
    var directory: String

    func run() throws {
        let key = kind == "blob-read" || Self.inputFreeKinds.contains(kind) ? "memory.\(kind)" : "memory.\(count).\(kind)"
        switch kind {
        case "archive":
            let people = BenchPerson.graph(count: count)
            let (peak, kept) = try measure { try KeyedArchiver.archivedData(withRootObject: people) }
            print("@mem \(key) \(peak) \(kept)")
        case "unarchive":
            let (peak, kept) = try measure {
                let data = try FileReader().read(atPath: "\(directory)/archive-\(count).bplist")
                return try KeyedUnarchiver(count: count).decode([BenchPerson].self, from: data)
            }
            print("@mem \(key) \(peak) \(kept)")
        case "read":
            let (peak, kept) = try measure {
                let data = try FileReader().read(atPath: "\(directory)/archive-\(count).bplist")
                return try PropertyListValue(propertyListData: data, options: .forBenchmark(count: count))
            }
            print("@mem \(key) \(peak) \(kept)")
        case "foundation-unarchive":
            let (peak, kept) = try measure {
                let data = try Data(contentsOf: URL(fileURLWithPath: "\(directory)/foundation-\(count).bplist"), options: .mappedIfSafe)
                return try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSArray.self, FoundationPerson.self], from: data)
            }
            print("@mem \(key) \(peak) \(kept)")
        case "typedstream-blobs":
            let blobs = try AttributedBodySamples.typedstreamBlobs(count: TypedstreamWorkload().blobCount)
            let (peak, kept) = try measure { try blobs.map { try TypedstreamUnarchiver().foundationValue(from: $0) } }
            print("@mem \(key) \(peak) \(kept)")
        case "typedstream-large":
            let file = try AttributedBodySamples.largeArchives(count: TypedstreamWorkload().largeCount).typedstream
            let (peak, kept) = try measure { try TypedstreamUnarchiver().foundationValue(from: file) }
            print("@mem \(key) \(peak) \(kept)")
        case "chatdb":
            let lines = AttributedBodySamples.hexLines(try AttributedBodySamples.typedstreamBlobs(count: ChatDBWorkload().count))
            let (peak, kept) = try measure { ChatExtraction.extract(hexLines: lines, threads: ProcessInfo.processInfo.activeProcessorCount) }
            print("@mem \(key) \(peak) \(kept)")
        default:  // blob-read: the 64 MiB blob's bytes exist before the clock; reading them must not copy them.
            let bytes = BinaryPropertyListWriter().write(.data(Data(count: 64 << 20)))
            let (peak, kept) = try measure { try BinaryPropertyListReader().read(bytes) }
            print("@mem \(key) \(peak) \(kept)")
        }
    }

    /// Runs `body` once, keeping its result, and returns the peak and the final resident size above the start.
    private func measure<T>(_ body: () throws -> T) throws -> (peak: Int, kept: Int) {
        let start = Self.status("VmRSS")
        Self.resetPeak()
        let result = try body()
        let peak = Self.status("VmHWM")
        let end = Self.status("VmRSS")
        withExtendedLifetime(result) {}
        return (max(0, peak - start), max(0, end - start))
    }

    /// A field of /proc/self/status in bytes (the kernel gives kB).
    static func status(_ field: String) -> Int {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            let digits = line.dropFirst(field.count + 1).filter(\.isNumber)
            return (Int(String(digits)) ?? 0) * 1024
        }
        return 0
    }

    /// Sets the peak resident size (VmHWM) to the current one (Linux 4.0 and later).
    static func resetPeak() {
        guard let file = fopen("/proc/self/clear_refs", "w") else { return }
        fputs("5", file)
        fclose(file)
    }
}
