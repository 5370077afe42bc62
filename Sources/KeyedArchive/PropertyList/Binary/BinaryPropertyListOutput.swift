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

/// A growing byte buffer holding `bplist00` objects, which becomes `Data` without a copy.
///
/// Every object encoding of the format, in one place: the scalars, container headers and big-endian
/// references. ``BinaryPropertyListBuilder`` lays files out with it; ``KeyedArchiveEmitter`` encodes an
/// archive's scalars with it before the layout.
struct BinaryPropertyListOutput {
    private(set) var base: UnsafeMutableRawPointer
    private var capacity: Int
    /// Bytes written; may be lowered to drop the bytes after it.
    var count = 0

    init(capacity: Int) {
        self.capacity = max(capacity, 64)
        base = Self.allocate(self.capacity)
    }

    private static func allocate(_ byteCount: Int) -> UnsafeMutableRawPointer {
        LargeMemory.allocateSequential(byteCount: byteCount)
    }

    /// Frees the memory of a buffer that is not handed over with ``takeData()``.
    mutating func deallocate() {
        LargeMemory.deallocate(base)
        capacity = 0
        count = 0
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
        base = LargeMemory.reallocateSequential(base, byteCount: newCapacity, keeping: count)
        capacity = newCapacity
    }

    /// The written bytes as `Data`, which takes over the memory. The buffer must not be used afterwards.
    mutating func takeData() -> Data {
        let data = Data(bytesNoCopy: base, count: count, deallocator: .custom { pointer, _ in LargeMemory.deallocate(pointer) })
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

    /// A marker of `kind` with `count` in its low nibble, or nibble 0xF followed by an integer object.
    @inline(__always)
    mutating func appendHeader(_ kind: BinaryPropertyListMarker, count length: Int) {
        if length < Int(BinaryPropertyListMarker.extendedCount) {
            append(kind.byte(nibble: UInt8(length)))
        } else {
            append(kind.byte(nibble: BinaryPropertyListMarker.extendedCount))
            appendInteger(PropertyListInteger(Int64(length)))
        }
    }

    // MARK: - Scalars

    /// An integer object in the fewest bytes (see ``integerWidth(_:)``).
    mutating func appendInteger(_ i: PropertyListInteger) {
        guard let s = i.int64Value else {
            append(BinaryPropertyListMarker.integer.byte(nibble: 4))
            appendBigEndian(0, width: 8)
            appendBigEndian(i.uint64Value ?? 0, width: 8)
            return
        }
        appendInteger(s)
    }

    /// An integer object for a signed value: 1, 2 or 4 bytes when non-negative and small enough, else 8.
    @inline(__always)
    mutating func appendInteger(_ s: Int64) {
        reserve(9)
        if s < 0 || s > 0xFFFF_FFFF {
            append(BinaryPropertyListMarker.integer.byte(nibble: 3)); appendBigEndian(UInt64(bitPattern: s), width: 8)
        } else if s <= 0xFF {
            append(BinaryPropertyListMarker.integer.byte(nibble: 0)); appendBigEndian(UInt64(s), width: 1)
        } else if s <= 0xFFFF {
            append(BinaryPropertyListMarker.integer.byte(nibble: 1)); appendBigEndian(UInt64(s), width: 2)
        } else {
            append(BinaryPropertyListMarker.integer.byte(nibble: 2)); appendBigEndian(UInt64(s), width: 4)
        }
    }

    /// An 8-byte real (`0x23`).
    @inline(__always)
    mutating func appendReal(_ d: Double) {
        reserve(9)
        append(BinaryPropertyListMarker.real.byte(nibble: 3))
        appendBigEndian(d.bitPattern, width: 8)
    }

    /// A 4-byte real (`0x22`).
    @inline(__always)
    mutating func appendFloat(_ f: Float) {
        reserve(5)
        append(BinaryPropertyListMarker.real.byte(nibble: 2))
        appendBigEndian(UInt64(f.bitPattern), width: 4)
    }

    /// A date (`0x33`): seconds since 2001-01-01 as an 8-byte real.
    @inline(__always)
    mutating func appendDate(_ d: Date) {
        reserve(9)
        append(BinaryPropertyListMarker.date.byte(nibble: 3))
        appendBigEndian(d.timeIntervalSinceReferenceDate.bitPattern, width: 8)
    }

    /// A boolean (`0x08` false, `0x09` true).
    @inline(__always)
    mutating func appendBool(_ b: Bool) {
        append(b ? BinaryPropertyListMarker.trueByte : BinaryPropertyListMarker.falseByte)
    }

    /// A data object (`0x4n`).
    @inline(__always)
    mutating func appendData(_ d: Data) {
        reserve(10 + d.count)
        appendHeader(.data, count: d.count)
        d.withUnsafeBytes { append($0) }
    }

    /// A UID (`0x8n`) in 1, 2, 4 or 8 bytes (``cfByteCount(_:)``): CoreFoundation writes every UID (a
    /// 32-bit value) in 1, 2 or 4 bytes, never 3.
    @inline(__always)
    mutating func appendUID(_ value: UInt64) {
        let width = Self.cfByteCount(value)
        reserve(1 + width)
        append(BinaryPropertyListMarker.uid.byte(nibble: UInt8(width - 1)))
        appendBigEndian(value, width: width)
    }

    /// A string: ASCII (`0x5n`) if every byte is below 0x80, else UTF-16 big-endian (`0x6n`).
    @inline(__always)
    mutating func appendString(_ s: String) {
        var s = s
        let wroteASCII = s.withUTF8 { bytes -> Bool in
            var high: UInt8 = 0
            for b in bytes { high |= b }
            guard high < 0x80 else { return false }
            reserve(10 + bytes.count)
            appendHeader(.asciiString, count: bytes.count)
            append(UnsafeRawBufferPointer(bytes))
            return true
        }
        if !wroteASCII {
            let units = s.utf16.count
            reserve(10 + 2 * units)
            appendHeader(.utf16String, count: units)
            for u in s.utf16 { appendBigEndian(UInt64(u), width: 2) }
        }
    }

    // MARK: - Object references and offsets

    /// Each value's low `width` bytes, most significant first; the room must be reserved.
    @inline(__always)
    mutating func appendBigEndian<T: FixedWidthInteger>(_ values: UnsafeBufferPointer<T>, width: Int) {
        let p = base + count
        switch width {
        case 1:
            for (i, v) in values.enumerated() { p.storeBytes(of: UInt8(truncatingIfNeeded: v), toByteOffset: i, as: UInt8.self) }
        case 2:
            for (i, v) in values.enumerated() {
                p.storeBytes(of: UInt16(truncatingIfNeeded: v).bigEndian, toByteOffset: 2 * i, as: UInt16.self)
            }
        case 4:
            for (i, v) in values.enumerated() {
                p.storeBytes(of: UInt32(truncatingIfNeeded: v).bigEndian, toByteOffset: 4 * i, as: UInt32.self)
            }
        default:
            for v in values { appendBigEndian(UInt64(truncatingIfNeeded: v), width: width) }
            return
        }
        count += values.count * width
    }

    // MARK: - Sizes

    /// The width CoreFoundation's writer gives `value` (its `_byteCount` in CFBinaryPList.c): the smallest of
    /// 1, 2, 4 and 8 bytes that holds it. The one rule for every object-reference size (from the object
    /// count), offset size (from the offset table's position) and UID width in the files this package
    /// writes, and in the bounds computed ahead of them: readers that follow Apple's writer (Python's
    /// plistlib writes the same widths; the Rust `plist` crate refuses others in the trailer) read them.
    @inline(__always)
    static func cfByteCount(_ value: UInt64) -> Int {
        value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
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
}
