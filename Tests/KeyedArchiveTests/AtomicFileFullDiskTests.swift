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
/// (containers often forbid it); elsewhere the test prints a notice and passes. The same failure is
/// also injected through the fault seam in ``AtomicFileFaultTests`` (ENOSPC), which always runs.
@Suite struct AtomicFileFullDiskTests {
    @Test func fullDiskKeepsTheOldFile() throws {
        #if os(Linux)
        guard geteuid() == 0 else {
            print("skipping: a real full-disk test needs root to mount a small tmpfs")
            return
        }
        guard let mountTool = (["/bin/mount", "/usr/bin/mount"] as [String]).first(where: { access($0, X_OK) == 0 }),
              let umountTool = (["/bin/umount", "/usr/bin/umount"] as [String]).first(where: { access($0, X_OK) == 0 }) else {
            print("skipping: no mount/umount tool")
            return
        }
        let dir = ScratchDirectory()
        defer { withExtendedLifetime(dir) {} }
        let mountPoint = dir.file("small")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: false)
        let mount = try ChildProcess.spawn(mountTool, ["-t", "tmpfs", "-o", "size=64k,mode=0755", "tmpfs", mountPoint])
        guard ChildProcess.exitedSuccessfully(mount.waitForExit()) else {
            print("skipping: cannot mount a 64 KiB tmpfs here")
            return
        }
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
        #else
        print("skipping: the real full-disk test mounts a Linux tmpfs")
        #endif
    }
}
