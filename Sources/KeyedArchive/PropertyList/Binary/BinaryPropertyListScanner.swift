#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Over 500 lines on purpose: the trailer and offset-table checks and the bounds-checked loads every other
// file of the scanner stands on are one unit of review (the checks and the loads they make safe).

/// The bytes of a binary property list after its structure has been checked: decodes objects on demand.
///
/// Only valid inside the `withUnsafeBytes` call that created it.
///
/// Split by job: this file checks the trailer and the offset table and holds the bounds-checked loads;
/// `+Containers` walks containers into a tree, `+Scalars` decodes single objects, `+OnDemand` serves a
/// reader that looks at a few objects at a time (the keyed unarchiver).
struct BinaryPropertyListScanner {
    /// The whole input. Never empty once the initializer has returned.
    let base: UnsafeRawPointer
    let size: Int
    /// Width of an offset-table entry, 1...8.
    let offsetSize: Int
    /// Width of an object reference, 1...8.
    let refSize: Int
    /// Number of objects (entries in the offset table).
    let objectCount: Int
    /// Object number of the root.
    let topObject: Int
    /// Where the offset table starts; objects live in `8 ..< tableOffset`.
    let tableOffset: Int
    let maximumDepth: Int
    /// ``PropertyListReadingOptions/isLenient``: accept what CoreFoundation rejects but can be read.
    let isLenient: Bool

    /// The `Data` whose bytes `base` points at, when the caller has one: data values are then slices of
    /// it that share its storage (no copy); without it they are copied.
    var source: Data? {
        get { sourceBox?.data }
        set {
            sourceBox = newValue.map(SourceBox.init)
            sourceReference = sourceBox.map { Unmanaged.passUnretained($0) }
        }
    }
    /// ``source``, held in a class that slices it.
    private(set) var sourceBox: SourceBox?
    /// ``sourceBox`` without a reference count, which data values are sliced through: slicing a `Data?`
    /// (or class) stored property made the compiler copy the whole scanner (retaining and releasing the
    /// `Data`) at every data value. Set only with `sourceBox`, whose strong reference keeps the box alive
    /// for as long as this scanner (or a copy of it) exists.
    private(set) var sourceReference: Unmanaged<SourceBox>?
    final class SourceBox: Sendable {
        let data: Data
        init(_ data: Data) { self.data = data }

        /// The `count` bytes at byte `start` of ``data`` (inside it), sharing its storage.
        @inline(never)
        func slice(_ start: Int, _ count: Int) -> Data {
            let first = data.startIndex + start
            return data[first ..< first + count]
        }
    }
    /// ``smallStringBitsAgree``, read once per scanner rather than through the global's once-check per string.
    var buildsSmallStrings = BinaryPropertyListScanner.smallStringBitsAgree
    /// What a whole-tree read (``readRoot()``) keeps while it decodes, apart from the scanner itself so
    /// that the scanner stays immutable during the walk: its decoding functions take it `inout` and the
    /// scanner by reference (a mutating walk copied the scanner, 144 bytes, at every call it made).
    struct TreeState {
        /// Per object: how many references to it the file's containers hold (bits 0-1, saturating at 2),
        /// whether it is being decoded, i.e. on the current path (bit 2), and whether it is memoized (bit 3).
        var state: [UInt8]
        /// Per object, once the first object is memoized (empty until then): a memoized object's index in `memo`.
        var slots: [UInt32] = []
        /// Decoded objects that are referenced more than once, in the order they were decoded (see `slots`),
        /// so each is decoded once and shared: an array, not a hash table keyed by object number, so a
        /// look-up is one indexed load. Scalars that decode without allocating are not kept (decoding is cheaper).
        var memo: [PropertyListValue] = []
        /// Dictionaries read, one per slot of a table indexed by the hash of their keys (with where their
        /// key references start, and that hash), so that dictionaries with the same keys share one key
        /// array and index instead of reading the keys and building them again (see `keySet(_:at:count:_:)`):
        /// every object of one class in an archive, and the dictionaries of a file Foundation wrote, which
        /// stores each dictionary's keys again in one of a few orders. Empty until the first is kept, then
        /// ``keySetSlots(objectCount:)`` entries.
        var keySets: [PropertyListDictionary?] = []
        var keySetStarts: [Int] = []
        var keySetHashes: [UInt64] = []
        /// Per slot: the ``keyPrint(of:)`` words of the dictionary's keys (two per key), when it has at most
        /// ``printedKeyLimit`` keys, else empty: a look-up by the hash of a dictionary's key prints compares
        /// them with these, not with the slot dictionary's key objects in the file (a second set of loads).
        var keySetPrints: [[UInt64]] = []

        /// Per object, filled by ``countReferences(into:inlining:checkingOffsets:)`` when the file has a UID
        /// and its object area ends below 2^31 (else empty): a UID of 1-4 bytes whose value is below 2^31,
        /// decoded, as `inlineUID | value`; else the object's byte offset (at least 8), read from the offset table; 0
        /// for an entry it skipped. (A file without UIDs reads its offsets from the offset table.)
        ///
        /// A reference to a UID costs one load here instead of two dependent ones (its offset-table entry,
        /// then its bytes): an archive's references to other objects are UIDs that many objects share,
        /// spread over the whole file (at 200,000 models these two cache misses were most of the growth
        /// past 10x). Any other reference finds its offset in the same load, aligned, instead of a second
        /// random access to the offset table: when this table held UIDs only, every reference loaded from
        /// both, and at 200,000 models (10 MB each) the two loads were a fifth of the read's time.
        var inline: [UInt32] = []

        init(objectCount: Int) { state = Array(repeating: 0, count: objectCount) }
    }

    /// The tag of a UID in ``TreeState/inline`` (its value, below 2^24, in the low bits); offsets are below it.
    static let inlineUID: UInt32 = 1 << 31

    static let onPath: UInt8 = 4
    static let shared: UInt8 = 2
    static let memoized: UInt8 = 8
    /// Past 2^32 - 1 memoized objects (a file of many gigabytes) the rest are decoded per reference.
    static let slotLimit = Int(clamping: UInt32.max)  // Int32.max with a 32-bit Int

    /// The size of the fixed trailer at the end of the file.
    static let trailerSize = 32
    /// The size of the `bplist00` header.
    static let headerSize = 8

    /// Checks the header, the trailer and every offset-table entry of `raw`.
    ///
    /// A whole-tree read (``readRoot()``) counts references itself, in its ``TreeState``; a reader that looks
    /// at a few objects on demand pays nothing for them.
    ///
    /// - Parameter checkingOffsets: check every offset-table entry now (a reader that checks each entry
    ///   before it uses it, ``requireValidOffset(_:)``, passes false: opening a large file then costs nothing
    ///   per object).
    init(_ raw: UnsafeRawBufferPointer, options: PropertyListReadingOptions,
         checkingOffsets: Bool = true) throws {
        let size = raw.count
        let magic = Array("bplist0".utf8)
        // Evidence for each rule below: CFBinaryPList.c (CoreFoundation's reader) and Foundation on Linux's
        // verdict on the same input, side by side in ReaderRuleEvidenceTests.
        // CF __CFBinaryPlistGetTopLevelInfo: the header starts "bplist0" (bplist00 and bplist01 pass).
        guard size >= 7, let base = raw.baseAddress else {
            throw PropertyListError(.truncated, "bplist: \(size) bytes is too short for a binary property list",
                                    at: .init(byteOffset: 0))
        }
        for i in 0..<7 where raw[i] != magic[i] {
            throw PropertyListError(.unknownFormat, "bplist: header is not bplist0x", at: .init(byteOffset: i))
        }
        // CF __CFBinaryPlistGetTopLevelInfo: header, at least one object byte, trailer.
        guard size >= Self.headerSize + 1 + Self.trailerSize else {
            throw PropertyListError(.truncated,
                                    "bplist: \(size) bytes is too short (header + one object + 32-byte trailer need 41)",
                                    at: .init(byteOffset: 0))
        }
        self.base = base
        self.size = size
        self.maximumDepth = options.maximumDepth
        self.isLenient = options.isLenient

        let t = size - Self.trailerSize
        // Trailer: 5 unused bytes, sort version, offset size, ref size, count, top, table offset.
        let offsetSize = Int(raw[t + 6])
        let refSize = Int(raw[t + 7])
        let count = Self.loadBigEndian(base + t + 8, width: 8)
        let top = Self.loadBigEndian(base + t + 16, width: 8)
        let table = Self.loadBigEndian(base + t + 24, width: 8)

        // CF __CFBinaryPlistGetTopLevelInfo: sizes of at least 1. Above 8 CF and Foundation on Linux keep
        // an entry's low 8 bytes, and plistlib reads it whole: no writer writes such sizes (CF's writer
        // picks 1, 2, 4 or 8), and refusing them keeps every load of the tuned paths a single 8-byte load.
        // (BinaryPropertyListReader, when lenient, reads sizes above 8 as CF does through a copy with 8-byte
        // entries and references, BinaryPropertyListCanonicalCopy.)
        guard (1...8).contains(offsetSize) else {
            throw PropertyListError(.invalidTrailer, "bplist: trailer offset size \(offsetSize) is not 1...8",
                                    at: .init(byteOffset: t + 6))
        }
        guard (1...8).contains(refSize) else {
            throw PropertyListError(.invalidTrailer, "bplist: trailer object-reference size \(refSize) is not 1...8",
                                    at: .init(byteOffset: t + 7))
        }
        let tableEnd = try Self.checkedTableEnd(count: count, top: top, table: table, offsetSize: offsetSize,
                                                trailer: t, options: options)
        if !options.isLenient {
            // CF __CFBinaryPlistGetTopLevelInfo: 8 + object area + offset table + trailer is the whole file,
            // no byte more or less (Foundation on Linux agrees).
            guard tableEnd == t else {
                throw PropertyListError(.invalidTrailer,
                                        "bplist: offset table of \(count) entries x \(offsetSize) bytes at \(table) ends at \(tableEnd), "
                                            + "\(t - tableEnd) bytes before the trailer at \(t) (the trailer's object count does not match the table)",
                                        at: .init(byteOffset: t + 8))
            }
            // CF __CFBinaryPlistGetTopLevelInfo: a reference can name every object, an offset can reach the
            // table (Foundation on Linux agrees).
            guard refSize >= 8 || count < UInt64(1) << (8 * refSize) else {
                throw PropertyListError(.invalidTrailer,
                                        "bplist: trailer object-reference size \(refSize) cannot address \(count) objects",
                                        at: .init(byteOffset: t + 7))
            }
            guard offsetSize >= 8 || table < UInt64(1) << (8 * offsetSize) else {
                throw PropertyListError(.invalidTrailer,
                                        "bplist: trailer offset size \(offsetSize) cannot reach the offset table at \(table)",
                                        at: .init(byteOffset: t + 6))
            }
        }
        self.offsetSize = offsetSize
        self.refSize = refSize
        self.objectCount = Int(count)
        self.topObject = Int(top)
        self.tableOffset = Int(table)

        // CF __CFBinaryPlistGetTopLevelInfo checks every entry against the table's offset (and the top
        // object's against 8), and __CFBinaryPlistCreateObjectFiltered an entry below 8 when it follows it.
        // Here every entry lies in `8 ..< tableOffset` up front, so later reads need no check; an entry below
        // 8 that no reference reaches, which CF and Foundation on Linux accept, is refused too (no writer
        // writes one; BinaryPropertyListReader, when lenient, reads it as CF does through
        // BinaryPropertyListCanonicalCopy).
        for n in 0..<(checkingOffsets ? objectCount : 0) { _ = try checkedOffset(of: n) }
    }

    /// The trailer's rules on the object count, the top object and the offset table's place, which
    /// lenient reading keeps; `t` is the trailer's byte offset.
    ///
    /// - Returns: where the offset table of `count` entries of `offsetSize` bytes ends (at most `t`).
    /// - Throws: ``PropertyListError`` naming the trailer field.
    static func checkedTableEnd(count: UInt64, top: UInt64, table: UInt64, offsetSize: Int, trailer t: Int,
                                options: PropertyListReadingOptions) throws -> Int {
        // CF __CFBinaryPlistGetTopLevelInfo: at least one object.
        guard count >= 1 else {
            throw PropertyListError(.invalidTrailer, "bplist: trailer object count is 0", at: .init(byteOffset: t + 8))
        }
        // The caller's resource limit (PropertyListReadingOptions.maximumObjectCount), not a format rule.
        guard count <= UInt64(max(0, options.maximumObjectCount)) else {
            throw PropertyListError(.limitExceeded,
                                    "bplist: trailer object count \(count) exceeds the limit \(options.maximumObjectCount)",
                                    at: .init(byteOffset: t + 8))
        }
        // CF __CFBinaryPlistGetTopLevelInfo: the top object is below the object count.
        guard top < count else {
            throw PropertyListError(.invalidTrailer, "bplist: trailer top object \(top) is not below the object count \(count)",
                                    at: .init(byteOffset: t + 16))
        }
        // CF __CFBinaryPlistGetTopLevelInfo: the table starts at byte 9 or later and before the trailer.
        guard table >= UInt64(Self.headerSize + 1), table <= UInt64(t) else {
            throw PropertyListError(.invalidTrailer,
                                    "bplist: trailer offset-table offset \(table) is outside the file's object area 9...\(t)",
                                    at: .init(byteOffset: t + 24))
        }
        // CF __CFBinaryPlistGetTopLevelInfo: count x offset size, overflow-checked, fits before the trailer.
        let (tableBytes, o1) = Int(count).multipliedReportingOverflow(by: offsetSize)
        let (tableEnd, o2) = Int(table).addingReportingOverflow(tableBytes)
        guard !o1, !o2, tableEnd <= t else {
            throw PropertyListError(.invalidTrailer,
                                    "bplist: offset table of \(count) entries x \(offsetSize) bytes at \(table) runs past the trailer at \(t)",
                                    at: .init(byteOffset: t + 8))
        }
        return tableEnd
    }

    /// The byte offset of object `n` (below ``objectCount``), checked to lie in the object area.
    @inline(__always)
    func checkedOffset(of n: Int) throws -> Int {
        // Bounds: entry n lies in the offset table, before the trailer.
        let offset = Self.loadBigEndian(beforeTrailer: base + tableOffset + n * offsetSize, width: offsetSize)
        guard offset >= UInt64(Self.headerSize), offset < UInt64(tableOffset) else { try offsetEntryError(offset, n) }
        return Int(offset)
    }

    @inline(never)
    func offsetEntryError(_ offset: UInt64, _ n: Int) throws -> Never {
        throw PropertyListError(.invalidReference, "bplist: offset-table entry \(offset) is outside the object area 8..<\(tableOffset)",
                                at: .init(byteOffset: tableOffset + n * offsetSize, objectNumber: n))
    }

    /// Counts, for every object, the references to it (saturating at 2), so that only shared objects are
    /// memoized. Containers whose header or references do not fit are skipped here: decoding one throws.
    ///
    /// One pass over every object of the file, so it is kept tight: the counts are updated through a
    /// buffer pointer (bounded by the `r < objectCount` check beside each store) and the reference loop is
    /// specialised for the file's reference width.
    ///
    /// - Parameters:
    ///   - inline: set (from empty, at the first UID) to the file's UIDs of 1-4 bytes, decoded, and every
    ///     other object's offset (see ``TreeState/inline``): the pass reads every entry and marker anyway.
    ///   - checkingOffsets: check each offset-table entry here, in the same order and with the same
    ///     error as the initializer's check (a scanner made with `checkingOffsets: false`): one pass over the
    ///     table instead of two.
    func countReferences(into state: inout [UInt8], inlining inline: inout [UInt32], checkingOffsets: Bool) throws {
        // Offsets are kept from the first UID on, and only when they stay below the UID tag.
        let offsetsFit = UInt64(tableOffset) <= UInt64(Self.inlineUID)
        let firstUID = try state.withUnsafeMutableBufferPointer { counts in
            try countReferences(from: 0, counts, keeping: nil, stoppingAtUID: offsetsFit, checkingOffsets: checkingOffsets)
        }
        guard firstUID < objectCount else { return }
        inline = Array(repeating: 0, count: objectCount)
        try state.withUnsafeMutableBufferPointer { counts in
            try inline.withUnsafeMutableBufferPointer { kept in
                // The objects before the first UID (entries outside the object area, which a scanner
                // checking offsets has thrown for, stay 0).
                for m in 0 ..< firstUID {
                    let raw = Self.loadBigEndian(beforeTrailer: base + tableOffset + m * offsetSize, width: offsetSize)
                    if raw >= UInt64(Self.headerSize), raw < UInt64(tableOffset) { kept[m] = UInt32(truncatingIfNeeded: raw) }
                }
                _ = try countReferences(from: firstUID, counts, keeping: kept, stoppingAtUID: false,
                                        checkingOffsets: checkingOffsets)
            }
        }
    }

    /// The pass of ``countReferences(into:inlining:checkingOffsets:)`` from object `first` on: returns the
    /// first UID of 1-4 bytes when `stoppingAtUID` (before counting it), else (or without one) `objectCount`.
    ///
    /// - Parameter keeping: ``TreeState/inline``'s storage (`objectCount` entries), to fill, or nil.
    @inline(__always)
    func countReferences(from first: Int, _ counts: UnsafeMutableBufferPointer<UInt8>,
                         keeping kept: UnsafeMutableBufferPointer<UInt32>?, stoppingAtUID: Bool,
                         checkingOffsets: Bool) throws -> Int {
        let shift = UInt64(truncatingIfNeeded: 64 &- 8 &* offsetSize)
        let area = UInt64(tableOffset &- Self.headerSize)  // the object area's size (tableOffset >= 9)
        var entry = base + tableOffset + first * offsetSize
        for n in first ..< objectCount {
            // Bounds: entry n lies in the offset table, which the 32-byte trailer follows, so 8 bytes
            // are readable (as in `loadBigEndian(beforeTrailer:width:)`).
            let raw = UInt64(bigEndian: entry.loadUnaligned(as: UInt64.self)) &>> shift
            entry += offsetSize
            // Inside the object area `8 ..< tableOffset` (one unsigned compare); without `checkingOffsets`
            // the initializer has checked every entry already.
            guard raw &- UInt64(Self.headerSize) < area else {
                if checkingOffsets { try offsetEntryError(raw, n) }
                continue
            }
            let offset = Int(truncatingIfNeeded: raw)
            // Bounds: `kept` has `objectCount` entries, n < objectCount.
            kept?[n] = UInt32(truncatingIfNeeded: raw)
            let marker = base.load(fromByteOffset: offset, as: UInt8.self)
            // UIDs of 1-4 bytes (CoreFoundation writes 1, 2 or 4) inside the object area, kept decoded when
            // below 2^31 (what `uidValue` reads for them, and accepts); a larger one keeps its offset.
            if marker &- 0x80 < 4 {
                if stoppingAtUID { return n }
                let width = Int(marker & 0x0F) &+ 1
                // Bounds: the 4 bytes at `offset + 1` are before the trailer's end (offset < tableOffset);
                // the `width` of them used lie inside the object area.
                if let kept, offset &+ 1 &+ width <= tableOffset {
                    let value = UInt32(bigEndian: base.loadUnaligned(fromByteOffset: offset &+ 1, as: UInt32.self))
                        &>> UInt32(truncatingIfNeeded: 32 &- 8 &* width)
                    if value < Self.inlineUID { kept[n] = Self.inlineUID | value }
                }
                continue
            }
            // Containers only: 0xA array, 0xB ordered set, 0xC set, 0xD dictionary (one unsigned compare).
            guard marker &- 0xA0 < 0x40 else { continue }
            let high = marker >> 4
            guard let (count, start) = try? countAndStart(BinaryPropertyListMarker.nibble(marker), at: offset, object: n)
            else { continue }
            let (refs, o1) = count.multipliedReportingOverflow(by: high == 0xD ? 2 : 1)
            let (bytes, o2) = refs.multipliedReportingOverflow(by: refSize)
            let (end, o3) = start.addingReportingOverflow(bytes)
            guard !o1, !o2, !o3, end <= tableOffset else { continue }
            let p = base + start
            switch refSize {
            case 1: Self.tally(UInt8.self, p, refs, counts)
            case 2: Self.tally(UInt16.self, p, refs, counts)
            case 4: Self.tally(UInt32.self, p, refs, counts)
            case 8: Self.tally(UInt64.self, p, refs, counts)
            default:
                for k in 0 ..< refs {
                    let r = Self.loadBigEndian(beforeTrailer: p + k * refSize, width: refSize)  // inside the object area
                    if r < UInt64(counts.count), counts[Int(r)] < Self.shared { counts[Int(r)] += 1 }
                }
            }
        }
        return objectCount
    }

    /// Adds the `refs` big-endian references of type `T` at `p` (inside the object area) to `counts`,
    /// saturating at ``shared``; references past the object count are skipped (decoding them throws).
    @inline(__always)
    static func tally<T: FixedWidthInteger & UnsignedInteger>(_: T.Type, _ p: UnsafeRawPointer, _ refs: Int,
                                                             _ counts: UnsafeMutableBufferPointer<UInt8>) {
        let limit = UInt64(counts.count)
        for k in 0 ..< refs {
            let r = UInt64(T(bigEndian: p.loadUnaligned(fromByteOffset: k &* MemoryLayout<T>.size, as: T.self)))
            // Bounds: `r < limit` (the buffer's count) right before the store.
            if r < limit, counts[Int(r)] < shared { counts[Int(r)] &+= 1 }
        }
    }

    /// Decodes the root object and everything it refers to.
    ///
    /// - Parameter offsetsChecked: whether the initializer checked the offset table (else it is checked here).
    func readRoot(offsetsChecked: Bool = true) throws -> PropertyListValue {
        var tree = TreeState(objectCount: objectCount)
        try countReferences(into: &tree.state, inlining: &tree.inline, checkingOffsets: !offsetsChecked)
        do {
            return try value(topObject, depth: 0, &tree)
        } catch {
            // The memoized shared objects: nothing else holds them now, and they may be deep.
            PropertyListValue.dismantle(all: &tree.memo)
            tree.keySets = []
            throw error
        }
    }

    /// How deep ``value(_:depth:_:)`` recurses before it hands a sub-tree to ``deepValue(_:depth:_:)``:
    /// 64 levels of its frames fit easily in a 512 KiB secondary-thread stack, also unoptimised.
    static let recursionLimit = 64

    // MARK: - Primitive loads

    /// A big-endian unsigned integer of `width` (1...8) bytes at `p`. The caller has checked the bounds.
    @inline(__always)
    static func loadBigEndian(_ p: UnsafeRawPointer, width: Int) -> UInt64 {
        switch width {
        case 1: return UInt64(p.load(as: UInt8.self))
        case 2: return UInt64(UInt16(bigEndian: p.loadUnaligned(as: UInt16.self)))
        case 3: return UInt64(UInt16(bigEndian: p.loadUnaligned(as: UInt16.self))) << 8 | UInt64(p.load(fromByteOffset: 2, as: UInt8.self))
        case 4: return UInt64(UInt32(bigEndian: p.loadUnaligned(as: UInt32.self)))
        case 8: return UInt64(bigEndian: p.loadUnaligned(as: UInt64.self))
        default:
            var v: UInt64 = 0
            for i in 0..<width { v = v << 8 | UInt64(p.load(fromByteOffset: i, as: UInt8.self)) }
            return v
        }
    }

    /// A big-endian unsigned integer of `width` (1...8) bytes at `p`, where at least 8 bytes are readable:
    /// true of every byte before the trailer (objects, references, offset-table entries), which the
    /// 32-byte trailer follows. One load and a shift, where ``loadBigEndian(_:width:)`` branches on the
    /// width (3-byte references and offsets, common in files of a few megabytes, took its slowest case).
    @inline(__always)
    static func loadBigEndian(beforeTrailer p: UnsafeRawPointer, width: Int) -> UInt64 {
        UInt64(bigEndian: p.loadUnaligned(as: UInt64.self)) &>> UInt64(truncatingIfNeeded: 64 &- 8 &* width)
    }

    /// The byte offset of object `n` (already validated to lie in the object area).
    @inline(__always)
    func offset(of n: Int) -> Int {
        // Bounds: entry n lies in the offset table, before the trailer.
        Int(truncatingIfNeeded: Self.loadBigEndian(beforeTrailer: base + tableOffset + n * offsetSize, width: offsetSize))
    }

    /// Throws unless `count` bytes starting at `start` lie inside the object area (CF
    /// __CFBinaryPlistCreateObjectFiltered: every extent, overflow-checked, ends before the offset table).
    @inline(__always)
    func require(_ start: Int, _ count: Int, object n: Int, _ what: StaticString) throws {
        let (end, overflow) = start.addingReportingOverflow(count)
        guard !overflow, count >= 0, end <= tableOffset else { try truncatedError(start, n, what) }
    }

    @inline(never)
    func truncatedError(_ start: Int, _ n: Int, _ what: StaticString) throws -> Never {
        throw PropertyListError(.truncated, "bplist: \(what) runs past the end of the object area at \(tableOffset)",
                          at: .init(byteOffset: start, objectNumber: n))
    }

    /// The element count of object `n` whose marker (at `offset`) has low nibble `nibble`, and where its
    /// payload starts. A nibble of 0xF means the count follows as an integer object.
    @inline(__always)
    func countAndStart(_ nibble: UInt8, at offset: Int, object n: Int) throws -> (count: Int, start: Int) {
        if nibble != BinaryPropertyListMarker.extendedCount { return (Int(nibble), offset + 1) }
        // The common extended count, a 1-byte integer (`0x10 nn`: data of 15-255 bytes, a dictionary of 15
        // or more entries), read here; any other form (and every error) is `extendedCount`'s.
        // Bounds: both bytes lie in the object area (`offset + 2 < tableOffset`), as `extendedCount` requires.
        if offset + 2 < tableOffset, base.load(fromByteOffset: offset + 1, as: UInt8.self) == Self.oneByteInteger {
            return (Int(base.load(fromByteOffset: offset + 2, as: UInt8.self)), offset + 3)
        }
        return try extendedCount(at: offset, object: n)
    }

    /// The marker of a 1-byte integer, the usual extended count.
    static let oneByteInteger: UInt8 = 0x10

    /// The count that follows a marker with nibble 0xF: an integer object of 1, 2, 4 or 8 bytes, or when
    /// lenient 16 (CF _readInt: an integer marker of any width, its low 8 bytes; Foundation on Linux agrees;
    /// no writer writes a 16-byte count, so strict refuses it; CF: `LONG_MAX < count` fails).
    @inline(never)
    func extendedCount(at offset: Int, object n: Int) throws -> (count: Int, start: Int) {
        try require(offset + 1, 1, object: n, "extended length marker")
        let marker = base.load(fromByteOffset: offset + 1, as: UInt8.self)
        let widest: UInt8 = isLenient ? 4 : 3
        guard BinaryPropertyListMarker(byte: marker) == .integer, BinaryPropertyListMarker.nibble(marker) <= widest else {
            throw PropertyListError(.invalidObject,
                                    "bplist: extended length must be an integer of 1, 2, 4 or 8 bytes, found marker 0x\(hex(marker))",
                                    at: .init(byteOffset: offset + 1, objectNumber: n))
        }
        let width = 1 << Int(BinaryPropertyListMarker.nibble(marker))
        try require(offset + 2, width, object: n, "extended length")
        // The low 8 bytes (all of them below 16).
        let raw = Self.loadBigEndian(base + offset + 2 + max(0, width - 8), width: min(width, 8))
        guard raw <= UInt64(Int.max) else {
            throw PropertyListError(.invalidObject, "bplist: extended length \(Int64(bitPattern: raw)) is negative",
                                    at: .init(byteOffset: offset + 2, objectNumber: n))
        }
        return (Int(raw), offset + 2 + width)
    }

    /// `count` elements of `unit` bytes each starting at `start` must fit in the object area.
    @inline(__always)
    func requireElements(_ count: Int, of unit: Int, at start: Int, object n: Int, _ what: StaticString) throws {
        let (bytes, overflow) = count.multipliedReportingOverflow(by: unit)
        let (end, overflow2) = start.addingReportingOverflow(bytes)
        guard !overflow, !overflow2, end <= tableOffset else {
            try elementsError(count, unit, start, n, what)
        }
    }

    @inline(never)
    func elementsError(_ count: Int, _ unit: Int, _ start: Int, _ n: Int, _ what: StaticString) throws -> Never {
        let (bytes, overflow) = count.multipliedReportingOverflow(by: unit)
        let need = overflow ? "more bytes than memory holds" : "\(bytes) bytes"
        throw PropertyListError(.limitExceeded,
                                 "bplist: \(what) count \(count) needs \(need), more than the \(tableOffset - start) left in the object area",
                                 at: .init(byteOffset: start, objectNumber: n))
    }

    /// The object reference at byte `p`, checked against the object count (CF _getOffsetOfRefAt: a
    /// reference below the object count).
    @inline(__always)
    func reference(at p: Int, object n: Int) throws -> Int {
        let r = Self.loadBigEndian(beforeTrailer: base + p, width: refSize)  // callers checked p is in the object area
        guard r < UInt64(objectCount) else { try referenceError(r, p, n) }
        return Int(r)
    }

    @inline(never)
    func referenceError(_ r: UInt64, _ p: Int, _ n: Int) throws -> Never {
        throw PropertyListError(.invalidReference, "bplist: object reference \(r) is not below the object count \(objectCount)",
                          at: .init(byteOffset: p, objectNumber: n))
    }
}
