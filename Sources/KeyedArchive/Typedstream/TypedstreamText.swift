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

/// Converts a length or count read from input, held in a fixed-width unsigned integer, to an `Int` of
/// `intBitWidth` bits: `Int.bitWidth` in use (64, or 32 on the `arm64_32` Apple Watch); tests run it with 32
/// on a 64-bit machine too. A length is accepted only when it fits in such an `Int` and in the bytes that
/// follow it, so that `start + length` and the range built from it are valid at either width.
struct InputLengthWidth {
    /// The width of the `Int` the length is converted to, from 8 to 64.
    let intBitWidth: Int

    /// The conversion for this machine's `Int`.
    static let current = InputLengthWidth(intBitWidth: Int.bitWidth)

    /// The largest `Int` of this width, 2^(intBitWidth - 1) - 1 (a smart shift: no width traps it).
    var largestInt: UInt64 { UInt64.max >> (65 - intBitWidth) }

    /// `value`, a length read at `byteOffset`, as an `Int`, when it fits in an `Int` of this width and is at
    /// most `remaining`, the bytes that follow it.
    /// - Throws: ``TypedstreamError/Code/dataCorrupted``, saying the length, its byte offset and which bound
    ///   it breaks.
    func length(_ value: UInt64, at byteOffset: Int, remaining: Int) throws(TypedstreamError) -> Int {
        guard value <= largestInt, let length = Int(exactly: value) else {
            throw TypedstreamError(.dataCorrupted, "the length \(value) at byte \(byteOffset) does not fit in a \(intBitWidth)-bit Int")
        }
        guard length <= remaining else {
            throw TypedstreamError(.dataCorrupted, "the length \(value) at byte \(byteOffset) is past the \(max(remaining, 0)) bytes that follow it")
        }
        return length
    }
}

/// `units` as a string when they are valid UTF-16 (no unpaired surrogate), else nil: what
/// `String(validating:as: UTF16.self)` gives, for the deployment targets before it (macOS 15, iOS 18).
func validUTF16(_ units: [UInt16]) -> String? {
    var parser = Unicode.UTF16.ForwardParser()
    var iterator = units.makeIterator()
    while true {
        switch parser.parseScalar(from: &iterator) {
        case .valid: continue
        case .emptyInput: return String(decoding: units, as: UTF16.self)
        case .error: return nil
        }
    }
}

/// A string of the old binary property-list format `-[NSArchiver encodePropertyList:]` writes: a
/// little-endian 32-bit type (6: UTF-16 with a byte-order mark; 5: NeXTSTEP 8-bit, read here only when it
/// is ASCII, where the two agree), a little-endian 32-bit length, the bytes, zero padding to 4 bytes
/// (pytypedstream's `old_binary_plist.py`). The length is converted to `Int` through `width` (this
/// machine's `Int` unless a test says otherwise), so a length of 2^31 or more is an error, not a negative
/// `Int`, on a 32-bit `Int`.
/// - Throws: ``TypedstreamError/Code/dataCorrupted`` saying what is wrong and at which byte of `bytes`.
func oldPropertyListString(_ bytes: [UInt8], width: InputLengthWidth = .current) throws(TypedstreamError) -> String {
    guard bytes.count >= 8 else {
        throw TypedstreamError(.dataCorrupted, "\(bytes.count) bytes, fewer than the 8 of a type and a length")
    }
    /// The little-endian 32-bit word at `at` (at most `bytes.count - 4`), built in `UInt32`.
    func word(_ at: Int) -> UInt32 {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
    }
    let type = word(0)
    let length = try width.length(UInt64(word(4)), at: 4, remaining: bytes.count - 8)
    guard bytes.count - 8 - length < 4 else {
        throw TypedstreamError(.dataCorrupted, "\(bytes.count - 8 - length) bytes after the \(length) of the string at byte 8, more than its padding")
    }
    let body = Array(bytes[8 ..< 8 + length])
    switch type {
    case 5:
        guard let at = body.firstIndex(where: { $0 >= 0x80 }) else { return String(decoding: body, as: UTF8.self) }
        throw TypedstreamError(.dataCorrupted, "an 8-bit string with the byte \(body[at]) at byte \(8 + at), which is not ASCII")
    case 6:
        guard body.count >= 2, body.count % 2 == 0 else {
            throw TypedstreamError(.dataCorrupted, "a UTF-16 string of \(body.count) bytes, not an even number from 2")
        }
        let bigEndian: Bool
        switch (body[0], body[1]) {
        case (0xFE, 0xFF): bigEndian = true
        case (0xFF, 0xFE): bigEndian = false
        default: throw TypedstreamError(.dataCorrupted, "a UTF-16 string without a byte-order mark at byte 8")
        }
        var units: [UInt16] = []
        units.reserveCapacity(body.count / 2 - 1)
        for i in stride(from: 2, to: body.count, by: 2) {
            units.append(bigEndian ? UInt16(body[i]) << 8 | UInt16(body[i + 1]) : UInt16(body[i + 1]) << 8 | UInt16(body[i]))
        }
        guard let text = validUTF16(units) else {
            throw TypedstreamError(.dataCorrupted, "a UTF-16 string at byte 8 with an unpaired surrogate")
        }
        return text
    default:
        throw TypedstreamError(.dataCorrupted, "the type \(type) at byte 0; 5 (8-bit) and 6 (UTF-16) are known")
    }
}
