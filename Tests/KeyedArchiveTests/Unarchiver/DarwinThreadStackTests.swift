import Testing
@testable import KeyedArchive

// The calling thread's stack on Darwin, from what the system reports (`darwinThreadStack`): a pure function,
// run here with Darwin's figures. The main thread's `pthread_get_stacksize_np` is not its stack's size (the
// kernel sizes the main stack from RLIMIT_STACK), so the smaller of it and the soft limit is taken.

@Suite struct DarwinThreadStackTests {
    static let top: UInt = 0x7_0000_0000
    static let mib: UInt = 1 << 20

    @Test func aSecondaryThreadUsesTheReportedSize() {
        let stack = darwinThreadStack(top: Self.top, reportedSize: 512 << 10, isMainThread: false, stackLimit: 8 << 20)
        #expect(stack?.bottom == Self.top - (512 << 10))
        #expect(stack?.top == Self.top)
    }

    @Test func theMainThreadIsNeverTakenLargerThanItsStackLimit() {
        // The limit lowered below what pthread reports (ulimit -s 1024): the limit bounds the stack.
        #expect(darwinThreadStack(top: Self.top, reportedSize: 8 * Self.mib, isMainThread: true, stackLimit: 1 << 20)?.bottom
            == Self.top - Self.mib)
        // The report below the limit: the report, so that the floor never lies below the real end.
        #expect(darwinThreadStack(top: Self.top, reportedSize: 512 << 10, isMainThread: true, stackLimit: 8 << 20)?.bottom
            == Self.top - (512 << 10))
        // Unlimited (or unknown): the report.
        #expect(darwinThreadStack(top: Self.top, reportedSize: 8 * Self.mib, isMainThread: true, stackLimit: nil)?.bottom
            == Self.top - 8 * Self.mib)
        // A limit beyond the address space is clamped, not trapped on.
        #expect(darwinThreadStack(top: Self.top, reportedSize: 8 * Self.mib, isMainThread: true, stackLimit: .max)?.bottom
            == Self.top - 8 * Self.mib)
    }

    @Test func nonsenseIsNoStack() {
        #expect(darwinThreadStack(top: Self.top, reportedSize: 0, isMainThread: false, stackLimit: nil) == nil)
        #expect(darwinThreadStack(top: 4096, reportedSize: 8 * Self.mib, isMainThread: false, stackLimit: nil) == nil)
        #expect(darwinThreadStack(top: Self.top, reportedSize: 8 * Self.mib, isMainThread: true, stackLimit: 0) == nil)
    }
}
