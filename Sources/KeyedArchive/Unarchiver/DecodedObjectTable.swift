/// What one unarchive has decoded, per `$objects` entry: the engine under `UnarchivingSession`, apart
/// from the rules it applies, as swift-collections keeps `_HashTable` apart from `Set`.
///
/// It answers three questions fast: what state an object is in (not started, being decoded, decoded),
/// which instance or value it was decoded as, and which class (by index into the session's class table)
/// it was found to have. It decides nothing: the session checks the limits, the cycles and the
/// allow-list before it records anything here, and checks the allow-list again, on the class index this
/// table gives, for every reference to an object met before.
///
/// Its invariants (``DecodedObjectTableTests``):
/// 1. **Every address it reads is owned.** A slot holds a class instance's address without retaining it;
///    the instance is retained by ``decodedObjects`` from the moment its address is stored until
///    ``release()``, which empties the slots and the copies before the owners. So ``DecodedSlot/instance``
///    and the warming loads read only live objects. Addresses that do not fit the slot's 48 bits or are not
///    8-byte aligned (not a heap object's: an Objective-C tagged pointer) are never stored; such an
///    instance is kept in `values`, like a struct.
/// 2. **A copy never disagrees with its slot.** ``instancesByObject`` keeps, per property-list object
///    through which a decoded instance was reached, a copy of that instance's slot. A slot in state
///    decoded with an instance changes only if its object is entered again (``begin(_:)``), which turns
///    every copy off for the rest of the unarchive.
/// 3. **Every index is checked.** Entry ids and property-list object numbers come from checked references,
///    and are still compared with the tables' counts at each read; after ``release()`` every read answers
///    "nothing".
/// 4. **Warming reads, it never decides.** ``warm(valuesOf:from:in:)`` and ``warm(_:from:in:)`` load what
///    the shared-object path will load (a UID's word, its slot, the instance's header) so that the cache
///    misses overlap; they retain nothing and their results are discarded.
///
/// The table is not copyable: the session reaches it through an addressor (``UncheckedExclusiveState``), and
/// a copyable table would be copied for each non-mutating read there (a retain and release of each of its
/// arrays); as a non-copyable value it is read in place.
struct DecodedObjectTable: ~Copyable {
    /// What the table knows of one `$objects` entry, in one word: a reference to an object met before
    /// reads one slot (one cache line) instead of three arrays at unrelated places, and goes from the slot
    /// straight to the instance's header.
    struct DecodedSlot {
        /// Bits 0-47 ``instanceBits``, bits 48-61 ``classIndex`` + 1 (0: none), bits 62-63 ``state``.
        private var bits: UInt64 = 0
        /// The address of the class instance decoded for the object (unretained; kept alive by the table's
        /// `decodedObjects`), 0 when it was not decoded as a class instance or its address does not fit.
        var instanceBits: UInt {
            UInt(truncatingIfNeeded: bits & Self.instanceMask)
        }
        /// Stores `object`'s address; false (nothing stored) when the address does not fit in 48 bits or is
        /// not that of a heap object (8-byte aligned), whose header the warming loads read.
        mutating func setInstance(_ object: AnyObject) -> Bool {
            let address = UInt64(UInt(bitPattern: ObjectIdentifier(object)))
            guard Self.holdsInline(address) else { return false }
            bits = bits & ~Self.instanceMask | address
            return true
        }
        /// The instance ``instanceBits`` is the address of (nil when none), not retained by the slot: valid
        /// while its table holds the instance (invariant 1).
        var instance: AnyObject? {
            let address = instanceBits
            guard address != 0 else { return nil }
            return unsafeBitCast(address, to: AnyObject.self)
        }
        /// The index of its class in the session's class table (-1 until decoded, or when it does not fit
        /// in 14 bits), so that a second reference to it is checked without reading its dictionary again.
        var classIndex: Int32 {
            get { Int32(truncatingIfNeeded: (bits >> 48) & 0x3FFF) - 1 }
            set {
                let stored: UInt64 = newValue >= 0 && newValue < 0x3FFF ? UInt64(newValue + 1) : 0
                bits = bits & ~(UInt64(0x3FFF) << 48) | stored << 48
            }
        }
        /// Where the object's decoding stands.
        var state: ObjectState {
            get { ObjectState(rawValue: UInt8(truncatingIfNeeded: bits >> 62)) ?? .notStarted }
            set { bits = bits & 0x3FFF_FFFF_FFFF_FFFF | UInt64(newValue.rawValue & 3) << 62 }
        }
        private static let instanceMask: UInt64 = 0xFFFF_FFFF_FFFF
        /// Whether a slot keeps an instance at `address`: below 2^48 and 8-byte aligned, as heap objects are.
        static func holdsInline(_ address: UInt64) -> Bool { address & ~instanceMask == 0 && address & 7 == 0 }
    }

    /// Where the decoding of one `$objects` entry stands.
    enum ObjectState: UInt8 {
        case notStarted = 0
        /// Entered and not yet left: met again now, it closes a cycle.
        case inProgress = 1
        /// Its instance is in its slot or its value in `values`.
        case decoded = 2
    }

    /// Per `$objects` entry (emptied by ``release()``).
    private var slots: [DecodedSlot]
    /// Per property-list object: for a UID through which a class instance was decoded or met again, a copy
    /// of that instance's slot (state decoded); an empty slot for every other object (invariant 2). A
    /// repeated reference then reads one entry instead of the UID's word and then its slot: in a large
    /// archive each is a cache miss.
    private var instancesByObject: [DecodedSlot]
    /// False once an object with an instance in its slot was entered again (invariant 2).
    private var instancesByObjectValid = true
    /// The owners of the class instances the slots point at, in the order they were decoded (invariant 1).
    private var decodedObjects: [AnyObject] = []
    /// Decoded values that are not class instances in a slot (structs), by entry.
    private var values: [Int: Any] = [:]
    /// Sums what the warming loads read, so that the loads are made (nothing reads it).
    private var warmSink: UInt = 0
    /// The last type ``isClass(_:)`` looked at, and whether it is a class.
    private var lastKind: (type: ObjectIdentifier, isClass: Bool)?

    /// An empty table for `objectCount` `$objects` entries in a property list of `plistObjectCount` objects.
    init(objectCount: Int, plistObjectCount: Int) {
        slots = [DecodedSlot](repeating: DecodedSlot(), count: objectCount)
        instancesByObject = [DecodedSlot](repeating: DecodedSlot(), count: plistObjectCount)
    }

    /// Drops every decoded object: the slots and copies first, then their owners (invariant 1).
    mutating func release() {
        values = [:]
        instancesByObject = []
        slots = []
        decodedObjects = []
    }

    // MARK: States

    /// The state of `uid`; not started for an id out of range (or once released).
    @inline(__always)
    func state(_ uid: ArchiveObjectID) -> ObjectState {
        uid.rawValue >= 0 && uid.rawValue < slots.count ? slots[uid.rawValue].state : .notStarted
    }

    /// Whether the UID value `ref` names an entry already decoded.
    @inline(__always)
    func isDecoded(reference ref: UInt64) -> Bool {
        ref > 0 && ref < UInt64(slots.count) && slots[Int(ref)].state == .decoded
    }

    /// Marks `uid` as being decoded; an instance it already had turns the copies off (invariant 2).
    mutating func begin(_ uid: ArchiveObjectID) {
        guard uid.rawValue >= 0, uid.rawValue < slots.count else { return }
        if slots[uid.rawValue].instanceBits != 0 { instancesByObjectValid = false }
        slots[uid.rawValue].state = .inProgress
    }

    /// Marks `uid` as decoded (its result recorded by ``record(_:value:instance:classIndex:)``) or, when the
    /// decoding failed or only checked the object, as not started.
    mutating func end(_ uid: ArchiveObjectID, decoded: Bool) {
        guard uid.rawValue >= 0, uid.rawValue < slots.count else { return }
        slots[uid.rawValue].state = decoded ? .decoded : .notStarted
    }

    /// The class index recorded for `uid` (-1: none).
    @inline(__always)
    func classIndex(_ uid: ArchiveObjectID) -> Int {
        uid.rawValue >= 0 && uid.rawValue < slots.count ? Int(slots[uid.rawValue].classIndex) : -1
    }

    // MARK: Results

    /// Records what `uid` was decoded as: `instance` (when the value is a class instance) in its slot and
    /// ``decodedObjects``, or else `value`; and the index of its class.
    mutating func record(_ uid: ArchiveObjectID, value: Any, instance: AnyObject?, classIndex: Int) {
        guard uid.rawValue >= 0, uid.rawValue < slots.count else { return }
        if let instance, slots[uid.rawValue].setInstance(instance) {
            decodedObjects.append(instance)  // the slot points at it; this holds it
        } else {
            values[uid.rawValue] = value
        }
        slots[uid.rawValue].classIndex = Int32(exactly: classIndex) ?? -1
    }

    /// The decoded instance or value of `uid`, if any.
    func cached(_ uid: ArchiveObjectID) -> Any? {
        guard uid.rawValue >= 0, uid.rawValue < slots.count else { return nil }
        if let instance = slots[uid.rawValue].instance { return instance }
        return values[uid.rawValue]
    }

    /// Whether `type` is a class (the last answer is kept: a metatype cast per object costs more than a compare).
    @inline(__always)
    mutating func isClass(_ type: any Any.Type) -> Bool {
        let id = ObjectIdentifier(type)
        if let lastKind, lastKind.type == id { return lastKind.isClass }
        let result = type is AnyClass
        lastKind = (id, result)
        return result
    }

    /// `made` as a class reference when its type is a class, without the bridging `as AnyObject` goes
    /// through on Linux; nil for a struct or enum.
    @inline(__always)
    mutating func instanceReference<T>(to made: T) -> AnyObject? {
        // T is a class type: a value of it is one strong reference, laid out as AnyObject.
        isClass(T.self) ? unsafeBitCast(made, to: AnyObject.self) : nil
    }

    /// `object` as a `T` when its dynamic type is exactly `T` (not a subclass), without the run-time cast
    /// machinery; nil otherwise.
    @inline(__always)
    static func exactly<T>(_ object: AnyObject, as type: T.Type) -> T? {
        // Equal metadata: `object` is a T, a class reference laid out as AnyObject.
        guard ObjectIdentifier(Swift.type(of: object)) == ObjectIdentifier(T.self) else { return nil }
        return unsafeBitCast(object, to: T.self)
    }

    // MARK: References met again

    /// Keeps a copy of `uid`'s slot for property-list object `object` (a UID naming `uid`) when `uid` was
    /// decoded as a class instance with a class index.
    @inline(__always)
    mutating func remember(_ object: PropertyListObjectNumber, as uid: ArchiveObjectID) {
        let n = object.index
        guard uid.rawValue >= 0, uid.rawValue < slots.count, case let slot = slots[uid.rawValue],
              slot.instanceBits != 0, slot.classIndex >= 0, n >= 0, n < instancesByObject.count else { return }
        var copy = slot
        copy.state = .decoded
        instancesByObject[n] = copy
    }

    /// Whether property-list object `object` is a UID of an object decoded as a class instance (so a
    /// reference that is not nil), from the copies alone; false says nothing.
    @inline(__always)
    func refersToDecodedInstance(_ object: PropertyListObjectNumber) -> Bool {
        let n = object.index
        return instancesByObjectValid && n >= 0 && n < instancesByObject.count && instancesByObject[n].instanceBits != 0
    }

    /// The entry the UID `object` names and its decoded instance, when that instance's class is exactly
    /// `type`; nil otherwise (a damaged or missing reference included: the full path reports it).
    @inline(__always)
    func decodedInstance(_ object: PropertyListObjectNumber, of type: any KeyedArchivable.Type, in storage: ArchiveStorage)
        -> (uid: ArchiveObjectID, object: AnyObject)?
    {
        guard let ref = (try? storage.uid(object.index)) ?? nil, ref > 0, ref < UInt64(slots.count), case let slot = slots[Int(ref)],
              slot.state == .decoded, let object = slot.instance,
              ObjectIdentifier(Swift.type(of: object)) == ObjectIdentifier(type) else {
            return nil
        }
        return (ArchiveObjectID(reference: ref), object)
    }

    /// The decoded instance the UID `object` names and its class index, when the instance's class is exactly
    /// `type`: from the copy for `object` (one load) or else from the UID and its slot, remembering the copy
    /// for the next time. Nil sends the caller down the full path.
    @inline(__always)
    mutating func sharedInstance(_ object: PropertyListObjectNumber, of type: any KeyedArchivable.Type, in storage: ArchiveStorage)
        -> (classIndex: Int, object: AnyObject)?
    {
        let slot: DecodedSlot
        let n = object.index
        if instancesByObjectValid, n >= 0, n < instancesByObject.count, case let copy = instancesByObject[n],
           let instance = copy.instance, ObjectIdentifier(Swift.type(of: instance)) == ObjectIdentifier(type) {
            slot = copy
        } else {
            guard let (uid, _) = decodedInstance(object, of: type, in: storage) else { return nil }
            slot = slots[uid.rawValue]
            remember(object, as: uid)
        }
        guard slot.classIndex >= 0, let object = slot.instance else { return nil }
        return (Int(slot.classIndex), object)
    }

    // MARK: Warming shared references

    /// The objects ``warm(_:_:_:_:in:)`` takes at once, and the elements per step of ``warm(_:from:in:)``'s
    /// pipeline (called at every multiple of it).
    static let warmedLanes = 4

    /// ``warm(_:_:_:_:in:)`` for the values of entries `first ..< first + 4` of `fields` (fewer at its end).
    @inline(never)
    mutating func warm(valuesOf fields: ArchiveFields, from first: Int, in storage: ArchiveStorage) {
        // One reference alone has nothing to overlap with.
        guard first >= 0, first + 1 < fields.count else { return }
        let at = fields.values + first * storage.refSize, step = storage.refSize, count = fields.count - first
        warm(storage.referenceIfInRange(at: at) ?? -1,
             storage.referenceIfInRange(at: at + step) ?? -1,
             count > 2 ? storage.referenceIfInRange(at: at + 2 * step) ?? -1 : -1,
             count > 3 ? storage.referenceIfInRange(at: at + 3 * step) ?? -1 : -1, in: storage)
    }

    /// Warms the elements of an array or set read in order, four at a time, as a pipeline: called at each
    /// element `first` that is a multiple of 4, it reads the instance headers of elements `first ..< first + 4`,
    /// the slots of the next four and the words and copies of the four after those (each step finds the
    /// step before it in the cache, warmed by the call before), so twelve misses overlap and each call pays
    /// about one miss's wait instead of a chain of them.
    @inline(never)
    mutating func warm(_ refs: [Int], from first: Int, in storage: ArchiveStorage) {
        let count = refs.count
        guard first >= 0, first + 1 < count else { return }
        if first == 0 {
            // The pipeline starts empty: the first four go through every step at once.
            warm(refs[0], refs[1], count > 2 ? refs[2] : -1, count > 3 ? refs[3] : -1, in: storage)
        }
        let lanes = Self.warmedLanes
        var sum: UInt = 0
        var j = first
        while j < min(first + lanes, count) {
            sum &+= warmedHeader(warmedInstance(refs[j], in: storage))
            j += 1
        }
        while j < min(first + 2 * lanes, count) {
            sum &+= warmedInstance(refs[j], in: storage)
            j += 1
        }
        while j < min(first + 3 * lanes, count) {
            let n = refs[j]
            if n >= 0, n < instancesByObject.count {
                let remembered = instancesByObject[n].instanceBits
                sum &+= remembered != 0 ? remembered : UInt(truncatingIfNeeded: storage.resolvedUID(n) ?? 0)
            }
            j += 1
        }
        warmSink &+= sum
    }

    /// Reads, for up to four property-list objects (-1: none) that may be UIDs of decoded class instances,
    /// what the shared-object path reads for each (the object's word, its slot, its instance's header), one
    /// step for all four before the next, so that the misses of a step overlap. Objects not decoded yet are
    /// left alone: decoding a new object touches enough memory to evict what was warmed for them.
    @inline(__always)
    private mutating func warm(_ o0: Int, _ o1: Int, _ o2: Int, _ o3: Int, in storage: ArchiveStorage) {
        let i0 = warmedInstance(o0, in: storage), i1 = warmedInstance(o1, in: storage)
        let i2 = warmedInstance(o2, in: storage), i3 = warmedInstance(o3, in: storage)
        guard i0 | i1 | i2 | i3 != 0 else { return }
        warmSink &+= warmedHeader(i0) &+ warmedHeader(i1) &+ warmedHeader(i2) &+ warmedHeader(i3)
    }

    /// The address of the decoded class instance object `n` (-1: none) is a UID of: from its copy (one
    /// load) or else from its word and its slot; 0 otherwise.
    @inline(__always)
    private func warmedInstance(_ n: Int, in storage: ArchiveStorage) -> UInt {
        guard n >= 0, n < instancesByObject.count else { return 0 }
        let remembered = instancesByObject[n].instanceBits
        if remembered != 0 { return remembered }
        guard let ref = storage.resolvedUID(n), ref > 0, ref < UInt64(slots.count) else { return 0 }
        let slot = slots[Int(ref)]
        return slot.state == .decoded ? slot.instanceBits : 0
    }

    /// The first word of the instance whose address is `instance` (0: none); a live object (invariant 1).
    @inline(__always)
    private func warmedHeader(_ instance: UInt) -> UInt {
        UnsafeRawPointer(bitPattern: instance)?.load(as: UInt.self) ?? 0
    }
}
