#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
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
/// ``KeyedArchiveReader`` makes it, writing XML archives and already parsed trees as binary first (so one
/// decoder serves all three).
final class ArchiveStorage {
    /// The scanner, read-only after init. It reads the caller's bytes in place: a storage is only valid
    /// inside the ``KeyedArchiveReader`` call that made it.
    ///
    /// The hot reads below do not go through it: a struct stored in a class is copied (144 bytes, and a
    /// retain and a release of each of its arrays at a call the optimizer does not inline) at every use.
    /// They read ``base`` and ``words`` (plain values) and call the scanner only for what is rare or
    /// wrong, so that its checks and its error messages stay the only ones.
    let scanner: BinaryPropertyListScanner
    /// The scanner's bytes (see ``scanner``).
    private let base: UnsafeRawPointer
    /// The number of property-list objects (entries in the offset table).
    let plistObjectCount: Int
    /// Where the object area ends.
    private let objectAreaEnd: Int
    /// One word per property-list object (``BinaryPropertyListScanner/objectWords()``): its marker byte
    /// and its offset or, for a UID, its value. Kind checks and UID reads touch this array only, not the
    /// offset table and the object's bytes (two cache misses at unrelated places in a large archive).
    private let words: [UInt64]
    /// The `$top` dictionary.
    let top: ArchiveFields
    /// The number of entries in `$objects`.
    let objectCount: Int
    /// The class of every class dictionary an instance points at, by UID (found by the validation).
    private(set) var classes: [UInt64: ArchivedClass] = [:]
    /// Byte offset of `$objects`' references.
    private let objectsStart: Int
    let refSize: Int

    /// Checks `bytes` (header, trailer, every offset-table entry), the envelope and the archive's rules.
    /// ``KeyedArchiveReader`` makes storages: it reads XML and trees as binary first.
    /// - Parameter source: the `Data` that `bytes` belong to, if data values may share it; `nil` copies them.
    convenience init(binary bytes: UnsafeRawBufferPointer, source: Data? = nil, options: PropertyListReadingOptions) throws {
        var scanner = try KeyedArchiveReader.wrapping {
            try BinaryPropertyListScanner(bytes, options: options, checkingOffsets: false)
        }
        scanner.source = source
        // The offset table is checked in the pass that reads every object's word, before anything else
        // reads it: the same first fault as the scanner's own check, one pass over the table.
        let words = try KeyedArchiveReader.wrapping { try scanner.objectWords(checkingOffsets: true) }
        try self.init(scanner: scanner, words: words)
    }

    /// Checks the envelope and the archive's rules over `scanner`, which has checked its bytes' structure
    /// (it must have checked every offset-table entry: the default).
    convenience init(scanner: BinaryPropertyListScanner) throws {
        try self.init(scanner: scanner, words: scanner.objectWords())
    }

    /// Checks the envelope and the archive's rules over `scanner`, whose every offset-table entry is checked,
    /// with its ``BinaryPropertyListScanner/objectWords(checkingOffsets:)``.
    private init(scanner: BinaryPropertyListScanner, words: [UInt64]) throws {
        // Rule 1 (``KeyedArchiveRules``), the first fault thrown.
        let envelope = try KeyedArchiveReader.wrapping { try KeyedArchiveRules.checkedEnvelope(ScannedArchiveRoot(scanner: scanner)) }
        self.scanner = scanner
        base = scanner.base
        plistObjectCount = scanner.objectCount
        objectAreaEnd = scanner.tableOffset
        self.words = words
        refSize = scanner.refSize
        top = envelope.top
        objectCount = envelope.objects.count
        objectsStart = envelope.objects.start
        classes = try KeyedArchiveValidation(self).classes
    }

    // MARK: Reading (property-list faults become invalidPropertyList errors at the caller)

    /// The property-list object number of `$objects[uid]` (`uid` below ``objectCount``).
    @inline(__always)
    func object(_ uid: ArchiveObjectID) throws -> Int {
        try reference(at: objectsStart + uid.rawValue * refSize, object: -1)
    }

    /// The object reference at byte `p` (inside a container whose references were checked to lie in the
    /// object area), checked against the object count, as ``BinaryPropertyListScanner/reference(at:object:)``.
    @inline(__always)
    func reference(at p: Int, object n: Int) throws -> Int {
        // One load and a shift (the width-switching load took a jump per reference): `p` lies in the object
        // area (the caller's container was checked), which the offset table and 32-byte trailer follow.
        let r = BinaryPropertyListScanner.loadBigEndian(beforeTrailer: base + p, width: refSize)
        guard r < UInt64(plistObjectCount) else { return try scanner.reference(at: p, object: n) }
        return Int(r)
    }

    /// The object reference at byte `p` inside a checked container (``container(_:)`` checked that its
    /// references lie in the object area), or nil when it is out of range (``reference(at:object:)`` says so).
    @inline(__always)
    func referenceIfInRange(at p: Int) -> Int? {
        let r = BinaryPropertyListScanner.loadBigEndian(beforeTrailer: base + p, width: refSize)  // as reference(at:object:)
        return r < UInt64(plistObjectCount) ? Int(r) : nil
    }

    /// The value of UID `n` when the word table holds it; nil for anything else (``uid(_:)`` reads the rest).
    @inline(__always)
    func resolvedUID(_ n: Int) -> UInt64? {
        BinaryPropertyListObjectWord.uidValue(word(n))
    }

    /// The word of property-list object `n` (`n` below the object count: every `n` here comes from a
    /// checked reference; the array's own bounds check stays).
    @inline(__always)
    private func word(_ n: Int) -> UInt64 { words[n] }

    /// The element count of container `n` and where its references start (a dictionary's `count` key
    /// references are followed by as many value references); nil when `n` is not a container. Arrays and
    /// dictionaries with a short count are read here; the rest, and anything that does not fit in the
    /// object area, by the scanner (which reports what is wrong).
    @inline(__always)
    func container(_ n: Int) throws -> (kind: BinaryPropertyListMarker, count: Int, start: Int)? {
        let w = word(n)
        let marker = BinaryPropertyListObjectWord.marker(w)
        let high = marker >> 4
        guard high >= BinaryPropertyListMarker.array.rawValue, high <= BinaryPropertyListMarker.dictionary.rawValue else {
            return nil
        }
        let count = Int(BinaryPropertyListMarker.nibble(marker))
        if count != Int(BinaryPropertyListMarker.extendedCount), high == BinaryPropertyListMarker.array.rawValue
            || high == BinaryPropertyListMarker.dictionary.rawValue {
            let start = BinaryPropertyListObjectWord.offset(w) + 1
            let isDictionary = high == BinaryPropertyListMarker.dictionary.rawValue
            // At most 2 x 14 references of at most 8 bytes: no overflow.
            if start + (isDictionary ? 2 * count : count) * refSize <= objectAreaEnd {
                return (isDictionary ? .dictionary : .array, count, start)
            }
        }
        return try scanner.container(n)
    }

    /// The fields of dictionary `n`, or nil when `n` is not a dictionary.
    @inline(__always)
    func fields(_ n: Int) throws -> ArchiveFields? {
        guard let c = try container(n), c.kind == .dictionary else { return nil }
        return ArchiveFields(object: n, count: c.count, keys: c.start, values: c.start + c.count * refSize)
    }

    /// The value stored under `key` (exactly, code unit for code unit) in `fields`, or nil.
    @inline(__always)
    func lookup(_ fields: ArchiveFields, _ key: String) throws -> Int? {
        try position(of: key, in: fields).map { try value(at: $0, of: fields) }
    }

    /// The position of the entry stored under `key` (exactly, code unit for code unit) in `fields`, or nil.
    func position(of key: String, in fields: ArchiveFields) throws -> Int? {
        var key = key
        return try key.withUTF8 { utf8 in
            // The last entry whose key is `utf8` wins, as in ``BinaryPropertyListScanner/archiveLookup(_:utf8:)``.
            var i = fields.count - 1
            while i >= 0 {
                let keyObject = try reference(at: fields.keys + i * refSize, object: fields.object)
                if try keyEquals(keyObject, utf8, referenceAt: fields.keys + i * refSize, in: fields.object) { return i }
                i -= 1
            }
            return nil
        }
    }

    /// Whether key object `n` is exactly `utf8`: a short ASCII string is compared here, anything else by
    /// the scanner, which also throws when the key is not a string.
    @inline(__always)
    private func keyEquals(_ n: Int, _ utf8: UnsafeBufferPointer<UInt8>, referenceAt p: Int, in dictionary: Int) throws -> Bool {
        let w = word(n)
        let marker = BinaryPropertyListObjectWord.marker(w)
        let count = Int(BinaryPropertyListMarker.nibble(marker))
        if marker >> 4 == BinaryPropertyListMarker.asciiString.rawValue, count != Int(BinaryPropertyListMarker.extendedCount) {
            let start = BinaryPropertyListObjectWord.offset(w) + 1
            if start + count <= objectAreaEnd {
                guard count == utf8.count else { return false }
                guard count > 0, let key = utf8.baseAddress else { return true }
                return memcmp(base + start, key, count) == 0
            }
        }
        switch try scanner.string(n, equals: utf8) {
        case let equal?: return equal
        case nil:
            throw PropertyListError(.invalidKey, "bplist: dictionary key is a \(try kindName(n)), not a string",
                                    at: .init(byteOffset: p, objectNumber: dictionary))
        }
    }

    /// Whether two dictionaries have the same key objects in the same order (so the same keys).
    @inline(__always)
    func sameKeys(_ a: ArchiveFields, _ b: ArchiveFields) -> Bool {
        guard a.count == b.count else { return false }
        if a.keys == b.keys || a.count == 0 { return true }
        let length = a.count * refSize
        // Up to 8 bytes of references (a dictionary of a few keys): one masked load each instead of a call to
        // memcmp. Both runs lie in the object area (checked containers), which the offset table and the
        // 32-byte trailer follow, so 8 bytes from either start are readable.
        if length <= 8 {
            let pa = BinaryPropertyListScanner.loadBigEndian(beforeTrailer: base + a.keys, width: length)
            let pb = BinaryPropertyListScanner.loadBigEndian(beforeTrailer: base + b.keys, width: length)
            return pa == pb
        }
        return memcmp(base + a.keys, base + b.keys, length) == 0
    }

    /// The object number of the value in entry `i` of `fields`.
    @inline(__always)
    func value(at i: Int, of fields: ArchiveFields) throws -> Int {
        try reference(at: fields.values + i * refSize, object: fields.object)
    }

    /// The keys of `fields`, decoded, in stored order; nil when a key is not a string, is longer than
    /// `maximumLength` code units (a long key is never decoded), or cannot be read.
    func shortKeys(_ fields: ArchiveFields, maximumLength: Int) -> [String]? {
        var result: [String] = []
        result.reserveCapacity(fields.count)
        for i in 0 ..< fields.count {
            guard let k = try? scanner.reference(at: fields.keys + i * refSize, object: fields.object),
                  let length = try? scanner.stringLength(k), length <= maximumLength,
                  case .string(let s)? = try? scalarValue(k) else { return nil }
            result.append(s)
        }
        return result
    }

    /// The UID value of `n`, or nil when `n` is not a UID.
    @inline(__always)
    func uid(_ n: Int) throws -> UInt64? {
        let w = word(n)
        if let value = BinaryPropertyListObjectWord.uidValue(w) { return value }
        guard BinaryPropertyListObjectWord.marker(w) >> 4 == BinaryPropertyListMarker.uid.rawValue else { return nil }
        return try scanner.uid(n)  // a UID the table could not hold: the scanner reads it or says what is wrong
    }

    @inline(__always)
    func kind(_ n: Int) -> ArchiveSlotKind {
        // The marker's high nibble (BinaryPropertyListMarker's raw values), compared as a number: the enum's
        // init(rawValue:) is a call.
        switch BinaryPropertyListObjectWord.marker(word(n)) >> 4 {
        case BinaryPropertyListMarker.uid.rawValue: return .uid
        case BinaryPropertyListMarker.dictionary.rawValue: return .dictionary
        case BinaryPropertyListMarker.array.rawValue: return .array
        case BinaryPropertyListMarker.orderedSet.rawValue, BinaryPropertyListMarker.set.rawValue: return .set
        default: return .scalar
        }
    }

    /// The value of `n` when it is neither a container nor a UID; nil otherwise. Integers of up to 8 bytes
    /// and 8-byte reals are read here; the rest by the scanner.
    @inline(__always)
    func scalarValue(_ n: Int) throws -> PropertyListValue? {
        let w = word(n)
        let marker = BinaryPropertyListObjectWord.marker(w)
        let nibble = BinaryPropertyListMarker.nibble(marker)
        switch marker >> 4 {
        case BinaryPropertyListMarker.uid.rawValue, BinaryPropertyListMarker.array.rawValue ... BinaryPropertyListMarker.dictionary.rawValue:
            return nil
        case BinaryPropertyListMarker.integer.rawValue where nibble <= 3:
            let offset = BinaryPropertyListObjectWord.offset(w)
            let width = 1 << Int(nibble)
            guard offset + 1 + width <= objectAreaEnd else { break }
            // Inside the object area (checked above), so 8 bytes are readable (the trailer follows).
            let raw = BinaryPropertyListScanner.loadBigEndian(beforeTrailer: base + offset + 1, width: width)
            // 1, 2 and 4 bytes are unsigned, 8 bytes signed (as the scanner reads them).
            return .integer(PropertyListInteger(Int64(bitPattern: raw)))
        case BinaryPropertyListMarker.real.rawValue where nibble == 3:
            let offset = BinaryPropertyListObjectWord.offset(w)
            guard offset + 9 <= objectAreaEnd else { break }
            return .real(Double(bitPattern: BinaryPropertyListScanner.loadBigEndian(base + offset + 1, width: 8)))
        default:
            break
        }
        return try scanner.scalar(n, at: BinaryPropertyListObjectWord.offset(w), marker: marker)
    }

    /// A short name of what `n` is ("string", "dictionary", ...).
    func kindName(_ n: Int) throws -> String {
        try scanner.archiveKindName(n)
    }

    /// The element object numbers of array or set `n`, or nil when `n` is neither.
    func elements(_ n: Int) throws -> [Int]? {
        var result: [Int] = []
        return try appendElements(of: n, to: &result) ? result : nil
    }

    /// Appends the element object numbers of array or set `n` to `result`; false (nothing appended) when
    /// `n` is neither.
    func appendElements(of n: Int, to result: inout [Int]) throws -> Bool {
        guard let c = try container(n), c.kind != .dictionary else { return false }
        result.reserveCapacity(result.count + c.count)  // bounded: the references fit in the file
        for i in 0 ..< c.count { result.append(try reference(at: c.start + i * refSize, object: n)) }
        return true
    }
}
