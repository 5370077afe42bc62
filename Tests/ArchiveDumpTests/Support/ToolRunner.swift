import Foundation
import Testing

/// Runs the built `archive-dump` executable, found next to the test bundle in the build products.
enum ToolRunner {
    typealias Result = ToolProcess.Result

    /// The built tool, next to the test bundle (the test target depends on it).
    static let executable: URL? = BuiltProducts.executable("archive-dump")

    /// Runs the tool with `arguments`, feeding `input` on standard input, in `currentDirectory` if given.
    static func run(_ arguments: [String], input: Data = Data(), currentDirectory: URL? = nil) throws -> Result {
        let tool = try #require(executable, "archive-dump not found next to the test bundle")
        return try ToolProcess.run(tool, arguments, input: input, currentDirectory: currentDirectory)
    }

    /// Writes `data` to a file alone in a new folder inside the running test's temporary directory and returns
    /// its path. The suite carries `.temporaryDirectory`, which removes the directory when the test ends.
    static func temporaryFile(_ data: Data, name: String = "input.plist") throws -> String {
        try TemporaryDirectory.file(data, name: name)
    }
}

/// Where the shared corpus and python3 are, if present.
enum TestEnvironment {
    /// The shared corpus folder (``Corpus/directory``).
    static var corpus: URL { Corpus.directory }

    /// Whether the corpus is there: tests that read it carry `.enabled(if: TestEnvironment.hasCorpus, ...)`
    /// so that a run without it reports them as skipped.
    static var hasCorpus: Bool { Corpus.isPresent }

    /// Whether python3 is found: tests that run it carry `.enabled(if: TestEnvironment.hasPython3, ...)`.
    static let hasPython3: Bool = python3() != nil

    /// Every file of the corpus (not MANIFEST.md / provenance.json), sorted; empty with a notice when absent.
    static func corpusFiles() -> [URL] {
        guard FileManager.default.fileExists(atPath: corpus.path) else {
            print("skipping: ../shared/corpus not found")
            return []
        }
        var files: [URL] = []
        if let walker = FileManager.default.enumerator(at: corpus, includingPropertiesForKeys: [.isRegularFileKey]) {
            for case let url as URL in walker {
                let isFile = (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) ?? false
                if isFile, !["MANIFEST.md", "provenance.json"].contains(url.lastPathComponent) { files.append(url) }
            }
        }
        return files.sorted { $0.path < $1.path }
    }

    /// The path of the first python3 on `PATH` (without a `PATH`, the usual places), or `nil`.
    static func python3() -> String? {
        let directories = ProcessInfo.processInfo.environment["PATH"].map { $0.split(separator: ":").map(String.init) }
            ?? ["/usr/bin", "/usr/local/bin", "/opt/homebrew/bin"]
        for path in directories.map({ $0 + "/python3" }) where FileManager.default.isExecutableFile(atPath: path) {
            return path
        }
        return nil
    }

    /// Runs a Python script with arguments; returns its status and output.
    static func runPython(_ python: String, script: String, arguments: [String] = []) throws -> (Int32, String) {
        try withTemporaryDirectory("archive-dump-py") { dir in
            let scriptURL = dir.appendingPathComponent("check.py"), outURL = dir.appendingPathComponent("out")
            try Data(script.utf8).write(to: scriptURL)
            _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = [scriptURL.path] + arguments
            let handle = try FileHandle(forWritingTo: outURL)
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: try Data(contentsOf: outURL), as: UTF8.self))
        }
    }
}
