import Foundation
import Testing
@testable import KeyedArchive
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A fresh directory under the system's temporary directory (``TemporaryDirectory/create(_:)``), named for the
/// test; the test removes it, with its contents, in a `defer`:
///
///     let dir = ScratchDirectory()
///     defer { dir.remove() }
struct ScratchDirectory: Sendable {
    let path: String

    init(_ label: String = #function) {
        let cleanLabel = label.filter { $0.isLetter || $0.isNumber }.prefix(40)
        if let created = try? TemporaryDirectory.create("keyedarchive-\(cleanLabel)") {
            path = created.path
        } else {
            path = FileManager.default.temporaryDirectory.appendingPathComponent("keyedarchive-\(cleanLabel)-\(UUID().uuidString)").path
            try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        }
    }

    /// Removes the directory and everything in it.
    func remove() {
        TemporaryDirectory.remove(URL(fileURLWithPath: path))
    }

    /// `path/name`.
    func file(_ name: String) -> String { path + "/" + name }

    /// The names in the directory, sorted (including dot files).
    func names() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted()
    }
}

/// Test helpers for files.
enum FileTestSupport {
    /// Bytes that differ from call to call (a simple xorshift stream from `seed`).
    static func pseudoRandomBytes(count: Int, seed: UInt64) -> Data {
        var state = seed | 1
        var bytes = [UInt8](repeating: 0, count: count)
        for i in 0..<count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            bytes[i] = UInt8(truncatingIfNeeded: state)
        }
        return Data(bytes)
    }

    /// The file's bytes, read with Foundation (not with the code under test).
    static func contents(_ path: String) -> Data? {
        FileManager.default.contents(atPath: path)
    }

    /// Creates a file with plain POSIX calls (not the code under test) and the given mode.
    static func create(_ path: String, _ bytes: Data, mode: mode_t = 0o644) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        try #require(fd >= 0, "open \(path): \(String(cString: strerror(errno)))")
        defer { close(fd) }
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        try #require(written == bytes.count)
        try #require(fchmod(fd, mode) == 0)
    }

    /// The permission bits of the file at `path` (not following links).
    static func permissions(_ path: String) -> mode_t? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return info.st_mode & 0o7777
    }

    /// `lstat` of `path`.
    static func status(_ path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }

    /// Whether `fd` refers to a directory.
    static func isDirectory(_ fd: Int32) -> Bool {
        var info = stat()
        return fstat(fd, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// The process's umask, read without changing it (Linux: /proc/self/status), or nil.
    static func currentUmask() -> mode_t? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("Umask:") {
            let value = line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces)
            return mode_t(value, radix: 8)
        }
        return nil
    }

    /// The package root: the folder containing Package.swift.
    static func packageRoot() -> String { BuiltProducts.packageRoot.path }

    /// The built `atomic-write-crash-child` executable, or nil (callers skip with a notice).
    static func crashChildExecutable() -> String? {
        BuiltProducts.executable("atomic-write-crash-child")?.path
    }
}

/// A running child process with its standard output on a pipe.
struct ChildProcess {
    let pid: pid_t
    /// The read end of the child's standard output.
    let output: Int32

    /// Starts `executable` with `arguments`; standard output goes to a pipe, standard error is inherited.
    static func spawn(_ executable: String, _ arguments: [String]) throws -> ChildProcess {
        var pipeFDs: [Int32] = [-1, -1]
        try #require(pipe(&pipeFDs) == 0)
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipeFDs[0])

        let argv = ([executable] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        let environment = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") }
        defer { environment.forEach { free($0) } }
        var environmentWithTerminator = environment + [nil]
        var pid: pid_t = 0
        var argvWithTerminator = argv + [nil]
        let result = argvWithTerminator.withUnsafeMutableBufferPointer { buffer -> Int32 in
            guard let base = buffer.baseAddress else { return EINVAL }
            return environmentWithTerminator.withUnsafeMutableBufferPointer { env -> Int32 in
                posix_spawn(&pid, executable, &actions, nil, base, env.baseAddress)
            }
        }
        close(pipeFDs[1])
        if result != 0 { close(pipeFDs[0]) }
        try #require(result == 0, "posix_spawn \(executable): \(String(cString: strerror(result)))")
        return ChildProcess(pid: pid, output: pipeFDs[0])
    }

    /// Waits up to `timeout` milliseconds for one byte on standard output; false on timeout or EOF.
    func awaitByte(timeoutMilliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: output, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, timeoutMilliseconds) == 1 else { return false }
        var byte: UInt8 = 0
        return read(output, &byte, 1) == 1
    }

    /// Sends `signal` and reaps the child; returns the raw wait status.
    @discardableResult
    func kill(_ signal: Int32) -> Int32 {
        _ = Glibc_or_Darwin_kill(pid, signal)
        return waitForExit()
    }

    /// Waits for the child to end; returns the raw wait status.
    func waitForExit() -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        close(output)
        return status
    }

    /// Whether a wait status says "exited with code 0".
    static func exitedSuccessfully(_ status: Int32) -> Bool { status & 0x7f == 0 && (status >> 8) & 0xff == 0 }
    /// The signal that ended the child, or 0.
    static func terminatingSignal(_ status: Int32) -> Int32 {
        let signal = status & 0x7f
        return signal == 0 || signal == 0x7f ? 0 : signal
    }
}

private func Glibc_or_Darwin_kill(_ pid: pid_t, _ signal: Int32) -> Int32 { kill(pid, signal) }

/// A thread-safe counter and log for hooks.
final class HookLog: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    private var entries: [String] = []

    /// Increments the counter `name` and returns its new value.
    @discardableResult
    func count(_ name: String) -> Int {
        lock.lock(); defer { lock.unlock() }
        counts[name, default: 0] += 1
        return counts[name, default: 0]
    }

    func value(_ name: String) -> Int {
        lock.lock(); defer { lock.unlock() }
        return counts[name, default: 0]
    }

    func append(_ entry: String) {
        lock.lock(); defer { lock.unlock() }
        entries.append(entry)
    }

    var log: [String] {
        lock.lock(); defer { lock.unlock() }
        return entries
    }
}

/// Runs an atomic write under `hooks` and returns its error, or nil on success.
func atomicWrite(_ bytes: Data, to path: String, options: AtomicFileWriter.Options = [],
                 hooks: SystemCallHooks = SystemCallHooks()) -> FileIOError? {
    SystemCallHooks.$current.withValue(hooks) { () -> FileIOError? in
        do throws(FileIOError) {
            try AtomicFileWriter(options: options).write(bytes, toPath: path)
            return nil
        } catch {
            return error
        }
    }
}
