import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `body` on a new thread whose stack is `stackSize` bytes and waits for it: deep-nesting tests run
/// with a known stack (8 MiB, a main thread's default; 512 KiB, a secondary thread's on Darwin) rather
/// than whatever the test runner's thread has.
func onThread<T>(stackSize: Int, _ body: @escaping () throws -> T) throws -> T {
    var outcome: Result<T, any Error>?
    let job = ThreadJob { outcome = Result { try body() } }
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setstacksize(&attributes, stackSize)
    #if canImport(Darwin) || canImport(Musl)
    var thread: pthread_t?
    #else
    var thread = pthread_t()
    #endif
    let context = Unmanaged.passRetained(job).toOpaque()
    let status = pthread_create(&thread, &attributes, { context in
        // Nullable or not depending on the C library and SDK (see runOnThread(stackBytes:_:)): an optional either way.
        let optionalContext: UnsafeMutableRawPointer? = context
        guard let optionalContext else { return nil }
        Unmanaged<ThreadJob>.fromOpaque(optionalContext).takeRetainedValue().run()
        return nil
    }, context)
    guard status == 0 else {
        Unmanaged<ThreadJob>.fromOpaque(context).release()
        throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EINVAL)
    }
    #if canImport(Darwin) || canImport(Musl)
    if let thread { pthread_join(thread, nil) }
    #else
    pthread_join(thread, nil)
    #endif
    guard let outcome else { throw POSIXError(.EINVAL) }
    return try outcome.get()
}

/// The body of a thread started by ``onThread(stackSize:_:)``.
private final class ThreadJob: @unchecked Sendable {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}
