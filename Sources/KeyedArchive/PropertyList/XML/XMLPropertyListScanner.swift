#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The element names of Apple's plist DTD.
enum XMLPropertyListTag: Sendable {
    case plist, array, dict, key, string, data, date, real, integer, `true`, `false`

    var name: String {
        switch self {
        case .plist: return "plist"
        case .array: return "array"
        case .dict: return "dict"
        case .key: return "key"
        case .string: return "string"
        case .data: return "data"
        case .date: return "date"
        case .real: return "real"
        case .integer: return "integer"
        case .true: return "true"
        case .false: return "false"
        }
    }

    /// The tag whose name is exactly `name`, or `nil`.
    init?(_ name: UnsafeBufferPointer<UInt8>) {
        func equals(_ s: StaticString) -> Bool {
            guard s.utf8CodeUnitCount == name.count else { return false }
            let p = s.utf8Start
            for i in 0..<name.count where p[i] != name[i] { return false }
            return true
        }
        guard let first = name.first else { return nil }
        switch first {
        case UInt8(ascii: "a") where equals("array"): self = .array
        case UInt8(ascii: "d") where equals("dict"): self = .dict
        case UInt8(ascii: "d") where equals("data"): self = .data
        case UInt8(ascii: "d") where equals("date"): self = .date
        case UInt8(ascii: "f") where equals("false"): self = .false
        case UInt8(ascii: "i") where equals("integer"): self = .integer
        case UInt8(ascii: "k") where equals("key"): self = .key
        case UInt8(ascii: "p") where equals("plist"): self = .plist
        case UInt8(ascii: "r") where equals("real"): self = .real
        case UInt8(ascii: "s") where equals("string"): self = .string
        case UInt8(ascii: "t") where equals("true"): self = .true
        default: return nil
        }
    }
}

/// The byte-level scanner behind ``XMLPropertyListReader``: one pass over validated UTF-8, no recursion.
struct XMLPropertyListScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private let end: Int
    private var pos: Int
    private let maximumDepth: Int
    private let maximumObjectCount: Int
    private let fromUTF16: Bool
    private var objectCount = 0
    private var stack: [Frame] = []

    /// An open `<array>` or `<dict>` whose children are being read.
    private struct Frame {
        var isDictionary: Bool
        var values: [PropertyListValue] = []
        var keys: [String] = []
        var pendingKey: String?
        /// Offset of the `<` of the start tag of the pending key (for "key without a value").
        var pendingKeyOffset = 0
    }

    init(bytes: UnsafeBufferPointer<UInt8>, start: Int, options: PropertyListReadingOptions, fromUTF16: Bool) {
        self.bytes = bytes
        self.end = bytes.count
        self.pos = min(start, bytes.count)
        self.maximumDepth = options.maximumDepth
        self.maximumObjectCount = options.maximumObjectCount
        self.fromUTF16 = fromUTF16
    }

    // MARK: - Document

    /// Reads the whole document: prolog, root element, trailing misc.
    mutating func scanDocument() throws -> PropertyListValue {
        let isASCII: Bool
        switch XMLPropertyListScanner.validateUTF8(bytes, from: pos) {
        case .valid(let ascii): isASCII = ascii
        case .invalid(let offset):
            throw error("invalid UTF-8 byte 0x\(String(bytes[offset], radix: 16, uppercase: true))", at: offset)
        }

        // Prolog: XML declaration, comments, processing instructions, one DOCTYPE.
        var sawDoctype = false
        var first = true
        while true {
            skipWhitespace()
            guard pos < end else { throw error("no root element", at: pos) }
            guard bytes[pos] == UInt8(ascii: "<") else {
                throw error("text outside the root element", at: pos)
            }
            if matches("<?") {
                try skipProcessingInstruction(isFirst: first, isASCII: isASCII)
            } else if matches("<!--") {
                try skipComment()
            } else if matches("<!DOCTYPE") {
                guard !sawDoctype else { throw error("a second DOCTYPE", at: pos) }
                sawDoctype = true
                try skipDoctype()
            } else if matches("<!") {
                throw error("markup declaration outside a DOCTYPE", at: pos)
            } else {
                break
            }
            first = false
        }

        let rootOffset = pos
        let (rootTag, rootEmpty) = try scanStartTag()
        let value: PropertyListValue
        if rootTag == .plist {
            guard !rootEmpty else { throw error("empty <plist>: it must hold one value", at: rootOffset) }
            try skipMisc(inside: .plist)
            if matches("</") { throw error("empty <plist>: it must hold one value", at: pos) }
            let valueOffset = pos
            let (tag, isEmpty) = try scanStartTag()
            value = try scanValue(tag, isEmpty: isEmpty, at: valueOffset)
            try skipMisc(inside: .plist)
            guard matches("</") else { throw error("<plist> can hold only one value", at: pos) }
            try scanEndTag(.plist)
        } else {
            value = try scanValue(rootTag, isEmpty: rootEmpty, at: rootOffset)
        }

        // After the root: only whitespace, comments and processing instructions.
        while true {
            skipWhitespace()
            guard pos < end else { return value }
            if matches("<!--") {
                try skipComment()
            } else if matches("<?") {
                try skipProcessingInstruction(isFirst: false, isASCII: isASCII)
            } else if bytes[pos] == UInt8(ascii: "<") {
                throw error("element after the root element", at: pos)
            } else {
                throw error("text after the root element", at: pos)
            }
        }
    }

    // MARK: - Values

    /// Reads the value whose start tag was just read; containers are read iteratively with an explicit stack.
    private mutating func scanValue(_ tag: XMLPropertyListTag, isEmpty: Bool, at tagOffset: Int) throws
        -> PropertyListValue
    {
        switch tag {
        case .array, .dict:
            try countObject(at: tagOffset)
            if isEmpty { return tag == .array ? .array([]) : .dictionary(PropertyListDictionary()) }
            return try scanContainer(tag, at: tagOffset)
        default:
            return try scanScalar(tag, isEmpty: isEmpty, at: tagOffset)
        }
    }

    private mutating func countObject(at offset: Int) throws {
        objectCount += 1
        if objectCount > maximumObjectCount {
            throw error("more than \(maximumObjectCount) values", at: offset, code: .limitExceeded)
        }
    }

    private mutating func pushContainer(_ tag: XMLPropertyListTag, at offset: Int) throws {
        guard stack.count < maximumDepth else {
            throw error("containers nested more than \(maximumDepth) deep", at: offset, code: .tooDeep)
        }
        stack.append(Frame(isDictionary: tag == .dict))
    }

    private mutating func scanContainer(_ rootTag: XMLPropertyListTag, at rootOffset: Int) throws -> PropertyListValue {
        stack.removeAll(keepingCapacity: true)
        do {
            return try scanContainerContents(rootTag, at: rootOffset)
        } catch {
            // The open containers may hold finished sub-trees of any depth: free them without recursion.
            var values: [PropertyListValue] = []
            for i in stack.indices {
                values.append(contentsOf: stack[i].values)
                stack[i].values = []
            }
            stack.removeAll()
            PropertyListValue.dismantle(all: &values)
            throw error
        }
    }

    private mutating func scanContainerContents(_ rootTag: XMLPropertyListTag, at rootOffset: Int) throws -> PropertyListValue {
        try pushContainer(rootTag, at: rootOffset)
        while true {
            let top = stack.count - 1
            let isDictionary = stack[top].isDictionary
            try skipMisc(inside: isDictionary ? .dict : .array)
            let tagOffset = pos
            if matches("</") {
                if isDictionary, stack[top].pendingKey != nil {
                    throw error("key \"\(stack[top].pendingKey ?? "")\" has no value", at: tagOffset)
                }
                try scanEndTag(isDictionary ? .dict : .array)
                guard let frame = stack.popLast() else {
                    throw error("internal: container stack is empty", at: tagOffset)
                }
                let value = XMLPropertyListScanner.finish(frame)
                if stack.isEmpty { return value }
                append(value)
                continue
            }
            let (tag, isEmpty) = try scanStartTag()
            if isDictionary {
                if stack[top].pendingKey == nil {
                    guard tag == .key else {
                        throw error("expected <key> in <dict>, found <\(tag.name)>", at: tagOffset)
                    }
                    let key = try isEmpty ? "" : scanText(closing: .key)
                    stack[top].pendingKey = key
                    stack[top].pendingKeyOffset = tagOffset
                    continue
                }
                if tag == .key {
                    let key = stack[top].pendingKey ?? ""
                    throw error("key \"\(key)\" has no value", at: stack[top].pendingKeyOffset)
                }
            }
            switch tag {
            case .array, .dict:
                try countObject(at: tagOffset)
                if isEmpty {
                    append(tag == .array ? .array([]) : .dictionary(PropertyListDictionary()))
                } else {
                    try pushContainer(tag, at: tagOffset)
                }
            default:
                append(try scanScalar(tag, isEmpty: isEmpty, at: tagOffset))
            }
        }
    }

    /// Adds a finished child value to the innermost open container.
    private mutating func append(_ value: PropertyListValue) {
        let top = stack.count - 1
        if stack[top].isDictionary {
            stack[top].keys.append(stack[top].pendingKey ?? "")
            stack[top].pendingKey = nil
        }
        stack[top].values.append(value)
    }

    /// The value of a closed container; a dictionary `{CF$UID: integer in 0...UInt32.max}` becomes a UID.
    /// The test is made on the dictionary as built (a repeated key keeps its last value), so
    /// `CF$UID` given twice is a UID like Apple's parser makes it, and the value survives a write and read.
    private static func finish(_ frame: Frame) -> PropertyListValue {
        guard frame.isDictionary else { return .array(frame.values) }
        let dictionary = PropertyListDictionary(keys: frame.keys, values: frame.values)
        if dictionary.count == 1, case .integer(let n)? = dictionary["CF$UID"], let u = n.uint64Value, u <= UInt32.max {
            return .uid(UID(u))
        }
        return .dictionary(dictionary)
    }

    private mutating func scanScalar(_ tag: XMLPropertyListTag, isEmpty: Bool, at tagOffset: Int) throws
        -> PropertyListValue
    {
        try countObject(at: tagOffset)
        switch tag {
        case .string:
            return try .string(isEmpty ? "" : scanText(closing: .string))
        case .true, .false:
            if !isEmpty { try scanEndTag(tag) }
            return .bool(tag == .true)
        case .data:
            if isEmpty { return .data(Data()) }
            let (start, stop) = try scanRawText(closing: tag)
            return .data(try decodeBase64(start, stop))
        case .integer, .real, .date:
            guard !isEmpty else { throw error("empty <\(tag.name)/>", at: tagOffset) }
            let (start, stop) = try scanRawText(closing: tag)
            switch tag {
            case .integer: return .integer(try parseInteger(start, stop))
            case .real: return .real(try parseReal(start, stop))
            default: return .date(try parseDate(start, stop))
            }
        case .key:
            throw error("<key> outside a <dict>", at: tagOffset)
        case .plist:
            throw error("<plist> inside a value", at: tagOffset)
        case .array, .dict:
            throw error("internal: container read as a scalar", at: tagOffset)
        }
    }

    // MARK: - Tags

    /// Reads a start tag at `pos` (which holds `<`), skipping its attributes. Returns the tag and whether it
    /// was written `<tag/>`.
    private mutating func scanStartTag() throws -> (XMLPropertyListTag, isEmpty: Bool) {
        let tagOffset = pos
        pos += 1
        let nameStart = pos
        while pos < end, XMLPropertyListScanner.isNameByte(bytes[pos]) { pos += 1 }
        let name = UnsafeBufferPointer(rebasing: bytes[nameStart..<pos])
        guard let tag = XMLPropertyListTag(name) else {
            if name.isEmpty { throw error("malformed tag", at: tagOffset) }
            throw error("unknown element <\(String(decoding: name.prefix(40), as: UTF8.self))>", at: tagOffset)
        }
        guard pos < end else { throw error("unclosed <\(tag.name)> tag", at: tagOffset) }
        var c = bytes[pos]
        guard c == UInt8(ascii: ">") || c == UInt8(ascii: "/") || XMLPropertyListScanner.isWhitespace(c) else {
            throw error("malformed <\(tag.name)> tag", at: pos)
        }
        // Attributes: skipped, but quotes are honoured and '<' is not allowed.
        while pos < end {
            c = bytes[pos]
            switch c {
            case UInt8(ascii: ">"):
                pos += 1
                return (tag, false)
            case UInt8(ascii: "/"):
                guard pos + 1 < end, bytes[pos + 1] == UInt8(ascii: ">") else {
                    throw error("malformed <\(tag.name)> tag: '/' not followed by '>'", at: pos)
                }
                pos += 2
                return (tag, true)
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                let quoteOffset = pos
                pos += 1
                while pos < end, bytes[pos] != c {
                    if bytes[pos] == UInt8(ascii: "<") { throw error("'<' in an attribute value", at: pos) }
                    pos += 1
                }
                guard pos < end else { throw error("unterminated attribute value", at: quoteOffset) }
                pos += 1
            case UInt8(ascii: "<"):
                throw error("unclosed <\(tag.name)> tag", at: tagOffset)
            default:
                pos += 1
            }
        }
        throw error("unclosed <\(tag.name)> tag", at: tagOffset)
    }

    /// Reads `</tag>` (whitespace allowed before `>`) at `pos`.
    private mutating func scanEndTag(_ tag: XMLPropertyListTag) throws {
        let tagOffset = pos
        guard matches("</") else {
            guard pos < end else { throw error("missing </\(tag.name)>", at: pos) }
            throw error("expected </\(tag.name)>", at: pos)
        }
        pos += 2
        let nameStart = pos
        while pos < end, XMLPropertyListScanner.isNameByte(bytes[pos]) { pos += 1 }
        let name = UnsafeBufferPointer(rebasing: bytes[nameStart..<pos])
        guard XMLPropertyListTag(name) == tag else {
            let found = String(decoding: name.prefix(40), as: UTF8.self)
            throw error("mismatched tags: <\(tag.name)> closed by </\(found)>", at: tagOffset)
        }
        skipWhitespace()
        guard pos < end, bytes[pos] == UInt8(ascii: ">") else {
            throw error("malformed </\(tag.name)> tag", at: tagOffset)
        }
        pos += 1
    }

    // MARK: - Text

    /// Reads the content of `<string>` or `<key>` up to and including its end tag: character data, entity and
    /// character references, CDATA sections and comments.
    private mutating func scanText(closing tag: XMLPropertyListTag) throws -> String {
        let start = pos
        while pos < end {
            let c = bytes[pos]
            if c == UInt8(ascii: "<") || c == UInt8(ascii: "&") { break }
            pos += 1
        }
        guard pos < end else { throw error("unclosed <\(tag.name)>", at: start) }
        if matches("</") {
            let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<pos]), as: UTF8.self)
            try scanEndTag(tag)
            return s
        }
        // Slow path: references or markup inside the text.
        var buffer = Array(bytes[start..<pos])
        while true {
            guard pos < end else { throw error("unclosed <\(tag.name)>", at: start) }
            let c = bytes[pos]
            if c == UInt8(ascii: "&") {
                let scalar = try scanReference()
                UTF8.encode(scalar, into: { buffer.append($0) })
            } else if c == UInt8(ascii: "<") {
                if matches("</") { break }
                if matches("<![CDATA[") {
                    let open = pos
                    pos += 9
                    let contentStart = pos
                    guard let close = find("]]>") else { throw error("unterminated CDATA section", at: open) }
                    buffer.append(contentsOf: bytes[contentStart..<close])
                    pos = close + 3
                } else if matches("<!--") {
                    try skipComment()
                } else if matches("<?") {
                    try skipProcessingInstruction(isFirst: false, isASCII: false)
                } else {
                    throw error("markup inside <\(tag.name)>", at: pos)
                }
            } else {
                let runStart = pos
                while pos < end, bytes[pos] != UInt8(ascii: "<"), bytes[pos] != UInt8(ascii: "&") { pos += 1 }
                buffer.append(contentsOf: bytes[runStart..<pos])
            }
        }
        try scanEndTag(tag)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// Reads `&...;` at `pos`: one of the five predefined entities or a numeric character reference.
    private mutating func scanReference() throws -> Unicode.Scalar {
        let start = pos
        pos += 1
        let nameStart = pos
        while pos < end, bytes[pos] != UInt8(ascii: ";"), pos - nameStart < 16 {
            let c = bytes[pos]
            if XMLPropertyListScanner.isWhitespace(c) || c == UInt8(ascii: "<") || c == UInt8(ascii: "&") { break }
            pos += 1
        }
        guard pos < end, bytes[pos] == UInt8(ascii: ";") else {
            throw error("unterminated entity reference", at: start)
        }
        let name = UnsafeBufferPointer(rebasing: bytes[nameStart..<pos])
        pos += 1
        func eq(_ s: StaticString) -> Bool {
            guard s.utf8CodeUnitCount == name.count else { return false }
            for i in 0..<name.count where s.utf8Start[i] != name[i] { return false }
            return true
        }
        if eq("lt") { return "<" }
        if eq("gt") { return ">" }
        if eq("amp") { return "&" }
        if eq("quot") { return "\"" }
        if eq("apos") { return "'" }
        guard name.first == UInt8(ascii: "#") else {
            let n = String(decoding: name, as: UTF8.self)
            throw error("unknown entity &\(n); (only &lt; &gt; &amp; &quot; &apos; and &#...; are read)", at: start)
        }
        var digits = name.dropFirst()
        var radix: UInt32 = 10
        if digits.first == UInt8(ascii: "x") {
            radix = 16
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty else { throw error("empty character reference", at: start) }
        var value: UInt32 = 0
        for d in digits {
            guard let v = XMLPropertyListScanner.digitValue(d), v < radix else {
                throw error("bad digit in character reference", at: start)
            }
            value = value * radix + v
            guard value <= 0x10FFFF else { throw error("character reference above U+10FFFF", at: start) }
        }
        guard let scalar = Unicode.Scalar(value) else {
            throw error("character reference to a surrogate (U+\(String(value, radix: 16, uppercase: true)))",
                        at: start)
        }
        return scalar
    }

    /// Reads the raw content of `<integer>`, `<real>`, `<date>` or `<data>` (no markup allowed) and its end tag.
    private mutating func scanRawText(closing tag: XMLPropertyListTag) throws -> (Int, Int) {
        let start = pos
        while pos < end, bytes[pos] != UInt8(ascii: "<") { pos += 1 }
        let stop = pos
        guard pos < end else { throw error("unclosed <\(tag.name)>", at: start) }
        try scanEndTag(tag)
        return (start, stop)
    }

    // MARK: - Skipping

    private mutating func skipWhitespace() {
        while pos < end, XMLPropertyListScanner.isWhitespace(bytes[pos]) { pos += 1 }
    }

    /// Skips whitespace, comments and processing instructions inside a container; stops at the next tag.
    private mutating func skipMisc(inside tag: XMLPropertyListTag) throws {
        while true {
            skipWhitespace()
            guard pos < end else {
                if let frameKey = stack.last?.pendingKey, tag == .dict {
                    throw error("key \"\(frameKey)\" has no value and <dict> is unclosed", at: pos)
                }
                throw error("unclosed <\(tag.name)>", at: pos)
            }
            guard bytes[pos] == UInt8(ascii: "<") else { throw error("text inside <\(tag.name)>", at: pos) }
            if matches("<!--") {
                try skipComment()
            } else if matches("<?") {
                try skipProcessingInstruction(isFirst: false, isASCII: false)
            } else if matches("<!") {
                throw error("markup declaration inside <\(tag.name)>", at: pos)
            } else {
                return
            }
        }
    }

    private mutating func skipComment() throws {
        let start = pos
        pos += 4
        guard let close = find("-->") else { throw error("unterminated comment", at: start) }
        pos = close + 3
    }

    /// Skips `<?...?>`. For the XML declaration, checks the declared encoding.
    private mutating func skipProcessingInstruction(isFirst: Bool, isASCII: Bool) throws {
        let start = pos
        pos += 2
        guard let close = find("?>") else { throw error("unterminated processing instruction", at: start) }
        let body = UnsafeBufferPointer(rebasing: bytes[(start + 2)..<close])
        pos = close + 2
        guard body.count >= 3, body[0] == UInt8(ascii: "x"), body[1] == UInt8(ascii: "m"),
              body[2] == UInt8(ascii: "l"), body.count == 3 || XMLPropertyListScanner.isWhitespace(body[3])
        else { return }
        guard isFirst else { throw error("XML declaration not at the start of the document", at: start) }
        guard let encoding = XMLPropertyListScanner.declaredEncoding(body) else { return }
        guard !encoding.isEmpty else { throw error("malformed encoding in the XML declaration", at: start) }
        let unicode = ["utf-8", "utf8", "utf-16", "utf-16le", "utf-16be", "utf16", "unicode"]
        let ascii = ["us-ascii", "ascii"]
        if unicode.contains(encoding) || ascii.contains(encoding) { return }
        if isASCII && !fromUTF16 { return }
        throw error("encoding \"\(encoding)\" is not supported: only UTF-8 and UTF-16 are read", at: start)
    }

    /// The lowercased value of the `encoding` pseudo-attribute in an XML declaration's body, or `nil`.
    private static func declaredEncoding(_ body: UnsafeBufferPointer<UInt8>) -> String? {
        let word = Array("encoding".utf8)
        guard body.count > word.count else { return nil }
        var i = 0
        while i + word.count <= body.count {
            if Array(body[i..<(i + word.count)]) == word { break }
            i += 1
        }
        guard i + word.count <= body.count else { return nil }
        i += word.count
        while i < body.count, isWhitespace(body[i]) { i += 1 }
        guard i < body.count, body[i] == UInt8(ascii: "=") else { return "" }
        i += 1
        while i < body.count, isWhitespace(body[i]) { i += 1 }
        guard i < body.count, body[i] == UInt8(ascii: "\"") || body[i] == UInt8(ascii: "'") else { return "" }
        let quote = body[i]
        i += 1
        let start = i
        while i < body.count, body[i] != quote { i += 1 }
        return String(decoding: body[start..<i], as: UTF8.self).lowercased()
    }

    /// Skips `<!DOCTYPE ...>`. An internal subset (`[...]`) is rejected: entities are never declared or expanded.
    private mutating func skipDoctype() throws {
        let start = pos
        pos += 9
        while pos < end {
            let c = bytes[pos]
            switch c {
            case UInt8(ascii: ">"):
                pos += 1
                return
            case UInt8(ascii: "["):
                throw error("DOCTYPE with an internal subset: entity and markup declarations are not accepted",
                            at: pos)
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                pos += 1
                while pos < end, bytes[pos] != c { pos += 1 }
                guard pos < end else { throw error("unterminated DOCTYPE", at: start) }
                pos += 1
            case UInt8(ascii: "<"):
                throw error("unterminated DOCTYPE", at: start)
            default:
                pos += 1
            }
        }
        throw error("unterminated DOCTYPE", at: start)
    }

    // MARK: - Helpers

    private func matches(_ s: StaticString) -> Bool {
        let n = s.utf8CodeUnitCount
        guard end - pos >= n else { return false }
        let p = s.utf8Start
        for i in 0..<n where bytes[pos + i] != p[i] { return false }
        return true
    }

    /// The offset of the next occurrence of `s` at or after `pos`, or `nil`.
    private func find(_ s: StaticString) -> Int? {
        let n = s.utf8CodeUnitCount
        let p = s.utf8Start
        let first = p[0]
        var i = pos
        while i + n <= end {
            if bytes[i] == first {
                var ok = true
                for j in 1..<n where bytes[i + j] != p[j] {
                    ok = false
                    break
                }
                if ok { return i }
            }
            i += 1
        }
        return nil
    }

    static func isWhitespace(_ c: UInt8) -> Bool {
        c == 0x20 || c == 0x0A || c == 0x09 || c == 0x0D
    }

    static func isNameByte(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: ":"),
             UInt8(ascii: "."), 0x80...0xFF:
            return true
        default:
            return false
        }
    }

    static func digitValue(_ c: UInt8) -> UInt32? {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(c - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(c - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(c - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    /// The range `start..<stop` without XML whitespace at either end.
    private func trimmed(_ start: Int, _ stop: Int) -> (Int, Int) {
        var a = start, b = stop
        while a < b, XMLPropertyListScanner.isWhitespace(bytes[a]) { a += 1 }
        while b > a, XMLPropertyListScanner.isWhitespace(bytes[b - 1]) { b -= 1 }
        return (a, b)
    }

    // MARK: - Errors

    /// An error at byte `offset`, with line, column and key path filled in.
    func error(_ message: String, at offset: Int, code: PropertyListError.Code = .invalidXML) -> PropertyListError {
        let offset = max(0, min(offset, end))
        var line = 1
        var lineStart = 0
        var i = 0
        while i < offset {
            if bytes[i] == 0x0A {
                line += 1
                lineStart = i + 1
            }
            i += 1
        }
        var column = 1
        i = lineStart
        while i < offset {
            if bytes[i] & 0xC0 != 0x80 { column += 1 }
            i += 1
        }
        return PropertyListError(code, message,
                                 at: .init(byteOffset: offset, line: line, column: column, keyPath: keyPath))
    }

    /// The path from the root to the value being read, such as `$objects[3].NS.keys`.
    private var keyPath: String {
        var path = ""
        for frame in stack {
            if frame.isDictionary {
                if let key = frame.pendingKey {
                    path += path.isEmpty ? key : "." + key
                }
            } else {
                path += "[\(frame.values.count)]"
            }
        }
        return path
    }

    // MARK: - UTF-8 validation

    enum UTF8Validity {
        case valid(isASCII: Bool)
        case invalid(offset: Int)
    }

    /// Checks that `bytes[start...]` is well-formed UTF-8 (no overlong forms, surrogates or values above U+10FFFF).
    static func validateUTF8(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> UTF8Validity {
        var i = start
        let n = bytes.count
        var ascii = true
        while i < n {
            let b0 = bytes[i]
            if b0 < 0x80 {
                i += 1
                continue
            }
            ascii = false
            func cont(_ k: Int) -> Bool { i + k < n && bytes[i + k] & 0xC0 == 0x80 }
            switch b0 {
            case 0xC2...0xDF:
                guard cont(1) else { return .invalid(offset: i) }
                i += 2
            case 0xE0...0xEF:
                guard cont(1), cont(2) else { return .invalid(offset: i) }
                let b1 = bytes[i + 1]
                if b0 == 0xE0 && b1 < 0xA0 { return .invalid(offset: i) }  // overlong
                if b0 == 0xED && b1 > 0x9F { return .invalid(offset: i) }  // surrogate
                i += 3
            case 0xF0...0xF4:
                guard cont(1), cont(2), cont(3) else { return .invalid(offset: i) }
                let b1 = bytes[i + 1]
                if b0 == 0xF0 && b1 < 0x90 { return .invalid(offset: i) }  // overlong
                if b0 == 0xF4 && b1 > 0x8F { return .invalid(offset: i) }  // above U+10FFFF
                i += 4
            default:
                return .invalid(offset: i)
            }
        }
        return .valid(isASCII: ascii)
    }
}

// MARK: - Scalar contents

extension XMLPropertyListScanner {
    /// Parses `<integer>` content: optional sign, decimal or `0x` hexadecimal digits, in `Int64.min ... UInt64.max`.
    fileprivate func parseInteger(_ start: Int, _ stop: Int) throws -> PropertyListInteger {
        var (a, b) = trimmed(start, stop)
        guard a < b else { throw error("empty <integer>", at: start) }
        var negative = false
        if bytes[a] == UInt8(ascii: "-") || bytes[a] == UInt8(ascii: "+") {
            negative = bytes[a] == UInt8(ascii: "-")
            a += 1
            while a < b, XMLPropertyListScanner.isWhitespace(bytes[a]) { a += 1 }
        }
        var radix: UInt64 = 10
        if b - a >= 2, bytes[a] == UInt8(ascii: "0"), bytes[a + 1] | 0x20 == UInt8(ascii: "x") {
            radix = 16
            a += 2
        }
        guard a < b else { throw error("<integer> has no digits", at: start) }
        var magnitude: UInt64 = 0
        for i in a..<b {
            guard let d = XMLPropertyListScanner.digitValue(bytes[i]), UInt64(d) < radix else {
                throw error("bad character in <integer>", at: i)
            }
            let (m, o1) = magnitude.multipliedReportingOverflow(by: radix)
            let (s, o2) = m.addingReportingOverflow(UInt64(d))
            guard !o1, !o2 else { throw error("<integer> overflows 64 bits", at: start) }
            magnitude = s
        }
        if negative {
            if magnitude <= UInt64(Int64.max) { return PropertyListInteger(-Int64(magnitude)) }
            if magnitude == UInt64(Int64.max) + 1 { return PropertyListInteger(Int64.min) }
            throw error("<integer> below Int64.min", at: start)
        }
        return PropertyListInteger(magnitude)
    }

    /// Parses `<real>` content: decimal notation or `nan`/`inf`/`infinity` (any case, optionally signed).
    fileprivate func parseReal(_ start: Int, _ stop: Int) throws -> Double {
        let (a, b) = trimmed(start, stop)
        guard a < b else { throw error("empty <real>", at: start) }
        var i = a
        var sign: Double = 1
        if bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
            if bytes[i] == UInt8(ascii: "-") { sign = -1 }
            i += 1
        }
        // Special values.
        let word = UnsafeBufferPointer(rebasing: bytes[i..<b])
        func isWord(_ s: StaticString) -> Bool {
            guard word.count == s.utf8CodeUnitCount else { return false }
            for k in 0..<word.count where word[k] | 0x20 != s.utf8Start[k] { return false }
            return true
        }
        if isWord("nan") { return .nan }
        if isWord("inf") || isWord("infinity") { return sign * .infinity }
        // Decimal: digits [. digits] [e [sign] digits], at least one mantissa digit.
        var mantissaDigits = 0
        while i < b, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1; mantissaDigits += 1 }
        if i < b, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < b, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1; mantissaDigits += 1 }
        }
        guard mantissaDigits > 0 else { throw error("misformatted <real>", at: start) }
        if i < b, bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < b, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            var exponentDigits = 0
            while i < b, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1; exponentDigits += 1 }
            guard exponentDigits > 0 else { throw error("misformatted <real>: exponent has no digits", at: start) }
        }
        guard i == b else { throw error("misformatted <real>", at: i) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[a..<b]), as: UTF8.self)
        guard let value = Double(text) else { throw error("misformatted <real>", at: start) }
        return value
    }

    /// Parses `<date>` content: `[-]YYYY-MM-DDTHH:MM:SSZ`, proleptic Gregorian, UTC.
    fileprivate func parseDate(_ start: Int, _ stop: Int) throws -> Date {
        let (a, b) = trimmed(start, stop)
        var i = a
        func bad(_ why: String) -> PropertyListError { error("bad <date> (\(why)); expected YYYY-MM-DDTHH:MM:SSZ", at: start) }
        var negative = false
        if i < b, bytes[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        var year: Int64 = 0
        var yearDigits = 0
        while i < b, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") {
            year = year * 10 + Int64(bytes[i] - UInt8(ascii: "0"))
            yearDigits += 1
            i += 1
            if yearDigits > 11 { throw bad("year has more than 11 digits") }
        }
        guard yearDigits > 0 else { throw bad("no year") }
        if negative { year = -year }
        func expect(_ c: Character) throws {
            guard i < b, bytes[i] == UInt8(ascii: c.unicodeScalars.first ?? "?") else { throw bad("expected '\(c)'") }
            i += 1
        }
        func twoDigits(_ what: String) throws -> Int64 {
            guard i + 1 < b, let d1 = XMLPropertyListScanner.decimal(bytes[i]),
                  let d2 = XMLPropertyListScanner.decimal(bytes[i + 1])
            else { throw bad("\(what) is not two digits") }
            i += 2
            return d1 * 10 + d2
        }
        try expect("-")
        let month = try twoDigits("month")
        try expect("-")
        let day = try twoDigits("day")
        try expect("T")
        let hour = try twoDigits("hour")
        try expect(":")
        let minute = try twoDigits("minute")
        try expect(":")
        let second = try twoDigits("second")
        try expect("Z")
        guard i == b else { throw bad("text after 'Z'") }
        guard (1...12).contains(month) else { throw bad("month \(month)") }
        guard day >= 1, day <= XMLDateArithmetic.daysInMonth(year: year, month: month) else { throw bad("day \(day)") }
        guard hour <= 23 else { throw bad("hour \(hour)") }
        guard minute <= 59 else { throw bad("minute \(minute)") }
        guard second <= 59 else { throw bad("second \(second)") }
        let days = XMLDateArithmetic.daysFromCivil(year: year, month: month, day: day)
            - XMLDateArithmetic.daysFromCivil(year: 2001, month: 1, day: 1)
        // |days| < 4e13 for 11-digit years, so this cannot overflow Int64.
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
        return Date(timeIntervalSinceReferenceDate: Double(seconds))
    }

    static func decimal(_ c: UInt8) -> Int64? {
        c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") ? Int64(c - UInt8(ascii: "0")) : nil
    }

    /// Decodes `<data>` content: base64 with whitespace ignored; other characters are errors.
    fileprivate func decodeBase64(_ start: Int, _ stop: Int) throws -> Data {
        var out = [UInt8]()
        out.reserveCapacity((stop - start) / 4 * 3 + 3)
        var accumulator: UInt32 = 0
        var count = 0  // significant characters in the current quantum
        var padding = 0
        for i in start..<stop {
            let c = bytes[i]
            if XMLPropertyListScanner.isWhitespace(c) { continue }
            if c == UInt8(ascii: "=") {
                padding += 1
                guard padding <= 2, count >= 2 else { throw error("bad base64 padding in <data>", at: i) }
                continue
            }
            let v = XMLBase64.decodeTable[Int(c)]
            guard v >= 0 else {
                throw error("bad base64 character '\(Unicode.Scalar(c).escaped(asASCII: true))' in <data>", at: i)
            }
            guard padding == 0 else { throw error("base64 text after '=' padding in <data>", at: i) }
            accumulator = accumulator << 6 | UInt32(v)
            count += 1
            if count == 4 {
                out.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                out.append(UInt8(truncatingIfNeeded: accumulator >> 8))
                out.append(UInt8(truncatingIfNeeded: accumulator))
                accumulator = 0
                count = 0
            }
        }
        switch count {
        case 0:
            guard padding == 0 else { throw error("bad base64 padding in <data>", at: start) }
        case 2:
            guard padding == 0 || padding == 2 else { throw error("bad base64 padding in <data>", at: start) }
            out.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        case 3:
            guard padding <= 1 else { throw error("bad base64 padding in <data>", at: start) }
            out.append(UInt8(truncatingIfNeeded: accumulator >> 10))
            out.append(UInt8(truncatingIfNeeded: accumulator >> 2))
        default:
            throw error("truncated base64 in <data> (a lone final character)", at: start)
        }
        return Data(out)
    }
}

/// Base64 tables shared by the XML reader and writer.
enum XMLBase64 {
    static let alphabet: [UInt8] = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Byte -> 6-bit value, or -1.
    static let decodeTable: [Int8] = {
        var table = [Int8](repeating: -1, count: 256)
        for (i, c) in alphabet.enumerated() { table[Int(c)] = Int8(i) }
        return table
    }()
}

/// Proleptic Gregorian calendar arithmetic on day numbers (days since 1970-01-01), after Howard Hinnant's
/// public-domain `days_from_civil` / `civil_from_days` algorithms. Package access: `archive-dump` formats
/// dates with it too, so the package has one implementation of the calendar arithmetic.
package enum XMLDateArithmetic {
    static func isLeap(_ y: Int64) -> Bool { y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days from 1970-01-01 to the given date. Valid for |year| < 10^14.
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date of day number `z` (days since 1970-01-01).
    package static func civilFromDays(_ z: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = z + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
