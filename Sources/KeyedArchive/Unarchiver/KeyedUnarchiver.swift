#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads NSKeyedArchiver archives into typed Swift values, securely.
///
/// The corresponding Foundation class is `NSKeyedUnarchiver` with `requiresSecureCoding` on.
///
/// ## What is checked, and when
/// - **Allow-lists at every step.** The top level asks for one type (``decode(_:forKey:from:)``)
///   or one of several (``decodeObject(ofTypes:forKey:from:)``); inside ``KeyedArchivable/init(from:)``
///   each field is read with the type it may be. An archive can only produce instances of the types named
///   at that point, plus plain values the call asks for (strings, numbers, data, dates, UUIDs, URLs).
///   Arrays, sets and dictionaries are only read where the call asks for one, with its element types.
/// - **Before instantiation.** The archive's claimed `$classname` is compared with the allowed types'
///   ``KeyedArchivable/archivedClassName`` and ``KeyedArchivable/legacyClassNames`` (and names registered
///   with ``setClass(_:forClassName:)-(KeyedArchivable.Type,_)``, or moved with ``mapModule(_:to:)``)
///   *before* any initializer runs. The `$classes` chain is never consulted: an archive cannot widen what is
///   allowed by claiming an allowed superclass.
/// - **Subclasses** of an allowed class are accepted only when registered with
///   ``setClass(_:forClassName:)-(KeyedArchivable.Type,_)``.
///   Nothing is ever looked up by name at run time (there is no `NSClassFromString`).
/// - **Shared objects** met again through a second reference are checked against the second field's
///   allowed types too (Foundation only checks the first time).
/// - **Limits** (``Limits``) bound the number of objects, the collection elements (each decode of a shared
///   collection counted again), the bytes of strings and data, and the nesting depth; exceeding one throws
///   ``KeyedArchiveError/Code/limitExceeded``. ``readingOptions`` bounds the property-list reading beneath.
/// - **Never half-built.** Back-references (``ArchiveDecoder/decodeObjectReference(of:forKey:assign:)``)
///   are delivered after the whole graph is built, and not at all if the unarchive fails.
///
/// A caller must: name the narrowest types at each step, register subclasses and legacy names it wants
/// accepted, and raise ``limits`` only as far as the input deserves. Trusted, untyped reading is the raw
/// archive model's job, not this type's.
///
/// ## Depth
/// Decoding through `init(from:)` is naturally recursive (a list's head initializer decodes the next node
/// inside itself). Rather than limiting archives to what the caller's stack happens to hold, the
/// unarchiver decodes on the caller's thread while its stack has room (at least 64 times
/// ``stackBytesPerLevel``, 1 MiB by default, left at each level), and continues a deeper nesting on a new
/// thread whose stack holds every level that may remain: at most one level per entry of `$objects` (an
/// object cannot be entered twice on one path: that is a cycle error), capped by ``Limits/maximumDepth``,
/// times ``stackBytesPerLevel``. The caller's thread waits for it, so one thread at a time runs the
/// unarchive's `init(from:)` calls; in a deep archive the deeper ones run on that other thread. That
/// stack is reserved address space, committed only as deep as the recursion really goes. Where the
/// system does not say where the caller's stack ends, an archive that could nest more than 44 levels is
/// decoded on such a thread from the start. This keeps `init(from:)` ordinary Swift code, and it keeps
/// every security check at the point where the caller's field asks for a type (a post-order pre-decode
/// would have to instantiate objects before knowing whether their field allows them).
///
/// ## Sharing
/// An unarchiver is a `Sendable` value: its registry, limits and options, and nothing of any one decode
/// (each entry point keeps its state in a session of its own). Configure one in a `static let` and decode
/// with it from any task, at the same time.
public struct KeyedUnarchiver: Sendable {
    /// Bounds for untrusted input. Exceeding one throws ``KeyedArchiveError/Code/limitExceeded``.
    public struct Limits: Sendable, Hashable {
        /// The most objects (dictionaries in `$objects`: model instances, arrays, dates, ...) decoded,
        /// counting each decode of a shared array again. Default 1,048,576.
        public var maximumObjectCount: Int = 1 << 20
        /// The most elements of arrays, sets and dictionaries (a key and its value count as one) decoded
        /// in total, counting each decode of a shared collection again: an archive that refers to one
        /// large array many times cannot make the result grow without bound. Default 16,777,216.
        public var maximumElementCount: Int = 1 << 24
        /// The most bytes of strings (UTF-8) and data decoded in total. Default 256 MiB.
        public var maximumByteCount: Int = 256 << 20
        /// The deepest nesting of objects and containers. Default 10,000; raise it for long linked lists.
        public var maximumDepth: Int = 10_000

        /// The default limits.
        public init() {}
    }

    /// The limits applied to the archive's content.
    public var limits = Limits()
    /// The limits applied while reading the property-list bytes.
    public var readingOptions = PropertyListReadingOptions()
    /// The stack reserved per nesting level when the decode continues on its own thread, and a 64th of
    /// the room the caller's stack must keep before the next level decodes on it (default 16 KiB,
    /// generous for debug builds). Raise it if your `init(from:)` keeps large values on the stack.
    public var stackBytesPerLevel: Int = KeyedUnarchiver.defaultStackBytesPerLevel

    /// The default ``stackBytesPerLevel``.
    static let defaultStackBytesPerLevel = 16 << 10

    var registry: [String: any KeyedArchivable.Type] = [:]
    /// Old module name to new (``mapModule(_:to:)``).
    var moduleMoves: [String: String] = [:]

    /// Creates an unarchiver with the default limits and an empty registry.
    public init() {}

    /// Decodes objects whose archived class is `name` as `type`.
    ///
    /// The corresponding Foundation API is `NSKeyedUnarchiver.setClass(_:forClassName:)`. Use it for
    /// legacy names (several names may map to one type) and to admit a subclass wherever its
    /// superclass is allowed. A registration never allows a type where the caller did not ask for it
    /// or one of its superclasses.
    public mutating func setClass(_ type: any KeyedArchivable.Type, forClassName name: String) {
        registry[name] = type
    }

    /// Decodes objects whose archived class is `name` as `type`: a model (an ``ArchivableCodable`` type is
    /// registered as the model it is) or a plain `Codable` value stored inside an ``ArchivableCodable`` model
    /// (a nested struct or enum, whose archived class is its type's name, see ``ArchiveNamed``).
    ///
    /// The corresponding Foundation API is `NSKeyedUnarchiver.setClass(_:forClassName:)`. The name is accepted
    /// only where the model asks for a value of `type`; a type can declare the same names itself with
    /// ``ArchiveNamed/legacyClassNames``.
    /// - Parameters:
    ///   - type: the type to read such objects as.
    ///   - name: the `$classname` found in archives (an old or moved name).
    public mutating func setClass<T: Decodable>(_ type: T.Type, forClassName name: String) {
        if let model = type as? any KeyedArchivable.Type {
            registry[name] = model
        } else {
            registry[name] = CodableDecodedObject<T>.self
        }
    }

    /// Reads class names of the module `oldModule` as names of `newModule`: for types that moved from one
    /// module to another (`App.Note` read as `Models.Note`, a nested class's `_TtCC3App5Outer5Inner` as
    /// `_TtCC6Models5Outer5Inner`, `App.Box<App.Item>` as `Models.Box<Models.Item>`).
    ///
    /// An archived name is first compared as written, then with its module moved, with the names of the types
    /// allowed at that point (and ``setClass(_:forClassName:)-(T.Type,_)`` registrations) and nothing else,
    /// before any initializer runs: a move never admits a type the caller did not ask for. Foundation has no
    /// corresponding API (`NSKeyedUnarchiver.setClass(_:forClassName:)` maps one name at a time).
    /// - Parameters:
    ///   - oldModule: the module name found in old archives (`"App"`).
    ///   - newModule: the module the types live in now (`"Models"`).
    public mutating func mapModule(_ oldModule: String, to newModule: String) {
        moduleMoves[oldModule] = newModule
    }

    /// The type registered for `name`, if any.
    public func registeredClass(forClassName name: String) -> (any KeyedArchivable.Type)? {
        registry[name]
    }

    // MARK: Entry points

    /// Reads the archive and decodes the top-level value under `key` as `T`.
    ///
    /// `Data` values decoded from a binary archive share `data`'s bytes instead of copying them: each is
    /// a slice of `data` that keeps its storage (or ``FileReader``'s mapping) alive while it lives, whose
    /// indices need not start at 0, and that copies itself when mutated (see
    /// ``BinaryPropertyListReader/read(_:)``). Copy a small value (`Data(value)`) to let a large input go.
    ///
    /// The corresponding Foundation API is `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)`.
    /// - Parameters:
    ///   - type: the one type allowed at the top (a model, or a value such as `[Note]` or `String`).
    ///   - key: the `$top` key; `"root"` for archives made by `archivedData(withRootObject:)`.
    ///   - data: a binary or XML property list.
    /// - Throws: ``KeyedArchiveError``, or an error thrown by a model's `init(from:)`. When `T` is an
    ///   ``ArchivableCodable`` type or a collection of them (`[Card]`, `[String: Card]`), every failure is a
    ///   `DecodingError` (see ``ArchivableCodable``).
    public func decode<T: ArchiveValue>(_ type: T.Type, forKey key: String = "root", from data: Data) throws -> T {
        do {
            return try withTopLevelDecoder(data) { try CodableArchiving.decodeTopLevel(T.self, from: $0, forKey: key) }
        } catch {
            throw CodableArchiving.topLevelDecodingError(error, type: T.self)
        }
    }

    /// Decodes the top-level value under `key` of an already parsed archive as `T`.
    ///
    /// Package-only: users read bytes (`decode(_:forKey:from:)` with `Data`); the package's tests, the raw model
    /// and tools that already hold a tree use this to skip writing it out.
    package func decode<T: ArchiveValue>(_ type: T.Type, forKey key: String = "root", from archive: PropertyListValue) throws -> T {
        do {
            return try withTopLevelDecoder(archive) { try CodableArchiving.decodeTopLevel(T.self, from: $0, forKey: key) }
        } catch {
            throw CodableArchiving.topLevelDecodingError(error, type: T.self)
        }
    }

    /// Reads the archive and decodes the top-level object under `key`, which may be any of `types`.
    ///
    /// The corresponding Foundation API is `NSKeyedUnarchiver.unarchivedObject(ofClasses:from:)`.
    public func decodeObject(ofTypes types: [any KeyedArchivable.Type], forKey key: String = "root",
                             from data: Data) throws -> any KeyedArchivable {
        try withTopLevelDecoder(data) { try $0.decodeObject(ofTypes: types, forKey: key) }
    }

    /// Decodes the top-level object under `key` of a parsed archive, which may be any of `types`.
    /// Package-only, as `decode(_:forKey:from:)` (tree).
    package func decodeObject(ofTypes types: [any KeyedArchivable.Type], forKey key: String = "root",
                             from archive: PropertyListValue) throws -> any KeyedArchivable {
        try withTopLevelDecoder(archive) { try $0.decodeObject(ofTypes: types, forKey: key) }
    }

    /// Reads the archive and decodes the top-level value under `key` as whichever of `types` its stored
    /// class calls for (see ``ArchiveDecoder/decodeValue(ofAnyOf:forKey:)``); nothing outside `types` is
    /// instantiated.
    ///
    /// The corresponding Foundation API is `NSKeyedUnarchiver.unarchivedObject(ofClasses:from:)` with
    /// value classes and model classes mixed.
    /// - Throws: ``KeyedArchiveError``, or an error thrown by a model's `init(from:)`.
    public func decodeValue(ofAnyOf types: [any ArchiveValue.Type], forKey key: String = "root",
                            from data: Data) throws -> any ArchiveValue {
        try withTopLevelDecoder(data) { try $0.decodeValue(ofAnyOf: types, forKey: key) }
    }

    /// Decodes the top-level value under `key` of a parsed archive as whichever of `types` its stored class
    /// calls for (see `decodeValue(ofAnyOf:forKey:from:)` with `Data`). Package-only, as
    /// `decode(_:forKey:from:)` (tree).
    package func decodeValue(ofAnyOf types: [any ArchiveValue.Type], forKey key: String = "root",
                            from archive: PropertyListValue) throws -> any ArchiveValue {
        try withTopLevelDecoder(archive) { try $0.decodeValue(ofAnyOf: types, forKey: key) }
    }

    /// Reads the archive and gives `body` a decoder for the `$top` dictionary, for archives with several
    /// top-level keys. `body` runs on the caller's thread (see Depth above); back-references are delivered
    /// after it returns.
    ///
    /// The corresponding Foundation API is creating an `NSKeyedUnarchiver(forReadingFrom:)` and calling
    /// `decodeObject(of:forKey:)` on it.
    public func withTopLevelDecoder<R>(_ data: Data, _ body: (any ArchiveDecoder) throws -> R) throws -> R {
        try KeyedArchiveReader.withCheckedArchive(data, options: readingOptions) { try run($0, body) }
    }

    /// Gives `body` a decoder for the `$top` dictionary of a parsed archive. Package-only, as
    /// `decode(_:forKey:from:)` (tree).
    package func withTopLevelDecoder<R>(_ archive: PropertyListValue, _ body: (any ArchiveDecoder) throws -> R) throws -> R {
        try KeyedArchiveReader.withCheckedArchive(archive, options: readingOptions) { try run($0, body) }
    }

    /// Decodes from checked archive bytes: on the caller's thread while its stack has room (deeper levels
    /// continue on a thread with a bigger stack, UnarchivingSession+Depth.swift), or, where the caller's
    /// stack cannot be measured, on a thread with a stack sized for the archive's possible depth.
    private func run<R>(_ storage: ArchiveStorage, _ body: (any ArchiveDecoder) throws -> R) throws -> R {
        let session = UnarchivingSession(storage: storage, registry: registry, moduleMoves: moduleMoves, limits: limits,
                                         stackBytesPerLevel: stackBytesPerLevel)
        var outcome: Result<R, any Error>?
        try withoutActuallyEscaping(body) { body in
            let work = {
                outcome = Result {
                    let decoder = ArchiveObjectDecoder(session: session, fields: storage.top, uid: nil, className: nil)
                    let value = try body(decoder)
                    try session.finish()
                    return value
                }
                // Objects decoded on a bigger stack may hold chains as deep: they are let go on one too.
                let levels = session.s.deepestThreadLevels
                if levels == 0 || (try? runOnDecodingThread(levels: levels, bytesPerLevel: stackBytesPerLevel, session.release)) == nil {
                    session.release()
                }
            }
            // At most one level per `$objects` entry (an object cannot be entered twice on one path).
            let levels = min(session.objectCount, limits.maximumDepth) + 4
            if levels <= levelsEveryStackHolds + 4 {
                work()
            } else if let floor = session.callerStackFloor() {
                // The caller's thread, until its stack runs short (UnarchivingSession+Depth.swift).
                session.s.stackFloor = floor
                work()
            } else {
                try runOnDecodingThread(levels: levels, bytesPerLevel: stackBytesPerLevel) {
                    // This thread's own floor: levels whose frames outgrow the estimate continue on another.
                    session.s.stackFloor = session.callerStackFloor() ?? 0
                    work()
                }
            }
        }
        return try decodingThreadOutcome(outcome)
    }

    /// Decodes the root object of `data` as `T`, with default limits and no registry.
    ///
    /// The corresponding Foundation API is `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)`.
    public static func unarchivedObject<T: ArchiveValue>(ofClass type: T.Type, from data: Data) throws -> T {
        try KeyedUnarchiver().decode(type, from: data)
    }

    /// Decodes the root object of `data`, which may be any of `types`, with default limits and no registry.
    ///
    /// The corresponding Foundation API is `NSKeyedUnarchiver.unarchivedObject(ofClasses:from:)`.
    public static func unarchivedObject(ofClasses types: [any KeyedArchivable.Type], from data: Data) throws -> any KeyedArchivable {
        try KeyedUnarchiver().decodeObject(ofTypes: types, from: data)
    }
}
