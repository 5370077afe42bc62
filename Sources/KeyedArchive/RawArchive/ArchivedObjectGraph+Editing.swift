#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Edits of an archive's object graph by key path, each followed by a lossless re-write.
///
/// Every edit returns a new graph, written again as ``ArchivedObjectGraph/rewritten()`` describes: objects the edit does
/// not touch keep their content, their class descriptions (`$classname`, `$classes`, `$classhints`) and their
/// sharing (an object reachable two ways stays one object); UIDs are numbered again as Apple's archiver
/// numbers them; objects nothing reaches any more are dropped. The result is read back through the same
/// checks as any archive (``init(propertyList:)``).
///
/// A value to store is given as a ``PropertyListValue`` and archived the way Apple's `NSKeyedArchiver` stores
/// it: a string, number or data becomes an inline entry of `$objects` that the place refers to; a date an
/// `NSDate` (`NS.time`); an array an `NSArray`, a set an `NSSet`, a dictionary an `NSDictionary` (`NS.keys`,
/// `NS.objects`), their elements archived the same way; a ``UID`` is a reference to an object already in the
/// archive (UID 0 is nil). Where the place holds values inline rather than as references, scalars stay inline:
/// a replaced inline value (an `encodeInteger`/`encodeBool` field, a value inside a plain array) is replaced
/// inline; a new field of an object or of `$top` stores an integer, real or Boolean inline (as
/// `encodeInteger`, `encodeDouble` and `encodeBool` write it) and anything else as an object; a plain array or
/// dictionary takes references when it already holds one. A raw path (starting with `$`) stores the value
/// exactly as given, UIDs included.
extension ArchivedObjectGraph {
    /// The graph with the value at `keyPath` replaced by `value`.
    ///
    /// The corresponding `plutil` command is `plutil -replace keypath -type value`.
    /// - Parameters:
    ///   - keyPath: where the value is; it must exist.
    ///   - value: the new value (archived as the type describes; a raw path stores it as given).
    /// - Returns: the edited graph, written again.
    /// - Throws: ``KeyedArchiveError``: ``KeyedArchiveError/Code/keyPathNotFound`` when the path names
    ///   nothing; ``KeyedArchiveError/Code/invalidReference`` for a UID outside the archive or naming a class
    ///   description; ``KeyedArchiveError/Code/limitExceeded`` for a value nested deeper than 512 levels; any
    ///   error of ``init(propertyList:)`` when a raw edit breaks the archive's rules. Each names the key path.
    public func replacingValue(at keyPath: ArchiveKeyPath, with value: PropertyListValue) throws -> ArchivedObjectGraph {
        try edited { copy in
            let place = try copy.place(of: keyPath)
            guard let old = place.storedValue(in: copy) else {
                throw KeyedArchiveError(.keyPathNotFound, "no value to replace", keyPath: keyPath.description)
            }
            let stored: PropertyListValue
            if place.isRaw {
                stored = value
            } else if Self.isInlineScalar(old), Self.isInlineScalar(value) {
                stored = value
            } else {
                stored = try copy.archivedReference(for: value, keyPath: keyPath)
            }
            try copy.apply(.replace(stored), at: place)
            if case .uid(let new) = stored, let newIndex = Int(exactly: new.value), newIndex >= copy.originalCount {
                // In the old value's place among its holder's references.
                let key: Int
                if case .uid(let previous) = old, previous.value < UInt64(copy.originalCount) {
                    key = 2 * Int(previous.value)
                } else {
                    key = copy.sortKey(following: place)
                }
                copy.placed = [newIndex: key]
            }
        }
    }

    /// The graph with `value` inserted at `keyPath`: a new key of a dictionary or a new field of an object
    /// (the last component; it must not exist yet), or a new element of a list at an index (`0...count`; the
    /// elements from there move up).
    ///
    /// The corresponding `plutil` command is `plutil -insert keypath -type value`.
    /// - Parameters:
    ///   - value: the value (archived as the type describes; a raw path stores it as given).
    ///   - keyPath: the new key, or the index to insert at.
    /// - Returns: the edited graph, written again.
    /// - Throws: ``KeyedArchiveError``: ``KeyedArchiveError/Code/valueExists`` when the key already holds a
    ///   value; ``KeyedArchiveError/Code/keyPathNotFound`` when the path before the last component names
    ///   nothing or the index is beyond the end; as ``replacingValue(at:with:)`` for the value. Each names the
    ///   key path.
    public func insertingValue(_ value: PropertyListValue, at keyPath: ArchiveKeyPath) throws -> ArchivedObjectGraph {
        try edited { copy in
            let place = try copy.place(of: keyPath)
            try copy.insert(value, at: place)
        }
    }

    /// The graph with `value` appended to the list at `keyPath` (an NSArray, NSSet or NSOrderedSet, or a plain
    /// array).
    ///
    /// The corresponding `plutil` command is `plutil -insert keypath -type value -append`.
    /// - Throws: ``KeyedArchiveError/Code/keyPathNotFound`` (key path named) when the path names nothing or
    ///   not a list; otherwise as ``insertingValue(_:at:)``.
    public func appendingValue(_ value: PropertyListValue, to keyPath: ArchiveKeyPath) throws -> ArchivedObjectGraph {
        let count = try listCount(at: keyPath)
        return try insertingValue(value, at: ArchiveKeyPath(components: keyPath.components + [String(count)]))
    }

    /// The graph without the value at `keyPath` (a key, a field or a list element; later elements move down).
    /// Objects only that value reached are dropped by the re-write.
    ///
    /// The corresponding `plutil` command is `plutil -remove keypath`.
    /// - Throws: ``KeyedArchiveError/Code/keyPathNotFound`` (key path named) when the path names nothing or a
    ///   whole entry of `$objects` (a raw path can change an entry, not remove it).
    public func removingValue(at keyPath: ArchiveKeyPath) throws -> ArchivedObjectGraph {
        try edited { copy in
            let place = try copy.place(of: keyPath)
            guard place.storedValue(in: copy) != nil else {
                throw KeyedArchiveError(.keyPathNotFound, "no value to remove", keyPath: keyPath.description)
            }
            try copy.apply(.remove, at: place)
        }
    }

    /// The graph written again without an edit, as every edit writes its result.
    ///
    /// UIDs are numbered as Apple's `NSKeyedArchiver` numbers them: depth first from `$top`, each object when
    /// first reached, the objects it refers to (and theirs) before its next sibling, its class description
    /// after its fields; an unchanged object's references are taken in the order of their old UIDs (the order
    /// its writer encoded them), a new object's fields in the order they were built. An archive its writer
    /// numbered so (every one `NSKeyedArchiver` and ``KeyedArchiver`` write) keeps every UID; one numbered
    /// otherwise (a compiled nib) keeps its objects' order, each new object after the object the walk met
    /// before it. Objects nothing reaches are dropped; `$null` stays UID 0.
    /// - Throws: ``KeyedArchiveError`` when the graph does not pass the archive's checks (a graph read with
    ///   ``init(lenient:options:)`` may not).
    public func rewritten() throws -> ArchivedObjectGraph {
        try edited { _ in }
    }

    /// Reads a keyed archive, applies `edit` to its graph and writes it back in the format it was read in
    /// (binary or XML): `ArchivedObjectGraph.editing(data) { try $0.replacingValue(at: "root.title", with: "New") }`.
    ///
    /// - Parameters:
    ///   - data: the archive's bytes.
    ///   - options: limits for reading them.
    ///   - edit: the edits, from the graph read to the graph to write.
    /// - Returns: the edited archive's bytes.
    /// - Throws: ``KeyedArchiveError`` from reading or from `edit`; ``PropertyListError`` when the format
    ///   cannot hold a value (XML has no sets).
    public static func editing(_ data: Data, options: PropertyListReadingOptions = .init(),
                               _ edit: (ArchivedObjectGraph) throws -> ArchivedObjectGraph) throws -> Data {
        let graph = try ArchivedObjectGraph(data: data, options: options)
        let format = PropertyListValue.detectFormat(of: data) ?? .binary
        return try edit(graph).archivedData(format: format)
    }

    // MARK: - Implementation

    /// The number of elements of the list at `keyPath`.
    private func listCount(at keyPath: ArchiveKeyPath) throws -> Int {
        let found = try value(at: keyPath)
        let count: Int?
        if keyPath.isRaw {
            switch found.storedValue {
            case .array(let a), .set(let a): count = a.count
            default: count = nil
            }
        } else if case .instance(let instance)? = found.object?.content,
                  let family = FoundationClassCatalogue.standard.entry(named: instance.className)?.family,
                  Self.isList(family) {
            count = found.node.count
        } else if case .value(let plain)? = found.object?.content {
            switch plain {
            case .array(let a), .set(let a): count = a.count
            default: count = nil
            }
        } else {
            switch found.storedValue {
            case .array(let a), .set(let a): count = a.count
            default: count = nil
            }
        }
        guard let count else {
            throw KeyedArchiveError(.keyPathNotFound, "the value is a \(found.typeName), not a list", keyPath: keyPath.description)
        }
        return count
    }

    private static func isList(_ family: FoundationClassFamily) -> Bool {
        switch family {
        case .array, .set, .orderedSet: return true
        default: return false
        }
    }

    /// Whether a value is kept inline when it replaces an inline value: any value but a container or a UID.
    static func isInlineScalar(_ value: PropertyListValue) -> Bool {
        switch value {
        case .array, .set, .dictionary, .uid: return false
        default: return true
        }
    }

    /// Makes a working copy, lets `change` edit it, and writes the result again.
    private func edited(_ change: (inout ArchiveWorkingCopy) throws -> Void) throws -> ArchivedObjectGraph {
        var copy = ArchiveWorkingCopy(self)
        let wasDepthFirst = ArchiveReferenceOrder.isDepthFirst(top: copy.top, objects: copy.objects)
        try change(&copy)
        return try copy.rewritten(originalIsDepthFirst: wasDepthFirst)
    }
}

extension ArchiveWorkingCopy {
    /// Inserts `value` at `place` (a new key or field, or a list index).
    mutating func insert(_ value: PropertyListValue, at place: ArchivePlace) throws {
        let keyPath = place.keyPath.description
        if place.storedValue(in: self) != nil {
            if case .element = place.kind {} else if case .orderedSetMember = place.kind {} else {
                throw KeyedArchiveError(.valueExists, "a value is already stored here", keyPath: keyPath)
            }
        }
        if place.isRaw {
            try apply(.insert(value), at: place)
            return
        }
        let stored: PropertyListValue
        switch place.kind {
        case .entry(let owner, let path, _):
            let isFieldOrTop = path.isEmpty && (owner == .top || className(ofObject: owner.objectIndex ?? -1) != nil)
            if isFieldOrTop {
                stored = Self.isPrimitiveEncode(value) ? value : try archivedReference(for: value, keyPath: place.keyPath)
            } else {
                stored = try plainContainerValue(value, in: self.value(at: owner, path), keyPath: place.keyPath)
            }
        case .element(let owner, let path, _):
            let inArchivedList = path == [.key(FoundationClassCatalogue.elementArrayKey)]
                && className(ofObject: owner.objectIndex ?? -1) != nil
            stored = inArchivedList ? try archivedReference(for: value, keyPath: place.keyPath)
                : try plainContainerValue(value, in: self.value(at: owner, path), keyPath: place.keyPath)
        case .orderedSetMember, .dictionaryEntry:
            stored = try archivedReference(for: value, keyPath: place.keyPath)
        case .whole:
            throw KeyedArchiveError(.valueExists, "a value is already stored here", keyPath: keyPath)
        }
        try apply(.insert(stored), at: place)
        if case .uid(let new) = stored, let newIndex = Int(exactly: new.value), newIndex >= originalCount {
            placed = [newIndex: sortKey(following: place)]
        }
        if case .dictionaryEntry(let object, _, _) = place.kind, let keyIndex = lastDictionaryKeyIndex(object),
           keyIndex >= originalCount {
            placed[keyIndex] = sortKey(followingLastOf: object, FoundationClassCatalogue.standard.dictionaryKeysKey)
        }
    }

    /// Whether a container holds a UID among its direct values (its new values then are references too).
    static func holdsReference(_ container: PropertyListValue?) -> Bool {
        switch container {
        case .dictionary(let d)?: return d.values.contains { if case .uid = $0 { true } else { false } }
        case .array(let a)?, .set(let a)?: return a.contains { if case .uid = $0 { true } else { false } }
        default: return false
        }
    }

    /// Integers, reals and Booleans: what `encodeInteger`, `encodeDouble` and `encodeBool` store inline.
    static func isPrimitiveEncode(_ value: PropertyListValue) -> Bool {
        switch value {
        case .integer, .real, .float, .bool: return true
        default: return false
        }
    }

    /// A value for a plain (inline) container: a reference when the container already holds one, else the
    /// value as given, like its siblings.
    private mutating func plainContainerValue(_ value: PropertyListValue, in container: PropertyListValue?,
                                              keyPath: ArchiveKeyPath) throws -> PropertyListValue {
        Self.holdsReference(container) ? try archivedReference(for: value, keyPath: keyPath) : value
    }

    /// Applies `change` at `place`, keeping an NSDictionary's keys and values and an ordered set's members in step.
    mutating func apply(_ change: Change, at place: ArchivePlace) throws {
        let keyPath = place.keyPath.description
        let done: Bool
        switch place.kind {
        case .entry(let owner, let path, let key):
            if case .root = owner, path.isEmpty {
                guard case .replace = change, ["$archiver", "$version"].contains(key) || key == "$top" || key == "$objects" else {
                    throw KeyedArchiveError(.keyPathNotFound, "the envelope's keys can be replaced, not added or removed",
                                            keyPath: keyPath)
                }
            }
            done = modify(owner, path + [.key(key)], change)
        case .element(let owner, let path, let index):
            done = modify(owner, path + [.index(index)], change)
        case .whole(let owner):
            guard case .replace(let value) = change else {
                throw KeyedArchiveError(.keyPathNotFound, "a whole entry of the archive can be replaced, not inserted or removed",
                                        keyPath: keyPath)
            }
            switch owner {
            case .root: done = setRoot(value)
            case .top:
                guard case .dictionary(let d) = value else {
                    throw KeyedArchiveError(.typeMismatch, "$top must be a dictionary, not a \(value.kindName)", keyPath: keyPath)
                }
                top = d
                done = true
            case .object(let i):
                objects[i] = value
                done = true
            }
        case .orderedSetMember(let object, let index):
            done = modifyOrderedSet(object, index, change)
        case .dictionaryEntry(let object, let key, let position):
            done = try modifyDictionary(object, key: key, position: position, change, keyPath: place.keyPath)
        }
        guard done else {
            throw KeyedArchiveError(.keyPathNotFound, "nothing to change here (a missing key or an index out of range)",
                                    keyPath: keyPath)
        }
    }

    /// `NS.object.<index>` members: an insertion or removal renames the members after `index`.
    private mutating func modifyOrderedSet(_ object: Int, _ index: Int, _ change: Change) -> Bool {
        guard case .dictionary(var fields) = objects[object] else { return false }
        let prefix = FoundationClassCatalogue.elementPerIndexPrefix
        var members: [PropertyListValue] = []
        while let member = fields[prefix + String(members.count)] { members.append(member) }
        switch change {
        case .replace(let v):
            guard index < members.count else { return false }
            members[index] = v
        case .insert(let v):
            guard index <= members.count else { return false }
            members.insert(v, at: index)
        case .remove:
            guard index < members.count else { return false }
            members.remove(at: index)
        }
        for i in 0 ..< members.count + 1 { fields[prefix + String(i)] = nil }
        for (i, member) in members.enumerated() { fields[prefix + String(i)] = member }
        objects[object] = .dictionary(fields)
        return true
    }

    /// An NSDictionary entry: `NS.keys` and `NS.objects` change together; a new key is an inline string.
    private mutating func modifyDictionary(_ object: Int, key: String, position: Int?, _ change: Change,
                                           keyPath: ArchiveKeyPath) throws -> Bool {
        let keysKey = FoundationClassCatalogue.standard.dictionaryKeysKey, valuesKey = FoundationClassCatalogue.elementArrayKey
        guard case .dictionary(var fields) = objects[object] else { return false }
        var keys = fields[keysKey]?.arrayValue ?? []
        var values = fields[valuesKey]?.arrayValue ?? []
        guard keys.count == values.count else {
            throw KeyedArchiveError(.dataCorrupted, "NS.keys has \(keys.count) entries and NS.objects \(values.count)",
                                    keyPath: keyPath.description, objectUID: UInt64(object))
        }
        switch change {
        case .replace(let v):
            guard let position else { return false }
            values[position] = v
        case .insert(let v):
            objects.append(.string(key))
            keys.append(.uid(UID(UInt64(objects.count - 1))))
            values.append(v)
        case .remove:
            guard let position else { return false }
            keys.remove(at: position)
            values.remove(at: position)
        }
        fields[keysKey] = .array(keys)
        fields[valuesKey] = .array(values)
        objects[object] = .dictionary(fields)
        return true
    }

    /// The object index of the last key of an NSDictionary.
    private func lastDictionaryKeyIndex(_ object: Int) -> Int? {
        guard case .dictionary(let fields) = objects[object],
              case .uid(let last)? = fields[FoundationClassCatalogue.standard.dictionaryKeysKey]?.arrayValue?.last else { return nil }
        return Int(clamping: last.value)
    }

    // MARK: - Where a placed value comes among its holder's references

    /// The sort key (`ArchiveReferenceOrder`) of a value placed at `place`: just after the reference to an old
    /// object before it in the same list, else just before the one after it, else just after the holder's other
    /// references to old objects (an object's new field comes after its other fields: before `$class`, whose
    /// description Apple's archiver numbers after the fields).
    func sortKey(following place: ArchivePlace) -> Int {
        switch place.kind {
        case .element(let owner, let path, let index):
            if case .array(let items)? = value(at: owner, path) ?? nil {
                if let key = neighbourKey(items.elements, around: index) { return key }
            }
            return holderKey(owner)
        case .orderedSetMember(let object, _):
            return holderKey(.object(object))
        case .dictionaryEntry(let object, _, _):
            return sortKey(followingLastOf: object, FoundationClassCatalogue.elementArrayKey)
        case .entry(let owner, _, _), .whole(let owner):
            return holderKey(owner)
        }
    }

    /// After the last old reference in the array `key` of `object`, or the holder's key.
    func sortKey(followingLastOf object: Int, _ key: String) -> Int {
        guard case .dictionary(let fields) = objects[object], let items = fields[key]?.arrayValue else { return holderKey(.object(object)) }
        let old = items.dropLast().compactMap { item -> Int? in
            guard case .uid(let u) = item, u.value < UInt64(originalCount), u.value > 0 else { return nil }
            return Int(u.value)
        }
        return old.max().map { 2 * $0 + 1 } ?? holderKey(.object(object))
    }

    private func neighbourKey(_ items: [PropertyListValue], around index: Int) -> Int? {
        func old(_ i: Int) -> Int? {
            guard i >= 0, i < items.count, case .uid(let u) = items[i], u.value > 0, u.value < UInt64(originalCount) else { return nil }
            return Int(u.value)
        }
        if let before = old(index - 1) { return 2 * before + 1 }
        if let after = old(index + 1) { return 2 * after - 1 }
        return nil
    }

    /// After every reference of the holder to an old object except its class: its new field is encoded last.
    private func holderKey(_ owner: Owner) -> Int {
        let stored: PropertyListValue?
        var classUID: UInt64?
        switch owner {
        case .top: stored = .dictionary(top)
        case .object(let i):
            stored = objects[i]
            if case .dictionary(let d) = objects[i], case .uid(let c)? = d["$class"] { classUID = c.value }
        case .root: stored = nil
        }
        guard let stored else { return 0 }
        let refs = ArchivedUIDWalk.references(in: stored).filter { $0 != classUID && $0 > 0 && $0 < UInt64(originalCount) }
        if let last = refs.max() { return 2 * Int(last) + 1 }
        if case .object(let i) = owner { return 2 * i + 1 }
        return 0
    }
}

extension ArchiveWorkingCopy.Owner {
    /// The object index, for an entry of `$objects`.
    var objectIndex: Int? {
        if case .object(let i) = self { return i }
        return nil
    }
}
