import Foundation
import Testing
@testable import KeyedArchive

// A length read from a typedstream (the 32-bit length of an NSFont's old-style property list name) is built in
// `UInt32` and converted to `Int` through `InputLengthWidth`, at 64 bits here and, through the width parameter,
// at the 32 bits of the `arm64_32` Apple Watch, where a length of 2^31 or more once became a negative `Int` and
// trapped. Every bad length is a thrown error saying the length and its byte offset.

/// An old-style property list string header: `type` and `length` as little-endian 32-bit words, then `body`.
private func oldPropertyList(type: UInt32 = 6, length: UInt32, _ body: [UInt8]) -> [UInt8] {
    withUnsafeBytes(of: type.littleEndian, Array.init) + withUnsafeBytes(of: length.littleEndian, Array.init) + body
}

@Suite struct TypedstreamLengthWidthTests {
    static let thirtyTwo = InputLengthWidth(intBitWidth: 32)
    static let sixtyFour = InputLengthWidth(intBitWidth: 64)

    @Test func largestIntIsThatOfEachWidth() {
        #expect(Self.thirtyTwo.largestInt == UInt64(Int32.max))
        #expect(Self.sixtyFour.largestInt == UInt64(Int64.max))
        #expect(InputLengthWidth.current.intBitWidth == Int.bitWidth)
    }

    @Test(arguments: [UInt64(0x8000_0000), UInt64(0xFFFF_FFFF)])
    func aLengthFrom2To31IsRefusedAtThirtyTwoBits(length: UInt64) throws {
        let error = #expect(throws: TypedstreamError.self) {
            try Self.thirtyTwo.length(length, at: 4, remaining: Int(Int32.max))
        }
        #expect(error?.code == .dataCorrupted)
        #expect(error?.message == "the length \(length) at byte 4 does not fit in a 32-bit Int")
    }

    @Test func theLargestThirtyTwoBitLengthIsKeptWhenTheBytesFollow() throws {
        #expect(try Self.thirtyTwo.length(0x7FFF_FFFF, at: 4, remaining: 0x7FFF_FFFF) == 0x7FFF_FFFF)
        #expect(try Self.thirtyTwo.length(0, at: 4, remaining: 0) == 0)
        #expect(try Self.sixtyFour.length(0xFFFF_FFFF, at: 4, remaining: 0xFFFF_FFFF) == 0xFFFF_FFFF)
    }

    @Test(arguments: [UInt64(0x8000_0000), UInt64(0xFFFF_FFFF), UInt64(13)])
    func aLengthPastTheBytesIsRefusedAtSixtyFourBits(length: UInt64) throws {
        let error = #expect(throws: TypedstreamError.self) { try Self.sixtyFour.length(length, at: 4, remaining: 12) }
        #expect(error?.message == "the length \(length) at byte 4 is past the 12 bytes that follow it")
    }

    @Test func aLengthAboveInt64MaxIsRefusedAtSixtyFourBits() {
        let error = #expect(throws: TypedstreamError.self) { try Self.sixtyFour.length(UInt64.max, at: 0, remaining: Int.max) }
        #expect(error?.message == "the length \(UInt64.max) at byte 0 does not fit in a 64-bit Int")
    }

    /// The whole string reader at both widths: the same crafted header throws at 32 bits (the length does not
    /// fit) and at this machine's width (the length is past the bytes), never a negative length or a trap.
    @Test(arguments: [UInt32(0x8000_0000), UInt32(0xFFFF_FFFF)])
    func oldPropertyListStringRefusesAHugeLengthAtBothWidths(length: UInt32) {
        let bytes = oldPropertyList(length: length, [0xFF, 0xFE, 0x41, 0x00])
        let narrow = #expect(throws: TypedstreamError.self) { try oldPropertyListString(bytes, width: Self.thirtyTwo) }
        #expect(narrow?.message == "the length \(length) at byte 4 does not fit in a 32-bit Int")
        let native = #expect(throws: TypedstreamError.self) { try oldPropertyListString(bytes) }
        #expect(native?.message == "the length \(length) at byte 4 is past the 4 bytes that follow it")
    }

    @Test func oldPropertyListStringReadsItsStringAtBothWidths() throws {
        let bytes = oldPropertyList(length: 4, [0xFE, 0xFF, 0x00, 0x41])
        #expect(try oldPropertyListString(bytes, width: Self.thirtyTwo) == "A")
        #expect(try oldPropertyListString(bytes, width: Self.sixtyFour) == "A")
        #expect(try oldPropertyListString(oldPropertyList(type: 5, length: 3, [0x61, 0x62, 0x63, 0x00])) == "abc")
    }

    @Test func oldPropertyListStringSaysWhatIsWrongAndWhere() {
        let cases: [([UInt8], String)] = [
            ([6, 0, 0, 0], "4 bytes, fewer than the 8 of a type and a length"),
            (oldPropertyList(length: 2, [0xFF, 0xFE, 0, 0, 0, 0]), "4 bytes after the 2 of the string at byte 8, more than its padding"),
            (oldPropertyList(type: 7, length: 0, []), "the type 7 at byte 0; 5 (8-bit) and 6 (UTF-16) are known"),
            (oldPropertyList(type: 5, length: 2, [0x61, 0xE9, 0, 0]), "an 8-bit string with the byte 233 at byte 9, which is not ASCII"),
            (oldPropertyList(length: 3, [0xFF, 0xFE, 0x41, 0]), "a UTF-16 string of 3 bytes, not an even number from 2"),
            (oldPropertyList(length: 4, [0x41, 0x00, 0x42, 0x00]), "a UTF-16 string without a byte-order mark at byte 8"),
            (oldPropertyList(length: 4, [0xFF, 0xFE, 0x00, 0xD8]), "a UTF-16 string at byte 8 with an unpaired surrogate"),
        ]
        for (bytes, message) in cases {
            let error = #expect(throws: TypedstreamError.self) { try oldPropertyListString(bytes) }
            #expect(error?.message == message, "\(bytes)")
        }
    }

    /// An NSFont in a real typedstream whose name's length word says 2^31 or 2^32 - 1: the unarchiver throws
    /// a ``TypedstreamError`` naming the length and its byte, where it once trapped on a 32-bit `Int`.
    @Test(arguments: [UInt32(0x8000_0000), UInt32(0xFFFF_FFFF)])
    func aTypedstreamFontWithAHugeNameLengthThrows(length: UInt32) throws {
        let font = ArchivedFont(name: "Lucida Grande", size: 13, flags: 0x8000_0010)
        let data = try TypedstreamArchiver().archivedData(withRootValue: .font(font))
        #expect(try TypedstreamUnarchiver().foundationValue(from: data) == .font(font), "flags with the top bit set read back")
        // The name: type 6, length 28 (a byte-order mark and 13 UTF-16 units), the mark FF FE.
        var bytes = [UInt8](data)
        let header: [UInt8] = [6, 0, 0, 0, 28, 0, 0, 0, 0xFF, 0xFE]
        let at = try #require(bytes.indices.first { bytes[$0...].starts(with: header) })
        bytes.replaceSubrange(at + 4 ..< at + 8, with: withUnsafeBytes(of: length.littleEndian, Array.init))
        let error = #expect(throws: TypedstreamError.self) { try TypedstreamUnarchiver().foundationValue(from: Data(bytes)) }
        #expect(error?.code == .dataCorrupted)
        #expect(error?.message.contains("the length \(length) at byte 4 is past the 28 bytes that follow it") == true, "\(String(describing: error))")
    }
}

/// UTF-16 validation without `String(validating:as:)` (macOS 15, iOS 18): nil exactly for an unpaired
/// surrogate, as that initializer gives.
@Suite struct ValidUTF16Tests {
    @Test func validUTF16IsDecoded() {
        #expect(validUTF16([]) == "")
        #expect(validUTF16([0x0068, 0x00E9]) == "hé")
        #expect(validUTF16([0xD83D, 0xDE00, 0x0021]) == "😀!")
        #expect(validUTF16([0xFEFF, 0x0041]) == "\u{FEFF}A", "a byte-order mark inside the text is a character")
        #expect(validUTF16([0xFFFF]) == "\u{FFFF}", "a noncharacter is valid UTF-16")
    }

    @Test(arguments: [[UInt16(0xD800)], [0xDC00], [0x0041, 0xD83D], [0xDE00, 0xD83D], [0xD83D, 0x0041], [0xD800, 0xD800, 0xDC00]])
    func anUnpairedSurrogateIsRefused(units: [UInt16]) {
        #expect(validUTF16(units) == nil)
    }

    /// The same verdicts as `String(validating:as:)` where this platform has it.
    @Test func validUTF16AgreesWithTheStandardLibrary() {
        guard #available(macOS 15, iOS 18, tvOS 18, watchOS 11, *) else { return }
        let samples: [[UInt16]] = [[], [0x41], [0xD800], [0xDC00], [0xD83D, 0xDE00], [0xDE00, 0xD83D], [0xFFFE, 0xD7FF, 0xE000]]
        for units in samples {
            #expect(validUTF16(units) == String(validating: units, as: UTF16.self), "\(units)")
        }
    }
}
