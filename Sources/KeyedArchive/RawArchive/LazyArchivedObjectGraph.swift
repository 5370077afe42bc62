#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A keyed archive opened without reading it: each object is read and checked when it is asked for.
///
/// Opening checks only what every read stands on: the binary property list's header and trailer, and the
/// archive's envelope (`$archiver` "NSKeyedArchiver", `$version` 100000, every UID in `$top` in range,
/// `$objects[0]` "$null"); its cost does not grow with the file. ``object(_:)`` then decodes one entry of
/// `$objects` (never the objects it refers to) and checks it by the rules ``ArchivedObjectGraph`` checks
/// for every entry (each offset-table entry it uses, every UID in range, `$class` a valid class
/// description, no container inside itself, nesting within ``PropertyListReadingOptions/maximumDepth``),
/// throwing the same kind of ``KeyedArchiveError``. So one object of a gigabyte archive is read in a
/// fraction of a millisecond once the file is in the page cache, with memory for the few pages it touches
/// rather than the file. An object that is never read is never checked: ``loadGraph()`` checks and reads
/// everything, as ``ArchivedObjectGraph/init(data:options:)`` does. The object-count limit
/// (``PropertyListReadingOptions/maximumObjectCount``, 2^24 by default) still applies: raise it for
/// trusted archives of more objects.
///
/// **Lifetime.** The graph keeps the archive's bytes: for ``init(contentsOfFile:options:fileOptions:)``
/// the private mapping ``FileReader`` makes of a large file, unmapped when the graph and every data
/// value read from it are gone (data values are slices of the bytes, never copies). No pointer into the
/// bytes outlives a call. As for every mapping, the file must not shrink while mapped (see ``FileReader``;
/// files written by ``AtomicFileWriter`` never do); pass ``FileReader/Options/Mapping/never`` to read a
/// copy instead.
///
/// The corresponding Foundation API is none: `NSKeyedUnarchiver` reads the whole archive first.
public struct LazyArchivedObjectGraph: Sendable {
    private let archive: MappedArchive
    private let options: PropertyListReadingOptions

    /// The `$archiver` string (`"NSKeyedArchiver"`).
    public var archiverName: String { archive.archiverName }
    /// The `$version` integer (100000).
    public var version: PropertyListInteger { archive.version }
    /// `$top`: the top-level keys in stored order, each a reference or an inline value.
    public var top: [ArchivedField] { archive.top.map { ArchivedField($0.key, ArchivedValue($0.value)) } }
    /// The number of entries in `$objects` (including `$null` and class descriptions).
    public var count: Int { archive.count }
    /// All UIDs of the graph, `0 ..< count`.
    public var uids: some Collection<UID> & Sendable { (0..<UInt64(archive.count)).lazy.map(UID.init) }

    /// Opens a keyed archive held in `data`, which the graph keeps (not copied).
    ///
    /// An XML archive is converted to binary in memory first (XML cannot be read in place). So is, with
    /// ``PropertyListReadingOptions/isLenient``, a binary archive the strict opening refuses only for
    /// offset or reference sizes above 8 or an unreferenced offset-table entry inside the header, which
    /// CoreFoundation reads: the graph then keeps a copy with 8-byte offsets and references instead of
    /// `data`, and its faults name `data`'s bytes.
    /// - Parameters:
    ///   - data: the bytes of a property list whose root is a keyed archive.
    ///   - options: limits for the property-list reader.
    /// - Throws: ``KeyedArchiveError``: ``KeyedArchiveError/Code/invalidPropertyList`` (with the underlying
    ///   ``PropertyListError``) when the header or trailer (or an object the envelope uses) is broken, otherwise the envelope's
    ///   first fault (``KeyedArchiveError/Code/invalidArchive``, ``KeyedArchiveError/Code/invalidReference``).
    public init(data: Data, options: PropertyListReadingOptions = .init()) throws {
        self.archive = try KeyedArchiveReader.lazyArchive(data, options: options)
        self.options = options
    }

    /// Opens the keyed archive in the file at `path`, mapping it when it is large (see ``FileReader``).
    ///
    /// A file that only lenient reading opens (see ``init(data:options:)``) is read through a copy in
    /// memory, not through the mapping.
    /// - Parameters:
    ///   - path: the archive file; symbolic links are followed.
    ///   - options: limits for the property-list reader.
    ///   - fileOptions: how to read the file (mapping, size limit).
    /// - Throws: ``FileIOError`` when the file cannot be read, or ``KeyedArchiveError`` as
    ///   ``init(data:options:)`` throws it.
    public init(contentsOfFile path: String, options: PropertyListReadingOptions = .init(),
                fileOptions: FileReader.Options = .init()) throws {
        try self.init(data: FileReader(options: fileOptions).read(atPath: path), options: options)
    }

    /// Opens the keyed archive in the file at `url`, mapping it when it is large (see ``FileReader``).
    ///
    /// A file that only lenient reading opens (see ``init(data:options:)``) is read through a copy in
    /// memory, not through the mapping.
    /// - Parameters:
    ///   - url: a `file:` URL.
    ///   - options: limits for the property-list reader.
    ///   - fileOptions: how to read the file (mapping, size limit).
    /// - Throws: ``FileIOError`` when the file cannot be read, or ``KeyedArchiveError`` as
    ///   ``init(data:options:)`` throws it.
    public init(contentsOf url: URL, options: PropertyListReadingOptions = .init(),
                fileOptions: FileReader.Options = .init()) throws {
        try self.init(data: FileReader(options: fileOptions).read(at: url), options: options)
    }

    /// Reads the object with this UID, or returns `nil` when the UID is out of range.
    ///
    /// Decodes and checks this one entry each time it is called (nothing is cached).
    /// - Parameter uid: the object's UID, its index in `$objects`.
    /// - Throws: ``KeyedArchiveError`` with the object's UID: ``KeyedArchiveError/Code/invalidPropertyList``
    ///   for broken bytes, ``KeyedArchiveError/Code/invalidReference`` for a UID out of range,
    ///   ``KeyedArchiveError/Code/invalidClass`` for a bad `$class`.
    public func object(_ uid: UID) throws -> ArchivedObject? {
        guard uid.value < UInt64(archive.count) else { return nil }
        let index = Int(uid.value)
        let (stored, archivedClass) = try archive.entry(index)
        return ArchivedObject(uid: uid, content: ArchivedObjectGraph.content(of: stored, at: index) {
            $0 == archivedClass?.uid.value ? archivedClass : nil
        })
    }

    /// The reference stored under `$top[key]` (`root` by default), or `nil` if absent or `$null`.
    public func topReference(_ key: String = "root") -> UID? {
        top.first(where: { $0.key == key })?.value.referenceUID
    }

    /// The class name of the instance with this UID, or `nil` when it is not an instance (or out of range).
    /// - Throws: ``KeyedArchiveError`` as ``object(_:)`` throws it.
    public func className(of uid: UID) throws -> String? {
        try object(uid)?.instance?.className
    }

    /// Checks and reads the whole archive, as ``ArchivedObjectGraph/init(data:options:)`` does with the same bytes.
    /// - Throws: ``KeyedArchiveError`` naming the archive's first fault.
    public func loadGraph() throws -> ArchivedObjectGraph {
        try ArchivedObjectGraph(data: archive.data, options: options)
    }
}
