#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The one way into a keyed archive: every reader (the typed unarchiver, the raw model eager, on demand,
/// lazy or lenient, and so `archive-dump`) opens an archive here.
///
/// It is the only code that tells the formats apart: binary bytes are read in place; an XML archive is
/// parsed, and it and an already parsed ``PropertyListValue`` are written as binary by the package's
/// writer, so that one checked reader, with one set of rules (``KeyedArchiveRules``) and messages, serves
/// all three. It is also the only place where a ``PropertyListError`` becomes a ``KeyedArchiveError``
/// (``unreadable(_:keyPath:objectUID:)``).
///
/// How much is checked before a reader gets the archive:
/// - `withCheckedArchive`: everything (``ArchiveStorage``: the binary structure, the envelope, then
///   ``KeyedArchiveValidation``'s walk), before any object is read: the typed unarchiver;
/// - `decodedArchive`: everything, then the tree is decoded: ``ArchivedObjectGraph/init(data:options:)``;
/// - `onDemandArchive`: everything, without building the tree: ``ArchivedObjectGraph/init(onDemand:options:)``;
/// - `lazyArchive`: the header, the trailer and the envelope now, each entry when it is read
///   (``MappedArchive``): ``LazyArchivedObjectGraph``.
///
/// With ``PropertyListReadingOptions/isLenient``, a binary archive the scanner refuses only for what
/// CoreFoundation reads (offset or reference sizes above 8, an offset-table entry below 8 that no reference
/// follows) is opened, by each of the four, as its ``BinaryPropertyListCanonicalCopy``, after the strict open
/// has failed (the usual open is unchanged); faults still name the input's bytes.
enum KeyedArchiveReader {
    // MARK: Property-list faults

    /// A property-list fault as the keyed-archive error every reader reports for it
    /// (``KeyedArchiveError/Code/invalidPropertyList``, with the fault as `underlying`).
    static func unreadable(_ error: PropertyListError, keyPath: String? = nil, objectUID: UInt64? = nil) -> KeyedArchiveError {
        KeyedArchiveError(.invalidPropertyList, "not a readable property list: \(error.message)",
                          keyPath: keyPath, objectUID: objectUID, underlying: error)
    }

    /// Runs `body`, turning a property-list fault into ``unreadable(_:keyPath:objectUID:)``.
    @inline(__always)
    static func wrapping<R>(_ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let error as PropertyListError {
            throw unreadable(error)
        }
    }

    /// The property list in `data` (binary or XML), its faults as ``unreadable(_:keyPath:objectUID:)``.
    static func readPropertyList(_ data: Data, options: PropertyListReadingOptions) throws -> PropertyListValue {
        try wrapping { try PropertyListValue(propertyListData: data, options: options) }
    }

    /// The options a tree written as binary by the package's writer is checked with: the caller's limits
    /// applied to the tree as it was read; its binary form has no more objects, so its count is not limited again.
    private static func writtenTreeOptions(_ options: PropertyListReadingOptions) -> PropertyListReadingOptions {
        var options = options
        options.maximumObjectCount = Int.max
        return options
    }

    // MARK: What only lenient reading reads

    /// The copy of `data` that the scanner reads as CoreFoundation reads `data`
    /// (``BinaryPropertyListCanonicalCopy``), when `options` are lenient and the scanner refused `data` with
    /// `fault` for its trailer or offset table; nil otherwise, and when the refusal stands (the caller then
    /// throws the strict open's error).
    /// - Throws: ``unreadable(_:keyPath:objectUID:)`` naming the input's bytes for what CoreFoundation refuses too.
    static func canonicalCopy(of data: Data, refusedWith fault: PropertyListError?,
                              options: PropertyListReadingOptions) throws -> BinaryPropertyListCanonicalCopy? {
        guard options.isLenient, let code = fault?.code, code == .invalidTrailer || code == .invalidReference else { return nil }
        return try wrapping { try BinaryPropertyListCanonicalCopy(data, options: options) }
    }

    // MARK: Checked in full

    /// Reads a binary or XML property list, checks that it is a keyed archive keeping every rule, and runs
    /// `body` with its storage. The storage reads `data`'s bytes in place (no copy) and must not be used
    /// after `body` returns. Data values of a binary archive are slices of `data` sharing its storage
    /// (zero-copy); those of an XML archive are their own.
    /// - Throws: ``KeyedArchiveError`` naming the first fault.
    static func withCheckedArchive<R>(_ data: Data, options: PropertyListReadingOptions,
                                      _ body: (ArchiveStorage) throws -> R) throws -> R {
        guard PropertyListValue.detectFormat(of: data) == .binary else {
            // XML, or neither (whose reading throws the unknown-format fault).
            return try withCheckedArchive(readPropertyList(data, options: options), options: options, body)
        }
        var opened = false
        do {
            return try data.withUnsafeBytes { raw in
                let storage = try ArchiveStorage(binary: raw, source: data, options: options)
                opened = true
                return try body(storage)
            }
        } catch let error as KeyedArchiveError where !opened {
            guard let copy = try canonicalCopy(of: data, refusedWith: error.underlying, options: options) else { throw error }
            do {
                return try copy.data.withUnsafeBytes { try body(ArchiveStorage(binary: $0, source: copy.data, options: options)) }
            } catch let error as KeyedArchiveError {
                throw copy.inputError(error)
            }
        }
    }

    /// Checks an already parsed archive (written as binary first, so by the same rules and with the same
    /// messages as bytes) and runs `body` with its storage, which must not be used after `body` returns.
    static func withCheckedArchive<R>(_ tree: PropertyListValue, options: PropertyListReadingOptions,
                                      _ body: (ArchiveStorage) throws -> R) throws -> R {
        try BinaryPropertyListWriter().write(tree).withUnsafeBytes {
            try body(ArchiveStorage(binary: $0, options: writtenTreeOptions(options)))
        }
    }

    /// An archive checked in full, decoded: what ``ArchivedObjectGraph`` holds.
    struct DecodedArchive {
        let archiverName: String
        let version: PropertyListInteger
        let top: PropertyListDictionary
        let objects: [PropertyListValue]
        /// The class of every class dictionary an instance points at, by its UID.
        let classes: [UInt64: ArchivedClass]
    }

    /// Checks the archive in `data` in full and decodes it.
    /// - Parameter parsedRoot: `data`'s property list already read with `options`, if the caller has it
    ///   (it is then not read again).
    /// - Throws: ``KeyedArchiveError`` naming the first fault.
    static func decodedArchive(_ data: Data, parsedRoot: PropertyListValue? = nil,
                               options: PropertyListReadingOptions) throws -> DecodedArchive {
        guard PropertyListValue.detectFormat(of: data) == .binary else {
            // The tree is checked as the binary it writes, as any tree is (``decodedArchive(_:)``).
            return try decodedArchive(parsedRoot ?? readPropertyList(data, options: options))
        }
        // The rules are checked on the bytes, so faults name the file's own byte offsets and objects.
        let classes = try withCheckedArchive(data, options: options) { $0.classes }
        return try decoded(parsedRoot ?? readPropertyList(data, options: options), classes: classes)
    }

    /// Checks the already parsed archive `tree` in full.
    /// - Throws: ``KeyedArchiveError`` naming the first fault.
    static func decodedArchive(_ tree: PropertyListValue) throws -> DecodedArchive {
        try decoded(tree, classes: withCheckedArchive(tree, options: .init()) { $0.classes })
    }

    /// The envelope of `root`, whose archive has been checked.
    private static func decoded(_ root: PropertyListValue, classes: [UInt64: ArchivedClass]) throws -> DecodedArchive {
        let envelope = try KeyedArchiveRules.checkedEnvelope(DecodedArchiveRoot(root: root))
        return DecodedArchive(archiverName: envelope.archiverName, version: envelope.version, top: envelope.top,
                              objects: envelope.objects, classes: classes)
    }

    // MARK: Checked object by object

    /// Opens the archive in `data` lazily (``MappedArchive``): only the header, the trailer and the
    /// envelope are checked now. A binary archive is kept as `data` (not copied); an XML one is written as
    /// binary first.
    /// - Throws: ``KeyedArchiveError`` naming the first fault of what is checked.
    static func lazyArchive(_ data: Data, options: PropertyListReadingOptions) throws -> MappedArchive {
        guard PropertyListValue.detectFormat(of: data) == .binary else {
            let tree = try readPropertyList(data, options: options)
            return try MappedArchive(binary: BinaryPropertyListWriter().write(tree), options: writtenTreeOptions(options))
        }
        do {
            return try MappedArchive(binary: data, options: options)
        } catch let error as KeyedArchiveError {
            // The copy is in memory, also when `data` is a mapped file.
            guard let copy = try canonicalCopy(of: data, refusedWith: error.underlying, options: options) else { throw error }
            return try MappedArchive(canonicalCopy: copy, options: options)
        }
    }

    /// The binary keyed archive in `data` checked in full without building its tree, read object by
    /// object, and the classes its instances point at; nil when `data` is not binary, breaks a rule, or
    /// holds more than `expandedValueBudget` values counted as a whole read would expand them (a shared
    /// container once per reference). The caller then reads it the usual way, to get the fault.
    static func onDemandArchive(_ data: Data, options: PropertyListReadingOptions,
                                expandedValueBudget: Int) -> (archive: MappedArchive, classes: [UInt64: ArchivedClass])? {
        guard PropertyListValue.detectFormat(of: data) == .binary else { return nil }
        func open(_ bytes: Data, _ copy: BinaryPropertyListCanonicalCopy?) throws -> (MappedArchive, [UInt64: ArchivedClass])? {
            try bytes.withUnsafeBytes { raw in
                // One scanner for the three checks: the property list's shape, the archive's rules, the envelope.
                var scanner = try BinaryPropertyListScanner(raw, options: options)
                guard let shape = scanner.checkedShape(), shape.expandedCount <= expandedValueBudget else { return nil }
                scanner.source = bytes
                let classes = try ArchiveStorage(scanner: scanner).classes
                return (try MappedArchive(data: bytes, scanner: scanner, canonicalCopy: copy), classes)
            }
        }
        do {
            return try open(data, nil)
        } catch let fault as PropertyListError {
            guard let copy = try? canonicalCopy(of: data, refusedWith: fault, options: options) else { return nil }
            return try? open(copy.data, copy)
        } catch {
            return nil
        }
    }
}
