#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A binary keyed archive whose envelope has been checked, read one `$objects` entry at a time.
///
/// It keeps the bytes (a `let` `Data`, often a mapping made by ``FileReader``) and the checked trailer;
/// every access sets a scanner up over the bytes again (no pointer outlives a `withUnsafeBytes` call) and
/// decodes only the entry asked for and what that entry contains, never the objects it refers to. Data
/// values are slices of the bytes (zero-copy), so they keep the mapping alive after the archive is gone.
///
/// Opening checks the header, the trailer and the envelope (rules 1-3 of ``KeyedArchiveRules``, by the
/// code and with the messages of the whole-archive check); each offset-table entry is checked when its
/// object is first used, and rules 4-6 per entry when it is read, so opening costs the same for any size
/// of file. ``KeyedArchiveReader`` opens it.
final class MappedArchive: Sendable {
    /// The archive's bytes; never mutated, so the scanner's view of them stays valid in each access.
    let data: Data
    let layout: BinaryPropertyListScanner.Layout
    /// Where `$objects`' references start.
    let objectsStart: Int
    /// The number of entries in `$objects`.
    let count: Int
    let archiverName: String
    let version: PropertyListInteger
    let top: PropertyListDictionary
    /// The copy that ``data`` is when the archive was read leniently through one: its property-list faults
    /// are reported at the input's bytes.
    private let canonicalCopy: BinaryPropertyListCanonicalCopy?

    /// Opens `data`, a binary property list, as a keyed archive; its offset table is not checked as a
    /// whole (each entry is checked when its object is read).
    /// - Throws: ``KeyedArchiveError`` as ``ArchivedObjectGraph/init(data:options:)`` throws it for a broken
    ///   property-list structure or envelope (``KeyedArchiveError/Code/invalidPropertyList``,
    ///   ``KeyedArchiveError/Code/invalidArchive``, ``KeyedArchiveError/Code/invalidReference``).
    convenience init(binary data: Data, options: PropertyListReadingOptions) throws {
        let scanner = try KeyedArchiveReader.wrapping {
            try data.withUnsafeBytes { try BinaryPropertyListScanner($0, options: options, checkingOffsets: false) }
        }
        try self.init(data: data, layout: scanner.layout, canonicalCopy: nil)
    }

    /// Opens `copy`'s bytes as ``init(binary:options:)`` opens an archive; every fault, now and when an entry
    /// is read, names the bytes of the input `copy` was made of.
    convenience init(canonicalCopy copy: BinaryPropertyListCanonicalCopy, options: PropertyListReadingOptions) throws {
        let scanner = try Self.wrapping(copy) {
            try copy.data.withUnsafeBytes { try BinaryPropertyListScanner($0, options: options, checkingOffsets: false) }
        }
        try self.init(data: copy.data, layout: scanner.layout, canonicalCopy: copy)
    }

    /// Opens `data` with `scanner`, which has checked `data`'s structure (in full or but its offset table);
    /// `data` is `canonicalCopy`'s bytes when given.
    /// - Throws: ``KeyedArchiveError`` as ``init(binary:options:)``.
    convenience init(data: Data, scanner: BinaryPropertyListScanner, canonicalCopy: BinaryPropertyListCanonicalCopy? = nil) throws {
        try self.init(data: data, layout: scanner.layout, canonicalCopy: canonicalCopy)
    }

    /// Runs `body`, turning a property-list fault into ``KeyedArchiveReader/unreadable(_:keyPath:objectUID:)``
    /// at the input's bytes of `copy` when the bytes read are a copy.
    @inline(__always)
    private static func wrapping<R>(_ copy: BinaryPropertyListCanonicalCopy?, _ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let error as PropertyListError {
            throw KeyedArchiveReader.unreadable(copy?.inputError(error) ?? error)
        }
    }

    private init(data: Data, layout: BinaryPropertyListScanner.Layout, canonicalCopy: BinaryPropertyListCanonicalCopy?) throws {
        self.data = data
        self.layout = layout
        self.canonicalCopy = canonicalCopy
        let envelope = try Self.wrapping(canonicalCopy) {
            try data.withUnsafeBytes { raw in
                let scanner = try BinaryPropertyListScanner(checked: raw, layout: layout, source: data)
                try Self.checkRootKeys(scanner)
                let envelope = try KeyedArchiveRules.checkedEnvelope(ScannedArchiveRoot(scanner: scanner))
                return (archiverName: envelope.archiverName, version: envelope.version, objects: envelope.objects,
                        top: try scanner.subtree(envelope.top.object, depth: 1).dictionaryValue ?? [:])
            }
        }
        self.objectsStart = envelope.objects.start
        self.count = envelope.objects.count
        self.archiverName = envelope.archiverName
        self.version = envelope.version
        self.top = envelope.top
        // Rule 2: $objects[0] is "$null"; rules 3 and 4: every UID in $top is in range.
        if let error = KeyedArchiveRules.nullEntryFault(try storedValue(0)) { throw error }
        if let error = KeyedArchiveRules.uidsOutOfRange(in: .dictionary(top), prefix: "$top.", objectCount: count, limit: 1).first {
            throw error
        }
    }

    /// Throws unless every key of the root (when it is a dictionary) is a string, in stored order, with the
    /// whole read's errors: the root is the one container above the entries that opening reads in full.
    private static func checkRootKeys(_ scanner: BinaryPropertyListScanner) throws {
        let root = scanner.topObject
        try scanner.requireValidOffset(root)
        guard let c = try scanner.container(root), c.kind == .dictionary else { return }
        for i in 0 ..< c.count {
            let keyAt = c.start + i * scanner.refSize
            let keyObject = try scanner.reference(at: keyAt, object: root)
            try scanner.requireValidOffset(keyObject)
            if let kind = scanner.kind(of: keyObject), kind.isContainer {
                try BinaryPropertyListScanner.containerKeyError(kind, keyAt, root)
            }
            let key = try scanner.subtree(keyObject, depth: 1)
            guard case .string = key else { try BinaryPropertyListScanner.keyError(key, keyAt, root) }
        }
    }

    /// Runs `body` with a scanner over the bytes (valid only inside `body`).
    func withScanner<R>(_ body: (BinaryPropertyListScanner) throws -> R) throws -> R {
        try data.withUnsafeBytes { raw in try body(BinaryPropertyListScanner(checked: raw, layout: layout, source: data)) }
    }

    /// `$objects[index]` (`index` below ``count``) as stored, with every UID inside checked to be in range.
    /// - Throws: ``KeyedArchiveError``: ``KeyedArchiveError/Code/invalidPropertyList`` (with the
    ///   underlying ``PropertyListError``) or ``KeyedArchiveError/Code/invalidReference``, with the object UID.
    func storedValue(_ index: Int) throws -> PropertyListValue {
        do {
            return try Self.wrapping(canonicalCopy) {
                try withScanner { scanner in
                    let n = try scanner.reference(at: objectsStart + index * scanner.refSize, object: scanner.topObject)
                    // The root dictionary and $objects are above the entry.
                    return try scanner.subtree(n, depth: 2, uidLimit: UInt64(count))
                }
            }
        } catch let error as BinaryPropertyListScanner.UIDOutOfRange {
            if error.keyPath == "$class" {
                // The entry's own class reference: a class fault, as the whole archive's check reports it.
                throw KeyedArchiveRules.ClassFault.outOfRange(error.value, objectCount: count).error(objectUID: UInt64(index))
            }
            throw KeyedArchiveRules.uidOutOfRange(error.value, objectCount: count, keyPath: error.keyPath, objectUID: UInt64(index))
        } catch var error as KeyedArchiveError {
            if error.objectUID == nil { error.objectUID = UInt64(index) }
            throw error
        }
    }

    /// Entry `index` as stored and, when it is an instance (a dictionary with `$class`), its class checked
    /// by rule 5 as the whole archive's check does.
    func entry(_ index: Int) throws -> (stored: PropertyListValue, archivedClass: ArchivedClass?) {
        let stored = try storedValue(index)
        guard case .dictionary(let dict) = stored, let classRef = dict["$class"] else { return (stored, nil) }
        let archivedClass = try KeyedArchiveRules.checkedClass(classRef, uid: UInt64(index), objectCount: count) {
            try storedValue($0)
        }
        return (stored, archivedClass)
    }
}
