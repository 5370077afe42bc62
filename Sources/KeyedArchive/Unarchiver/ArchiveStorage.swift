#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The fields of one dictionary in an archive's binary property list: where its key and value
/// references are. Values are property-list object numbers, read on demand.
struct ArchiveFields {
    /// The dictionary's object number in the property list.
    let object: Int
    /// The number of entries.
    let count: Int
    /// Byte offset of the first key reference; the value references follow the keys.
    let keys: Int
    let values: Int
}

/// What a property-list object is, as far as the unarchiver cares.
enum ArchiveSlotKind {
    case uid, dictionary, array, set, scalar
}

/// An archive's bytes, checked once and then read on demand.
///
/// The keyed unarchiver never builds the whole property-list tree: it checks the file's structure
/// (header, trailer, every offset-table entry) and the envelope (`$archiver`, `$version`, `$top`,
/// `$objects`), and then reads each object from the bytes when a field asks for it. Every read is
/// bounds-checked; a fault found on the way is a ``KeyedArchiveError`` with code
/// ``KeyedArchiveError/Code/invalidPropertyList`` and the property-list error as `underlying`.
///
/// XML archives and already parsed trees are first written as binary by our writer (so one decoder
/// serves all three).
final class ArchiveStorage {
    /// Read-only after init (a `let`, so reads borrow it instead of copying it); ``value(_:)`` decodes on a copy.
    /// It reads the caller's bytes in place: a storage is only valid inside the `reading` call that made it.
    let scanner: BinaryPropertyListScanner
    /// The `$top` dictionary.
    let top: ArchiveFields
    /// The number of entries in `$objects`.
    let objectCount: Int
    /// The class of every class dictionary an instance points at, by UID (found by the validation).
    private(set) var classes: [UInt64: ArchivedClass] = [:]
    /// Byte offset of `$objects`' references.
    private let objectsStart: Int
    let refSize: Int

    /// Reads a binary or XML property list, checks that it is a keyed archive, and runs `body` with its
    /// storage. The storage reads `data`'s bytes in place (no copy) and must not be used after `body`
    /// returns. Data values of a binary archive are slices of `data` sharing its storage (zero-copy);
    /// those of an XML archive are their own.
    static func reading<R>(_ data: Data, options: PropertyListReadingOptions, _ body: (ArchiveStorage) throws -> R)
        throws -> R
    {
        switch PropertyListValue.detectFormat(of: data) {
        case .binary?:
            return try data.withUnsafeBytes { try body(ArchiveStorage(binary: $0, source: data, options: options)) }
        case .xml?:
            return try reading(KeyedUnarchiver.readPropertyList(data, options: options), options: options, body)
        case nil:
            throw KeyedArchiveError(.invalidPropertyList, "not a readable property list: not a binary (bplist00) or XML property list",
                                    underlying: PropertyListError(.unknownFormat, "not a binary (bplist00) or XML property list",
                                                                  at: .init(byteOffset: 0)))
        }
    }

    /// Checks an already parsed archive (written as binary first) and runs `body` with its storage, which
    /// must not be used after `body` returns.
    static func reading<R>(_ tree: PropertyListValue, options: PropertyListReadingOptions,
                           _ body: (ArchiveStorage) throws -> R) throws -> R {
        // The same rules and messages as for bytes: the tree is checked as the binary it writes.
        var options = options
        options.maximumObjectCount = Int.max
        return try BinaryPropertyListWriter().write(tree).withUnsafeBytes {
            try body(ArchiveStorage(binary: $0, options: options))
        }
    }

    /// - Parameter source: the `Data` that `bytes` belong to, if data values may share it; `nil` copies them.
    private init(binary bytes: UnsafeRawBufferPointer, source: Data? = nil, options: PropertyListReadingOptions) throws {
        var scanner = try Self.wrapping {
            try BinaryPropertyListScanner(bytes, options: options, countingReferences: false)
        }
        scanner.source = source
        let envelope = try Self.envelope(scanner)
        self.scanner = scanner
        refSize = scanner.refSize
        top = envelope.top
        objectCount = envelope.objectCount
        objectsStart = envelope.objectsStart
        classes = try KeyedArchiveValidation(self).classes
    }

    /// Runs `body`, turning a property-list fault into a keyed-archive error.
    @inline(__always)
    private static func wrapping<R>(_ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let error as PropertyListError {
            throw KeyedArchiveError(.invalidPropertyList, "not a readable property list: \(error.message)", underlying: error)
        }
    }

    // MARK: Envelope

    private static func envelope(_ scanner: BinaryPropertyListScanner) throws -> (top: ArchiveFields, objectCount: Int, objectsStart: Int) {
        try wrapping {
            let root = scanner.topObject
            guard let rootFields = try fields(scanner, root) else {
                throw KeyedArchiveError(.invalidArchive,
                                        "the root of a keyed archive must be a dictionary, found \(try kindName(scanner, root))")
            }
            guard let archiver = try lookup(scanner, rootFields, "$archiver") else {
                throw KeyedArchiveError(.invalidArchive, "$archiver is missing: this is a property list, not a keyed archive")
            }
            guard case .string(let archiverName) = try scalarOrContainer(scanner, archiver) else {
                throw KeyedArchiveError(.invalidArchive, "$archiver must be a string, found \(try kindName(scanner, archiver))")
            }
            guard archiverName == KeyedArchiveValidation.archiverName else {
                throw KeyedArchiveError(.invalidArchive,
                                        "$archiver must be \"\(KeyedArchiveValidation.archiverName)\", found \(UnarchivingSession.preview(.string(archiverName)))"
                                            + " (other archivers' formats are not read)")
            }
            guard let version = try lookup(scanner, rootFields, "$version") else {
                throw KeyedArchiveError(.invalidArchive, "$version is missing")
            }
            guard case .integer(let versionNumber) = try scalarOrContainer(scanner, version) else {
                throw KeyedArchiveError(.invalidArchive, "$version must be an integer, found \(try kindName(scanner, version))")
            }
            guard versionNumber == PropertyListInteger(KeyedArchiveValidation.version) else {
                throw KeyedArchiveError(.invalidArchive,
                                        "$version must be \(KeyedArchiveValidation.version), found \(versionNumber)")
            }
            guard let topObject = try lookup(scanner, rootFields, "$top") else {
                throw KeyedArchiveError(.invalidArchive, "$top is missing")
            }
            guard let top = try fields(scanner, topObject) else {
                throw KeyedArchiveError(.invalidArchive, "$top must be a dictionary, found \(try kindName(scanner, topObject))")
            }
            guard let objects = try lookup(scanner, rootFields, "$objects") else {
                throw KeyedArchiveError(.invalidArchive, "$objects is missing")
            }
            guard let list = try scanner.container(objects), list.kind == .array else {
                throw KeyedArchiveError(.invalidArchive, "$objects must be an array, found \(try kindName(scanner, objects))")
            }
            guard list.count > 0 else {
                throw KeyedArchiveError(.invalidArchive, "$objects is empty: index 0 must hold \"$null\"")
            }
            return (top, list.count, list.start)
        }
    }

    /// A scalar's value, or (for a container) an empty array standing for "not a scalar".
    private static func scalarOrContainer(_ scanner: BinaryPropertyListScanner, _ n: Int) throws -> PropertyListValue {
        if try scanner.container(n) != nil { return .array([]) }
        return try scanner.scalar(n, at: scanner.offset(of: n), marker: scanner.marker(of: n))
    }

    private static func kindName(_ scanner: BinaryPropertyListScanner, _ n: Int) throws -> String {
        if let c = try scanner.container(n) {
            switch c.kind {
            case .array: return "array"
            case .dictionary: return "dictionary"
            default: return "set"
            }
        }
        return try scanner.scalar(n, at: scanner.offset(of: n), marker: scanner.marker(of: n)).kindName
    }

    private static func fields(_ scanner: BinaryPropertyListScanner, _ n: Int) throws -> ArchiveFields? {
        guard let c = try scanner.container(n), c.kind == .dictionary else { return nil }
        return ArchiveFields(object: n, count: c.count, keys: c.start, values: c.start + c.count * scanner.refSize)
    }

    private static func lookup(_ scanner: BinaryPropertyListScanner, _ fields: ArchiveFields, _ key: String) throws -> Int? {
        var key = key
        return try key.withUTF8 { try lookup(scanner, fields, utf8: $0) }?.value
    }

    /// The last entry whose key is `utf8` (a repeated key's last value wins, as in
    /// ``PropertyListDictionary``): its position, key object and value object; or nil.
    @inline(__always)
    private static func lookup(_ scanner: BinaryPropertyListScanner, _ fields: ArchiveFields,
                               utf8: UnsafeBufferPointer<UInt8>) throws -> (index: Int, key: Int, value: Int)? {
        let refSize = scanner.refSize
        var i = fields.count - 1
        while i >= 0 {
            let keyObject = try scanner.reference(at: fields.keys + i * refSize, object: fields.object)
            switch try scanner.string(keyObject, equals: utf8) {
            case true?:
                return (i, keyObject, try scanner.reference(at: fields.values + i * refSize, object: fields.object))
            case false?:
                break
            case nil:
                throw PropertyListError(.invalidKey, "bplist: dictionary key is a \(try kindName(scanner, keyObject)), not a string",
                                        at: .init(byteOffset: fields.keys + i * refSize, objectNumber: fields.object))
            }
            i -= 1
        }
        return nil
    }

    // MARK: Reading (property-list faults become invalidPropertyList errors at the caller)

    /// The property-list object number of `$objects[uid]` (`uid` below ``objectCount``).
    @inline(__always)
    func object(_ uid: ArchiveObjectID) throws -> Int {
        try scanner.reference(at: objectsStart + uid.rawValue * refSize, object: -1)
    }

    /// The fields of dictionary `n`, or nil when `n` is not a dictionary.
    @inline(__always)
    func fields(_ n: Int) throws -> ArchiveFields? {
        try Self.fields(scanner, n)
    }

    /// The value stored under `key` (exactly, code unit for code unit) in `fields`, or nil.
    @inline(__always)
    func lookup(_ fields: ArchiveFields, _ key: String) throws -> Int? {
        var key = key
        return try key.withUTF8 { try Self.lookup(scanner, fields, utf8: $0) }?.value
    }

    /// Whether two dictionaries have the same key objects in the same order (so the same keys).
    @inline(__always)
    func sameKeys(_ a: ArchiveFields, _ b: ArchiveFields) -> Bool {
        a.count == b.count && scanner.bytesEqual(a.keys, b.keys, count: a.count * refSize)
    }

    /// The object number of the value in entry `i` of `fields`.
    @inline(__always)
    func value(at i: Int, of fields: ArchiveFields) throws -> Int {
        try scanner.reference(at: fields.values + i * refSize, object: fields.object)
    }

    /// The keys of `fields`, decoded, in stored order; nil when a key is not a string, is longer than
    /// `maximumLength` code units (a long key is never decoded), or cannot be read.
    func shortKeys(_ fields: ArchiveFields, maximumLength: Int) -> [String]? {
        var result: [String] = []
        result.reserveCapacity(fields.count)
        for i in 0 ..< fields.count {
            guard let k = try? scanner.reference(at: fields.keys + i * refSize, object: fields.object),
                  let length = try? scanner.stringLength(k), length <= maximumLength,
                  case .string(let s)? = try? plainScalar(k) else { return nil }
            result.append(s)
        }
        return result
    }

    /// The UID value of `n`, or nil when `n` is not a UID.
    @inline(__always)
    func uid(_ n: Int) throws -> UInt64? {
        try scanner.uid(n)
    }

    func kind(_ n: Int) -> ArchiveSlotKind {
        switch scanner.kind(of: n) {
        case .uid?: return .uid
        case .dictionary?: return .dictionary
        case .array?: return .array
        case .orderedSet?, .set?: return .set
        default: return .scalar
        }
    }

    /// The value of `n` when it is neither a container nor a UID; nil otherwise.
    @inline(__always)
    func plainScalar(_ n: Int) throws -> PropertyListValue? {
        let offset = scanner.offset(of: n)
        let marker = scanner.marker(at: offset)
        switch BinaryPropertyListMarker(byte: marker) {
        case .uid?, .array?, .orderedSet?, .set?, .dictionary?: return nil
        default: return try scanner.scalar(n, at: offset, marker: marker)
        }
    }

    /// A short name of what `n` is ("string", "dictionary", ...).
    func kindName(_ n: Int) throws -> String {
        try Self.kindName(scanner, n)
    }

    /// The element object numbers of array or set `n`, or nil when `n` is neither.
    func elements(_ n: Int) throws -> [Int]? {
        guard let c = try scanner.container(n), c.kind != .dictionary else { return nil }
        var result: [Int] = []
        result.reserveCapacity(c.count)  // bounded: the references fit in the file
        for i in 0 ..< c.count { result.append(try scanner.reference(at: c.start + i * refSize, object: n)) }
        return result
    }
}
