import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Directories for the files a test makes, under the system's temporary directory (`TMPDIR`, else /tmp), each
/// removed with everything in it when its test ends, so that runs of the suite leave nothing there.
///
/// Two forms: ``withTemporaryDirectory(_:_:)`` around the code that uses the files, or the
/// ``Testing/Trait/temporaryDirectory(_:)`` trait on a suite, which gives each of its tests a directory
/// (``current``) that helpers such as ``file(_:name:)`` fill.
public enum TemporaryDirectory {
    /// The running test's directory, while a test under the ``Testing/Trait/temporaryDirectory(_:)`` trait runs;
    /// nil elsewhere.
    @TaskLocal public static var current: URL?

    /// Creates a new, empty directory `<label>-XXXXXX` under the system's temporary directory with `mkdtemp`
    /// (mode 0700, a name no other test or process holds) and returns it. The caller removes it.
    public static func create(_ label: String) throws -> URL {
        let base = FileManager.default.temporaryDirectory.path
        var template = Array("\(base)/\(label)-XXXXXX".utf8CString)
        let created = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let start = buffer.baseAddress, mkdtemp(start) != nil else { return nil }
            return String(cString: start)
        }
        guard let created else {
            throw TemporaryDirectoryError(message: "mkdtemp \(base)/\(label)-XXXXXX: \(String(cString: strerror(errno)))")
        }
        return URL(fileURLWithPath: created, isDirectory: true)
    }

    /// Removes `directory` and everything in it; a failure is ignored (a test never fails for its clean-up).
    public static func remove(_ directory: URL) {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A new, empty directory of its own inside the running test's ``current`` directory.
    ///
    /// - Throws: when no test with the ``Testing/Trait/temporaryDirectory(_:)`` trait is running.
    public static func subdirectory() throws -> URL {
        guard let current else {
            throw TemporaryDirectoryError(message: "no temporary directory: give the suite the .temporaryDirectory trait")
        }
        let directory = current.appendingPathComponent(UUID().uuidString, isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        return directory
    }

    /// Writes `data` to a file called `name`, alone in a new ``subdirectory()``, and returns the file's path.
    public static func file(_ data: Data, name: String) throws -> String {
        let url = try subdirectory().appendingPathComponent(name)
        try data.write(to: url)
        return url.path
    }
}

/// Runs `body` with a new, empty temporary directory (``TemporaryDirectory/create(_:)``) and removes the
/// directory with its contents when `body` returns or throws.
public func withTemporaryDirectory<R>(_ label: String = "keyedarchive-test", _ body: (URL) throws -> R) throws -> R {
    let directory = try TemporaryDirectory.create(label)
    defer { TemporaryDirectory.remove(directory) }
    return try body(directory)
}

/// Runs `body` with a new, empty temporary directory (``TemporaryDirectory/create(_:)``) and removes the
/// directory with its contents when `body` returns or throws.
public func withTemporaryDirectory<R>(_ label: String = "keyedarchive-test", _ body: (URL) async throws -> R) async throws -> R {
    let directory = try TemporaryDirectory.create(label)
    defer { TemporaryDirectory.remove(directory) }
    return try await body(directory)
}

/// Runs `body` with the URL of a file called `name` holding `data`, alone in a new temporary directory that is
/// removed with the file when `body` returns or throws.
public func withTemporaryFile<R>(_ data: Data, name: String, _ body: (URL) throws -> R) throws -> R {
    try withTemporaryDirectory { directory in
        let url = directory.appendingPathComponent(name)
        try data.write(to: url)
        return try body(url)
    }
}

/// Why no temporary directory could be made.
public struct TemporaryDirectoryError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Gives each test (each case of a parameterized test) a temporary directory of its own,
/// ``TemporaryDirectory/current``, made before the test (and its suite's `init`) runs and removed with its
/// contents when the test ends, whether it passes, fails or throws.
public struct TemporaryDirectoryTrait: TestTrait, SuiteTrait, TestScoping {
    /// The start of the directory's name.
    public var label: String

    /// On a suite, every test in it (nested suites too) gets the trait.
    public var isRecursive: Bool { true }

    /// One scope per test case: never for a suite or a test function as a whole.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try await withTemporaryDirectory(label) { directory in
            try await TemporaryDirectory.$current.withValue(directory) { try await function() }
        }
    }
}

extension Trait where Self == TemporaryDirectoryTrait {
    /// A temporary directory for each test, named `<label>-XXXXXX` (see ``TemporaryDirectoryTrait``).
    public static func temporaryDirectory(_ label: String) -> Self { TemporaryDirectoryTrait(label: label) }
}
