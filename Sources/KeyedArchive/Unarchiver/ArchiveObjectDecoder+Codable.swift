#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// MARK: - Codable support

/// What is stored under a key, for the Codable adapter (Sources/KeyedArchive/Codable), which must choose
/// how to read a value before the value's `init(from:)` asks for a container.
enum ArchiveStoredValueKind {
    /// The key is absent or holds `$null`.
    case none
    /// A plain value: an inline number or Boolean, a string or data (inline or NSString/NSData objects).
    case scalar
    /// An object; its archived class name.
    case object(String)
}

/// An array, set or dictionary opened for the Codable adapter, which reads its elements one at a time, in
/// the order (and with the types) a Swift `init(from:)` asks for them. The collection counts as entered
/// (depth, cycles, the path) until ``close()``.
final class ArchiveCollectionCursor {
    private let session: UnarchivingSession
    private let uid: ArchiveObjectID
    private let pushedKey: Bool
    private let keyRefs: [Int]
    private let valueRefs: [Int]
    private var closed = false

    /// The number of elements (entries for a dictionary).
    var count: Int { valueRefs.count }

    fileprivate init(session: UnarchivingSession, uid: ArchiveObjectID, pushedKey: Bool, keys: [Int], values: [Int]) {
        self.session = session
        self.uid = uid
        self.pushedKey = pushedKey
        self.keyRefs = keys
        self.valueRefs = values
    }

    /// Reads element `i` (or the value of dictionary entry `i`) with a decoder that answers every key with it.
    func decodeElement<R>(at i: Int, _ body: (any ArchiveDecoder) throws -> R) throws -> R {
        try decode(valueRefs[i], at: keyRefs.isEmpty ? .index(i) : .dictionaryValue(i, keyRef: keyRefs[i]), body)
    }

    /// Reads the key of dictionary entry `i`.
    func decodeKey<R>(at i: Int, _ body: (any ArchiveDecoder) throws -> R) throws -> R {
        try decode(keyRefs[i], at: .dictionaryKey(i), body)
    }

    private func decode<R>(_ ref: Int, at component: ArchivePathComponent, _ body: (any ArchiveDecoder) throws -> R) throws -> R {
        try session.checkActive()
        session.push(component)
        defer { session.pop() }
        let decoder = ArchiveObjectDecoder(session: session, element: ref)
        return try session.nested { try body(decoder) }
    }

    /// Leaves the collection. Cursors must be closed in the reverse order of opening.
    func close() {
        guard !closed, session.isActive else { return }
        closed = true
        if pushedKey { session.pop() }
        session.leave(uid: uid, decoded: false)
    }
}

extension ArchiveObjectDecoder {
    /// What is stored under `key` (see ``ArchiveStoredValueKind``), without decoding it.
    func storedValueKind(forKey key: String) throws -> ArchiveStoredValueKind {
        try session.checkActive()
        let found: Int?
        if let fields { found = try stored(fields, key) } else { found = element }
        guard let value = found else { return .none }
        guard let ref = try session.uid(value, key: pathKey(key)) else { return .scalar }
        guard ref != 0 else { return .none }
        guard ref < UInt64(session.objectCount) else {
            throw fail(.invalidReference, "UID \(ref) is out of range: $objects has \(session.objectCount) entries", key)
        }
        guard let (_, archivedClass) = try session.objectDictionary(ArchiveObjectID(reference: ref), key: pathKey(key)) else { return .scalar }
        return .object(archivedClass.name)
    }

    /// The keys a model can read from this object (`$class` and other reserved keys left out, `$$name`
    /// unescaped), in stored order; empty for an element.
    func storedKeys() throws -> [String] {
        try session.checkActive()
        guard let fields else { return [] }
        guard fields.count <= 4096, let keys = session.storage.shortKeys(fields, maximumLength: 4096) else {
            throw fail(.dataCorrupted, "the object's keys cannot be listed (not strings, too long or too many)", "")
        }
        return keys.compactMap { key in
            guard key.utf8.first == UInt8(ascii: "$") else { return key }
            return key.utf8.dropFirst().first == UInt8(ascii: "$") ? String(key.dropFirst()) : nil
        }
    }

    /// Opens the array or set (`dictionary` false) or the dictionary under `key` for reading element by element.
    func openCollection(forKey key: String, dictionary: Bool) throws -> ArchiveCollectionCursor {
        let names = dictionary ? Self.dictionaryClasses : Self.arrayClasses + ["NSSet", "NSMutableSet"]
        let (uid, dict, cls) = try collection(key, names: names, expected: dictionary ? "a dictionary" : "an array or set")
        let values = try elements(dict, uid, cls, key: key)
        var keys: [Int] = []
        if dictionary {
            keys = try elements(dict, uid, cls, key: key, member: "NS.keys")
            guard keys.count == values.count else {
                throw fail(.dataCorrupted, "\(cls).NS.keys has \(keys.count) entries but NS.objects has \(values.count)",
                           key, uid: uid, className: cls)
            }
        }
        try session.countElements(values.count, key: pathKey(key), uid: uid, className: cls)
        try session.enter(uid: uid, className: cls, key: pathKey(key))
        let k = pathKey(key)
        if let k { session.push(.key(k)) }
        return ArchiveCollectionCursor(session: session, uid: uid, pushedKey: k != nil, keys: keys, values: values)
    }
}

/// The unarchiver's decoder answers what the Codable adapter, NSValue's Objective-C-type layout and the
/// allow-list's nested-object check read beyond ``ArchiveDecoder`` (`storedKeys()`, `storedValueKind(forKey:)`,
/// `openCollection(forKey:dictionary:)` and the reserved-key reads are above and in
/// ArchiveObjectDecoder+FoundationValue.swift).
extension ArchiveObjectDecoder: ArchiveObjectReading {
    func hasValue(reservedKey name: String) throws -> Bool {
        try storedValue(reservedKey: name) != nil
    }

    func withStack<R>(forLevels levels: Int, _ body: () throws -> R) throws -> R {
        try session.withStack(forLevels: levels, body)
    }

    func codingPathFromTop() -> [any CodingKey]? {
        let components = session.path
        guard case .key(let top)? = components.first else { return nil }
        var keys: [any CodingKey] = [ArchiveTopCodingKey(stringValue: top)]
        for component in components.dropFirst() {
            switch component {
            case .key(let key): keys.append(ArchiveCodingKey(stringValue: key))
            case .index(let i), .dictionaryKey(let i): keys.append(ArchiveCodingKey(intValue: i))
            case .dictionaryValue(let i, let keyRef): keys.append(entryKey(keyRef, index: i))
            }
        }
        return keys
    }

    /// The coding key naming a dictionary entry by its archived key, as `JSONDecoder` names it: a string key as
    /// itself, an integer key as its value (string and integer); any other key, or one that cannot be read, by
    /// the entry's position.
    private func entryKey(_ keyRef: Int, index: Int) -> any CodingKey {
        let decoder = ArchiveObjectDecoder(session: session, element: keyRef)
        if let name = try? decoder.decode(String.self, forKey: "") { return ArchiveCodingKey(stringValue: name) }
        if let number = try? decoder.decode(Int.self, forKey: "") { return DictionaryEntryCodingKey(number) }
        return ArchiveCodingKey(intValue: index)
    }

    func acceptsObject(named name: String, as type: any KeyedArchivable.Type) -> Bool {
        ArchiveAllowList.type(forClassName: name, allowed: [type], registry: session.registry, moves: session.moduleMoves,
                              names: session.names(of:)) != nil
    }
}

// MARK: - Arrays of strings and of instances for the Codable adapter

extension ArchiveObjectDecoder {
    /// Reads the array under `key` as `decodeArray(of: CodableDecodedElement<String>.self, forKey:)` reads it, with
    /// no wrapper per element: the same object and element checks, limits, depth and path (`expected` is what
    /// that call names in its errors), each element read as `decode(String.self, forKey: "")` reads it, and an
    /// element's failure thrown as `CodableDecodedElement` throws it (``CodableArchiving/elementDecodingError(_:type:at:)``).
    func decodeCodableStringArray(forKey key: String, expected: @autoclosure () -> String) throws -> [String] {
        try withElements(forKey: key, names: Self.arrayClasses, expected: expected()) {
            try decodeStringElements($0, errors: .codable)
        }
    }

    /// Reads the array under `key` as `decodeArray(of: CodableDecodedElement<T>.self, forKey:)` reads it, for a
    /// class `T` that its ``ArchiveValue`` conformance reads (what `CodableArchiving.decode` does for such a `T`):
    /// each element by `T.decode(from:forKey:)`, which checks the allow-list before it instantiates, and an
    /// element's failure thrown as `CodableDecodedElement` throws it. The instances are returned as `AnyObject`s.
    func decodeCodableInstanceArray<T: ArchiveValue>(of type: T.Type, forKey key: String, expected: @autoclosure () -> String)
        throws -> [AnyObject]
    {
        try withElements(forKey: key, names: Self.arrayClasses, expected: expected()) {
            try decodeInstanceElements($0, of: T.self, errors: .codable)
        }
    }
}
