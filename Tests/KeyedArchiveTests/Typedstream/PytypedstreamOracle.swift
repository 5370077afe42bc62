import Foundation
import Testing

/// pytypedstream (`pip install pytypedstream`), an independent typedstream reader, as a test oracle.
///
/// `Tests/TypedstreamOracle/pytypedstream_oracle.py` runs it over many files in one process and prints one
/// JSON line per file: pytypedstream's low-level event stream (``Reading/events``) and its high-level
/// unarchiver's values (``Reading/decoded``), in the typed forms that script documents. The interpreter is,
/// in order: `$KEYEDARCHIVE_PYTYPEDSTREAM_PYTHON`, `<package root>/.build/pytypedstream/bin/python3` (where
/// `.ci/run` installs it), `python3` on the PATH; the first that imports `typedstream` is used.
///
/// A test that needs it carries ``Testing/Trait/requiresPytypedstream``, so that a run without it reports the
/// test as skipped, never as passed (and `.ci/run` fails on any skip).
enum PytypedstreamOracle {
    /// What pytypedstream made of one file. `@unchecked Sendable`: it holds JSON values parsed once and
    /// never changed, so the corpus's readings can be shared by the tests of one process.
    struct Reading: @unchecked Sendable {
        /// `{"byteOrder": "little", "systemVersion": 1000, "streamerVersion": 4}`, or nil when it rejected the file.
        var header: [String: Any]?
        /// The events, each a JSON array such as `["class", "NSString", 1]`; empty when rejected.
        var events: [Any]
        /// Its low-level reader's error (`InvalidTypedStreamError: ...`), when it rejected the file.
        var readError: String?
        /// The top-level groups its unarchiver decoded, each `[encodings, values]`; nil when decoding failed.
        var decoded: [Any]?
        /// Its unarchiver's error, when decoding failed.
        var decodeError: String?
    }

    /// An oracle failure (the interpreter could not run or printed something unexpected).
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static let script = Corpus.packageRoot.appendingPathComponent("Tests/TypedstreamOracle/pytypedstream_oracle.py")

    /// The interpreter that imports `typedstream`, or nil (looked up once).
    static let interpreter: String? = {
        var candidates: [String] = []
        if let override = ProcessInfo.processInfo.environment["KEYEDARCHIVE_PYTYPEDSTREAM_PYTHON"], !override.isEmpty {
            candidates.append(override)
        }
        candidates.append(Corpus.packageRoot.appendingPathComponent(".build/pytypedstream/bin/python3").path)
        candidates.append("python3")
        for candidate in candidates {
            let executable = candidate.contains("/") ? candidate : "/usr/bin/env"
            let arguments = candidate.contains("/") ? [script.path, "--version"] : [candidate, script.path, "--version"]
            guard let run = try? OracleProcess.run(URL(fileURLWithPath: executable), arguments), run.status == 0,
                  String(decoding: run.stdout, as: UTF8.self).hasPrefix("pytypedstream-oracle ok")
            else { continue }
            return candidate
        }
        return nil
    }()

    /// Whether pytypedstream runs, for ``Testing/Trait/requiresPytypedstream``.
    static var isAvailable: Bool { interpreter != nil }

    /// pytypedstream's reading of each file, in order, from one run.
    static func read(files: [URL]) throws -> [Reading] {
        guard let interpreter else { throw Failure(description: "pytypedstream is not installed") }
        if files.isEmpty { return [] }
        let executable = interpreter.contains("/") ? interpreter : "/usr/bin/env"
        let prefix = interpreter.contains("/") ? [script.path] : [interpreter, script.path]
        let run = try OracleProcess.run(URL(fileURLWithPath: executable), prefix + files.map(\.path))
        guard run.status == 0 else {
            throw Failure(description: "pytypedstream oracle exited \(run.status): \(String(decoding: run.stderr, as: UTF8.self))")
        }
        let lines = run.stdout.split(separator: UInt8(ascii: "\n"))
        guard lines.count == files.count else {
            throw Failure(description: "pytypedstream oracle printed \(lines.count) lines for \(files.count) files")
        }
        return try lines.map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any] else {
                throw Failure(description: "oracle line is not an object")
            }
            return Reading(header: object["header"] as? [String: Any], events: object["events"] as? [Any] ?? [],
                           readError: object["error"] as? String, decoded: object["decoded"] as? [Any],
                           decodeError: object["decodeError"] as? String)
        }
    }

    /// pytypedstream's reading of every typedstream file of the corpus (``TypedstreamCorpusTests/files``, in
    /// that order), from one run per test process: the run takes tens of seconds, and the tests that compare
    /// with it share it. A failed run fails each of them with the same error.
    static let corpusReadings: Result<[Reading], any Error> = Result {
        try read(files: TypedstreamCorpusTests.files.map(Corpus.url))
    }

    /// pytypedstream's reading of `bytes`.
    static func read(bytes: Data) throws -> Reading {
        try withTemporaryFile(bytes, name: "oracle.typedstream") { try read(files: [$0])[0] }
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only when pytypedstream is installed (see ``PytypedstreamOracle``); otherwise the run
    /// reports it as skipped.
    static var requiresPytypedstream: Self {
        .enabled(if: PytypedstreamOracle.isAvailable, "needs pytypedstream (.ci/run installs it in .build/pytypedstream)")
    }
}
