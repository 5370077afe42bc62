#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
internal import KeyedArchiveCSupport

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
    // `pthread_t _Nullable *` in Darwin's <pthread.h>, an opaque pointer in musl's, an integer in glibc's.
    #if canImport(Darwin) || canImport(Musl)
    var thread: pthread_t? = nil
    #else
    var thread = pthread_t()
    #endif
    let started = pthread_create(&thread, &attributes, { context in
        // The start routine's argument is `void * _Nullable` in Darwin's <pthread.h> as Swift imports it
        // (SWIFT_SDK_OVERLAY_PTHREAD_EPOCH=1) and unannotated in glibc's, but has been declared non-null
        // elsewhere: promoted to an optional, it compiles against either.
        let optionalContext: UnsafeMutableRawPointer? = context
        if let optionalContext { Unmanaged<StackJob>.fromOpaque(optionalContext).takeRetainedValue().body() }
        return nil
    }, job.toOpaque())
    guard started == 0 else {
        job.release()
        return false
    }
    #if canImport(Darwin) || canImport(Musl)
    guard let thread else { return false }  // pthread_create succeeded, so it set the thread
    #endif
    pthread_join(thread, nil)
    return true
    #else
    body()
    return true
    #endif
}

/// The nesting levels any thread's stack holds without measuring it: code that may recurse no deeper than
/// this runs where it is called, deeper code where the stack is known to hold it (the unarchiver's whole
/// decode, `decodeDecodable`'s subtree).
let levelsEveryStackHolds = 44

/// Runs `body` on a new thread whose stack holds `levels` nesting levels of `bytesPerLevel` bytes (at least
/// 1 KiB each) plus 1 MiB, and waits for it: the decoding thread of an archive that may nest that deep.
/// `bytesPerLevel` is taken as it is: the keyed unarchiver's levels check the stack's floor as they go
/// (UnarchivingSession+Depth.swift), so an estimate too small for the build's frames costs another thread,
/// never an overflow.
///
/// - Throws: ``KeyedArchiveError/Code/limitExceeded`` when that size overflows or the system refuses such
///   a thread (the caller's stack is not risked instead).
func runOnDecodingThread(levels: Int, bytesPerLevel: Int, _ body: @escaping () -> Void) throws {
    let (bytes, overflow) = levels.multipliedReportingOverflow(by: max(bytesPerLevel, 1024))
    let (total, tooLarge) = bytes.addingReportingOverflow(1 << 20)
    guard !overflow, !tooLarge, runOnThread(stackBytes: total, body) else {
        throw KeyedArchiveError(.limitExceeded,
                                "could not start a decoding thread with a stack for \(levels) levels; lower limits.maximumDepth")
    }
}

/// Runs `body` on a new decoding thread (see ``runOnDecodingThread(levels:bytesPerLevel:_:)``) whose levels
/// get `bytesPerLevel` times ``stackFrameScale`` (the recursion of `body` is sized by that estimate alone:
/// the typedstream readers', which also stop at ``stackIsNearItsEnd()``, the forensic reader's, Foundation's
/// `PropertyListDecoder`'s), waits for it and gives its result or rethrows its error. Kept apart from the
/// callers' fast paths, which then need no metadata for the outcome's generic type.
@inline(never)
func runOnThread<R>(levels: Int, bytesPerLevel: Int, _ body: () throws -> R) throws -> R {
    var outcome: Result<R, any Error>?
    try withoutActuallyEscaping(body) { body in
        try runOnDecodingThread(levels: levels, bytesPerLevel: scaledStackBytes(perLevel: bytesPerLevel)) {
            outcome = Result { try body() }
        }
    }
    return try decodingThreadOutcome(outcome)
}

/// The outcome a decoding thread left, or the error saying it never ran.
func decodingThreadOutcome<R>(_ outcome: Result<R, any Error>?) throws -> R {
    guard let outcome else { throw KeyedArchiveError(.limitExceeded, "the decoding thread did not run") }
    return try outcome.get()
}

/// How many times bigger than a plain build's the frames of this process's code may be: 4 when the
/// AddressSanitizer runtime is loaded (its redzones around every local), 2 with the ThreadSanitizer's, else 1.
/// The per-level stack budgets of recursions sized by an estimate alone are multiplied by it
/// (``runOnThread(levels:bytesPerLevel:_:)``, the unarchiver's reserve above its floor). Swift's `#if` cannot see `-sanitize=`, so the runtime is looked for by one of its
/// entry points, once. The figures are measured by `StackBudgetTests` (the keyed unarchiver's stack per
/// level under each sanitizer, against the budget); a frame the scale underestimates still meets a stack
/// check (``stackIsNearItsEnd()``, the unarchiver's floor) before the end of the stack.
let stackFrameScale: Int = {
    #if canImport(Glibc) || canImport(Musl) || canImport(Darwin)
    #if canImport(Darwin)
    let everyImage = UnsafeMutableRawPointer(bitPattern: -2)  // RTLD_DEFAULT
    #else
    let everyImage = UnsafeMutableRawPointer(bitPattern: 0)  // RTLD_DEFAULT
    #endif
    if dlsym(everyImage, "__asan_init") != nil { return 4 }
    if dlsym(everyImage, "__tsan_init") != nil { return 2 }
    #endif
    return 1
}()

/// `bytes` (at least 1 KiB) times ``stackFrameScale``, saturating: the stack one nesting level is given.
func scaledStackBytes(perLevel bytes: Int) -> Int {
    let (scaled, overflow) = max(bytes, 1024).multipliedReportingOverflow(by: stackFrameScale)
    return overflow ? Int.max : scaled
}

/// Where the calling function's frame is: where the calling thread's stack is now (stacks grow down on
/// every platform Swift runs on). The frame address, not a local's: under AddressSanitizer a local may live
/// on a heap-allocated "fake stack" (use-after-return detection), which says nothing about the real one.
@inline(__always)
func currentStackAddress() -> UInt {
    UInt(bitPattern: keyedarchive_frame_address())
}

/// The stack a recursive reader keeps free below a level where it checks, for the frames of the levels
/// until its next check and the calls they make: 8 levels of the default per-level budget (16 KiB) plus
/// 64 KiB, 192 KiB in all, times ``stackFrameScale`` (768 KiB under ASan, where a typedstream level at
/// -Onone takes about 26 KiB). It stays well below the 512 KiB stack of a secondary thread on Apple
/// platforms (GCD workers, Swift concurrency's threads), so that a shallow archive read there is not
/// refused.
let stackSafetyMargin = UInt(scaledStackBytes(perLevel: 8 * KeyedUnarchiver.defaultStackBytesPerLevel + (64 << 10)))

/// Whether the calling thread's stack has less than ``stackSafetyMargin`` left: the per-level check of the
/// recursive readers whose threads are sized by an estimate of the stack per level, which then stop with
/// a `limitExceeded` error rather than overflow the stack. False when the system does not say where the
/// stack ends, or when the code runs on a stack not the thread's own. Costs two thread-specific loads and
/// a compare once the thread's stack is known.
func stackIsNearItsEnd() -> Bool {
    guard let (bottom, top) = currentThreadStack() else { return false }
    let here = currentStackAddress()
    guard here >= bottom, here < top else { return false }
    let (floor, overflow) = bottom.addingReportingOverflow(stackSafetyMargin)
    return overflow || here < floor
}

#if canImport(Glibc) || canImport(Musl)
/// `pthread_getattr_np`, a GNU extension the C library has but the Swift module does not declare (it is
/// behind `_GNU_SOURCE`): looked up once; nil if missing.
private let getThreadAttributes: (@convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_getattr_np") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32).self)
}()

/// The per-thread cache of ``currentThreadStack()`` (finding the main thread's stack reads
/// `/proc/self/maps`): its lowest and its highest address; nil when no key could be made.
private let stackBottomKey: pthread_key_t? = makeStackKey()
private let stackTopKey: pthread_key_t? = makeStackKey()

private func makeStackKey() -> pthread_key_t? {
    var key = pthread_key_t()
    return pthread_key_create(&key, nil) == 0 ? key : nil
}
#endif

/// The lowest and the highest address of a Darwin thread's stack, from what the system reports: `top`
/// (`pthread_get_stackaddr_np`, where the stack starts, growing down) and `reportedSize`
/// (`pthread_get_stacksize_np`); nil when they make no sense.
///
/// For the main thread `pthread_get_stacksize_np` is not the size of the stack: the kernel sizes the main
/// stack from `RLIMIT_STACK` at `exec` (WebKit's StackBounds reads `getrlimit` there instead, for the same
/// reason). So the main thread's size is the smaller of the two, `stackLimit` being the soft limit (nil when
/// unknown; `RLIM_INFINITY` exceeds any report, which then stands): neither figure's error can put the bound
/// below the real end of the stack,
/// which the depth floor relies on (a bound too high only moves decoding to a new thread sooner).
func darwinThreadStack(top: UInt, reportedSize: UInt, isMainThread: Bool, stackLimit: UInt64?) -> (bottom: UInt, top: UInt)? {
    var size = reportedSize
    if isMainThread, let stackLimit {
        size = min(size, UInt(clamping: stackLimit))
    }
    guard size > 0, top > size else { return nil }
    return (top - size, top)
}

/// The lowest and the highest address of the calling thread's stack, or nil when the system does not say.
func currentThreadStack() -> (bottom: UInt, top: UInt)? {
    #if canImport(Glibc) || canImport(Musl)
    if let bottomKey = stackBottomKey, let topKey = stackTopKey, let bottom = pthread_getspecific(bottomKey),
       let top = pthread_getspecific(topKey) {
        return (UInt(bitPattern: bottom), UInt(bitPattern: top))
    }
    guard let getThreadAttributes else { return nil }
    var attributes = pthread_attr_t()
    guard getThreadAttributes(pthread_self(), &attributes) == 0 else { return nil }
    defer { pthread_attr_destroy(&attributes) }
    var address: UnsafeMutableRawPointer?
    var size = 0
    guard pthread_attr_getstack(&attributes, &address, &size) == 0, let address, size > 0 else { return nil }
    let bottom = UInt(bitPattern: address)
    let (top, overflow) = bottom.addingReportingOverflow(UInt(size))
    guard !overflow else { return nil }
    if let bottomKey = stackBottomKey, let topKey = stackTopKey {
        _ = pthread_setspecific(bottomKey, address)
        _ = pthread_setspecific(topKey, UnsafeRawPointer(bitPattern: top))
    }
    return (bottom, top)
    #elseif canImport(Darwin)
    let thread = pthread_self()
    var limit = rlimit()
    return darwinThreadStack(top: UInt(bitPattern: pthread_get_stackaddr_np(thread)),
                             reportedSize: UInt(pthread_get_stacksize_np(thread)), isMainThread: pthread_main_np() != 0,
                             stackLimit: getrlimit(RLIMIT_STACK, &limit) == 0 ? UInt64(limit.rlim_cur) : nil)
    #else
    return nil
    #endif
}
