#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A parsed JSON document that keeps what typed JSON needs: a number's text (so `1` and `1.0` stay apart and
/// a 64-bit integer stays exact) and an object's keys in order. Nesting is at most
/// the scanner's `maximumDepth` deep, so recursion over it is bounded.
indirect enum JSONValue: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.number(let a), .number(let b)), (.string(let a), .string(let b)): return a == b
        case (.array(let a), .array(let b)): return a == b
        case (.object(let a), .object(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }

    /// A short name of the kind, for error messages.
    var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "Boolean"
        case .number: return "number"
        case .string: return "string"
        case .array: return "array"
        case .object: return "object"
        }
    }
}

extension PropertyListError.Code {
    /// The text is not JSON, or not the typed JSON a property list or archive is written as: the message says
    /// what was found, the location gives the byte offset or the key path.
    public static let invalidJSON = PropertyListError.Code("invalidJSON")
}

/// Parses JSON text (RFC 8259) into ``JSONValue``, iteratively, with a depth limit.
struct JSONScanner {
    private let bytes: [UInt8]
    private var position = 0
    private let maximumDepth: Int
    /// Whether a key repeated in one object is kept (both entries stay in the object, the later value
    /// wins when it becomes a dictionary) rather than refused.
    private let keepsRepeatedKeys: Bool

    /// A scanner of `data` that refuses nesting deeper than `maximumDepth` and, unless `keepsRepeatedKeys`,
    /// a key repeated in one object.
    init(_ data: Data, maximumDepth: Int, keepsRepeatedKeys: Bool = false) {
        bytes = Array(data)
        self.maximumDepth = maximumDepth
        self.keepsRepeatedKeys = keepsRepeatedKeys
    }

    private func error(_ message: String, at offset: Int? = nil) -> PropertyListError {
        PropertyListError(.invalidJSON, message, at: .init(byteOffset: offset ?? position))
    }

    /// The document: one value, with only whitespace around it.
    mutating func parse() throws -> JSONValue {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { position = 3 }
        // The containers being filled, innermost last (a class, so that appending never copies the elements).
        final class Frame {
            let isObject: Bool
            var items: [JSONValue] = []
            var keys: [String] = []
            var keySet: Set<String> = []
            /// The key of the object's next value, once read.
            var pendingKey: String?
            init(isObject: Bool) { self.isObject = isObject }
        }
        var frames: [Frame] = []
        var result: JSONValue?
        while result == nil {
            skipWhitespace()
            // A value, or the end of the innermost container.
            var value: JSONValue?
            if let frame = frames.last, !frame.isObject, peek() == UInt8(ascii: "]") {
                position += 1
                frames.removeLast()
                value = .array(frame.items)
            } else if let frame = frames.last, frame.isObject, frame.pendingKey == nil, peek() == UInt8(ascii: "}") {
                position += 1
                frames.removeLast()
                value = .object(zip(frame.keys, frame.items).map { (key: $0, value: $1) })
            } else {
                if let frame = frames.last, frame.isObject, frame.pendingKey == nil {
                    // A key, then a colon.
                    let keyOffset = position
                    let key = try string()
                    guard frame.keySet.insert(key).inserted || keepsRepeatedKeys else {
                        throw error("the object has the key \"\(key)\" twice", at: keyOffset)
                    }
                    skipWhitespace()
                    try expect(UInt8(ascii: ":"))
                    frame.pendingKey = key
                    continue
                }
                switch peek() {
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    guard frames.count < maximumDepth else {
                        throw error("JSON nested deeper than \(maximumDepth) levels")
                    }
                    frames.append(Frame(isObject: peek() == UInt8(ascii: "{")))
                    position += 1
                    continue
                case UInt8(ascii: "\""): value = .string(try string())
                case UInt8(ascii: "t"): try literal("true"); value = .bool(true)
                case UInt8(ascii: "f"): try literal("false"); value = .bool(false)
                case UInt8(ascii: "n"): try literal("null"); value = .null
                case nil: throw error("the text ends where a value should be")
                default: value = .number(try number())
                }
            }
            guard let done = value else { continue }
            // Add the value to its container and read the separator after it.
            guard let frame = frames.last else {
                result = done
                break
            }
            skipWhitespace()
            frame.items.append(done)
            if let key = frame.pendingKey {
                frame.keys.append(key)
                frame.pendingKey = nil
            }
            let close = frame.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
            if peek() == UInt8(ascii: ",") {
                position += 1
                skipWhitespace()
                if frame.isObject ? peek() != UInt8(ascii: "\"") : peek() == close {
                    throw error(frame.isObject ? "expected a key after ," : "a comma before ]")
                }
            } else if peek() != close {
                throw error(frame.isObject ? "expected , or } after an object member" : "expected , or ] after an array element")
            }
        }
        skipWhitespace()
        guard position == bytes.count else { throw error("text after the JSON value") }
        return result ?? .null
    }

    private func peek() -> UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while let b = peek(), b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D { position += 1 }
    }

    private mutating func expect(_ byte: UInt8) throws {
        guard peek() == byte else { throw error("expected \(String(UnicodeScalar(byte)))") }
        position += 1
    }

    private mutating func literal(_ word: String) throws {
        let utf8 = Array(word.utf8)
        guard bytes.count - position >= utf8.count, Array(bytes[position ..< position + utf8.count]) == utf8 else {
            throw error("not a JSON value")
        }
        position += utf8.count
    }

    /// A number's text, checked against JSON's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func number() throws -> String {
        let start = position
        func digits() -> Int {
            let from = position
            while let b = peek(), b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") { position += 1 }
            return position - from
        }
        if peek() == UInt8(ascii: "-") { position += 1 }
        let integerStart = position
        let integerDigits = digits()
        guard integerDigits > 0 else { throw error("not a JSON value", at: start) }
        if integerDigits > 1 && bytes[integerStart] == UInt8(ascii: "0") { throw error("a number with a leading zero", at: start) }
        if peek() == UInt8(ascii: ".") {
            position += 1
            guard digits() > 0 else { throw error("a number without digits after its point", at: start) }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            position += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { position += 1 }
            guard digits() > 0 else { throw error("a number without digits in its exponent", at: start) }
        }
        return String(decoding: bytes[start ..< position], as: UTF8.self)
    }

    /// A string (the opening quote at `position`), escapes decoded; an unpaired surrogate is an error.
    private mutating func string() throws -> String {
        let start = position
        try expect(UInt8(ascii: "\""))
        var out: [UInt8] = []
        while true {
            guard let b = peek() else { throw error("a string without its closing quote", at: start) }
            position += 1
            switch b {
            case UInt8(ascii: "\""):
                guard let s = validatedUTF8String(out) else { throw error("a string that is not UTF-8", at: start) }
                return s
            case UInt8(ascii: "\\"):
                guard let e = peek() else { throw error("a string without its closing quote", at: start) }
                position += 1
                switch e {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(e)
                case UInt8(ascii: "b"): out.append(0x08)
                case UInt8(ascii: "f"): out.append(0x0C)
                case UInt8(ascii: "n"): out.append(0x0A)
                case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "t"): out.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800 ..< 0xDC00).contains(scalar) {
                        guard peek() == UInt8(ascii: "\\"), position + 1 < bytes.count, bytes[position + 1] == UInt8(ascii: "u") else {
                            throw error("an unpaired surrogate \\u\(String(scalar, radix: 16))")
                        }
                        position += 2
                        let low = try hex4()
                        guard (0xDC00 ..< 0xE000).contains(low) else { throw error("an unpaired surrogate \\u\(String(scalar, radix: 16))") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00 ..< 0xE000).contains(scalar) {
                        throw error("an unpaired surrogate \\u\(String(scalar, radix: 16))")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw error("an invalid \\u escape") }
                    out.append(contentsOf: Array(String(Character(unicode)).utf8))
                default: throw error("an invalid escape \\\(String(UnicodeScalar(e)))")
                }
            default:
                guard b >= 0x20 else { throw error("a control character inside a string") }
                out.append(b)
            }
        }
    }

    private mutating func hex4() throws -> UInt32 {
        guard bytes.count - position >= 4 else { throw error("a \\u escape without four hex digits") }
        var value: UInt32 = 0
        for _ in 0 ..< 4 {
            let b = bytes[position]
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0") ... UInt8(ascii: "9"): digit = b - UInt8(ascii: "0")
            case UInt8(ascii: "a") ... UInt8(ascii: "f"): digit = b - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A") ... UInt8(ascii: "F"): digit = b - UInt8(ascii: "A") + 10
            default: throw error("a \\u escape without four hex digits")
            }
            value = value << 4 | UInt32(digit)
            position += 1
        }
        return value
    }
}
