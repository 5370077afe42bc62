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

    /// The kind of object `n` (`n` below ``objectCount``); nil for a marker the format does not have.
    @inline(__always)
    func kind(of n: Int) -> BinaryPropertyListMarker? {
        BinaryPropertyListMarker(byte: marker(of: n))
    }

    /// The element count of container `n` (an array, set or dictionary) and where its references start.
    /// A dictionary has `count` key references followed by `count` value references. Returns nil when
    /// `n` is not a container.
    func container(_ n: Int) throws -> (kind: BinaryPropertyListMarker, count: Int, start: Int)? {
        let offset = offset(of: n)
        let marker = base.load(fromByteOffset: offset, as: UInt8.self)
        guard let kind = BinaryPropertyListMarker(byte: marker), kind.isContainer else { return nil }
        if kind == .orderedSet, !isLenient { try unsupportedMarker(marker, offset, n) }
        let (count, start) = try countAndStart(BinaryPropertyListMarker.nibble(marker), at: offset, object: n)
        if kind == .dictionary {
            let (twice, overflow) = count.multipliedReportingOverflow(by: 2)
            try requireElements(overflow ? Int.max : twice, of: refSize, at: start, object: n, "dictionary reference")
        } else {
            try requireElements(count, of: refSize, at: start, object: n, kind == .array ? "array" : "set")
        }
        return (kind, count, start)
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
        switch BinaryPropertyListMarker(byte: marker) {
        case .utf8String? where !isLenient: try unsupportedMarker(marker, offset, n)
        case .asciiString?, .utf16String?, .utf8String?:
            return try countAndStart(BinaryPropertyListMarker.nibble(marker), at: offset, object: n).count
        default: return nil
        }
    }

    /// The value of UID object `n`, or nil when `n` is not a UID.
    @inline(__always)
    func uid(_ n: Int) throws -> UInt64? {
        let offset = offset(of: n)
        let marker = base.load(fromByteOffset: offset, as: UInt8.self)
        guard BinaryPropertyListMarker(byte: marker) == .uid else { return nil }
        return try uidValue(BinaryPropertyListMarker.nibble(marker), at: offset, object: n)
    }

    /// Whether string object `n` is exactly `key` (UTF-8 bytes; compared code unit for code unit, as
    /// `NSString` compares keys). Returns nil when `n` is not a string.
    @inline(__always)
    func string(_ n: Int, equals key: UnsafeBufferPointer<UInt8>) throws -> Bool? {
        let offset = offset(of: n)
        let marker = base.load(fromByteOffset: offset, as: UInt8.self)
        switch BinaryPropertyListMarker(byte: marker) {
        case .utf8String? where !isLenient: try unsupportedMarker(marker, offset, n)
        case .asciiString?, .utf8String?:
            let (count, start) = try countAndStart(BinaryPropertyListMarker.nibble(marker), at: offset, object: n)
            try requireElements(count, of: 1, at: start, object: n, "string")
            guard count == key.count else { return false }
            guard count > 0, let keyBase = key.baseAddress else { return true }
            return memcmp(base + start, keyBase, count) == 0
        case .utf16String?:
            // Each UTF-16 unit is 1 to 3 UTF-8 bytes (a surrogate pair, 2 units, is 4): decode only when
            // the lengths can match, so a long key is never decoded for a short one.
            let (count, _) = try countAndStart(BinaryPropertyListMarker.nibble(marker), at: offset, object: n)
            guard key.count >= count, key.count <= count * 3 else { return false }
            guard case .string(let s) = try scalar(n, at: offset, marker: marker) else { return false }
            return s.utf8.elementsEqual(key)
        default:
            return nil
        }
    }
}

/// Two hex digits.
func hex(_ byte: UInt8) -> String {
    let s = String(byte, radix: 16, uppercase: true)
    return s.count == 1 ? "0" + s : s
}

// MARK: - Object words

/// One 64-bit word per object of a binary property list, made in one pass over the offset table by
/// ``BinaryPropertyListScanner/objectWords()``: what a reader that follows references needs to know about an
/// object without reading the offset table and then the object (two cache misses at unrelated places
/// in a file larger than the caches).
///
/// Bits 56-63 hold the object's marker byte. A UID whose value was read holds bit 55 and the value in
/// bits 0-54; any other object holds its byte offset in bits 0-54 (bit 55 clear).
enum BinaryPropertyListObjectWord {
    static let resolvedUID: UInt64 = 1 << 55
    static let payloadMask: UInt64 = resolvedUID - 1

    /// The object's marker byte.
    @inline(__always)
    static func marker(_ word: UInt64) -> UInt8 { UInt8(truncatingIfNeeded: word >> 56) }

    /// The byte offset of an object that is not a resolved UID.
    @inline(__always)
    static func offset(_ word: UInt64) -> Int { Int(truncatingIfNeeded: word & payloadMask) }

    /// The value of a resolved UID; nil for every other object (a UID the word could not hold included).
    @inline(__always)
    static func uidValue(_ word: UInt64) -> UInt64? { word & resolvedUID != 0 ? word & payloadMask : nil }
}

extension BinaryPropertyListScanner {
    /// The word of every object (see ``BinaryPropertyListObjectWord``), in object-number order. Reads the
    /// offset table front to back and each object's first bytes (writers lay objects out in about the
    /// same order, so this is close to one sequential pass over the file). A UID that cannot be read
    /// (truncated, too large) keeps its offset: reading it later through the scanner reports the fault.
    ///
    /// - Parameter checkingOffsets: check each offset-table entry as it is read, throwing what the
    ///   initializer's check throws for the first entry outside the object area (for a scanner made with
    ///   `checkingOffsets: false`: one pass over the table instead of two). Without it, the initializer
    ///   must have checked every entry.
    func objectWords(checkingOffsets: Bool = false) throws -> [UInt64] {
        try [UInt64](unsafeUninitializedCapacity: objectCount) { words, initialized in
            for n in 0 ..< objectCount {
                let offset: Int
                if checkingOffsets {
                    initialized = n  // the words before n, should the check throw
                    offset = try checkedOffset(of: n)
                } else {
                    offset = self.offset(of: n)  // checked to lie in the object area by init
                }
                let marker = base.load(fromByteOffset: offset, as: UInt8.self)
                var word = UInt64(marker) << 56 | UInt64(offset)
                if marker >> 4 == BinaryPropertyListMarker.uid.rawValue {
                    let width = Int(BinaryPropertyListMarker.nibble(marker)) + 1
                    let value: UInt64?
                    if width <= 4, offset + 1 + width <= tableOffset {
                        // 1 to 4 bytes inside the object area: the value uidValue(_:at:object:) reads (at most UInt32.max).
                        value = Self.loadBigEndian(base + offset + 1, width: width)
                    } else {
                        value = try? uidValue(BinaryPropertyListMarker.nibble(marker), at: offset, object: n)
                    }
                    if let value, value < BinaryPropertyListObjectWord.resolvedUID {
                        word = UInt64(marker) << 56 | BinaryPropertyListObjectWord.resolvedUID | value
                    }
                }
                words[n] = word
            }
            initialized = objectCount
        }
    }
}
