#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// XMLPropertyListScanner reading character data (entity and character references), skipping comments,
// processing instructions and the DOCTYPE, and the byte-level helpers.
//
// Evidence for the rules here (rows in ReaderRuleEvidenceTests): an unknown entity, a character reference
// to a surrogate, an unterminated comment and a DOCTYPE with an internal subset are rejected by Foundation on
// Linux and by plistlib (expat; plistlib refuses entity declarations), as XML 1.0 has it.
extension XMLPropertyListScanner {
    // MARK: - Text

    /// Reads the content of `<string>` or `<key>` up to and including its end tag: character data, entity and
    /// character references, CDATA sections and comments.
    mutating func scanText(closing tag: XMLPropertyListTag) throws -> String {
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
    mutating func scanReference() throws -> Unicode.Scalar {
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
    mutating func scanRawText(closing tag: XMLPropertyListTag) throws -> (Int, Int) {
        let start = pos
        while pos < end, bytes[pos] != UInt8(ascii: "<") { pos += 1 }
        let stop = pos
        guard pos < end else { throw error("unclosed <\(tag.name)>", at: start) }
        try scanEndTag(tag)
        return (start, stop)
    }

    // MARK: - Skipping

    mutating func skipWhitespace() {
        while pos < end, XMLPropertyListScanner.isWhitespace(bytes[pos]) { pos += 1 }
    }

    /// Skips whitespace, comments and processing instructions inside a container; stops at the next tag.
    mutating func skipMisc(inside tag: XMLPropertyListTag) throws {
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

    mutating func skipComment() throws {
        let start = pos
        pos += 4
        guard let close = find("-->") else { throw error("unterminated comment", at: start) }
        pos = close + 3
    }

    /// Skips `<?...?>`. For the XML declaration, checks the declared encoding.
    mutating func skipProcessingInstruction(isFirst: Bool, isASCII: Bool) throws {
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
        if fromLatin1, XMLTextEncoding.latin1Names.contains(encoding) { return }
        if isASCII && !fromUTF16 { return }
        // plistlib (expat) reads UTF-8, UTF-16, ISO-8859-1 and US-ASCII and refuses any other encoding;
        // reading another's bytes as UTF-8 would change the text.
        throw error("encoding \"\(encoding)\" is not supported: only UTF-8, UTF-16 and ISO-8859-1 are read", at: start)
    }

    /// The lowercased value of the `encoding` pseudo-attribute in an XML declaration's body, or `nil`.
    static func declaredEncoding(_ body: UnsafeBufferPointer<UInt8>) -> String? {
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
    mutating func skipDoctype() throws {
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

    func matches(_ s: StaticString) -> Bool {
        let n = s.utf8CodeUnitCount
        guard end - pos >= n else { return false }
        let p = s.utf8Start
        for i in 0..<n where bytes[pos + i] != p[i] { return false }
        return true
    }

    /// The offset of the next occurrence of `s` at or after `pos`, or `nil`.
    func find(_ s: StaticString) -> Int? {
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
    func trimmed(_ start: Int, _ stop: Int) -> (Int, Int) {
        var a = start, b = stop
        while a < b, XMLPropertyListScanner.isWhitespace(bytes[a]) { a += 1 }
        while b > a, XMLPropertyListScanner.isWhitespace(bytes[b - 1]) { b -= 1 }
        return (a, b)
    }
}
