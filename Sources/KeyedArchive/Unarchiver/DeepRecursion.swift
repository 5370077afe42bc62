#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Work handed to a thread with a stack of a chosen size.
private final class StackJob: @unchecked Sendable {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}

/// Runs `body` on a new thread whose stack is at least `bytes` big, and waits for it.
///
/// Returns `false` (without running `body`) when the system refuses such a thread; the caller then
/// reports a ``KeyedArchiveError/Code/limitExceeded`` error rather than risking the caller's stack.
/// The stack is reserved address space: pages are only committed as the recursion reaches them.
func runOnThread(stackBytes bytes: Int, _ body: @escaping () -> Void) -> Bool {
    #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
    var attributes = pthread_attr_t()
    guard pthread_attr_init(&attributes) == 0 else { return false }
    defer { pthread_attr_destroy(&attributes) }
    let page = 1 << 16
    let (rounded, overflow) = bytes.addingReportingOverflow(page - 1)
    guard !overflow else { return false }
    let size = max(rounded & ~(page - 1), 1 << 20)
    guard pthread_attr_setstacksize(&attributes, size) == 0 else { return false }
    let job = Unmanaged.passRetained(StackJob(body))
    #if canImport(Darwin)
    var thread: pthread_t? = nil
    let started = pthread_create(&thread, &attributes, { context in
        Unmanaged<StackJob>.fromOpaque(context).takeRetainedValue().body()
        return nil
    }, job.toOpaque())
    guard started == 0, let thread else {
        job.release()
        return false
    }
    #else
    var thread = pthread_t()
    let started = pthread_create(&thread, &attributes, { context in
        if let context { Unmanaged<StackJob>.fromOpaque(context).takeRetainedValue().body() }
        return nil
    }, job.toOpaque())
    guard started == 0 else {
        job.release()
        return false
    }
    #endif
    pthread_join(thread, nil)
    return true
    #else
    body()
    return true
    #endif
}
