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

// Text and byte checks the typedstream reader and its Foundation values share.

/// The length of `text` in UTF-16 code units (an NSString's length), counted from its UTF-8: one unit per
/// scalar (per byte that does not continue a scalar), two for a scalar of four bytes (above U+FFFF).
func utf16Length(of text: String) -> Int {
    var text = text
    return text.withUTF8 { utf8 in
        // Without branches, so that the loop is vectorised; the sum is at most twice the byte count.
        var units = 0
        for byte in utf8 { units &+= (byte & 0xC0 != 0x80 ? 1 : 0) &+ (byte >= 0xF0 ? 1 : 0) }
        return units
    }
}

/// Whether `a` and `b` hold the same bytes (memcmp reads `count` bytes of each, which each buffer holds).
func sameBytes(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    guard let aBase = a.baseAddress, let bBase = b.baseAddress else { return true }
    return memcmp(aBase, bBase, a.count) == 0
}

/// `bytes` as a string when they are valid UTF-8, else nil.
func validUTF8(_ bytes: Data) -> String? {
    bytes.withUnsafeBytes { validUTF8($0.bindMemory(to: UInt8.self)) }
}

/// `units` as a string when they are valid UTF-8, else nil. Decoding repairs any invalid sequence (and
/// changes its bytes), so the units are valid exactly when decoding gives them back unchanged.
func validUTF8(_ units: UnsafeBufferPointer<UInt8>) -> String? {
    var text = String(decoding: units, as: UTF8.self)
    return text.withUTF8 { decoded in
        guard decoded.count == units.count, let decodedBase = decoded.baseAddress, let unitsBase = units.baseAddress else {
            return decoded.count == units.count
        }
        return memcmp(decodedBase, unitsBase, units.count) == 0
    } ? text : nil
}

/// A string of the old binary property-list format `-[NSArchiver encodePropertyList:]` writes: a
/// little-endian 32-bit type (6: UTF-16 with a byte-order mark; 5: NeXTSTEP 8-bit, read here only when it
/// is ASCII, where the two agree), a 32-bit length, the bytes, zero padding to 4 bytes (pytypedstream's
/// `old_binary_plist.py`).
func oldPropertyListString(_ bytes: [UInt8]) -> String? {
    guard bytes.count >= 8 else { return nil }
    func word(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24 }
    let type = word(0), length = word(4)
    guard length <= bytes.count - 8, (bytes.count - 8 - length) < 4 else { return nil }
    let body = Array(bytes[8 ..< 8 + length])
    switch type {
    case 5:
        guard body.allSatisfy({ $0 < 0x80 }) else { return nil }
        return String(decoding: body, as: UTF8.self)
    case 6:
        guard body.count >= 2, body.count % 2 == 0 else { return nil }
        let bigEndian: Bool
        switch (body[0], body[1]) {
        case (0xFE, 0xFF): bigEndian = true
        case (0xFF, 0xFE): bigEndian = false
        default: return nil
        }
        var units: [UInt16] = []
        for i in stride(from: 2, to: body.count, by: 2) {
            units.append(bigEndian ? UInt16(body[i]) << 8 | UInt16(body[i + 1]) : UInt16(body[i + 1]) << 8 | UInt16(body[i]))
        }
        return String(validating: units, as: UTF16.self)
    default:
        return nil
    }
}
