/// Rules 2-6 of ``KeyedArchiveRules`` (which names the evidence each follows), checked over a whole
/// archive's binary property-list bytes once, before any object is read: what ``ArchiveStorage`` runs after
/// rule 1, for the typed unarchiver and the raw model alike.
///
/// The walk is iterative and visits each property-list container once, so depth, cycles and shared
/// sub-trees cost time linear in the file size.
struct KeyedArchiveValidation {
    /// The class of every class dictionary an instance points at, by its UID.
    private(set) var classes: [UInt64: ArchivedClass] = [:]

    private let storage: ArchiveStorage
    /// `$classname` strings and `$classes` arrays, decoded once per property-list object however many
    /// class dictionaries share them (so hand-made archives cannot multiply the work).
    private var names: [Int: String] = [:]
    private var chains: [Int: [String]] = [:]
    /// Per property-list object: 0 not visited, 1 on the current path, 2 checked.
    private var state: [UInt8]
    /// The first object dictionaries' fields (up to 8 key sets; the last slot takes turns) and where their `$class`
    /// is: a dictionary with the same key objects (every object of a class, in archives whose writer shares
    /// key strings) has it at the same place.
    private var recentKeys: [(fields: ArchiveFields, classPosition: Int?)] = []
    /// The first classes met (up to 8; the last slot takes turns), looked up before ``classes`` (a hash each time).
    private var recentClasses: [(uid: UInt64, archivedClass: ArchivedClass)] = []
    /// The walk's work list and path frames, kept between objects (so a walk allocates nothing).
    private var pending: [(object: Int, frame: Int, leaving: Bool)] = []
    private var frames: [(parent: Int, item: Int, isIndex: Bool)] = []

    /// Checks `storage`'s archive (its envelope is already checked by ``ArchiveStorage``).
    /// - Throws: ``KeyedArchiveError`` naming the first rule broken, with object UID and key path.
    init(_ storage: ArchiveStorage) throws {
        self.storage = storage
        self.state = [UInt8](repeating: 0, count: storage.scanner.objectCount)
        // One do/catch around the whole pass (a closure per object would copy `state` each time).
        do {
            try checkNull()
            try checkTop()
            for uid in 0 ..< storage.objectCount {
                try checkObject(ArchiveObjectID(uid))
            }
        } catch let error as PropertyListError {
            throw KeyedArchiveReader.unreadable(error)
        }
    }

    // MARK: Rules

    private func checkNull() throws {
        let first = try storage.object(.null)
        let scalar = try storage.scalarValue(first)
        guard case .string("$null")? = scalar else {
            throw KeyedArchiveRules.nullEntryFault(found: KeyedArchiveRules.found(kindName: try storage.kindName(first), scalar: scalar))
        }
    }

    /// Rule 1 for `$top`'s keys, then rules 4 and 6 for its values, as for an object's fields.
    private mutating func checkTop() throws {
        let top = storage.top
        for i in 0 ..< top.count {
            let keyObject = try storage.reference(at: top.keys + i * storage.refSize, object: top.object)
            guard case .string? = try storage.scalarValue(keyObject) else {
                throw KeyedArchiveRules.topKeyNotAString(found: try storage.kindName(keyObject))
            }
        }
        if checkFlat(top.object, top, skippingValue: nil) { return }
        try walk(top.object, path: Path(prefix: "$top."), uid: nil, className: nil)
    }

    /// Rule 5 for an object dictionary and rules 4 and 6 for everything inside entry `uid`.
    private mutating func checkObject(_ uid: ArchiveObjectID) throws {
        let n = try storage.object(uid)
        let kind = storage.kind(n)
        // A scalar has nothing inside, and its state is never consulted (the walk skips scalars): most
        // entries (strings, numbers, data) end here without touching the state table.
        if kind == .scalar { return }
        guard state[n] == 0 else {
            // Already walked as a value inside an earlier entry (a file may share one property-list object
            // between an inline position and an entry of its own): its contents are checked, but as an entry
            // it is an object dictionary whose `$class` must be checked (and recorded) like any other.
            if storage.kind(n) == .dictionary, let fields = try storage.fields(n),
               let classPosition = try self.classPosition(in: fields) {
                _ = try checkClass(try storage.value(at: classPosition, of: fields), uid: uid)
            }
            return
        }
        switch kind {
        case .uid:
            try checkUID(n, path: Path(), uid: uid, className: nil)
            return
        case .scalar:
            return
        case .array, .set:
            try walk(n, path: Path(), uid: uid, className: nil)
        case .dictionary:
            guard let fields = try storage.fields(n) else { return }
            let classPosition = try self.classPosition(in: fields)
            guard let classRef = try classPosition.map({ try storage.value(at: $0, of: fields) }) else {
                if checkFlat(n, fields, skippingValue: nil) { return }
                try walk(n, path: Path(), uid: uid, className: nil)
                return
            }
            let classUID = try checkClass(classRef, uid: uid)
            if checkFlat(n, fields, skippingValue: classRef) { return }
            try walk(n, path: Path(), uid: uid, className: name(ofCheckedClass: classUID), skippingValue: classRef)
        }
    }

    /// Where `$class` is in `fields`, or nil.
    private mutating func classPosition(in fields: ArchiveFields) throws -> Int? {
        var i = 0
        while i < recentKeys.count {
            if storage.sameKeys(recentKeys[i].fields, fields) { return recentKeys[i].classPosition }
            i += 1
        }
        let position = try storage.position(of: "$class", in: fields)
        if recentKeys.count == 8 { recentKeys[7] = (fields, position) } else { recentKeys.append((fields, position)) }
        return position
    }

    /// Checks the class dictionary `$class` (object `classRef`) of entry `uid` names, once per class
    /// dictionary, and gives its UID (not its name: most objects need none, and a name is a retained string).
    private mutating func checkClass(_ classRef: Int, uid: ArchiveObjectID) throws -> UInt64 {
        let objectUID = uid.objectUID
        guard let classUID = try storage.uid(classRef) else {
            throw KeyedArchiveRules.ClassFault.notAUID(found: try storage.kindName(classRef)).error(objectUID: objectUID)
        }
        var i = 0
        while i < recentClasses.count {
            if recentClasses[i].uid == classUID { return classUID }
            i += 1
        }
        if let known = classes[classUID] {
            remember(known, classUID)
            return classUID
        }
        guard classUID < UInt64(storage.objectCount) else {
            throw KeyedArchiveRules.ClassFault.outOfRange(classUID, objectCount: storage.objectCount).error(objectUID: objectUID)
        }
        let classObject = try storage.object(ArchiveObjectID(reference: classUID))
        guard let classFields = try storage.fields(classObject) else {
            throw KeyedArchiveRules.ClassFault.notAClassDictionary(classUID, found: try storage.kindName(classObject))
                .error(objectUID: objectUID)
        }
        guard let nameObject = try storage.lookup(classFields, "$classname") else {
            throw KeyedArchiveRules.ClassFault.noClassName(classUID).error(objectUID: objectUID)
        }
        let name: String
        if let known = names[nameObject] {
            name = known
        } else {
            guard case .string(let s)? = try storage.scalarValue(nameObject) else {
                throw KeyedArchiveRules.ClassFault.classNameNotAString(classUID, found: try storage.kindName(nameObject))
                    .error(objectUID: objectUID)
            }
            names[nameObject] = s
            name = s
        }
        var chain: [String] = []
        if let classesObject = try storage.lookup(classFields, "$classes") {
            if let known = chains[classesObject] {
                chain = known
            } else {
                chain = try strings(classesObject) ?? []
                chains[classesObject] = chain
            }
        }
        let hints = try storage.lookup(classFields, "$classhints").flatMap(strings)
        let archivedClass = ArchivedClass(name: name, chain: chain, hints: hints, uid: UID(classUID))
        classes[classUID] = archivedClass
        remember(archivedClass, classUID)
        return classUID
    }

    /// The name of class dictionary `classUID`, which ``checkClass(_:uid:)`` checked.
    private func name(ofCheckedClass classUID: UInt64) -> String {
        classes[classUID]?.name ?? ""
    }

    private mutating func remember(_ archivedClass: ArchivedClass, _ classUID: UInt64) {
        if recentClasses.count == 8 { recentClasses[7] = (classUID, archivedClass) } else { recentClasses.append((classUID, archivedClass)) }
    }

    /// `$classes` or `$classhints` as strings, or nil when it is not an array of strings (rule 5: both are
    /// informational, so a malformed one is ignored).
    private func strings(_ arrayObject: Int) throws -> [String]? {
        guard storage.kind(arrayObject) == .array, let elements = try storage.elements(arrayObject) else { return nil }
        var result: [String] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard case .string(let s)? = try storage.scalarValue(element) else { return nil }
            result.append(s)
        }
        return result
    }

    /// Rule 4 for UID `n`, inside entry `uid` (nil: inside `$top`).
    private func checkUID(_ n: Int, path: Path, uid: ArchiveObjectID?, className: String?) throws {
        guard let ref = try storage.uid(n), ref >= UInt64(storage.objectCount) else { return }
        throw KeyedArchiveRules.uidOutOfRange(ref, objectCount: storage.objectCount, keyPath: path.rendered(storage),
                                              objectUID: uid?.objectUID, className: className)
    }

    // MARK: Walking containers

    /// A key path built only when an error needs it: frames refer to their parent, and a dictionary
    /// frame holds the key's property-list object (decoded only then). `prefix` names the container the
    /// path starts in when that is not an entry of `$objects` (`"$top."`).
    private struct Path {
        var frames: [(parent: Int, item: Int, isIndex: Bool)] = []
        var current: Int = -1
        var prefix: String = ""
        func rendered(_ storage: ArchiveStorage) -> String {
            var parts: [(Int, Bool)] = []
            var i = current
            while i >= 0 {
                parts.append((frames[i].item, frames[i].isIndex))
                i = frames[i].parent
            }
            var result = ""
            for (item, isIndex) in parts.reversed() {
                if isIndex {
                    result += "[\(item)]"
                } else {
                    let key: String
                    if case .string(let s)? = try? storage.scalarValue(item) { key = s } else { key = "<key>" }
                    result += result.isEmpty ? key : ".\(key)"
                }
            }
            return prefix + result
        }
    }

    /// Rules 4 and 6 for dictionary `n` when every value is a scalar, a UID in range, or an array or set of
    /// those (most object dictionaries, and every collection object's `NS.objects`): there is nothing to
    /// enter but those arrays, which hold no container and so close no cycle, and
    /// ``walk(_:path:uid:className:skippingValue:)`` would only read each entry. Returns false, having
    /// changed nothing, for anything else (a dictionary value, an array holding a container, a reference
    /// or UID out of range or not in the word table), which the walk then checks and reports.
    private mutating func checkFlat(_ n: Int, _ fields: ArchiveFields, skippingValue skipped: Int?) -> Bool {
        let refSize = storage.refSize
        // The walk's order (last entry first), so that the walk and this agree on which entry is read.
        var i = fields.count - 1
        var flatArrays = 0
        while i >= 0 {
            guard let child = storage.referenceIfInRange(at: fields.values + i * refSize) else { return false }
            if child != skipped {
                // The walk reads the key too (for its path), and throws if its reference is out of range.
                guard storage.referenceIfInRange(at: fields.keys + i * refSize) != nil else { return false }
                switch storage.kind(child) {
                case .scalar:
                    break
                case .uid:
                    guard isUIDInRange(child) else { return false }
                case .array, .set:
                    guard state[child] == 2 || holdsNoContainer(child) else { return false }
                    flatArrays += 1
                case .dictionary:
                    return false
                }
            }
            i -= 1
        }
        // Every entry passed: only now is anything marked, so that a false return leaves the walk a clean state.
        i = fields.count - 1
        while flatArrays > 0, i >= 0 {
            if let child = storage.referenceIfInRange(at: fields.values + i * refSize), child != skipped,
               storage.kind(child) == .array || storage.kind(child) == .set {
                state[child] = 2
                flatArrays -= 1
            }
            i -= 1
        }
        state[n] = 2
        return true
    }

    /// Whether property-list object `n` is a UID in range that the word table holds (rule 4 without a throw).
    @inline(__always)
    private func isUIDInRange(_ n: Int) -> Bool {
        guard let ref = storage.resolvedUID(n) else { return false }
        return ref < UInt64(storage.objectCount)
    }

    /// Whether array or set `n` holds only scalars and UIDs in range (rules 4 and 6 hold for it: with no
    /// container inside, it cannot contain itself); false for anything the walk must look at.
    private func holdsNoContainer(_ n: Int) -> Bool {
        guard let c = try? storage.container(n), c.kind != .dictionary else { return false }
        let refSize = storage.refSize
        var i = 0
        while i < c.count {
            guard let element = storage.referenceIfInRange(at: c.start + i * refSize) else { return false }
            switch storage.kind(element) {
            case .scalar:
                break
            case .uid:
                guard isUIDInRange(element) else { return false }
            case .array, .set, .dictionary:
                return false
            }
            i += 1
        }
        return true
    }

    /// Checks every UID inside container `root` (rule 4) and that no container contains itself (rule 6).
    private mutating func walk(_ root: Int, path: Path, uid: ArchiveObjectID?, className: String?, skippingValue skipped: Int? = nil) throws {
        var path = path
        // The path's frames start from the buffer the last walk left (emptied, its capacity kept).
        swap(&path.frames, &frames)
        if !path.frames.isEmpty { path.frames.removeAll(keepingCapacity: true) }
        defer { swap(&path.frames, &frames) }
        // Pending work: a container to enter (with the path frame that leads to it), or one to leave. Empty
        // unless the last walk threw.
        if !pending.isEmpty { pending.removeAll(keepingCapacity: true) }
        pending.append((root, -1, false))
        var isRoot = true
        while let (n, frame, leaving) = pending.popLast() {
            if leaving {
                state[n] = 2
                continue
            }
            switch state[n] {
            case 2: continue
            case 1:
                throw PropertyListError(.cycle, "bplist: container contains itself (object \(n) is its own ancestor)",
                                        at: .init(byteOffset: storage.scanner.offset(of: n), objectNumber: n))
            default: break
            }
            state[n] = 1
            pending.append((n, frame, true))
            guard let c = try storage.container(n) else { continue }
            let isDictionary = c.kind == .dictionary
            // Children are pushed in reverse so they are checked in stored order.
            var i = c.count - 1
            while i >= 0 {
                let refAt = c.start + (isDictionary ? c.count + i : i) * storage.refSize
                let child = try storage.reference(at: refAt, object: n)
                defer { i -= 1 }
                if isRoot, child == skipped { continue }
                let item = isDictionary ? try storage.reference(at: c.start + i * storage.refSize, object: n) : i
                switch storage.kind(child) {
                case .scalar: continue
                case .uid:
                    guard let ref = try storage.uid(child), ref >= UInt64(storage.objectCount) else { continue }
                    path.frames.append((frame, item, !isDictionary))
                    path.current = path.frames.count - 1
                    try checkUID(child, path: path, uid: uid, className: className)
                default:
                    if state[child] == 2 { continue }
                    path.frames.append((frame, item, !isDictionary))
                    pending.append((child, path.frames.count - 1, false))
                }
            }
            isRoot = false
        }
    }
}
