#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// KeyedArchiver finishing an archive and handing it out: as bytes, as a property-list tree, and the
// one-call entry points that archive a root value.
extension KeyedArchiver {
    // MARK: Output

    /// Finishes the archive: writes the queued objects, resolves conditional references and completes
    /// `$top` and `$objects`. Encoding after this throws ``KeyedArchiveError/Code/invalidValue``; the
    /// output is then read with ``encodedData(format:)`` (the bytes) or ``encodedPropertyList()`` (the
    /// tree). Calling it again does nothing; both outputs call it themselves.
    ///
    /// The corresponding Foundation API is `NSKeyedArchiver.finishEncoding()`.
    /// - Throws: ``KeyedArchiveError`` when a value could not be archived.
    public func finishEncoding() throws {
        _ = try finishArchive()
    }

    /// Finishes the archive (see ``finishEncoding()``) and returns it as a property-list tree, for
    /// inspecting or editing an archive as values. Later calls return the same tree.
    ///
    /// Foundation has no such API (its archiver only gives bytes). The archiver does not build a tree
    /// while encoding; this builds it from the archive's objects (the same objects
    /// ``encodedData(format:)`` writes).
    /// - Throws: ``KeyedArchiveError`` when a value could not be archived.
    public func encodedPropertyList() throws -> PropertyListValue {
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
    /// - Parameter format: binary or XML; by default the configuration's ``Configuration/outputFormat``
    ///   (binary, what Foundation writes, unless configured otherwise).
    /// - Throws: ``KeyedArchiveError`` when a value could not be archived.
    public func encodedData(format: PropertyListFormat? = nil) throws -> Data {
        let format = format ?? configuration.outputFormat
        if format == .binary {
            if let finishedData { return finishedData }
            let root = try finishArchive()
            let data = s.emitter.write(root: root)
            finishedData = data
            if finishedTree != nil { s.emitter.discard() }
            return data
        }
        let archive = try encodedPropertyList()
        do {
            return try archive.propertyListData(format: format)
        } catch let error as PropertyListError {
            throw KeyedArchiveError(.invalidValue, "the archive cannot be written as \(format): \(error.message)",
                                    underlying: error)
        }
    }

    /// Archives `root` under the top-level key `"root"` and returns the archive's bytes.
    ///
    /// The root is written as an object, as Foundation's `encodeObject(_:forKey:)` writes it: `$top.root` is
    /// a UID, and a scalar root (a number or Boolean) is its own NSNumber entry of `$objects`.
    ///
    /// The corresponding Foundation API is `NSKeyedArchiver.archivedData(withRootObject:requiringSecureCoding:)`.
    /// - Parameters:
    ///   - root: a model object, or any ``ArchiveValue`` (a string, an array of models, ...).
    ///   - format: binary (default) or XML.
    /// - Throws: ``KeyedArchiveError`` when a value could not be archived.
    public static func archivedData<T: ArchiveValue>(withRootObject root: T, format: PropertyListFormat = .binary) throws -> Data {
        let archiver = KeyedArchiver()
        try archiver.encodeRootObject(root, forKey: "root")
        return try archiver.encodedData(format: format)
    }

    /// Archives `root` under the top-level key `"root"` as `configuration` says (output format, class
    /// names) and returns the archive's bytes. The root is an object, as in ``archivedData(withRootObject:format:)``.
    ///
    /// The corresponding Foundation API is `NSKeyedArchiver.archivedData(withRootObject:requiringSecureCoding:)`
    /// after `NSKeyedArchiver.setClassName(_:for:)`.
    /// - Parameters:
    ///   - root: a model object, or any ``ArchiveValue`` (a string, an array of models, ...).
    ///   - configuration: the output format and the class names to write.
    /// - Throws: ``KeyedArchiveError`` when a value could not be archived.
    public static func archivedData<T: ArchiveValue>(withRootObject root: T, configuration: Configuration) throws -> Data {
        let archiver = KeyedArchiver(configuration: configuration)
        try archiver.encodeRootObject(root, forKey: "root")
        return try archiver.encodedData()
    }

    /// Archives `root` under `"root"`, as ``archivedData(withRootObject:format:)`` does, and returns the
    /// archive as a property-list tree (no bytes).
    public static func archivedPropertyList<T: ArchiveValue>(withRootObject root: T) throws -> PropertyListValue {
        let archiver = KeyedArchiver()
        try archiver.encodeRootObject(root, forKey: "root")
        return try archiver.encodedPropertyList()
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
    func finishArchive() throws -> ArchiveContainerID {
        if let finishedRoot { return finishedRoot }
        try drain()
        for pending in s.pendingConditionals {
            guard let uid = s.identities.uid(for: UInt(bitPattern: ObjectIdentifier(pending.object))) else { continue }
            let ref = KeyedArchiveEmitter.uid(uid)
            if let owner = pending.owner {
                s.emitter.setDictionaryValue(owner, at: pending.field, to: ref)
            } else {
                s.topValues[pending.field] = ref
            }
        }
        s.pendingConditionals = []
        guard !s.emitter.tooLarge else {
            throw KeyedArchiveError(.invalidValue, "the archive has 2^30 or more distinct values, objects or containers")
        }
        let top = s.emitter.newContainer()
        s.emitter.completeDictionary(top, keys: s.topKeys, values: s.topValues)
        s.emitter.replaceUnfinishedObjects()
        s.emitter.renumberDepthFirst(from: top)
        let objects = s.emitter.objectsArray()
        let root = s.emitter.newContainer()
        s.emitter.completeDictionary(root, keys: [s.emitter.string("$version"), s.emitter.string("$archiver"),
                                                  s.emitter.string("$top"), s.emitter.string("$objects")],
                                     values: [s.emitter.integer(Int64(100000)), s.emitter.string("NSKeyedArchiver"),
                                              KeyedArchiveEmitter.ref(container: top),
                                              KeyedArchiveEmitter.ref(container: objects)])
        s.identities = ArchivedObjectIdentities()
        s.queue = []
        s.queueHead = 0
        s.topKeys = []
        s.topCanonicalKeys = []
        s.topValues = []
        finishedRoot = root
        s.isFinished = true
        return root
    }
}
