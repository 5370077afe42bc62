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

/// A real full disk: a 64 KiB tmpfs. Needs Linux, root and a `mount` that works in this environment
/// (containers often forbid it); elsewhere the test is reported as skipped. The same failure is
/// also injected through the fault seam in ``AtomicFileFaultTests`` (ENOSPC), which always runs.
@Suite struct AtomicFileFullDiskTests {
    @Test(.requiresTmpfsMount) func fullDiskKeepsTheOldFile() throws {
        let (mountTool, umountTool) = try #require(MachineConditions.tmpfsTools)
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let mountPoint = dir.file("small")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
        let mount = try ChildProcess.spawn(mountTool, ["-t", "tmpfs", "-o", "size=64k,mode=0755", "tmpfs", mountPoint])
        try #require(ChildProcess.exitedSuccessfully(mount.waitForExit()), "mounting a 64 KiB tmpfs failed")
        defer {
            if let umount = try? ChildProcess.spawn(umountTool, ["-l", mountPoint]) { _ = umount.waitForExit() }
        }

        let path = mountPoint + "/model.plist"
        let old = FileTestSupport.pseudoRandomBytes(count: 16 * 1024, seed: 1)
        try old.writeAtomically(toPath: path)

        // 16 KiB used; a 100 KiB file cannot fit next to it.
        let tooBig = FileTestSupport.pseudoRandomBytes(count: 100 * 1024, seed: 2)
        do {
            try tooBig.writeAtomically(toPath: path)
            Issue.record("a 100 KiB write fit in a 64 KiB file system")
        } catch {
            #expect(error.errno == ENOSPC)
            #expect(error.step == .write)
            #expect(error.path == path)
            #expect(error.description.contains("ENOSPC"))
        }
        #expect(FileTestSupport.contents(path) == old)
        #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint) == ["model.plist"])

        // The failed write's space was given back: a file that fits is written.
        let fits = FileTestSupport.pseudoRandomBytes(count: 24 * 1024, seed: 3)
        try fits.writeAtomically(toPath: path)
        #expect(FileTestSupport.contents(path) == fits)
        #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint) == ["model.plist"])
    }
}
