#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// Reads JSON (RFC 8259) as a property list, as `plutil` reads a JSON file or a `-json` value: objects
/// become dictionaries (keys in the order written; a repeated key keeps its last value), arrays arrays,
/// strings strings, `true`/`false` booleans. A number written without `.`, `e` or `E` that fits in 64 bits
/// (signed or unsigned) is an integer, any other number a real, as Foundation's `JSONSerialization` tells
/// them apart. `null` has no property-list form and is refused, with where it is.
///
/// The parser is iterative (an explicit stack of open containers), so nesting depth costs heap, not
/// call stack; it stops at ``maximumDepth`` levels as `JSONSerialization` does (512).
struct JSONPropertyListReader {
    /// The deepest nesting accepted.
    static let maximumDepth = 512

    /// A JSON fault: what was wrong and the 1-based line and column where.
    struct Failure: Error, CustomStringConvertible {
        var message: String
        var line: Int
        var column: Int
        var description: String { "JSON: line \(line), column \(column): \(message)" }
    }

    private let bytes: [UInt8]
    private var position = 0

    /// Reads `data` as one JSON value (a fragment, such as `"text"` or `12`, too).
    /// - Throws: ``Failure`` naming the line and column of the first fault.
    static func read(_ data: Data) throws(Failure) -> PropertyListValue {
        var reader = JSONPropertyListReader(bytes: Array(data))
        return try reader.readDocument()
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// A container being read: its elements or entries so far (and, for an object, the key of the value
    /// being read).
    private enum OpenContainer {
        case array([PropertyListValue])
        case object(PropertyListDictionary, key: String)
    }

    private mutating func readDocument() throws(Failure) -> PropertyListValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        var stack: [OpenContainer] = []
        var value: PropertyListValue
        reading: while true {
            skipWhitespace()
            // A value starts here: a container opens, or a scalar is read whole.
            switch peek() {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard stack.count < Self.maximumDepth else { throw failure("nesting deeper than \(Self.maximumDepth) levels") }
                let isObject = peek() == UInt8(ascii: "{")
                position += 1
                skipWhitespace()
                if peek() == UInt8(ascii: isObject ? "}" : "]") {
                    position += 1
                    value = isObject ? .dictionary([:]) : .array([])
                } else {
                    stack.append(isObject ? .object([:], key: try readMemberKey()) : .array([]))
                    continue reading
                }
            default:
                value = try readScalar()
            }
            // The value is complete: add it to its container; a container that ends here is complete in turn.
            while let open = stack.popLast() {
                skipWhitespace()
                switch open {
                case .array(var elements):
                    elements.append(value)
                    if peek() == UInt8(ascii: ",") {
                        position += 1
                        stack.append(.array(elements))
                        continue reading
                    }
                    guard peek() == UInt8(ascii: "]") else { throw failure("expected ',' or ']' after an array element") }
                    position += 1
                    value = .array(elements)
                case .object(var entries, let key):
                    entries[key] = value
                    if peek() == UInt8(ascii: ",") {
                        position += 1
                        stack.append(.object(entries, key: try readMemberKey()))
                        continue reading
                    }
                    guard peek() == UInt8(ascii: "}") else { throw failure("expected ',' or '}' after an object member") }
                    position += 1
                    value = .dictionary(entries)
                }
            }
            break reading
        }
        skipWhitespace()
        guard position == bytes.count else { throw failure("unexpected text after the JSON value") }
        return value
    }

    /// An object member's key and the `:` after it.
    private mutating func readMemberKey() throws(Failure) -> String {
        skipWhitespace()
        let key = try readString()
        skipWhitespace()
        try expect(UInt8(ascii: ":"))
        return key
    }

    private func peek() -> UInt8? {
        position < bytes.count ? bytes[position] : nil
    }

    private mutating func skipWhitespace() {
        while let byte = peek(), byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { position += 1 }
    }

    private mutating func expect(_ byte: UInt8) throws(Failure) {
        guard peek() == byte else { throw failure("expected '\(Character(Unicode.Scalar(byte)))'") }
        position += 1
    }

    /// A failure at the current position.
    private func failure(_ message: String) -> Failure {
        var line = 1, column = 1
        for byte in bytes[..<min(position, bytes.count)] {
            if byte == 0x0A { line += 1; column = 1 } else if byte & 0xC0 != 0x80 { column += 1 }
        }
        let found = peek().map { $0 >= 0x21 && $0 < 0x7F ? " (found '\(Character(Unicode.Scalar($0)))')" : "" } ?? " (found the end)"
        return Failure(message: message + found, line: line, column: column)
    }

    private mutating func readScalar() throws(Failure) -> PropertyListValue {
        guard let byte = peek() else { throw failure("expected a JSON value") }
        switch byte {
        case UInt8(ascii: "\""): return .string(try readString())
        case UInt8(ascii: "t"): try readWord("true"); return .bool(true)
        case UInt8(ascii: "f"): try readWord("false"); return .bool(false)
        case UInt8(ascii: "n"):
            try readWord("null")
            position -= 4
            throw failure("null has no property-list equivalent")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try readNumber()
        default: throw failure("expected a JSON value")
        }
    }

    private mutating func readWord(_ word: String) throws(Failure) {
        let expected = Array(word.utf8)
        guard bytes[position...].starts(with: expected) else { throw failure("expected a JSON value") }
        position += expected.count
    }

    /// A number, in JSON's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func readNumber() throws(Failure) -> PropertyListValue {
        let start = position
        func digits() -> Int {
            let first = position
            while let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { position += 1 }
            return position - first
        }
        if peek() == UInt8(ascii: "-") { position += 1 }
        let integerStart = position
        guard digits() > 0 else { throw failure("a number needs digits") }
        if bytes[integerStart] == UInt8(ascii: "0"), position - integerStart > 1 {
            position = integerStart
            throw failure("a number cannot start with 0")
        }
        var isReal = false
        if peek() == UInt8(ascii: ".") {
            position += 1
            isReal = true
            guard digits() > 0 else { throw failure("a decimal point needs digits after it") }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            position += 1
            isReal = true
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { throw failure("an exponent needs digits") }
        }
        let text = String(decoding: bytes[start..<position], as: UTF8.self)
        if !isReal {
            if let signed = Int64(text) { return .integer(PropertyListInteger(signed)) }
            if let unsigned = UInt64(text), let value = PropertyListValue.integer(exactly: unsigned) { return value }
        }
        guard let real = Double(text), real.isFinite else {
            position = start
            throw failure("the number \(text) does not fit in a 64-bit real")
        }
        return .real(real)
    }

    /// A string: `"` then characters and escapes up to the closing `"`; UTF-16 surrogate pairs escaped
    /// as `\uD83D\uDE00` join into one character.
    private mutating func readString() throws(Failure) -> String {
        guard peek() == UInt8(ascii: "\"") else { throw failure("expected a string") }
        position += 1
        var utf8: [UInt8] = []
        while true {
            guard let byte = peek() else { throw failure("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                guard let string = String(validating: utf8, as: UTF8.self) else {
                    throw failure("a string that is not valid UTF-8")
                }
                return string
            case UInt8(ascii: "\\"):
                position += 1
                guard let escape = peek() else { throw failure("unterminated string") }
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try readHex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard bytes[position...].starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "u")]) else {
                            throw failure("a lone UTF-16 surrogate in a \\u escape")
                        }
                        position += 2
                        let low = try readHex4()
                        guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone UTF-16 surrogate in a \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw failure("a lone UTF-16 surrogate in a \\u escape") }
                    utf8.append(contentsOf: Array(String(Character(unicode)).utf8))
                default:
                    position -= 1
                    throw failure("an unknown escape in a string")
                }
            case 0x00..<0x20:
                throw failure("a control character in a string must be escaped")
            default:
                utf8.append(byte)
                position += 1
            }
        }
    }

    private mutating func readHex4() throws(Failure) -> UInt32 {
        guard position + 4 <= bytes.count else { throw failure("a \\u escape needs 4 hex digits") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = peek().flatMap({ Character(Unicode.Scalar($0)).hexDigitValue }) else {
                throw failure("a \\u escape needs 4 hex digits")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }
}
