// Shared by every fuzz entry file (compiled into each fuzz executable by Scripts/fuzz.sh).
// Aborting here is deliberate: it is how libFuzzer learns that a property was violated.
// Nothing in this folder is part of the library.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import KeyedArchive

/// Prints `message` to standard error and aborts, so libFuzzer records the input as a finding.
func fuzzViolation(_ message: String) -> Never {
    var text = "FUZZ PROPERTY VIOLATED: " + message + "\n"
    if text.utf8.count > 4000 { text = String(text.prefix(4000)) + "...\n" }
    text.withCString { _ = fputs($0, stderr) }
    abort()
}

/// Limits tighter than the defaults, so a small input cannot make the target spend seconds or
/// gigabytes (the library's bounds are what is being tested; these keep each run short).
enum FuzzLimits {
    static var readingOptions: PropertyListReadingOptions {
        var options = PropertyListReadingOptions()
        options.maximumDepth = 256
        options.maximumObjectCount = 1 << 16
        return options
    }
}
