#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads the text of an OpenStep property list into a ``PropertyListValue``, iteratively (an explicit stack
/// of open containers, never recursion), by the grammar of CoreFoundation's CFOldStylePList.c.
///
/// The grammar: a value is a dictionary `{ key = value; ... }`, an array `( value, ... )` (a comma after
/// the last element is allowed), data `<hex digits>` (whitespace between digit pairs), or a string, quoted
/// (`"..."` or `'...'`, with backslash escapes) or unquoted (letters, digits, `_ $ / : . -`). A key is a
/// string; `key;` is short for `key = key;`. A document is one value; a document that is a string followed
/// by more text is read again as the entries of a dictionary without braces (a `.strings` file); a document
/// of only whitespace and comments is an empty dictionary.
struct OpenStepPropertyListScanner {
    /// What the innermost open container expects next.
    enum Expectation {
        /// An array: an element or `)`.
        case element
        /// An array: `,` or `)`.
        case separator
        /// A dictionary: a key, or the end of the entries.
        case key
        /// A dictionary: `=` or `;` after a key.
        case assignment
        /// A dictionary: the value after `=`.
        case value
        /// A dictionary: `;` after a value.
        case entryEnd
    }

    struct Frame {
        var isDictionary: Bool
        /// `false` for a `.strings` file's entries, which no brace closes.
        var isBraced: Bool
        /// The unit index of the opening bracket.
        var start: Int
        var expectation: Expectation
        var keys: [String] = []
        var values: [PropertyListValue] = []
        var pendingKey: String?
    }

    let text: OpenStepText
    /// The text's units (`text.units`), read directly.
    let units: [UInt16]
    let maximumDepth: Int
    let maximumObjectCount: Int
    var position = 0
    var objectCount = 0
    var stack: [Frame] = []
    /// Where CoreFoundation's parser stands after the last fault (``recover(from:scalarFailed:)`` resumes there).
    var failureIndex = 0
    /// Whether a string or data value inside the innermost container is being read.
    var readingScalar = false

    init(text: OpenStepText, options: PropertyListReadingOptions) {
        self.text = text
        units = text.units
        maximumDepth = options.maximumDepth
        maximumObjectCount = options.maximumObjectCount
    }

    // MARK: - Document

    mutating func scanDocument() throws -> PropertyListValue {
        // CoreFoundation refuses an empty text ("The string is empty") but reads blank text as a dictionary.
        guard !units.isEmpty else { throw error("empty text: no property list", at: 0) }
        guard skipWhitespaceAndComments() != nil else { return .dictionary(PropertyListDictionary()) }
        let value = try scanValue()
        guard let next = skipWhitespaceAndComments() else { return value }
        guard case .string = value else {
            throw error("text after the property list (\(describe(next)))", at: position)
        }
        // A string followed by more: the entries of a dictionary without braces (a `.strings` file).
        position = 0
        objectCount = 0
        try push(isDictionary: true, isBraced: false, at: 0)
        return try scanContainers()
    }

    /// The value starting at `position` (whitespace skipped), containers included.
    mutating func scanValue() throws -> PropertyListValue {
        let c = units[position]
        if c == UInt16(ascii: "{") || c == UInt16(ascii: "(") {
            try push(isDictionary: c == UInt16(ascii: "{"), isBraced: true, at: position)
            position += 1
            return try scanContainers()
        }
        return try scanScalar()
    }

    // MARK: - Containers

    mutating func push(isDictionary: Bool, isBraced: Bool, at start: Int) throws {
        try countObject(at: start)
        guard stack.count < maximumDepth else {
            throw error("containers nested more than \(maximumDepth) deep", at: start, code: .tooDeep)
        }
        stack.append(Frame(isDictionary: isDictionary, isBraced: isBraced, start: start, expectation: isDictionary ? .key : .element))
    }

    /// Reads until the outermost open container closes, and returns it.
    mutating func scanContainers() throws -> PropertyListValue {
        while !stack.isEmpty {
            do {
                if let done = try step() { return done }
            } catch let failure as PropertyListError where failure.code == .invalidOpenStep {
                let scalarFailed = readingScalar
                readingScalar = false
                if let done = try recover(from: failure, scalarFailed: scalarFailed) { return done }
            }
        }
        throw error("internal: no open container", at: position)
    }

    /// What CoreFoundation does when a value in an optional place fails (an array element, a dictionary key):
    /// it drops the value and the error, and the container must end where the failed value's reading stopped
    /// (`(a, ")` is `(a)`, `({ a = b )` is `()`, `{ a = b; "}` is `{ a = b; }`, a `.strings` file ends there). A value in a required
    /// place (a dictionary's value) makes its container fail in turn. When nothing takes the fault, the first
    /// fault is thrown: it names the cause.
    ///
    /// - Returns: the outermost container when the recovery closed it, else nil (reading goes on).
    mutating func recover(from failure: PropertyListError, scalarFailed: Bool) throws -> PropertyListValue? {
        if !scalarFailed { stack.removeLast() }  // the innermost container itself failed
        while let reader = stack.indices.last {
            position = failureIndex
            switch stack[reader].expectation {
            case .element:
                if skipWhitespaceAndComments() == UInt16(ascii: ")") {
                    position += 1
                    return try pop()
                }
            case .key:
                if !stack[reader].isBraced { return try pop() }
                if skipWhitespaceAndComments() == UInt16(ascii: "}") {
                    position += 1
                    return try pop()
                }
            default:
                break
            }
            failureIndex = position
            stack.removeLast()
        }
        throw failure
    }

    /// Reads one token of the innermost container; returns the outermost container once it closes.
    mutating func step() throws -> PropertyListValue? {
        if let top = stack.indices.last {
            let c = skipWhitespaceAndComments()
            switch stack[top].expectation {
            case .element, .value:
                let isArray = stack[top].expectation == .element
                guard let c else {
                    throw isArray ? error("unterminated array: expected a value or ')'", at: position)
                        : error("unexpected end of text: expected the value of \(keyDescription(top))", at: position)
                }
                if isArray, c == UInt16(ascii: ")") {
                    position += 1
                    return try pop()
                } else if c == UInt16(ascii: "{") || c == UInt16(ascii: "(") {
                    try push(isDictionary: c == UInt16(ascii: "{"), isBraced: true, at: position)
                    position += 1
                } else if OpenStepCharacters.startsValue(c) {
                    readingScalar = true
                    add(try scanScalar())
                    readingScalar = false
                } else {
                    throw error(isArray ? "expected a value or ')' in the array, found \(describe(c))"
                                : "expected the value of \(keyDescription(top)), found \(describe(c))", at: position)
                }
            case .separator:
                guard let c else { throw error("unterminated array: expected ',' or ')'", at: position) }
                if c == UInt16(ascii: ",") {
                    position += 1
                    stack[top].expectation = .element
                } else if c == UInt16(ascii: ")") {
                    position += 1
                    return try pop()
                } else {
                    throw error("expected ',' or ')' after an array element, found \(describe(c))", at: position)
                }
            case .key:
                if let c, OpenStepCharacters.isQuote(c) || OpenStepCharacters.isUnquoted(c) {
                    readingScalar = true
                    let scalar = try scanScalar()
                    readingScalar = false
                    guard case .string(let key) = scalar else { throw error("internal: a key that is not a string", at: position) }
                    stack[top].pendingKey = key
                    stack[top].expectation = .assignment
                } else if !stack[top].isBraced {
                    // A `.strings` file ends at the first unit that starts no key, as CoreFoundation's does.
                    return try pop()
                } else if c == UInt16(ascii: "}") {
                    position += 1
                    return try pop()
                } else {
                    throw c.map { error("expected a key or '}' in the dictionary, found \(describe($0))", at: position) }
                        ?? error("unterminated dictionary: expected a key or '}'", at: position)
                }
            case .assignment:
                guard let c else { throw error("unexpected end of text: expected '=' or ';' after \(keyDescription(top))", at: position) }
                if c == UInt16(ascii: ";") {
                    add(.string(stack[top].pendingKey ?? ""))  // `key;` is `key = key;`
                } else if c == UInt16(ascii: "=") {
                    position += 1
                    stack[top].expectation = .value
                } else {
                    throw error("expected '=' or ';' after \(keyDescription(top)), found \(describe(c))", at: position)
                }
            case .entryEnd:
                guard c == UInt16(ascii: ";") else {
                    throw error("missing ';' after the value of the key \"\(stack[top].keys.last ?? "")\"" + (c.map { ", found \(describe($0))" } ?? ""),
                                at: position)
                }
                position += 1
                stack[top].expectation = .key
            }
        }
        return nil
    }

    /// Adds a finished value to the innermost container.
    mutating func add(_ value: PropertyListValue) {
        guard let top = stack.indices.last else { return }
        if stack[top].isDictionary {
            stack[top].keys.append(stack[top].pendingKey ?? "")
            stack[top].pendingKey = nil
            stack[top].values.append(value)
            stack[top].expectation = .entryEnd
        } else {
            stack[top].values.append(value)
            stack[top].expectation = .separator
        }
    }

    /// Closes the innermost container: adds it to its parent, or returns it when it was the outermost.
    mutating func pop() throws -> PropertyListValue? {
        guard let frame = stack.popLast() else { throw error("internal: no open container", at: position) }
        let value: PropertyListValue = frame.isDictionary
            ? .dictionary(PropertyListDictionary(keys: frame.keys, values: frame.values)) : .array(frame.values)
        if stack.isEmpty { return value }
        add(value)
        return nil
    }

    // MARK: - Scalars

    /// A string or data value at `position`.
    mutating func scanScalar() throws -> PropertyListValue {
        try countObject(at: position)
        let c = units[position]
        if c == UInt16(ascii: "<") { return .data(try scanData()) }
        if OpenStepCharacters.isQuote(c) { return .string(try scanQuotedString()) }
        guard OpenStepCharacters.isUnquoted(c) else { throw error("expected a value, found \(describe(c))", at: position) }
        let start = position
        while position < units.count, OpenStepCharacters.isUnquoted(units[position]) { position += 1 }
        return .string(String(decoding: units[start ..< position], as: UTF16.self))
    }

    /// A quoted string; escapes as CoreFoundation reads them (``OpenStepEscapes``); unpaired surrogates
    /// become U+FFFD, as Foundation's bridged string gives them.
    mutating func scanQuotedString() throws -> String {
        let open = position
        let quote = units[position]
        position += 1
        var start = position
        var decoded: [UInt16] = []
        var hasEscapes = false
        while position < units.count {
            let c = units[position]
            if c == quote {
                let string: String
                if hasEscapes {
                    decoded.append(contentsOf: units[start ..< position])
                    string = String(decoding: decoded, as: UTF16.self)
                } else {
                    string = String(decoding: units[start ..< position], as: UTF16.self)
                }
                position += 1
                return string
            }
            if c == UInt16(ascii: "\\") {
                guard position + 1 < units.count else { break }
                hasEscapes = true
                decoded.append(contentsOf: units[start ..< position])
                position += 1
                decoded.append(OpenStepEscapes.unescape(units, at: &position))
                start = position
            } else {
                position += 1
            }
        }
        let failure = error("unterminated quoted string", at: open)
        failureIndex = open + 1  // CoreFoundation stops after the opening quote
        throw failure
    }

    /// `<` hex digit pairs (``OpenStepCharacters/dataHexValue(_:)``), whitespace between pairs, `>`.
    mutating func scanData() throws -> Data {
        let open = position
        position += 1
        var bytes: [UInt8] = []
        while position < units.count {
            let c = units[position]
            if c == UInt16(ascii: ">") {
                position += 1
                return Data(bytes)
            }
            if let high = OpenStepCharacters.dataHexValue(c) {
                guard position + 1 < units.count, let low = OpenStepCharacters.dataHexValue(units[position + 1]) else {
                    let failure = error("data of an odd number of hex digits", at: position)
                    failureIndex = min(position + 1, units.count)  // CoreFoundation stops at the unit after the digit
                    throw failure
                }
                bytes.append(high << 4 | low)
                position += 2
            } else if OpenStepCharacters.isDataWhitespace(c) {
                position += 1
            } else {
                throw error("\(describe(c)) in data, which holds hex digits and whitespace", at: position)
            }
        }
        let failure = error("unterminated data: expected '>'", at: open)
        failureIndex = units.count
        throw failure
    }

    mutating func countObject(at offset: Int) throws {
        objectCount += 1
        if objectCount > maximumObjectCount {
            throw error("more than \(maximumObjectCount) values", at: offset, code: .limitExceeded)
        }
    }

    // MARK: - Positions and errors

    /// Skips whitespace and comments from `position`; returns the unit there, or nil at the end.
    mutating func skipWhitespaceAndComments() -> UInt16? {
        let units = self.units
        var cursor = OpenStepCursor(count: units.count, unit: { units[$0] }, position: position)
        let c = cursor.skipWhitespaceAndComments()
        position = cursor.position
        return c
    }

    func describe(_ c: UInt16) -> String {
        if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(UInt8(c))))'" }
        let hex = String(c, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    func keyDescription(_ frame: Int) -> String { "the key \"\(stack[frame].pendingKey ?? "")\"" }

    /// An error at unit `index`, with the byte offset, line, column and key path.
    mutating func error(_ message: String, at index: Int, code: PropertyListError.Code = .invalidOpenStep) -> PropertyListError {
        let index = max(0, min(index, units.count))
        failureIndex = index
        var line = 1, lineStart = 0, i = 0
        while i < index {
            // Lines end at CR, LF or CR LF, as CoreFoundation counts them in its messages.
            if units[i] == 0x0D {
                if i + 1 < index, units[i + 1] == 0x0A { i += 1 }
                line += 1
                lineStart = i + 1
            } else if units[i] == 0x0A {
                line += 1
                lineStart = i + 1
            }
            i += 1
        }
        let column = 1 + units[lineStart ..< index].filter { !UTF16.isTrailSurrogate($0) }.count
        return PropertyListError(code, message, at: .init(byteOffset: text.byteOffset(ofUnit: index), line: line, column: column, keyPath: keyPath))
    }

    /// The path from the root to the value being read, such as `targets[2].name`.
    var keyPath: String {
        var path = ""
        for frame in stack {
            if frame.isDictionary {
                if let key = frame.pendingKey { path += path.isEmpty ? key : "." + key }
            } else {
                path += "[\(frame.values.count)]"
            }
        }
        return path
    }
}
