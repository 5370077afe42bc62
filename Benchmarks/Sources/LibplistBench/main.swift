// libplist-bench FILE...: times KeyedArchive's binary property-list reader against the C library libplist
// (`plist_from_bin`) on the same bytes, in the same process, alternating the two.
//
// For each file it prints the medians of CPU time and `@time libplist.<file stem>.ours|libplist <seconds>`
// lines that `archive-bench` (the root package's benchmark) reads. Each result is freed after the clock
// stops, for both readers.
import CLibplist
import Foundation
import KeyedArchive

let runs = 5
let warmups = 3

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

/// Times `body` once; `body` returns a value to free after the clock stops.
func timed(_ body: () throws -> () -> Void) rethrows -> Double {
    let start = cpuSeconds()
    let free = try body()
    let seconds = cpuSeconds() - start
    free()
    return seconds
}

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
        for _ in 0 ..< warmups {
            _ = try timed(ours)
            _ = try timed(libplist)
        }
        var oursTimes: [Double] = [], theirTimes: [Double] = []
        for _ in 0 ..< runs {
            oursTimes.append(try timed(ours))
            theirTimes.append(try timed(libplist))
        }
        let o = median(oursTimes), l = median(theirTimes)
        print("\(stem) (\(data.count) bytes): KeyedArchive " + String(format: "%.2f ms, libplist plist_from_bin %.2f ms: %.2fx faster",
                                                                                 o * 1000, l * 1000, l / o))
        print("@time libplist.\(stem).ours \(o)")
        print("@time libplist.\(stem).libplist \(l)")
    }
} catch {
    FileHandle.standardError.write(Data("Error: \(error)\n".utf8))
    exit(1)
}
