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
/// - every `$top` value is a UID, as Apple writes it: a number or Boolean encoded at the top level (such
///   as `archivedData(withRootObject: 42)`) is its own `$objects` entry (an NSNumber);
/// - `Date`, `UUID`, `URL`, arrays, sets and dictionaries are written as `NSDate` (`NS.time`), `NSUUID`
///   (`NS.uuidbytes`), `NSURL` (`NS.base`, `NS.relative`), `NSArray`/`NSSet` (`NS.objects`),
///   `NSOrderedSet` (`NS.object.0`, `NS.object.1`, ...) and `NSDictionary` (`NS.keys`, `NS.objects`), with
///   the class names, chains and keys of the package's catalogue of Foundation classes;
/// - each ``KeyedArchivable`` value is an object with a `$class` shared by all instances of its class;
/// - keys that start with `$` are escaped by adding another `$`.
///
/// **Identity.** A class instance referenced several times is written once (identity is the instance,
/// `ObjectIdentifier`, never `==`), so graphs with sharing and cycles round-trip. Equal but distinct
/// instances stay distinct. Structs have no identity: each encode writes a new object.
///
/// **Depth.** Encoding is iterative: an object is registered when first referenced and its fields are
/// written later from a work queue, so a 1,000,000-node linked list never deepens the stack. When the
/// archive is finished, the objects are numbered depth-first, each before the objects its fields refer to
/// (the order Apple's recursive archiver gives), so an unarchiver, which must decode an object's fields
/// before the object, reads the archive front to back.
/// (Nested Swift *values* such as arrays of arrays are written recursively; their depth is that of the
/// value the caller built.)
///
/// **Output.** The archiver emits binary property-list objects as it encodes (no intermediate tree); the
/// bytes are exactly those ``BinaryPropertyListWriter`` writes for the archive's tree (``finishEncoding()``),
/// so they are deterministic and as small as the format allows. Sets whose elements and dictionaries whose
/// keys are `Comparable` (strings, numbers, dates, UUIDs...) are written in ascending order, so the same
/// value gives the same bytes in any process (so are ``FoundationValue`` sets and dictionaries whose
/// elements or keys are all strings); other sets and dictionaries are written in their own iteration order,
/// which Swift's hashing seed (per process and per instance) decides. (`UUID` is `Comparable` on Linux and
/// from macOS 14 / iOS 17.)
///
/// Use ``archivedData(withRootObject:format:)`` for one root, or create an archiver, ``encode(_:forKey:)-(T,_)``
/// several top-level values and call ``encodedData(format:)``.
public final class KeyedArchiver: ArchiveEncoder {
    private typealias Ref = KeyedArchiveEmitter.Ref

    /// The archiver's mutable state, in one block behind a pointer: the class's own stored properties
    /// would each be checked for exclusive access at run time on every use (a large share of the time
    /// archiving takes). The pointee is only ever accessed briefly, never across a call into model code.
    private struct State {
        var emitter = KeyedArchiveEmitter()
        /// The fields of the object being encoded: exact key ids, canonical key ids (see
        /// ``KeyedArchiveEmitter/fieldKey(_:)``) and value refs. `$top`'s fields are kept apart.
        var fieldKeys: [Ref] = []
        var fieldCanonicalKeys: [Ref] = []
        var fieldValues: [Ref] = []
        var topKeys: [Ref] = []
        var topCanonicalKeys: [Ref] = []
        var topValues: [Ref] = []
        /// The container of the object whose fields are being written; -1: writing `$top`.
        var currentContainer: Int = -1
        var identities = ArchivedObjectIdentities()
        var retained: [AnyObject] = []
        var queue: [(container: Int, value: any KeyedArchivable)] = []
        var queueHead = 0
        var classUIDsByType: [ObjectIdentifier: Int] = [:]
        var classUIDsByName: [String: Int] = [:]
        var capturing = false
        /// The UID written by a collection element's encode (see ``reference(for:)``); -1 when none.
        var captured = -1
        /// Element refs of the collections being encoded (nested collections stack theirs above).
        var elementRefs: [Ref] = []
        /// Conditional references to objects not (yet) archived: the field to set if they are, at the end.
        var pendingConditionals: [(owner: Int, field: Int, object: AnyObject)] = []
        var isFinished = false
        var builtinClassUIDs: [Int] = Array(repeating: -1, count: BuiltinClass.allCases.count)
        var classKinds: [ObjectIdentifier: Bool] = [:]
        var lastKind: (ObjectIdentifier, Bool)?
        /// Interned `NS.object.0`, `NS.object.1`, ... (an ordered set's member keys), grown on demand.
        var elementKeys: [Ref] = []
    }

    private let state: UnsafeMutablePointer<State>

    /// The state, without run-time exclusivity checks (see ``State``).
    private var s: State {
        @inline(__always) unsafeAddress { UnsafePointer(state) }
        @inline(__always) unsafeMutableAddress { state }
    }
    private var classNames: [ObjectIdentifier: String] = [:]
    private var finishedData: Data?
    private var finishedTree: PropertyListValue?
    /// The root container once the archive is complete.
    private var finishedRoot: Int?
    /// Interned keys the archiver writes itself.
    private let classKey, timeKey, uuidBytesKey, baseKey, relativeKey, objectsKey, keysKey, dictionaryObjectsKey: Ref

    /// Creates an empty archiver.
    public init() {
        var initial = State()
        _ = initial.emitter.appendElement(initial.emitter.string("$null"))
        classKey = initial.emitter.string("$class")
        timeKey = initial.emitter.string(MemberKeys.time)
        uuidBytesKey = initial.emitter.string(MemberKeys.uuidBytes)
        baseKey = initial.emitter.string(MemberKeys.base)
        relativeKey = initial.emitter.string(MemberKeys.relative)
        objectsKey = initial.emitter.string(MemberKeys.objects)
        keysKey = initial.emitter.string(MemberKeys.keys)
        dictionaryObjectsKey = initial.emitter.string(MemberKeys.dictionaryObjects)
        state = .allocate(capacity: 1)
        state.initialize(to: initial)
    }

    deinit {
        s.emitter.discard()
        state.deinitialize(count: 1)
        state.deallocate()
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
    /// The archiver does not build a tree while encoding; this builds it from the archive's objects
    /// (the same objects ``encodedData(format:)`` writes).
    /// - Throws: ``KeyedArchiveError`` when a value could not be archived.
    public func finishEncoding() throws -> PropertyListValue {
        if let finishedTree { return finishedTree }
        let root = try finishArchive()
        let tree = s.emitter.tree(root: root)
        finishedTree = tree
        if finishedData != nil { s.emitter.discard() }
        return tree
    }

    /// Finishes the archive and returns its bytes.
    ///
    /// The corresponding Foundation API is `NSKeyedArchiver.encodedData`.
    /// - Parameter format: binary (default, what Foundation writes) or XML.
    /// - Throws: ``KeyedArchiveError`` when a value could not be archived.
    public func encodedData(format: PropertyListFormat = .binary) throws -> Data {
        if format == .binary {
            if let finishedData { return finishedData }
            let root = try finishArchive()
            let data = s.emitter.write(root: root)
            finishedData = data
            if finishedTree != nil { s.emitter.discard() }
            return data
        }
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

    /// A deep copy of `value` made through an archive round trip: the NSCopying idiom
    /// (`NSKeyedUnarchiver.unarchivedObject(ofClass:from: NSKeyedArchiver.archivedData(withRootObject:))`).
    ///
    /// Identity inside the copied graph is kept: an instance referenced from several places is one
    /// instance in the copy, cycles (read back with ``ArchiveDecoder/decodeObjectReference(of:forKey:assign:)``)
    /// close on the copies, and the copy shares no class instance with the original. Conditional references
    /// (``ArchiveEncoder/encodeConditionalObject(_:forKey:)``) to objects outside the copied graph become nil.
    /// Structs are copied field by field as their `encode(to:)` and `init(from:)` say.
    ///
    /// - Parameters:
    ///   - value: the root of the graph to copy (a model, or any ``ArchiveValue`` such as `[Note]`).
    ///   - unarchiver: reads the copy back: its registry (subclasses, legacy names) and limits apply. The
    ///     default limits allow 10,000 levels of nesting; pass an unarchiver with a higher
    ///     ``KeyedUnarchiver/Limits/maximumDepth`` to copy longer chains.
    /// - Throws: ``KeyedArchiveError`` when the value cannot be archived or read back (a type whose
    ///   `init(from:)` does not read what its `encode(to:)` wrote), or an error a model throws.
    public static func deepCopy<T: ArchiveValue>(of value: T, using unarchiver: KeyedUnarchiver = KeyedUnarchiver()) throws -> T {
        try unarchiver.decode(T.self, from: archivedData(withRootObject: value))
    }

    /// Writes the queued objects, resolves conditional references and completes `$top`, `$objects` and the
    /// root (once); returns the root's container.
    private func finishArchive() throws -> Int {
        if let finishedRoot { return finishedRoot }
        try drain()
        for pending in s.pendingConditionals {
            guard let uid = s.identities.uid(for: UInt(bitPattern: ObjectIdentifier(pending.object))) else { continue }
            let ref = KeyedArchiveEmitter.uid(uid)
            if pending.owner < 0 {
                s.topValues[pending.field] = ref
            } else {
                s.emitter.setDictionaryValue(pending.owner, at: pending.field, to: ref)
            }
        }
        s.pendingConditionals = []
        guard !s.emitter.tooLarge else {
            throw KeyedArchiveError(.invalidValue, "the archive has 2^30 or more distinct values, objects or containers")
        }
        let top = s.emitter.newContainer()
        s.emitter.completeDictionary(top, keys: s.topKeys, values: s.topValues)
        s.emitter.renumberDepthFirst(from: top)
        let objects = s.emitter.objectsArray()
        let root = s.emitter.newContainer()
        s.emitter.completeDictionary(root, keys: [s.emitter.string("$version"), s.emitter.string("$archiver"),
                                                  s.emitter.string("$top"), s.emitter.string("$objects")],
                                     values: [s.emitter.integer(Int64(100000)), s.emitter.string("NSKeyedArchiver"),
                                              KeyedArchiveEmitter.ref(container: top),
                                              KeyedArchiveEmitter.ref(container: objects)])
        s.identities = ArchivedObjectIdentities()
        s.retained = []
        s.queue = []
        s.topKeys = []
        s.topCanonicalKeys = []
        s.topValues = []
        finishedRoot = root
        s.isFinished = true
        return root
    }

    // MARK: Internals

    /// Takes the "encode as a collection element" request, if there is one.
    @inline(__always)
    private func takeCapture() -> Bool {
        if s.capturing {
            s.capturing = false
            return true
        }
        return false
    }

    /// The Foundation classes the archiver writes itself, with cached class-dictionary UIDs. Names,
    /// chains and member keys come from ``FoundationClassCatalogue``.
    private enum BuiltinClass: Int, CaseIterable {
        case date, uuid, url, array, set, dictionary, orderedSet
        /// The `$classes` chains, by raw value (resolved once).
        static let chains: [[String]] = allCases.map { $0.entry.chain }
        var entry: FoundationClass {
            switch self {
            case .date: return FoundationClassCatalogue.date
            case .uuid: return FoundationClassCatalogue.uuid
            case .url: return FoundationClassCatalogue.url
            case .array: return FoundationClassCatalogue.array
            case .orderedSet: return FoundationClassCatalogue.orderedSet
            case .set: return FoundationClassCatalogue.set
            case .dictionary: return FoundationClassCatalogue.dictionary
            }
        }
    }

    /// The member keys the archiver writes (resolved from the catalogue once).
    private enum MemberKeys {
        static let time = FoundationClassCatalogue.date.key(.time)
        static let uuidBytes = FoundationClassCatalogue.uuid.key(.uuidBytes)
        static let base = FoundationClassCatalogue.url.key(.base)
        static let relative = FoundationClassCatalogue.url.key(.relative)
        static let objects = FoundationClassCatalogue.array.key(.elements)
        static let keys = FoundationClassCatalogue.dictionary.key(.keys)
        static let dictionaryObjects = FoundationClassCatalogue.dictionary.key(.elements)
        static let orderedSetPrefix = FoundationClassCatalogue.orderedSet.key(.elements)
    }

    /// The UID ref of a Foundation class's class dictionary.
    @inline(__always)
    private func classRef(_ builtin: BuiltinClass) -> Ref {
        let cached = s.builtinClassUIDs[builtin.rawValue]
        if cached >= 0 { return KeyedArchiveEmitter.uid(cached) }
        let chain = BuiltinClass.chains[builtin.rawValue]
        let uid = classUID(forBuiltin: chain[0], chain: chain)
        s.builtinClassUIDs[builtin.rawValue] = uid
        return KeyedArchiveEmitter.uid(uid)
    }

    private func checkOpen() throws {
        if s.isFinished {
            throw KeyedArchiveError(.invalidValue, "encoding after finishEncoding()")
        }
    }

    /// Stores the scalar `value` as the field `key`, or as the captured element. A scalar element, and a
    /// scalar under a `$top` key, is its own `$objects` entry (an NSNumber object) referenced by UID: Apple
    /// always writes `$top`'s values as UIDs, and Foundation's unarchiver rejects anything else there.
    @inline(__always)
    private func put(inline value: Ref, forKey key: String) {
        if takeCapture() {
            s.captured = s.emitter.appendElement(value)
        } else if s.currentContainer < 0 {
            setField(key, KeyedArchiveEmitter.uid(s.emitter.appendElement(value)))
        } else {
            setField(key, value)
        }
    }

    @inline(__always)
    private func put(reference uid: Int, asElement: Bool, forKey key: String) {
        if asElement { s.captured = uid } else { setField(key, KeyedArchiveEmitter.uid(uid)) }
    }

    /// Stores a field (last one wins) and returns its position in the object.
    @inline(__always)
    @discardableResult
    private func setField(_ key: String, _ value: Ref) -> Int {
        var (exact, canonical) = s.emitter.fieldKey(key)
        if s.currentContainer < 0 {
            canonical = s.emitter.topKeyClass(key, exact: exact)
            if let i = s.topCanonicalKeys.firstIndex(of: canonical) {
                s.topValues[i] = value
                return i
            }
            s.topKeys.append(exact)
            s.topCanonicalKeys.append(canonical)
            s.topValues.append(value)
            return s.topKeys.count - 1
        }
        // A repeated key (the same field for ``KeyedArchiveEmitter/fieldKey(_:)``): last one wins.
        var i = 0
        while i < s.fieldCanonicalKeys.count {
            if s.fieldCanonicalKeys[i] == canonical {
                s.fieldValues[i] = value
                return i
            }
            i += 1
        }
        s.fieldKeys.append(exact)
        s.fieldCanonicalKeys.append(canonical)
        s.fieldValues.append(value)
        return s.fieldKeys.count - 1
    }

    /// The UID of `value` written as a collection element (a scalar becomes its own object).
    private func reference<T: ArchiveValue>(for value: T) throws -> Int {
        s.capturing = true
        s.captured = -1
        try value.encode(to: self, forKey: "")
        if s.capturing {
            s.capturing = false
            throw KeyedArchiveError(.invalidValue, "\(T.self).encode(to:forKey:) wrote nothing; it must call exactly one encoder method")
        }
        guard s.captured >= 0 else {
            throw KeyedArchiveError(.invalidValue, "\(T.self).encode(to:forKey:) wrote nothing; it must call exactly one encoder method")
        }
        let result = s.captured
        s.captured = -1
        return result
    }

    /// The UID of the class dictionary `{"$classname": name, "$classes": chain}`, added on first use.
    private func classUID(forBuiltin name: String, chain: [String]) -> Int {
        if let uid = s.classUIDsByName[name] { return uid }
        let names = s.emitter.newContainer()
        for c in chain { s.elementRefs.append(s.emitter.string(c)) }
        let base = s.elementRefs.count - chain.count
        s.emitter.completeArray(names, s.elementRefs, from: base)
        s.elementRefs.removeLast(chain.count)
        let (uid, dictionary) = s.emitter.appendContainerElement()
        s.emitter.completeDictionary(dictionary, s.emitter.string("$classname"), s.emitter.string(name),
                                     s.emitter.string("$classes"), KeyedArchiveEmitter.ref(container: names))
        s.classUIDsByName[name] = uid
        return uid
    }

    private func classUID(for type: any KeyedArchivable.Type) -> Int {
        let id = ObjectIdentifier(type)
        if let uid = s.classUIDsByType[id] { return uid }
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
        s.classUIDsByType[id] = uid
        return uid
    }

    /// Writes the fields of every queued object (iteratively: objects found on the way join the queue).
    private func drain() throws {
        let savedContainer = s.currentContainer
        defer { s.currentContainer = savedContainer }
        while s.queueHead < s.queue.count {
            let (container, value) = s.queue[s.queueHead]
            s.queueHead += 1
            s.currentContainer = container
            s.fieldKeys.removeAll(keepingCapacity: true)
            s.fieldCanonicalKeys.removeAll(keepingCapacity: true)
            s.fieldValues.removeAll(keepingCapacity: true)
            let classRef = KeyedArchiveEmitter.uid(classUID(for: Swift.type(of: value)))
            s.fieldKeys.append(classKey)
            s.fieldCanonicalKeys.append(classKey)
            s.fieldValues.append(classRef)
            try value.encode(to: self)
            s.emitter.completeDictionary(container, keys: s.fieldKeys, values: s.fieldValues)
        }
        s.queue.removeAll(keepingCapacity: false)
        s.queueHead = 0
    }

    /// Whether `type` is a class (cached: a dynamic cast per object is costly).
    @inline(__always)
    private func isClass<T>(_ type: T.Type) -> Bool {
        let id = ObjectIdentifier(type)
        if let lastKind = s.lastKind, lastKind.0 == id { return lastKind.1 }
        let kind: Bool
        if let known = s.classKinds[id] {
            kind = known
        } else {
            kind = type is AnyClass
            s.classKinds[id] = kind
        }
        s.lastKind = (id, kind)
        return kind
    }

    // MARK: ArchiveEncoder

    public func encode(_ value: Bool, forKey key: String) throws {
        try checkOpen()
        put(inline: s.emitter.bool(value), forKey: key)
    }

    public func encodeInteger<T: FixedWidthInteger>(_ value: T, forKey key: String) throws {
        try checkOpen()
        // Fast path for the common widths (this generic requirement runs unspecialized through `any ArchiveEncoder`).
        if T.self == Int.self {
            put(inline: s.emitter.integer(Int64(unsafeBitCast(value, to: Int.self))), forKey: key)
            return
        }
        guard let integer = PropertyListInteger(exactly: value) else {
            throw KeyedArchiveError(.invalidValue, "integer \(value) does not fit in 64 bits", keyPath: key)
        }
        put(inline: s.emitter.integer(integer), forKey: key)
    }

    public func encode(_ value: Float, forKey key: String) throws {
        try checkOpen()
        put(inline: s.emitter.float(value), forKey: key)
    }

    public func encode(_ value: Double, forKey key: String) throws {
        try checkOpen()
        put(inline: s.emitter.real(value), forKey: key)
    }

    public func encode(_ value: String, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        put(reference: s.emitter.appendElement(s.emitter.string(value)), asElement: asElement, forKey: key)
    }

    public func encode(_ value: Data, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        put(reference: s.emitter.appendElement(s.emitter.data(value)), asElement: asElement, forKey: key)
    }

    public func encode(_ value: Date, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        let cls = classRef(.date)
        let (uid, object) = s.emitter.appendContainerElement()
        s.emitter.completeDictionary(object, classKey, cls, timeKey, s.emitter.real(value.timeIntervalSinceReferenceDate))
        put(reference: uid, asElement: asElement, forKey: key)
    }

    public func encode(_ value: UUID, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        let bytes = withUnsafeBytes(of: value.uuid) { Data($0) }
        let cls = classRef(.uuid)
        let (uid, object) = s.emitter.appendContainerElement()
        s.emitter.completeDictionary(object, classKey, cls, uuidBytesKey, s.emitter.data(bytes))
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
        let relative = s.emitter.appendElement(s.emitter.string(url.relativeString))
        let cls = classRef(.url)
        let (uid, object) = s.emitter.appendContainerElement()
        s.emitter.completeDictionary(object, classKey, cls, baseKey, KeyedArchiveEmitter.uid(base), relativeKey, KeyedArchiveEmitter.uid(relative))
        return uid
    }

    /// Writes an integer as its own NSNumber object, referenced by UID (as Apple writes NSValue's range members).
    public func encodeIntegerObject<T: FixedWidthInteger>(_ value: T, forKey key: String) throws {
        try checkOpen()
        guard let integer = PropertyListInteger(exactly: value) else {
            throw KeyedArchiveError(.invalidValue, "integer \(value) does not fit in 64 bits", keyPath: key)
        }
        let asElement = takeCapture()
        put(reference: s.emitter.appendElement(s.emitter.integer(integer)), asElement: asElement, forKey: key)
    }

    /// Writes a `Double` as its own NSNumber object, referenced by UID.
    public func encodeRealObject(_ value: Double, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        put(reference: s.emitter.appendElement(s.emitter.real(value)), asElement: asElement, forKey: key)
    }

    /// Writes a Boolean as its own NSNumber object, referenced by UID.
    public func encodeBoolObject(_ value: Bool, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        put(reference: s.emitter.appendElement(s.emitter.bool(value)), asElement: asElement, forKey: key)
    }

    /// Writes a string inline in the current object (as Apple writes NSMutableString's `NS.string`).
    public func encodeInline(_ value: String, forKey key: String) throws {
        try checkOpen()
        put(inline: s.emitter.string(value), forKey: key)
    }

    /// Writes bytes inline in the current object (as Apple writes NSMutableData's `NS.data`).
    public func encodeInline(_ value: Data, forKey key: String) throws {
        try checkOpen()
        put(inline: s.emitter.data(value), forKey: key)
    }

    public func encodeNil(forKey key: String) throws {
        try checkOpen()
        if takeCapture() {
            throw KeyedArchiveError(.invalidValue,
                                    "an archived array, set or dictionary cannot hold nil (NSArray cannot); use ArchiveNull",
                                    keyPath: key)
        }
        setField(key, KeyedArchiveEmitter.uid(0))
    }

    public func encodeObject<T: KeyedArchivable>(_ object: T, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        let uid: Int
        if isClass(T.self) {
            // T is a concrete class type here, so the value is one object reference: its address is the
            // identity (read without retaining the instance; a new one is retained below).
            let address = withUnsafeBytes(of: object) { $0.load(as: UInt.self) }
            if let known = s.identities.uid(for: address) {
                uid = known
            } else {
                let (newUID, container) = s.emitter.appendContainerElement()
                uid = newUID
                s.identities.insert(address, uid: uid)
                s.retained.append(unsafeBitCast(object, to: AnyObject.self))
                s.queue.append((container, object))
            }
        } else {
            let (newUID, container) = s.emitter.appendContainerElement()
            uid = newUID
            s.queue.append((container, object))
        }
        put(reference: uid, asElement: asElement, forKey: key)
        if s.currentContainer < 0 && !asElement { try drain() }
    }

    public func encodeConditionalObject<T: KeyedArchivable & AnyObject>(_ object: T?, forKey key: String) throws {
        try checkOpen()
        guard let object else {
            if s.capturing { s.capturing = false; s.captured = 0 } else { setField(key, KeyedArchiveEmitter.uid(0)) }
            return
        }
        if s.capturing {
            // As a collection element there is no field to patch later: encode it unconditionally.
            try encodeObject(object, forKey: key)
            return
        }
        if let known = s.identities.uid(for: UInt(bitPattern: ObjectIdentifier(object))) {
            setField(key, KeyedArchiveEmitter.uid(known))
        } else {
            let field = setField(key, KeyedArchiveEmitter.uid(0))
            s.pendingConditionals.append((s.currentContainer, field, object))
        }
    }

    /// Encodes each element as its own object and returns where their UID refs start in `elementRefs`.
    private func appendElementRefs<S: Sequence>(_ elements: S) throws -> Int where S.Element: ArchiveValue {
        let base = s.elementRefs.count
        for element in elements { s.elementRefs.append(KeyedArchiveEmitter.uid(try reference(for: element))) }
        return base
    }

    public func encodeArray<T: ArchiveValue>(_ elements: [T], forKey key: String) throws {
        try encodeList(elements, as: .array, forKey: key)
    }

    /// Writes `elements` in order as an `NSOrderedSet` (`NS.object.0`, `NS.object.1`, ...: one UID member per
    /// element, as Apple writes it). The corresponding Foundation API is
    /// `NSCoder.encode(_:forKey:)` with an `NSOrderedSet`.
    public func encodeOrderedSet<T: ArchiveValue>(_ elements: [T], forKey key: String) throws {
        try encodeList(elements, as: .orderedSet, forKey: key)
    }

    /// An `NSArray`, `NSOrderedSet` or `NSSet` of `elements`, in their order.
    private func encodeList<S: Sequence>(_ elements: S, as builtin: BuiltinClass, forKey key: String) throws
        where S.Element: ArchiveValue
    {
        try checkOpen()
        let asElement = takeCapture()
        // Nested Foundation values (arrays of arrays of ...) are written with an explicit stack, so no depth
        // overflows the thread's stack; the objects and their order are those of the recursive path.
        if S.Element.self == FoundationValue.self, let values = elements as? [FoundationValue] {
            let uid = try encodeFoundationLists(values, as: builtin)
            put(reference: uid, asElement: asElement, forKey: key)
            if s.currentContainer < 0 && !asElement { try drain() }
            return
        }
        let (uid, object) = s.emitter.appendContainerElement()
        let base = s.elementRefs.count
        defer { s.elementRefs.removeLast(s.elementRefs.count - base) }
        _ = try appendElementRefs(elements)
        try completeList(uid: uid, object: object, base: base, as: builtin)
        put(reference: uid, asElement: asElement, forKey: key)
        if s.currentContainer < 0 && !asElement { try drain() }
    }

    /// Writes an `NSArray`/`NSSet`/`NSOrderedSet`/`NSDictionary` of Foundation values whose nested arrays,
    /// ordered sets, sets and dictionaries are written iteratively (one frame per open collection, on the
    /// heap); returns the collection's UID. For `.dictionary`, `root` holds keys and values interleaved.
    ///
    /// Each collection takes its UID before its elements and writes its reference arrays after them, exactly
    /// as ``encodeList(_:as:forKey:)`` and ``encodeDictionary(_:forKey:)`` do when they recurse, so the bytes
    /// are the same.
    private func encodeFoundationLists(_ root: [FoundationValue], as builtin: BuiltinClass) throws -> Int {
        struct Frame {
            var elements: [FoundationValue]
            var next: Int
            let builtin: BuiltinClass
            let uid: Int
            let object: Int
            let base: Int
        }
        let outerBase = s.elementRefs.count
        defer { s.elementRefs.removeLast(s.elementRefs.count - outerBase) }
        let (rootUID, rootObject) = s.emitter.appendContainerElement()
        var frames = [Frame(elements: root, next: 0, builtin: builtin, uid: rootUID, object: rootObject, base: outerBase)]
        while true {
            let top = frames.count - 1
            if frames[top].next < frames[top].elements.count {
                let element = frames[top].elements[frames[top].next]
                frames[top].next += 1
                if let (items, nested) = Self.nestedCollection(element) {
                    let (uid, object) = s.emitter.appendContainerElement()
                    frames.append(Frame(elements: items, next: 0, builtin: nested, uid: uid, object: object,
                                        base: s.elementRefs.count))
                } else {
                    s.elementRefs.append(KeyedArchiveEmitter.uid(try reference(for: element)))
                }
                continue
            }
            let frame = frames.removeLast()
            if frame.builtin == .dictionary {
                completeDictionary(object: frame.object, base: frame.base)
            } else {
                try completeList(uid: frame.uid, object: frame.object, base: frame.base, as: frame.builtin)
            }
            s.elementRefs.removeLast(s.elementRefs.count - frame.base)
            guard !frames.isEmpty else { return frame.uid }
            s.elementRefs.append(KeyedArchiveEmitter.uid(frame.uid))
        }
    }

    /// The elements a nested Foundation collection is written from, in the order the recursive path writes
    /// them, and its class: a set's distinct elements, a dictionary's keys and values interleaved (ascending
    /// by key when the keys are ordered, as ``encodeDictionary(_:forKey:)`` writes them); `nil` for any
    /// other value.
    private static func nestedCollection(_ value: FoundationValue) -> ([FoundationValue], BuiltinClass)? {
        switch value {
        case .array(let items): return (items.elements, .array)
        case .orderedSet(let items): return (items.elements, .orderedSet)
        case .set(let items): return (distinctElements(items.elements), .set)
        case .dictionary(let d): return (interleavedEntries(d.dictionary), .dictionary)
        default: return nil
        }
    }

    /// The distinct elements of `items`, in order (what ``encodeSet(orderedElements:forKey:)`` writes).
    private static func distinctElements<T: Hashable>(_ items: [T]) -> [T] {
        guard items.count > 1 else { return items }
        var seen = Set<T>(minimumCapacity: items.count)
        return items.filter { seen.insert($0).inserted }
    }

    /// Keys and values interleaved, in the order ``encodeDictionary(_:forKey:)`` writes them.
    private static func interleavedEntries(_ d: [FoundationValue: FoundationValue]) -> [FoundationValue] {
        var out: [FoundationValue] = []
        out.reserveCapacity(d.count * 2)
        if let entries = CanonicalOrder.orderedEntries(of: d) {
            for (k, v) in entries { out.append(k); out.append(v) }
        } else {
            for (k, v) in d { out.append(k); out.append(v) }
        }
        return out
    }

    /// Completes dictionary object `object` from the key and value refs interleaved at `base...` of
    /// `elementRefs`: an `NS.keys` array and an `NS.objects` array.
    private func completeDictionary(object: Int, base: Int) {
        let keys = s.emitter.newContainer()
        s.emitter.completeArray(keys, s.elementRefs, from: base, stride: 2)
        let values = s.emitter.newContainer()
        s.emitter.completeArray(values, s.elementRefs, from: base + 1, stride: 2)
        s.emitter.completeDictionary(object, classKey, classRef(.dictionary), keysKey, KeyedArchiveEmitter.ref(container: keys),
                                   dictionaryObjectsKey, KeyedArchiveEmitter.ref(container: values))
    }

    /// Completes list object `object` from the element refs at `base...` of `elementRefs`.
    @inline(__always)
    private func completeList(uid: Int, object: Int, base: Int, as builtin: BuiltinClass) throws {
        if builtin == .orderedSet {
            // Apple's layout: one member per element, `NS.object.<index>` = UID.
            let count = s.elementRefs.count - base
            while s.elementKeys.count < count { s.elementKeys.append(s.emitter.string(MemberKeys.orderedSetPrefix + String(s.elementKeys.count))) }
            var keys = [classKey]
            keys.append(contentsOf: s.elementKeys[0 ..< count])
            var values = [classRef(builtin)]
            values.append(contentsOf: s.elementRefs[base...])
            s.emitter.completeDictionary(object, keys: keys, values: values)
            return
        }
        let array = s.emitter.newContainer()
        s.emitter.completeArray(array, s.elementRefs, from: base)
        s.emitter.completeDictionary(object, classKey, classRef(builtin), objectsKey, KeyedArchiveEmitter.ref(container: array))
    }

    /// Writes `elements` as an `NSSet` (`NS.objects`): in ascending order when `T` is `Comparable` (so that
    /// the same set gives the same bytes; see the type's notes on output), otherwise in the set's own order.
    public func encodeSet<T: ArchiveValue & Hashable>(_ elements: Set<T>, forKey key: String) throws {
        if let ordered = CanonicalOrder.orderedElements(of: elements) {
            try encodeList(ordered, as: .set, forKey: key)
        } else {
            try encodeList(elements, as: .set, forKey: key)
        }
    }

    /// Writes the distinct elements of `elements` in the order given as an `NSSet` (`NS.objects`).
    public func encodeSet<T: ArchiveValue & Hashable>(orderedElements elements: [T], forKey key: String) throws {
        try encodeList(Self.distinctElements(elements), as: .set, forKey: key)
    }

    /// Writes `dictionary` as an `NSDictionary` (`NS.keys`, `NS.objects`): ascending by key when `K` is
    /// `Comparable` (so that the same dictionary gives the same bytes; see the type's notes on output),
    /// otherwise in the dictionary's own order.
    public func encodeDictionary<K: ArchiveValue & Hashable, V: ArchiveValue>(_ dictionary: [K: V], forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        // Nested Foundation values are written with an explicit stack, as in `encodeList(_:as:forKey:)`.
        if K.self == FoundationValue.self, V.self == FoundationValue.self {
            // The same dictionary, not a cast copy: a copy could iterate in another order.
            let values = unsafeBitCast(dictionary, to: [FoundationValue: FoundationValue].self)
            let uid = try encodeFoundationLists(Self.interleavedEntries(values), as: .dictionary)
            put(reference: uid, asElement: asElement, forKey: key)
            if s.currentContainer < 0 && !asElement { try drain() }
            return
        }
        let (uid, object) = s.emitter.appendContainerElement()
        let base = s.elementRefs.count
        defer { s.elementRefs.removeLast(s.elementRefs.count - base) }
        // Keys and values interleaved; split into the two arrays below.
        func append(_ k: K, _ v: V) throws {
            s.elementRefs.append(KeyedArchiveEmitter.uid(try reference(for: k)))
            s.elementRefs.append(KeyedArchiveEmitter.uid(try reference(for: v)))
        }
        if let entries = CanonicalOrder.orderedEntries(of: dictionary) {
            for (k, v) in entries { try append(k, v) }
        } else {
            for (k, v) in dictionary { try append(k, v) }
        }
        completeDictionary(object: object, base: base)
        put(reference: uid, asElement: asElement, forKey: key)
        if s.currentContainer < 0 && !asElement { try drain() }
    }
}
