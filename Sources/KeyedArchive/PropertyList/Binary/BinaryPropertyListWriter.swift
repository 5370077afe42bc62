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
/// How: scalars are encoded straight into the output buffer as they are met, and de-duplicated by their
/// encoded bytes (which are equal exactly when the values are equal in the sense above), so no value is
/// retained or hashed twice; containers are written after them, once the reference width is known. The
/// buffer becomes the returned `Data` without a copy. The writer works without recursion, so arbitrarily
/// deep values cannot overflow the stack.
public struct BinaryPropertyListWriter: Sendable {
    /// A writer.
    public init() {}

    /// The smallest valid `bplist00` encoding of `value`.
    ///
    /// The corresponding Foundation API is `PropertyListSerialization.data(fromPropertyList:format:options:)`.
    /// - Parameter value: the root value; any ``PropertyListValue`` can be written.
    /// - Returns: the complete file, header to trailer.
    public func write(_ value: PropertyListValue) -> Data {
        var encoder = BinaryPropertyListEncoder()
        encoder.flatten(value)
        return encoder.finish()
    }
}

/// Encodes one file: scalars first (as met, de-duplicated), then containers, the offset table and the trailer.
private struct BinaryPropertyListEncoder {
    var out = OutputBuffer(capacity: 4096)
    /// Byte offset of each object, by object number; -1 for a container not yet written.
    var offsets: [Int] = []
    /// Containers in object-number order, with their references in `refs`.
    var containers: [(marker: UInt8, start: Int, count: Int, number: Int)] = []
    /// References of all containers; a dictionary's keys come before its values.
    var refs: [Int] = []
    /// Containers whose contents are not yet numbered (breadth-first order).
    var queue: [(PropertyListValue, Int)] = []
    /// Open-addressing table of the scalars written so far; its count is a power of two. Each entry packs
    /// the top 24 bits of the hash above the object number + 1 (40 bits); 0 marks an empty slot. Eight
    /// bytes an entry keep the table small, which matters: probing it is the writer's main cost.
    var table = [UInt64](repeating: 0, count: 256)
    var scalarCount = 0

    init() {
        out.append(contentsOf: "bplist00")
    }

    /// Numbers every object reachable from `root`, breadth-first (root = 0), writing scalars as they come.
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
                containers.append((0xA0, start, elements.count, number))
            case .set(let elements):
                for e in elements { refs.append(add(e)) }
                containers.append((0xC0, start, elements.count, number))
            case .dictionary(let d):
                for k in d.keys { refs.append(addString(k)) }
                for v in d.values { refs.append(add(v)) }
                containers.append((0xD0, start, d.count, number))
            default:
                break  // only containers are queued
            }
        }
        queue = []
        table = []
    }

    /// The object number of `value`: a new number for a container (queued), a shared one for a scalar.
    mutating func add(_ value: PropertyListValue) -> Int {
        let start = out.count
        switch value {
        case .array, .set, .dictionary:
            let number = offsets.count
            offsets.append(-1)
            queue.append((value, number))
            return number
        case .string(let s):
            return addString(s)
        case .integer(let i):
            out.appendInteger(i)
        case .real(let d):
            out.reserve(9)
            out.append(0x23)
            out.appendBigEndian(d.bitPattern, width: 8)
        case .float(let f):
            out.reserve(5)
            out.append(0x22)
            out.appendBigEndian(UInt64(f.bitPattern), width: 4)
        case .date(let d):
            out.reserve(9)
            out.append(0x33)
            out.appendBigEndian(d.timeIntervalSinceReferenceDate.bitPattern, width: 8)
        case .bool(let b):
            out.reserve(1)
            out.append(b ? 0x09 : 0x08)
        case .data(let d):
            out.reserve(10 + d.count)
            out.appendHeader(0x40, count: d.count)
            d.withUnsafeBytes { out.append($0) }
        case .uid(let u):
            let width = Self.bytesNeeded(u.value)
            out.reserve(1 + width)
            out.append(0x80 | UInt8(width - 1))
            out.appendBigEndian(u.value, width: width)
        }
        return commitScalar(from: start)
    }

    /// The object number of a string: ASCII (`0x5n`) if every byte is below 0x80, else UTF-16BE (`0x6n`).
    mutating func addString(_ s: String) -> Int {
        let start = out.count
        var s = s
        let wroteASCII = s.withUTF8 { bytes -> Bool in
            var high: UInt8 = 0
            for b in bytes { high |= b }
            guard high < 0x80 else { return false }
            out.reserve(10 + bytes.count)
            out.appendHeader(0x50, count: bytes.count)
            out.append(UnsafeRawBufferPointer(bytes))
            return true
        }
        if !wroteASCII {
            let units = s.utf16.count
            out.reserve(10 + 2 * units)
            out.appendHeader(0x60, count: units)
            for u in s.utf16 { out.appendBigEndian(UInt64(u), width: 2) }
        }
        return commitScalar(from: start)
    }

    /// The scalar just encoded at `start ..< out.count`: an earlier identical object's number (and the
    /// new bytes are dropped), or a new number.
    mutating func commitScalar(from start: Int) -> Int {
        let length = out.count - start
        let hash = Self.hashEncoded(out.base + start, length)
        let tag = hash & ~Self.numberMask
        let mask = table.count - 1
        var slot = Int(truncatingIfNeeded: hash) & mask
        while true {
            let entry = table[slot]
            if entry == 0 { break }
            // Encodings are prefix-free (the marker and length fix the size), so `length` equal bytes at an
            // earlier object mean the same object. That object starts before `start`, so the read is in bounds.
            if entry & ~Self.numberMask == tag {
                let candidate = Int(truncatingIfNeeded: entry & Self.numberMask) - 1
                if memcmp(out.base + offsets[candidate], out.base + start, length) == 0 {
                    out.count = start
                    return candidate
                }
            }
            slot = (slot + 1) & mask
        }
        let number = offsets.count
        offsets.append(start)
        table[slot] = tag | UInt64(number + 1)
        scalarCount += 1
        if scalarCount * 2 >= table.count { growTable() }
        return number
    }

    /// The low 40 bits of a table entry: object number + 1.
    static let numberMask: UInt64 = (1 << 40) - 1

    mutating func growTable() {
        // Entries keep only 24 bits of the hash, so re-insert by each object's full hash.
        var bigger = [UInt64](repeating: 0, count: table.count * 2)
        let mask = bigger.count - 1
        for entry in table where entry != 0 {
            let number = Int(truncatingIfNeeded: entry & Self.numberMask) - 1
            let start = offsets[number]
            let length = Self.encodedLength(out.base + start)
            var i = Int(truncatingIfNeeded: Self.hashEncoded(out.base + start, length)) & mask
            while bigger[i] != 0 { i = (i + 1) & mask }
            bigger[i] = entry
        }
        table = bigger
    }

    /// The size of the scalar object encoded at `p` (written by this encoder, so well-formed).
    static func encodedLength(_ p: UnsafeMutableRawPointer) -> Int {
        let marker = p.load(as: UInt8.self)
        let nibble = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0: return 1
        case 0x1, 0x2: return 1 + (1 << nibble)
        case 0x3: return 9
        case 0x8: return 2 + nibble
        default:
            // Data (0x4), ASCII (0x5), UTF-16 (0x6): a count in the nibble or in a following integer.
            var count = nibble
            var header = 1
            if nibble == 0x0F {
                let width = 1 << Int(p.load(fromByteOffset: 1, as: UInt8.self) & 0x0F)
                var v = 0
                for i in 0 ..< width { v = v << 8 | Int(p.load(fromByteOffset: 2 + i, as: UInt8.self)) }
                count = v
                header = 2 + width
            }
            return header + (marker >> 4 == 0x6 ? 2 * count : count)
        }
    }

    /// Writes the containers, the offset table and the trailer, and hands the buffer over as `Data`.
    mutating func finish() -> Data {
        let objectCount = offsets.count
        let refSize = Self.bytesNeeded(UInt64(objectCount))
        var containerBytes = refs.count * refSize
        for c in containers { containerBytes += Self.headerSize(c.count) }
        out.reserve(containerBytes)
        refs.withUnsafeBufferPointer { refs in
            for c in containers {
                offsets[c.number] = out.count
                out.appendHeader(c.marker, count: c.count)
                let n = c.marker == 0xD0 ? 2 * c.count : c.count
                for r in refs[c.start ..< c.start + n] { out.appendBigEndian(UInt64(r), width: refSize) }
            }
        }
        let tableOffset = out.count
        let offsetSize = Self.bytesNeeded(UInt64(tableOffset))
        out.reserve(objectCount * offsetSize + 32)
        for offset in offsets { out.appendBigEndian(UInt64(offset), width: offsetSize) }
        // Trailer: 5 unused bytes, sort version 0, sizes, object count, top object (0), table offset.
        out.appendBigEndian(0, width: 6)
        out.append(UInt8(offsetSize))
        out.append(UInt8(refSize))
        out.appendBigEndian(UInt64(objectCount), width: 8)
        out.appendBigEndian(0, width: 8)
        out.appendBigEndian(UInt64(tableOffset), width: 8)
        return out.takeData()
    }

    // MARK: - Sizes

    /// The fewest bytes `n` (1...8) with `value < 2^(8n)`.
    static func bytesNeeded(_ value: UInt64) -> Int {
        var n = 1
        while n < 8 && value >> UInt64(8 * n) != 0 { n += 1 }
        return n
    }

    /// Marker byte plus any extended length.
    static func headerSize(_ count: Int) -> Int {
        count < 15 ? 1 : 2 + integerWidth(PropertyListInteger(Int64(count)))
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

    /// A hash of an encoded object. Objects up to 128 bytes are hashed whole; longer ones by length and
    /// their first and last 64 bytes, so a large blob is not read again (equality is checked in full).
    static func hashEncoded(_ p: UnsafeMutableRawPointer, _ length: Int) -> UInt64 {
        if length <= 128 { return hashBytes(UnsafeRawPointer(p), length) }
        return mix(hashBytes(UnsafeRawPointer(p), 64) ^ mix(hashBytes(UnsafeRawPointer(p + (length - 64)), 64) ^ UInt64(length)))
    }

    static func hashBytes(_ p: UnsafeRawPointer, _ count: Int) -> UInt64 {
        var h = mix(seed ^ UInt64(count) &* 0x9E37_79B9_7F4A_7C15)
        var i = 0
        while i + 8 <= count {
            h = mix(h ^ p.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            i += 8
        }
        if i < count {
            var tail: UInt64 = 0
            var shift: UInt64 = 0
            while i < count {
                tail |= UInt64(p.load(fromByteOffset: i, as: UInt8.self)) << shift
                shift += 8
                i += 1
            }
            h = mix(h ^ tail ^ 0xFF)
        }
        return h
    }
}

/// A growing byte buffer that becomes `Data` without a copy.
private struct OutputBuffer {
    private(set) var base: UnsafeMutableRawPointer
    private var capacity: Int
    /// Bytes written; may be lowered to drop the bytes after it.
    var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        base = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    /// Makes room for `extra` more bytes (doubling, so appends are amortised O(1)).
    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(count + extra) }
    }

    @inline(never)
    mutating func grow(_ needed: Int) {
        // Doubling, with slack past a large single append (a big data object) so that the offset table
        // and trailer that follow it do not force a second copy of it.
        let newCapacity = max(needed + max(4096, needed >> 4), capacity * 2)
        let bigger = UnsafeMutableRawPointer.allocate(byteCount: newCapacity, alignment: 16)
        bigger.copyMemory(from: base, byteCount: count)
        base.deallocate()
        base = bigger
        capacity = newCapacity
    }

    /// The written bytes as `Data`, which takes over the memory. The buffer must not be used afterwards.
    mutating func takeData() -> Data {
        let data = Data(bytesNoCopy: base, count: count, deallocator: .custom { pointer, _ in pointer.deallocate() })
        capacity = 0
        count = 0
        return data
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base.storeBytes(of: byte, toByteOffset: count, as: UInt8.self)
        count += 1
    }

    mutating func append(contentsOf ascii: StaticString) {
        ascii.withUTF8Buffer { append(UnsafeRawBufferPointer($0)) }
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard let source = bytes.baseAddress, bytes.count > 0 else { return }
        reserve(bytes.count)
        (base + count).copyMemory(from: source, byteCount: bytes.count)
        count += bytes.count
    }

    /// The low `width` bytes of `value`, most significant first.
    @inline(__always)
    mutating func appendBigEndian(_ value: UInt64, width: Int) {
        reserve(width)
        switch width {
        case 1: base.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: count, as: UInt8.self)
        case 2: base.storeBytes(of: UInt16(truncatingIfNeeded: value).bigEndian, toByteOffset: count, as: UInt16.self)
        case 4: base.storeBytes(of: UInt32(truncatingIfNeeded: value).bigEndian, toByteOffset: count, as: UInt32.self)
        case 8: base.storeBytes(of: value.bigEndian, toByteOffset: count, as: UInt64.self)
        default:
            for i in 0 ..< width {
                let shift = UInt64(8 * (width - 1 - i))
                base.storeBytes(of: UInt8(truncatingIfNeeded: value >> shift), toByteOffset: count + i, as: UInt8.self)
            }
        }
        count += width
    }

    /// A marker with `count` in its low nibble, or nibble 0xF followed by an integer object.
    @inline(__always)
    mutating func appendHeader(_ marker: UInt8, count length: Int) {
        if length < 15 {
            append(marker | UInt8(length))
        } else {
            append(marker | 0x0F)
            appendInteger(PropertyListInteger(Int64(length)))
        }
    }

    mutating func appendInteger(_ i: PropertyListInteger) {
        switch BinaryPropertyListEncoder.integerWidth(i) {
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
