#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes values and object graphs as Apple's NSKeyedArchiver archives.
///
/// The corresponding Foundation class is `NSKeyedArchiver`. The output reads back in Foundation's
/// `NSKeyedUnarchiver` on Apple platforms and Linux:
/// - the envelope is `{"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {...}, "$objects": ["$null", ...]}`;
/// - `Bool`, integers, `Float` and `Double` fields are inline in their object, as `encodeBool`/`encodeInt64`/... write them;
/// - strings and `Data` are inline scalars in `$objects` referenced by UID (NSString / NSData);
/// - `Date`, `UUID`, `URL`, arrays, sets and dictionaries are written as `NSDate` (`NS.time`), `NSUUID`
///   (`NS.uuidbytes`), `NSURL` (`NS.base`, `NS.relative`), `NSArray`/`NSSet` (`NS.objects`) and
///   `NSDictionary` (`NS.keys`, `NS.objects`);
/// - each ``KeyedArchivable`` value is an object with a `$class` shared by all instances of its class;
/// - keys that start with `$` are escaped by adding another `$`.
///
/// **Identity.** A class instance referenced several times is written once (identity is the instance,
/// `ObjectIdentifier`, never `==`), so graphs with sharing and cycles round-trip. Equal but distinct
/// instances stay distinct. Structs have no identity: each encode writes a new object.
///
/// **Depth.** Encoding is iterative: an object gets its UID when first referenced and its fields are
/// written later from a work queue, so a 1,000,000-node linked list never deepens the stack.
/// (Nested Swift *values* such as arrays of arrays are written recursively; their depth is that of the
/// value the caller built.)
///
/// **Output.** The archiver emits binary property-list objects as it encodes (no intermediate tree); the
/// bytes are exactly those ``BinaryPropertyListWriter`` writes for the archive's tree (``finishEncoding()``),
/// so they are deterministic and as small as the format allows.
///
/// Use ``archivedData(withRootObject:format:)`` for one root, or create an archiver, ``encode(_:forKey:)``
/// several top-level values and call ``encodedData(format:)``.
public final class KeyedArchiver: ArchiveEncoder {
    private typealias Ref = KeyedArchiveEmitter.Ref
    private var emitter = KeyedArchiveEmitter()
    /// The fields of the object being encoded: exact key ids, canonical key ids (see
    /// ``KeyedArchiveEmitter/fieldKey(_:)``) and value refs. `$top`'s fields are kept apart.
    private var fieldKeys: [Ref] = []
    private var fieldCanonicalKeys: [Ref] = []
    private var fieldValues: [Ref] = []
    private var topKeys: [Ref] = []
    private var topCanonicalKeys: [Ref] = []
    private var topValues: [Ref] = []
    /// The container of the object whose fields are being written; -1: writing `$top`.
    private var currentContainer: Int = -1
    private var identities: [ObjectIdentifier: Int] = [:]
    private var retained: [AnyObject] = []
    private var queue: [(container: Int, value: any KeyedArchivable)] = []
    private var queueHead = 0
    private var classUIDsByType: [ObjectIdentifier: Int] = [:]
    private var classUIDsByName: [String: Int] = [:]
    private var classNames: [ObjectIdentifier: String] = [:]
    private var capturing = false
    /// The UID written by a collection element's encode (see ``reference(for:)``); -1 when none.
    private var captured = -1
    /// Element refs of the collections being encoded (nested collections stack theirs above).
    private var elementRefs: [Ref] = []
    /// Conditional references to objects not (yet) archived: the field to set if they are, at the end.
    private var pendingConditionals: [(owner: Int, field: Int, object: AnyObject)] = []
    private var finishedData: Data?
    private var finishedTree: PropertyListValue?
    private var isFinished = false
    private var builtinClassUIDs: [Int] = Array(repeating: -1, count: BuiltinClass.allCases.count)
    /// Interned keys the archiver writes itself.
    private let classKey, timeKey, uuidBytesKey, baseKey, relativeKey, objectsKey, keysKey: Ref

    /// Creates an empty archiver.
    public init() {
        _ = emitter.appendElement(emitter.string("$null"))
        classKey = emitter.string("$class")
        timeKey = emitter.string("NS.time")
        uuidBytesKey = emitter.string("NS.uuidbytes")
        baseKey = emitter.string("NS.base")
        relativeKey = emitter.string("NS.relative")
        objectsKey = emitter.string("NS.objects")
        keysKey = emitter.string("NS.keys")
    }

    deinit {
        emitter.discard()
    }

    // MARK: Class names

    /// Writes instances of `type` with the class name `name` instead of `type.archivedClassName`.
    ///
    /// The corresponding Foundation API is `NSKeyedArchiver.setClassName(_:for:)` (which has no effect on Linux).
    /// The `$classes` chain keeps the type's declared superclasses after `name`.
    public func setClassName(_ name: String, for type: any KeyedArchivable.Type) {
        classNames[ObjectIdentifier(type)] = name
    }

    /// The class name set with ``setClassName(_:for:)`` for `type`, if any.
    public func className(for type: any KeyedArchivable.Type) -> String? {
        classNames[ObjectIdentifier(type)]
    }

    // MARK: Output

    /// Finishes the archive and returns it as a property-list tree. Later calls return the same tree;
    /// encoding after this throws ``KeyedArchiveError/Code/invalidValue``.
    ///
    /// The corresponding Foundation API is `NSKeyedArchiver.finishEncoding()`.
    /// The tree is read back from the archive's bytes (the archiver does not build one while encoding),
    /// so it is exactly what a reader of ``encodedData(format:)`` sees.
    /// - Throws: ``KeyedArchiveError`` when a value could not be archived.
    public func finishEncoding() throws -> PropertyListValue {
        if let finishedTree { return finishedTree }
        let data = try finishedBytes()
        var options = PropertyListReadingOptions()
        options.maximumObjectCount = .max
        do {
            let tree = try BinaryPropertyListReader(options: options).read(data)
            finishedTree = tree
            return tree
        } catch let error as PropertyListError {
            throw KeyedArchiveError(.invalidValue, "the archive cannot be read back: \(error.message)", underlying: error)
        }
    }

    /// Finishes the archive and returns its bytes.
    ///
    /// The corresponding Foundation API is `NSKeyedArchiver.encodedData`.
    /// - Parameter format: binary (default, what Foundation writes) or XML.
    /// - Throws: ``KeyedArchiveError`` when a value could not be archived.
    public func encodedData(format: PropertyListFormat = .binary) throws -> Data {
        if format == .binary { return try finishedBytes() }
        let archive = try finishEncoding()
        do {
            return try archive.propertyListData(format: format)
        } catch let error as PropertyListError {
            throw KeyedArchiveError(.invalidValue, "the archive cannot be written as \(format): \(error.message)",
                                    underlying: error)
        }
    }

    /// Archives `root` under the top-level key `"root"` and returns the archive's bytes.
    ///
    /// The corresponding Foundation API is `NSKeyedArchiver.archivedData(withRootObject:requiringSecureCoding:)`.
    /// - Parameters:
    ///   - root: a model object, or any ``ArchiveValue`` (a string, an array of models, ...).
    ///   - format: binary (default) or XML.
    /// - Throws: ``KeyedArchiveError`` when a value could not be archived.
    public static func archivedData<T: ArchiveValue>(withRootObject root: T, format: PropertyListFormat = .binary) throws -> Data {
        let archiver = KeyedArchiver()
        try archiver.encode(root, forKey: "root")
        return try archiver.encodedData(format: format)
    }

    /// Archives `root` under `"root"` and returns the archive as a property-list tree (no bytes).
    public static func archivedPropertyList<T: ArchiveValue>(withRootObject root: T) throws -> PropertyListValue {
        let archiver = KeyedArchiver()
        try archiver.encode(root, forKey: "root")
        return try archiver.finishEncoding()
    }

    /// Writes the queued objects, resolves conditional references and lays the archive out (once).
    private func finishedBytes() throws -> Data {
        if let finishedData { return finishedData }
        try drain()
        for pending in pendingConditionals {
            guard let uid = identities[ObjectIdentifier(pending.object)] else { continue }
            let ref = emitter.uid(uid)
            if pending.owner < 0 {
                topValues[pending.field] = ref
            } else {
                emitter.setDictionaryValue(pending.owner, at: pending.field, to: ref)
            }
        }
        pendingConditionals = []
        guard !emitter.tooLarge else {
            throw KeyedArchiveError(.invalidValue, "the archive has more than 2^31 distinct values or containers")
        }
        let top = emitter.newContainer()
        emitter.completeDictionary(top, keys: topKeys, values: topValues)
        let objects = emitter.objectsArray()
        let root = emitter.newContainer()
        emitter.completeDictionary(root, keys: [emitter.string("$version"), emitter.string("$archiver"),
                                                emitter.string("$top"), emitter.string("$objects")],
                                   values: [emitter.integer(Int64(100000)), emitter.string("NSKeyedArchiver"),
                                            KeyedArchiveEmitter.ref(container: top),
                                            KeyedArchiveEmitter.ref(container: objects)])
        let data = emitter.write(root: root)
        emitter = KeyedArchiveEmitter()
        emitter.discard()
        identities = [:]
        retained = []
        topKeys = []
        topCanonicalKeys = []
        topValues = []
        finishedData = data
        isFinished = true
        return data
    }

    // MARK: Internals

    /// Takes the "encode as a collection element" request, if there is one.
    @inline(__always)
    private func takeCapture() -> Bool {
        if capturing {
            capturing = false
            return true
        }
        return false
    }

    /// The Foundation classes the archiver writes itself, with cached class-dictionary UIDs.
    private enum BuiltinClass: Int, CaseIterable {
        case date, uuid, url, array, set, dictionary
        var chain: [String] {
            switch self {
            case .date: return ["NSDate", "NSObject"]
            case .uuid: return ["NSUUID", "NSObject"]
            case .url: return ["NSURL", "NSObject"]
            case .array: return ["NSArray", "NSObject"]
            case .set: return ["NSSet", "NSObject"]
            case .dictionary: return ["NSDictionary", "NSObject"]
            }
        }
    }

    /// The UID ref of a Foundation class's class dictionary.
    @inline(__always)
    private func classRef(_ builtin: BuiltinClass) -> Ref {
        let cached = builtinClassUIDs[builtin.rawValue]
        if cached >= 0 { return emitter.uid(cached) }
        let chain = builtin.chain
        let uid = classUID(forBuiltin: chain[0], chain: chain)
        builtinClassUIDs[builtin.rawValue] = uid
        return emitter.uid(uid)
    }

    private func checkOpen() throws {
        if isFinished {
            throw KeyedArchiveError(.invalidValue, "encoding after finishEncoding()")
        }
    }

    /// Stores the scalar `value` as the field `key`, or as the captured element (a scalar element is its
    /// own `$objects` entry: an NSNumber object).
    @inline(__always)
    private func put(inline value: Ref, forKey key: String) {
        if takeCapture() {
            captured = emitter.appendElement(value)
        } else {
            setField(key, value)
        }
    }

    @inline(__always)
    private func put(reference uid: Int, asElement: Bool, forKey key: String) {
        if asElement { captured = uid } else { setField(key, emitter.uid(uid)) }
    }

    /// Stores a field (last one wins) and returns its position in the object.
    @inline(__always)
    @discardableResult
    private func setField(_ key: String, _ value: Ref) -> Int {
        let (exact, canonical) = emitter.fieldKey(key)
        if currentContainer < 0 {
            if let i = topCanonicalKeys.firstIndex(of: canonical) {
                topValues[i] = value
                return i
            }
            topKeys.append(exact)
            topCanonicalKeys.append(canonical)
            topValues.append(value)
            return topKeys.count - 1
        }
        // A repeated key (equal as Swift strings, as the tree's dictionaries compare them): last one wins.
        var i = 0
        while i < fieldCanonicalKeys.count {
            if fieldCanonicalKeys[i] == canonical {
                fieldValues[i] = value
                return i
            }
            i += 1
        }
        fieldKeys.append(exact)
        fieldCanonicalKeys.append(canonical)
        fieldValues.append(value)
        return fieldKeys.count - 1
    }

    /// The UID of `value` written as a collection element (a scalar becomes its own object).
    private func reference<T: ArchiveValue>(for value: T) throws -> Int {
        capturing = true
        captured = -1
        try value.encode(to: self, forKey: "")
        if capturing {
            capturing = false
            throw KeyedArchiveError(.invalidValue, "\(T.self).encode(to:forKey:) wrote nothing; it must call exactly one encoder method")
        }
        guard captured >= 0 else {
            throw KeyedArchiveError(.invalidValue, "\(T.self).encode(to:forKey:) wrote nothing; it must call exactly one encoder method")
        }
        let result = captured
        captured = -1
        return result
    }

    /// The UID of the class dictionary `{"$classname": name, "$classes": chain}`, added on first use.
    private func classUID(forBuiltin name: String, chain: [String]) -> Int {
        if let uid = classUIDsByName[name] { return uid }
        let names = emitter.newContainer()
        for c in chain { elementRefs.append(emitter.string(c)) }
        let base = elementRefs.count - chain.count
        emitter.completeArray(names, elementRefs, from: base)
        elementRefs.removeLast(chain.count)
        let (uid, dictionary) = emitter.appendContainerElement()
        emitter.completeDictionary(dictionary, emitter.string("$classname"), emitter.string(name),
                                   emitter.string("$classes"), KeyedArchiveEmitter.ref(container: names))
        classUIDsByName[name] = uid
        return uid
    }

    private func classUID(for type: any KeyedArchivable.Type) -> Int {
        let id = ObjectIdentifier(type)
        if let uid = classUIDsByType[id] { return uid }
        var chain = type.archivedClassChain
        let name: String
        if let mapped = classNames[id] {
            name = mapped
            if chain.isEmpty { chain = [mapped, "NSObject"] } else { chain[0] = mapped }
        } else {
            name = type.archivedClassName
            if chain.isEmpty { chain = [name, "NSObject"] }
        }
        let uid = classUID(forBuiltin: name, chain: chain)
        classUIDsByType[id] = uid
        return uid
    }

    /// Writes the fields of every queued object (iteratively: objects found on the way join the queue).
    private func drain() throws {
        let savedContainer = currentContainer
        defer { currentContainer = savedContainer }
        while queueHead < queue.count {
            let (container, value) = queue[queueHead]
            queueHead += 1
            currentContainer = container
            fieldKeys.removeAll(keepingCapacity: true)
            fieldCanonicalKeys.removeAll(keepingCapacity: true)
            fieldValues.removeAll(keepingCapacity: true)
            let classRef = emitter.uid(classUID(for: Swift.type(of: value)))
            fieldKeys.append(classKey)
            fieldCanonicalKeys.append(classKey)
            fieldValues.append(classRef)
            try value.encode(to: self)
            emitter.completeDictionary(container, keys: fieldKeys, values: fieldValues)
        }
        queue.removeAll(keepingCapacity: false)
        queueHead = 0
    }

    private var classKinds: [ObjectIdentifier: Bool] = [:]
    private var lastKind: (ObjectIdentifier, Bool)?

    /// Whether `type` is a class (cached: a dynamic cast per object is costly).
    @inline(__always)
    private func isClass<T>(_ type: T.Type) -> Bool {
        let id = ObjectIdentifier(type)
        if let lastKind, lastKind.0 == id { return lastKind.1 }
        let kind: Bool
        if let known = classKinds[id] {
            kind = known
        } else {
            kind = type is AnyClass
            classKinds[id] = kind
        }
        lastKind = (id, kind)
        return kind
    }

    // MARK: ArchiveEncoder

    public func encode(_ value: Bool, forKey key: String) throws {
        try checkOpen()
        put(inline: emitter.bool(value), forKey: key)
    }

    public func encodeInteger<T: FixedWidthInteger>(_ value: T, forKey key: String) throws {
        try checkOpen()
        // Fast path for the common widths (this generic requirement runs unspecialized through `any ArchiveEncoder`).
        if T.self == Int.self {
            put(inline: emitter.integer(Int64(unsafeBitCast(value, to: Int.self))), forKey: key)
            return
        }
        guard let integer = PropertyListInteger(exactly: value) else {
            throw KeyedArchiveError(.invalidValue, "integer \(value) does not fit in 64 bits", keyPath: key)
        }
        put(inline: emitter.integer(integer), forKey: key)
    }

    public func encode(_ value: Float, forKey key: String) throws {
        try checkOpen()
        put(inline: emitter.float(value), forKey: key)
    }

    public func encode(_ value: Double, forKey key: String) throws {
        try checkOpen()
        put(inline: emitter.real(value), forKey: key)
    }

    public func encode(_ value: String, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        put(reference: emitter.appendElement(emitter.string(value)), asElement: asElement, forKey: key)
    }

    public func encode(_ value: Data, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        put(reference: emitter.appendElement(emitter.data(value)), asElement: asElement, forKey: key)
    }

    public func encode(_ value: Date, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        let cls = classRef(.date)
        let (uid, object) = emitter.appendContainerElement()
        emitter.completeDictionary(object, classKey, cls, timeKey, emitter.real(value.timeIntervalSinceReferenceDate))
        put(reference: uid, asElement: asElement, forKey: key)
    }

    public func encode(_ value: UUID, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        let bytes = withUnsafeBytes(of: value.uuid) { Data($0) }
        let cls = classRef(.uuid)
        let (uid, object) = emitter.appendContainerElement()
        emitter.completeDictionary(object, classKey, cls, uuidBytesKey, emitter.data(bytes))
        put(reference: uid, asElement: asElement, forKey: key)
    }

    public func encode(_ value: URL, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        put(reference: urlObject(value), asElement: asElement, forKey: key)
    }

    /// An NSURL object: its base first (recursively), then its relative string, then itself.
    private func urlObject(_ url: URL) -> Int {
        let base = url.baseURL.map { urlObject($0) } ?? 0
        let relative = emitter.appendElement(emitter.string(url.relativeString))
        let cls = classRef(.url)
        let (uid, object) = emitter.appendContainerElement()
        emitter.completeDictionary(object, classKey, cls, baseKey, emitter.uid(base), relativeKey, emitter.uid(relative))
        return uid
    }

    public func encodeNil(forKey key: String) throws {
        try checkOpen()
        if takeCapture() {
            throw KeyedArchiveError(.invalidValue,
                                    "an archived array, set or dictionary cannot hold nil (NSArray cannot); use ArchiveNull",
                                    keyPath: key)
        }
        setField(key, emitter.uid(0))
    }

    public func encodeObject<T: KeyedArchivable>(_ object: T, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        let uid: Int
        if isClass(T.self) {
            // T is a concrete class type here, so the value is one object reference.
            let instance = unsafeBitCast(object, to: AnyObject.self)
            let id = ObjectIdentifier(instance)
            if let known = identities[id] {
                uid = known
            } else {
                let (newUID, container) = emitter.appendContainerElement()
                uid = newUID
                identities[id] = uid
                retained.append(instance)
                queue.append((container, object))
            }
        } else {
            let (newUID, container) = emitter.appendContainerElement()
            uid = newUID
            queue.append((container, object))
        }
        put(reference: uid, asElement: asElement, forKey: key)
        if currentContainer < 0 && !asElement { try drain() }
    }

    public func encodeConditionalObject<T: KeyedArchivable & AnyObject>(_ object: T?, forKey key: String) throws {
        try checkOpen()
        guard let object else {
            if capturing { capturing = false; captured = 0 } else { setField(key, emitter.uid(0)) }
            return
        }
        if capturing {
            // As a collection element there is no field to patch later: encode it unconditionally.
            try encodeObject(object, forKey: key)
            return
        }
        if let known = identities[ObjectIdentifier(object)] {
            setField(key, emitter.uid(known))
        } else {
            let field = setField(key, emitter.uid(0))
            pendingConditionals.append((currentContainer, field, object))
        }
    }

    /// Encodes each element as its own object and returns where their UID refs start in `elementRefs`.
    private func appendElementRefs<S: Sequence>(_ elements: S) throws -> Int where S.Element: ArchiveValue {
        let base = elementRefs.count
        for element in elements { elementRefs.append(emitter.uid(try reference(for: element))) }
        return base
    }

    public func encodeArray<T: ArchiveValue>(_ elements: [T], forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        let (uid, object) = emitter.appendContainerElement()
        let base = elementRefs.count
        defer { elementRefs.removeLast(elementRefs.count - base) }
        _ = try appendElementRefs(elements)
        let array = emitter.newContainer()
        emitter.completeArray(array, elementRefs, from: base)
        emitter.completeDictionary(object, classKey, classRef(.array), objectsKey, KeyedArchiveEmitter.ref(container: array))
        put(reference: uid, asElement: asElement, forKey: key)
        if currentContainer < 0 && !asElement { try drain() }
    }

    public func encodeSet<T: ArchiveValue & Hashable>(_ elements: Set<T>, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        let (uid, object) = emitter.appendContainerElement()
        let base = elementRefs.count
        defer { elementRefs.removeLast(elementRefs.count - base) }
        _ = try appendElementRefs(elements)
        let array = emitter.newContainer()
        emitter.completeArray(array, elementRefs, from: base)
        emitter.completeDictionary(object, classKey, classRef(.set), objectsKey, KeyedArchiveEmitter.ref(container: array))
        put(reference: uid, asElement: asElement, forKey: key)
        if currentContainer < 0 && !asElement { try drain() }
    }

    public func encodeDictionary<K: ArchiveValue & Hashable, V: ArchiveValue>(_ dictionary: [K: V], forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        let (uid, object) = emitter.appendContainerElement()
        let base = elementRefs.count
        defer { elementRefs.removeLast(elementRefs.count - base) }
        // Keys and values interleaved; split into the two arrays below.
        for (k, v) in dictionary {
            elementRefs.append(emitter.uid(try reference(for: k)))
            elementRefs.append(emitter.uid(try reference(for: v)))
        }
        let keys = emitter.newContainer()
        emitter.completeArray(keys, elementRefs, from: base, stride: 2)
        let values = emitter.newContainer()
        emitter.completeArray(values, elementRefs, from: base + 1, stride: 2)
        emitter.completeDictionary(object, classKey, classRef(.dictionary), keysKey, KeyedArchiveEmitter.ref(container: keys),
                                   objectsKey, KeyedArchiveEmitter.ref(container: values))
        put(reference: uid, asElement: asElement, forKey: key)
        if currentContainer < 0 && !asElement { try drain() }
    }
}
