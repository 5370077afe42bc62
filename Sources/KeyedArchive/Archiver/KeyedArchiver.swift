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
/// - `$top` is the archiver's own container, written as Foundation's and GNUstep's archivers write it:
///   a `Bool`, integer, `Float` or `Double` encoded on the archiver itself (`encode(true, forKey:)`) and
///   bytes written with `encodeInline(_: Data, forKey:)` (Foundation's `encodeBytes`) are inline there;
///   strings, `Data`, dates, models and collections are UIDs. A scalar root of
///   ``archivedData(withRootObject:format:)`` (such as `archivedData(withRootObject: 42)`) is its own
///   `$objects` entry (an NSNumber) referenced by UID, as Apple's `encodeObject(_:forKey:)` writes a root;
///   so are scalars written with ``encodeIntegerObject(_:forKey:)``, ``encodeBoolObject(_:forKey:)`` and
///   ``encodeRealObject(_:forKey:)``;
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
/// bytes are exactly those ``BinaryPropertyListWriter`` writes for the archive's tree (``encodedPropertyList()``),
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
    typealias Ref = KeyedArchiveEmitter.Ref

    /// The archiver's mutable state, kept in an ``UncheckedExclusiveState`` (which says why and what keeps
    /// it safe): no access to it spans a call into a model's `encode(to:)`.
    struct State {
        var emitter = KeyedArchiveEmitter()
        /// The fields of the object being encoded (`$top`'s are kept apart), and a bit per canonical key id
        /// modulo 64 among them: a key whose bit is clear is new, without comparing it with every field.
        var fields: [KeyedArchiveEmitter.Field] = []
        var fieldMask: UInt64 = 0
        var topKeys: [Ref] = []
        var topCanonicalKeys: [Ref] = []
        var topValues: [Ref] = []
        /// The container of the object whose fields are being written; nil: writing `$top`.
        var currentContainer: ArchiveContainerID?
        /// Whether a scalar written to `$top` becomes an object referenced by UID (true only while
        /// ``encodeRootObject(_:forKey:)`` writes the root) rather than an inline value.
        var encodesRootObject = false
        var identities = ArchivedObjectIdentities()
        /// Every object queued so far, with its container; ``drain()`` writes the fields of those from
        /// `queueHead` on. Entries stay until the archive is finished: they keep the archived instances
        /// alive, so that no address in `identities` is reused for another object (one reference per
        /// instance, not a second array of them that would be retained and released again).
        var queue: [(container: ArchiveContainerID, uid: ArchiveObjectID, value: any KeyedArchivable)] = []
        var queueHead = 0
        var classUIDsByType: [ObjectIdentifier: ArchiveObjectID] = [:]
        /// The last entry of `classUIDsByType` used (objects of one class usually follow each other in the queue).
        var lastClassUID: (ObjectIdentifier, ArchiveObjectID)?
        var classUIDsByName: [String: ArchiveObjectID] = [:]
        var capturing = false
        /// The UID written by a collection element's encode (see ``reference(for:)``); nil when none.
        var captured: ArchiveObjectID?
        /// Element refs of the collections being encoded (nested collections stack theirs above).
        var elementRefs: [Ref] = []
        /// Conditional references to objects not (yet) archived: the field to set if they are, at the end.
        var pendingConditionals: [(owner: ArchiveContainerID?, field: Int, object: AnyObject)] = []
        var isFinished = false
        var builtinClassUIDs: [ArchiveObjectID?] = Array(repeating: nil, count: BuiltinClass.allCases.count)
        var classKinds: [ObjectIdentifier: Bool] = [:]
        var lastKind: (ObjectIdentifier, Bool)?
        /// Interned `NS.object.0`, `NS.object.1`, ... (an ordered set's member keys), grown on demand.
        var elementKeys: [Ref] = []
        /// The object whose fields are being written, and whether it is a Codable one; the plain references
        /// Codable objects make (see `KeyedArchiver+CodableCycles.swift`).
        var drainedUID = ArchiveObjectID(0)
        var drainedIsCodable = false
        var writingBackReference = false
        var codableReferences: [CodableReference] = []
        var codableReferenceKeys: [(reference: Int, key: String)] = []
        /// The adapter that writes the fields of every Codable object ``drain()`` writes (see
        /// ``reusableCodableObjectEncoder()``); it refers to this archiver, so ``drain()`` drops it when it returns.
        var codableObjectEncoder: ArchiveCodableEncoder?
    }

    let state: UncheckedExclusiveState<State>

    /// The state, without run-time exclusivity checks (see ``UncheckedExclusiveState``).
    var s: State {
        @inline(__always) unsafeAddress { state.readAddress }
        @inline(__always) unsafeMutableAddress { state.writeAddress }
    }
    /// The output format and class names chosen up front (``Configuration``);
    /// ``setClassName(_:for:)-(_,KeyedArchivable.Type)`` and ``setClassName(_:for:)-(_,T.Type)`` add to it.
    public private(set) var configuration: Configuration
    var finishedData: Data?
    var finishedTree: PropertyListValue?
    /// The root container once the archive is complete.
    var finishedRoot: ArchiveContainerID?
    /// Interned keys the archiver writes itself.
    let classKey, timeKey, uuidBytesKey, baseKey, relativeKey, objectsKey, keysKey, dictionaryObjectsKey: Ref

    /// Creates an empty archiver that writes as `configuration` says.
    ///
    /// The corresponding Foundation API is `NSKeyedArchiver(requiringSecureCoding:)`, then setting its
    /// `outputFormat` and calling `setClassName(_:for:)`.
    /// - Parameter configuration: the output format and class names; by default binary and each type's own name.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
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
        state = UncheckedExclusiveState(initial)
    }

    deinit {
        s.emitter.discard()
        state.destroy()
    }

    // MARK: Class names

    /// Writes instances of `type` with the class name `name` instead of `type.archivedClassName`.
    ///
    /// The corresponding Foundation API is `NSKeyedArchiver.setClassName(_:for:)` (which has no effect on Linux).
    /// The `$classes` chain keeps the type's declared superclasses after `name`.
    public func setClassName(_ name: String, for type: any KeyedArchivable.Type) {
        configuration.setClassName(name, for: type)
    }

    /// Writes values of `type` with the class name `name`: a model (an ``ArchivableCodable`` type is the model it
    /// is) or a plain `Codable` value stored inside an ``ArchivableCodable`` model, which is otherwise written
    /// under its ``ArchiveNamed/archivedClassName`` (its type's name).
    ///
    /// The corresponding Foundation API is `NSKeyedArchiver.setClassName(_:for:)`.
    /// - Parameters:
    ///   - name: the `$classname` to write (an older name, for readers that know only that one).
    ///   - type: the type whose values are written under it.
    public func setClassName<T: Encodable>(_ name: String, for type: T.Type) {
        if let model = type as? any KeyedArchivable.Type {
            configuration.classNames[ObjectIdentifier(model)] = name
        } else {
            configuration.classNames[ObjectIdentifier(CodableEncodedObject<T>.self)] = name
        }
    }

    /// The class name set with ``setClassName(_:for:)-(_,KeyedArchivable.Type)`` for `type`, if any.
    public func className(for type: any KeyedArchivable.Type) -> String? {
        configuration.className(for: type)
    }

    // MARK: Internals

    /// Takes the "encode as a collection element" request, if there is one.
    @inline(__always)
    func takeCapture() -> Bool {
        if s.capturing {
            s.capturing = false
            return true
        }
        return false
    }

    /// The Foundation classes the archiver writes itself, with cached class-dictionary UIDs. Names,
    /// chains and member keys come from ``FoundationClassCatalogue``.
    enum BuiltinClass: Int, CaseIterable {
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
    enum MemberKeys {
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
    func classRef(_ builtin: BuiltinClass) -> Ref {
        if let cached = s.builtinClassUIDs[builtin.rawValue] { return KeyedArchiveEmitter.uid(cached) }
        let chain = BuiltinClass.chains[builtin.rawValue]
        let uid = classUID(forBuiltin: chain[0], chain: chain)
        s.builtinClassUIDs[builtin.rawValue] = uid
        return KeyedArchiveEmitter.uid(uid)
    }

    /// Throws when the archive is finished. Inlined into every encode, so that the common case is one
    /// load and a branch rather than a call per field.
    @inline(__always)
    func checkOpen() throws {
        if s.isFinished { try Self.throwFinished() }
    }

    @inline(never)
    private static func throwFinished() throws -> Never {
        throw KeyedArchiveError(.invalidValue, "encoding after finishEncoding()")
    }

    /// Stores the scalar `value` as the field `key` of the current object or of `$top`, inline, as
    /// Foundation's and GNUstep's `encodeBool`/`encodeInteger`/`encodeDouble`/`encodeBytes` write it in
    /// both. Two cases make it its own `$objects` entry (an NSNumber, NSString or NSData object) referenced
    /// by UID instead: a collection element, and the root of ``archivedData(withRootObject:format:)`` (see
    /// ``State/encodesRootObject``).
    @inline(__always)
    func put(inline value: Ref, forKey key: String) {
        if takeCapture() {
            s.captured = s.emitter.appendElement(value)
        } else if s.currentContainer == nil && s.encodesRootObject {
            setField(key, KeyedArchiveEmitter.uid(s.emitter.appendElement(value)))
        } else {
            setField(key, value)
        }
    }

    /// Writes `value` under the `$top` key `key` as an object, as `NSKeyedArchiver.encodeObject(_:forKey:)`
    /// writes the root of `archivedData(withRootObject:)`: a scalar becomes its own `$objects` entry (an
    /// NSNumber) referenced by UID, where ``encode(_:forKey:)-(T,_)`` on the archiver writes it inline.
    func encodeRootObject<T: ArchiveValue>(_ value: T, forKey key: String) throws {
        s.encodesRootObject = true
        defer { s.encodesRootObject = false }
        try encode(value, forKey: key)
    }

    @inline(__always)
    func put(reference uid: ArchiveObjectID, asElement: Bool, forKey key: String) {
        if asElement { s.captured = uid } else { setField(key, KeyedArchiveEmitter.uid(uid)) }
    }

    /// Stores a field (last one wins) and returns its position in the object.
    @inline(__always)
    @discardableResult
    func setField(_ key: String, _ value: Ref) -> Int {
        var (exact, canonical) = s.emitter.fieldKey(key)
        if s.currentContainer == nil {
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
        let bit = Self.fieldBit(canonical)
        if s.fieldMask & bit != 0 {
            var i = 0
            while i < s.fields.count {
                if s.fields[i].canonical == canonical {
                    s.fields[i].value = value
                    return i
                }
                i += 1
            }
        }
        s.fieldMask |= bit
        s.fields.append(KeyedArchiveEmitter.Field(key: exact, canonical: canonical, value: value))
        return s.fields.count - 1
    }

    /// The bit of a canonical key id in ``State/fieldMask``.
    @inline(__always)
    static func fieldBit(_ canonical: Ref) -> UInt64 { 1 << UInt64(canonical & 63) }

    /// The UID of `value` written as a collection element (a scalar becomes its own object).
    func reference<T: ArchiveValue>(for value: T) throws -> ArchiveObjectID {
        s.capturing = true
        s.captured = nil
        try value.encode(to: self, forKey: "")
        if s.capturing {
            s.capturing = false
            throw KeyedArchiveError(.invalidValue, "\(T.self).encode(to:forKey:) wrote nothing; it must call exactly one encoder method")
        }
        guard let result = s.captured else {
            throw KeyedArchiveError(.invalidValue, "\(T.self).encode(to:forKey:) wrote nothing; it must call exactly one encoder method")
        }
        s.captured = nil
        return result
    }

    /// The UID of the class dictionary `{"$classname": name, "$classes": chain}`, added on first use.
    func classUID(forBuiltin name: String, chain: [String]) -> ArchiveObjectID {
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

    /// - Throws: ``KeyedArchiveError/Code/invalidValue`` when the type's own name holds a memory address
    ///   (``ArchivedClassNameRules/holdsAddress(_:)``).
    func classUID(for type: any KeyedArchivable.Type) throws -> ArchiveObjectID {
        let id = ObjectIdentifier(type)
        if let last = s.lastClassUID, last.0 == id { return last.1 }
        if let uid = s.classUIDsByType[id] {
            s.lastClassUID = (id, uid)
            return uid
        }
        var chain = type.archivedClassChain
        let name: String
        if let mapped = configuration.classNames[id] {
            name = mapped
            if chain.isEmpty { chain = [mapped, "NSObject"] } else { chain[0] = mapped }
        } else {
            name = type.archivedClassName
            if ArchivedClassNameRules.holdsAddress(name) { throw ArchivedClassNameRules.unstableNameError(name: name) }
            if chain.isEmpty { chain = [name, "NSObject"] }
        }
        let uid = classUID(forBuiltin: name, chain: chain)
        s.classUIDsByType[id] = uid
        s.lastClassUID = (id, uid)
        return uid
    }

    /// Writes the fields of every queued object (iteratively: objects found on the way join the queue).
    func drain() throws {
        let savedContainer = s.currentContainer
        defer {
            s.currentContainer = savedContainer
            if savedContainer == nil, let adapter = s.codableObjectEncoder {
                adapter.forgetKeyedContainers()
                s.codableObjectEncoder = nil
            }
        }
        while s.queueHead < s.queue.count {
            let (container, uid, value) = s.queue[s.queueHead]
            s.queueHead += 1
            s.currentContainer = container
            s.drainedUID = uid
            s.drainedIsCodable = false
            s.fields.removeAll(keepingCapacity: true)
            let classRef = KeyedArchiveEmitter.uid(try classUID(for: Swift.type(of: value)))
            s.fields.append(KeyedArchiveEmitter.Field(key: classKey, canonical: classKey, value: classRef))
            s.fieldMask = Self.fieldBit(classKey)
            try value.encode(to: self)
            s.emitter.completeDictionary(container, fields: s.fields)
        }
        if !s.codableReferences.isEmpty { try checkCodableReferencesCloseNoCycle() }
    }

    /// The Codable adapter for the fields of the object being written, the same for every object of the
    /// drain: nil outside ``drain()`` (the adapter and the archiver refer to each other until the drain
    /// drops it) and while the adapter is writing another object (a model's encode writing one more itself).
    func reusableCodableObjectEncoder() -> ArchiveCodableEncoder? {
        guard s.currentContainer != nil else { return nil }
        if let adapter = s.codableObjectEncoder { return adapter.isWritingObject ? nil : adapter }
        let adapter = ArchiveCodableEncoder(reusedBy: self)
        s.codableObjectEncoder = adapter
        return adapter
    }

    /// Whether `type` is a class (cached: a dynamic cast per object is costly).
    @inline(__always)
    func isClass<T>(_ type: T.Type) -> Bool {
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
}
