import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the machine running the tests can do, for the file tests that need more than a scratch folder.
/// A test that needs one of these carries the matching condition trait, so that a machine without it
/// reports the test as skipped (CI fails on any skipped test) instead of passing it silently.
enum MachineConditions {
    /// Whether the tests run as root (owner preservation, failing `fchown`, mounting a tmpfs).
    static let isRoot: Bool = geteuid() == 0

    /// Whether the process umask can be read without changing it (Linux's `/proc/self/status`).
    static let canReadUmask: Bool = FileTestSupport.currentUmask() != nil

    /// Whether `Foundation` here is swift-corelibs-foundation (Linux and other non-Apple systems) rather
    /// than Apple's own Foundation: the tests that pin down corelibs' behaviour, its faults included, run
    /// only there.
    static let foundationIsCorelibs: Bool = {
        #if canImport(Darwin)
        return false
        #else
        return true
        #endif
    }()

    /// The `mount` and `umount` tools, when this is Linux, the tests run as root and a 64 KiB tmpfs can
    /// really be mounted here (containers often forbid it): probed once by mounting and unmounting one.
    static let tmpfsTools: (mount: String, umount: String)? = {
        #if os(Linux)
        guard isRoot,
              let mount = (["/bin/mount", "/usr/bin/mount"] as [String]).first(where: { access($0, X_OK) == 0 }),
              let umount = (["/bin/umount", "/usr/bin/umount"] as [String]).first(where: { access($0, X_OK) == 0 }) else { return nil }
        let probe = NSTemporaryDirectory() + "keyedarchive-tmpfs-probe-\(getpid())"
        guard mkdir(probe, 0o700) == 0 else { return nil }
        defer { rmdir(probe) }
        guard let mounted = try? ChildProcess.spawn(mount, ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe]),
              ChildProcess.exitedSuccessfully(mounted.waitForExit()) else { return nil }
        if let unmounted = try? ChildProcess.spawn(umount, [probe]) { _ = unmounted.waitForExit() }
        return (mount, umount)
        #else
        return nil
        #endif
    }()
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only as root.
    static var requiresRoot: Self { .enabled(if: MachineConditions.isRoot, "needs root") }
    /// Runs the test only where the umask can be read without changing it.
    static var requiresReadableUmask: Self {
        .enabled(if: MachineConditions.canReadUmask, "cannot read the umask without changing it (no /proc/self/status)")
    }
    /// Runs the test only against swift-corelibs-foundation: its expectations describe that Foundation,
    /// not Apple's.
    static var describesCorelibsFoundation: Self {
        .enabled(if: MachineConditions.foundationIsCorelibs, "describes swift-corelibs-foundation, not Apple's Foundation")
    }
    /// Runs the test only where a small tmpfs can be mounted (Linux, root, a mount the environment allows).
    static var requiresTmpfsMount: Self {
        .enabled(if: MachineConditions.tmpfsTools != nil, "needs Linux, root and permission to mount a tmpfs")
    }
}
