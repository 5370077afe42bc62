#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Decoding one non-container object (integers, reals, dates, data, strings, UIDs), with the format's
// strictness rules (see BinaryPropertyListReader).
extension BinaryPropertyListScanner {
    /// Decodes a non-container object.
    @inline(never)
    func scalar(_ n: Int, at offset: Int, marker: UInt8) throws -> PropertyListValue {
        let nibble = BinaryPropertyListMarker.nibble(marker)
        switch BinaryPropertyListMarker(byte: marker) {
        case .singleton?:
            switch marker {
            case BinaryPropertyListMarker.falseByte: return .bool(false)
            case BinaryPropertyListMarker.trueByte: return .bool(true)
            case BinaryPropertyListMarker.nullByte:
                // CF and Foundation on Linux read kCFNull, plistlib None; the value model has no null, and
                // no Apple writer writes one (PropertyListSerialization refuses to write NSNull).
                throw PropertyListError(.invalidObject, "bplist: null (0x00) has no property-list value",
                                        at: .init(byteOffset: offset, objectNumber: n))
            case BinaryPropertyListMarker.fillByte:
                // CF __CFBinaryPlistCreateObjectFiltered: the 0x0_ singletons are 0x00, 0x08 and 0x09 only.
                throw PropertyListError(.invalidObject, "bplist: fill byte (0x0F) is padding, not a value",
                                        at: .init(byteOffset: offset, objectNumber: n))
            default:
                throw PropertyListError(.invalidObject, "bplist: unknown object marker 0x\(hex(marker))",
                                        at: .init(byteOffset: offset, objectNumber: n))
            }
        case .integer?:
            return .integer(try integer(nibble, at: offset, object: n))
        case .real?:
            switch nibble {
            case 2:
                try require(offset + 1, 4, object: n, "4-byte real")
                let bits = UInt32(truncatingIfNeeded: Self.loadBigEndian(base + offset + 1, width: 4))
                return .float(Float(bitPattern: bits))
            case 3:
                try require(offset + 1, 8, object: n, "8-byte real")
                return .real(Double(bitPattern: Self.loadBigEndian(base + offset + 1, width: 8)))
            default:
                // CF __CFBinaryPlistCreateObjectFiltered: reals are 0x22 and 0x23 only.
                throw PropertyListError(.invalidObject, "bplist: real of \(1 << Int(nibble)) bytes (only 4 and 8 exist)",
                                        at: .init(byteOffset: offset, objectNumber: n))
            }
        case .date?:
            // CF __CFBinaryPlistCreateObjectFiltered: a date is 0x33 only.
            guard marker == BinaryPropertyListMarker.date.byte(nibble: 3) else {
                throw PropertyListError(.invalidObject, "bplist: date marker 0x\(hex(marker)) (only 0x33 exists)",
                                        at: .init(byteOffset: offset, objectNumber: n))
            }
            try require(offset + 1, 8, object: n, "date")
            let seconds = Double(bitPattern: Self.loadBigEndian(base + offset + 1, width: 8))
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .data?:
            let (count, start) = try countAndStart(nibble, at: offset, object: n)
            try requireElements(count, of: 1, at: start, object: n, "data")
            return .data(dataValue(at: start, count: count))
        case .asciiString?:
            let (count, start) = try countAndStart(nibble, at: offset, object: n)
            try requireElements(count, of: 1, at: start, object: n, "ASCII string")
            let v = PropertyListValue.string(try asciiString(at: start, count: count, object: n))
            return v
        case .utf16String?:
            let (count, start) = try countAndStart(nibble, at: offset, object: n)
            try requireElements(count, of: 2, at: start, object: n, "UTF-16 string")
            let v = PropertyListValue.string(try utf16String(at: start, count: count, object: n))
            return v
        case .utf8String?:
            // CF __CFBinaryPlistCreateObjectFiltered has no case for 0x7_ (nor does Foundation on Linux).
            guard isLenient else { try unsupportedMarker(marker, offset, n) }
            let (count, start) = try countAndStart(nibble, at: offset, object: n)
            try requireElements(count, of: 1, at: start, object: n, "UTF-8 string")
            let bytes = UnsafeBufferPointer(start: (base + start).assumingMemoryBound(to: UInt8.self), count: count)
            guard let s = Self.validUTF8(bytes) else {
                throw PropertyListError(.invalidString, "bplist: UTF-8 string is not valid UTF-8",
                                        at: .init(byteOffset: start, objectNumber: n))
            }
            return .string(s)
        case .uid?:
            return .uid(UID(try uidValue(nibble, at: offset, object: n)))
        default:
            // CF __CFBinaryPlistCreateObjectFiltered: no case for 0x9_, 0xE_, 0xF_ (the whole read fails).
            throw PropertyListError(.invalidObject, "bplist: unknown object marker 0x\(hex(marker))",
                                    at: .init(byteOffset: offset, objectNumber: n))
        }
    }

    /// The `count` bytes at `start` (inside the object area): a slice of ``source`` (no copy), or a copy
    /// when there is none.
    ///
    @inline(__always)
    func dataValue(at start: Int, count: Int) -> Data {
        guard let reference = sourceReference else { return Data(bytes: base + start, count: count) }
        // `sourceBox`, a strong reference of this scanner, keeps the box alive during the call.
        return reference._withUnsafeGuaranteedRef { $0.slice(start, count) }
    }

    /// The value of a UID object (`0x8n`, `n + 1` bytes at `offset + 1`).
    ///
    /// As CF: 1 to 16 bytes whose value is at most `UInt32.max`. Bytes beyond the low 8 must be zero (CF
    /// drops them). Lenient: any value up to `UInt64.max`.
    func uidValue(_ nibble: UInt8, at offset: Int, object n: Int) throws -> UInt64 {
        let width = Int(nibble) + 1
        try require(offset + 1, width, object: n, "UID")
        let low = Self.loadBigEndian(beforeTrailer: base + offset + 1 + max(0, width - 8), width: min(width, 8))  // in the object area
        // CF's _getSizedInt shifts a UID's upper bytes out (only the low 8 count), as Foundation on Linux
        // does; refused here, since the value is not the one written. Lenient: the low 8 bytes, as CF.
        if width > 8, !isLenient, Self.loadBigEndian(base + offset + 1, width: width - 8) != 0 {
            throw PropertyListError(.invalidObject, "bplist: \(width)-byte UID is larger than UInt64.max",
                                    at: .init(byteOffset: offset, objectNumber: n))
        }
        // CF __CFBinaryPlistCreateObjectFiltered: `UINT32_MAX < bigint` fails (Foundation on Linux agrees).
        guard low <= UInt64(UInt32.max) || isLenient else {
            throw PropertyListError(.invalidObject, "bplist: UID \(low) is larger than UInt32.max (4294967295)",
                                    at: .init(byteOffset: offset, objectNumber: n))
        }
        return low
    }

    /// A marker this reader knows but, without ``PropertyListReadingOptions/isLenient``, rejects as CF does.
    @inline(never)
    func unsupportedMarker(_ marker: UInt8, _ offset: Int, _ n: Int) throws -> Never {
        let what = BinaryPropertyListMarker(byte: marker) == .utf8String ? "UTF-8 string" : "ordered set"
        throw PropertyListError(.invalidObject,
                                "bplist: object marker 0x\(hex(marker)) (\(what)) is not read by CoreFoundation; reading it needs the lenient option",
                                at: .init(byteOffset: offset, objectNumber: n))
    }

    @inline(never)
    func unknownMarker(_ marker: UInt8, _ offset: Int, _ n: Int) throws -> Never {
        throw PropertyListError(.invalidObject, "bplist: unknown object marker 0x\(hex(marker))",
                                at: .init(byteOffset: offset, objectNumber: n))
    }

    /// An integer object with marker low nibble `nibble` (width `1 << nibble`).
    func integer(_ nibble: UInt8, at offset: Int, object n: Int) throws -> PropertyListInteger {
        switch nibble {
        case 0, 1, 2:
            let width = 1 << Int(nibble)
            try require(offset + 1, width, object: n, "integer")
            return PropertyListInteger(Int64(Self.loadBigEndian(beforeTrailer: base + offset + 1, width: width)))  // checked above
        case 3:
            try require(offset + 1, 8, object: n, "integer")
            return PropertyListInteger(Int64(bitPattern: Self.loadBigEndian(base + offset + 1, width: 8)))
        case 4:
            try require(offset + 1, 16, object: n, "16-byte integer")
            let high = Self.loadBigEndian(base + offset + 1, width: 8)
            let low = Self.loadBigEndian(base + offset + 9, width: 8)
            if high == 0 { return PropertyListInteger(low) }
            if high == UInt64.max, low >> 63 == 1 { return PropertyListInteger(Int64(bitPattern: low)) }
            // No 64-bit value holds it. CF (__CFBinaryPlistCreateObjectFiltered) and Foundation on Linux keep
            // the low 8 bytes; plistlib reads the whole 128-bit number. Lenient: the low 8 bytes, as CF.
            if isLenient { return PropertyListInteger(low) }
            throw PropertyListError(.invalidObject,
                                    "bplist: 16-byte integer 0x\(String(high, radix: 16))\(String(low, radix: 16)) is outside Int64.min...UInt64.max",
                                    at: .init(byteOffset: offset, objectNumber: n))
        default:
            // CF __CFBinaryPlistCreateObjectFiltered: `16 < width` fails.
            throw PropertyListError(.invalidObject, "bplist: integer of \(1 << Int(nibble)) bytes (1, 2, 4, 8 and 16 exist)",
                                    at: .init(byteOffset: offset, objectNumber: n))
        }
    }

    /// A `0x5n` string: ASCII, or (leniently) UTF-8 when a non-Apple writer put UTF-8 there.
    func asciiString(at start: Int, count: Int, object n: Int) throws -> String {
        // Bounds: the string lies in the object area, which the 32-byte trailer follows, so the 16 bytes at
        // `start` are inside the buffer (the words hold zeros past `count`).
        if count <= Self.smallStringCapacity, buildsSmallStrings {
            let (low, high) = Self.smallStringWords(at: base + start, count: count)
            if (low | high) & Self.highBits == 0 { return Self.smallASCIIString(low, high, count: count) }
        }
        let bytes = UnsafeBufferPointer(start: (base + start).assumingMemoryBound(to: UInt8.self), count: count)
        var high: UInt8 = 0
        for b in bytes { high |= b }
        if high < 0x80 {
            if count <= Self.smallStringCapacity { return Self.smallASCIIString(bytes) }
            return String(decoding: bytes, as: UTF8.self)
        }
        guard let s = Self.validUTF8(bytes) else {
            // Neither ASCII nor UTF-8: plistlib refuses it (its 0x5n strings are ASCII). Foundation on Linux
            // reads the bytes as Latin-1 (CF: CFStringCreateWithBytes with kCFStringEncodingASCII); lenient
            // does the same.
            if isLenient { return String(bytes.lazy.map { Character(Unicode.Scalar($0)) }) }
            let bad = bytes.firstIndex { $0 >= 0x80 } ?? 0
            throw PropertyListError(.invalidString, "bplist: ASCII string has byte 0x\(hex(bytes[bad])) that is neither ASCII nor UTF-8",
                                    at: .init(byteOffset: start + bad, objectNumber: n))
        }
        return s
    }

    /// The most UTF-8 bytes a Swift string keeps inline, without an allocation, on 64-bit platforms.
    static let smallStringCapacity = 15

    /// A string of `bytes`, all ASCII (checked by the caller), of at most ``smallStringCapacity`` bytes.
    ///
    /// `String(decoding:as:)` validates the bytes again and copies them twice; the standard library builds
    /// a string this small that is all ASCII straight from the buffer, without validation (anything else it
    /// would validate, so a wrong caller gets a repaired string, never an invalid one).
    @inline(__always)
    static func smallASCIIString(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { out in
            UnsafeMutableRawBufferPointer(out).copyMemory(from: UnsafeRawBufferPointer(bytes))
            return bytes.count
        }
    }

    /// The high bit of every byte of a word: a word of ASCII bytes has none of them set.
    static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// The `count` (0...15) bytes at `p`, where 16 bytes are readable, as the two words of a small string:
    /// little endian, zero past `count`.
    @inline(__always)
    static func smallStringWords(at p: UnsafeRawPointer, count: Int) -> (UInt64, UInt64) {
        let low = UInt64(littleEndian: p.loadUnaligned(as: UInt64.self)) & byteMask(count)
        let high = UInt64(littleEndian: p.loadUnaligned(fromByteOffset: 8, as: UInt64.self)) & byteMask(count - 8)
        return (low, high)
    }

    /// The string of the `count` (0...15) ASCII bytes (checked by the caller) held in `low` and `high`
    /// (``smallStringWords(at:count:)``), built as the standard library builds a small string: the two
    /// words with, in the top byte, the small-ASCII discriminator `0xE` and the count.
    ///
    /// About fifteen instructions with the words' loads and the ASCII check, where ``smallASCIIString(_:)``
    /// takes a hundred (a closure call, a zeroed buffer, a copy and an ASCII check). Only for a scanner
    /// whose ``buildsSmallStrings`` is set (``smallStringBitsAgree``): the layout is the standard library's
    /// on 64-bit platforms, not a public API, so it is checked against the library's own strings first.
    @inline(__always)
    static func smallASCIIString(_ low: UInt64, _ high: UInt64, count: Int) -> String {
        #if _pointerBitWidth(_64)
        // The bits of an empty string (small, ASCII: nothing to release) replaced by those of the new one.
        var string = ""
        withUnsafeMutableBytes(of: &string) { words in
            words.storeBytes(of: low, toByteOffset: 0, as: UInt64.self)
            words.storeBytes(of: smallStringTopWord(high, count: count), toByteOffset: 8, as: UInt64.self)
        }
        return string
        #else
        return withUnsafeBytes(of: (low.littleEndian, high.littleEndian)) { String(decoding: $0.prefix(count), as: UTF8.self) }
        #endif
    }

    /// The second word of a small ASCII string of `count` bytes whose bytes 8-14 are `high`.
    @inline(__always)
    static func smallStringTopWord(_ high: UInt64, count: Int) -> UInt64 {
        high | (0xE0 | UInt64(truncatingIfNeeded: count)) << 56
    }

    /// Whether ``smallASCIIString(_:_:count:)`` builds the very bits the standard library gives the same
    /// strings: checked once per process on strings of every small length, by comparing the words
    /// (no string is built from bits before it passes). False on other layouts (32-bit platforms).
    static let smallStringBitsAgree: Bool = {
        #if _pointerBitWidth(_64)
        guard MemoryLayout<String>.size == 16 else { return false }
        let sample = Array("0123456789abcdef".utf8)
        return sample.withUnsafeBufferPointer { all in
            guard let base = all.baseAddress else { return false }
            return (0 ... smallStringCapacity).allSatisfy { count in
                let bytes = UnsafeBufferPointer(rebasing: all[0 ..< count])
                let theirs = unsafeBitCast(smallASCIIString(bytes), to: (UInt64, UInt64).self)
                let (low, high) = smallStringWords(at: UnsafeRawPointer(base), count: count)
                return theirs == (low, smallStringTopWord(high, count: count))
            }
        }
        #else
        return false
        #endif
    }()

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
    func utf16String(at start: Int, count: Int, object n: Int) throws -> String {
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
                        // An unpaired surrogate is no Unicode text: plistlib refuses it. Foundation on Linux
                        // reads U+FFFD for it (CF keeps the unit unchecked); lenient does the same.
                        if isLenient {
                            out[o] = 0xEF
                            out[o + 1] = 0xBF
                            out[o + 2] = 0xBD
                            o += 3
                            i += 1
                            continue
                        }
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

}
