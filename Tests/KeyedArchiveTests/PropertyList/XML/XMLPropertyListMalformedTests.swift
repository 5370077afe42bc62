import Foundation
import Testing
@testable import KeyedArchive

/// One malformed document: its parts, each with what it is or why it is wrong.
struct MalformedXML: Sendable, CustomTestStringConvertible {
    var name: String
    var parts: [(String, String)]  // (bytes, comment)
    var code: PropertyListError.Code = .invalidXML
    /// A fragment the error message must contain.
    var says: String
    var bytes: Data { Data(parts.map(\.0).joined().utf8) }
    var testDescription: String { name }
}

@Suite struct XMLPropertyListMalformedTests {
    static let cases: [MalformedXML] = [
        MalformedXML(name: "unclosed tag", parts: [
            ("<plist><array>", "// open array"),
            ("<string>a</string>", "// one element"),
            ("", "// input ends: </array> and </plist> missing -- CORRUPTED"),
        ], says: "unclosed <array>"),
        MalformedXML(name: "mismatched tags", parts: [
            ("<plist><array>", "// open array"),
            ("<string>a</integer>", "// <string> closed by </integer> -- CORRUPTED"),
            ("</array></plist>", ""),
        ], says: "mismatched tags"),
        MalformedXML(name: "mismatched container close", parts: [
            ("<plist><dict>", "// open dict"),
            ("</array></plist>", "// closed as array -- CORRUPTED"),
        ], says: "mismatched tags"),
        MalformedXML(name: "unknown element", parts: [
            ("<plist>", ""),
            ("<number>1</number>", "// not in the plist DTD -- CORRUPTED"),
            ("</plist>", ""),
        ], says: "unknown element <number>"),
        MalformedXML(name: "tag name with a known prefix", parts: [
            ("<plist>", ""),
            ("<arrays/>", "// 'arrays' is not 'array' -- CORRUPTED"),
            ("</plist>", ""),
        ], says: "unknown element <arrays>"),
        MalformedXML(name: "integer overflow", parts: [
            ("<plist>", ""),
            ("<integer>18446744073709551616</integer>", "// UInt64.max + 1 -- CORRUPTED"),
            ("</plist>", ""),
        ], says: "overflows 64 bits"),
        MalformedXML(name: "integer below Int64.min", parts: [
            ("<plist>", ""),
            ("<integer>-9223372036854775809</integer>", "// Int64.min - 1 -- CORRUPTED"),
            ("</plist>", ""),
        ], says: "below Int64.min"),
        MalformedXML(name: "integer garbage", parts: [
            ("<plist>", ""),
            ("<integer>12abc</integer>", "// letters after digits -- CORRUPTED"),
            ("</plist>", ""),
        ], says: "bad character in <integer>"),
        MalformedXML(name: "empty integer", parts: [
            ("<plist>", ""),
            ("<integer/>", "// no value -- CORRUPTED"),
            ("</plist>", ""),
        ], says: "empty <integer/>"),
        MalformedXML(name: "hexadecimal real", parts: [
            ("<plist>", ""),
            ("<real>0x1p3</real>", "// hex float: Apple rejects it too -- CORRUPTED"),
            ("</plist>", ""),
        ], says: "misformatted <real>"),
        MalformedXML(name: "real garbage", parts: [
            ("<plist>", ""),
            ("<real>1.5.2</real>", "// two points -- CORRUPTED"),
            ("</plist>", ""),
        ], says: "misformatted <real>"),
        MalformedXML(name: "date without Z", parts: [
            ("<plist>", ""),
            ("<date>2001-01-01T00:00:00</date>", "// no 'Z' -- CORRUPTED"),
            ("</plist>", ""),
        ], says: "bad <date>"),
        MalformedXML(name: "date February 30", parts: [
            ("<plist>", ""),
            ("<date>2001-02-30T00:00:00Z</date>", "// no such day -- CORRUPTED"),
            ("</plist>", ""),
        ], says: "day 30"),
        MalformedXML(name: "date hour 24", parts: [
            ("<plist>", ""),
            ("<date>2001-01-01T24:00:00Z</date>", "// hour out of range -- CORRUPTED"),
            ("</plist>", ""),
        ], says: "hour 24"),
        MalformedXML(name: "date fractional seconds", parts: [
            ("<plist>", ""),
            ("<date>2001-01-01T00:00:00.5Z</date>", "// Apple's format has whole seconds -- CORRUPTED"),
            ("</plist>", ""),
        ], says: "bad <date>"),
        MalformedXML(name: "date with a huge year", parts: [
            ("<plist>", ""),
            ("<date>999999999999-01-01T00:00:00Z</date>", "// 12-digit year -- CORRUPTED"),
            ("</plist>", ""),
        ], says: "more than 11 digits"),
        MalformedXML(name: "bad base64 character", parts: [
            ("<plist>", ""),
            ("<data>AQ!D</data>", "// '!' is not base64 -- CORRUPTED"),
            ("</plist>", ""),
        ], says: "bad base64 character '!'"),
        MalformedXML(name: "base64 text after padding", parts: [
            ("<plist>", ""),
            ("<data>AQ==AQID</data>", "// data continues after '==' -- CORRUPTED"),
            ("</plist>", ""),
        ], says: "after '=' padding"),
        MalformedXML(name: "base64 lone final character", parts: [
            ("<plist>", ""),
            ("<data>AQIDB</data>", "// 5 characters: 6 bits left over -- CORRUPTED"),
            ("</plist>", ""),
        ], says: "lone final character"),
        MalformedXML(name: "entity bomb (internal DTD subset)", parts: [
            ("<?xml version=\"1.0\"?>", "// XML declaration"),
            ("<!DOCTYPE plist [", "// internal subset opens -- CORRUPTED"),
            ("<!ENTITY a \"aaaaaaaaaa\">", "// entity declarations"),
            ("<!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">", "// each level 10x the last"),
            ("<!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">", ""),
            ("]>", "// internal subset closes"),
            ("<plist><string>&c;</string></plist>", "// would expand to 1,000 characters"),
        ], says: "internal subset"),
        MalformedXML(name: "external entity declaration", parts: [
            ("<!DOCTYPE plist [", "// internal subset -- CORRUPTED"),
            ("<!ENTITY xxe SYSTEM \"file:///etc/passwd\">", "// external entity"),
            ("]>", ""),
            ("<plist><string>&xxe;</string></plist>", "// would read a local file"),
        ], says: "internal subset"),
        MalformedXML(name: "undeclared entity reference", parts: [
            ("<plist>", ""),
            ("<string>&xxe;</string>", "// not one of the five predefined entities -- CORRUPTED"),
            ("</plist>", ""),
        ], says: "unknown entity &xxe;"),
        MalformedXML(name: "character reference to a surrogate", parts: [
            ("<plist>", ""),
            ("<string>&#xD800;</string>", "// not a Unicode scalar -- CORRUPTED"),
            ("</plist>", ""),
        ], says: "surrogate"),
        MalformedXML(name: "character reference above U+10FFFF", parts: [
            ("<plist>", ""),
            ("<string>&#1114112;</string>", "// 0x110000 -- CORRUPTED"),
            ("</plist>", ""),
        ], says: "above U+10FFFF"),
        MalformedXML(name: "unterminated entity", parts: [
            ("<plist>", ""),
            ("<string>a &amp b</string>", "// no ';' -- CORRUPTED"),
            ("</plist>", ""),
        ], says: "unterminated entity"),
        MalformedXML(name: "key without a value", parts: [
            ("<plist><dict>", "// open dict"),
            ("<key>a</key>", "// a key"),
            ("<key>b</key><true/>", "// another key where a's value should be -- CORRUPTED"),
            ("</dict></plist>", ""),
        ], says: "key \"a\" has no value"),
        MalformedXML(name: "key without a value at the end", parts: [
            ("<plist><dict>", "// open dict"),
            ("<key>a</key>", "// a key"),
            ("</dict></plist>", "// dict closes before its value -- CORRUPTED"),
        ], says: "key \"a\" has no value"),
        MalformedXML(name: "value without a key", parts: [
            ("<plist><dict>", "// open dict"),
            ("<string>a</string>", "// no <key> before it -- CORRUPTED"),
            ("</dict></plist>", ""),
        ], says: "expected <key>"),
        MalformedXML(name: "key outside a dict", parts: [
            ("<plist><array>", ""),
            ("<key>a</key>", "// keys belong in <dict> -- CORRUPTED"),
            ("</array></plist>", ""),
        ], says: "<key> outside a <dict>"),
        MalformedXML(name: "text outside the root", parts: [
            ("hello", "// text before the root -- CORRUPTED"),
            ("<plist><true/></plist>", ""),
        ], says: "text outside the root"),
        MalformedXML(name: "text after the root", parts: [
            ("<plist><true/></plist>", "// the root"),
            ("junk", "// text after it -- CORRUPTED"),
        ], says: "text after the root"),
        MalformedXML(name: "second root element", parts: [
            ("<plist><true/></plist>", "// the root"),
            ("<plist><false/></plist>", "// a second root -- CORRUPTED"),
        ], says: "element after the root"),
        MalformedXML(name: "two values in plist", parts: [
            ("<plist>", ""),
            ("<true/><false/>", "// <plist> holds one value -- CORRUPTED"),
            ("</plist>", ""),
        ], says: "only one value"),
        MalformedXML(name: "empty plist", parts: [
            ("<plist>", ""),
            ("</plist>", "// no value -- CORRUPTED"),
        ], says: "empty <plist>"),
        MalformedXML(name: "text inside an array", parts: [
            ("<plist><array>", ""),
            ("stray", "// character data between elements -- CORRUPTED"),
            ("</array></plist>", ""),
        ], says: "text inside <array>"),
        MalformedXML(name: "unterminated comment", parts: [
            ("<plist><true/>", ""),
            ("<!-- never closed", "// no '-->' -- CORRUPTED"),
        ], says: "unterminated comment"),
        MalformedXML(name: "unterminated CDATA", parts: [
            ("<plist><string>", ""),
            ("<![CDATA[abc", "// no ']]>' -- CORRUPTED"),
        ], says: "unterminated CDATA"),
        MalformedXML(name: "element inside a string", parts: [
            ("<plist><string>", ""),
            ("<b>bold</b>", "// markup in a string -- CORRUPTED"),
            ("</string></plist>", ""),
        ], says: "markup inside <string>"),
        MalformedXML(name: "nothing but a declaration", parts: [
            ("<?xml version=\"1.0\"?>\n", "// no root element follows -- CORRUPTED"),
        ], says: "no root element"),
        MalformedXML(name: "unsupported declared encoding", parts: [
            ("<?xml version=\"1.0\" encoding=\"Shift_JIS\"?>", "// Shift_JIS declared"),
            ("<plist><string>é</string></plist>", "// and non-ASCII text -- CORRUPTED"),
        ], says: "\"shift_jis\" is not supported"),
        MalformedXML(name: "unclosed start tag", parts: [
            ("<plist><array", "// '>' missing -- CORRUPTED"),
        ], says: "unclosed <array> tag"),
        MalformedXML(name: "nested plist", parts: [
            ("<plist><array>", ""),
            ("<plist><true/></plist>", "// <plist> only at the root -- CORRUPTED"),
            ("</array></plist>", ""),
        ], says: "<plist> inside a value"),
    ]

    @Test(arguments: cases) func malformedInputIsRejected(_ c: MalformedXML) {
        let error = #expect(throws: PropertyListError.self) { try XMLPropertyListReader().read(c.bytes) }
        #expect(error?.code == c.code)
        #expect(error?.message.contains(c.says) == true, "message was: \(error?.message ?? "-")")
        #expect(error?.location.line != nil && error?.location.column != nil && error?.location.byteOffset != nil)
    }

    @Test func invalidUTF8IsRejectedWithItsOffset() {
        var bytes = Data("<plist><string>ab".utf8)  // 17 bytes of valid text
        bytes.append(contentsOf: [0xC0, 0xAF])           // overlong encoding of '/' -- CORRUPTED
        bytes.append(Data("</string></plist>".utf8))
        let error = #expect(throws: PropertyListError.self) { try XMLPropertyListReader().read(bytes) }
        #expect(error?.location.byteOffset == 17)
        #expect(error?.message.contains("invalid UTF-8") == true)

        var surrogate = Data("<string>".utf8)           // 8 bytes
        surrogate.append(contentsOf: [0xED, 0xA0, 0x80])   // UTF-8 for U+D800, a surrogate -- CORRUPTED
        surrogate.append(Data("</string>".utf8))
        #expect(throws: PropertyListError.self) { try XMLPropertyListReader().read(surrogate) }

        var truncated = Data("<string>".utf8)
        truncated.append(contentsOf: [0xE6, 0x97])         // 3-byte sequence cut after 2 bytes -- CORRUPTED
        #expect(throws: PropertyListError.self) { try XMLPropertyListReader().read(truncated) }
    }

    @Test func invalidUTF16IsRejected() {
        let bytes = Data([0xFF, 0xFE,      // UTF-16LE byte-order mark
                          0x3C, 0x00,      // '<'
                          0x00, 0xD8,      // a high surrogate with no low surrogate after it -- CORRUPTED
                          0x3E, 0x00])     // '>'
        let error = #expect(throws: PropertyListError.self) { try XMLPropertyListReader().read(bytes) }
        #expect(error?.message.contains("unpaired") == true)
        #expect(throws: PropertyListError.self) {
            try XMLPropertyListReader().read(Data([0xFF, 0xFE, 0x3C]))  // BOM, then an odd byte -- CORRUPTED
        }
        #expect(throws: PropertyListError.self) {
            try XMLPropertyListReader().read(Data([0xFF, 0xFE, 0x00, 0x00, 0x3C, 0, 0, 0]))  // UTF-32LE -- unsupported
        }
    }

    /// Every prefix and many single-byte mutations of a rich document end in a value or a thrown error.
    @Test func truncationsAndMutationsNeverCrash() throws {
        let doc = Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0"><dict><key>a&amp;</key><array><integer>-0x10</integer><real>nan</real>
            <date>2001-01-01T00:00:00Z</date><data>AQID</data><string>x<![CDATA[y]]>&#x1F389;</string>
            <!-- c --><true/><false/><dict><key>CF$UID</key><integer>3</integer></dict></array></dict></plist>
            """.utf8)
        #expect(throws: Never.self) { try XMLPropertyListReader().read(doc) }
        for n in 0..<doc.count {
            _ = try? XMLPropertyListReader().read(doc.prefix(n))
        }
        var g = SeededGenerator(seed: 7)
        let interesting: [UInt8] = Array("<>/&;![]-?=\"' \n\0x#".utf8) + [0x80, 0xC3, 0xFF]
        for _ in 0..<3000 {
            var m = Array(doc)
            for _ in 0..<Int.random(in: 1...3, using: &g) {
                let i = Int.random(in: 0..<m.count, using: &g)
                m[i] = Bool.random(using: &g) ? interesting[Int.random(in: 0..<interesting.count, using: &g)]
                    : UInt8.random(in: 0...255, using: &g)
            }
            _ = try? XMLPropertyListReader().read(Data(m))
        }
    }
}
