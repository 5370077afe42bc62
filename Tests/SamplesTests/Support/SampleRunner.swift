import Foundation
import Testing

/// Runs the built sample executables (`notes`, `schema-migration`, `keyedarchive-demo`), which the test
/// target depends on, so they are built next to the test bundle.
enum SampleRunner {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The package root: the folder holding Package.swift.
    static var packageRoot: URL { BuiltProducts.packageRoot }

    /// The built executable called `name`.
    static func executable(_ name: String) throws -> URL {
        guard let tool = BuiltProducts.executable(name) else {
            throw SampleRunnerError(message: "\(name) not found next to the test bundle")
        }
        return tool
    }

    /// Runs `name` with `arguments` and an environment (by default the test's own).
    static func run(_ name: String, _ arguments: [String], environment: [String: String]? = nil) throws -> Result {
        let tool = try executable(name)
        let result = try ToolProcess.run(tool, arguments, currentDirectory: packageRoot, environment: environment)
        return Result(status: result.status, stdout: result.text, stderr: result.stderr)
    }

    /// The permission bits of the file or directory at `path`.
    static func permissions(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        guard let mode = attributes[.posixPermissions] as? Int else {
            throw SampleRunnerError(message: "\(path): no POSIX permissions")
        }
        return mode & 0o7777
    }

    /// The process's umask, read from /proc (setting it to read it would race with other tests), or nil.
    static func currentUmask() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("Umask:") {
            return Int(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8)
        }
        return nil
    }
}

struct SampleRunnerError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}
