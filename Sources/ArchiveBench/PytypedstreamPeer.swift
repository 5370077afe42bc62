import Foundation

/// pytypedstream (Python's typedstream reader, https://pypi.org/project/pytypedstream/) as the typedstream
/// workload's peer: the driver runs it once per process round, like libplist-bench, on the files the
/// workload's first process wrote (`typedstream-blobs.hex`, one blob per line in hex; `typedstream-large.typedstream`).
///
/// The interpreter is the typedstream tests' (`PytypedstreamOracle`): `$KEYEDARCHIVE_PYTYPEDSTREAM_PYTHON`,
/// else `.build/pytypedstream/bin/python3` (where `.ci/run` installs it), else `python3` on the PATH,
/// whichever first imports `typedstream`.
struct PytypedstreamPeer {
    var directory: String

    static let blobsFile = "typedstream-blobs.hex"
    static let largeFile = "typedstream-large.typedstream"
    static let missingNote = "pytypedstream: comparison skipped (not installed: python3 -m venv .build/pytypedstream && "
        + ".build/pytypedstream/bin/pip install pytypedstream)"

    /// Times `typedstream.unarchive_from_data` (its high-level reader, which makes its object model) over
    /// every blob in one run, and over the large file, with the same rule as our operations: warm-up
    /// runs, then timed runs until at least 0.5 s of CPU time (at least 3, at most 20); prints the median
    /// CPU time (`time.process_time`) of each as `@time typedstream.pytypedstream-<what>`.
    static let script = """
    import sys, time, statistics, typedstream
    blobs_path, large_path = sys.argv[1], sys.argv[2]
    blobs = [bytes.fromhex(line) for line in open(blobs_path) if line.strip()]
    large = open(large_path, "rb").read()
    def timed(name, work, warmups):
        for _ in range(warmups):
            work()
        samples = []
        while len(samples) < 3 or (sum(samples) < 0.5 and len(samples) < 20):
            start = time.process_time()
            result = work()
            samples.append(time.process_time() - start)
            del result
        print("@time typedstream.pytypedstream-%s %r" % (name, statistics.median(samples)), flush=True)
    timed("blobs", lambda: [typedstream.unarchive_from_data(b) for b in blobs], 1)
    timed("large", lambda: typedstream.unarchive_from_data(large), 1)
    """

    /// The first interpreter that imports `typedstream`, or nil.
    static var interpreter: String? {
        var candidates: [String] = []
        if let chosen = ProcessInfo.processInfo.environment["KEYEDARCHIVE_PYTYPEDSTREAM_PYTHON"] { candidates.append(chosen) }
        candidates += [".build/pytypedstream/bin/python3", "/usr/bin/python3", "/usr/local/bin/python3"]
        return candidates.first { path in
            guard FileManager.default.isExecutableFile(atPath: path) else { return false }
            let process = Process()
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = ["-c", "import typedstream"]
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { return false }
            process.waitUntilExit()
            return process.terminationStatus == 0
        }
    }

    /// The arguments that run ``script`` over the workload's files.
    func arguments() -> [String] {
        ["-c", Self.script, "\(directory)/\(Self.blobsFile)", "\(directory)/\(Self.largeFile)"]
    }
}
