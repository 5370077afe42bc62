#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The ``ArchiveDecoder`` handed to `init(from:)`: the fields of one archived object, or (element mode)
/// one element of an array, set or dictionary, which answers every key with that element.
///
/// Values are property-list object numbers in the archive's bytes (see ``ArchiveStorage``), read when a
/// field asks for them.
final class ArchiveObjectDecoder: ArchiveDecoder {
    let session: UnarchivingSession
    private let fields: ArchiveFields?
    /// The element an element-mode decoder answers with; a collection reuses one decoder for all its elements.
    @exclusivity(unchecked) private var element: Int
    private let uid: Int
    private let className: String?
    /// The decoded keys of `fields`, when the session could share them (see ``UnarchivingSession/KeyTable``).
    private let keyTable: UnarchivingSession.KeyTable?
    /// Where the last key was found: fields are usually read in the order they were written.
    @exclusivity(unchecked) private var cursor = -1

    /// A decoder for the fields of an object (`uid` -1 for the `$top` dictionary).
    init(session: UnarchivingSession, fields: ArchiveFields, uid: Int, className: String?,
         keyTable: UnarchivingSession.KeyTable? = nil) {
        self.session = session
        self.fields = fields
        self.element = -1
        self.uid = uid
        self.className = className
        self.keyTable = keyTable
    }

    /// A decoder for one collection element (the object holding its UID).
    init(session: UnarchivingSession, element: Int) {
        self.session = session
        self.fields = nil
        self.element = element
        self.uid = -1
        self.className = nil
        self.keyTable = nil
    }

    var keyPath: String { session.pathString() }

    // MARK: Access

    @inline(__always)
    private func escaped(_ key: String) -> String {
        key.utf8.first == UInt8(ascii: "$") ? "$" + key : key
    }

    /// The value stored under `key` (escaped as the archiver escapes it), or nil.
    @inline(__always)
    private func stored(_ fields: ArchiveFields, _ key: String) throws -> Int? {
        guard let keyTable else {
            return try session.lookup(fields, escaped(key), key: pathKey(key), uid: uid)
        }
        guard let i = keyTable.position(ofModelKey: key, after: cursor) else { return nil }
        cursor = i
        return try session.value(at: i, of: fields, key: pathKey(key), uid: uid)
    }

    /// The key as it appears in paths: none for an element (the container already put its index there).
    @inline(__always)
    private func pathKey(_ key: String) -> String? { fields == nil ? nil : key }

    private func raw(_ key: String) throws -> Int {
        try session.checkActive()
        guard let fields else { return element }
        guard let value = try stored(fields, key) else {
            let owner = uid < 0 ? "$top" : "object of class \(className ?? "?")"
            throw fail(.keyNotFound, "key \"\(key)\" not found in \(owner)", key)
        }
        return value
    }

    private func fail(_ code: KeyedArchiveError.Code, _ message: String, _ key: String, uid: Int? = nil,
                      className: String? = nil) -> KeyedArchiveError {
        session.error(code, message, key: pathKey(key), uid: uid ?? (self.uid >= 0 ? self.uid : nil),
                      className: className ?? self.className)
    }

    /// A short description of what was found, for type mismatches.
    private func found(_ value: Int, uid: Int?) -> String {
        if let uid, session.storage.kind(value) == .dictionary,
           let (_, archivedClass) = try? session.objectDictionary(uid, key: nil) {
            return "an object of class \(archivedClass.name)"
        }
        let preview = session.preview(value)
        return "\(session.kindName(value))\(preview.isEmpty ? "" : " " + preview)"
    }

    /// The object stored under `key`, following one UID, and that UID.
    private func scalar(_ key: String, expected: @autoclosure () -> String) throws -> (Int, Int?) {
        try session.target(of: raw(key), key: pathKey(key), expected: expected())
    }

    /// The value of `n` when it is a plain scalar (no container, no UID).
    @inline(__always)
    private func plain(_ n: Int, key: String) throws -> PropertyListValue? {
        try session.scalar(n, key: pathKey(key), uid: uid)
    }

    /// The Foundation object under `key`: a dictionary whose class is one of `names`.
    private func builtin(_ value: Int, uid: Int?, key: String, names: [String], expected: String)
        throws -> (Int, ArchiveFields, ArchivedClass)
    {
        guard let uid, session.storage.kind(value) == .dictionary,
              let (dict, archivedClass) = try session.objectDictionary(uid, key: pathKey(key)) else {
            throw fail(.typeMismatch, "expected \(expected), found \(found(value, uid: uid))", key, uid: uid)
        }
        guard names.contains(archivedClass.name) else {
            throw fail(.classNotAllowed, "class \"\(archivedClass.name)\" is not allowed here; expected \(expected) (\(names.joined(separator: ", ")))",
                       key, uid: uid, className: archivedClass.name)
        }
        return (uid, dict, archivedClass)
    }

    /// A member of a Foundation object: inline, or one UID away.
    private func member(_ dict: ArchiveFields, _ name: String, of uid: Int, className: String, key: String)
        throws -> Int
    {
        let found: Int?
        if let table = session.keyTable(for: dict) {
            found = try table.position(ofStoredKey: name).map { try session.value(at: $0, of: dict, key: pathKey(key), uid: uid) }
        } else {
            found = try session.lookup(dict, name, key: pathKey(key), uid: uid)
        }
        guard let value = found else {
            throw fail(.dataCorrupted, "\(className) object has no \(name)", key, uid: uid, className: className)
        }
        if let ref = try session.uid(value, key: pathKey(key)) {
            guard ref != 0, ref < UInt64(session.objectCount) else {
                throw fail(.invalidReference, "\(className).\(name) is UID \(ref), which is nil or out of range",
                           key, uid: uid, className: className)
            }
            return try session.object(Int(ref), key: pathKey(key))
        }
        return value
    }

    /// The plain value of a member (see ``member(_:_:of:className:key:)``), or nil when it is an object.
    private func memberValue(_ dict: ArchiveFields, _ name: String, of uid: Int, className: String, key: String)
        throws -> (Int, PropertyListValue?)
    {
        let n = try member(dict, name, of: uid, className: className, key: key)
        return (n, try plain(n, key: key))
    }

    // MARK: ArchiveDecoder: presence

    func containsValue(forKey key: String) -> Bool {
        // A decoder kept past its unarchive answers "absent": the archive's bytes are gone.
        guard session.isActive else { return false }
        guard let fields else { return true }
        // A damaged key table answers "absent"; reading the field then throws the damage.
        return ((try? stored(fields, key)) ?? nil) != nil
    }

    func decodeNil(forKey key: String) throws -> Bool {
        try session.checkActive()
        let value: Int?
        if let fields { value = try stored(fields, key) } else { value = element }
        guard let value else { return true }
        if let ref = try session.uid(value, key: pathKey(key)) { return ref == 0 }
        return false
    }

    // MARK: Numbers

    func decode(_ type: Bool.Type, forKey key: String) throws -> Bool {
        let (n, uid) = try scalar(key, expected: "Bool")
        switch try plain(n, key: key) {
        case .bool(let b)?: return b
        case .integer(let i)?: return i != 0
        default: throw fail(.typeMismatch, "expected Bool, found \(found(n, uid: uid))", key)
        }
    }

    func decodeInteger<T: FixedWidthInteger>(_ type: T.Type, forKey key: String) throws -> T {
        // This generic requirement is reached through an existential and runs unspecialized: the common
        // widths take a path that touches no generic type but T itself (an Optional<T> would make the
        // runtime look up its metadata on every call), the rest the general conversion.
        if T.self == Int.self {
            if let v = try plainInt64(forKey: key, expected: "Int") { return unsafeBitCast(Int(v), to: T.self) }
        } else if T.self == Int64.self {
            if let v = try plainInt64(forKey: key, expected: "Int64") { return unsafeBitCast(v, to: T.self) }
        }
        return try convertedInteger(T.self, forKey: key)
    }

    /// The integer stored under `key` when it is a plain integer that fits in Int64; nil sends the caller
    /// to the general conversion (which reports what is wrong).
    @inline(__always)
    private func plainInt64(forKey key: String, expected: StaticString) throws -> Int64? {
        let (n, _) = try scalar(key, expected: "\(expected)")
        if case .integer(let i)? = try plain(n, key: key) { return i.int64Value }
        return nil
    }

    @inline(never)
    private func convertedInteger<T: FixedWidthInteger>(_ type: T.Type, forKey key: String) throws -> T {
        let (n, uid) = try scalar(key, expected: "\(T.self)")
        guard let value = try plain(n, key: key) else {
            throw fail(.typeMismatch, "expected \(T.self), found \(found(n, uid: uid))", key)
        }
        switch value {
        case .integer(let i):
            guard let result = i.exactly(T.self) else {
                throw fail(.numberOutOfRange, "\(i) does not fit in \(T.self)", key)
            }
            return result
        case .bool(let b):
            return b ? 1 : 0
        case .real(let d):
            return try integer(fromReal: d, T.self, key: key)
        case .float(let f):
            return try integer(fromReal: Double(f), T.self, key: key)
        default:
            throw fail(.typeMismatch, "expected \(T.self), found \(found(n, uid: uid))", key)
        }
    }

    private func integer<T: FixedWidthInteger>(fromReal d: Double, _ type: T.Type, key: String) throws -> T {
        guard d.isFinite, d.rounded(.towardZero) == d else {
            throw fail(.typeMismatch, "expected \(T.self), found the non-integral real \(d)", key)
        }
        guard let result = T(exactly: d) else {
            throw fail(.numberOutOfRange, "\(d) does not fit in \(T.self)", key)
        }
        return result
    }

    func decode(_ type: Float.Type, forKey key: String) throws -> Float {
        let (n, uid) = try scalar(key, expected: "Float")
        guard let value = try plain(n, key: key) else {
            throw fail(.typeMismatch, "expected Float, found \(found(n, uid: uid))", key)
        }
        switch value {
        case .float(let f): return f
        case .real(let d): return Float(d)
        case .integer(let i): return i.int64Value.map(Float.init) ?? Float(i.uint64Value ?? 0)
        default: throw fail(.typeMismatch, "expected Float, found \(found(n, uid: uid))", key)
        }
    }

    func decode(_ type: Double.Type, forKey key: String) throws -> Double {
        let (n, uid) = try scalar(key, expected: "Double")
        guard let value = try plain(n, key: key) else {
            throw fail(.typeMismatch, "expected Double, found \(found(n, uid: uid))", key)
        }
        switch value {
        case .real(let d): return d
        case .float(let f): return Double(f)
        case .integer(let i): return i.int64Value.map(Double.init) ?? Double(i.uint64Value ?? 0)
        default: throw fail(.typeMismatch, "expected Double, found \(found(n, uid: uid))", key)
        }
    }

    // MARK: Strings, data, dates, UUIDs, URLs

    func decode(_ type: String.Type, forKey key: String) throws -> String {
        let (value, uid) = try scalar(key, expected: "String")
        return try string(value, uid: uid, key: key)
    }

    private func string(_ value: Int, uid: Int?, key: String) throws -> String {
        if case .string(let s)? = try plain(value, key: key) {
            try session.countBytes(s.utf8.count, key: pathKey(key))
            return s
        }
        let (objectUID, dict, cls) = try builtin(value, uid: uid, key: key, names: Catalogue.stringNames,
                                                 expected: "String")
        let (inner, innerValue) = try memberValue(dict, Catalogue.stringKey, of: objectUID, className: cls.name, key: key)
        guard case .string(let s)? = innerValue else {
            throw fail(.typeMismatch, "\(cls.name).\(Catalogue.stringKey) must be a string, found \(session.kindName(inner))", key,
                       uid: objectUID, className: cls.name)
        }
        try session.countBytes(s.utf8.count, key: pathKey(key))
        return s
    }

    func decode(_ type: Data.Type, forKey key: String) throws -> Data {
        let (value, uid) = try scalar(key, expected: "Data")
        return try data(value, uid: uid, key: key)
    }

    private func data(_ value: Int, uid: Int?, key: String) throws -> Data {
        if case .data(let d)? = try plain(value, key: key) {
            try session.countBytes(d.count, key: pathKey(key))
            return d
        }
        let (objectUID, dict, cls) = try builtin(value, uid: uid, key: key, names: Catalogue.dataNames,
                                                 expected: "Data")
        let (inner, innerValue) = try memberValue(dict, Catalogue.dataKey, of: objectUID, className: cls.name, key: key)
        guard case .data(let d)? = innerValue else {
            throw fail(.typeMismatch, "\(cls.name).\(Catalogue.dataKey) must be data, found \(session.kindName(inner))", key,
                       uid: objectUID, className: cls.name)
        }
        try session.countBytes(d.count, key: pathKey(key))
        return d
    }

    func decode(_ type: Date.Type, forKey key: String) throws -> Date {
        let (value, uid) = try scalar(key, expected: "Date")
        return try date(value, uid: uid, key: key)
    }

    private func date(_ value: Int, uid: Int?, key: String) throws -> Date {
        if case .date(let d)? = try plain(value, key: key) { return d }
        let (objectUID, dict, cls) = try builtin(value, uid: uid, key: key, names: Catalogue.dateNames, expected: "Date")
        let (inner, innerValue) = try memberValue(dict, Catalogue.timeKey, of: objectUID, className: cls.name, key: key)
        switch innerValue {
        case .real(let t)?: return Date(timeIntervalSinceReferenceDate: t)
        case .float(let t)?: return Date(timeIntervalSinceReferenceDate: Double(t))
        case .integer(let i)?: return Date(timeIntervalSinceReferenceDate: i.int64Value.map(Double.init) ?? Double(i.uint64Value ?? 0))
        default:
            throw fail(.typeMismatch, "\(cls.name).\(Catalogue.timeKey) must be a number, found \(session.kindName(inner))", key,
                       uid: objectUID, className: cls.name)
        }
    }

    func decode(_ type: UUID.Type, forKey key: String) throws -> UUID {
        let (value, uid) = try scalar(key, expected: "UUID")
        return try uuid(value, uid: uid, key: key)
    }

    private func uuid(_ value: Int, uid: Int?, key: String) throws -> UUID {
        let (objectUID, dict, cls) = try builtin(value, uid: uid, key: key, names: Catalogue.uuidNames, expected: "UUID")
        guard case .data(let bytes)? = try memberValue(dict, Catalogue.uuidBytesKey, of: objectUID, className: cls.name, key: key).1,
              bytes.count == 16 else {
            throw fail(.dataCorrupted, "\(cls.name).\(Catalogue.uuidBytesKey) must be 16 bytes of data", key, uid: objectUID, className: cls.name)
        }
        let b = [UInt8](bytes)
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                           b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    func decode(_ type: URL.Type, forKey key: String) throws -> URL {
        let (value, uid) = try scalar(key, expected: "URL")
        return try url(value, uid: uid, key: key)
    }

    private func url(_ value: Int, uid: Int?, key: String) throws -> URL {
        let (objectUID, dict, cls) = try builtin(value, uid: uid, key: key, names: Catalogue.urlNames, expected: "URL")
        let relativeValue = try member(dict, Catalogue.relativeKey, of: objectUID, className: cls.name, key: key)
        var relativeUID: Int?
        if let r = try session.lookup(dict, Catalogue.relativeKey, key: pathKey(key), uid: objectUID),
           let ref = try session.uid(r, key: pathKey(key)) {
            relativeUID = Int(ref)
        }
        let relative = try string(relativeValue, uid: relativeUID, key: key)
        var base: URL?
        if let baseRef = try session.lookup(dict, Catalogue.baseKey, key: pathKey(key), uid: objectUID),
           try session.uid(baseRef, key: pathKey(key)) != 0 {
            let (baseValue, baseUID) = try session.target(of: baseRef, key: pathKey(key), expected: "URL")
            try session.enter(uid: objectUID, className: cls.name, key: pathKey(key))
            defer { session.leave(uid: objectUID, decoded: false) }
            base = try url(baseValue, uid: baseUID, key: key)
        }
        guard let result = URL(string: relative, relativeTo: base) else {
            throw fail(.dataCorrupted, "\(cls.name).\(Catalogue.relativeKey) \"\(relative.prefix(80))\" is not a valid URL", key,
                       uid: objectUID, className: cls.name)
        }
        return result
    }

    // MARK: Objects

    func decodeObject<T: KeyedArchivable>(of type: T.Type, forKey key: String) throws -> T {
        let value = try raw(key)
        // An object whose class is exactly T is handed over as a plain reference; anything else (a struct,
        // a registered subclass) goes through a checked cast.
        if let shared = session.sharedObject(value, of: T.self) { return unsafeBitCast(shared, to: T.self) }
        let allowed = session.allowedList(T.self)
        let made = try session.instance(value, allowed: allowed, key: pathKey(key),
                                        expected: UnarchivingSession.describe(allowed))
        if let (_, object) = session.decodedInstance(value, of: T.self) { return unsafeBitCast(object, to: T.self) }
        return try cast(made, to: T.self, key: key)
    }

    @inline(never)
    private func cast<T>(_ made: Any, to type: T.Type, key: String) throws -> T {
        guard let typed = made as? T else {
            throw fail(.typeMismatch, "object is a \(Swift.type(of: made)), not a \(T.self)", key)
        }
        return typed
    }

    func decodeObject(ofTypes types: [any KeyedArchivable.Type], forKey key: String) throws -> any KeyedArchivable {
        let value = try raw(key)
        let made = try session.instance(value, allowed: types, key: pathKey(key),
                                        expected: UnarchivingSession.describe(types))
        guard let typed = made as? any KeyedArchivable else {
            throw fail(.typeMismatch, "object is a \(Swift.type(of: made)), not archivable", key)
        }
        return typed
    }

    func decodeObjectReference<T: KeyedArchivable & AnyObject>(of type: T.Type, forKey key: String,
                                                               assign: @escaping (T?) -> Void) throws {
        try session.checkActive()
        let found: Int?
        if let fields { found = try stored(fields, key) } else { found = element }
        guard let value = found, try session.uid(value, key: pathKey(key)) != 0 else {
            session.deferAssignment { assign(nil) }
            return
        }
        let allowed: [any KeyedArchivable.Type] = [T.self]
        let (uid, _, archivedClass, _) = try session.checkedObject(value, allowed: allowed, key: pathKey(key),
                                                                expected: UnarchivingSession.describe(allowed))
        _ = try session.allowedType(archivedClass, uid: uid, allowed: allowed, key: pathKey(key),
                                    expected: UnarchivingSession.describe(allowed))
        if session.state[uid] == 0 {
            _ = try session.instance(value, allowed: allowed, key: pathKey(key), expected: UnarchivingSession.describe(allowed))
        }
        let path = session.path
        let fieldKey = pathKey(key)
        let className = archivedClass.name
        session.deferAssignment { [session] in
            guard let object = session.cached(uid) as? T else {
                throw session.error(.typeMismatch, "object #\(uid) is not a \(T.self)", path: path, key: fieldKey, uid: uid,
                                    className: className)
            }
            assign(object)
        }
    }

    // MARK: Collections

    /// The `$objects` entry of a collection under `key`, whose class must be one of `names`.
    private func collection(_ key: String, names: [String], expected: @autoclosure () -> String)
        throws -> (Int, ArchiveFields, ArchivedClass)
    {
        let (value, uid) = try scalar(key, expected: expected())
        return try builtin(value, uid: uid, key: key, names: names, expected: expected())
    }

    /// The element references of an array, set or ordered set: `NS.objects` (an array of UIDs) or one UID
    /// member per element, `NS.object.0`, `NS.object.1`, ... in any stored order (Apple's ordered-set
    /// layout; also accepted for arrays and sets). Indices with a gap are rejected, not read as a shorter
    /// list; a key stored twice counts once (its last value), as the raw model reads it. `member` names the array-of-UIDs member to read (`NS.keys` for dictionary keys).
    private func elements(_ dict: ArchiveFields, _ uid: Int, _ cls: ArchivedClass, key: String,
                          member name: String = Catalogue.elementArrayKey) throws -> [Int] {
        if let list = try session.lookup(dict, name, key: pathKey(key), uid: uid) {
            guard let refs = try session.arrayElements(list, key: pathKey(key), uid: uid) else {
                throw fail(.dataCorrupted, "\(cls.name).\(name) must be an array of UIDs, found \(session.kindName(list))", key,
                           uid: uid, className: cls.name)
            }
            for (i, ref) in refs.enumerated() where try session.uid(ref, key: pathKey(key)) == nil {
                throw fail(.invalidReference, "\(cls.name).\(name)[\(i)] must be a UID, found \(session.kindName(ref))", key,
                           uid: uid, className: cls.name)
            }
            return refs
        }
        guard name == Catalogue.elementArrayKey else {
            throw fail(.dataCorrupted, "\(cls.name) has no \(name)", key, uid: uid, className: cls.name)
        }
        // One member per element. Most objects have none (an empty collection written without members).
        guard dict.count > 1 else { return [] }
        let prefix = Catalogue.elementPerIndexPrefix
        guard let keys = session.storage.shortKeys(dict, maximumLength: 1 << 16) else {
            throw fail(.dataCorrupted, "\(cls.name) has a member key that is not a string", key, uid: uid, className: cls.name)
        }
        guard keys.contains(where: { $0.hasPrefix(prefix) }) else { return [] }
        guard let positions = FoundationClassCatalogue.indexedElementPositions(keys: keys) else {
            throw fail(.dataCorrupted, "\(cls.name)'s \(prefix)<index> members must be numbered 0, 1, 2, ... without a gap",
                       key, uid: uid, className: cls.name)
        }
        var refs: [Int] = []
        refs.reserveCapacity(positions.count)
        for (i, position) in positions.enumerated() {
            let ref = try session.value(at: position, of: dict, key: pathKey(key), uid: uid)
            guard try session.uid(ref, key: pathKey(key)) != nil else {
                throw fail(.invalidReference, "\(cls.name).\(prefix)\(i) must be a UID, found \(session.kindName(ref))", key,
                           uid: uid, className: cls.name)
            }
            refs.append(ref)
        }
        return refs
    }

    private func withEntered<R>(_ uid: Int, _ cls: ArchivedClass, key: String, _ body: () throws -> R) throws -> R {
        try session.enter(uid: uid, className: cls.name, key: pathKey(key))
        if let k = pathKey(key) { session.push(.key(k)) }
        defer {
            if pathKey(key) != nil { session.pop() }
            session.leave(uid: uid, decoded: false)
        }
        return try body()
    }

    /// Decodes one element with `decoder` (an element-mode decoder the collection reuses).
    private func decodeElement<T: ArchiveValue>(_ ref: Int, at component: ArchivePathComponent,
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

    private func decodeElements<T: ArchiveValue>(of type: T.Type, forKey key: String, names: [String],
                                                  expected: @autoclosure () -> String) throws -> [T] {
        let (uid, dict, cls) = try collection(key, names: names, expected: expected())
        let refs = try elements(dict, uid, cls, key: key)
        try session.countElements(refs.count, key: pathKey(key), uid: uid, className: cls.name)
        return try withEntered(uid, cls, key: key) {
            var result: [T] = []
            result.reserveCapacity(refs.count)
            let decoder = ArchiveObjectDecoder(session: session, element: 0)
            for (i, ref) in refs.enumerated() { result.append(try decodeElement(ref, at: .index(i), with: decoder)) }
            return result
        }
    }

    func decodeSet<T: ArchiveValue & Hashable>(of type: T.Type, forKey key: String) throws -> Set<T> {
        let (uid, dict, cls) = try collection(key, names: Self.setClasses, expected: "a set of \(T.self)")
        let refs = try elements(dict, uid, cls, key: key)
        try session.countElements(refs.count, key: pathKey(key), uid: uid, className: cls.name)
        return try withEntered(uid, cls, key: key) {
            var result = Set<T>(minimumCapacity: refs.count)
            let decoder = ArchiveObjectDecoder(session: session, element: 0)
            for (i, ref) in refs.enumerated() { result.insert(try decodeElement(ref, at: .index(i), with: decoder)) }
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
            throw fail(.dataCorrupted, "\(cls.name).\(Catalogue.dictionaryKeysKey) has \(keys.count) entries but \(Catalogue.elementArrayKey) has \(values.count)",
                       key, uid: uid, className: cls.name)
        }
        try session.countElements(keys.count, key: pathKey(key), uid: uid, className: cls.name)
        return try withEntered(uid, cls, key: key) {
            var result = [K: V](minimumCapacity: keys.count)
            let decoder = ArchiveObjectDecoder(session: session, element: 0)
            for i in keys.indices {
                let k: K = try decodeElement(keys[i], at: .dictionaryKey(i), with: decoder)
                result[k] = try decodeElement(values[i], at: .index(i), with: decoder) as V
            }
            return result
        }
    }
}


// MARK: - Foundation values

extension ArchiveObjectDecoder {
    func decodeFoundationValue(forKey key: String) throws -> FoundationValue {
        let (n, uid) = try scalar(key, expected: "a Foundation value")
        switch session.storage.kind(n) {
        case .scalar:
            break
        case .array, .set, .uid:
            throw fail(.typeMismatch, "expected a Foundation value, found an inline \(session.kindName(n))", key, uid: uid)
        case .dictionary:
            return try foundationObject(n, uid: uid, key: key)
        }
        guard let value = try plain(n, key: key) else {
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

    private func foundationObject(_ value: Int, uid: Int?, key: String) throws -> FoundationValue {
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
            // A catalogued value type (NSIndexSet, NSColor, ...): read by that type alone, then wrapped in its case.
            let value = try decodeObject(ofTypes: [type], forKey: key)
            guard let wrapped = FoundationValue(cataloguedValue: value) else {
                throw fail(.classNotAllowed, "class \"\(archivedClass.name)\" has no FoundationValue case", key, uid: uid,
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

/// The catalogue's names and keys the decoder reads, resolved once.
private enum Catalogue {
    static let stringNames = FoundationClassCatalogue.string.names
    static let stringKey = FoundationClassCatalogue.string.key(.string)
    static let dataNames = FoundationClassCatalogue.data.names
    static let dataKey = FoundationClassCatalogue.data.key(.bytes)
    static let dateNames = FoundationClassCatalogue.date.names
    static let timeKey = FoundationClassCatalogue.date.key(.time)
    static let uuidNames = FoundationClassCatalogue.uuid.names
    static let uuidBytesKey = FoundationClassCatalogue.uuid.key(.uuidBytes)
    static let urlNames = FoundationClassCatalogue.url.names
    static let relativeKey = FoundationClassCatalogue.url.key(.relative)
    static let baseKey = FoundationClassCatalogue.url.key(.base)
    static let dictionaryKeysKey = FoundationClassCatalogue.dictionary.key(.keys)
    static let elementArrayKey = FoundationClassCatalogue.elementArrayKey
    static let elementPerIndexPrefix = FoundationClassCatalogue.elementPerIndexPrefix
    /// The classes ``FoundationValue`` reads, for messages.
    static let foundationValueClassList: String = {
        typealias C = FoundationClassCatalogue
        let entries = [C.string, C.number, C.data, C.date, C.uuid, C.url, C.null, C.array, C.orderedSet, C.set, C.dictionary]
            + C.valueTypes
        return entries.map(\.name).joined(separator: ", ")
    }()
}

// MARK: - Heterogeneous values

extension ArchiveObjectDecoder {
    func storedClassName(forKey key: String) throws -> String? {
        try session.checkActive()
        let found: Int?
        if let fields { found = try stored(fields, key) } else { found = element }
        guard let value = found else { return nil }
        if let ref = try session.uid(value, key: pathKey(key)), ref == 0 { return nil }
        let (n, uid) = try session.target(of: value, key: pathKey(key), expected: "a value")
        switch session.storage.kind(n) {
        case .dictionary:
            guard let uid, let (_, archivedClass) = try session.objectDictionary(uid, key: pathKey(key)) else { return nil }
            return archivedClass.name
        case .array, .set, .uid:
            return nil
        case .scalar:
            switch try plain(n, key: key) {
            case .string?: return FoundationClassCatalogue.string.name
            case .data?: return FoundationClassCatalogue.data.name
            case .date?: return FoundationClassCatalogue.date.name
            case .integer?, .real?, .float?, .bool?: return FoundationClassCatalogue.number.name
            default: return nil
            }
        }
    }

    func decodeNumber(forKey key: String) throws -> ArchivedNumber {
        let (n, uid) = try scalar(key, expected: "a number")
        switch try plain(n, key: key) {
        case .bool(let b)?: return .bool(b)
        case .integer(let i)?: return .integer(i)
        case .float(let f)?: return .float(f)
        case .real(let d)?: return .double(d)
        default: throw fail(.typeMismatch, "expected a number, found \(found(n, uid: uid))", key)
        }
    }

    func decodeValue(ofAnyOf types: [any ArchiveValue.Type], forKey key: String) throws -> any ArchiveValue {
        try heterogeneousValue(ofAnyOf: types, forKey: key) { [session] type in
            // The type's names, and names the caller registered for it or a subclass of it.
            func registered<A: KeyedArchivable>(_ allowed: A.Type) -> [String] {
                session.registry.compactMap { $0.value is A.Type ? $0.key : nil }
            }
            return session.names(of: type) + registered(type)
        }
    }

    func decodeArray(ofAnyOf types: [any ArchiveValue.Type], forKey key: String) throws -> [any ArchiveValue] {
        let (uid, dict, cls) = try collection(key, names: Self.arrayClasses, expected: "an array")
        let refs = try elements(dict, uid, cls, key: key)
        try session.countElements(refs.count, key: pathKey(key), uid: uid, className: cls.name)
        return try withEntered(uid, cls, key: key) {
            var result: [any ArchiveValue] = []
            result.reserveCapacity(refs.count)
            let decoder = ArchiveObjectDecoder(session: session, element: 0)
            for (i, ref) in refs.enumerated() {
                session.push(.index(i))
                defer { session.pop() }
                decoder.element = ref
                result.append(try decoder.decodeValue(ofAnyOf: types, forKey: ""))
            }
            return result
        }
    }

    func decodeDictionary<K: ArchiveValue & Hashable>(keyType: K.Type, valuesOfAnyOf types: [any ArchiveValue.Type],
                                                      forKey key: String) throws -> [K: any ArchiveValue] {
        let (uid, dict, cls) = try collection(key, names: Self.dictionaryClasses, expected: "a dictionary of \(K.self)")
        let keys = try elements(dict, uid, cls, key: key, member: Catalogue.dictionaryKeysKey)
        let values = try elements(dict, uid, cls, key: key, member: Catalogue.elementArrayKey)
        guard keys.count == values.count else {
            throw fail(.dataCorrupted, "\(cls.name).\(Catalogue.dictionaryKeysKey) has \(keys.count) entries but \(Catalogue.elementArrayKey) has \(values.count)",
                       key, uid: uid, className: cls.name)
        }
        try session.countElements(keys.count, key: pathKey(key), uid: uid, className: cls.name)
        return try withEntered(uid, cls, key: key) {
            var result = [K: any ArchiveValue](minimumCapacity: keys.count)
            let decoder = ArchiveObjectDecoder(session: session, element: 0)
            for i in keys.indices {
                let k: K = try decodeElement(keys[i], at: .dictionaryKey(i), with: decoder)
                session.push(.index(i))
                defer { session.pop() }
                decoder.element = values[i]
                result[k] = try decoder.decodeValue(ofAnyOf: types, forKey: "")
            }
            return result
        }
    }
}

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
    private let uid: Int
    private let pushedKey: Bool
    private let keyRefs: [Int]
    private let valueRefs: [Int]
    private var closed = false

    /// The number of elements (entries for a dictionary).
    var count: Int { valueRefs.count }

    fileprivate init(session: UnarchivingSession, uid: Int, pushedKey: Bool, keys: [Int], values: [Int]) {
        self.session = session
        self.uid = uid
        self.pushedKey = pushedKey
        self.keyRefs = keys
        self.valueRefs = values
    }

    /// Reads element `i` (or the value of dictionary entry `i`) with a decoder that answers every key with it.
    func decodeElement<R>(at i: Int, _ body: (any ArchiveDecoder) throws -> R) throws -> R {
        try decode(valueRefs[i], at: .index(i), body)
    }

    /// Reads the key of dictionary entry `i`.
    func decodeKey<R>(at i: Int, _ body: (any ArchiveDecoder) throws -> R) throws -> R {
        try decode(keyRefs[i], at: .dictionaryKey(i), body)
    }

    private func decode<R>(_ ref: Int, at component: ArchivePathComponent, _ body: (any ArchiveDecoder) throws -> R) throws -> R {
        try session.checkActive()
        session.push(component)
        defer { session.pop() }
        return try body(ArchiveObjectDecoder(session: session, element: ref))
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
        guard let (_, archivedClass) = try session.objectDictionary(Int(ref), key: pathKey(key)) else { return .scalar }
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
                throw fail(.dataCorrupted, "\(cls.name).NS.keys has \(keys.count) entries but NS.objects has \(values.count)",
                           key, uid: uid, className: cls.name)
            }
        }
        try session.countElements(values.count, key: pathKey(key), uid: uid, className: cls.name)
        try session.enter(uid: uid, className: cls.name, key: pathKey(key))
        let k = pathKey(key)
        if let k { session.push(.key(k)) }
        return ArchiveCollectionCursor(session: session, uid: uid, pushedKey: k != nil, keys: keys, values: values)
    }
}
