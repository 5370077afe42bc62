#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The byte-level scanner behind ``XMLPropertyListReader``: one pass over validated UTF-8, no recursion.
struct XMLPropertyListScanner {
    let bytes: UnsafeBufferPointer<UInt8>
    let end: Int
    var pos: Int
    let maximumDepth: Int
    let maximumObjectCount: Int
    let fromUTF16: Bool
    /// Whether `bytes` are the UTF-8 transcoding of a document that declares ISO-8859-1.
    let fromLatin1: Bool
    /// ``PropertyListReadingOptions/isLenient``: skip what plistlib and CoreFoundation skip.
    let isLenient: Bool
    var objectCount = 0
    var stack: [Frame] = []

    /// An open `<array>` or `<dict>` whose children are being read.
    struct Frame {
        var isDictionary: Bool
        var values: [PropertyListValue] = []
        var keys: [String] = []
        var pendingKey: String?
        /// Offset of the `<` of the start tag of the pending key (for "key without a value").
        var pendingKeyOffset = 0
    }

    init(bytes: UnsafeBufferPointer<UInt8>, start: Int, options: PropertyListReadingOptions, fromUTF16: Bool,
         fromLatin1: Bool = false) {
        self.bytes = bytes
        self.end = bytes.count
        self.pos = min(start, bytes.count)
        self.maximumDepth = options.maximumDepth
        self.maximumObjectCount = options.maximumObjectCount
        self.fromUTF16 = fromUTF16
        self.fromLatin1 = fromLatin1
        self.isLenient = options.isLenient
    }

    // MARK: - Document

    /// Reads the whole document: prolog, root element, trailing misc.
    ///
    /// Evidence for each rule (ReaderRuleEvidenceTests has a row for each family): the document's
    /// well-formedness (valid UTF-8, one root, matched tags, nothing but misc after the root, the XML
    /// declaration first) is XML 1.0's, which plistlib (expat) enforces and Foundation on Linux mostly does
    /// (it reads text after the root and a declaration after a comment); the element rules (exactly one value
    /// in `<plist>`, `<key>`/value pairs in `<dict>`, no unknown element) are the plist DTD's, which Foundation
    /// on Linux enforces (plistlib skips unknown elements, keeps the last of two values).
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
    mutating func scanValue(_ tag: XMLPropertyListTag, isEmpty: Bool, at tagOffset: Int) throws
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

    mutating func countObject(at offset: Int) throws {
        objectCount += 1
        if objectCount > maximumObjectCount {
            throw error("more than \(maximumObjectCount) values", at: offset, code: .limitExceeded)
        }
    }

    mutating func pushContainer(_ tag: XMLPropertyListTag, at offset: Int) throws {
        guard stack.count < maximumDepth else {
            throw error("containers nested more than \(maximumDepth) deep", at: offset, code: .tooDeep)
        }
        stack.append(Frame(isDictionary: tag == .dict))
    }

    mutating func scanContainer(_ rootTag: XMLPropertyListTag, at rootOffset: Int) throws -> PropertyListValue {
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

    mutating func scanContainerContents(_ rootTag: XMLPropertyListTag, at rootOffset: Int) throws -> PropertyListValue {
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
    mutating func append(_ value: PropertyListValue) {
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
    static func finish(_ frame: Frame) -> PropertyListValue {
        guard frame.isDictionary else { return .array(frame.values) }
        let dictionary = PropertyListDictionary(keys: frame.keys, values: frame.values)
        if dictionary.count == 1, case .integer(let n)? = dictionary["CF$UID"], let u = n.uint64Value, u <= UInt32.max {
            return .uid(UID(u))
        }
        return .dictionary(dictionary)
    }

    mutating func scanScalar(_ tag: XMLPropertyListTag, isEmpty: Bool, at tagOffset: Int) throws
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
            // An empty number or date: Foundation on Linux and plistlib refuse it.
            guard !isEmpty else { throw error("empty <\(tag.name)/>", at: tagOffset) }
            let (start, stop) = try scanRawText(closing: tag)
            switch tag {
            case .integer: return .integer(try parseInteger(start, stop))
            case .real: return .real(try parseReal(start, stop))
            default: return .date(try parseDate(start, stop))
            }
        case .key:
            // plistlib: "unexpected key" (Foundation on Linux reads a string).
            throw error("<key> outside a <dict>", at: tagOffset)
        case .plist:
            // Apple's PropertyList-1.0.dtd: <plist> is the root only (Foundation and plistlib skip a nested one).
            throw error("<plist> inside a value", at: tagOffset)
        case .array, .dict:
            throw error("internal: container read as a scalar", at: tagOffset)
        }
    }

    // MARK: - Tags

    /// Reads a start tag at `pos` (which holds `<`), skipping its attributes. Returns the tag and whether it
    /// was written `<tag/>`.
    mutating func scanStartTag() throws -> (XMLPropertyListTag, isEmpty: Bool) {
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
    mutating func scanEndTag(_ tag: XMLPropertyListTag) throws {
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
    var keyPath: String {
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
}
