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

/// A system call made to fail through the debug-only seam, and the step that should report it.
enum InjectedFault: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case openTemporaryFile, fchown, fchmod, write, fsyncFile, close, rename, fsyncDirectory

    var testDescription: String { rawValue }

    var expectedStep: FileIOError.Step {
        switch self {
        case .openTemporaryFile: return .createTemporaryFile
        case .fchown: return .setOwner
        case .fchmod: return .setPermissions
        case .write: return .write
        case .fsyncFile: return .synchronize
        case .close: return .close
        case .rename: return .rename
        case .fsyncDirectory: return .synchronizeDirectory
        }
    }

    /// Hooks that make this call fail with `code` and let every other call through.
    func hooks(failingWith code: Int32) -> SystemCallHooks {
        var hooks = SystemCallHooks()
        switch self {
        case .openTemporaryFile:
            hooks.openat = { directory, path, flags, mode in
                if flags & O_CREAT != 0 { errno = code; return -1 }
                return SystemCalls.realOpenat(directory, path, flags, mode)
            }
        case .fchown:
            hooks.fchown = { _, _, _ in errno = code; return -1 }
        case .fchmod:
            hooks.fchmod = { _, _ in errno = code; return -1 }
        case .write:
            // Let the first 4 KiB through, then fail: a disk that fills up part way.
            let log = HookLog()
            hooks.write = { fd, buffer in
                if log.count("write") == 1 && buffer.count > 4096 {
                    return SystemCalls.realWrite(fd, UnsafeRawBufferPointer(rebasing: buffer[..<4096]))
                }
                errno = code
                return -1
            }
        case .fsyncFile:
            hooks.fsync = { fd in
                if FileTestSupport.isDirectory(fd) { return SystemCalls.realFsync(fd) }
                errno = code
                return -1
            }
        case .close:
            hooks.close = { fd in
                let isFile = !FileTestSupport.isDirectory(fd)
                let result = SystemCalls.realClose(fd)
                if isFile { errno = code; return -1 }
                return result
            }
        case .rename:
            hooks.renameat = { _, _, _, _ in errno = code; return -1 }
        case .fsyncDirectory:
            hooks.fsync = { fd in
                if !FileTestSupport.isDirectory(fd) { return SystemCalls.realFsync(fd) }
                errno = code
                return -1
            }
        }
        return hooks
    }
}

@Suite struct AtomicFileFaultTests {
    let old = Data("the previous archive, which must survive".utf8)
    let new = FileTestSupport.pseudoRandomBytes(count: 300_000, seed: 42)

    @Test(arguments: InjectedFault.allCases.filter { $0 != .fchown }, [EIO, ENOSPC])
    func failedStepKeepsTheOldFileAndLeavesNoTemporaryFile(fault: InjectedFault, code: Int32) throws {
        try checkFailedStep(fault, code)
    }

    /// fchown is only called as root, when the replaced file's owner differs from the writer's.
    @Test(.requiresRoot, arguments: [EIO, ENOSPC])
    func failedFchownKeepsTheOldFileAndLeavesNoTemporaryFile(code: Int32) throws {
        try checkFailedStep(.fchown, code)
    }

    private func checkFailedStep(_ fault: InjectedFault, _ code: Int32) throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("model.plist")
        try FileTestSupport.create(path, old, mode: 0o640)
        if fault == .fchown {
            try #require(chown(path, 4242, 4343) == 0)
        }

        let error = try #require(atomicWrite(new, to: path, hooks: fault.hooks(failingWith: code)),
                                 "the write should have failed at \(fault)")
        #expect(error.step == fault.expectedStep)
        #expect(error.path == path)
        #expect(error.errno == code)
        #expect(error.description.contains(path))
        #expect(error.description.contains(FileIOError.symbolicName(ofErrno: code) ?? "?"))
        #expect(error.description.contains(String(cString: strerror(code))))
        #expect(error.description.contains("\"\(fault.expectedStep.name)\""))

        if fault == .fsyncDirectory {
            // The rename has happened: the new bytes are in place, and the error says so.
            #expect(FileTestSupport.contents(path) == new)
            #expect(error.detail?.contains("in place") == true)
        } else {
            #expect(FileTestSupport.contents(path) == old)
            #expect(FileTestSupport.permissions(path) == 0o640)
        }
        #expect(dir.names() == ["model.plist"])
    }

    @Test(arguments: [EIO, ENOSPC])
    func failureWhileCreatingANewFileLeavesNothing(code: Int32) throws {
        for fault in [InjectedFault.write, .fsyncFile, .rename] {
            let dir = ScratchDirectory()
            defer { dir.remove() }
            let path = dir.file("new.plist")
            let error = try #require(atomicWrite(new, to: path, hooks: fault.hooks(failingWith: code)))
            #expect(error.step == fault.expectedStep)
            #expect(dir.names() == [], "\(fault)")
        }
    }

    @Test func shortWritesAndInterruptionsAreRetried() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("model.plist")
        try FileTestSupport.create(path, old)
        let log = HookLog()
        var hooks = SystemCallHooks()
        hooks.write = { fd, buffer in
            // Every third call is interrupted; the others write at most 1000 bytes.
            if log.count("write") % 3 == 0 { errno = EINTR; return -1 }
            return SystemCalls.realWrite(fd, UnsafeRawBufferPointer(rebasing: buffer[..<min(1000, buffer.count)]))
        }
        hooks.fsync = { fd in
            if log.count("fsync") == 1 { errno = EINTR; return -1 }
            return SystemCalls.realFsync(fd)
        }
        #expect(atomicWrite(new, to: path, hooks: hooks) == nil)
        #expect(FileTestSupport.contents(path) == new)
        #expect(log.value("write") >= new.count / 1000)
        #expect(dir.names() == ["model.plist"])
    }

    @Test func writeThatMakesNoProgressFails() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("model.plist")
        try FileTestSupport.create(path, old)
        var hooks = SystemCallHooks()
        hooks.write = { _, _ in 0 }
        let error = try #require(atomicWrite(new, to: path, hooks: hooks))
        #expect(error.step == .write)
        #expect(error.errno == EIO)
        #expect(FileTestSupport.contents(path) == old)
        #expect(dir.names() == ["model.plist"])
    }

    @Test func takenTemporaryNameIsRetriedWithAnotherName() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("model.plist")
        let log = HookLog()
        var hooks = SystemCallHooks()
        hooks.openat = { directory, name, flags, mode in
            guard flags & O_CREAT != 0 else { return SystemCalls.realOpenat(directory, name, flags, mode) }
            log.append(name)
            if log.log.count <= 3 { errno = EEXIST; return -1 }
            return SystemCalls.realOpenat(directory, name, flags, mode)
        }
        #expect(atomicWrite(new, to: path, hooks: hooks) == nil)
        #expect(Set(log.log).count == 4)
        #expect(FileTestSupport.contents(path) == new)
        #expect(dir.names() == ["model.plist"])
    }

    @Test func exhaustedTemporaryNamesFail() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        var hooks = SystemCallHooks()
        hooks.openat = { directory, name, flags, mode in
            if flags & O_CREAT != 0 { errno = EEXIST; return -1 }
            return SystemCalls.realOpenat(directory, name, flags, mode)
        }
        let error = try #require(atomicWrite(new, to: dir.file("x"), hooks: hooks))
        #expect(error.step == .createTemporaryFile)
        #expect(error.errno == EEXIST)
        #expect(dir.names() == [])
    }

    @Test func directoryThatCannotBeSynchronizedWithEINVALIsAccepted() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("model.plist")
        #expect(atomicWrite(new, to: path, hooks: InjectedFault.fsyncDirectory.hooks(failingWith: EINVAL)) == nil)
        #expect(FileTestSupport.contents(path) == new)
    }

    @Test func hooksDoNotLeakOutsideTheirScope() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("model.plist")
        #expect(atomicWrite(new, to: path, hooks: InjectedFault.write.hooks(failingWith: EIO)) != nil)
        #expect(SystemCallHooks.current == nil)
        try new.writeAtomically(toPath: path)
        #expect(FileTestSupport.contents(path) == new)
    }
}
