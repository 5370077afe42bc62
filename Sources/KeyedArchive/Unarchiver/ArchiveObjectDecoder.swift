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
    // The object a decoder reads is set once, except when the session reuses a decoder that nothing else
    // holds for its next object (``reuse(fields:uid:className:keyTable:)``).
    @exclusivity(unchecked) private(set) var fields: ArchiveFields?
    /// The element an element-mode decoder answers with; a collection reuses one decoder for all its elements.
    @exclusivity(unchecked) var element: Int
    /// The object whose fields this decoder reads; nil for `$top` and for an element.
    @exclusivity(unchecked) private(set) var uid: ArchiveObjectID?
    @exclusivity(unchecked) private(set) var className: String?
    /// The decoded keys of `fields`, when the session could share them (see ``UnarchivingSession/KeyTable``).
    @exclusivity(unchecked) private(set) var keyTable: UnarchivingSession.KeyTable?
    /// Where the last key was found: fields are usually read in the order they were written.
    @exclusivity(unchecked) var cursor = -1
    /// The ``cursor`` at which the entries ahead were last warmed (``UnarchivingSession/warm(valuesOf:from:)``).
    @exclusivity(unchecked) var warmedAt = -1

    /// A decoder for the fields of an object (`uid` nil for the `$top` dictionary).
    init(session: UnarchivingSession, fields: ArchiveFields, uid: ArchiveObjectID?, className: String?,
         keyTable: UnarchivingSession.KeyTable? = nil) {
        self.session = session
        self.fields = fields
        self.element = -1
        self.uid = uid
        self.className = className
        self.keyTable = keyTable
    }

    /// Makes this decoder read the fields of another object, as if it were new: the session calls it only
    /// for a decoder of an object's fields that nothing but the session holds (a model that kept its
    /// decoder keeps it as it was).
    func reuse(fields: ArchiveFields, uid: ArchiveObjectID, className: String, keyTable: UnarchivingSession.KeyTable?) {
        self.fields = fields
        self.uid = uid
        self.className = className
        self.keyTable = keyTable
        cursor = -1
        warmedAt = -1
    }

    /// A decoder for one collection element (the object holding its UID).
    init(session: UnarchivingSession, element: Int) {
        self.session = session
        self.fields = nil
        self.element = element
        self.uid = nil
        self.className = nil
        self.keyTable = nil
    }

    var keyPath: String { session.pathString() }

    // MARK: Access

    @inline(__always)
    func escaped(_ key: String) -> String {
        key.utf8.first == UInt8(ascii: "$") ? "$" + key : key
    }

    /// The value stored under `key` (escaped as the archiver escapes it), or nil.
    @inline(__always)
    func stored(_ fields: ArchiveFields, _ key: String) throws -> Int? {
        guard let keyTable else {
            return try session.lookup(fields, escaped(key), key: pathKey(key), uid: uid)
        }
        guard let i = keyTable.position(ofModelKey: key, after: cursor) else { return nil }
        cursor = i
        return try session.value(at: i, of: fields, key: pathKey(key), uid: uid)
    }

    /// Has the objects of the entry just found (at ``cursor``) and the next few read from memory together
    /// (``UnarchivingSession/warm(valuesOf:from:)``), once per entry: objects are read one after the other.
    @inline(__always)
    func warmAhead() {
        guard keyTable != nil, cursor != warmedAt, let fields else { return }
        warmedAt = cursor
        session.warm(valuesOf: fields, from: cursor)
    }

    /// The key as it appears in paths: none for an element (the container already put its index there).
    @inline(__always)
    func pathKey(_ key: String) -> String? { fields == nil ? nil : key }

    func raw(_ key: String) throws -> Int {
        try session.checkActive()
        guard let fields else { return element }
        guard let value = try stored(fields, key) else {
            let owner = uid == nil ? "$top" : "object of class \(className ?? "?")"
            throw fail(.keyNotFound, "key \"\(key)\" not found in \(owner)", key)
        }
        return value
    }

    func fail(_ code: KeyedArchiveError.Code, _ message: String, _ key: String, uid: ArchiveObjectID? = nil,
                      className: String? = nil) -> KeyedArchiveError {
        session.error(code, message, key: pathKey(key), uid: uid ?? self.uid,
                      className: className ?? self.className)
    }

    /// A short description of what was found, for type mismatches.
    func found(_ value: Int, uid: ArchiveObjectID?) -> String {
        if let uid, session.storage.kind(value) == .dictionary,
           let (_, archivedClass) = try? session.objectDictionary(uid, key: nil) {
            return "an object of class \(archivedClass.name)"
        }
        let preview = session.preview(value)
        return "\(session.kindName(value))\(preview.isEmpty ? "" : " " + preview)"
    }

    /// The object stored under `key`, following one UID, and that UID.
    func scalar(_ key: String, expected: @autoclosure () -> String) throws -> (Int, ArchiveObjectID?) {
        try session.target(of: raw(key), key: pathKey(key), expected: expected())
    }

    /// The value of `n` when it is a plain scalar (no container, no UID).
    @inline(__always)
    func plain(_ n: Int, key: String) throws -> PropertyListValue? {
        try session.scalar(n, key: pathKey(key), uid: uid)
    }

    /// The Foundation object under `key`: a dictionary whose class is one of `names`. Gives the object,
    /// its fields and its class name (the name only: copying the whole ``ArchivedClass`` would retain
    /// and release its chain and hints too, for every date or string object read).
    func builtin(_ value: Int, uid: ArchiveObjectID?, key: String, names: [String], expected: @autoclosure () -> String)
        throws -> (ArchiveObjectID, ArchiveFields, String)
    {
        let object = try builtinObject(value, uid: uid, key: key, names: names, expected: expected())
        return (object.uid, object.fields, object.className)
    }

    /// ``builtin(_:uid:key:names:expected:)`` with the object's key table (nil: its members are looked up in
    /// the bytes), so that reading its members does not look the table up again.
    @inline(__always)
    func builtinObject(_ value: Int, uid: ArchiveObjectID?, key: String, names: [String], expected: @autoclosure () -> String)
        throws -> BuiltinObject
    {
        guard let uid, session.storage.kind(value) == .dictionary,
              let (dict, classIndex, table) = try session.objectClass(uid, key: pathKey(key)) else {
            throw fail(.typeMismatch, "expected \(expected()), found \(found(value, uid: uid))", key, uid: uid)
        }
        let className = session.classTable[classIndex].name
        guard names.contains(className) else {
            throw fail(.classNotAllowed, "class \"\(className)\" is not allowed here; expected \(expected()) (\(names.joined(separator: ", ")))",
                       key, uid: uid, className: className)
        }
        return BuiltinObject(uid: uid, fields: dict, className: className, keyTable: table)
    }

    /// A Foundation object read by ``builtinObject(_:uid:key:names:expected:)``.
    struct BuiltinObject {
        let uid: ArchiveObjectID
        let fields: ArchiveFields
        let className: String
        /// The key table of `fields` (``UnarchivingSession/keyTable(for:)``), or nil when there is none.
        let keyTable: UnarchivingSession.KeyTable?
    }

    /// A member of a Foundation object read by ``builtinObject(_:uid:key:names:expected:)``: inline, or one UID away.
    @inline(__always)
    func member(_ object: BuiltinObject, _ name: String, key: String) throws -> Int {
        try member(object.fields, name, of: object.uid, className: object.className, key: key, keyTable: object.keyTable)
    }

    /// The plain value of a member (see ``member(_:_:key:)``), or nil when it is an object.
    @inline(__always)
    func memberValue(_ object: BuiltinObject, _ name: String, key: String) throws -> (Int, PropertyListValue?) {
        let n = try member(object, name, key: key)
        return (n, try plain(n, key: key))
    }

    /// A member of a Foundation object: inline, or one UID away.
    func member(_ dict: ArchiveFields, _ name: String, of uid: ArchiveObjectID, className: String, key: String)
        throws -> Int
    {
        try member(dict, name, of: uid, className: className, key: key, keyTable: session.keyTable(for: dict))
    }

    /// A member of a Foundation object whose key table (``UnarchivingSession/keyTable(for:)``) is `keyTable`.
    func member(_ dict: ArchiveFields, _ name: String, of uid: ArchiveObjectID, className: String, key: String,
                keyTable: UnarchivingSession.KeyTable?) throws -> Int
    {
        let found: Int?
        if let table = keyTable {
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
            return try session.object(ArchiveObjectID(reference: ref), key: pathKey(key))
        }
        return value
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
        warmAhead()
        // A UID of an object decoded before is not nil (answered without reading the UID's word).
        if session.refersToDecodedInstance(value) { return false }
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
            if let v = try plainInt64(forKey: key, expected: "Int"), let i = Int(exactly: v) { return unsafeBitCast(i, to: T.self) }
        } else if T.self == Int64.self {
            if let v = try plainInt64(forKey: key, expected: "Int64") { return unsafeBitCast(v, to: T.self) }
        }
        return try convertedInteger(T.self, forKey: key)
    }

    /// The integer stored under `key` when it is a plain integer that fits in Int64; nil sends the caller
    /// to the general conversion (which reports what is wrong).
    @inline(__always)
    func plainInt64(forKey key: String, expected: StaticString) throws -> Int64? {
        let (n, _) = try scalar(key, expected: "\(expected)")
        if case .integer(let i)? = try plain(n, key: key) { return i.int64Value }
        return nil
    }

    @inline(never)
    func convertedInteger<T: FixedWidthInteger>(_ type: T.Type, forKey key: String) throws -> T {
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

    func integer<T: FixedWidthInteger>(fromReal d: Double, _ type: T.Type, key: String) throws -> T {
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

    func string(_ value: Int, uid: ArchiveObjectID?, key: String) throws -> String {
        if case .string(let s)? = try plain(value, key: key) {
            try session.countBytes(s.utf8.count, key: pathKey(key))
            return s
        }
        let object = try builtinObject(value, uid: uid, key: key, names: Catalogue.stringNames, expected: "String")
        let (objectUID, cls) = (object.uid, object.className)
        let (inner, innerValue) = try memberValue(object, Catalogue.stringKey, key: key)
        guard case .string(let s)? = innerValue else {
            throw fail(.typeMismatch, "\(cls).\(Catalogue.stringKey) must be a string, found \(session.kindName(inner))", key,
                       uid: objectUID, className: cls)
        }
        try session.countBytes(s.utf8.count, key: pathKey(key))
        return s
    }

    func decode(_ type: Data.Type, forKey key: String) throws -> Data {
        let (value, uid) = try scalar(key, expected: "Data")
        return try data(value, uid: uid, key: key)
    }

    func data(_ value: Int, uid: ArchiveObjectID?, key: String) throws -> Data {
        if case .data(let d)? = try plain(value, key: key) {
            try session.countBytes(d.count, key: pathKey(key))
            return d
        }
        let object = try builtinObject(value, uid: uid, key: key, names: Catalogue.dataNames, expected: "Data")
        let (objectUID, cls) = (object.uid, object.className)
        let (inner, innerValue) = try memberValue(object, Catalogue.dataKey, key: key)
        guard case .data(let d)? = innerValue else {
            throw fail(.typeMismatch, "\(cls).\(Catalogue.dataKey) must be data, found \(session.kindName(inner))", key,
                       uid: objectUID, className: cls)
        }
        try session.countBytes(d.count, key: pathKey(key))
        return d
    }

    func decode(_ type: Date.Type, forKey key: String) throws -> Date {
        let (value, uid) = try scalar(key, expected: "Date")
        return try date(value, uid: uid, key: key)
    }

    func date(_ value: Int, uid: ArchiveObjectID?, key: String) throws -> Date {
        if case .date(let d)? = try plain(value, key: key) { return d }
        let object = try builtinObject(value, uid: uid, key: key, names: Catalogue.dateNames, expected: "Date")
        let (objectUID, cls) = (object.uid, object.className)
        let (inner, innerValue) = try memberValue(object, Catalogue.timeKey, key: key)
        switch innerValue {
        case .real(let t)?: return Date(timeIntervalSinceReferenceDate: t)
        case .float(let t)?: return Date(timeIntervalSinceReferenceDate: Double(t))
        case .integer(let i)?: return Date(timeIntervalSinceReferenceDate: i.int64Value.map(Double.init) ?? Double(i.uint64Value ?? 0))
        default:
            throw fail(.typeMismatch, "\(cls).\(Catalogue.timeKey) must be a number, found \(session.kindName(inner))", key,
                       uid: objectUID, className: cls)
        }
    }

    func decode(_ type: UUID.Type, forKey key: String) throws -> UUID {
        let (value, uid) = try scalar(key, expected: "UUID")
        return try uuid(value, uid: uid, key: key)
    }

    func uuid(_ value: Int, uid: ArchiveObjectID?, key: String) throws -> UUID {
        let object = try builtinObject(value, uid: uid, key: key, names: Catalogue.uuidNames, expected: "UUID")
        let (objectUID, cls) = (object.uid, object.className)
        guard case .data(let bytes)? = try memberValue(object, Catalogue.uuidBytesKey, key: key).1,
              bytes.count == 16 else {
            throw fail(.dataCorrupted, "\(cls).\(Catalogue.uuidBytesKey) must be 16 bytes of data", key, uid: objectUID, className: cls)
        }
        let b = [UInt8](bytes)
        return UUID(uuid: (b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7],
                           b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]))
    }

    func decode(_ type: URL.Type, forKey key: String) throws -> URL {
        let (value, uid) = try scalar(key, expected: "URL")
        return try url(value, uid: uid, key: key)
    }

    func url(_ value: Int, uid: ArchiveObjectID?, key: String) throws -> URL {
        let (objectUID, dict, cls) = try builtin(value, uid: uid, key: key, names: Catalogue.urlNames, expected: "URL")
        let relativeValue = try member(dict, Catalogue.relativeKey, of: objectUID, className: cls, key: key)
        var relativeUID: ArchiveObjectID?
        if let r = try session.lookup(dict, Catalogue.relativeKey, key: pathKey(key), uid: objectUID),
           let ref = try session.uid(r, key: pathKey(key)) {
            relativeUID = ArchiveObjectID(reference: ref)
        }
        let relative = try string(relativeValue, uid: relativeUID, key: key)
        var base: URL?
        if let baseRef = try session.lookup(dict, Catalogue.baseKey, key: pathKey(key), uid: objectUID),
           try session.uid(baseRef, key: pathKey(key)) != 0 {
            let (baseValue, baseUID) = try session.target(of: baseRef, key: pathKey(key), expected: "URL")
            try session.enter(uid: objectUID, className: cls, key: pathKey(key))
            defer { session.leave(uid: objectUID, decoded: false) }
            base = try session.nested { try url(baseValue, uid: baseUID, key: key) }
        }
        switch ArchivedURLResolution.url(relative: relative, base: base) {
        case .success(let result): return result
        case .failure(let refusal):
            let why: String
            switch refusal {
            case .emptyWithoutBase: why = "is empty and \(cls).\(Catalogue.baseKey) is nil"
            case .characterNotAllowed(let offset): why = "has a character a URL does not allow at UTF-8 offset \(offset)"
            case .unparsable: why = "is not a valid URL"
            }
            throw fail(.dataCorrupted, "\(cls).\(Catalogue.relativeKey) \"\(relative.prefix(80))\" \(why)", key,
                       uid: objectUID, className: cls)
        }
    }

    // MARK: Objects

    func decodeObject<T: KeyedArchivable>(of type: T.Type, forKey key: String) throws -> T {
        let value = try raw(key)
        warmAhead()
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
    func cast<T>(_ made: Any, to type: T.Type, key: String) throws -> T {
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
        try decodeObjectReference(of: T.self, forKey: key, decodingLater: false, assign: assign)
    }

    /// Reads a back-reference as ``decodeObjectReference(of:forKey:assign:)`` does; with `decodingLater`, an
    /// object nobody has started is decoded only once the rest of the graph is (among the deliveries), so
    /// that the object it refers to is complete by then and the reference closes no cycle (a Codable
    /// ``BackReference``).
    func decodeObjectReference<T: KeyedArchivable & AnyObject>(of type: T.Type, forKey key: String, decodingLater: Bool,
                                                               assign: @escaping (T?) -> Void) throws {
        try session.checkActive()
        let found: Int?
        if let fields { found = try stored(fields, key) } else { found = element }
        guard let value = found, try session.uid(value, key: pathKey(key)) != 0 else {
            session.deferAssignment { assign(nil) }
            return
        }
        let allowed: [any KeyedArchivable.Type] = [T.self]
        let (uid, _, classIndex, _) = try session.checkedObject(value, allowed: allowed, key: pathKey(key),
                                                             expected: UnarchivingSession.describe(allowed))
        _ = try session.allowedType(classAt: classIndex, uid: uid, allowed: allowed, key: pathKey(key),
                                    expected: UnarchivingSession.describe(allowed))
        if session.state(uid) == 0 && !decodingLater {
            _ = try session.instance(value, allowed: allowed, key: pathKey(key), expected: UnarchivingSession.describe(allowed))
        }
        let path = session.path
        let fieldKey = pathKey(key)
        let className = session.classTable[classIndex].name
        session.deferAssignment { [session] in
            if session.state(uid) == 0 {
                _ = try session.instance(value, allowed: allowed, key: fieldKey, expected: UnarchivingSession.describe(allowed))
            }
            guard let object = session.cached(uid) as? T else {
                throw session.error(.typeMismatch, "object #\(uid.rawValue) is not a \(T.self)", path: path, key: fieldKey, uid: uid,
                                    className: className)
            }
            assign(object)
        }
    }
}

extension ArchiveObjectDecoder {
    /// The catalogue's names and keys the decoder reads, resolved once.
    enum Catalogue {
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
}
