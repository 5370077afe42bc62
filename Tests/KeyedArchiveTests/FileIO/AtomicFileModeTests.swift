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

/// Permissions and ownership of written files.
@Suite struct AtomicFileModeTests {
    let bytes = Data("contents".utf8)

    @Test(arguments: [0o600, 0o640, 0o644, 0o400, 0o755] as [mode_t])
    func replacedFileKeepsItsMode(mode: mode_t) throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("model")
        try FileTestSupport.create(path, Data("old".utf8), mode: mode)
        try bytes.writeAtomically(toPath: path)
        #expect(FileTestSupport.permissions(path) == mode)
        #expect(FileTestSupport.contents(path) == bytes)
    }

    @Test(.requiresReadableUmask) func newFileGetsDefaultModeMinusTheCurrentUmask() throws {
        let mask = try #require(FileTestSupport.currentUmask())
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("new")
        try bytes.writeAtomically(toPath: path)
        #expect(FileTestSupport.permissions(path) == 0o666 & ~mask)
    }

    @Test(.requiresReadableUmask, arguments: [(0o600, 0o600), (0o640, 0o640), (0o4755, 0o755), (0o000, 0o000)] as [(UInt16, mode_t)])
    func newFileGetsTheRequestedPermissionsMinusTheUmask(requested: UInt16, bits: mode_t) throws {
        let mask = try #require(FileTestSupport.currentUmask())
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("new")
        try AtomicFileWriter(newFilePermissions: requested).write(bytes, toPath: path)
        #expect(FileTestSupport.permissions(path) == bits & ~mask)
        #expect(FileTestSupport.contents(path) == bytes)

        let exclusive = dir.file("exclusive")
        try AtomicFileWriter(options: .withoutOverwriting, newFilePermissions: requested).write(bytes, toPath: exclusive)
        #expect(FileTestSupport.permissions(exclusive) == bits & ~mask)
    }

    @Test func replacedFileKeepsItsModeWhateverTheNewFilePermissions() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("model")
        try FileTestSupport.create(path, Data("old".utf8), mode: 0o644)
        try AtomicFileWriter(newFilePermissions: 0o600).write(bytes, toPath: path)
        #expect(FileTestSupport.permissions(path) == 0o644)
        #expect(FileTestSupport.contents(path) == bytes)
    }

    /// The umask is process-wide, so it is set in a child process, not around a call in this one.
    @Test(arguments: [(0o027, 0o640), (0o000, 0o666), (0o077, 0o600), (0o022, 0o644)] as [(mode_t, mode_t)])
    func newFileRespectsTheUmaskAndNeverExceeds0666(umask: mode_t, expected: mode_t) throws {
        let child = try #require(FileTestSupport.crashChildExecutable(),
                                 "atomic-write-crash-child not found next to the test bundle or in .build")
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("new")
        let process = try ChildProcess.spawn(child, ["write-once", path, String(umask, radix: 8), "hello"])
        let status = process.waitForExit()
        try #require(ChildProcess.exitedSuccessfully(status), "child wait status \(status)")
        #expect(FileTestSupport.permissions(path) == expected)
        #expect(FileTestSupport.contents(path) == Data("hello".utf8))
        // Replacing keeps the mode even under another umask: the file's mode wins over the umask.
        try FileTestSupport.create(path, Data("old".utf8), mode: 0o604)
        let again = try ChildProcess.spawn(child, ["write-once", path, "077", "again"])
        try #require(ChildProcess.exitedSuccessfully(again.waitForExit()))
        #expect(FileTestSupport.permissions(path) == 0o604)
    }

    @Test(.requiresRoot) func rootKeepsTheOwnerAndGroupOfTheReplacedFile() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("owned")
        try FileTestSupport.create(path, Data("old".utf8), mode: 0o640)
        try #require(chown(path, 4242, 4343) == 0)
        try bytes.writeAtomically(toPath: path)
        let status = try #require(FileTestSupport.status(path))
        #expect(status.st_uid == 4242)
        #expect(status.st_gid == 4343)
        #expect(status.st_mode & 0o7777 == 0o640)
        #expect(FileTestSupport.contents(path) == bytes)
    }

    @Test func newFileBelongsToTheWriter() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("mine")
        try bytes.writeAtomically(toPath: path)
        let status = try #require(FileTestSupport.status(path))
        #expect(status.st_uid == geteuid())
    }
}
