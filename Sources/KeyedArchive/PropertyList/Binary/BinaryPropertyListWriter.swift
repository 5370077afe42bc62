#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes Apple's binary property-list format (`bplist00`), as small as the format allows.
///
/// The corresponding Foundation API is `PropertyListSerialization.data(fromPropertyList:format:options:)`
/// with `.binary`.
///
/// What the writer does:
/// - Each distinct scalar (string, integer, real, boolean, date, data, UID) is written once and shared by
///   every reference to it. "Distinct" is exact: `.real(1.0)`, `.float(1.0)`, `.integer(1)` and `.bool(true)`
///   are four objects, reals and dates compare by bit pattern, and strings compare by their exact Unicode
///   scalars (a precomposed and a decomposed "é" stay two strings, although Swift's `==` calls them equal).
/// - Containers are never merged (as CoreFoundation), so the structure read back is the structure written.
/// - Integers use the fewest bytes: 1, 2, 4 or 8 for non-negative values, 8 for negative ones (the format's
///   8-byte integers are signed), 16 for values above `Int64.max`. UIDs use 1...8 bytes.
/// - Strings are ASCII (`0x5n`) when every character is below U+0080, otherwise UTF-16 big-endian (`0x6n`).
/// - `.float` is written as a 4-byte real, `.real` as 8 bytes; sets use the set marker `0xCn`.
/// - Offset-table entries and object references use the fewest bytes (any of 1...8) that CoreFoundation
///   accepts: references are `n` bytes when the object count is below 2^(8n), offsets when the offset
///   table's position is below 2^(8n).
/// - Output is deterministic: objects are numbered breadth-first from the root (number 0), dictionary keys
///   before values, in stored order; the same value always gives the same bytes.
///
/// The writer works without recursion, so arbitrarily deep values cannot overflow the stack.
public struct BinaryPropertyListWriter: Sendable {
    /// A writer.
    public init() {}

    /// The smallest valid `bplist00` encoding of `value`.
    ///
    /// The corresponding Foundation API is `PropertyListSerialization.data(fromPropertyList:format:options:)`.
    /// - Parameter value: the root value; any ``PropertyListValue`` can be written.
    /// - Returns: the complete file, header to trailer.
    public func write(_ value: PropertyListValue) -> Data {
        var table = BinaryObjectTable()
        table.flatten(value)
        return table.encode()
    }
}

/// The objects of a file in order, with their references, ready to be encoded.
private struct BinaryObjectTable {
    enum Object {
        /// A container whose contents are not filled in yet.
        case pending
        case scalar(PropertyListValue)
        /// A string with every UTF-8 byte below 0x80.
        case ascii(String)
        /// Any other string; `units` is its UTF-16 length.
        case utf16(String, units: Int)
        /// `refs[start ..< start + count]`.
        case array(start: Int, count: Int)
        case set(start: Int, count: Int)
        /// Keys `refs[start ..< start + count]`, then values `refs[start + count ..< start + 2 * count]`.
        case dictionary(start: Int, count: Int)
    }

    var objects: [Object] = []
    var refs: [Int] = []
    /// Open-addressing hash table of scalars: (hash, object number + 1), 0 = empty; its count is a power of two.
    var table = [Entry](repeating: Entry(hash: 0, number: 0), count: 64)
    var scalarCount = 0
    /// Bytes of every scalar object plus every container's marker and length (references not included).
    var fixedBytes = 0
    /// Containers waiting for their contents, with their object numbers (breadth-first order).
    var queue: [(PropertyListValue, Int)] = []

    struct Entry {
        var hash: UInt64
        /// Object number + 1; 0 marks an empty slot.
        var number: Int
    }

    /// Numbers every object reachable from `root`, breadth-first, root = 0.
    mutating func flatten(_ root: PropertyListValue) {
        _ = add(root)
        var head = 0
        while head < queue.count {
            let (value, number) = queue[head]
            head += 1
            let start = refs.count
            switch value {
            case .array(let elements):
                for e in elements { refs.append(add(e)) }
                objects[number] = .array(start: start, count: elements.count)
                fixedBytes += Self.headerSize(elements.count)
            case .set(let elements):
                for e in elements { refs.append(add(e)) }
                objects[number] = .set(start: start, count: elements.count)
                fixedBytes += Self.headerSize(elements.count)
            case .dictionary(let d):
                for k in d.keys { refs.append(addString(k)) }
                for v in d.values { refs.append(add(v)) }
                objects[number] = .dictionary(start: start, count: d.count)
                fixedBytes += Self.headerSize(d.count)
            default:
                break  // only containers are queued
            }
        }
        queue = []
        table = []
    }

    /// The object number of `value`: a new number for a container (queued), a shared one for a scalar.
    mutating func add(_ value: PropertyListValue) -> Int {
        switch value {
        case .array, .set, .dictionary:
            let number = objects.count
            objects.append(.pending)
            queue.append((value, number))
            return number
        case .string(let s):
            return addString(s)
        default:
            let hash = Self.hash(value)
            let mask = table.count - 1
            var slot = Int(truncatingIfNeeded: hash) & mask
            while true {
                let entry = table[slot]
                if entry.number == 0 { break }
                if entry.hash == hash, case .scalar(let other) = objects[entry.number - 1], other == value {
                    return entry.number - 1
                }
                slot = (slot + 1) & mask
            }
            return insert(.scalar(value), size: Self.scalarSize(value), hash: hash, at: slot)
        }
    }

    mutating func addString(_ s: String) -> Int {
        var s = s
        let (hash, isASCII) = s.withUTF8 { bytes in
            (Self.hashBytes(UnsafeRawBufferPointer(bytes), tag: 0), Self.isASCII(bytes))
        }
        let mask = table.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = table[slot]
            if entry.number == 0 { break }
            if entry.hash == hash {
                switch objects[entry.number - 1] {
                case .ascii(let other), .utf16(let other, _):
                    if Self.sameUTF8(s, other) { return entry.number - 1 }
                default:
                    break
                }
            }
            slot = (slot + 1) & mask
        }
        if isASCII {
            let count = s.utf8.count
            return insert(.ascii(s), size: Self.headerSize(count) + count, hash: hash, at: slot)
        }
        let units = s.utf16.count
        return insert(.utf16(s, units: units), size: Self.headerSize(units) + 2 * units, hash: hash, at: slot)
    }

    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var high: UInt8 = 0
        for b in bytes { high |= b }
        return high < 0x80
    }

    /// Appends a new scalar object and records it in the empty table `slot`; grows the table at half full.
    mutating func insert(_ object: Object, size: Int, hash: UInt64, at slot: Int) -> Int {
        let number = objects.count
        objects.append(object)
        fixedBytes += size
        table[slot] = Entry(hash: hash, number: number + 1)
        scalarCount += 1
        if scalarCount * 2 >= table.count {
            var bigger = [Entry](repeating: Entry(hash: 0, number: 0), count: table.count * 2)
            let mask = bigger.count - 1
            for entry in table where entry.number != 0 {
                var i = Int(truncatingIfNeeded: entry.hash) & mask
                while bigger[i].number != 0 { i = (i + 1) & mask }
                bigger[i] = entry
            }
            table = bigger
        }
        return number
    }

    /// Whether two strings have exactly the same UTF-8 bytes (Swift's `==` uses canonical equivalence).
    static func sameUTF8(_ a: String, _ b: String) -> Bool {
        var a = a
        var b = b
        return a.withUTF8 { x in
            b.withUTF8 { y in x.count == y.count && x.elementsEqual(y) }
        }
    }

    // MARK: - Hashing

    /// A per-process random seed, so a crafted set of values cannot be made to collide.
    static let seed = UInt64.random(in: 1 ... .max)

    /// SplitMix64's finalizer: a fast 64-bit mix.
    @inline(__always)
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A hash of `bytes` (all of them), with `tag` telling kinds apart.
    static func hashBytes(_ bytes: UnsafeRawBufferPointer, tag: UInt64) -> UInt64 {
        var h = mix(seed ^ tag ^ UInt64(bytes.count) &* 0x9E37_79B9_7F4A_7C15)
        guard let base = bytes.baseAddress else { return h }
        var i = 0
        while i + 8 <= bytes.count {
            h = mix(h ^ base.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            i += 8
        }
        if i < bytes.count {
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while i < bytes.count {
                tail |= UInt64(base.load(fromByteOffset: i, as: UInt8.self)) << shift
                shift += 8
                i += 1
            }
            h = mix(h ^ tail ^ 0xFF)
        }
        return h
    }

    /// The hash of a non-string scalar, consistent with its exact equality. Data hashes its length and at
    /// most 64 bytes from each end, so a large blob is not read twice.
    static func hash(_ value: PropertyListValue) -> UInt64 {
        switch value {
        case .integer(let i):
            if let s = i.int64Value { return mix(seed ^ 1 ^ UInt64(bitPattern: s) &* 0x9E37_79B9_7F4A_7C15) }
            return mix(seed ^ 2 ^ (i.uint64Value ?? 0) &* 0x9E37_79B9_7F4A_7C15)
        case .real(let d): return mix(seed ^ 3 ^ d.bitPattern &* 0x9E37_79B9_7F4A_7C15)
        case .float(let f): return mix(seed ^ 4 ^ UInt64(f.bitPattern) &* 0x9E37_79B9_7F4A_7C15)
        case .bool(let b): return mix(seed ^ (b ? 5 : 6))
        case .date(let d): return mix(seed ^ 7 ^ d.timeIntervalSinceReferenceDate.bitPattern &* 0x9E37_79B9_7F4A_7C15)
        case .uid(let u): return mix(seed ^ 8 ^ u.value &* 0x9E37_79B9_7F4A_7C15)
        case .data(let d):
            return d.withUnsafeBytes { bytes in
                if bytes.count <= 128 { return hashBytes(bytes, tag: 9) }
                let ends = mix(hashBytes(UnsafeRawBufferPointer(rebasing: bytes.prefix(64)), tag: 10)
                    ^ hashBytes(UnsafeRawBufferPointer(rebasing: bytes.suffix(64)), tag: 11))
                return mix(ends ^ UInt64(bytes.count))
            }
        case .string, .array, .set, .dictionary:
            return 0  // never hashed here
        }
    }

    /// The encoded size of a non-string scalar.
    static func scalarSize(_ value: PropertyListValue) -> Int {
        switch value {
        case .integer(let i): return 1 + integerWidth(i)
        case .real, .date: return 9
        case .float: return 5
        case .bool: return 1
        case .data(let d): return headerSize(d.count) + d.count
        case .uid(let u): return 1 + bytesNeeded(u.value)
        case .string, .array, .set, .dictionary: return 0  // never stored as a scalar
        }
    }

    // MARK: - Sizes

    /// The fewest bytes `n` (1...8) with `value < 2^(8n)`.
    static func bytesNeeded(_ value: UInt64) -> Int {
        var n = 1
        while n < 8 && value >> UInt64(8 * n) != 0 { n += 1 }
        return n
    }

    /// Width in bytes of the integer object for a non-negative length (1, 2, 4 or 8).
    static func lengthIntWidth(_ count: Int) -> Int {
        if count <= 0xFF { return 1 }
        if count <= 0xFFFF { return 2 }
        if count <= 0xFFFF_FFFF { return 4 }
        return 8
    }

    /// Marker byte plus any extended length.
    static func headerSize(_ count: Int) -> Int {
        count < 15 ? 1 : 2 + lengthIntWidth(count)
    }

    /// The payload width of an integer object (1, 2, 4, 8 or 16).
    static func integerWidth(_ i: PropertyListInteger) -> Int {
        guard let s = i.int64Value else { return 16 }
        if s < 0 { return 8 }
        if s <= 0xFF { return 1 }
        if s <= 0xFFFF { return 2 }
        if s <= 0xFFFF_FFFF { return 4 }
        return 8
    }

    // MARK: - Encoding

    func encode() -> Data {
        let count = objects.count
        let refSize = Self.bytesNeeded(UInt64(count))
        let tableOffset = 8 + fixedBytes + refs.count * refSize
        let offsetSize = Self.bytesNeeded(UInt64(tableOffset))
        let total = tableOffset + count * offsetSize + 32

        var data = Data(count: total)
        data.withUnsafeMutableBytes { raw in
            guard let base = raw.baseAddress else { return }
            var out = ByteSink(base: base)
            out.append(contentsOf: "bplist00")
            var offsets = [Int]()
            offsets.reserveCapacity(count)
            for o in objects {
                offsets.append(out.position)
                write(o, to: &out, refSize: refSize)
            }
            for off in offsets { out.appendBigEndian(UInt64(off), width: offsetSize) }
            // Trailer: 5 unused bytes, sort version 0, sizes, count, top object (0), table offset.
            out.appendBigEndian(0, width: 6)
            out.append(UInt8(offsetSize))
            out.append(UInt8(refSize))
            out.appendBigEndian(UInt64(count), width: 8)
            out.appendBigEndian(0, width: 8)
            out.appendBigEndian(UInt64(tableOffset), width: 8)
        }
        return data
    }

    func write(_ object: Object, to out: inout ByteSink, refSize: Int) {
        switch object {
        case .pending:
            break
        case .ascii(let s):
            var copy = s
            copy.withUTF8 { bytes in
                out.appendHeader(0x50, count: bytes.count)
                out.append(UnsafeRawBufferPointer(bytes))
            }
        case .utf16(let s, let units):
            out.appendHeader(0x60, count: units)
            for u in s.utf16 { out.appendBigEndian(UInt64(u), width: 2) }
        case .array(let start, let count):
            out.appendHeader(0xA0, count: count)
            writeRefs(start, count, to: &out, refSize: refSize)
        case .set(let start, let count):
            out.appendHeader(0xC0, count: count)
            writeRefs(start, count, to: &out, refSize: refSize)
        case .dictionary(let start, let count):
            out.appendHeader(0xD0, count: count)
            writeRefs(start, 2 * count, to: &out, refSize: refSize)
        case .scalar(let v):
            switch v {
            case .integer(let i):
                out.appendInteger(i)
            case .real(let d):
                out.append(0x23)
                out.appendBigEndian(d.bitPattern, width: 8)
            case .float(let f):
                out.append(0x22)
                out.appendBigEndian(UInt64(f.bitPattern), width: 4)
            case .date(let d):
                out.append(0x33)
                out.appendBigEndian(d.timeIntervalSinceReferenceDate.bitPattern, width: 8)
            case .bool(let b):
                out.append(b ? 0x09 : 0x08)
            case .data(let d):
                out.appendHeader(0x40, count: d.count)
                d.withUnsafeBytes { out.append($0) }
            case .uid(let u):
                let width = Self.bytesNeeded(u.value)
                out.append(0x80 | UInt8(width - 1))
                out.appendBigEndian(u.value, width: width)
            case .string, .array, .set, .dictionary:
                break  // never stored as .scalar
            }
        }
    }

    func writeRefs(_ start: Int, _ count: Int, to out: inout ByteSink, refSize: Int) {
        refs.withUnsafeBufferPointer { all in
            for r in all[start ..< start + count] { out.appendBigEndian(UInt64(r), width: refSize) }
        }
    }
}

/// Appends bytes to memory that the caller sized exactly.
private struct ByteSink {
    let base: UnsafeMutableRawPointer
    var position = 0

    init(base: UnsafeMutableRawPointer) { self.base = base }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        base.storeBytes(of: byte, toByteOffset: position, as: UInt8.self)
        position += 1
    }

    mutating func append(contentsOf ascii: StaticString) {
        ascii.withUTF8Buffer { append(UnsafeRawBufferPointer($0)) }
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let src = bytes.baseAddress, bytes.count > 0 else { return }
        (base + position).copyMemory(from: src, byteCount: bytes.count)
        position += bytes.count
    }

    /// The low `width` bytes of `value`, most significant first.
    @inline(__always)
    mutating func appendBigEndian(_ value: UInt64, width: Int) {
        switch width {
        case 1: base.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: position, as: UInt8.self)
        case 2: base.storeBytes(of: UInt16(truncatingIfNeeded: value).bigEndian, toByteOffset: position, as: UInt16.self)
        case 4: base.storeBytes(of: UInt32(truncatingIfNeeded: value).bigEndian, toByteOffset: position, as: UInt32.self)
        case 8: base.storeBytes(of: value.bigEndian, toByteOffset: position, as: UInt64.self)
        default:
            for i in 0..<width {
                let shift = UInt64(8 * (width - 1 - i))
                base.storeBytes(of: UInt8(truncatingIfNeeded: value >> shift), toByteOffset: position + i, as: UInt8.self)
            }
        }
        position += width
    }

    /// A marker with `count` in its low nibble, or nibble 0xF followed by an integer object.
    @inline(__always)
    mutating func appendHeader(_ marker: UInt8, count: Int) {
        if count < 15 {
            append(marker | UInt8(count))
        } else {
            append(marker | 0x0F)
            appendInteger(PropertyListInteger(Int64(count)))
        }
    }

    mutating func appendInteger(_ i: PropertyListInteger) {
        switch BinaryObjectTable.integerWidth(i) {
        case 1: append(0x10); appendBigEndian(UInt64(truncatingIfNeeded: i.int64Value ?? 0), width: 1)
        case 2: append(0x11); appendBigEndian(UInt64(truncatingIfNeeded: i.int64Value ?? 0), width: 2)
        case 4: append(0x12); appendBigEndian(UInt64(truncatingIfNeeded: i.int64Value ?? 0), width: 4)
        case 8: append(0x13); appendBigEndian(UInt64(bitPattern: i.int64Value ?? 0), width: 8)
        default:
            append(0x14)
            appendBigEndian(0, width: 8)
            appendBigEndian(i.uint64Value ?? 0, width: 8)
        }
    }
}
