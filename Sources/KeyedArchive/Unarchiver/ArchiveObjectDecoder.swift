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

    /// What the decoder reads, and where it is: set once, except when the session reuses a decoder that
    /// nothing else holds for its next object (``reuse(fields:uid:className:keyTable:)``) or an element
    /// decoder for its next element. Kept in an ``UncheckedExclusiveState``: no access to it spans a call
    /// into a model's code.
    struct State {
        var fields: ArchiveFields?
        var element: Int
        var uid: ArchiveObjectID?
        var className: String?
        var keyTable: UnarchivingSession.KeyTable?
        var cursor = -1
        var warmedAt = -1
    }

    private let state: UncheckedExclusiveState<State>

    /// The fields of the object this decoder reads; nil in element mode.
    var fields: ArchiveFields? {
        @inline(__always) get { state.value.fields }
    }
    /// The element an element-mode decoder answers with; a collection reuses one decoder for all its elements.
    var element: Int {
        @inline(__always) get { state.value.element }
        @inline(__always) set { state.value.element = newValue }
    }
    /// The object whose fields this decoder reads; nil for `$top` and for an element.
    var uid: ArchiveObjectID? {
        @inline(__always) get { state.value.uid }
    }
    var className: String? {
        @inline(__always) _read { yield state.value.className }
    }
    /// The decoded keys of `fields`, when the session could share them (see ``UnarchivingSession/KeyTable``).
    var keyTable: UnarchivingSession.KeyTable? {
        @inline(__always) _read { yield state.value.keyTable }
    }
    /// Where the last key was found: fields are usually read in the order they were written.
    var cursor: Int {
        @inline(__always) get { state.value.cursor }
        @inline(__always) set { state.value.cursor = newValue }
    }
    /// The ``cursor`` at which the entries ahead were last warmed (``UnarchivingSession/warm(valuesOf:from:)``).
    var warmedAt: Int {
        @inline(__always) get { state.value.warmedAt }
        @inline(__always) set { state.value.warmedAt = newValue }
    }

    deinit {
        state.destroy()
    }

    /// A decoder for the fields of an object (`uid` nil for the `$top` dictionary).
    init(session: UnarchivingSession, fields: ArchiveFields, uid: ArchiveObjectID?, className: String?,
         keyTable: UnarchivingSession.KeyTable? = nil) {
        self.session = session
        state = UncheckedExclusiveState(State(fields: fields, element: -1, uid: uid, className: className, keyTable: keyTable))
    }

    /// Makes this decoder read the fields of another object, as if it were new: the session calls it only
    /// for a decoder of an object's fields that nothing but the session holds (a model that kept its
    /// decoder keeps it as it was).
    func reuse(fields: ArchiveFields, uid: ArchiveObjectID, className: String, keyTable: UnarchivingSession.KeyTable?) {
        state.value = State(fields: fields, element: -1, uid: uid, className: className, keyTable: keyTable)
    }

    /// A decoder for one collection element (the object holding its UID).
    init(session: UnarchivingSession, element: Int) {
        self.session = session
        state = UncheckedExclusiveState(State(fields: nil, element: element, uid: nil, className: nil, keyTable: nil))
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

    /// The property-list object stored under `key`, as it is stored (a UID is not followed); an element
    /// decoder's element for any key.
    ///
    /// The decoder's verbs: *stored* is what a key holds, as stored; *target* is that object with one UID
    /// followed; a *scalar* value is a property-list value that is neither a container nor a UID.
    func storedObject(forKey key: String) throws -> Int {
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

    /// The object stored under `key` with one UID followed (the target), and that UID.
    func targetObject(forKey key: String, expected: @autoclosure () -> String) throws -> (Int, ArchiveObjectID?) {
        try session.target(of: storedObject(forKey: key), key: pathKey(key), expected: expected())
    }

    /// The value of `n` when it is a scalar (neither a container nor a UID).
    @inline(__always)
    func scalarValue(_ n: Int, key: String) throws -> PropertyListValue? {
        try session.scalarValue(n, key: pathKey(key), uid: uid)
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

    /// The scalar value of a member (see ``member(_:_:key:)``), or nil when it is an object.
    @inline(__always)
    func memberValue(_ object: BuiltinObject, _ name: String, key: String) throws -> (Int, PropertyListValue?) {
        let n = try member(object, name, key: key)
        return (n, try scalarValue(n, key: key))
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

    // MARK: Objects

    func decodeObject<T: KeyedArchivable>(of type: T.Type, forKey key: String) throws -> T {
        let value = try storedObject(forKey: key)
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
        let value = try storedObject(forKey: key)
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
        if session.state(uid) == .notStarted && !decodingLater {
            _ = try session.instance(value, allowed: allowed, key: pathKey(key), expected: UnarchivingSession.describe(allowed))
        }
        let path = session.path
        let fieldKey = pathKey(key)
        let className = session.classTable[classIndex].name
        session.deferAssignment { [session] in
            if session.state(uid) == .notStarted {
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
