#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads Apple's binary property-list format (`bplist00`) into a ``PropertyListValue``.
///
/// The reader checks the file's structure once (header, trailer fields, every offset-table entry, with
/// overflow-checked arithmetic) and then decodes objects straight from the input buffer. Each object is
/// decoded at most once: a sub-tree that several containers share is decoded once and shared, so a file
/// cannot make the reader do exponential work. Untrusted input never crashes the reader; every fault is
/// a ``PropertyListError`` naming the object number, byte offset and key path.
///
/// The corresponding Foundation API is `PropertyListSerialization.propertyList(from:options:format:)`.
///
/// By default the reader rejects everything CF's binary reader (`CFBinaryPList.c`) rejects:
/// - **Trailer**: offset and reference sizes 1...8; object count at least 1; top object below the count;
///   offset table at or after byte 9 and before the trailer; header + object area + `count * offsetSize`
///   + 32-byte trailer exactly the file's length; a reference size that can address every object and an
///   offset size that can reach the table; every table entry inside the object area `8 ..< tableOffset`.
/// - **Objects**: only the markers CF decodes (`0x08`, `0x09`, `0x1n`, `0x2n`, `0x33`, `0x4n`, `0x5n`,
///   `0x6n`, `0x8n`, `0xAn`, `0xCn`, `0xDn`); UIDs of 1-16 bytes at most `UInt32.max`; nesting up to
///   ``PropertyListReadingOptions/maximumDepth``; every count and extent inside the object area.
///
/// ``PropertyListReadingOptions/isLenient`` relaxes the trailer's length and size rules, accepts the `0x7n`
/// and `0xBn` markers and UIDs above `UInt32.max`, and reads as Foundation on Linux does what only this
/// reader's strictness refuses (16-byte integers and UIDs past 64 bits, non-ASCII bytes in an ASCII string,
/// unpaired UTF-16 surrogates); bounds, depth and cycle checks stay.
///
/// Each rule sits beside its evidence in the source (a `CFBinaryPList.c` function, Foundation on Linux's or
/// plistlib's verdict), and `ReaderRuleEvidenceTests` puts each beside a real writer's output it accepts.
///
/// Decisions where the format, CoreFoundation (CF) and Python's `plistlib` differ:
/// - **Header**: `bplist0` followed by any byte is accepted, as CF does (`bplist00`, `bplist01`).
/// - **Sizes above 8**: CF, Foundation on Linux and `plistlib` accept offset and reference sizes above 8
///   (CF keeps the low 8 bytes); this reader rejects them (no writer writes them, and every load of its
///   tuned paths is one 8-byte load). It also rejects an offset-table entry below 8 even when no
///   reference reaches it (CF checks such an entry when it follows it), so that no read after the up-front
///   check needs one. Lenient reads all three as CF does, through a copy of the file with 8-byte offsets
///   and references (each entry's and reference's low 8 bytes) in which an entry below 8 fails only where
///   a reference leads to it; errors still name the input's bytes. 16-byte UIDs whose upper 8 bytes are not
///   zero are rejected (lenient: the low 8 bytes).
/// - **Null (`0x00`) and fill (`0x0F`)** are rejected with ``PropertyListError/Code/invalidObject``:
///   the value model has no null and no Apple writer writes one (CF, Foundation on Linux and `plistlib`
///   read it as null), and fill is padding, not a value (CF rejects it).
/// - **Integers** of 1, 2 and 4 bytes are unsigned, 8 bytes signed. A 16-byte integer is read as a signed
///   128-bit big-endian number and must lie in `Int64.min ... UInt64.max` (upper 8 bytes all zero, or all
///   `0xFF` with a negative lower half), as `plistlib` reads it; anything else is rejected rather than
///   silently truncated to its lower 8 bytes as CF and Foundation on Linux do (lenient: truncated likewise).
/// - **Reals** must be 4 or 8 bytes; a date must be `0x33` (8 bytes).
/// - **ASCII strings (`0x5n`)** whose bytes are not all below `0x80` are decoded as UTF-8 when they are
///   valid UTF-8 (some non-Apple writers put UTF-8 there, e.g. `node-bplist-parser/sample1.bplist`), and
///   rejected with ``PropertyListError/Code/invalidString`` otherwise, as `plistlib` rejects them (Foundation
///   on Linux reads every such byte as Latin-1, UTF-8 pairs included, and so does lenient for bytes that are
///   not UTF-8); UTF-8 is what those writers meant.
/// - **UTF-16 strings (`0x6n`)** with an unpaired surrogate are rejected (``PropertyListError/Code/invalidString``),
///   as `plistlib` rejects them (Foundation on Linux and lenient read U+FFFD).
/// - **UTF-8 strings (`0x7n`)**, a marker no Apple reader decodes, are accepted only when lenient, and
///   only when the bytes are valid UTF-8; the count is in bytes.
/// - **Sets (`0xCn`)**, and when lenient ordered sets (`0xBn`), read as ``PropertyListValue/set(_:)-swift.enum.case``.
/// - **Dictionary keys** must be strings; a UID or any other key is ``PropertyListError/Code/invalidKey``
///   (the value model keys by string, and Apple's writers refuse other keys; CF and Foundation read them).
/// - **Cycles**: a container that contains itself, directly or through others, is
///   ``PropertyListError/Code/cycle`` (`plistlib` builds a self-referencing list); shared sub-trees are fine.
/// - **Data** values share the input's bytes instead of copying them (see ``read(_:)`` for the lifetime
///   and index rules).
public struct BinaryPropertyListReader: Sendable {
    /// The limits applied while reading.
    public var options: PropertyListReadingOptions

    /// A reader with the given limits.
    ///
    /// - Parameter options: limits for untrusted input (nesting depth, object count).
    public init(options: PropertyListReadingOptions = .init()) { self.options = options }

    /// Reads the root value of a binary property list.
    ///
    /// The corresponding Foundation API is `PropertyListSerialization.propertyList(from:options:format:)`.
    ///
    /// **Data values share `data`'s bytes (zero-copy).** Each ``PropertyListValue/data(_:)`` in the result
    /// is a slice of `data` (`data[start ..< end]`): no bytes are copied, so a 64 MiB blob reads in
    /// constant time and memory. The rules that follow from it:
    /// - A slice keeps `data`'s whole storage alive for as long as it (or a copy of it) lives; no view
    ///   ever dangles, also when `data` is a file that ``FileReader`` mapped (the mapping stays until the
    ///   last `Data` referring to it is gone). Keeping a small value of a large input keeps the whole
    ///   input in memory: copy it (`Data(value)`) to let the input go.
    /// - A slice's indices are `data`'s, so they need not start at 0: index it from `startIndex` (or
    ///   iterate it, or copy it with `Data(value)` for zero-based indices).
    /// - Mutating a slice copies it first (copy-on-write), so neither `data` nor other values change.
    /// - Parameter data: the whole file, starting with `bplist0`.
    /// - Returns: the root object.
    /// - Throws: ``PropertyListError`` with the code of the fault and its location (object number, byte
    ///   offset, key path from the root).
    public func read(_ data: Data) throws -> PropertyListValue {
        do {
            return try scan(data)
        } catch let error as PropertyListError where options.isLenient && (error.code == .invalidTrailer || error.code == .invalidReference) {
            // Lenient: offset or reference sizes above 8, or an offset-table entry below 8 that no reference
            // follows, which CF reads and the scanner refuses, are read through a copy the scanner reads to
            // the same value (its data values slice the copy); its errors name the input's bytes.
            guard let copy = try BinaryPropertyListCanonicalCopy(data, options: options) else { throw error }
            return try copy.read(scan)
        }
    }

    /// Whether `data` is a binary property list that the strict reader refuses only for what no writer
    /// writes and CoreFoundation reads (offset or reference sizes above 8, an offset-table entry inside the
    /// header that no reference leads to): its ``BinaryPropertyListCanonicalCopy`` reads without lenient rules.
    package static func isRefusedOnlyForWhatCoreFoundationReads(_ data: Data) -> Bool {
        guard let copy = try? BinaryPropertyListCanonicalCopy(data, options: .init()) else { return false }
        return (try? BinaryPropertyListReader().read(copy.data)) != nil
    }

    /// Reads `data` with the scanner.
    private func scan(_ data: Data) throws -> PropertyListValue {
        try data.withUnsafeBytes { raw in
            // The offset table is checked while the references are counted: one pass over it.
            var scanner = try BinaryPropertyListScanner(raw, options: options, checkingOffsets: false)
            scanner.source = data
            return try scanner.readRoot(offsetsChecked: false)
        }
    }
}
