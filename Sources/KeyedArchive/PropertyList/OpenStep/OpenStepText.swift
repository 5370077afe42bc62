#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The text of an OpenStep property list as UTF-16 code units (the units CoreFoundation's parser,
/// CFOldStylePList.c, reads), decoded from UTF-8 (with or without a byte-order mark) or from UTF-16 with
/// a byte-order mark, and the way back from a unit's index to its byte offset in the input.
///
/// CoreFoundation decodes the whole file before parsing it and fails when it does not decode ("Conversion
/// of string failed"); its UTF-8 converter takes some malformed sequences (bytes 0xA9 in a comment) and
/// swallows the bytes after others (`"caf\xE9"` then fails as an unterminated string). This reader refuses
/// any byte that is not UTF-8, at its offset, rather than guess.
struct OpenStepText {
    enum Encoding: Equatable {
        case utf8(byteOrderMarkLength: Int)
        case utf16(bigEndian: Bool)
    }

    var units: [UInt16]
    var encoding: Encoding

    /// The encoding `data` announces: a UTF-16 byte-order mark, else UTF-8 (after its byte-order mark, if any).
    static func encoding(of data: Data) -> Encoding {
        if data.starts(with: [0xFE, 0xFF]) { return .utf16(bigEndian: true) }
        if data.starts(with: [0xFF, 0xFE]) { return .utf16(bigEndian: false) }
        return .utf8(byteOrderMarkLength: data.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0)
    }

    /// Decodes `data`.
    ///
    /// A UTF-16 text of an odd number of bytes is read without its last byte, as CoreFoundation's
    /// converter reads it (Foundation on Linux reads `FF FE 28 00 29 00 41` as the array `()`).
    ///
    /// - Throws: ``PropertyListError/Code/invalidOpenStep`` for bytes that are not UTF-8 (at the first one).
    init(_ data: Data) throws {
        encoding = Self.encoding(of: data)
        switch encoding {
        case .utf16(let bigEndian):
            units = data.withUnsafeBytes { raw in
                let body = UnsafeRawBufferPointer(rebasing: raw[2...])
                return (0 ..< body.count / 2).map { i in
                    bigEndian ? UInt16(body[2 * i]) << 8 | UInt16(body[2 * i + 1]) : UInt16(body[2 * i + 1]) << 8 | UInt16(body[2 * i])
                }
            }
        case .utf8(let skip):
            // CoreFoundation takes a zero first or second byte (in more than two bytes) for UTF-16 without a
            // byte-order mark (CFPropertyList.c, encodingForXMLData) and reads the text from its third byte:
            // such text is refused here rather than guessed at.
            if skip == 0, data.count > 2, let zero = data.prefix(2).firstIndex(of: 0) {
                throw PropertyListError(.invalidOpenStep, "a zero byte at the start: UTF-16 text needs a byte-order mark",
                                        at: .init(byteOffset: zero - data.startIndex))
            }
            let body = data.dropFirst(skip)
            if let text = validatedUTF8String(body) {
                units = Array(text.utf16)
            } else {
                throw PropertyListError(.invalidOpenStep, "a byte that is not UTF-8 (OpenStep text is UTF-8 or UTF-16 with a byte-order mark)",
                                        at: .init(byteOffset: skip + Self.firstInvalidUTF8Offset(body)))
            }
        }
    }

    /// The offset (from the start of `bytes`) of the first byte of the first sequence that is not UTF-8.
    static func firstInvalidUTF8Offset(_ bytes: Data.SubSequence) -> Int {
        var parser = Unicode.UTF8.ForwardParser()
        var iterator = bytes.makeIterator()
        var offset = 0
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let scalar): offset += scalar.count
            case .emptyInput, .error: return offset
            }
        }
    }

    /// The byte offset in the input of the unit at `index` (`units.count`: the end).
    func byteOffset(ofUnit index: Int) -> Int {
        switch encoding {
        case .utf16: return 2 + 2 * index
        case .utf8(let skip):
            var bytes = skip
            var i = 0
            while i < min(index, units.count) {
                let unit = units[i]
                if unit < 0x80 {
                    bytes += 1
                } else if unit < 0x800 {
                    bytes += 2
                } else if UTF16.isLeadSurrogate(unit) {
                    bytes += 4  // with its trail surrogate: valid UTF-8 input has no lone surrogate
                    i += 1
                } else {
                    bytes += 3
                }
                i += 1
            }
            return bytes
        }
    }
}

/// Whether bytes are an OpenStep property list rather than XML or nothing at all, judged from the first
/// character that is not whitespace or a comment, as `PropertyListValue(propertyListData:)` routes them.
enum OpenStepRecognition {
    /// `true` when `data` (not binary) holds only whitespace and comments (an empty `.strings` file: an
    /// empty dictionary, as CoreFoundation reads it), or when its first character starts an OpenStep value
    /// (`{`, `(`, a quote, an unquoted-string character), or is `<` followed by hex digits, whitespace and
    /// characters past ASCII up to a `>` (data; no XML property list starts so: its first tag's name has an
    /// ASCII letter past `f`).
    static func recognizes(_ data: Data) -> Bool {
        guard !data.isEmpty else { return false }
        let encoding = OpenStepText.encoding(of: data)
        return data.withUnsafeBytes { raw in
            let unitCount: Int, unit: (Int) -> UInt16
            switch encoding {
            case .utf16(let bigEndian):
                unitCount = (raw.count - 2) / 2
                unit = { i in bigEndian ? UInt16(raw[2 + 2 * i]) << 8 | UInt16(raw[3 + 2 * i]) : UInt16(raw[3 + 2 * i]) << 8 | UInt16(raw[2 + 2 * i]) }
            case .utf8(let skip):
                // The bytes as units: whitespace, comment markers and the characters that decide are ASCII;
                // U+2028 and U+2029 (E2 80 A8/A9) are whitespace, taken as three units here.
                unitCount = raw.count - skip
                unit = { i in
                    let byte = raw[skip + i]
                    guard byte >= 0x80 else { return UInt16(byte) }
                    for start in max(skip, skip + i - 2) ... skip + i where start + 2 < raw.count
                        && raw[start] == 0xE2 && raw[start + 1] == 0x80 && raw[start + 2] & 0xFE == 0xA8 {
                        return 0x2028
                    }
                    return UInt16(byte)
                }
            }
            var cursor = OpenStepCursor(count: unitCount, unit: unit)
            guard let first = cursor.skipWhitespaceAndComments() else { return true }
            if first != UInt16(ascii: "<") { return OpenStepCharacters.startsValue(first) }
            var i = cursor.position + 1
            while i < unitCount {
                let c = unit(i)
                if c == UInt16(ascii: ">") { return true }
                // A byte past ASCII is part of a character whose UTF-16 unit may read as a hex digit
                // (``OpenStepCharacters/dataHexValue(_:)``): the OpenStep reader decides.
                guard OpenStepCharacters.dataHexValue(c) != nil || OpenStepCharacters.isDataWhitespace(c) || c >= 0x80 else { return false }
                i += 1
            }
            return true  // an unterminated data value: the OpenStep reader says so
        }
    }
}

/// A position in UTF-16 units with CoreFoundation's whitespace and comment rules, over any unit source.
struct OpenStepCursor {
    var count: Int
    var unit: (Int) -> UInt16
    var position = 0

    /// Skips whitespace, `//` comments (to the end of the line) and `/* */` comments (an unterminated one
    /// runs to the end, as in CoreFoundation), and returns the unit it stopped at, or nil at the end.
    mutating func skipWhitespaceAndComments() -> UInt16? {
        while position < count {
            let c = unit(position)
            if OpenStepCharacters.isWhitespace(c) {
                position += 1
            } else if c == UInt16(ascii: "/"), position + 1 < count, unit(position + 1) == UInt16(ascii: "/") {
                position += 2
                while position < count, !OpenStepCharacters.endsLine(unit(position)) { position += 1 }
            } else if c == UInt16(ascii: "/"), position + 1 < count, unit(position + 1) == UInt16(ascii: "*") {
                position += 2
                while position < count, !(unit(position) == UInt16(ascii: "*") && position + 1 < count && unit(position + 1) == UInt16(ascii: "/")) {
                    position += 1
                }
                position = min(count, position + 2)
            } else {
                return c
            }
        }
        return nil
    }
}

/// The character classes of CFOldStylePList.c.
enum OpenStepCharacters {
    /// Tab, line feed, vertical tab, form feed, carriage return, space, U+2028, U+2029.
    static func isWhitespace(_ c: UInt16) -> Bool { (9 ... 13).contains(c) || c == 0x20 || c == 0x2028 || c == 0x2029 }

    /// What ends a `//` comment: line feed, carriage return, U+2028, U+2029.
    static func endsLine(_ c: UInt16) -> Bool { c == 0x0A || c == 0x0D || c == 0x2028 || c == 0x2029 }

    /// Whitespace inside `<...>` data: space, line feed, tab, carriage return, U+2028, U+2029 (not vertical
    /// tab or form feed).
    static func isDataWhitespace(_ c: UInt16) -> Bool { c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D || c == 0x2028 || c == 0x2029 }

    /// Letters, digits, `_ $ / : . -`: the characters of an unquoted string.
    static func isUnquoted(_ c: UInt16) -> Bool {
        switch c {
        case 0x61 ... 0x7A, 0x41 ... 0x5A, 0x30 ... 0x39: return true
        case UInt16(ascii: "_"), UInt16(ascii: "$"), UInt16(ascii: "/"), UInt16(ascii: ":"), UInt16(ascii: "."), UInt16(ascii: "-"): return true
        default: return false
        }
    }

    /// Whether `c` starts a value: `{`, `(`, `<`, a quote, or an unquoted-string character.
    static func startsValue(_ c: UInt16) -> Bool {
        c == UInt16(ascii: "{") || c == UInt16(ascii: "(") || c == UInt16(ascii: "<") || isQuote(c) || isUnquoted(c)
    }

    static func isQuote(_ c: UInt16) -> Bool { c == UInt16(ascii: "\"") || c == UInt16(ascii: "'") }

    /// The value of a hex digit inside data (`<...>`): the digit that `c`'s low byte is, as CoreFoundation
    /// reads data (CFOldStylePList.c `getDataBytes` passes each UTF-16 unit to `fromHexDigit` as an
    /// `unsigned char`), so that U+0530, say, is the digit 0 there, as in Foundation on Linux.
    static func dataHexValue(_ c: UInt16) -> UInt8? {
        hexValue(c & 0xFF)
    }

    /// The value of an ASCII hex digit.
    static func hexValue(_ c: UInt16) -> UInt8? {
        switch c {
        case 0x30 ... 0x39: return UInt8(c - 0x30)
        case 0x41 ... 0x46: return UInt8(c - 0x41 + 10)
        case 0x61 ... 0x66: return UInt8(c - 0x61 + 10)
        default: return nil
        }
    }
}

extension UInt16 {
    /// The UTF-16 unit of an ASCII character (as `UInt8(ascii:)` gives its byte).
    init(ascii scalar: Unicode.Scalar) { self = UInt16(truncatingIfNeeded: scalar.value) }
}
