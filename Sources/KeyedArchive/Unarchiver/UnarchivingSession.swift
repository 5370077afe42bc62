#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The state of one unarchive: the archive, what has been decoded, the path, the limits.
///
/// Everything happens on one thread, depth first; the path and the in-progress stack mirror the
/// recursion of `init(from:)` calls.
///
/// The mutable state is `@exclusivity(unchecked)`: a session is used by one thread, and no access to it
/// spans a call out to a model's `init(from:)`, so the dynamic exclusivity checks (a measurable share
/// of decoding time) can never fire.
final class UnarchivingSession {
    let storage: ArchiveStorage
    let registry: [String: any KeyedArchivable.Type]
    /// The caller's module moves, old module to new (``KeyedUnarchiver/mapModule(_:to:)``).
    let moduleMoves: [String: String]
    let limits: KeyedUnarchiver.Limits
    /// The number of entries in `$objects`.
    let objectCount: Int
    /// What the session knows of one `$objects` entry, in one place: a reference to an object met before
    /// reads one slot (one cache line) instead of three arrays at unrelated places.
    ///
    /// One word, with the instance's address inline: a second reference to an object goes from its slot
    /// straight to the instance's header (one dependent cache miss fewer than through a table of
    /// instances), and the table is made and dropped without a retain or a release per entry. The slot
    /// does not own the instance: ``decodedObjects`` holds the strong references, and is emptied together
    /// with the slots.
    struct DecodedSlot {
        /// Bits 0-47 ``instanceBits``, bits 48-61 ``classIndex`` + 1 (0: none), bits 62-63 ``state``.
        private var bits: UInt64 = 0
        /// The address of the class instance decoded for the object (unretained; kept alive by
        /// ``decodedObjects``), 0 when it was not decoded as a class instance or its address does not fit
        /// in 48 bits (then the instance is in `values`, like a struct).
        var instanceBits: UInt {
            UInt(truncatingIfNeeded: bits & Self.instanceMask)
        }
        /// Stores `object`'s address; false (nothing stored) when the address does not fit in 48 bits or is
        /// not that of a heap object (8-byte aligned): an Objective-C tagged pointer on Apple platforms has
        /// no header to read, and ``UnarchivingSession/warm(valuesOf:from:)`` reads the header at this address.
        mutating func setInstance(_ object: AnyObject) -> Bool {
            let address = UInt64(UInt(bitPattern: ObjectIdentifier(object)))
            guard Self.holdsInline(address) else { return false }
            bits = bits & ~Self.instanceMask | address
            return true
        }
        /// The instance ``instanceBits`` is the address of (nil when none); the slot does not retain it.
        var instance: AnyObject? {
            let address = instanceBits
            guard address != 0 else { return nil }
            return unsafeBitCast(address, to: AnyObject.self)
        }
        /// The index of its class in `classTable` (-1 until decoded, or when it does not fit in 14 bits), so
        /// that a second reference to it is checked without reading its dictionary again.
        var classIndex: Int32 {
            get { Int32(truncatingIfNeeded: (bits >> 48) & 0x3FFF) - 1 }
            set {
                let stored: UInt64 = newValue >= 0 && newValue < 0x3FFF ? UInt64(newValue + 1) : 0
                bits = bits & ~(UInt64(0x3FFF) << 48) | stored << 48
            }
        }
        /// 0 not started, 1 being decoded, 2 decoded (the instance is inline and in ``decodedObjects``, or
        /// the value in `values`).
        var state: UInt8 {
            get { UInt8(truncatingIfNeeded: bits >> 62) }
            set { bits = bits & 0x3FFF_FFFF_FFFF_FFFF | UInt64(newValue & 3) << 62 }
        }
        private static let instanceMask: UInt64 = 0xFFFF_FFFF_FFFF
        /// Whether a slot keeps an instance at `address`: below 2^48 and 8-byte aligned, as heap objects are.
        static func holdsInline(_ address: UInt64) -> Bool { address & ~instanceMask == 0 && address & 7 == 0 }
    }
    /// Per `$objects` entry (emptied by ``release()``: every read checks the index against its count).
    @exclusivity(unchecked) private var slots: [DecodedSlot]
    /// Per property-list object: for a UID through which a class instance was decoded (or met again), a
    /// copy of that instance's slot (state 2); an empty slot for every other object. Emptied by ``release()``.
    ///
    /// A field's value is the number of a UID object, which the shared-object path otherwise resolves in two
    /// dependent loads before the instance's header (the UID's word, then the slot of its `$objects` index);
    /// here it is one. In a large archive each of them is a cache miss (an object met again was decoded
    /// long ago), so a repeated reference waits for one miss fewer. A copy never changes once made: a slot
    /// in state 2 with an instance stays so unless that object is entered again (which only a damaged or
    /// unusual archive does: the same object read as a collection too); ``enter(uid:className:key:)`` then
    /// turns the table off for the rest of the session (``instancesByObjectValid``), so it never answers
    /// differently from the slots.
    @exclusivity(unchecked) private var instancesByObject: [DecodedSlot]
    /// False once an object with an instance in its slot was entered again (see ``instancesByObject``).
    @exclusivity(unchecked) private var instancesByObjectValid = true
    /// The owners of the class instances the slots point at (see ``DecodedSlot/instanceBits``), in the
    /// order they were decoded; emptied by ``release()``, after the slots.
    @exclusivity(unchecked) private var decodedObjects: [AnyObject] = []
    /// Decoded values that are not class instances (structs), by UID.
    @exclusivity(unchecked) private var values: [Int: Any] = [:]
    /// Every class met so far; objects name theirs by index into this table.
    @exclusivity(unchecked) private(set) var classTable: [ArchivedClass] = []
    /// Class-dictionary UID -> index in `classTable`, for classes past the first 16 (scanned linearly).
    @exclusivity(unchecked) private var classSlots: [Int: Int] = [:]
    @exclusivity(unchecked) private var resolutions: [ResolutionKey: (any KeyedArchivable.Type)?] = [:]
    @exclusivity(unchecked) private var typeNames: [ObjectIdentifier: [String]] = [:]
    @exclusivity(unchecked) private(set) var path: [ArchivePathComponent] = []
    @exclusivity(unchecked) private var inProgress: [(uid: ArchiveObjectID, className: String, pathCount: Int)] = []
    @exclusivity(unchecked) private var decodedObjectCount = 0
    @exclusivity(unchecked) private var byteCount = 0
    @exclusivity(unchecked) private var decodedElementCount = 0
    @exclusivity(unchecked) private var deferred: [() throws -> Void] = []
    @exclusivity(unchecked) private var active = true
    /// Object decoders that nothing else holds, for the next objects (see ``instance(_:allowed:key:expected:)``).
    @exclusivity(unchecked) private var spareDecoders: [ArchiveObjectDecoder] = []
    /// Element-mode decoders that nothing else holds, for the next collections (see ``elementDecoder()``).
    @exclusivity(unchecked) private var spareElementDecoders: [ArchiveObjectDecoder] = []
    /// The key tables met so far, at most 8 (UnarchivingSession+KeyTables.swift).
    @exclusivity(unchecked) var keyTables: [KeyTable] = []
    /// The fields each of ``keyTables`` was made from, compared without touching the tables themselves
    /// (reading a class reference out of an array retains and releases it).
    @exclusivity(unchecked) var keyTableFields: [ArchiveFields] = []
    /// The stack reserved per nesting level on a thread started for deep archives (UnarchivingSession+Depth.swift).
    let stackBytesPerLevel: Int
    /// Below this stack address the next nesting level runs on a new thread; 0 on a thread whose stack was
    /// sized for every level that may remain (UnarchivingSession+Depth.swift).
    @exclusivity(unchecked) var stackFloor: UInt = 0
    /// The most levels a thread a nesting level continued on was sized for (0 when none did): the decoded
    /// objects are then released on a thread with such a stack, as deep chains may be among them.
    @exclusivity(unchecked) var deepestThreadLevels = 0

    private struct ResolutionKey: Hashable {
        var classUID: Int
        var type: ObjectIdentifier
    }

    init(storage: ArchiveStorage, registry: [String: any KeyedArchivable.Type], moduleMoves: [String: String] = [:],
         limits: KeyedUnarchiver.Limits, stackBytesPerLevel: Int = 16 << 10) {
        self.storage = storage
        self.registry = registry
        self.moduleMoves = moduleMoves
        self.limits = limits
        self.stackBytesPerLevel = stackBytesPerLevel
        self.objectCount = storage.objectCount
        self.slots = [DecodedSlot](repeating: DecodedSlot(), count: storage.objectCount)
        self.instancesByObject = [DecodedSlot](repeating: DecodedSlot(), count: storage.plistObjectCount)
    }

    /// Delivers the back-references once the whole graph is decoded.
    func finish() throws {
        var index = 0
        while index < deferred.count {
            try deferred[index]()
            index += 1
        }
        deferred = []
        active = false
    }

    /// Drops decoded objects (on a thread with a big stack when some level needed one: long chains are
    /// released recursively).
    func release() {
        active = false
        values = [:]
        instancesByObject = []
        slots = []
        decodedObjects = []
        deferred = []
        spareDecoders = []
        spareElementDecoders = []
    }

    // MARK: Reading the archive

    /// A property-list fault met while reading, as a keyed-archive error at the current path.
    @inline(never)
    func damaged(_ error: PropertyListError, key: String?, uid: ArchiveObjectID?) -> KeyedArchiveError {
        KeyedArchiveReader.unreadable(error, keyPath: pathString(appending: key), objectUID: uid?.objectUID)
    }

    /// The property-list object of `$objects[uid]` (`uid` below ``objectCount``).
    @inline(__always)
    func object(_ uid: ArchiveObjectID, key: String?) throws -> Int {
        do { return try storage.object(uid) } catch let e as PropertyListError { throw damaged(e, key: key, uid: uid) }
    }

    /// The fields of dictionary `n`, or nil when `n` is not a dictionary.
    @inline(__always)
    func fields(_ n: Int, key: String?, uid: ArchiveObjectID?) throws -> ArchiveFields? {
        do { return try storage.fields(n) } catch let e as PropertyListError { throw damaged(e, key: key, uid: uid) }
    }

    /// The value stored under `name` in `fields`, or nil.
    @inline(__always)
    func lookup(_ fields: ArchiveFields, _ name: String, key: String?, uid: ArchiveObjectID?) throws -> Int? {
        do { return try storage.lookup(fields, name) } catch let e as PropertyListError { throw damaged(e, key: key, uid: uid) }
    }

    /// The UID value of `n`, or nil when `n` is not a UID.
    @inline(__always)
    func uid(_ n: Int, key: String?) throws -> UInt64? {
        do { return try storage.uid(n) } catch let e as PropertyListError { throw damaged(e, key: key, uid: nil) }
    }

    /// The value of `n` when it is neither a container nor a UID; nil otherwise.
    @inline(__always)
    func scalar(_ n: Int, key: String?, uid: ArchiveObjectID?) throws -> PropertyListValue? {
        do { return try storage.plainScalar(n) } catch let e as PropertyListError { throw damaged(e, key: key, uid: uid) }
    }

    /// The object number of entry `i`'s value.
    @inline(__always)
    func value(at i: Int, of fields: ArchiveFields, key: String?, uid: ArchiveObjectID?) throws -> Int {
        do { return try storage.value(at: i, of: fields) } catch let e as PropertyListError { throw damaged(e, key: key, uid: uid) }
    }

    /// The element objects of array `n`, or nil when `n` is not an array.
    func arrayElements(_ n: Int, key: String?, uid: ArchiveObjectID?) throws -> [Int]? {
        guard storage.kind(n) == .array else { return nil }
        do { return try storage.elements(n) } catch let e as PropertyListError { throw damaged(e, key: key, uid: uid) }
    }

    /// What `n` is, for messages ("string", "dictionary", ...).
    func kindName(_ n: Int) -> String {
        (try? storage.kindName(n)) ?? "damaged object"
    }

    /// A short preview of scalar `n` for messages (empty for others).
    func preview(_ n: Int) -> String {
        guard let value = (try? storage.plainScalar(n)) ?? nil else { return "" }
        return KeyedArchiveRules.preview(value)
    }

    @inline(__always) func push(_ component: ArchivePathComponent) { path.append(component) }
    @inline(__always) func pop() { path.removeLast() }

    /// Whether the unarchive is still running (the archive's bytes are only readable until it ends).
    var isActive: Bool { active }

    /// Throws when the unarchive has finished (inlined: every field read starts here).
    @inline(__always)
    func checkActive() throws {
        if !active { throw usedAfterFinish() }
    }

    @inline(never)
    private func usedAfterFinish() -> KeyedArchiveError {
        KeyedArchiveError(.invalidValue, "a decoder was used after its unarchive finished")
    }

    // MARK: Limits

    /// Counts the bytes of a string or data value (inlined: every string read ends here).
    @inline(__always)
    func countBytes(_ n: Int, key: String?) throws {
        let (sum, overflow) = byteCount.addingReportingOverflow(n)
        guard !overflow, sum <= limits.maximumByteCount else { throw tooManyBytes(key: key) }
        byteCount = sum
    }

    @inline(never)
    private func tooManyBytes(key: String?) -> KeyedArchiveError {
        error(.limitExceeded, "more than \(limits.maximumByteCount) bytes of strings and data (limits.maximumByteCount)",
              key: key, uid: nil, className: nil)
    }

    /// Counts the elements of a collection about to be decoded.
    func countElements(_ n: Int, key: String?, uid: ArchiveObjectID, className: String) throws {
        let (sum, overflow) = decodedElementCount.addingReportingOverflow(n)
        guard !overflow, sum <= limits.maximumElementCount else {
            throw error(.limitExceeded, "more than \(limits.maximumElementCount) collection elements (limits.maximumElementCount)",
                        key: key, uid: uid, className: className)
        }
        decodedElementCount = sum
    }

    /// Counts one object and checks the depth before entering it.
    func enter(uid: ArchiveObjectID, className: String, key: String?) throws {
        decodedObjectCount += 1
        guard decodedObjectCount <= limits.maximumObjectCount else {
            throw error(.limitExceeded, "more than \(limits.maximumObjectCount) objects (limits.maximumObjectCount)",
                        key: key, uid: uid, className: className)
        }
        guard inProgress.count < limits.maximumDepth else {
            throw error(.limitExceeded, "objects nested deeper than \(limits.maximumDepth) (limits.maximumDepth)",
                        key: key, uid: uid, className: className)
        }
        if state(uid) == 1 { throw cycleError(uid: uid, className: className, key: key) }
        if uid.rawValue < slots.count {
            // An instance's copies in instancesByObject would outlive the state this changes.
            if slots[uid.rawValue].instanceBits != 0 { instancesByObjectValid = false }
            slots[uid.rawValue].state = 1
        }
        inProgress.append((uid, className, path.count))
    }

    /// The number of objects and containers being decoded (the nesting depth).
    var depth: Int { inProgress.count }

    func leave(uid: ArchiveObjectID, decoded: Bool) {
        if uid.rawValue < slots.count { slots[uid.rawValue].state = decoded ? 2 : 0 }
        inProgress.removeLast()
    }

    /// The decoding state of `uid` (see ``DecodedSlot/state``); 0 once the session is released.
    @inline(__always)
    func state(_ uid: ArchiveObjectID) -> UInt8 {
        uid.rawValue >= 0 && uid.rawValue < slots.count ? slots[uid.rawValue].state : 0
    }

    /// Names the cycle: each object on it, its class and where it was entered.
    func cycleError(uid: ArchiveObjectID, className: String, key: String?) -> KeyedArchiveError {
        var steps: [String] = []
        if let start = inProgress.lastIndex(where: { $0.uid == uid }) {
            for entry in inProgress[start...] {
                var p = ""
                for component in path.prefix(entry.pathCount) { append(component, to: &p) }
                steps.append("\(entry.className) #\(entry.uid.rawValue) at \(p.isEmpty ? "top" : p)")
            }
        }
        steps.append("\(className) #\(uid.rawValue) again at \(pathString(appending: key))")
        return error(.cycle,
                     "object #\(uid.rawValue) (\(className)) refers back to itself while it is being decoded: "
                        + steps.joined(separator: " -> ")
                        + "; read back-references with decodeObjectReference(of:forKey:assign:)",
                     key: key, uid: uid, className: className)
    }

    // MARK: Objects

    /// The object dictionary at `uid` and its class, validated (`$class` a class dictionary, `$classes`
    /// not empty when present). Nil when `$objects[uid]` is not a dictionary.
    func objectDictionary(_ uid: ArchiveObjectID, key: String?) throws -> (ArchiveFields, ArchivedClass)? {
        guard let (fields, index, _) = try objectClass(uid, key: key) else { return nil }
        return (fields, classTable[index])
    }

    /// The object dictionary at `uid`, the index of its class in ``classTable``, and its key table.
    func objectClass(_ uid: ArchiveObjectID, key: String?) throws -> (ArchiveFields, Int, KeyTable?)? {
        let n = try object(uid, key: key)
        guard let fields = try fields(n, key: key, uid: uid) else { return nil }
        let table = keyTable(for: fields)
        let classRef: Int?
        if let table {
            classRef = try table.classPosition.map { try value(at: $0, of: fields, key: key, uid: uid) }
        } else {
            classRef = try lookup(fields, "$class", key: key, uid: uid)
        }
        if let classRef, let classUID = try self.uid(classRef, key: key), classUID < UInt64(objectCount),
           let known = knownClass(ArchiveObjectID(reference: classUID)) {
            return (fields, known, table)
        }
        let archivedClass = try readClass(of: fields, uid: uid, key: key)
        classTable.append(archivedClass)
        if classTable.count > 16 { classSlots[Int(archivedClass.uid.value)] = classTable.count - 1 }
        return (fields, classTable.count - 1, table)
    }

    /// The class of an object (the first time this class is met), as ``KeyedArchiveValidation`` checked it
    /// when the archive was opened.
    private func readClass(of fields: ArchiveFields, uid: ArchiveObjectID, key: String?) throws -> ArchivedClass {
        guard let classRef = try lookup(fields, "$class", key: key, uid: uid) else {
            throw error(.invalidClass, "object has no $class", key: key, uid: uid, className: nil)
        }
        // Every object dictionary's $class was validated; a miss here would be a bug, reported as damage.
        guard let classUID = try self.uid(classRef, key: key), let archivedClass = storage.classes[classUID] else {
            throw error(.invalidClass, "$class of object #\(uid.rawValue) was not validated", key: key, uid: uid, className: nil)
        }
        return archivedClass
    }

    /// Follows `n` if it is a UID, range-checked: the object it names and its UID. UID 0 throws
    /// `valueNotFound`. Anything else is returned as it is, with no UID.
    func target(of n: Int, key: String?, expected: @autoclosure () -> String) throws -> (Int, ArchiveObjectID?) {
        guard let ref = try uid(n, key: key) else { return (n, nil) }
        guard ref != 0 else {
            throw error(.valueNotFound, "expected \(expected()), found nil ($null)", key: key, uid: nil, className: nil)
        }
        guard ref < UInt64(objectCount) else {
            throw error(.invalidReference, "UID \(ref) is out of range: $objects has \(objectCount) entries",
                        key: key, uid: nil, className: nil)
        }
        let uid = ArchiveObjectID(reference: ref)
        return (try object(uid, key: key), uid)
    }


    /// The index in ``classTable`` of the class dictionary `uid`, if it has been read. The first 16
    /// classes are scanned linearly (archives have few classes; a hash lookup costs more).
    @inline(__always)
    private func knownClass(_ uid: ArchiveObjectID) -> Int? {
        let wanted = uid.objectUID
        let scanned = min(classTable.count, 16)
        var i = 0
        while i < scanned {
            if classTable[i].uid.value == wanted { return i }
            i += 1
        }
        return classTable.count <= 16 ? nil : classSlots[uid.rawValue]
    }

    @exclusivity(unchecked) private var lastResolution: (key: ResolutionKey, type: (any KeyedArchivable.Type)?)?

    /// Every name an allowed type answers to.
    func names(of type: any KeyedArchivable.Type) -> [String] {
        let id = ObjectIdentifier(type)
        if let known = typeNames[id] { return known }
        let all = ArchiveAllowList.names(of: type)
        typeNames[id] = all
        return all
    }

    /// The type to instantiate for the archived class `classTable[classIndex]` when `allowed` may be
    /// produced, or nil: the decision of ``ArchiveAllowList/type(forClassName:allowed:registry:names:)``,
    /// cached per class dictionary and single allowed type (the only inputs the decision depends on, the
    /// registry being fixed for the session).
    func resolve(classAt classIndex: Int, allowed: [any KeyedArchivable.Type]) -> (any KeyedArchivable.Type)? {
        if allowed.count == 1 {
            let key = ResolutionKey(classUID: Int(classTable[classIndex].uid.value), type: ObjectIdentifier(allowed[0]))
            if let lastResolution, lastResolution.key == key { return lastResolution.type }
            let found: (any KeyedArchivable.Type)?
            if let known = resolutions[key] {
                found = known
            } else {
                found = ArchiveAllowList.type(forClassName: classTable[classIndex].name, allowed: allowed, registry: registry,
                                              moves: moduleMoves, names: names(of:))
                resolutions[key] = found
            }
            lastResolution = (key, found)
            return found
        }
        return ArchiveAllowList.type(forClassName: classTable[classIndex].name, allowed: allowed, registry: registry,
                                     moves: moduleMoves, names: names(of:))
    }

    /// The already decoded class instance `value` refers to, when its class is exactly `type` and `type`
    /// is allowed for its archived class; nil sends the caller down the full path (which also reports
    /// errors). Non-generic on purpose: an unspecialized generic would look up `Optional<T>`'s metadata
    /// at run time on every call.
    @inline(__always)
    func sharedObject(_ value: Int, of type: any KeyedArchivable.Type) -> AnyObject? {
        let slot: DecodedSlot
        if let remembered = rememberedInstance(value), ObjectIdentifier(Swift.type(of: remembered.instance)) == ObjectIdentifier(type) {
            slot = remembered.slot
        } else {
            guard let (uid, _) = decodedInstance(value, of: type) else { return nil }
            slot = slots[uid.rawValue]
            remember(value, slot)  // the next reference through `value` takes the path above
        }
        guard case let index = Int(slot.classIndex), index >= 0, index < classTable.count, let object = slot.instance else {
            return nil
        }
        let wanted = ObjectIdentifier(type)
        let resolution = ResolutionKey(classUID: Int(classTable[index].uid.value), type: wanted)
        guard let lastResolution, lastResolution.key == resolution, let resolved = lastResolution.type,
              ObjectIdentifier(resolved) == wanted else {
            return nil
        }
        return object
    }

    /// The copy of the slot ``instancesByObject`` holds for property-list object `value` and its instance,
    /// if any: then `value` is a UID of an object decoded as that class instance (in state 2).
    @inline(__always)
    private func rememberedInstance(_ value: Int) -> (slot: DecodedSlot, instance: AnyObject)? {
        // `value` comes from a checked reference; the range check stays (and fails once the session is released).
        guard instancesByObjectValid, value >= 0, value < instancesByObject.count, case let slot = instancesByObject[value],
              let instance = slot.instance else { return nil }
        return (slot, instance)
    }

    /// Whether property-list object `value` is a UID of an object already decoded as a class instance (so a
    /// reference that is not nil), answered from ``instancesByObject`` alone; false says nothing.
    @inline(__always)
    func refersToDecodedInstance(_ value: Int) -> Bool {
        instancesByObjectValid && value >= 0 && value < instancesByObject.count && instancesByObject[value].instanceBits != 0
    }

    /// Keeps a copy of `slot` (that of an object decoded as a class instance, whose UID property-list object
    /// `value` is) in ``instancesByObject``; does nothing for a slot without an instance or class index.
    @inline(__always)
    private func remember(_ value: Int, _ slot: DecodedSlot) {
        guard slot.instanceBits != 0, slot.classIndex >= 0, value >= 0, value < instancesByObject.count else { return }
        var copy = slot
        copy.state = 2
        instancesByObject[value] = copy
    }

    /// The UID `value` refers to and the class instance decoded for it, if that instance is exactly of
    /// `type` (a damaged or missing reference gives nil; the full path reports it).
    @inline(__always)
    func decodedInstance(_ value: Int, of type: any KeyedArchivable.Type) -> (uid: ArchiveObjectID, object: AnyObject)? {
        guard let ref = (try? storage.uid(value)) ?? nil, ref > 0, ref < UInt64(slots.count), case let slot = slots[Int(ref)],
              slot.state == 2, let object = slot.instance,
              ObjectIdentifier(Swift.type(of: object)) == ObjectIdentifier(type) else {
            return nil
        }
        return (ArchiveObjectID(reference: ref), object)
    }

    // MARK: Warming shared references

    /// The objects ``warm(_:_:_:_:)`` takes at once, and the elements per step of ``warm(_:from:)``'s pipeline
    /// (called at every multiple of it).
    static let warmedLanes = 4

    /// Sums what ``warm(_:_:_:_:)`` loads, so that the loads are made (nothing reads it).
    @exclusivity(unchecked) private var warmSink: UInt = 0

    /// ``warm(_:_:_:_:)`` for the values of entries `first ..< first + 4` of `fields` (fewer at its end).
    @inline(never)
    func warm(valuesOf fields: ArchiveFields, from first: Int) {
        // One reference alone has nothing to overlap with.
        guard first >= 0, first + 1 < fields.count else { return }
        let at = fields.values + first * storage.refSize, step = storage.refSize, count = fields.count - first
        warm(storage.referenceIfInRange(at: at) ?? -1,
             storage.referenceIfInRange(at: at + step) ?? -1,
             count > 2 ? storage.referenceIfInRange(at: at + 2 * step) ?? -1 : -1,
             count > 3 ? storage.referenceIfInRange(at: at + 3 * step) ?? -1 : -1)
    }

    /// Warms the elements of an array or set read in order, four at a time, as a pipeline: called at each
    /// element `first` that is a multiple of 4, it reads the instance headers of elements `first ..< first + 4`,
    /// the slots of the next four and the words and ``instancesByObject`` entries of the four after those
    /// (each step finds the step before
    /// it in the cache, warmed by the call before), so twelve misses overlap, and each call pays about one
    /// miss's wait instead of a chain of them (see ``warm(_:_:_:_:)``).
    @inline(never)
    func warm(_ refs: [Int], from first: Int) {
        let count = refs.count
        guard first >= 0, first + 1 < count else { return }
        if first == 0 {
            // The pipeline starts empty: the first four go through every step at once.
            warm(refs[0], refs[1], count > 2 ? refs[2] : -1, count > 3 ? refs[3] : -1)
        }
        let lanes = Self.warmedLanes
        var sum: UInt = 0
        var j = first
        while j < min(first + lanes, count) {
            sum &+= warmedHeader(warmedInstance(refs[j]))
            j += 1
        }
        while j < min(first + 2 * lanes, count) {
            sum &+= warmedInstance(refs[j])
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

    /// Reads, for up to four property-list objects (-1: none) that may be UIDs of already decoded class
    /// instances, what the shared-object path (``sharedObject(_:of:)``) reads for each: the object's word,
    /// its slot and its instance's header, one step for all four before the next step.
    ///
    /// In a large archive each step of one reference is a cache miss that waits for the one before it
    /// (a friend decoded long ago lies anywhere in the table and the heap); taken four at a time, the
    /// misses of a step overlap. Nothing is retained (a retain is an atomic operation, which would wait
    /// for the header's miss before the next load could start) and nothing is decided here: the decoder
    /// then reads the same entries again, from the cache, with all its checks. Objects not decoded yet are
    /// left alone: decoding a new object touches enough memory to evict what was warmed for the entries
    /// after it.
    @inline(__always)
    private func warm(_ o0: Int, _ o1: Int, _ o2: Int, _ o3: Int) {
        let i0 = warmedInstance(o0), i1 = warmedInstance(o1), i2 = warmedInstance(o2), i3 = warmedInstance(o3)
        guard i0 | i1 | i2 | i3 != 0 else { return }
        warmSink &+= warmedHeader(i0) &+ warmedHeader(i1) &+ warmedHeader(i2) &+ warmedHeader(i3)
    }

    /// The address of the decoded class instance object `n` (-1: none) is a UID of: from its copy in
    /// ``instancesByObject`` (one load) or else from its word and its slot (two dependent loads, which a new
    /// object's decoding reads next); 0 otherwise.
    @inline(__always)
    private func warmedInstance(_ n: Int) -> UInt {
        // Every index comes from a reference checked against the object count; the range checks stay.
        guard n >= 0, n < instancesByObject.count else { return 0 }
        let remembered = instancesByObject[n].instanceBits
        if remembered != 0 { return remembered }  // the UID's word is not needed then (refersToDecodedInstance)
        guard let ref = storage.resolvedUID(n), ref > 0, ref < UInt64(slots.count) else { return 0 }
        let slot = slots[Int(ref)]
        return slot.state == 2 ? slot.instanceBits : 0
    }

    /// The first word of the instance whose address is `instance` (0: none).
    @inline(__always)
    private func warmedHeader(_ instance: UInt) -> UInt {
        UnsafeRawPointer(bitPattern: instance)?.load(as: UInt.self) ?? 0
    }

    /// Runs `T.init(from:)` and says whether the result is a class instance (without the bridging
    /// machinery `as AnyObject` goes through on Linux).
    private func make<T: KeyedArchivable>(_ type: T.Type, from decoder: ArchiveObjectDecoder) throws -> (value: Any, object: AnyObject?) {
        let made = try T(from: decoder)
        if isClass(T.self) { return (made, unsafeBitCast(made, to: AnyObject.self)) }
        return (made, nil)
    }

    @exclusivity(unchecked) private var lastKind: (type: ObjectIdentifier, isClass: Bool)?

    /// Whether `type` is a class (cached: a metatype cast per object costs more than a compare).
    @inline(__always)
    func isClass(_ type: any Any.Type) -> Bool {
        let id = ObjectIdentifier(type)
        if let lastKind, lastKind.type == id { return lastKind.isClass }
        let result = type is AnyClass
        lastKind = (id, result)
        return result
    }

    /// Decodes (or finds already decoded) the object `value` refers to, which must be one of `allowed`.
    func instance(_ value: Int, allowed: [any KeyedArchivable.Type], key: String?,
                  expected: @autoclosure () -> String) throws -> Any {
        // An object met again: check its class against this field's types, and share it.
        if let ref = try uid(value, key: key), ref > 0, ref < UInt64(slots.count), slots[Int(ref)].state == 2 {
            let uid = ArchiveObjectID(reference: ref)
            let index = Int(slots[uid.rawValue].classIndex)
            if index >= 0, let cached = cached(uid) {
                _ = try allowedType(classAt: index, uid: uid, allowed: allowed, key: key, expected: expected())
                remember(value, slots[uid.rawValue])
                return cached
            }
        }
        let (uid, dict, classIndex, table) = try checkedObject(value, allowed: allowed, key: key, expected: expected())
        let type = try allowedType(classAt: classIndex, uid: uid, allowed: allowed, key: key, expected: expected())
        let className = classTable[classIndex].name
        switch state(uid) {
        case 2:
            if let cached = cached(uid) { return cached }
            throw error(.cycle, "object #\(uid.rawValue) is not available", key: key, uid: uid, className: className)
        case 1:
            throw cycleError(uid: uid, className: className, key: key)
        default:
            break
        }
        try enter(uid: uid, className: className, key: key)
        if let key { push(.key(key)) }
        var decoded = false
        defer {
            if key != nil { pop() }
            leave(uid: uid, decoded: decoded)
        }
        var decoder: ArchiveObjectDecoder
        if let spare = spareDecoders.popLast() {
            decoder = spare
            decoder.reuse(fields: dict, uid: uid, className: className, keyTable: table)
        } else {
            decoder = ArchiveObjectDecoder(session: self, fields: dict, uid: uid, className: className, keyTable: table)
        }
        let (made, object) = try nested { try make(type, from: decoder) }
        // A decoder the model did not keep serves the next object (one allocation per nesting level, not per object).
        if isKnownUniquelyReferenced(&decoder) { spareDecoders.append(decoder) }
        if let object, slots[uid.rawValue].setInstance(object) {
            decodedObjects.append(object)  // the slot points at it; this holds it
        } else {
            values[uid.rawValue] = made  // a struct (or an instance whose address does not fit in a slot)
        }
        // The class table only grows, so the index checkedObject found still names this object's class.
        slots[uid.rawValue].classIndex = Int32(exactly: classIndex) ?? -1
        remember(value, slots[uid.rawValue])  // `value` is the UID checkedObject followed; state 2 on return
        decoded = true
        return made
    }

    /// An element-mode decoder for the elements of one collection: a spare one, or a new one. Hand it back
    /// with ``recycle(elementDecoder:)`` when the collection is read.
    @inline(__always)
    func elementDecoder() -> ArchiveObjectDecoder {
        spareElementDecoders.popLast() ?? ArchiveObjectDecoder(session: self, element: 0)
    }

    /// Keeps `decoder` for the next collection when nothing else holds it (an element's `decode(from:forKey:)`
    /// may have kept it; such a decoder stays as it is).
    @inline(__always)
    func recycle(elementDecoder decoder: inout ArchiveObjectDecoder) {
        if isKnownUniquelyReferenced(&decoder) { spareElementDecoders.append(decoder) }
    }

    /// Validates a reference to a class instance: a UID, not nil, in range, to an object dictionary. Gives
    /// the object, its fields, the index of its class in ``classTable`` and its key table.
    func checkedObject(_ value: Int, allowed: [any KeyedArchivable.Type], key: String?,
                       expected: @autoclosure () -> String) throws -> (ArchiveObjectID, ArchiveFields, Int, KeyTable?) {
        guard let ref = try uid(value, key: key) else {
            throw error(.typeMismatch, "expected a reference to \(expected()), found an inline \(kindName(value))",
                        key: key, uid: nil, className: nil)
        }
        guard ref != 0 else {
            throw error(.valueNotFound, "expected \(expected()), found nil ($null)", key: key, uid: nil, className: nil)
        }
        guard ref < UInt64(objectCount) else {
            throw error(.invalidReference, "UID \(ref) is out of range: $objects has \(objectCount) entries",
                        key: key, uid: nil, className: nil)
        }
        let uid = ArchiveObjectID(reference: ref)
        guard let (dict, index, table) = try objectClass(uid, key: key) else {
            let n = try object(uid, key: key)
            throw error(.typeMismatch, "expected \(expected()), found \(kindName(n)) \(preview(n))",
                        key: key, uid: uid, className: nil)
        }
        return (uid, dict, index, table)
    }

    /// Registers a back-reference to deliver after the graph is built.
    func deferAssignment(_ assignment: @escaping () throws -> Void) {
        deferred.append(assignment)
    }

    /// The decoded instance or value of object `uid`, if any.
    func cached(_ uid: ArchiveObjectID) -> Any? {
        guard uid.rawValue >= 0, uid.rawValue < slots.count else { return nil }
        if let instance = slots[uid.rawValue].instance { return instance }
        return values[uid.rawValue]
    }

    /// `[type]`, made once per type (decodeObject(of:) passes it for every object).
    func allowedList(_ type: any KeyedArchivable.Type) -> [any KeyedArchivable.Type] {
        let id = ObjectIdentifier(type)
        if let last = lastAllowed, last.id == id { return last.list }
        let list = [type]
        lastAllowed = (id, list)
        return list
    }

    @exclusivity(unchecked) private var lastAllowed: (id: ObjectIdentifier, list: [any KeyedArchivable.Type])?

    static func describe(_ types: [any KeyedArchivable.Type]) -> String {
        types.map { String(describing: $0) + " (\($0.archivedClassName))" }.joined(separator: " or ")
    }
}
