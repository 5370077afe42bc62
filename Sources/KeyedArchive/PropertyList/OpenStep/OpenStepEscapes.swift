/// The backslash escapes of a quoted OpenStep string, as CoreFoundation's CFOldStylePList.c reads them
/// (`getSlashedChar`), each giving one UTF-16 unit:
/// - `\` and one to three octal digits: a byte (the value modulo 256) of the NeXTSTEP character set;
/// - `\U` and up to four hex digits (as many as follow; none gives U+0000): a UTF-16 unit, so a surrogate
///   pair is written as two escapes;
/// - `\a \b \f \n \r \t \v`: the C control characters; `\` before a line feed: the line feed;
/// - `\` before any other character: that character (`\"`, `\'`, `\\`).
enum OpenStepEscapes {
    /// The unit the escape at `position` (the unit after the backslash, inside the text) stands for;
    /// advances `position` past it.
    static func unescape(_ units: [UInt16], at position: inout Int) -> UInt16 {
        let c = units[position]
        position += 1
        switch c {
        case 0x30 ... 0x37:
            var byte = UInt8(c - 0x30)
            for _ in 0 ..< 2 {
                guard position < units.count, (0x30 ... 0x37).contains(units[position]) else { break }
                byte = byte &<< 3 &+ UInt8(units[position] - 0x30)
                position += 1
            }
            return byte < 0x80 ? UInt16(byte) : nextStepUpperHalf[Int(byte - 0x80)]
        case UInt16(ascii: "U"):
            var value: UInt16 = 0
            for _ in 0 ..< 4 {
                guard position < units.count, let digit = OpenStepCharacters.hexValue(units[position]) else { break }
                value = value << 4 | UInt16(digit)
                position += 1
            }
            return value
        case UInt16(ascii: "a"): return 0x07
        case UInt16(ascii: "b"): return 0x08
        case UInt16(ascii: "f"): return 0x0C
        case UInt16(ascii: "n"): return 0x0A
        case UInt16(ascii: "r"): return 0x0D
        case UInt16(ascii: "t"): return 0x09
        case UInt16(ascii: "v"): return 0x0B
        default: return c
        }
    }

    /// The NeXTSTEP character set's bytes 0x80-0xFF as Unicode (its lower half is ASCII). Bytes 0xFE and 0xFF
    /// have no character and give U+0000, as CoreFoundation's converter leaves them. Taken from Foundation on
    /// Linux reading `"\200"` ... `"\377"` (`OpenStepReaderTests.octalEscapesAreNeXTSTEPCharacters` checks
    /// every byte against it).
    static let nextStepUpperHalf: [UInt16] = [
        0x00A0, 0x00C0, 0x00C1, 0x00C2, 0x00C3, 0x00C4, 0x00C5, 0x00C7,  // 0x80-0x87
        0x00C8, 0x00C9, 0x00CA, 0x00CB, 0x00CC, 0x00CD, 0x00CE, 0x00CF,  // 0x88-0x8F
        0x00D0, 0x00D1, 0x00D2, 0x00D3, 0x00D4, 0x00D5, 0x00D6, 0x00D9,  // 0x90-0x97
        0x00DA, 0x00DB, 0x00DC, 0x00DD, 0x00DE, 0x00B5, 0x00D7, 0x00F7,  // 0x98-0x9F
        0x00A9, 0x00A1, 0x00A2, 0x00A3, 0x2044, 0x00A5, 0x0192, 0x00A7,  // 0xA0-0xA7
        0x00A4, 0x2019, 0x201C, 0x00AB, 0x2039, 0x203A, 0xFB01, 0xFB02,  // 0xA8-0xAF
        0x00AE, 0x2013, 0x2020, 0x2021, 0x00B7, 0x00A6, 0x00B6, 0x2022,  // 0xB0-0xB7
        0x201A, 0x201E, 0x201D, 0x00BB, 0x2026, 0x2030, 0x00AC, 0x00BF,  // 0xB8-0xBF
        0x00B9, 0x02CB, 0x00B4, 0x02C6, 0x02DC, 0x00AF, 0x02D8, 0x02D9,  // 0xC0-0xC7
        0x00A8, 0x00B2, 0x02DA, 0x00B8, 0x00B3, 0x02DD, 0x02DB, 0x02C7,  // 0xC8-0xCF
        0x2014, 0x00B1, 0x00BC, 0x00BD, 0x00BE, 0x00E0, 0x00E1, 0x00E2,  // 0xD0-0xD7
        0x00E3, 0x00E4, 0x00E5, 0x00E7, 0x00E8, 0x00E9, 0x00EA, 0x00EB,  // 0xD8-0xDF
        0x00EC, 0x00C6, 0x00ED, 0x00AA, 0x00EE, 0x00EF, 0x00F0, 0x00F1,  // 0xE0-0xE7
        0x0141, 0x00D8, 0x0152, 0x00BA, 0x00F2, 0x00F3, 0x00F4, 0x00F5,  // 0xE8-0xEF
        0x00F6, 0x00E6, 0x00F9, 0x00FA, 0x00FB, 0x0131, 0x00FC, 0x00FD,  // 0xF0-0xF7
        0x0142, 0x00F8, 0x0153, 0x00DF, 0x00FE, 0x00FF, 0x0000, 0x0000,  // 0xF8-0xFF
    ]
}
