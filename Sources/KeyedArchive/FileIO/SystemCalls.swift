#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The system calls that file I/O makes, in one place, so debug builds can make them fail on purpose.
///
/// Every wrapper behaves like the C function: it returns `-1` (or `nil`) and leaves the reason in
/// `errno`. In debug builds each one first consults ``SystemCallHooks/current``; a hook replaces the
/// real call (and may call ``SystemCalls`` `.real…` itself to pass through). Release builds contain
/// no hooks at all.
enum SystemCalls {
    // MARK: Files and directories

    static func openat(_ directory: Int32, _ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
        #if DEBUG
        if let hook = SystemCallHooks.current?.openat { return hook(directory, path, flags, mode) }
        #endif
        return realOpenat(directory, path, flags, mode)
    }

    static func realOpenat(_ directory: Int32, _ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
        path.withCString { system_openat(directory, $0, flags, mode) }
    }

    static func write(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Int {
        #if DEBUG
        if let hook = SystemCallHooks.current?.write { return hook(fd, buffer) }
        #endif
        return realWrite(fd, buffer)
    }

    static func realWrite(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        return system_write(fd, base, buffer.count)
    }

    static func read(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
        #if DEBUG
        if let hook = SystemCallHooks.current?.read { return hook(fd, buffer) }
        #endif
        return realRead(fd, buffer)
    }

    static func realRead(_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        return system_read(fd, base, buffer.count)
    }

    /// Flushes a file or directory to storage. On Apple platforms `fsync` only reaches the drive's
    /// cache, so `F_FULLFSYNC` is tried first, falling back to `fsync` only where the file system does not
    /// support it (``fullFsyncIsUnsupported(_:)``); any other failure, such as `EIO`, is returned.
    static func fsync(_ fd: Int32) -> Int32 {
        #if DEBUG
        if let hook = SystemCallHooks.current?.fsync { return hook(fd) }
        #endif
        return realFsync(fd)
    }

    static func realFsync(_ fd: Int32) -> Int32 {
        #if canImport(Darwin)
        if fcntl(fd, F_FULLFSYNC) == 0 { return 0 }
        guard fullFsyncIsUnsupported(errno) else { return -1 }
        #endif
        return system_fsync(fd)
    }

    /// Whether `F_FULLFSYNC` failed with `code` because the file system or device does not support it, so
    /// that `fsync` is the most that can be asked: `ENOTSUP` (SMB and other network volumes, golang/go#64215)
    /// or `ENOTTY` (external drives and raw devices, libuv/libuv#1579, bitcoin/bitcoin#26455). Any other
    /// code (`EIO`, `EBADF`, `EINTR`...) is a failure to report, which a fallback to `fsync` would hide.
    static func fullFsyncIsUnsupported(_ code: Int32) -> Bool {
        code == ENOTSUP || code == ENOTTY
    }

    static func fchmod(_ fd: Int32, _ mode: mode_t) -> Int32 {
        #if DEBUG
        if let hook = SystemCallHooks.current?.fchmod { return hook(fd, mode) }
        #endif
        return realFchmod(fd, mode)
    }

    static func realFchmod(_ fd: Int32, _ mode: mode_t) -> Int32 {
        return system_fchmod(fd, mode)
    }

    static func fchown(_ fd: Int32, _ owner: uid_t, _ group: gid_t) -> Int32 {
        #if DEBUG
        if let hook = SystemCallHooks.current?.fchown { return hook(fd, owner, group) }
        #endif
        return system_fchown(fd, owner, group)
    }

    static func close(_ fd: Int32) -> Int32 {
        #if DEBUG
        if let hook = SystemCallHooks.current?.close { return hook(fd) }
        #endif
        return realClose(fd)
    }

    static func realClose(_ fd: Int32) -> Int32 {
        return system_close(fd)
    }

    static func renameat(_ fromDirectory: Int32, _ from: String, _ toDirectory: Int32, _ to: String) -> Int32 {
        #if DEBUG
        if let hook = SystemCallHooks.current?.renameat { return hook(fromDirectory, from, toDirectory, to) }
        #endif
        return realRenameat(fromDirectory, from, toDirectory, to)
    }

    static func realRenameat(_ fromDirectory: Int32, _ from: String, _ toDirectory: Int32, _ to: String) -> Int32 {
        from.withCString { f in to.withCString { t in system_renameat(fromDirectory, f, toDirectory, t) } }
    }

    /// Renames without replacing: fails with `EEXIST` when `to` exists. The raw kernel call:
    /// `renameat2(RENAME_NOREPLACE)` on Linux, `renameatx_np(RENAME_EXCL)` on Apple platforms.
    /// Returns `-1` with `ENOSYS` when the C library has no such call (old glibc, static musl).
    static func renameatNoReplace(_ fromDirectory: Int32, _ from: String, _ toDirectory: Int32, _ to: String) -> Int32 {
        #if DEBUG
        if let hook = SystemCallHooks.current?.renameatNoReplace { return hook(fromDirectory, from, toDirectory, to) }
        #endif
        return realRenameatNoReplace(fromDirectory, from, toDirectory, to)
    }

    static func realRenameatNoReplace(_ fromDirectory: Int32, _ from: String, _ toDirectory: Int32, _ to: String) -> Int32 {
        #if canImport(Darwin)
        return from.withCString { f in
            to.withCString { t in renameatx_np(fromDirectory, f, toDirectory, t, UInt32(RENAME_EXCL)) }
        }
        #else
        // Glibc has had renameat2 since 2.28 but its headers only declare it under _GNU_SOURCE, which
        // Swift's module does not see; look it up at run time instead of guessing the syscall number.
        guard let renameat2 = LinuxRenameat2.function else {
            errno = ENOSYS
            return -1
        }
        return from.withCString { f in
            to.withCString { t in renameat2(fromDirectory, f, toDirectory, t, LinuxRenameat2.noReplace) }
        }
        #endif
    }

    static func linkat(_ fromDirectory: Int32, _ from: String, _ toDirectory: Int32, _ to: String) -> Int32 {
        #if DEBUG
        if let hook = SystemCallHooks.current?.linkat { return hook(fromDirectory, from, toDirectory, to) }
        #endif
        return from.withCString { f in to.withCString { t in system_linkat(fromDirectory, f, toDirectory, t, 0) } }
    }

    static func unlinkat(_ directory: Int32, _ path: String) -> Int32 {
        #if DEBUG
        if let hook = SystemCallHooks.current?.unlinkat { return hook(directory, path) }
        #endif
        return path.withCString { system_unlinkat(directory, $0, 0) }
    }

    // MARK: Information (not hooked: failures here are reported by the real calls around them)

    static func fstat(_ fd: Int32) -> stat? {
        var info = stat()
        let result = system_fstat(fd, &info)
        return result == 0 ? info : nil
    }

    static func fstatat(_ directory: Int32, _ path: String, followingLinks: Bool) -> stat? {
        var info = stat()
        let flags = followingLinks ? 0 : AT_SYMLINK_NOFOLLOW
        let result = path.withCString { system_fstatat(directory, $0, &info, flags) }
        return result == 0 ? info : nil
    }

    static func lstat(_ path: String) -> stat? {
        fstatat(AT_FDCWD, path, followingLinks: false)
    }

    /// The target of the symbolic link at `path`, or `nil` with `errno` set (`EILSEQ` when the target
    /// is not valid UTF-8).
    static func readlink(_ path: String) -> String? {
        var capacity = 1024
        // Link targets are at most PATH_MAX on every supported system; 64 KiB bounds any surprise.
        while capacity <= 65536 {
            var buffer = [CChar](repeating: 0, count: capacity)
            let count = path.withCString { p in
                buffer.withUnsafeMutableBufferPointer { b -> Int in
                    guard let base = b.baseAddress else { return -1 }
                    return system_readlink(p, base, capacity)
                }
            }
            if count < 0 { return nil }
            if count < capacity {
                let bytes = buffer[0..<count].map { UInt8(bitPattern: $0) }
                // A target that is not UTF-8 cannot be named by a String without changing it.
                guard let target = String(bytes: bytes, encoding: .utf8) else {
                    errno = EILSEQ
                    return nil
                }
                return target
            }
            capacity *= 4
        }
        errno = ENAMETOOLONG
        return nil
    }

    // MARK: Memory mapping

    static func mmap(_ fd: Int32, _ length: Int) -> UnsafeMutableRawPointer? {
        #if DEBUG
        if let hook = SystemCallHooks.current?.mmap { return hook(fd, length) }
        #endif
        return realMmap(fd, length)
    }

    static func realMmap(_ fd: Int32, _ length: Int) -> UnsafeMutableRawPointer? {
        // Writable but private: a `Data` that owns its storage alone mutates it in place, which must change
        // the process's copy-on-write pages (never the file), not fault on a read-only page.
        let pointer = system_mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0)
        // MAP_FAILED is ((void *)-1), a macro Swift does not import.
        guard let pointer, pointer != UnsafeMutableRawPointer(bitPattern: -1) else { return nil }
        return pointer
    }

    static func munmap(_ pointer: UnsafeMutableRawPointer, _ length: Int) {
        #if DEBUG
        if let hook = SystemCallHooks.current?.munmap { _ = hook(pointer, length); return }
        #endif
        _ = realMunmap(pointer, length)
    }

    static func realMunmap(_ pointer: UnsafeMutableRawPointer, _ length: Int) -> Int32 {
        system_munmap(pointer, length)
    }

    /// What the system says about the open file `fd` and its volume for ``FileMappingFacts/isSafeToMap``
    /// (Darwin), or nil where no such facts are gathered (a regular file is then mapped).
    static func mappingFacts(_ fd: Int32) -> FileMappingFacts? {
        #if DEBUG
        if let hook = SystemCallHooks.current?.mappingFacts { return hook(fd) }
        #endif
        #if canImport(Darwin)
        let protectionClass = fcntl(fd, F_GETPROTECTIONCLASS)
        var volume = statfs()
        let hasVolume = fstatfs(fd, &volume) == 0
        let fileFlags = fstat(fd)?.st_flags ?? 0
        return FileMappingFacts(protectionClass: protectionClass >= 0 ? protectionClass : nil,
                                isLocalVolume: hasVolume ? volume.f_flags & UInt32(MNT_LOCAL) != 0 : nil,
                                isRemovableVolume: hasVolume && volume.f_flags & UInt32(MNT_REMOVABLE) != 0,
                                isCompressed: fileFlags & UInt32(UF_COMPRESSED) != 0,
                                isDataless: fileFlags & UInt32(SF_DATALESS) != 0)
        #else
        return nil
        #endif
    }

    /// The current `errno`.
    static var lastError: Int32 { errno }
}

// MARK: - The C functions under names the wrappers above do not shadow

private func system_openat(_ d: Int32, _ p: UnsafePointer<CChar>, _ f: Int32, _ m: mode_t) -> Int32 { openat(d, p, f, m) }
private func system_write(_ fd: Int32, _ b: UnsafeRawPointer, _ n: Int) -> Int { write(fd, b, n) }
private func system_read(_ fd: Int32, _ b: UnsafeMutableRawPointer, _ n: Int) -> Int { read(fd, b, n) }
private func system_fsync(_ fd: Int32) -> Int32 { fsync(fd) }
private func system_fchmod(_ fd: Int32, _ m: mode_t) -> Int32 { fchmod(fd, m) }
private func system_fchown(_ fd: Int32, _ o: uid_t, _ g: gid_t) -> Int32 { fchown(fd, o, g) }
private func system_close(_ fd: Int32) -> Int32 { close(fd) }
private func system_renameat(_ a: Int32, _ f: UnsafePointer<CChar>, _ b: Int32, _ t: UnsafePointer<CChar>) -> Int32 {
    renameat(a, f, b, t)
}
private func system_linkat(_ a: Int32, _ f: UnsafePointer<CChar>, _ b: Int32, _ t: UnsafePointer<CChar>, _ flags: Int32) -> Int32 {
    linkat(a, f, b, t, flags)
}
private func system_unlinkat(_ d: Int32, _ p: UnsafePointer<CChar>, _ flags: Int32) -> Int32 { unlinkat(d, p, flags) }
private func system_fstat(_ fd: Int32, _ s: UnsafeMutablePointer<stat>) -> Int32 { fstat(fd, s) }
private func system_fstatat(_ d: Int32, _ p: UnsafePointer<CChar>, _ s: UnsafeMutablePointer<stat>, _ f: Int32) -> Int32 {
    fstatat(d, p, s, f)
}
private func system_readlink(_ p: UnsafePointer<CChar>, _ b: UnsafeMutablePointer<CChar>, _ n: Int) -> Int { readlink(p, b, n) }
private func system_mmap(_ a: UnsafeMutableRawPointer?, _ n: Int, _ prot: Int32, _ flags: Int32, _ fd: Int32, _ off: off_t)
    -> UnsafeMutableRawPointer? { mmap(a, n, prot, flags, fd, off) }
private func system_munmap(_ p: UnsafeMutableRawPointer, _ n: Int) -> Int32 { munmap(p, n) }

#if !canImport(Darwin)
/// `renameat2`, looked up once with `dlsym`.
enum LinuxRenameat2 {
    typealias Function = @convention(c) (Int32, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UInt32) -> Int32

    /// `RENAME_NOREPLACE` from `<linux/fs.h>`.
    static let noReplace: UInt32 = 1

    static let function: Function? = {
        guard let symbol = dlsym(nil, "renameat2") else { return nil }
        return unsafeBitCast(symbol, to: Function.self)
    }()
}
#endif

#if DEBUG
/// Replacement functions for the system calls of ``SystemCalls``: the fault-injection seam for tests.
///
/// Debug builds only. Install with `SystemCallHooks.$current.withValue(hooks) { ... }`; the hooks are
/// task-local, so they apply to the code run inside that closure (on that task or thread) and never
/// to tests running in parallel. A hook stands in for the real call: to fail, set `errno` and return
/// `-1` (or `nil`); to pass through, call the `SystemCalls.real…` function.
struct SystemCallHooks: Sendable {
    var openat: (@Sendable (_ directory: Int32, _ path: String, _ flags: Int32, _ mode: mode_t) -> Int32)?
    var write: (@Sendable (_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Int)?
    var read: (@Sendable (_ fd: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int)?
    var fsync: (@Sendable (_ fd: Int32) -> Int32)?
    var fchmod: (@Sendable (_ fd: Int32, _ mode: mode_t) -> Int32)?
    var fchown: (@Sendable (_ fd: Int32, _ owner: uid_t, _ group: gid_t) -> Int32)?
    var close: (@Sendable (_ fd: Int32) -> Int32)?
    var renameat: (@Sendable (_ fromDirectory: Int32, _ from: String, _ toDirectory: Int32, _ to: String) -> Int32)?
    var renameatNoReplace: (@Sendable (_ fromDirectory: Int32, _ from: String, _ toDirectory: Int32, _ to: String) -> Int32)?
    var linkat: (@Sendable (_ fromDirectory: Int32, _ from: String, _ toDirectory: Int32, _ to: String) -> Int32)?
    var unlinkat: (@Sendable (_ directory: Int32, _ path: String) -> Int32)?
    var mmap: (@Sendable (_ fd: Int32, _ length: Int) -> UnsafeMutableRawPointer?)?
    var munmap: (@Sendable (_ pointer: UnsafeMutableRawPointer, _ length: Int) -> Int32)?
    /// Stands in for the facts ``SystemCalls/mappingFacts(_:)`` gathers (nil: map as on Linux).
    var mappingFacts: (@Sendable (_ fd: Int32) -> FileMappingFacts?)?

    init() {}

    /// The hooks in force for the current task, if any.
    @TaskLocal static var current: SystemCallHooks?
}
#endif
