import Foundation
import Testing
@testable import KeyedArchive

/// ``validatedUTF8String(_:)``, the one UTF-8 check the readers share: the string for valid UTF-8, nil for every
/// kind of invalid sequence, whatever container holds the bytes.
@Suite("UTF-8 validation")
struct UTF8ValidationTests {
    static let valid: [[UInt8]] = [
        [], Array("plain".utf8), Array("caf\u{E9} \u{1F600} \u{FFFD}".utf8),
        [0x00], [0xEF, 0xBB, 0xBF, 0x61],  // a NUL; a byte-order mark is kept as U+FEFF
        [0xF4, 0x8F, 0xBF, 0xBF],  // U+10FFFF, the last scalar
    ]
    static let invalid: [[UInt8]] = [
        [0xFF], [0x80], [0x61, 0xC3], [0xE2, 0x82],  // a lone byte; a continuation alone; truncated sequences
        [0xC0, 0x80], [0xE0, 0x80, 0x80],  // overlong forms
        [0xED, 0xA0, 0x80],  // an encoded surrogate (U+D800)
        [0xF4, 0x90, 0x80, 0x80], [0xF8, 0x88, 0x80, 0x80, 0x80],  // above U+10FFFF; a five-byte form
        Array("ok".utf8) + [0xFE] + Array("ok".utf8),
    ]

    @Test func validBytesGiveTheirString() {
        for bytes in Self.valid {
            let expected = String(decoding: bytes, as: UTF8.self)
            #expect(validatedUTF8String(bytes) == expected, "\(bytes)")
            #expect(validatedUTF8String(Data(bytes)) == expected, "\(bytes)")
            #expect(validatedUTF8String(bytes[...]) == expected, "\(bytes)")
            #expect(validatedUTF8String(Data([0x20] + bytes).dropFirst()) == expected, "a slice not at index 0: \(bytes)")
            #expect(validatedUTF8String(AnyCollection(bytes)) == expected, "non-contiguous: \(bytes)")
        }
    }

    @Test func invalidBytesGiveNil() {
        for bytes in Self.invalid {
            #expect(validatedUTF8String(bytes) == nil, "\(bytes)")
            #expect(validatedUTF8String(Data(bytes)) == nil, "\(bytes)")
            #expect(validatedUTF8String(AnyCollection(bytes)) == nil, "non-contiguous: \(bytes)")
        }
    }

    /// The standard library's own check, where it exists (macOS 15, iOS 18 and every Linux), agrees on every case.
    @Test func agreesWithTheStandardLibrary() {
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) else { return }
        for bytes in Self.valid + Self.invalid {
            #expect(validatedUTF8String(bytes) == String(validating: bytes, as: UTF8.self), "\(bytes)")
        }
    }
}
