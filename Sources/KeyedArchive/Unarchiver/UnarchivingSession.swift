#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The state of one unarchive: the archive, what has been decoded, the path, the limits.
///
/// Everything happens on one thread, depth first; the path and the in-progress stack mirror the
/// recursion of `init(from:)` calls. The session holds the semantics (the limits, the key path, the
/// depth, cycles, the allow-list calls); what has been decoded per object, and the cache warming, is a
/// ``DecodedObjectTable``. Its mutable state is one ``State`` in an ``UncheckedExclusiveState``: no
/// access to it spans a call out to a model's `init(from:)` or a deferred assignment.
final class UnarchivingSession {
    let storage: ArchiveStorage
    let registry: [String: any KeyedArchivable.Type]
    /// The caller's module moves, old module to new (``KeyedUnarchiver/mapModule(_:to:)``).
    let moduleMoves: [String: String]
    let limits: KeyedUnarchiver.Limits
    /// The number of entries in `$objects`.
    let objectCount: Int
    /// The stack reserved per nesting level on a thread started for deep archives (UnarchivingSession+Depth.swift).
    let stackBytesPerLevel: Int

    /// The session's mutable state (not copyable, as its table is not).
    struct State: ~Copyable {
        /// What has been decoded, per object.
        var table: DecodedObjectTable
        /// Every class met so far; objects name theirs by index into this table.
        var classTable: [ArchivedClass] = []
        /// Class-dictionary UID -> index in `classTable`, for classes past the first 16 (scanned linearly).
        var classSlots: [Int: Int] = [:]
        /// The allow-list's answers (``resolve(classAt:allowed:)``), and the last one.
        var resolutions: [ResolutionKey: (any KeyedArchivable.Type)?] = [:]
        var lastResolution: (key: ResolutionKey, type: (any KeyedArchivable.Type)?)?
        var typeNames: [ObjectIdentifier: [String]] = [:]
        var path: [ArchivePathComponent] = []
        var inProgress: [(uid: ArchiveObjectID, className: String, pathCount: Int)] = []
        var decodedObjectCount = 0
        var byteCount = 0
        var decodedElementCount = 0
        var deferred: [() throws -> Void] = []
        var active = true
        /// Object decoders that nothing else holds, for the next objects (see ``instance(_:allowed:key:expected:)``).
        var spareDecoders: [ArchiveObjectDecoder] = []
        /// Element-mode decoders that nothing else holds, for the next collections (see ``elementDecoder()``).
        var spareElementDecoders: [ArchiveObjectDecoder] = []
        /// Emptied element-reference lists that nothing else holds, for the next collections (see
        /// ``referenceList()``).
        var spareReferenceLists: [[Int]] = []
        /// The key tables met so far, at most 8 (UnarchivingSession+KeyTables.swift).
        var keyTables: [KeyTable] = []
        /// The fields each of `keyTables` was made from, compared without touching the tables themselves
        /// (reading a class reference out of an array retains and releases it).
        var keyTableFields: [ArchiveFields] = []
        /// Below this stack address the next nesting level runs on a new thread; 0 on a thread whose stack
        /// was sized for every level that may remain (UnarchivingSession+Depth.swift).
        var stackFloor: UInt = 0
        /// The most levels a thread a nesting level continued on was sized for (0 when none did): the
        /// decoded objects are then released on a thread with such a stack, as deep chains may be among them.
        var deepestThreadLevels = 0
        /// `[type]` for the last type ``allowedList(_:)`` was asked for.
        var lastAllowed: (id: ObjectIdentifier, list: [any KeyedArchivable.Type])?
    }

    private let stateBlock: UncheckedExclusiveState<State>

    /// The state, without run-time exclusivity checks (see ``UncheckedExclusiveState``).
    var s: State {
        @inline(__always) unsafeAddress { stateBlock.readAddress }
        @inline(__always) unsafeMutableAddress { stateBlock.writeAddress }
    }

    /// Every class met so far; objects name theirs by index into this table.
    var classTable: [ArchivedClass] {
        @inline(__always) _read { yield s.classTable }
    }

    /// The key path of the object being decoded.
    var path: [ArchivePathComponent] {
        @inline(__always) _read { yield s.path }
    }

    struct ResolutionKey: Hashable {
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
        stateBlock = UncheckedExclusiveState(State(table: DecodedObjectTable(objectCount: storage.objectCount,
                                                                        plistObjectCount: storage.plistObjectCount)))
    }

    deinit {
        stateBlock.destroy()
    }

    /// Delivers the back-references once the whole graph is decoded.
    func finish() throws {
        var index = 0
        while index < s.deferred.count {
            let assignment = s.deferred[index]  // a local: the call may defer more
            try assignment()
            index += 1
        }
        s.deferred = []
        s.active = false
    }

    /// Drops decoded objects (on a thread with a big stack when some level needed one: long chains are
    /// released recursively).
    func release() {
        s.active = false
        s.table.release()
        s.deferred = []
        s.spareDecoders = []
        s.spareElementDecoders = []
        s.spareReferenceLists = []
    }

    @inline(__always) func push(_ component: ArchivePathComponent) { s.path.append(component) }
    @inline(__always) func pop() { s.path.removeLast() }
    /// Makes the last path entry (pushed as an index) `.index(i)`: a collection pushes one entry for its
    /// elements and sets it per element (whatever an element pushes, it pops before returning).
    @inline(__always) func setLastPathIndex(_ i: Int) { s.path[s.path.count - 1] = .index(i) }

    /// Whether the unarchive is still running (the archive's bytes are only readable until it ends).
    var isActive: Bool { s.active }

    /// Throws when the unarchive has finished (inlined: every field read starts here).
    @inline(__always)
    func checkActive() throws {
        if !s.active { throw usedAfterFinish() }
    }

    @inline(never)
    private func usedAfterFinish() -> KeyedArchiveError {
        KeyedArchiveError(.invalidValue, "a decoder was used after its unarchive finished")
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
        s.classTable.append(archivedClass)
        if classTable.count > 16 { s.classSlots[Int(archivedClass.uid.value)] = classTable.count - 1 }
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
        return classTable.count <= 16 ? nil : s.classSlots[uid.rawValue]
    }

    /// Every name an allowed type answers to.
    func names(of type: any KeyedArchivable.Type) -> [String] {
        let id = ObjectIdentifier(type)
        if let known = s.typeNames[id] { return known }
        let all = ArchiveAllowList.names(of: type)
        s.typeNames[id] = all
        return all
    }

    /// The type to instantiate for the archived class `classTable[classIndex]` when `allowed` may be
    /// produced, or nil: the decision of ``ArchiveAllowList/type(forClassName:allowed:registry:names:)``,
    /// cached per class dictionary and single allowed type (the only inputs the decision depends on, the
    /// registry being fixed for the session).
    func resolve(classAt classIndex: Int, allowed: [any KeyedArchivable.Type]) -> (any KeyedArchivable.Type)? {
        if allowed.count == 1 {
            let key = ResolutionKey(classUID: Int(classTable[classIndex].uid.value), type: ObjectIdentifier(allowed[0]))
            if let lastResolution = s.lastResolution, lastResolution.key == key { return lastResolution.type }
            let found: (any KeyedArchivable.Type)?
            if let known = s.resolutions[key] {
                found = known
            } else {
                found = ArchiveAllowList.type(forClassName: classTable[classIndex].name, allowed: allowed, registry: registry,
                                              moves: moduleMoves, names: names(of:))
                s.resolutions[key] = found
            }
            s.lastResolution = (key, found)
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
        guard let (index, object) = s.table.sharedInstance(PropertyListObjectNumber(value), of: type, in: storage), index < classTable.count else {
            return nil
        }
        // The allow-list's last answer (``resolve(classAt:allowed:)``), for this class dictionary and type.
        let wanted = ObjectIdentifier(type)
        let resolution = ResolutionKey(classUID: Int(classTable[index].uid.value), type: wanted)
        guard let lastResolution = s.lastResolution, lastResolution.key == resolution, let resolved = lastResolution.type,
              ObjectIdentifier(resolved) == wanted else {
            return nil
        }
        return object
    }

    /// Whether property-list object `value` is a UID of an object already decoded as a class instance (so a
    /// reference that is not nil); false says nothing.
    @inline(__always)
    func refersToDecodedInstance(_ value: Int) -> Bool {
        s.table.refersToDecodedInstance(PropertyListObjectNumber(value))
    }

    /// The UID `value` refers to and the class instance decoded for it, if that instance is exactly of
    /// `type` (a damaged or missing reference gives nil; the full path reports it).
    @inline(__always)
    func decodedInstance(_ value: Int, of type: any KeyedArchivable.Type) -> (uid: ArchiveObjectID, object: AnyObject)? {
        s.table.decodedInstance(PropertyListObjectNumber(value), of: type, in: storage)
    }

    /// The objects a warming call takes at once (``DecodedObjectTable/warmedLanes``).
    static let warmedLanes = DecodedObjectTable.warmedLanes

    /// Has the values of entries `first ..< first + 4` of `fields` read from memory together
    /// (``DecodedObjectTable/warm(valuesOf:from:in:)``).
    @inline(__always)
    func warm(valuesOf fields: ArchiveFields, from first: Int) {
        s.table.warm(valuesOf: fields, from: first, in: storage)
    }

    /// Has the elements `refs` of a collection read in order from memory ahead of their decoding
    /// (``DecodedObjectTable/warm(_:from:in:)``); called at each element that is a multiple of ``warmedLanes``.
    @inline(__always)
    func warm(_ refs: [Int], from first: Int) {
        s.table.warm(refs, from: first, in: storage)
    }

    /// Runs `T.init(from:)` and says whether the result is a class instance.
    private func make<T: KeyedArchivable>(_ type: T.Type, from decoder: ArchiveObjectDecoder) throws -> (value: Any, object: AnyObject?) {
        let made = try T(from: decoder)  // a call out: no access to the state spans it
        return (made, s.table.instanceReference(to: made))
    }

    /// Whether `type` is a class (``DecodedObjectTable/isClass(_:)``).
    @inline(__always)
    func isClass(_ type: any Any.Type) -> Bool {
        s.table.isClass(type)
    }

    /// Decodes (or finds already decoded) the object `value` refers to, which must be one of `allowed`.
    func instance(_ value: Int, allowed: [any KeyedArchivable.Type], key: String?,
                  expected: @autoclosure () -> String) throws -> Any {
        // An object met again: check its class against this field's types, and share it.
        if let ref = try uid(value, key: key), s.table.isDecoded(reference: ref) {
            let uid = ArchiveObjectID(reference: ref)
            let index = s.table.classIndex(uid)
            if index >= 0, let cached = cached(uid) {
                _ = try allowedType(classAt: index, uid: uid, allowed: allowed, key: key, expected: expected())
                s.table.remember(PropertyListObjectNumber(value), as: uid)
                return cached
            }
        }
        let (uid, dict, classIndex, table) = try checkedObject(value, allowed: allowed, key: key, expected: expected())
        let type = try allowedType(classAt: classIndex, uid: uid, allowed: allowed, key: key, expected: expected())
        let className = classTable[classIndex].name
        switch state(uid) {
        case .decoded:
            if let cached = cached(uid) { return cached }
            throw error(.cycle, "object #\(uid.rawValue) is not available", key: key, uid: uid, className: className)
        case .inProgress:
            throw cycleError(uid: uid, className: className, key: key)
        case .notStarted:
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
        if let spare = s.spareDecoders.popLast() {
            decoder = spare
            decoder.reuse(fields: dict, uid: uid, className: className, keyTable: table)
        } else {
            decoder = ArchiveObjectDecoder(session: self, fields: dict, uid: uid, className: className, keyTable: table)
        }
        let (made, object) = try nested { try make(type, from: decoder) }
        // A decoder the model did not keep serves the next object (one allocation per nesting level, not per object).
        if isKnownUniquelyReferenced(&decoder) { s.spareDecoders.append(decoder) }
        // The class table only grows, so the index checkedObject found still names this object's class.
        s.table.record(uid, value: made, instance: object, classIndex: classIndex)
        s.table.remember(PropertyListObjectNumber(value), as: uid)  // `value` is the UID checkedObject followed; decoded on return
        decoded = true
        return made
    }

    /// An element-mode decoder for the elements of one collection: a spare one, or a new one. Hand it back
    /// with ``recycle(elementDecoder:)`` when the collection is read.
    @inline(__always)
    func elementDecoder() -> ArchiveObjectDecoder {
        s.spareElementDecoders.popLast() ?? ArchiveObjectDecoder(session: self, element: 0)
    }

    /// Keeps `decoder` for the next collection when nothing else holds it (an element's `decode(from:forKey:)`
    /// may have kept it; such a decoder stays as it is).
    @inline(__always)
    func recycle(elementDecoder decoder: inout ArchiveObjectDecoder) {
        if isKnownUniquelyReferenced(&decoder) { s.spareElementDecoders.append(decoder) }
    }

    /// An empty list for the element references of one collection, with the capacity a list used before
    /// had (one allocation per nesting level, not per collection). Hand it back with
    /// ``recycle(referenceList:)`` when the collection is read.
    @inline(__always)
    func referenceList() -> [Int] {
        s.spareReferenceLists.popLast() ?? []
    }

    /// Keeps `refs`, emptied, for the next collection.
    @inline(__always)
    func recycle(referenceList refs: inout [Int]) {
        refs.removeAll(keepingCapacity: true)
        s.spareReferenceLists.append(refs)
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
        s.deferred.append(assignment)
    }

    /// The decoded instance or value of object `uid`, if any.
    func cached(_ uid: ArchiveObjectID) -> Any? {
        s.table.cached(uid)
    }

    /// `[type]`, made once per type (decodeObject(of:) passes it for every object).
    func allowedList(_ type: any KeyedArchivable.Type) -> [any KeyedArchivable.Type] {
        let id = ObjectIdentifier(type)
        if let last = s.lastAllowed, last.id == id { return last.list }
        let list = [type]
        s.lastAllowed = (id, list)
        return list
    }

    static func describe(_ types: [any KeyedArchivable.Type]) -> String {
        types.map { String(describing: $0) + " (\($0.archivedClassName))" }.joined(separator: " or ")
    }
}
