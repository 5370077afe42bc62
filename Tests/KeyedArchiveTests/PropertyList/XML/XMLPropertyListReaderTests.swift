import Foundation
import Testing
@testable import KeyedArchive

@Suite struct XMLPropertyListReaderTests {
    private func read(_ xml: String, options: PropertyListReadingOptions = .init()) throws -> PropertyListValue {
        try XMLPropertyListReader(options: options).read(Data(xml.utf8))
    }

    private func plist(_ body: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        \(body)
        </plist>
        """
    }

    @Test func readsEveryKindOfValue() throws {
        let value = try read(plist("""
            <dict>
            \t<key>s</key><string>hello</string>
            \t<key>i</key><integer>-42</integer>
            \t<key>r</key><real>1.5</real>
            \t<key>t</key><true/>
            \t<key>f</key><false/>
            \t<key>d</key><date>2001-01-01T00:00:12Z</date>
            \t<key>x</key><data>AQID</data>
            \t<key>a</key><array><integer>1</integer><string/></array>
            \t<key>e</key><dict/>
            \t<key>u</key><dict><key>CF$UID</key><integer>7</integer></dict>
            </dict>
            """))
        let expected: PropertyListValue = [
            "s": "hello", "i": -42, "r": 1.5, "t": true, "f": false,
            "d": .date(Date(timeIntervalSinceReferenceDate: 12)), "x": .data(Data([1, 2, 3])),
            "a": [1, ""], "e": .dictionary([:]), "u": .uid(UID(7)),
        ]
        #expect(value == expected)
        #expect(value.dictionaryValue?.keys == ["s", "i", "r", "t", "f", "d", "x", "a", "e", "u"])
    }

    @Test func rootNeedNotBeWrappedInPlist() throws {
        #expect(try read("<array><true/></array>") == [true])
        #expect(try read("  <string>x</string>\n") == "x")
    }

    @Test func integersCoverTheFullSignedAndUnsignedRange() throws {
        #expect(try read("<integer>-9223372036854775808</integer>") == .integer(PropertyListInteger(Int64.min)))
        #expect(try read("<integer>18446744073709551615</integer>") == .integer(PropertyListInteger(UInt64.max)))
        #expect(try read("<integer>0x10</integer>") == 16)
        #expect(try read("<integer>-0X1f</integer>") == -31)
        #expect(try read("<integer>+5</integer>") == 5)
        #expect(try read("<integer> 7\n</integer>") == 7)
        #expect(try read("<integer>0xFFFFFFFFFFFFFFFF</integer>") == .integer(PropertyListInteger(UInt64.max)))
        #expect(try read("<integer>-0x8000000000000000</integer>") == .integer(PropertyListInteger(Int64.min)))
    }

    @Test func realsIncludingApplesSpecialSpellings() throws {
        #expect(try read("<real>nan</real>") == .real(.nan))
        #expect(try read("<real>+infinity</real>") == .real(.infinity))
        #expect(try read("<real>-infinity</real>") == .real(-.infinity))
        #expect(try read("<real>-INF</real>") == .real(-.infinity))
        #expect(try read("<real>0.10000000000000001</real>") == .real(0.1))
        #expect(try read("<real>1e+300</real>") == .real(1e300))
        #expect(try read("<real>-0</real>") == .real(-0.0))
        #expect(try read("<real>.5</real>") == .real(0.5))
        #expect(try read("<real>3</real>") == .real(3))
    }

    @Test func datesAreWholeSecondsInTheProlepticGregorianCalendar() throws {
        #expect(try read("<date>2000-12-31T23:59:59Z</date>") == .date(Date(timeIntervalSinceReferenceDate: -1)))
        #expect(try read("<date>0001-01-01T00:00:00Z</date>") == .date(Date(timeIntervalSinceReferenceDate: -63_113_904_000)))
        #expect(try read("<date>2024-02-29T12:00:00Z</date>") == .date(Date(timeIntervalSinceReferenceDate: 730_900_800)))
        #expect(try read("<date>0000-01-01T00:00:00Z</date>") == .date(Date(timeIntervalSinceReferenceDate: -63_113_904_000 - 366 * 86_400)))
    }

    @Test func stringsDecodeEntitiesCharacterReferencesAndCDATA() throws {
        #expect(try read("<string>&lt;a&gt; &amp; &quot;b&quot; &apos;c&apos;</string>") == "<a> & \"b\" 'c'")
        #expect(try read("<string>&#65;&#x42;&#x1F389;&#0;</string>") == "AB🎉\u{0}")
        #expect(try read("<string>a<![CDATA[<b>&amp;]]>c</string>") == "a<b>&amp;c")
        #expect(try read("<string>a<!-- note -->b</string>") == "ab")
        #expect(try read("<string>日本\r\n</string>") == "日本\r\n")
        #expect(try read("<dict><key>a&amp;b</key><string/><key/><true/></dict>") == ["a&b": "", "": true])
    }

    @Test func commentsProcessingInstructionsAndWhitespaceAreSkipped() throws {
        let value = try read("""
            <?xml version="1.0"?>
            <!-- before -->
            <!DOCTYPE plist SYSTEM "file:///never/fetched.dtd">
            <?pi stuff?>
            <plist version="1.0"><!-- in plist -->
            <array>
              <!-- a comment -->
              <?pi x?>
              <integer>1</integer>
            </array >
            </plist >
            <!-- after -->

            """)
        #expect(value == [1])
    }

    @Test func uidOnlyForASingleCFUIDKeyWithAnIntegerUpToUInt32Max() throws {
        #expect(try read("<dict><key>CF$UID</key><integer>0</integer></dict>") == .uid(UID(0)))
        #expect(try read("<dict><key>CF$UID</key><integer>4294967295</integer></dict>") == .uid(UID(UInt64(UInt32.max))))
        // Above UInt32.max (CoreFoundation's UIDs are 32-bit; the strict binary reader rejects such a UID):
        // stays a dictionary, so the value survives a conversion to binary and back.
        let large = try read("<dict><key>CF$UID</key><integer>4294967296</integer></dict>")
        #expect(large == ["CF$UID": 4294967296])
        #expect(try PropertyListValue(propertyListData: BinaryPropertyListWriter().write(large)) == large)
        #expect(try read("<dict><key>CF$UID</key><integer>18446744073709551615</integer></dict>")
            == ["CF$UID": .integer(PropertyListInteger(UInt64.max))])
        // Negative: stays a dictionary.
        #expect(try read("<dict><key>CF$UID</key><integer>-1</integer></dict>") == ["CF$UID": -1])
        // Not an integer: stays a dictionary.
        #expect(try read("<dict><key>CF$UID</key><string>4</string></dict>") == ["CF$UID": "4"])
        // A second key: stays a dictionary.
        #expect(try read("<dict><key>CF$UID</key><integer>4</integer><key>x</key><true/></dict>")
            == ["CF$UID": 4, "x": true])
    }

    @Test func dataIgnoresWhitespaceAndToleratesMissingPadding() throws {
        #expect(try read("<data>\n\tAQID\n\tBA==\n</data>") == .data(Data([1, 2, 3, 4])))
        #expect(try read("<data>AQ</data>") == .data(Data([1])))
        #expect(try read("<data>AQI</data>") == .data(Data([1, 2])))
        #expect(try read("<data></data>") == .data(Data()))
        #expect(try read("<data/>") == .data(Data()))
    }

    @Test func byteOrderMarkAndUTF16AreAccepted() throws {
        var withBOM = Data([0xEF, 0xBB, 0xBF])
        withBOM.append(Data("<plist><string>é</string></plist>".utf8))
        #expect(try XMLPropertyListReader().read(withBOM) == "é")
        #expect(try PropertyListValue(propertyListData: withBOM) == "é")

        let text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><plist><string>é🎉</string></plist>"
        var le = Data([0xFF, 0xFE])
        for unit in text.utf16 { le.append(UInt8(unit & 0xFF)); le.append(UInt8(unit >> 8)) }
        var be = Data()
        for unit in text.utf16 { be.append(UInt8(unit >> 8)); be.append(UInt8(unit & 0xFF)) }
        #expect(try XMLPropertyListReader().read(le) == "é🎉")
        #expect(try XMLPropertyListReader().read(be) == "é🎉")
        #expect(PropertyListValue.detectFormat(of: le) == .xml)
        #expect(PropertyListValue.detectFormat(of: be) == .xml)
        #expect(try PropertyListValue(propertyListData: le) == "é🎉")
    }

    @Test func depthIsBoundedByOptions() throws {
        var options = PropertyListReadingOptions()
        options.maximumDepth = 3
        #expect(try read("<array><array><array/></array></array>", options: options) == [[[]]])
        #expect(try read("<array><array><array></array></array></array>", options: options) == [[[]]])
        let error = #expect(throws: PropertyListError.self) {
            try read("<array><array><array><array></array></array></array></array>", options: options)
        }
        #expect(error?.code == .tooDeep)
        #expect(error?.location.keyPath == "[0][0][0]")
    }

    @Test func hundredThousandNestedArraysThrowWithoutOverflowingTheStack() throws {
        let n = 100_000
        let xml = String(repeating: "<array>", count: n) + String(repeating: "</array>", count: n)
        let error = #expect(throws: PropertyListError.self) { try read(xml) }
        #expect(error?.code == .tooDeep)
        #expect(error?.location.byteOffset == 512 * 7)
        // Unclosed, too: still a clean error.
        #expect(throws: PropertyListError.self) { try read(String(repeating: "<array>", count: n)) }
        // Allowed depth: reads.
        var options = PropertyListReadingOptions()
        options.maximumDepth = 600
        let ok = String(repeating: "<array>", count: 600) + String(repeating: "</array>", count: 600)
        var value = try read(ok, options: options)
        var depth = 0
        while case .array(let a) = value {
            depth += 1
            guard let first = a.first else { break }
            value = first
        }
        #expect(depth == 600)
    }

    @Test func objectCountIsBoundedByOptions() throws {
        var options = PropertyListReadingOptions()
        options.maximumObjectCount = 3
        #expect(try read("<array><true/><true/></array>", options: options) == [true, true])
        let error = #expect(throws: PropertyListError.self) {
            try read("<array><true/><true/><true/></array>", options: options)
        }
        #expect(error?.code == .limitExceeded)
    }

    @Test func errorsCarryLineColumnByteOffsetAndKeyPath() throws {
        let xml = "<plist>\n<dict>\n\t<key>$objects</key>\n\t<array>\n\t\t<string>a</string>\n\t\t<integer>x</integer>\n"
            + "\t</array>\n</dict>\n</plist>"
        let error = #expect(throws: PropertyListError.self) { try read(xml) }
        #expect(error?.code == .invalidXML)
        #expect(error?.location.line == 6)
        #expect(error?.location.column == 12)
        #expect(error?.location.byteOffset == Array(xml.utf8).firstIndex(of: UInt8(ascii: "x")))
        #expect(error?.location.keyPath == "$objects[1]")
        #expect(error?.description.contains("line 6, column 12") == true)
    }
}
