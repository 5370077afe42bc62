import Foundation

/// Runs a built tool (`archive-dump`, `plutil`, the toolchain's `plutil`, the samples) as a child process for
/// the end-to-end tests, with its standard streams in files so that no pipe can fill up and block the child.
public enum ToolProcess {
    /// What a finished run left: its exit status and its output.
    public struct Result: Equatable, Sendable {
        /// The exit status, or the signal's number when ``crashed``.
        public var status: Int32
        /// Whether the process ended by a signal.
        public var crashed: Bool
        /// Everything the process wrote to standard output.
        public var stdout: Data
        /// Standard error as UTF-8 text.
        public var stderr: String
        /// Standard output as UTF-8 text.
        public var text: String { String(decoding: stdout, as: UTF8.self) }

        public init(status: Int32, crashed: Bool, stdout: Data, stderr: String) {
            self.status = status
            self.crashed = crashed
            self.stdout = stdout
            self.stderr = stderr
        }
    }

    /// Runs `executable` with `arguments` and waits for it to end.
    ///
    /// - Parameters:
    ///   - input: what the child reads on standard input.
    ///   - currentDirectory: the child's working directory; the test process's when nil.
    ///   - environment: the child's whole environment; the test process's when nil.
    public static func run(_ executable: URL, _ arguments: [String], input: Data = Data(),
                           currentDirectory: URL? = nil, environment: [String: String]? = nil) throws -> Result {
        try withTemporaryDirectory("tool-io") { scratch in
            let inURL = scratch.appendingPathComponent("in"), outURL = scratch.appendingPathComponent("out"),
                errURL = scratch.appendingPathComponent("err")
            try input.write(to: inURL)
            _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
            _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
            let process = Process()
            process.executableURL = executable
            process.arguments = arguments
            if let currentDirectory { process.currentDirectoryURL = currentDirectory }
            if let environment { process.environment = environment }
            process.standardInput = try FileHandle(forReadingFrom: inURL)
            process.standardOutput = try FileHandle(forWritingTo: outURL)
            process.standardError = try FileHandle(forWritingTo: errURL)
            try process.run()
            process.waitUntilExit()
            return Result(status: process.terminationStatus, crashed: process.terminationReason == .uncaughtSignal,
                          stdout: try Data(contentsOf: outURL),
                          stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self))
        }
    }
}
