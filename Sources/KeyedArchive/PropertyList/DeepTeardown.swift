#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

// Why this file exists: Swift frees a tree of enums and arrays recursively, one call (several frames) per
// level, so dropping the last reference to a value nested ~40,000 levels deep overflows an 8 MiB stack.
// The only code that runs when a value is freed is a class's `deinit`, so the collection payloads of
// ``PropertyListValue`` and ``FoundationValue`` keep their elements in a `DeepTeardownBox`. Its `deinit`
// moves the elements out and hands them to a per-thread worklist instead of freeing them in place: the
// first box freed on a thread runs the worklist until it is empty, and every box freed meanwhile (the
// children of what the loop drops) only appends to it. Freeing any tree therefore uses a constant amount
// of stack, and nothing is allocated per free once the thread's worklist exists.

/// A storage that a ``DeepTeardownBox`` can empty: an array, a dictionary, or a struct of them.
@usableFromInline
protocol DeepTeardownStorage {
    /// An empty storage (allocates nothing).
    init()
    /// Whether freeing the storage frees nothing that could recurse.
    var isEmpty: Bool { get }
}

extension Array: DeepTeardownStorage {}
extension Dictionary: DeepTeardownStorage {}

/// Class-backed storage whose `deinit` frees its contents through the thread's teardown worklist rather than
/// recursively (see the comment at the top of this file). Value types wrap it copy-on-write.
///
/// `@unchecked Sendable`: the wrapping value types only mutate a box they hold uniquely.
@usableFromInline
final class DeepTeardownBox<Storage: DeepTeardownStorage>: @unchecked Sendable {
    @usableFromInline @exclusivity(unchecked) var storage: Storage

    @inlinable
    init(_ storage: Storage) { self.storage = storage }

    deinit {
        if storage.isEmpty { return }
        DeepTeardown.release(&storage)
    }
}

/// The per-thread worklist that frees deep trees without recursion.
enum DeepTeardown {
    /// The thread-specific key of each thread's `Worklist` (created on a thread's first free, released by the
    /// key's destructor when the thread exits).
    ///
    /// `nil` only if the process ran out of thread-specific keys (PTHREAD_KEYS_MAX): values are then freed
    /// the ordinary (recursive) way rather than stopping the process.
    private static let key: pthread_key_t? = {
        var key = pthread_key_t()
        #if canImport(Darwin)
        let created = pthread_key_create(&key) { Unmanaged<Worklist>.fromOpaque($0).release() }
        #else
        let created = pthread_key_create(&key) { pointer in
            if let pointer { Unmanaged<Worklist>.fromOpaque(pointer).release() }
        }
        #endif
        return created == 0 ? key : nil
    }()

    /// Storages whose contents are still to be freed, and whether this thread's loop is running.
    private final class Worklist {
        var pending: [Any] = []
        var isRunning = false
    }

    /// The calling thread's worklist, created on first use.
    @inline(__always)
    private static func current(_ key: pthread_key_t) -> Worklist {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<Worklist>.fromOpaque(pointer).takeUnretainedValue()
        }
        let worklist = Worklist()
        pthread_setspecific(key, Unmanaged.passRetained(worklist).toOpaque())
        return worklist
    }

    /// Empties `storage` (which holds the last reference to its contents) without recursion: moves its
    /// contents to the thread's worklist, and runs the worklist unless a loop further up this thread's stack
    /// already does. No local copy of the contents outlives the move, so the worklist holds the only one.
    static func release<Storage: DeepTeardownStorage>(_ storage: inout Storage) {
        guard let key else { return }
        let worklist = current(key)
        // An array or dictionary is one word (a storage struct up to three), which an existential holds
        // inline: no allocation.
        worklist.pending.append(storage)
        storage = Storage()
        if worklist.isRunning { return }
        worklist.isRunning = true
        while let next = worklist.pending.popLast() {
            // `next` is dropped here, outside the access to `pending`: the boxes it frees append to it.
            _ = next
        }
        worklist.isRunning = false
        if worklist.pending.capacity > 4096 { worklist.pending = [] }
    }
}
