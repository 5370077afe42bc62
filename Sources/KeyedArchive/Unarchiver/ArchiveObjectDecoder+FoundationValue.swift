#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// ArchiveObjectDecoder reading untyped Foundation values (FoundationValue): only the catalogue's value
// classes, never a model type.
extension ArchiveObjectDecoder {
    func decodeFoundationValue(forKey key: String) throws -> FoundationValue {
        let (n, uid) = try targetObject(forKey: key, expected: "a Foundation value")
        switch session.storage.kind(n) {
        case .scalar:
            break
        case .array, .set, .uid:
            throw fail(.typeMismatch, "expected a Foundation value, found an inline \(session.kindName(n))", key, uid: uid)
        case .dictionary:
            return try foundationObject(n, uid: uid, key: key)
        }
        guard let value = try scalarValue(n, key: key) else {
            throw fail(.typeMismatch, "expected a Foundation value, found \(session.kindName(n))", key, uid: uid)
        }
        switch value {
        case .string(let s):
            try session.countBytes(s.utf8.count, key: pathKey(key))
            return .string(s)
        case .integer(let i): return .integer(i)
        case .real(let d): return .real(d)
        case .float(let f): return .real(Double(f))
        case .bool(let b): return .bool(b)
        case .date(let d): return .date(d)
        case .data(let d):
            try session.countBytes(d.count, key: pathKey(key))
            return .data(d)
        case .array, .set, .uid, .dictionary:
            throw fail(.typeMismatch, "expected a Foundation value, found an inline \(value.kindName)", key, uid: uid)
        }
    }

    private func foundationObject(_ value: Int, uid: ArchiveObjectID?, key: String) throws -> FoundationValue {
        guard let uid, let (_, archivedClass) = try session.objectDictionary(uid, key: pathKey(key)) else {
            throw fail(.typeMismatch, "expected a Foundation value, found an inline dictionary", key)
        }
        switch FoundationClassCatalogue.standard.entry(named: archivedClass.name)?.family {
        case .string?: return .string(try string(value, uid: uid, key: key))
        case .data?: return .data(try data(value, uid: uid, key: key))
        case .date?: return .date(try date(value, uid: uid, key: key))
        case .uuid?: return .uuid(try uuid(value, uid: uid, key: key))
        case .url?: return .url(try url(value, uid: uid, key: key))
        case .null?:
            try session.enter(uid: uid, className: archivedClass.name, key: pathKey(key))
            session.leave(uid: uid, decoded: false)
            return .null
        case .array?:
            return .array(try decodeArray(of: FoundationValue.self, forKey: key))
        case .orderedSet?:
            return .orderedSet(try decodeArray(of: FoundationValue.self, forKey: key))
        case .set?:
            // An NSSet holds each member once (its initWithCoder: adds the archived members in turn), so a
            // repeated member collapses into the first, as ``KeyedArchiver`` writes a set's members.
            let members = try decodeElements(of: FoundationValue.self, forKey: key, names: Self.setClasses,
                                             expected: "a set")
            var seen = Set<FoundationValue>(minimumCapacity: members.count)
            return .set(members.filter { seen.insert($0).inserted })
        case .dictionary?:
            return .dictionary(try decodeDictionary(keyType: FoundationValue.self, valueType: FoundationValue.self,
                                                    forKey: key))
        case .archivable(let type)?:
            // A catalogued value type (NSIndexSet, NSColor, ...): read by that type alone, then held by `.catalogued`.
            let value = try decodeObject(ofTypes: [type], forKey: key)
            guard let wrapped = FoundationValue(cataloguedValue: value) else {
                throw fail(.classNotAllowed, "class \"\(archivedClass.name)\" is read by a type that is not a CataloguedValue", key, uid: uid,
                           className: archivedClass.name)
            }
            return wrapped
        default:
            throw fail(.classNotAllowed,
                       "class \"\(archivedClass.name)\" is not allowed here; expected a Foundation value class "
                        + "(\(Catalogue.foundationValueClassList))",
                       key, uid: uid, className: archivedClass.name)
        }
    }
}

// Reserved keys (`$0`, `$1`, ...): Apple's archiver writes the values an object encodes without a key
// (`encodeValue(ofObjCType:at:)`, as NSValue and `_NSKeyedCoderOldStyleArray` do) under these, unescaped,
// where `decode(_:forKey:)` reads `$`-keys escaped (`$$0`). ArchivedSpecialValue reads them through these.
extension ArchiveObjectDecoder {
    /// The value stored under exactly the key `name` (not escaped) in this object's fields; nil when absent
    /// or for an element decoder.
    func storedValue(reservedKey name: String) throws -> Int? {
        try session.checkActive()
        guard let fields else { return nil }
        if let table = session.keyTable(for: fields) {
            return try table.position(ofStoredKey: name).map { try session.value(at: $0, of: fields, key: pathKey(name), uid: uid) }
        }
        return try session.lookup(fields, name, key: pathKey(name), uid: uid)
    }

    /// The scalar value (string, number, ...) under the reserved key `name`, inline or one UID away; nil when
    /// the key is absent.
    /// - Throws: ``KeyedArchiveError/Code/typeMismatch`` when it is an object or a collection.
    func scalarValue(reservedKey name: String, expected: String) throws -> PropertyListValue? {
        guard let stored = try storedValue(reservedKey: name) else { return nil }
        let (n, uid) = try session.target(of: stored, key: pathKey(name), expected: expected)
        guard session.storage.kind(n) == .scalar, let value = try scalarValue(n, key: name) else {
            throw fail(.typeMismatch, "expected \(expected), found \(found(n, uid: uid))", name, uid: uid)
        }
        return value
    }

    /// The object of type `T` under the reserved key `name` (a UID), decoded as `decodeObject(of:forKey:)`
    /// decodes one: allow-list, cycle, depth and count checks included.
    func object<T: KeyedArchivable>(of type: T.Type, reservedKey name: String) throws -> T {
        guard let stored = try storedValue(reservedKey: name) else {
            throw fail(.keyNotFound, "key \"\(name)\" not found in object of class \(className ?? "?")", name)
        }
        let allowed = session.allowedList(T.self)
        let made = try session.instance(stored, allowed: allowed, key: pathKey(name), expected: UnarchivingSession.describe(allowed))
        return try cast(made, to: T.self, key: name)
    }
}
