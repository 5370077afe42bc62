#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// ArchiveObjectDecoder reading arrays, ordered sets, sets and dictionaries: the collection object, its
// elements (each entered for depth and cycles), and the limits on element counts.
extension ArchiveObjectDecoder {
    /// The `$objects` entry of a collection under `key`, whose class must be one of `names`.
    func collection(_ key: String, names: [String], expected: @autoclosure () -> String)
        throws -> (ArchiveObjectID, ArchiveFields, String)
    {
        let object = try collectionObject(key, names: names, expected: expected())
        return (object.uid, object.fields, object.className)
    }

    /// ``collection(_:names:expected:)`` with the object's key table.
    @inline(__always)
    func collectionObject(_ key: String, names: [String], expected: @autoclosure () -> String) throws -> BuiltinObject {
        let (value, uid) = try targetObject(forKey: key, expected: expected())
        return try builtinObject(value, uid: uid, key: key, names: names, expected: expected())
    }

    /// The element references of an array, set or ordered set: `NS.objects` (an array of UIDs) or one UID
    /// member per element, `NS.object.0`, `NS.object.1`, ... in any stored order (Apple's ordered-set
    /// layout; also accepted for arrays and sets). Indices with a gap are rejected, not read as a shorter
    /// list; a key stored twice counts once (its last value), as the raw model reads it. `member` names the array-of-UIDs member to read (`NS.keys` for dictionary keys).
    /// `keyTable`, when given, is `dict`'s (``UnarchivingSession/keyTable(for:)``): the member is found in it
    /// rather than in the bytes.
    func elements(_ dict: ArchiveFields, _ uid: ArchiveObjectID, _ cls: String, key: String,
                  member name: String = Catalogue.elementArrayKey, keyTable: UnarchivingSession.KeyTable? = nil) throws -> [Int] {
        var refs: [Int] = []
        try elements(dict, uid, cls, key: key, member: name, keyTable: keyTable, into: &refs)
        return refs
    }

    /// ``elements(_:_:_:key:member:keyTable:)`` into `refs`, which must be empty (a list from
    /// ``UnarchivingSession/referenceList()``).
    func elements(_ dict: ArchiveFields, _ uid: ArchiveObjectID, _ cls: String, key: String,
                  member name: String = Catalogue.elementArrayKey, keyTable: UnarchivingSession.KeyTable? = nil,
                  into refs: inout [Int]) throws {
        let stored: Int?
        if let keyTable {
            stored = try keyTable.position(ofStoredKey: name).map { try session.value(at: $0, of: dict, key: pathKey(key), uid: uid) }
        } else {
            stored = try session.lookup(dict, name, key: pathKey(key), uid: uid)
        }
        if let list = stored {
            guard try session.appendArrayElements(of: list, to: &refs, key: pathKey(key), uid: uid) else {
                throw fail(.dataCorrupted, "\(cls).\(name) must be an array of UIDs, found \(session.kindName(list))", key,
                           uid: uid, className: cls)
            }
            for (i, ref) in refs.enumerated() where try session.uid(ref, key: pathKey(key)) == nil {
                throw fail(.invalidReference, "\(cls).\(name)[\(i)] must be a UID, found \(session.kindName(ref))", key,
                           uid: uid, className: cls)
            }
            return
        }
        guard name == Catalogue.elementArrayKey else {
            throw fail(.dataCorrupted, "\(cls) has no \(name)", key, uid: uid, className: cls)
        }
        // One member per element. Most objects have none (an empty collection written without members).
        guard dict.count > 1 else { return }
        let prefix = Catalogue.elementPerIndexPrefix
        guard let keys = session.storage.shortKeys(dict, maximumLength: 1 << 16) else {
            throw fail(.dataCorrupted, "\(cls) has a member key that is not a string", key, uid: uid, className: cls)
        }
        guard keys.contains(where: { $0.hasPrefix(prefix) }) else { return }
        guard let positions = FoundationClassCatalogue.indexedElementPositions(keys: keys) else {
            throw fail(.dataCorrupted, "\(cls)'s \(prefix)<index> members must be numbered 0, 1, 2, ... without a gap",
                       key, uid: uid, className: cls)
        }
        refs.reserveCapacity(positions.count)
        for (i, position) in positions.enumerated() {
            let ref = try session.value(at: position, of: dict, key: pathKey(key), uid: uid)
            guard try session.uid(ref, key: pathKey(key)) != nil else {
                throw fail(.invalidReference, "\(cls).\(prefix)\(i) must be a UID, found \(session.kindName(ref))", key,
                           uid: uid, className: cls)
            }
            refs.append(ref)
        }
    }

    func withEntered<R>(_ uid: ArchiveObjectID, _ cls: String, key: String, _ body: () throws -> R) throws -> R {
        try session.enter(uid: uid, className: cls, key: pathKey(key))
        if let k = pathKey(key) { session.push(.key(k)) }
        defer {
            if pathKey(key) != nil { session.pop() }
            session.leave(uid: uid, decoded: false)
        }
        return try session.nested(body)
    }

    /// Decodes one element with `decoder` (an element-mode decoder the collection reuses).
    func decodeElement<T: ArchiveValue>(_ ref: Int, at component: ArchivePathComponent,
                                                with decoder: ArchiveObjectDecoder) throws -> T {
        session.push(component)
        defer { session.pop() }
        decoder.element = ref
        return try T.decode(from: decoder, forKey: "")
    }

    static let arrayClasses = FoundationClassCatalogue.array.names + FoundationClassCatalogue.orderedSet.names
    static let setClasses = FoundationClassCatalogue.set.names + FoundationClassCatalogue.orderedSet.names
    static let dictionaryClasses = FoundationClassCatalogue.dictionary.names

    func decodeArray<T: ArchiveValue>(of type: T.Type, forKey key: String) throws -> [T] {
        try decodeElements(of: T.self, forKey: key, names: Self.arrayClasses, expected: "an array of \(T.self)")
    }

    func decodeElements<T: ArchiveValue>(of type: T.Type, forKey key: String, names: [String],
                                                  expected: @autoclosure () -> String) throws -> [T] {
        // This generic runs unspecialized (reached through `any ArchiveDecoder`): strings and class instances,
        // the common elements, are collected in an array of a concrete type, which touches no generic
        // metadata per element. Each element is still read by the call `T.decode(from:forKey:)` makes.
        if T.self == String.self {
            let strings = try withElements(forKey: key, names: names, expected: expected()) {
                try decodeStringElements($0, errors: .archive)
            }
            return unsafeBitCast(strings, to: [T].self)  // T is String
        }
        if session.isClass(T.self) {
            let instances = try withElements(forKey: key, names: names, expected: expected()) {
                try decodeInstanceElements($0, of: T.self, errors: .archive)
            }
            // T is a class: [AnyObject] and [T] hold the same references, laid out alike.
            return unsafeBitCast(instances, to: [T].self)
        }
        return try withElements(forKey: key, names: names, expected: expected()) { refs in
            var result: [T] = []
            result.reserveCapacity(refs.count)
            var decoder = session.elementDecoder()
            for (i, ref) in refs.enumerated() {
                // Elements that refer to objects met before are read from memory four at a time.
                if i % UnarchivingSession.warmedLanes == 0 { session.warm(refs, from: i) }
                result.append(try decodeElement(ref, at: .index(i), with: decoder))
            }
            session.recycle(elementDecoder: &decoder)
            return result
        }
    }

    /// Opens the collection under `key` (an object of one of the classes `names`), lists its element
    /// references, counts them against the element limit and runs `body` with them while the collection is
    /// entered (depth, cycles, and its key on the path).
    func withElements<R>(forKey key: String, names: [String], expected: @autoclosure () -> String,
                         _ body: ([Int]) throws -> R) throws -> R {
        let object = try collectionObject(key, names: names, expected: expected())
        let (uid, cls) = (object.uid, object.className)
        var refs = session.referenceList()
        defer { session.recycle(referenceList: &refs) }
        try elements(object.fields, uid, cls, key: key, keyTable: object.keyTable, into: &refs)
        try session.countElements(refs.count, key: pathKey(key), uid: uid, className: cls)
        return try withEntered(uid, cls, key: key) { try body(refs) }
    }

    /// What an element's failure becomes: the archive's error as it is (``ArchiveDecoder`` reads), or the
    /// error the Codable adapter throws for it, converted while the element is on the path
    /// (``CodableArchiving/elementDecodingError(_:type:at:)``).
    enum ElementErrors {
        case archive
        case codable
    }

    /// The elements `refs` of an array of strings, each read as `String.decode(from:forKey:)` reads it.
    /// An element that is a UID of a string object is taken as it is (``UnarchivingSession/plainStringElement(_:)``);
    /// any other goes through an element decoder, which reads it or reports what is wrong with its key path.
    func decodeStringElements(_ refs: [Int], errors: ElementErrors) throws -> [String] {
        var result: [String] = []
        result.reserveCapacity(refs.count)
        var decoder: ArchiveObjectDecoder?
        for (i, ref) in refs.enumerated() {
            if let string = session.plainStringElement(ref) {
                result.append(string)
                continue
            }
            let elementDecoder = decoder ?? session.elementDecoder()
            decoder = elementDecoder
            session.push(.index(i))
            defer { session.pop() }
            elementDecoder.element = ref
            do { result.append(try elementDecoder.decode(String.self, forKey: "")) } catch {
                throw errors == .archive ? error : CodableArchiving.elementDecodingError(error, type: String.self, at: elementDecoder)
            }
        }
        if var used = decoder {
            decoder = nil
            session.recycle(elementDecoder: &used)
        }
        return result
    }

    /// The elements `refs` of an array whose element type `T` is a class, each read by `T.decode(from:forKey:)`.
    func decodeInstanceElements<T: ArchiveValue>(_ refs: [Int], of type: T.Type, errors: ElementErrors) throws -> [AnyObject] {
        var result: [AnyObject] = []
        result.reserveCapacity(refs.count)
        var decoder = session.elementDecoder()
        // One path entry for the element being read, its index set per element.
        session.push(.index(0))
        defer { session.pop() }
        for (i, ref) in refs.enumerated() {
            // Elements that refer to objects met before are read from memory four at a time.
            if i % UnarchivingSession.warmedLanes == 0 { session.warm(refs, from: i) }
            session.setLastPathIndex(i)
            decoder.element = ref
            do {
                let element = try T.decode(from: decoder, forKey: "")
                result.append(unsafeBitCast(element, to: AnyObject.self))  // T is a class
            } catch {
                throw errors == .archive ? error : CodableArchiving.elementDecodingError(error, type: T.self, at: decoder)
            }
        }
        session.recycle(elementDecoder: &decoder)
        return result
    }

    func decodeSet<T: ArchiveValue & Hashable>(of type: T.Type, forKey key: String) throws -> Set<T> {
        let (uid, dict, cls) = try collection(key, names: Self.setClasses, expected: "a set of \(T.self)")
        let refs = try elements(dict, uid, cls, key: key)
        try session.countElements(refs.count, key: pathKey(key), uid: uid, className: cls)
        return try withEntered(uid, cls, key: key) {
            var result = Set<T>(minimumCapacity: refs.count)
            let decoder = ArchiveObjectDecoder(session: session, element: 0)
            for (i, ref) in refs.enumerated() {
                let member: T = try decodeElement(ref, at: .index(i), with: decoder)
                let (inserted, kept) = result.insert(member)
                if !inserted { try checkSameScalars(kept, member, at: .index(i), uid: uid, className: cls) }
            }
            return result
        }
    }

    func decodeDictionary<K: ArchiveValue & Hashable, V: ArchiveValue>(
        keyType: K.Type, valueType: V.Type, forKey key: String) throws -> [K: V]
    {
        let (uid, dict, cls) = try collection(key, names: Self.dictionaryClasses,
                                              expected: "a dictionary of \(K.self) to \(V.self)")
        let keys = try elements(dict, uid, cls, key: key, member: Catalogue.dictionaryKeysKey)
        let values = try elements(dict, uid, cls, key: key, member: Catalogue.elementArrayKey)
        guard keys.count == values.count else {
            throw fail(.dataCorrupted, "\(cls).\(Catalogue.dictionaryKeysKey) has \(keys.count) entries but \(Catalogue.elementArrayKey) has \(values.count)",
                       key, uid: uid, className: cls)
        }
        try session.countElements(keys.count, key: pathKey(key), uid: uid, className: cls)
        return try withEntered(uid, cls, key: key) {
            var result = [K: V](minimumCapacity: keys.count)
            let decoder = ArchiveObjectDecoder(session: session, element: 0)
            for i in keys.indices {
                let k: K = try decodeElement(keys[i], at: .dictionaryKey(i), with: decoder)
                let v: V = try decodeElement(values[i], at: .dictionaryValue(i, keyRef: keys[i]), with: decoder)
                if result.updateValue(v, forKey: k) != nil, let kept = result.index(forKey: k) {
                    try checkSameScalars(result[kept].key, k, at: .dictionaryKey(i), uid: uid, className: cls)
                }
            }
            return result
        }
    }

    /// Checks that `kept`, a member of a Swift `Set` or key of a `Dictionary` being decoded, and `repeated`,
    /// an archived member or key that Swift found equal to it, are the same string (or are not strings).
    ///
    /// An NSSet or NSDictionary holds strings as distinct members when their UTF-16 units differ, even when
    /// they are canonically equivalent ("\u{E9}" and "e\u{301}"); Swift's `==` merges those, so the Swift
    /// collection cannot hold both. The decode fails, naming both, rather than keep one and lose the other
    /// (or pair one key with the other's value). A member repeated with the same scalars collapses into the
    /// first, as it does in NSSet.
    ///
    /// - Throws: ``KeyedArchiveError/Code/equivalentKeys`` at `component` of the collection.
    func checkSameScalars<T>(_ kept: T, _ repeated: T, at component: ArchivePathComponent,
                             uid: ArchiveObjectID, className: String) throws {
        guard let a = (kept as? any ArchivedStringKey)?.archivedString,
              let b = (repeated as? any ArchivedStringKey)?.archivedString, !a.hasSameScalars(as: b) else { return }
        session.push(component)
        defer { session.pop() }
        throw session.error(.equivalentKeys, a.equivalentKeysMessage(b, in: className), key: nil, uid: uid, className: className)
    }
}
