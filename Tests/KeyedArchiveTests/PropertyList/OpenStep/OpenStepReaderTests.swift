import Foundation
import Testing
@testable import KeyedArchive

/// The OpenStep (old-style ASCII) reader against Foundation on Linux (`PropertyListSerialization`, which
/// runs CoreFoundation's CFOldStylePList.c) and the toolchain's `plutil`: every accepted input must decode
/// to the value Foundation gives, every rejected input must be rejected by Foundation too.
@Suite struct OpenStepReaderTests {
    /// Inputs both readers accept, each with what it shows.
    static let foundationTable: [(name: String, text: String)] = [
        ("unquoted string", "hello"),
        ("unquoted characters", "a_b$c/d:e.f-g09"),
        ("quoted string", "\"hello, world\""),
        ("single-quoted string", "'it is'"),
        ("escapes", #""\a\b\f\n\r\t\v\"\\\'\x\?""#),
        ("backslash before a line feed", "\"a\\\nb\""),
        ("hex escapes", #""\U00e9\U20AC\U41 \Ug \UD83D\UDE00""#),
        ("unpaired surrogate escape", #""a\UD800b""#),
        ("octal escapes", #""\0\1\12\101\1015\351\377\777""#),
        ("text outside ASCII", "\"Café ☕️ 日本 👍🏽\""),
        ("data", "<0fbd 7780 ABCD>"),
        ("empty data", "<>"),
        ("data across lines", "<01\n02\r\n\t03>"),
        // CoreFoundation reads each UTF-16 unit of data by its low byte: U+0530 is the digit 0, U+0131 the digit 1.
        ("data digits past ASCII", "<bDDDD\u{530}>"),
        ("data of digits past ASCII only", "<\u{130}\u{131} \u{1061}\u{1062}>"),
        ("empty array", "()"),
        ("array", "(a, \"b c\", <00>, (), {})"),
        ("array with a trailing comma", "(a, b,)"),
        ("empty dictionary", "{}"),
        ("dictionary", "{ a = b; \"c d\" = (1, 2); e = { f = <ff>; }; }"),
        ("key shortcut", "{ flag; \"other\"; }"),
        ("repeated key", "{ a = 1; b = 2; a = 3; }"),
        ("numbers stay strings", "(1, -2, 3.5, YES, NO, 2001-01-01)"),
        ("line comment", "// a comment\n{ a = b; // another\n}"),
        ("block comment", "/* a\n comment */ ( a /* inside */ , b )"),
        ("unterminated block comment after the value", "(a) /* runs to the end"),
        ("only whitespace and comments", "  \n\t// nothing\n/* at all */ "),
        ("line and paragraph separators", "\u{2028}(a,\u{2029}b)"),
        ("vertical tab and form feed", "\u{0B}(a,\u{0C}b)"),
        ("CR LF lines", "{\r\n  a = b;\r\n}\r\n"),
        ("strings file", "\"greeting\" = \"Hello\";\n\"farewell\" = \"Bye\";\n"),
        ("strings file, unquoted keys", "title = \"Title\"; OK = OK;"),
        ("strings file with comments", "/* Button */\n\"save\" = \"Save\";\n// end\n"),
        ("strings file shortcut", "a; b;"),
        ("strings file ends at a character that starts no key", "a = b; ) anything"),
        ("nested containers", "{ a = ( { b = ( c, { d = e; } ); } ); }"),
        // CoreFoundation drops a value that fails in an optional place when its container closes right there.
        ("unterminated string as the last element", "(a, \")"),
        ("malformed data as the last element", "(a, <0f)"),
        ("malformed dictionary as an array element", "({ a = b )"),
        ("unterminated key before '}'", "{ a = b; \"}"),
        ("strings file ending in an unterminated key", "a;\""),
    ]

    /// Foundation's reading of `data` as a ``PropertyListValue``, and whether it said OpenStep.
    static func foundation(_ data: Data) throws -> (value: PropertyListValue?, isOpenStep: Bool) {
        var format = PropertyListSerialization.PropertyListFormat.binary
        let object = try PropertyListSerialization.propertyList(from: data, options: [], format: &format)
        return (FoundationBridge.value(object), format == .openStep)
    }

    @Test(arguments: foundationTable)
    func readsWhatFoundationReads(name: String, text: String) throws {
        let data = Data(text.utf8)
        let theirs = try Self.foundation(data)
        #expect(theirs.isOpenStep, "\(name): Foundation did not read it as OpenStep")
        let ours = try OpenStepPropertyListReader().read(data)
        #expect(ours == theirs.value, "\(name)")
        #expect(try PropertyListValue(propertyListData: data) == ours, "\(name): the format-detecting entry point")
    }

    @Test func byteOrderMarksAndUTF16AreRead() throws {
        let text = "{ name = \"Café\"; list = (a, <0f>); }"
        let expected = try OpenStepPropertyListReader().read(Data(text.utf8))
        let encodings: [(String, [UInt8])] = [
            ("UTF-8 with a byte-order mark", [0xEF, 0xBB, 0xBF] + Array(text.utf8)),
            ("UTF-16 little-endian", [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }),
            ("UTF-16 big-endian", [0xFE, 0xFF] + text.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }),
        ]
        for (name, bytes) in encodings {
            let data = Data(bytes)
            #expect(try PropertyListValue(propertyListData: data) == expected, "\(name)")
            #expect(try Self.foundation(data).value == expected, "\(name): Foundation")
        }
    }

    @Test func octalEscapesAreNeXTSTEPCharacters() throws {
        for byte in 0x80 ... 0xFF {
            let data = Data("\"\\\(String(byte, radix: 8))\"".utf8)
            let theirs = try Self.foundation(data).value
            #expect(try OpenStepPropertyListReader().read(data) == theirs, "\\\(String(byte, radix: 8))")
        }
    }

    /// Inputs both readers reject, with the fault this reader names and where (line, column, byte offset, key path).
    static let rejected: [(text: String, says: String, line: Int, column: Int, byteOffset: Int, keyPath: String)] = [
        ("{ a = b; ", "unterminated dictionary", 1, 10, 9, ""),
        ("{ a = b }", "missing ';' after the value of the key \"a\"", 1, 9, 8, ""),
        ("{ a b; }", "expected '=' or ';' after the key \"a\"", 1, 5, 4, "a"),
        ("{ a = ; }", "expected the value of the key \"a\"", 1, 7, 6, "a"),
        ("{ (a) = b; }", "expected a key or '}'", 1, 3, 2, ""),
        ("(a b)", "expected ',' or ')'", 1, 4, 3, "[1]"),
        ("(a,,)", "expected a value or ')'", 1, 4, 3, "[1]"),
        ("(a", "unterminated array", 1, 3, 2, "[1]"),
        ("\"abc", "unterminated quoted string", 1, 1, 0, ""),
        ("\"abc\\", "unterminated quoted string", 1, 1, 0, ""),
        ("(\n  \"é\", <0f\n  b>)", "data of an odd number of hex digits", 3, 3, 16, "[1]"),
        ("<0fbd", "unterminated data", 1, 1, 0, ""),
        ("<0g>", "data of an odd number of hex digits", 1, 2, 1, ""),
        ("<0f g>", "'g' in data", 1, 5, 4, ""),
        ("<0f\u{0B}bd>", "in data", 1, 4, 3, ""),
        ("<bD\u{530}>", "data of an odd number of hex digits", 1, 4, 3, ""),
        ("<\u{567}0>", "in data", 1, 2, 1, ""),
        ("{ a = { b = (x, y z); }; }", "expected ',' or ')'", 1, 19, 18, "a.b[2]"),
        ("(a) b", "text after the property list", 1, 5, 4, ""),
        ("{} {}", "text after the property list", 1, 4, 3, ""),
        ("hello world", "expected '=' or ';' after the key \"hello\"", 1, 7, 6, "hello"),
        ("\"a\" = \"b\"", "missing ';' after the value of the key \"a\"", 1, 10, 9, ""),
        ("a = b;\r\nc = d\r\n", "missing ';' after the value of the key \"c\"", 3, 1, 15, ""),
    ]

    @Test(arguments: rejected)
    func malformedTextIsRejectedWhereFoundationRejectsIt(text: String, says: String, line: Int, column: Int, byteOffset: Int, keyPath: String) {
        let data = Data(text.utf8)
        #expect(throws: (any Error).self, "Foundation accepts \(text.debugDescription)") { try Self.foundation(data) }
        let error = #expect(throws: PropertyListError.self) { try OpenStepPropertyListReader().read(data) }
        #expect(error?.code == .invalidOpenStep)
        #expect(error?.message.contains(says) == true, "\(text.debugDescription): \(error?.message ?? "")")
        #expect(error?.location == .init(byteOffset: byteOffset, line: line, column: column, keyPath: keyPath), "\(text.debugDescription)")
        #expect(throws: PropertyListError.self) { try PropertyListValue(propertyListData: data) }
    }

    @Test func invalidUTF8IsRejectedAtItsByte() throws {
        let data = Data([0x22, 0x63, 0x61, 0x66, 0xE9, 0x22])  // "caf\xE9": Latin-1, not UTF-8 -- CORRUPTED
        #expect(throws: (any Error).self) { try Self.foundation(data) }
        let error = try #require(throws: PropertyListError.self) { try OpenStepPropertyListReader().read(data) }
        #expect(error.code == .invalidOpenStep)
        #expect(error.location.byteOffset == 4)
    }

    /// A stray last byte after UTF-16 text is dropped, as Foundation drops it (a fuzz finding:
    /// `FF FE 0A 00 FF` is an empty dictionary to Foundation).
    @Test func aStrayByteAfterUTF16TextIsDroppedAsFoundationDrops() throws {
        let cases: [(bytes: [UInt8], expected: PropertyListValue)] = [
            ([0xFF, 0xFE, 0x28, 0x00, 0x29, 0x00, 0x41], .array([])),  // "()" and a stray byte -- CORRUPTED
            ([0xFF, 0xFE, 0x0A, 0x00, 0xFF], .dictionary([:])),  // a newline and a stray byte -- CORRUPTED
            ([0xFE, 0xFF, 0x00, 0x28, 0x00, 0x78, 0x00, 0x29, 0x22], .array([.string("x")])),  // big-endian "(x)" -- CORRUPTED
        ]
        for (bytes, expected) in cases {
            let data = Data(bytes)
            #expect(try OpenStepPropertyListReader().read(data) == expected, "\(bytes)")
            #expect(try PropertyListValue(propertyListData: data) == expected, "\(bytes)")
            #expect(try Self.foundation(data).value == expected, "Foundation reads \(bytes)")
        }
    }

    @Test func nestingDeeperThanTheLimitThrows() throws {
        for open in ["(", "{a="] {
            let text = String(repeating: open, count: 1_000_000)
            let error = try #require(throws: PropertyListError.self) { try PropertyListValue(propertyListData: Data(text.utf8)) }
            #expect(error.code == .tooDeep)
            #expect(error.message == "containers nested more than 512 deep")
            #expect(error.location.byteOffset == 512 * open.utf8.count)
        }
    }

    @Test func nestingAMillionDeepIsReadWithoutRecursion() throws {
        var options = PropertyListReadingOptions()
        options.maximumDepth = 2_000_000
        let depth = 1_000_000
        let text = String(repeating: "(", count: depth) + "x" + String(repeating: ")", count: depth)
        var value = try OpenStepPropertyListReader(options: options).read(Data(text.utf8))
        var levels = 0
        while case .array(let elements) = value, elements.count == 1 {
            levels += 1
            value = elements[0]
        }
        #expect(levels == depth)
        #expect(value == .string("x"))
    }

    @Test func theObjectLimitApplies() throws {
        var options = PropertyListReadingOptions()
        options.maximumObjectCount = 1000
        let text = "(" + Array(repeating: "a", count: 1000).joined(separator: ",") + ")"
        let error = try #require(throws: PropertyListError.self) { try OpenStepPropertyListReader(options: options).read(Data(text.utf8)) }
        #expect(error.code == .limitExceeded)
        #expect(try OpenStepPropertyListReader().read(Data(text.utf8)).arrayValue?.count == 1000)
    }

    @Test func largeStringsFileIsReadWhole() throws {
        let count = 200_000
        var text = "/* a large .strings file */\n"
        for i in 0 ..< count { text += "\"key \(i)\" = \"value \\U00e9 \(i)\";\n" }
        let value = try PropertyListValue(propertyListData: Data(text.utf8))
        let dictionary = try #require(value.dictionaryValue)
        #expect(dictionary.count == count)
        #expect(dictionary["key 199999"] == .string("value é 199999"))
        #expect(dictionary.keys.first == "key 0")
        let truncated = Data(text.utf8.dropLast(3))  // the last entry's closing quote and ';' cut -- CORRUPTED
        let error = try #require(throws: PropertyListError.self) { try PropertyListValue(propertyListData: truncated) }
        #expect(error.message == "unterminated quoted string")
        #expect(error.location.line == count + 1)
    }

    @Test func formatDetectionKeepsBinaryAndXMLAndRefusesOtherBytes() throws {
        let xml = try XMLPropertyListWriter().write(["a": "b"])
        #expect(try PropertyListValue(propertyListData: xml) == ["a": "b"])
        let binary = BinaryPropertyListWriter().write(["a": "b"])
        #expect(try PropertyListValue(propertyListData: binary) == ["a": "b"])
        #expect(try PropertyListValue(propertyListData: Data("<0fbd>".utf8)) == .data(Data([0x0F, 0xBD])))
        #expect(try PropertyListValue(propertyListData: Data("  <>".utf8)) == .data(Data()))
        for bytes in [[], [0x00], Array("%PDF-1.4".utf8), Array("+1".utf8), [0xC3, 0xA9]] as [[UInt8]] {
            let error = try #require(throws: PropertyListError.self) { try PropertyListValue(propertyListData: Data(bytes)) }
            #expect(error.code == .unknownFormat, "\(bytes)")
            #expect(throws: (any Error).self, "Foundation accepts \(bytes)") { try Self.foundation(Data(bytes)) }
        }
    }

    @Test(.enabled(if: ToolchainPlutil.path != nil, "needs the Swift toolchain's plutil (beside swift on the PATH)"))
    func plutilConvertsToTheSameValues() throws {
        let plutil = try #require(ToolchainPlutil.path)
        let directory = try TemporaryDirectory.create("openstep-plutil")
        defer { TemporaryDirectory.remove(directory) }
        for (index, entry) in Self.foundationTable.enumerated() {
            let file = directory.appendingPathComponent("\(index).plist")
            try Data(entry.text.utf8).write(to: file)
            // Binary output: it holds every string (XML cannot hold the control characters some escapes give).
            let run = try OracleProcess.run(URL(fileURLWithPath: plutil), ["-convert", "binary1", "-o", "-", file.path])
            #expect(run.status == 0, "\(entry.name): plutil failed: \(String(decoding: run.stderr, as: UTF8.self))")
            guard run.status == 0 else { continue }
            #expect(try BinaryPropertyListReader().read(run.stdout) == OpenStepPropertyListReader().read(Data(entry.text.utf8)), "\(entry.name)")
        }
    }
}
