import Foundation
import Testing
@testable import KeyedArchive

/// Inputs the fuzzers (Fuzz/, Scripts/fuzz.sh) found, reduced to their essence, with the behaviour that
/// is now correct. Each test names the target and the property that was violated.
@Suite struct FuzzRegressionTests {
    /// Joins annotated lines of an XML document into its bytes.
    private static func document(_ lines: [String]) -> Data { Data(lines.joined(separator: "\n").utf8) }

    // xml-reader, crash-dcc05ef5f03c856fd6243afc610033c9860fd021 (a node's `next` reference in a keyed
    // archive, reduced here to the reference alone): `CF$UID` given twice read as a one-key dictionary,
    // which the writer wrote as `{CF$UID: 0}`, which read back as a UID, so read -> write -> read changed
    // the value. A repeated key keeps its last value, and the UID test is made on that dictionary.
    @Test func repeatedCFUIDKeyReadsAsOneUID() throws {
        let input = Self.document([
            "<plist version=\"1.0\">",   // root element
            "<dict>",                    // what would be a UID reference...
            "<key>CF$UID</key>",         // ...key CF$UID
            "<integer>6</integer>",      // first value 6
            "<key>CF$UID</key>",         // the same key again -- REPEATED
            "<integer>0</integer>",      // last value 0: wins
            "</dict>",
            "</plist>",
        ])
        let value = try XMLPropertyListReader().read(input)
        #expect(value == .uid(UID(0)))
        let again = try XMLPropertyListReader().read(XMLPropertyListWriter().write(value))
        #expect(again == value)
    }

    @Test func repeatedCFUIDKeyWithANonIntegerLastValueStaysADictionaryThroughARoundTrip() throws {
        let input = Self.document([
            "<plist version=\"1.0\">",   // root element
            "<dict>",
            "<key>CF$UID</key>",         // key CF$UID
            "<integer>6</integer>",      // first value: an integer
            "<key>CF$UID</key>",         // the same key again -- REPEATED
            "<string>x</string>",        // last value: a string, so not a UID
            "</dict>",
            "</plist>",
        ])
        let value = try XMLPropertyListReader().read(input)
        #expect(value == .dictionary(["CF$UID": "x"]))
        let again = try XMLPropertyListReader().read(XMLPropertyListWriter().write(value))
        #expect(again == value)
    }

    // xml-reader, crash-f3bfa60c8c72829b43acf1364fb21b861b0c6bdf (reduced to the one element that mattered):
    // `{CF$UID: 4294967296}` read as a UID, the binary writer wrote it, and the binary reader, strict as
    // CoreFoundation (UIDs are 32-bit), rejected the writer's output. Such a dictionary now stays a
    // dictionary, and the round trip through binary keeps it.
    @Test func cfUIDAboveUInt32MaxStaysADictionaryThroughBinary() throws {
        let input = Self.document([
            "<plist version=\"1.0\">",   // root element
            "<array>",
            "<dict><key>CF$UID</key><integer>4294967295</integer></dict>",   // UInt32.max: a UID
            "<dict><key>CF$UID</key><integer>4294967296</integer></dict>",   // UInt32.max + 1 -- TOO LARGE for a UID
            "</array>",
            "</plist>",
        ])
        let value = try XMLPropertyListReader().read(input)
        #expect(value == .array([.uid(UID(UInt64(UInt32.max))), .dictionary(["CF$UID": 4294967296])]))
        let binary = BinaryPropertyListWriter().write(value)
        #expect(try BinaryPropertyListReader().read(binary) == value)
    }
}
