/// One Objective-C type of a typedstream group's encoding string, parsed.
///
/// The syntax is the Objective-C runtime's, restricted to what typedstreams store (as pytypedstream's
/// `encodings.py` and the corpus show): one character for a scalar (`c C s S i I l L q Q f d B * % : + # @ !`),
/// `[N type]` for a C array, `{name=types}` (or `{types}`) for a struct.
///
/// Only the array case is indirect (boxed): a scalar, the type of nearly every value read, is then a plain
/// byte that is copied without reference counting.
enum TypedstreamTypeEncoding: Hashable, Sendable {
    case scalar(UInt8)
    indirect case array(count: Int, element: TypedstreamTypeEncoding)
    case structure(fields: [TypedstreamTypeEncoding])

    /// Whether `code` is one of the scalar type characters a typedstream stores (`cCsSiIlLqQfdB*%:+#@!`).
    static func isScalarCode(_ code: UInt8) -> Bool {
        switch code {
        case UInt8(ascii: "c"), UInt8(ascii: "C"), UInt8(ascii: "s"), UInt8(ascii: "S"), UInt8(ascii: "i"), UInt8(ascii: "I"),
             UInt8(ascii: "l"), UInt8(ascii: "L"), UInt8(ascii: "q"), UInt8(ascii: "Q"), UInt8(ascii: "f"), UInt8(ascii: "d"),
             UInt8(ascii: "B"), UInt8(ascii: "*"), UInt8(ascii: "%"), UInt8(ascii: ":"), UInt8(ascii: "+"), UInt8(ascii: "#"),
             UInt8(ascii: "@"), UInt8(ascii: "!"):
            return true
        default:
            return false
        }
    }

    /// The deepest nesting of arrays and structs accepted in one encoding string. Apple's encodings nest a
    /// few levels (`{_NSRect={_NSPoint=ff}{_NSSize=ff}}`); the bound keeps parsing and writing, which
    /// recurse over the nesting, far from any stack's end.
    static let maximumNesting = 64

    /// Whether a value of this type takes no bytes (`!`, or structs and arrays of nothing else): an array of
    /// such values would cost memory without costing input, so reading refuses one.
    var storesNothing: Bool {
        switch self {
        case .scalar(let code): return code == UInt8(ascii: "!")
        case .array(let count, let element): return count == 0 || element.storesNothing
        case .structure(let fields): return fields.allSatisfy(\.storesNothing)
        }
    }

    /// The type as encoding text (a struct without its name: `{ff}`).
    var text: String {
        switch self {
        case .scalar(let code): return String(Character(Unicode.Scalar(code)))
        case .array(let count, let element): return "[\(count)\(element.text)]"
        case .structure(let fields): return "{" + fields.map(\.text).joined() + "}"
        }
    }

    /// An encoding string cut into the text of each of its types (`"@i{_NSPoint=ff}"` → `["@", "i",
    /// "{_NSPoint=ff}"]`), by bracket depth only; ``parseList(_:)`` checks the syntax.
    static func split(_ encoding: String) -> [String] {
        var result: [String] = []
        var current = ""
        var depth = 0
        for character in encoding {
            current.append(character)
            if character == "[" || character == "{" { depth += 1 }
            if character == "]" || character == "}" { depth -= 1 }
            if depth <= 0 {
                result.append(current)
                current = ""
                depth = 0
            }
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    /// The types of an encoding string, in order.
    ///
    /// - Throws: a description of the fault (the caller adds where): an unknown type character, an array
    ///   without a count or element type, an unclosed bracket or brace, nesting past ``maximumNesting``.
    static func parseList(_ bytes: [UInt8]) throws(TypedstreamEncodingFault) -> [TypedstreamTypeEncoding] {
        var position = 0
        var types: [TypedstreamTypeEncoding] = []
        while position < bytes.count {
            types.append(try parseOne(bytes, &position, depth: 0))
        }
        return types
    }

    private static func parseOne(_ bytes: [UInt8], _ position: inout Int, depth: Int) throws(TypedstreamEncodingFault)
        -> TypedstreamTypeEncoding {
        guard depth < maximumNesting else { throw TypedstreamEncodingFault("nests deeper than \(maximumNesting) levels") }
        guard position < bytes.count else { throw TypedstreamEncodingFault("ends inside a type") }
        let code = bytes[position]
        position += 1
        switch code {
        case UInt8(ascii: "["):
            var count = 0
            var digits = 0
            while position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9") {
                let (times, overflow) = count.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times.addingReportingOverflow(Int(bytes[position] - UInt8(ascii: "0")))
                guard !overflow, !overflow2, sum <= Int(Int32.max) else {
                    throw TypedstreamEncodingFault("array count is larger than \(Int32.max)")
                }
                count = sum
                digits += 1
                position += 1
            }
            guard digits > 0 else { throw TypedstreamEncodingFault("array type without a count") }
            guard position < bytes.count, bytes[position] != UInt8(ascii: "]") else {
                throw TypedstreamEncodingFault("array type without an element type")
            }
            let element = try parseOne(bytes, &position, depth: depth + 1)
            guard position < bytes.count, bytes[position] == UInt8(ascii: "]") else {
                throw TypedstreamEncodingFault("array type without its closing ']'")
            }
            position += 1
            return .array(count: count, element: element)
        case UInt8(ascii: "{"):
            // The name runs to '=' unless a field starts first (`{{foo=ii}}` is an unnamed struct).
            var scan = position
            while scan < bytes.count, bytes[scan] != UInt8(ascii: "="), bytes[scan] != UInt8(ascii: "}"),
                  bytes[scan] != UInt8(ascii: "{"), bytes[scan] != UInt8(ascii: "[") {
                scan += 1
            }
            if scan < bytes.count, bytes[scan] == UInt8(ascii: "=") { position = scan + 1 }
            var fields: [TypedstreamTypeEncoding] = []
            while position < bytes.count, bytes[position] != UInt8(ascii: "}") {
                fields.append(try parseOne(bytes, &position, depth: depth + 1))
            }
            guard position < bytes.count else { throw TypedstreamEncodingFault("struct type without its closing '}'") }
            position += 1
            return .structure(fields: fields)
        default:
            guard isScalarCode(code) else {
                throw TypedstreamEncodingFault("unknown type character \(describeByte(code))")
            }
            return .scalar(code)
        }
    }
}

/// Why an encoding string could not be parsed (the reader and the writer add where).
struct TypedstreamEncodingFault: Error {
    var message: String
    init(_ message: String) { self.message = message }
}

/// A byte as a quoted ASCII character when printable, else in hex (`'q'`, `0x87`).
func describeByte(_ byte: UInt8) -> String {
    (0x21 ... 0x7E).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "0x" + String(byte, radix: 16, uppercase: true)
}
