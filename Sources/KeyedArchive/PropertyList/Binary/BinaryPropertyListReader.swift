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
/// and `0xBn` markers and UIDs above `UInt32.max`; bounds, depth and cycle checks stay.
///
/// Decisions where the format, CoreFoundation (CF) and Python's `plistlib` differ:
/// - **Header**: `bplist0` followed by any byte is accepted, as CF does (`bplist00`, `bplist01`).
/// - **Sizes above 8**: CF accepts offset and reference sizes above 8 and 16-byte UIDs whose upper
///   8 bytes are not zero, keeping the low 8 bytes; this reader rejects them. It also rejects an
///   offset-table entry below 8 even when no reference reaches it (CF checks entries when it follows them).
/// - **Null (`0x00`) and fill (`0x0F`)** are rejected with ``PropertyListError/Code/invalidObject``:
///   the value model has no null, and fill is padding, not a value (`plistlib` reads them as `None`/`b''`).
/// - **Integers** of 1, 2 and 4 bytes are unsigned, 8 bytes signed. A 16-byte integer is read as a signed
///   128-bit big-endian number and must lie in `Int64.min ... UInt64.max` (upper 8 bytes all zero, or all
///   `0xFF` with a negative lower half), as `plistlib` reads it; anything else is rejected rather than
///   silently truncated to its lower 8 bytes as CF does.
/// - **Reals** must be 4 or 8 bytes; a date must be `0x33` (8 bytes).
/// - **ASCII strings (`0x5n`)** whose bytes are not all below `0x80` are decoded as UTF-8 when they are
///   valid UTF-8 (some non-Apple writers put UTF-8 there, e.g. `node-bplist-parser/sample1.bplist`), and
///   rejected with ``PropertyListError/Code/invalidString`` otherwise. CF would show such bytes as MacRoman
///   and `plistlib` rejects them; UTF-8 is what those writers meant.
/// - **UTF-16 strings (`0x6n`)** with an unpaired surrogate are rejected (``PropertyListError/Code/invalidString``).
/// - **UTF-8 strings (`0x7n`)**, a marker no Apple reader decodes, are accepted only when lenient, and
///   only when the bytes are valid UTF-8; the count is in bytes.
/// - **Sets (`0xCn`)**, and when lenient ordered sets (`0xBn`), read as ``PropertyListValue/set(_:)``.
/// - **Dictionary keys** must be strings; a UID or any other key is ``PropertyListError/Code/invalidKey``.
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
    ///
    /// - Parameter data: the whole file, starting with `bplist0`.
    /// - Returns: the root object.
    /// - Throws: ``PropertyListError`` with the code of the fault and its location (object number, byte
    ///   offset, key path from the root).
    public func read(_ data: Data) throws -> PropertyListValue {
        try data.withUnsafeBytes { raw in
            var scanner = try BinaryPropertyListScanner(raw, options: options)
            scanner.source = data
            do {
                return try scanner.readRoot()
            } catch {
                scanner.releaseMemo()  // a shared sub-tree it alone holds now may be deep
                throw error
            }
        }
    }
}

/// The bytes of a binary property list after its structure has been checked: decodes objects on demand.
///
/// Only valid inside the `withUnsafeBytes` call that created it.
struct BinaryPropertyListScanner {
    /// The whole input. Never empty once the initializer has returned.
    private let base: UnsafeRawPointer
    private let size: Int
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
    private let maximumDepth: Int
    /// ``PropertyListReadingOptions/isLenient``: accept what CoreFoundation rejects but can be read.
    let isLenient: Bool

    /// Per object: how many references to it the file's containers hold (bits 0-1, saturating at 2),
    /// and whether it is being decoded, i.e. on the current path (bit 2).
    private var state: [UInt8]
    /// Decoded objects that are referenced more than once, so each is decoded once and shared.
    private var memo: [Int: PropertyListValue] = [:]
    /// The `Data` whose bytes `base` points at, when the caller has one: data values are then slices of
    /// it that share its storage (no copy); without it they are copied.
    var source: Data?
    private static let onPath: UInt8 = 4
    private static let shared: UInt8 = 2

    /// The size of the fixed trailer at the end of the file.
    static let trailerSize = 32
    /// The size of the `bplist00` header.
    static let headerSize = 8

    /// Checks the header, the trailer and every offset-table entry of `raw`.
    ///
    /// - Parameter countingReferences: count the references to each object so that `value(_:depth:)`
    ///   decodes shared sub-trees once (a whole-file read wants this; a reader that looks at a few
    ///   objects on demand does not).
    init(_ raw: UnsafeRawBufferPointer, options: PropertyListReadingOptions, countingReferences: Bool = true) throws {
        let size = raw.count
        let magic = Array("bplist0".utf8)
        guard size >= 7, let base = raw.baseAddress else {
            throw PropertyListError(.truncated, "bplist: \(size) bytes is too short for a binary property list",
                                    at: .init(byteOffset: 0))
        }
        for i in 0..<7 where raw[i] != magic[i] {
            throw PropertyListError(.unknownFormat, "bplist: header is not bplist0x", at: .init(byteOffset: i))
        }
        // Header, at least one object byte, trailer.
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

        guard (1...8).contains(offsetSize) else {
            throw PropertyListError(.invalidTrailer, "bplist: trailer offset size \(offsetSize) is not 1...8",
                                    at: .init(byteOffset: t + 6))
        }
        guard (1...8).contains(refSize) else {
            throw PropertyListError(.invalidTrailer, "bplist: trailer object-reference size \(refSize) is not 1...8",
                                    at: .init(byteOffset: t + 7))
        }
        guard count >= 1 else {
            throw PropertyListError(.invalidTrailer, "bplist: trailer object count is 0", at: .init(byteOffset: t + 8))
        }
        guard count <= UInt64(max(0, options.maximumObjectCount)) else {
            throw PropertyListError(.limitExceeded,
                                    "bplist: trailer object count \(count) exceeds the limit \(options.maximumObjectCount)",
                                    at: .init(byteOffset: t + 8))
        }
        guard top < count else {
            throw PropertyListError(.invalidTrailer, "bplist: trailer top object \(top) is not below the object count \(count)",
                                    at: .init(byteOffset: t + 16))
        }
        // The table must start after the header and at least one object byte, and end before the trailer.
        guard table >= UInt64(Self.headerSize + 1), table <= UInt64(t) else {
            throw PropertyListError(.invalidTrailer,
                                    "bplist: trailer offset-table offset \(table) is outside the file's object area 9...\(t)",
                                    at: .init(byteOffset: t + 24))
        }
        let (tableBytes, o1) = Int(count).multipliedReportingOverflow(by: offsetSize)
        let (tableEnd, o2) = Int(table).addingReportingOverflow(tableBytes)
        guard !o1, !o2, tableEnd <= t else {
            throw PropertyListError(.invalidTrailer,
                                    "bplist: offset table of \(count) entries x \(offsetSize) bytes at \(table) runs past the trailer at \(t)",
                                    at: .init(byteOffset: t + 8))
        }
        if !options.isLenient {
            // CF: 8 + object area + offset table + trailer must be the whole file, no byte more or less.
            guard tableEnd == t else {
                throw PropertyListError(.invalidTrailer,
                                        "bplist: offset table of \(count) entries x \(offsetSize) bytes at \(table) ends at \(tableEnd), "
                                            + "\(t - tableEnd) bytes before the trailer at \(t) (the trailer's object count does not match the table)",
                                        at: .init(byteOffset: t + 8))
            }
            // CF: a reference must be able to name every object, an offset must reach the table.
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

        // Every offset-table entry must point into the object area.
        var entry = base + tableOffset
        for n in 0..<objectCount {
            let offset = Self.loadBigEndian(entry, width: offsetSize)
            guard offset >= UInt64(Self.headerSize), offset < UInt64(tableOffset) else {
                throw PropertyListError(.invalidReference,
                                        "bplist: offset-table entry \(offset) is outside the object area 8..<\(tableOffset)",
                                        at: .init(byteOffset: tableOffset + n * offsetSize, objectNumber: n))
            }
            entry += offsetSize
        }
        state = Array(repeating: 0, count: objectCount)
        if countingReferences { countReferences() }
    }

    /// Counts, for every object, the references to it (saturating at 2), so that only shared objects are
    /// memoized. Containers whose header or references do not fit are skipped here: decoding one throws.
    private mutating func countReferences() {
        for n in 0 ..< objectCount {
            let offset = offset(of: n)
            let marker = base.load(fromByteOffset: offset, as: UInt8.self)
            let kind = marker >> 4
            guard kind >= 0xA && kind <= 0xD else { continue }
            guard let (count, start) = try? countAndStart(marker & 0x0F, at: offset, object: n) else { continue }
            let (refs, o1) = count.multipliedReportingOverflow(by: kind == 0xD ? 2 : 1)
            guard !o1, (try? requireElements(refs, of: refSize, at: start, object: n, "container")) != nil else { continue }
            var p = start
            for _ in 0 ..< refs {
                let r = Self.loadBigEndian(base + p, width: refSize)
                if r < UInt64(objectCount) {
                    let i = Int(r)
                    if state[i] < Self.shared { state[i] += 1 }
                }
                p += refSize
            }
        }
    }

    /// Frees the memoized shared objects without recursion (after a failed read, nothing else holds them).
    mutating func releaseMemo() {
        var values = Array(memo.values)
        memo = [:]
        PropertyListValue.dismantle(all: &values)
    }

    /// Decodes the root object and everything it refers to.
    mutating func readRoot() throws -> PropertyListValue {
        try value(topObject, depth: 0)
    }

    /// How deep ``value(_:depth:)`` recurses before it hands a sub-tree to ``deepValue(_:depth:)``:
    /// 128 levels of its small frames fit easily in a 512 KiB secondary-thread stack.
    static let recursionLimit = 128

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

    /// The byte offset of object `n` (already validated to lie in the object area).
    @inline(__always)
    func offset(of n: Int) -> Int {
        Int(truncatingIfNeeded: Self.loadBigEndian(base + tableOffset + n * offsetSize, width: offsetSize))
    }

    /// Throws unless `count` bytes starting at `start` lie inside the object area.
    @inline(__always)
    private func require(_ start: Int, _ count: Int, object n: Int, _ what: StaticString) throws {
        let (end, overflow) = start.addingReportingOverflow(count)
        guard !overflow, count >= 0, end <= tableOffset else { try truncatedError(start, n, what) }
    }

    @inline(never)
    private func truncatedError(_ start: Int, _ n: Int, _ what: StaticString) throws -> Never {
        throw PropertyListError(.truncated, "bplist: \(what) runs past the end of the object area at \(tableOffset)",
                          at: .init(byteOffset: start, objectNumber: n))
    }

    /// The element count of object `n` whose marker (at `offset`) has low nibble `nibble`, and where its
    /// payload starts. A nibble of 0xF means the count follows as an integer object.
    @inline(__always)
    func countAndStart(_ nibble: UInt8, at offset: Int, object n: Int) throws -> (count: Int, start: Int) {
        if nibble != 0x0F { return (Int(nibble), offset + 1) }
        return try extendedCount(at: offset, object: n)
    }

    /// The count that follows a marker with nibble 0xF: an integer object of 1, 2, 4 or 8 bytes.
    @inline(never)
    private func extendedCount(at offset: Int, object n: Int) throws -> (count: Int, start: Int) {
        try require(offset + 1, 1, object: n, "extended length marker")
        let marker = base.load(fromByteOffset: offset + 1, as: UInt8.self)
        guard marker & 0xF0 == 0x10, marker & 0x0F <= 3 else {
            throw PropertyListError(.invalidObject,
                                    "bplist: extended length must be an integer of 1, 2, 4 or 8 bytes, found marker 0x\(hex(marker))",
                                    at: .init(byteOffset: offset + 1, objectNumber: n))
        }
        let width = 1 << Int(marker & 0x0F)
        try require(offset + 2, width, object: n, "extended length")
        let raw = Self.loadBigEndian(base + offset + 2, width: width)
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
    private func elementsError(_ count: Int, _ unit: Int, _ start: Int, _ n: Int, _ what: StaticString) throws -> Never {
        let (bytes, overflow) = count.multipliedReportingOverflow(by: unit)
        let need = overflow ? "more bytes than memory holds" : "\(bytes) bytes"
        throw PropertyListError(.limitExceeded,
                                 "bplist: \(what) count \(count) needs \(need), more than the \(tableOffset - start) left in the object area",
                                 at: .init(byteOffset: start, objectNumber: n))
    }

    /// The object reference at byte `p`, checked against the object count.
    @inline(__always)
    func reference(at p: Int, object n: Int) throws -> Int {
        let r = Self.loadBigEndian(base + p, width: refSize)
        guard r < UInt64(objectCount) else { try referenceError(r, p, n) }
        return Int(r)
    }

    @inline(never)
    private func referenceError(_ r: UInt64, _ p: Int, _ n: Int) throws -> Never {
        throw PropertyListError(.invalidReference, "bplist: object reference \(r) is not below the object count \(objectCount)",
                          at: .init(byteOffset: p, objectNumber: n))
    }

    // MARK: - Objects

    /// Decodes object `n` at nesting `depth` (number of containers above it).
    ///
    /// The common path: this function, `array` and `dictionary` recurse (fast, with small stack frames)
    /// down to ``recursionLimit`` levels; below that a sub-tree is decoded by ``deepValue(_:depth:)``,
    /// which keeps its path on the heap, so no depth the options allow can exhaust the call stack.
    @inline(never)
    mutating func value(_ n: Int, depth: Int) throws -> PropertyListValue {
        if depth >= Self.recursionLimit { return try deepValue(n, depth: depth) }
        let st = state[n]
        if st & Self.onPath != 0 { try cycleError(n) }
        if st & 3 >= Self.shared, let v = memo[n] { return v }
        let offset = offset(of: n)
        let marker = base.load(fromByteOffset: offset, as: UInt8.self)
        switch marker >> 4 {
        case 0xB where !isLenient: try unsupportedMarker(marker, offset, n)
        case 0xA, 0xB, 0xC: return try array(n, at: offset, marker: marker, depth: depth)
        case 0xD: return try dictionary(n, at: offset, marker: marker, depth: depth)
        default:
            let v = try scalar(n, at: offset, marker: marker)
            if st & 3 >= Self.shared { memo[n] = v }
            return v
        }
    }

    /// A container being decoded: its references, and what has been decoded of its elements so far.
    private struct Frame {
        /// Object number of the container.
        var n: Int
        /// The marker's high nibble: 0xA array, 0xB ordered set, 0xC set, 0xD dictionary.
        var kind: UInt8
        var count: Int
        /// Where its references start (a dictionary: `count` keys, then `count` values).
        var start: Int
        /// The element (or entry) being read.
        var i = 0
        /// Dictionary: whether entry `i`'s key has been read (into `key`) and its value is next.
        var key: String?
        var elements: [PropertyListValue] = []
        var keys: [String] = []
    }

    /// Decodes object `root`, `depth` containers below the root, and everything below it.
    ///
    /// Iterative: the containers on the current path are an explicit stack of ``Frame``s, so nesting as
    /// deep as ``PropertyListReadingOptions/maximumDepth`` allows (a million levels and more) costs heap,
    /// not call stack. A shared sub-tree is decoded once (memoized); a container on the current path that
    /// is reached again is a cycle. A fault is thrown with the key path of the frames above it.
    @inline(never)
    mutating func deepValue(_ root: Int, depth: Int) throws -> PropertyListValue {
        // The innermost open container is `top` (a local, for speed); the ones above it are on `stack`.
        var stack: [Frame] = []
        var top = Frame(n: 0, kind: 0, count: 0, start: 0)
        var open = 0  // containers open: stack.count + 1, or 0 when `top` is unused
        do {
            var n = root
            descend: while true {
                // Visit object n, a child of `top` (or the root).
                var v: PropertyListValue
                let st = state[n]
                if st & Self.onPath != 0 { try cycleError(n) }
                if st & 3 >= Self.shared, let memoized = memo[n] {
                    v = memoized
                } else {
                    let offset = offset(of: n)
                    let marker = base.load(fromByteOffset: offset, as: UInt8.self)
                    let kind = marker >> 4
                    if kind >= 0xA && kind <= 0xD {
                        // A dictionary key must be a string: a container key is refused before it is read.
                        if open > 0, top.kind == 0xD, top.key == nil {
                            try Self.containerKeyError(marker, top.start + top.i * refSize, top.n)
                        }
                        var frame = try self.open(n, at: offset, marker: marker, depth: depth + open)
                        if frame.count > 0 {
                            if open > 0 {
                                swap(&frame, &top)
                                stack.append(frame)
                            } else {
                                top = frame
                            }
                            open += 1
                            n = try nextReference(&top)
                            continue descend
                        }
                        v = close(frame)
                    } else {
                        v = try scalar(n, at: offset, marker: marker)
                        if st & 3 >= Self.shared { memo[n] = v }
                    }
                }
                // Hand v to the open containers, closing each one that is complete.
                while open > 0 {
                    if top.kind == 0xD {
                        if let key = top.key {
                            top.keys.append(key)
                            top.elements.append(v)
                            top.key = nil
                            top.i += 1
                        } else {
                            guard case .string(let k) = v else {
                                try Self.keyError(v, top.start + top.i * refSize, top.n)
                            }
                            top.key = k
                            n = try nextReference(&top)
                            continue descend
                        }
                    } else {
                        top.elements.append(v)
                        top.i += 1
                    }
                    if top.i < top.count {
                        n = try nextReference(&top)
                        continue descend
                    }
                    var finished = stack.popLast() ?? Frame(n: 0, kind: 0, count: 0, start: 0)
                    swap(&finished, &top)
                    open -= 1
                    v = close(consume finished)
                }
                return v
            }
        } catch var error as PropertyListError {
            if open > 0 { stack.append(top) }
            // The key path, innermost frame first: `[i]` for an element, the key (or `<key i>` while the
            // key itself was being read) for a dictionary entry.
            var path = error.location.keyPath
            for frame in stack.reversed() {
                if frame.kind == 0xD {
                    path = Self.join(frame.key ?? "<key \(frame.i)>", path)
                } else {
                    path = Self.join("[\(frame.i)]", path)
                }
            }
            error.location.keyPath = path
            Self.dismantle(&stack)
            throw error
        } catch {
            if open > 0 { stack.append(top) }
            Self.dismantle(&stack)
            throw error
        }
    }

    /// Empties `stack`, freeing what its frames hold without recursion (a finished sub-tree may be deep).
    @inline(never)
    private static func dismantle(_ stack: inout [Frame]) {
        var values: [PropertyListValue] = []
        for i in stack.indices {
            values.append(contentsOf: stack[i].elements)
            stack[i].elements = []
        }
        stack = []
        PropertyListValue.dismantle(all: &values)
    }

    /// The object the top frame reads next: element `i`, or for a dictionary key `i` or value `i`.
    @inline(__always)
    private func nextReference(_ frame: inout Frame) throws -> Int {
        var p = frame.start + frame.i * refSize
        if frame.kind == 0xD, frame.key != nil { p += frame.count * refSize }
        return try reference(at: p, object: frame.n)
    }

    /// Checks container `n` (marker at `offset`) at nesting `depth` and marks it on the current path.
    @inline(__always)
    private mutating func open(_ n: Int, at offset: Int, marker: UInt8, depth: Int) throws -> Frame {
        let kind = marker >> 4
        if kind == 0xB, !isLenient { try unsupportedMarker(marker, offset, n) }
        let (count, start) = try countAndStart(marker & 0x0F, at: offset, object: n)
        if kind == 0xD {
            let (twice, overflow) = count.multipliedReportingOverflow(by: 2)
            try requireElements(overflow ? Int.max : twice, of: refSize, at: start, object: n, "dictionary reference")
        } else {
            try requireElements(count, of: refSize, at: start, object: n, kind == 0xA ? "array" : "set")
        }
        guard depth < maximumDepth else { try tooDeep(n, offset) }
        state[n] |= Self.onPath
        var frame = Frame(n: n, kind: kind, count: count, start: start)
        frame.elements.reserveCapacity(count)  // bounded: count * refSize bytes fit in the file
        if kind == 0xD { frame.keys.reserveCapacity(count) }
        return frame
    }

    /// The value of a complete container; takes it off the current path and memoizes it when shared.
    @inline(__always)
    private mutating func close(_ frame: consuming Frame) -> PropertyListValue {
        let v: PropertyListValue
        switch frame.kind {
        case 0xA: v = .array(frame.elements)
        case 0xD: v = Self.makeDictionary(frame.keys, frame.elements)
        default: v = .set(frame.elements)
        }
        state[frame.n] &= ~Self.onPath
        if state[frame.n] & 3 >= Self.shared { memo[frame.n] = v }
        return v
    }

    @inline(never)
    private func cycleError(_ n: Int) throws -> Never {
        throw PropertyListError(.cycle, "bplist: container contains itself (object \(n) is its own ancestor)",
                          at: .init(byteOffset: offset(of: n), objectNumber: n))
    }

    /// Decodes a non-container object.
    @inline(never)
    func scalar(_ n: Int, at offset: Int, marker: UInt8) throws -> PropertyListValue {
        let nibble = marker & 0x0F
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            case 0x00:
                throw PropertyListError(.invalidObject, "bplist: null (0x00) has no property-list value",
                                        at: .init(byteOffset: offset, objectNumber: n))
            case 0x0F:
                throw PropertyListError(.invalidObject, "bplist: fill byte (0x0F) is padding, not a value",
                                        at: .init(byteOffset: offset, objectNumber: n))
            default:
                throw PropertyListError(.invalidObject, "bplist: unknown object marker 0x\(hex(marker))",
                                        at: .init(byteOffset: offset, objectNumber: n))
            }
        case 0x1:
            return .integer(try integer(nibble, at: offset, object: n))
        case 0x2:
            switch nibble {
            case 2:
                try require(offset + 1, 4, object: n, "4-byte real")
                let bits = UInt32(truncatingIfNeeded: Self.loadBigEndian(base + offset + 1, width: 4))
                return .float(Float(bitPattern: bits))
            case 3:
                try require(offset + 1, 8, object: n, "8-byte real")
                return .real(Double(bitPattern: Self.loadBigEndian(base + offset + 1, width: 8)))
            default:
                throw PropertyListError(.invalidObject, "bplist: real of \(1 << Int(nibble)) bytes (only 4 and 8 exist)",
                                        at: .init(byteOffset: offset, objectNumber: n))
            }
        case 0x3:
            guard marker == 0x33 else {
                throw PropertyListError(.invalidObject, "bplist: date marker 0x\(hex(marker)) (only 0x33 exists)",
                                        at: .init(byteOffset: offset, objectNumber: n))
            }
            try require(offset + 1, 8, object: n, "date")
            let seconds = Double(bitPattern: Self.loadBigEndian(base + offset + 1, width: 8))
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case 0x4:
            let (count, start) = try countAndStart(nibble, at: offset, object: n)
            try requireElements(count, of: 1, at: start, object: n, "data")
            guard let source else { return .data(Data(bytes: base + start, count: count)) }
            let first = source.startIndex + start
            return .data(source[first ..< first + count])
        case 0x5:
            let (count, start) = try countAndStart(nibble, at: offset, object: n)
            try requireElements(count, of: 1, at: start, object: n, "ASCII string")
            let v = PropertyListValue.string(try asciiString(at: start, count: count, object: n))
            return v
        case 0x6:
            let (count, start) = try countAndStart(nibble, at: offset, object: n)
            try requireElements(count, of: 2, at: start, object: n, "UTF-16 string")
            let v = PropertyListValue.string(try utf16String(at: start, count: count, object: n))
            return v
        case 0x7:
            guard isLenient else { try unsupportedMarker(marker, offset, n) }
            let (count, start) = try countAndStart(nibble, at: offset, object: n)
            try requireElements(count, of: 1, at: start, object: n, "UTF-8 string")
            let bytes = UnsafeBufferPointer(start: (base + start).assumingMemoryBound(to: UInt8.self), count: count)
            guard let s = Self.validUTF8(bytes) else {
                throw PropertyListError(.invalidString, "bplist: UTF-8 string is not valid UTF-8",
                                        at: .init(byteOffset: start, objectNumber: n))
            }
            return .string(s)
        case 0x8:
            return .uid(UID(try uidValue(nibble, at: offset, object: n)))
        default:
            throw PropertyListError(.invalidObject, "bplist: unknown object marker 0x\(hex(marker))",
                                    at: .init(byteOffset: offset, objectNumber: n))
        }
    }

    /// Decodes an array (0xA), ordered set (0xB) or set (0xC), marked on the current path while its
    /// elements are read.
    @inline(never)
    private mutating func array(_ n: Int, at offset: Int, marker: UInt8, depth: Int) throws -> PropertyListValue {
        let nibble = marker & 0x0F
        let (count, start) = try countAndStart(nibble, at: offset, object: n)
        try requireElements(count, of: refSize, at: start, object: n, marker >> 4 == 0xA ? "array" : "set")
        guard depth < maximumDepth else { try tooDeep(n, offset) }
        state[n] |= Self.onPath
        var elements: [PropertyListValue] = []
        elements.reserveCapacity(count)  // bounded: count * refSize bytes fit in the file
        var p = start
        var i = 0
        do {
            while i < count {
                let r = try reference(at: p, object: n)
                elements.append(try value(r, depth: depth + 1))
                p += refSize
                i += 1
            }
        } catch {
            PropertyListValue.dismantle(all: &elements)  // a finished element may be deep
            try Self.rethrow(error, index: i)
        }
        let v: PropertyListValue = marker >> 4 == 0xA ? .array(elements) : .set(elements)
        state[n] &= ~Self.onPath
        if state[n] & 3 >= Self.shared { memo[n] = v }
        return v
    }

    /// Decodes a dictionary (0xD), marked on the current path while its keys and values are read.
    @inline(never)
    private mutating func dictionary(_ n: Int, at offset: Int, marker: UInt8, depth: Int) throws -> PropertyListValue {
        let nibble = marker & 0x0F
        let (count, start) = try countAndStart(nibble, at: offset, object: n)
        let (twice, overflow) = count.multipliedReportingOverflow(by: 2)
        try requireElements(overflow ? Int.max : twice, of: refSize, at: start, object: n, "dictionary reference")
        guard depth < maximumDepth else { try tooDeep(n, offset) }
        state[n] |= Self.onPath
        var keys: [String] = []
        var values: [PropertyListValue] = []
        keys.reserveCapacity(count)  // bounded: 2 * count * refSize bytes fit in the file
        values.reserveCapacity(count)
        let valuesStart = start + count * refSize
        var i = 0
        var key: String?
        do {
            while i < count {
                key = nil
                let kp = start + i * refSize
                let kr = try reference(at: kp, object: n)
                let keyValue = try value(kr, depth: depth + 1)
                guard case .string(let k) = keyValue else {
                    let kind = keyValue.kindName
                    PropertyListValue.dismantle(consume keyValue)  // a container key may be deep
                    try Self.keyKindError(kind, kp, n)
                }
                key = k
                let vr = try reference(at: valuesStart + i * refSize, object: n)
                values.append(try value(vr, depth: depth + 1))
                keys.append(k)
                i += 1
            }
        } catch {
            PropertyListValue.dismantle(all: &values)  // a finished value may be deep
            try Self.rethrow(error, key: key, index: i)
        }
        let v = Self.makeDictionary(keys, values)
        state[n] &= ~Self.onPath
        if state[n] & 3 >= Self.shared { memo[n] = v }
        return v
    }

    /// The value of a UID object (`0x8n`, `n + 1` bytes at `offset + 1`).
    ///
    /// As CF: 1 to 16 bytes whose value is at most `UInt32.max`. Bytes beyond the low 8 must be zero (CF
    /// drops them). Lenient: any value up to `UInt64.max`.
    func uidValue(_ nibble: UInt8, at offset: Int, object n: Int) throws -> UInt64 {
        let width = Int(nibble) + 1
        try require(offset + 1, width, object: n, "UID")
        let low = Self.loadBigEndian(base + offset + 1 + max(0, width - 8), width: min(width, 8))
        if width > 8, Self.loadBigEndian(base + offset + 1, width: width - 8) != 0 {
            throw PropertyListError(.invalidObject, "bplist: \(width)-byte UID is larger than UInt64.max",
                                    at: .init(byteOffset: offset, objectNumber: n))
        }
        guard low <= UInt64(UInt32.max) || isLenient else {
            throw PropertyListError(.invalidObject, "bplist: UID \(low) is larger than UInt32.max (4294967295)",
                                    at: .init(byteOffset: offset, objectNumber: n))
        }
        return low
    }

    /// A marker this reader knows but, without ``PropertyListReadingOptions/isLenient``, rejects as CF does.
    @inline(never)
    func unsupportedMarker(_ marker: UInt8, _ offset: Int, _ n: Int) throws -> Never {
        let what = marker >> 4 == 0x7 ? "UTF-8 string" : "ordered set"
        throw PropertyListError(.invalidObject,
                                "bplist: object marker 0x\(hex(marker)) (\(what)) is not read by CoreFoundation; reading it needs the lenient option",
                                at: .init(byteOffset: offset, objectNumber: n))
    }

    @inline(never)
    private func unknownMarker(_ marker: UInt8, _ offset: Int, _ n: Int) throws -> Never {
        throw PropertyListError(.invalidObject, "bplist: unknown object marker 0x\(hex(marker))",
                                at: .init(byteOffset: offset, objectNumber: n))
    }

    @inline(never)
    private static func makeDictionary(_ keys: [String], _ values: [PropertyListValue]) -> PropertyListValue {
        .dictionary(PropertyListDictionary(keys: keys, values: values))
    }

    @inline(never)
    private static func containerKeyError(_ marker: UInt8, _ p: Int, _ n: Int) throws -> Never {
        let kind = ["array", "ordered set", "set", "dictionary"][Int(marker >> 4) - 0xA]
        throw PropertyListError(.invalidKey, "bplist: dictionary key is a \(kind), not a string",
                          at: .init(byteOffset: p, objectNumber: n))
    }

    @inline(never)
    private static func keyKindError(_ kind: String, _ p: Int, _ n: Int) throws -> Never {
        throw PropertyListError(.invalidKey, "bplist: dictionary key is a \(kind), not a string",
                          at: .init(byteOffset: p, objectNumber: n))
    }

    @inline(never)
    private static func keyError(_ key: PropertyListValue, _ p: Int, _ n: Int) throws -> Never {
        throw PropertyListError(.invalidKey, "bplist: dictionary key is a \(key.kindName), not a string",
                          at: .init(byteOffset: p, objectNumber: n))
    }

    @inline(never)
    private func tooDeep(_ n: Int, _ offset: Int) throws -> Never {
        throw PropertyListError(.tooDeep, "bplist: containers nested deeper than the limit of \(maximumDepth)",
                          at: .init(byteOffset: offset, objectNumber: n))
    }

    /// An integer object with marker low nibble `nibble` (width `1 << nibble`).
    private func integer(_ nibble: UInt8, at offset: Int, object n: Int) throws -> PropertyListInteger {
        switch nibble {
        case 0, 1, 2:
            let width = 1 << Int(nibble)
            try require(offset + 1, width, object: n, "integer")
            return PropertyListInteger(Int64(Self.loadBigEndian(base + offset + 1, width: width)))
        case 3:
            try require(offset + 1, 8, object: n, "integer")
            return PropertyListInteger(Int64(bitPattern: Self.loadBigEndian(base + offset + 1, width: 8)))
        case 4:
            try require(offset + 1, 16, object: n, "16-byte integer")
            let high = Self.loadBigEndian(base + offset + 1, width: 8)
            let low = Self.loadBigEndian(base + offset + 9, width: 8)
            if high == 0 { return PropertyListInteger(low) }
            if high == UInt64.max, low >> 63 == 1 { return PropertyListInteger(Int64(bitPattern: low)) }
            throw PropertyListError(.invalidObject,
                                    "bplist: 16-byte integer 0x\(String(high, radix: 16))\(String(low, radix: 16)) is outside Int64.min...UInt64.max",
                                    at: .init(byteOffset: offset, objectNumber: n))
        default:
            throw PropertyListError(.invalidObject, "bplist: integer of \(1 << Int(nibble)) bytes (1, 2, 4, 8 and 16 exist)",
                                    at: .init(byteOffset: offset, objectNumber: n))
        }
    }

    /// A `0x5n` string: ASCII, or (leniently) UTF-8 when a non-Apple writer put UTF-8 there.
    private func asciiString(at start: Int, count: Int, object n: Int) throws -> String {
        let bytes = UnsafeBufferPointer(start: (base + start).assumingMemoryBound(to: UInt8.self), count: count)
        var high: UInt8 = 0
        for b in bytes { high |= b }
        if high < 0x80 { return String(decoding: bytes, as: UTF8.self) }
        guard let s = Self.validUTF8(bytes) else {
            let bad = bytes.firstIndex { $0 >= 0x80 } ?? 0
            throw PropertyListError(.invalidString, "bplist: ASCII string has byte 0x\(hex(bytes[bad])) that is neither ASCII nor UTF-8",
                                    at: .init(byteOffset: start + bad, objectNumber: n))
        }
        return s
    }

    /// The string if `bytes` is valid UTF-8, else `nil`.
    static func validUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue: continue
            case .emptyInput: return String(decoding: bytes, as: UTF8.self)
            case .error: return nil
            }
        }
    }

    /// A `0x6n` string of `count` big-endian UTF-16 code units, transcoded straight to UTF-8.
    private func utf16String(at start: Int, count: Int, object n: Int) throws -> String {
        if count == 0 { return "" }
        let p = base + start
        @inline(__always) func unit(_ i: Int) -> UInt16 {
            UInt16(bigEndian: p.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self))
        }
        // Every unit gives at most 3 UTF-8 bytes (a surrogate pair: 2 units, 4 bytes). count <= file size / 2.
        return try String(unsafeUninitializedCapacity: count * 3) { out in
            var o = 0
            var i = 0
            while i < count {
                let u = unit(i)
                if u < 0x80 {
                    out[o] = UInt8(u)
                    o += 1
                } else if u < 0x800 {
                    out[o] = UInt8(0xC0 | (u >> 6))
                    out[o + 1] = UInt8(0x80 | (u & 0x3F))
                    o += 2
                } else if u & 0xF800 != 0xD800 {
                    out[o] = UInt8(0xE0 | (u >> 12))
                    out[o + 1] = UInt8(0x80 | ((u >> 6) & 0x3F))
                    out[o + 2] = UInt8(0x80 | (u & 0x3F))
                    o += 3
                } else {
                    guard u < 0xDC00, i + 1 < count, case let lo = unit(i + 1), lo & 0xFC00 == 0xDC00 else {
                        throw PropertyListError(.invalidString,
                                                "bplist: UTF-16 string has an unpaired surrogate 0x\(String(u, radix: 16)) at unit \(i)",
                                                at: .init(byteOffset: start + 2 * i, objectNumber: n))
                    }
                    let scalar = 0x10000 + ((UInt32(u) - 0xD800) << 10) + (UInt32(lo) - 0xDC00)
                    out[o] = UInt8(0xF0 | (scalar >> 18))
                    out[o + 1] = UInt8(0x80 | ((scalar >> 12) & 0x3F))
                    out[o + 2] = UInt8(0x80 | ((scalar >> 6) & 0x3F))
                    out[o + 3] = UInt8(0x80 | (scalar & 0x3F))
                    o += 4
                    i += 1
                }
                i += 1
            }
            return o
        }
    }

    // MARK: - Key paths

    /// Throws `error` with `[index]` put in front of its key path.
    @inline(never)
    static func rethrow(_ error: any Error, index: Int) throws -> Never {
        guard var error = error as? PropertyListError else { throw error }
        error.location.keyPath = join("[\(index)]", error.location.keyPath)
        throw error
    }

    /// Throws `error` with the dictionary key (or `<key i>` while the key itself was being read) in front
    /// of its key path.
    @inline(never)
    static func rethrow(_ error: any Error, key: String?, index: Int) throws -> Never {
        guard var error = error as? PropertyListError else { throw error }
        error.location.keyPath = join(key ?? "<key \(index)>", error.location.keyPath)
        throw error
    }

    /// `outer` followed by `inner` (`"[3]"` + `"NS.keys"` = `"[3].NS.keys"`).
    static func join(_ outer: String, _ inner: String?) -> String {
        guard let inner, !inner.isEmpty else { return outer }
        return inner.hasPrefix("[") ? outer + inner : outer + "." + inner
    }
}

// MARK: - On-demand access

/// What a reader that looks at a few objects at a time needs (the keyed unarchiver reads archives
/// this way, without building the whole tree). Every function checks what it reads against the object
/// area, as the whole-file reader does.
extension BinaryPropertyListScanner {
    /// The marker byte at `offset` (an offset-table entry).
    @inline(__always)
    func marker(at offset: Int) -> UInt8 {
        base.load(fromByteOffset: offset, as: UInt8.self)
    }

    /// The marker byte of object `n` (`n` below ``objectCount``).
    @inline(__always)
    func marker(of n: Int) -> UInt8 {
        base.load(fromByteOffset: offset(of: n), as: UInt8.self)
    }

    /// The element count of container `n` (an array, set or dictionary) and where its references start.
    /// A dictionary has `count` key references followed by `count` value references. Returns nil when
    /// `n` is not a container.
    func container(_ n: Int) throws -> (marker: UInt8, count: Int, start: Int)? {
        let offset = offset(of: n)
        let marker = base.load(fromByteOffset: offset, as: UInt8.self)
        let kind = marker >> 4
        guard kind >= 0xA && kind <= 0xD else { return nil }
        if kind == 0xB, !isLenient { try unsupportedMarker(marker, offset, n) }
        let (count, start) = try countAndStart(marker & 0x0F, at: offset, object: n)
        if kind == 0xD {
            let (twice, overflow) = count.multipliedReportingOverflow(by: 2)
            try requireElements(overflow ? Int.max : twice, of: refSize, at: start, object: n, "dictionary reference")
        } else {
            try requireElements(count, of: refSize, at: start, object: n, kind == 0xA ? "array" : "set")
        }
        return (marker, count, start)
    }

    /// Whether the `count` bytes at offsets `a` and `b` (both already checked to lie in the object area) are equal.
    @inline(__always)
    func bytesEqual(_ a: Int, _ b: Int, count: Int) -> Bool {
        a == b || memcmp(base + a, base + b, count) == 0
    }

    /// The length of string object `n` in its stored code units (bytes, or UTF-16 units), or nil when
    /// `n` is not a string.
    func stringLength(_ n: Int) throws -> Int? {
        let offset = offset(of: n)
        let marker = base.load(fromByteOffset: offset, as: UInt8.self)
        switch marker >> 4 {
        case 0x7 where !isLenient: try unsupportedMarker(marker, offset, n)
        case 0x5, 0x6, 0x7: return try countAndStart(marker & 0x0F, at: offset, object: n).count
        default: return nil
        }
    }

    /// The value of UID object `n`, or nil when `n` is not a UID.
    @inline(__always)
    func uid(_ n: Int) throws -> UInt64? {
        let offset = offset(of: n)
        let marker = base.load(fromByteOffset: offset, as: UInt8.self)
        guard marker >> 4 == 0x8 else { return nil }
        return try uidValue(marker & 0x0F, at: offset, object: n)
    }

    /// Whether string object `n` is exactly `key` (UTF-8 bytes; compared code unit for code unit, as
    /// `NSString` compares keys). Returns nil when `n` is not a string.
    @inline(__always)
    func string(_ n: Int, equals key: UnsafeBufferPointer<UInt8>) throws -> Bool? {
        let offset = offset(of: n)
        let marker = base.load(fromByteOffset: offset, as: UInt8.self)
        switch marker >> 4 {
        case 0x7 where !isLenient: try unsupportedMarker(marker, offset, n)
        case 0x5, 0x7:
            let (count, start) = try countAndStart(marker & 0x0F, at: offset, object: n)
            try requireElements(count, of: 1, at: start, object: n, "string")
            guard count == key.count else { return false }
            guard count > 0, let keyBase = key.baseAddress else { return true }
            return memcmp(base + start, keyBase, count) == 0
        case 0x6:
            // Each UTF-16 unit is 1 to 3 UTF-8 bytes (a surrogate pair, 2 units, is 4): decode only when
            // the lengths can match, so a long key is never decoded for a short one.
            let (count, _) = try countAndStart(marker & 0x0F, at: offset, object: n)
            guard key.count >= count, key.count <= count * 3 else { return false }
            guard case .string(let s) = try scalar(n, at: offset, marker: marker) else { return false }
            return s.utf8.elementsEqual(key)
        default:
            return nil
        }
    }
}

/// Two hex digits.
fileprivate func hex(_ byte: UInt8) -> String {
    let s = String(byte, radix: 16, uppercase: true)
    return s.count == 1 ? "0" + s : s
}
