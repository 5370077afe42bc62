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

    // unarchiver, crash-4bde2b693a73c9d838938d5500eb5437e80ee7e4 (an NSMutableSet whose NS.objects named five
    // members, two of them equal integers; reduced to three members): decoded as a FoundationValue the set
    // kept both 2s, the archiver wrote the set's distinct members only, so the re-archived value read back
    // with one 2 and decode -> archive -> decode changed the value. A set's repeated member now collapses
    // into the first, as in NSSet.
    @Test func foundationValueSetWithRepeatedMembersKeepsEachOnceThroughARoundTrip() throws {
        let input = Self.document([
            "<plist version=\"1.0\"><dict>",
            "<key>$archiver</key><string>NSKeyedArchiver</string>",
            "<key>$version</key><integer>100000</integer>",
            "<key>$top</key><dict><key>root</key><dict><key>CF$UID</key><integer>1</integer></dict></dict>",
            "<key>$objects</key><array>",
            "<string>$null</string>",                                            // 0
            "<dict><key>$class</key><dict><key>CF$UID</key><integer>5</integer></dict>",   // 1: the set
            "<key>NS.objects</key><array>",
            "<dict><key>CF$UID</key><integer>2</integer></dict>",                // member 2
            "<dict><key>CF$UID</key><integer>3</integer></dict>",                // member 2 again -- REPEATED (another object)
            "<dict><key>CF$UID</key><integer>4</integer></dict>",                // member 5
            "<dict><key>CF$UID</key><integer>2</integer></dict>",                // member 2 again -- REPEATED (the same object)
            "</array></dict>",
            "<integer>2</integer>",                                              // 2
            "<integer>2</integer>",                                              // 3: equal to 2
            "<integer>5</integer>",                                              // 4
            "<dict><key>$classname</key><string>NSMutableSet</string>",          // 5
            "<key>$classes</key><array><string>NSMutableSet</string><string>NSSet</string><string>NSObject</string></array></dict>",
            "</array>",
            "</dict></plist>",
        ])
        let value = try KeyedUnarchiver().decode(FoundationValue.self, from: input)
        #expect(value == .set([.integer(2), .integer(5)]))
        let again = try KeyedUnarchiver().decode(FoundationValue.self, from: KeyedArchiver.archivedData(withRootObject: value))
        #expect(again == value)
    }
    // unarchiver, crash-c860735b430dd3d3479719d4eee1270d49afaca4 (an NSCountedSet whose members were false, 1, 2,
    // 4 and 5, each five times): the counted set wrote a Boolean member as the integer 0, so decode -> archive
    // -> decode turned `false` into `0`. A Boolean member is now written as a Boolean NSNumber.
    @Test func countedSetWithABooleanMemberKeepsItBooleanThroughARoundTrip() throws {
        let input = Self.document([
            "<plist version=\"1.0\"><dict>",
            "<key>$archiver</key><string>NSKeyedArchiver</string>",
            "<key>$version</key><integer>100000</integer>",
            "<key>$top</key><dict><key>root</key><dict><key>CF$UID</key><integer>1</integer></dict></dict>",
            "<key>$objects</key><array>",
            "<string>$null</string>",                                                      // 0
            "<dict><key>$class</key><dict><key>CF$UID</key><integer>4</integer></dict>",  // 1: the counted set
            "<key>NS.count</key><integer>2</integer>",
            "<key>NS.object0</key><dict><key>CF$UID</key><integer>2</integer></dict>",
            "<key>NS.count0</key><integer>5</integer>",
            "<key>NS.object1</key><dict><key>CF$UID</key><integer>3</integer></dict>",
            "<key>NS.count1</key><integer>5</integer>",
            "</dict>",
            "<false/>",                                                                    // 2: a Boolean member
            "<integer>1</integer>",                                                        // 3
            "<dict><key>$classname</key><string>NSCountedSet</string>",                   // 4
            "<key>$classes</key><array><string>NSCountedSet</string><string>NSMutableSet</string>",
            "<string>NSSet</string><string>NSObject</string></array></dict>",
            "</array>",
            "</dict></plist>",
        ])
        let value = try KeyedUnarchiver().decode(FoundationValue.self, from: input)
        #expect(value == .countedSet(ArchivedCountedSet(counts: [.bool(false): 5, .integer(1): 5])))
        let again = try KeyedUnarchiver().decode(FoundationValue.self, from: KeyedArchiver.archivedData(withRootObject: value))
        #expect(again == value)
        // `true` and the integer 1 stay two members.
        let both = FoundationValue.countedSet(ArchivedCountedSet(counts: [.bool(true): 2, .integer(1): 3]))
        #expect(try KeyedUnarchiver().decode(FoundationValue.self, from: KeyedArchiver.archivedData(withRootObject: both)) == both)
    }

    // openstep-reader, crash-e4fa4184dd170e6013c15e651957f16193530c31 ("Foundation reads this OpenStep
    // text; ours rejects it"): a .strings file whose last key is an unterminated quoted string. Foundation
    // (CFOldStylePList.c) drops the failed key and ends the entries there.
    @Test func openStepStringsFileEndingInAnUnterminatedKeyReadsAsFoundationReadsIt() throws {
        let data = Data([0x61, 0x3B, 0x22])  // a ; "  -- the last key's quote is never closed
        let foundation = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        #expect(FoundationBridge.value(foundation) == ["a": "a"])
        #expect(try OpenStepPropertyListReader().read(data) == ["a": "a"])
    }

    // openstep-reader, crash-3b2dd4e18573fd113cb12c86efe1c1f88ebb7403 ("ours reads \"\0\0is\"; Foundation
    // rejects the text"): CoreFoundation takes a zero second byte for UTF-16 without a byte-order mark.
    @Test func openStepTextWithAZeroSecondByteIsRefusedAsFoundationRefusesIt() throws {
        let data = Data([0x27, 0x00, 0x00, 0x69, 0x73, 0x27])  // ' NUL NUL i s '  -- zero bytes where CF guesses UTF-16
        #expect(throws: (any Error).self) { try PropertyListSerialization.propertyList(from: data, options: [], format: nil) }
        let error = try #require(throws: PropertyListError.self) { try OpenStepPropertyListReader().read(data) }
        #expect(error.code == .invalidOpenStep)
        #expect(error.location.byteOffset == 1)
        #expect(try OpenStepPropertyListReader().read(Data("'a\u{0}b'".utf8)) == .string("a\u{0}b"))  // a zero byte later is a character
        #expect(try PropertyListSerialization.propertyList(from: Data("'a\u{0}b'".utf8), options: [], format: nil) as? String == "a\u{0}b")
    }

    // typedstream, crash-e3d7bc47f664e9179cc7f1b7dfe3d295551bd6d9 ("the only root, a kept object, is not
    // written as the raw model writes the archive"): a crafted archive that stores one class name twice (same
    // version and superclass). The raw model keeps both entries; TypedstreamArchiver stores a class once, by
    // name, as Apple's writer does, so the second object refers to the first entry: 3 bytes fewer, the same
    // objects and values. The fuzz property now expects that; this pins what is written.
    @Test func keptObjectOfAnArchiveStoringAClassNameTwiceIsWrittenWithTheClassOnce() throws {
        let archive = TypedstreamArchive(
            classes: [TypedstreamClass(name: "Holder", version: 1, superclass: nil),
                      TypedstreamClass(name: "Leaf", version: 0, superclass: nil),
                      TypedstreamClass(name: "Leaf", version: 0, superclass: nil)],
            objects: [
                TypedstreamObject(classIndex: 0, groups: [TypedstreamGroup(encoding: "@@", values: [.object(1), .object(2)])]),
                TypedstreamObject(classIndex: 1, groups: [TypedstreamGroup(encoding: "i", values: [.integer(1)])]),
                TypedstreamObject(classIndex: 2, groups: [TypedstreamGroup(encoding: "i", values: [.integer(2)])]),
            ],
            groups: [TypedstreamGroup(encoding: "@", values: [.object(0)])])
        let raw = try archive.encodedData()
        #expect(try TypedstreamArchive(data: raw).classes.count == 3)  // the raw model keeps both entries
        var unarchiver = TypedstreamUnarchiver()
        unarchiver.keepsUnknownObjects = true
        let written = try TypedstreamArchiver().archivedData(withRootValue: unarchiver.foundationValue(from: raw))
        let back = try TypedstreamArchive(data: written)
        #expect(back.classes == [TypedstreamClass(name: "Holder", version: 1, superclass: nil),
                                 TypedstreamClass(name: "Leaf", version: 0, superclass: nil)])
        #expect(back.objects.map(\.groups) == archive.objects.map(\.groups))
        #expect(back.objects.map(\.classIndex) == [0, 1, 1])
        #expect(written.count == raw.count - 3)  // the second Leaf is a class reference, not a definition
        #expect(try TypedstreamArchiver().archivedData(withRootValue: unarchiver.foundationValue(from: written)) == written)
    }

    // openstep-reader, crash-0de59995204186e361b8c8f17813f1f077efa784 ("Foundation reads this OpenStep text;
    // ours rejects it"): CoreFoundation reads each UTF-16 unit inside data by its low byte
    // (CFOldStylePList.c getDataBytes: `fromHexDigit((unsigned char)ch1)`), so U+0530 (D4 B0 in UTF-8) is
    // the digit 0 and `D` U+0530 the byte D0.
    @Test func openStepDataDigitPastASCIIIsReadByItsLowByteAsFoundationReadsIt() throws {
        let data = Data([0x3C, 0x62, 0x44, 0x44, 0x44, 0x44, 0xD4, 0xB0, 0x3E])  // < b D D D D U+0530 >
        let foundation = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
        #expect(FoundationBridge.value(foundation) == .data(Data([0xBD, 0xDD, 0xD0])))
        #expect(try OpenStepPropertyListReader().read(data) == .data(Data([0xBD, 0xDD, 0xD0])))
        #expect(try PropertyListValue(propertyListData: data) == .data(Data([0xBD, 0xDD, 0xD0])))
    }

    // openstep-reader, crash-f5083db37ed56ef40f415d21259bf102ef9f3818 ("Foundation reads this OpenStep text;
    // ours rejects it"): a deliberate difference. CoreFoundation reads text whose first byte is zero as UTF-16
    // without a byte-order mark from its third byte, so these four bytes are the vertical tab U+000B, blank
    // text, an empty dictionary; ours refuses text it would have to guess the encoding of (the fuzz target's
    // differential skips such text).
    @Test func openStepTextStartingWithAZeroByteIsRefusedWhereFoundationGuessesUTF16() throws {
        let data = Data([0x00, 0x20, 0x0B, 0x00])  // NUL, space -- skipped by CF as if a byte-order mark; then VT as UTF-16LE
        var format = PropertyListSerialization.PropertyListFormat.binary
        let foundation = try PropertyListSerialization.propertyList(from: data, options: [], format: &format)
        #expect(format == .openStep)
        #expect(FoundationBridge.value(foundation) == .dictionary(PropertyListDictionary()))
        let error = try #require(throws: PropertyListError.self) { try OpenStepPropertyListReader().read(data) }
        #expect(error.location.byteOffset == 0)
        #expect(throws: PropertyListError.self) { try PropertyListValue(propertyListData: data) }
    }
}
