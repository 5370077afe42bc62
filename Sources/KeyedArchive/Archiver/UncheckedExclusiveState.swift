/// The mutable state of one archiver, unarchive or decoder, reached without run-time exclusivity checks:
/// the one way the package avoids them, used by ``KeyedArchiver``, `UnarchivingSession` and
/// `ArchiveObjectDecoder` alike.
///
/// Swift checks every access to a class's stored `var` at run time (a begin and an end call per access),
/// because two accesses to one class property may overlap through aliases the compiler cannot see. The
/// coder classes touch their state at every field, so each owner keeps its mutable fields in one struct,
/// `Value`, in a block this type allocates and frees; the owner holds the block in a `let` and reaches
/// `Value` through ``value``, whose addressors return the block's address. Neither a `let` nor an addressor
/// is checked at run time.
///
/// The invariant that makes this safe, which each owner keeps:
/// - **One thread at a time.** An owner is used by one thread at a time (a coder is not `Sendable`; a
///   decoding level continued on another thread runs while the caller's thread waits for it).
/// - **No access spans a call out.** An access to ``value`` (a read, an `inout` argument, a mutating
///   method) ends before the owner calls code that may reach the same owner again: a model's
///   `encode(to:)` or `init(from:)`, a `Codable` initializer, a deferred assignment. Owners copy what they
///   need into locals before such a call and write results back after it, so no two accesses overlap and a
///   dynamic check could never fire.
/// - **Owned once.** Each block has exactly one owner, which holds it in a `let`, never hands it out, and
///   calls ``destroy()`` exactly once, in its `deinit`: no access outlives the block.
///
/// `Value` may be non-copyable (the unarchiver's state holds its non-copyable `DecodedObjectTable`): the
/// addressors hand out the block's address, so reads and writes run in place and nothing is copied.
struct UncheckedExclusiveState<Value: ~Copyable> {
    /// The block holding the state (initialized from `init` to ``destroy()``).
    private let address: UnsafeMutablePointer<Value>

    /// Allocates the block and stores `initial` in it.
    init(_ initial: consuming Value) {
        address = .allocate(capacity: 1)
        address.initialize(to: initial)
    }

    /// Deinitializes and frees the block: its owner's `deinit` calls it, once.
    func destroy() {
        address.deinitialize(count: 1)
        address.deallocate()
    }

    /// The state, read and written in place, without an exclusivity check (see the type's invariant).
    var value: Value {
        @inline(__always) unsafeAddress { UnsafePointer(address) }
        @inline(__always) nonmutating unsafeMutableAddress { address }
    }

    /// The block's address, for an owner's own addressors (`unsafeAddress { state.readAddress }`), which
    /// forward ``value`` under a shorter name.
    var readAddress: UnsafePointer<Value> {
        @inline(__always) get { UnsafePointer(address) }
    }

    /// The block's address, for an owner's `unsafeMutableAddress` (see ``readAddress``).
    var writeAddress: UnsafeMutablePointer<Value> {
        @inline(__always) get { address }
    }
}
