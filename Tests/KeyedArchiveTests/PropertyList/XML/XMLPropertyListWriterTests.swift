import Foundation
import Testing
@testable import KeyedArchive

@Suite struct XMLPropertyListWriterTests {
    private func text(_ value: PropertyListValue) throws -> String {
        String(decoding: try XMLPropertyListWriter().write(value), as: UTF8.self)
    }

    private static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """

    @Test func layoutMatchesApplesWriter() throws {
        let value: PropertyListValue = [
            "b": [true, false, .array([]), .dictionary([:])],
            "a": .uid(UID(3)),
            "s": "x<&>\"'\u{1}\r",
        ]
        let expected = Self.header + """
            <dict>
            \t<key>b</key>
            \t<array>
            \t\t<true/>
            \t\t<false/>
            \t\t<array/>
            \t\t<dict/>
            \t</array>
            \t<key>a</key>
            \t<dict>
            \t\t<key>CF$UID</key>
            \t\t<integer>3</integer>
            \t</dict>
            \t<key>s</key>
            \t<string>x&lt;&amp;&gt;"'&#1;&#13;</string>
            </dict>
            </plist>

            """
        #expect(try text(value) == expected)
    }

    @Test func realsUseApplesSpellingsAndDigits() throws {
        let value: PropertyListValue = [.real(.nan), .real(.infinity), .real(-.infinity), .real(3), .real(0.1),
                                        .real(0), .real(-0.0), .float(0.5), .real(1e300), .real(1e16)]
        let lines = try text(value).split(separator: "\n").filter { $0.contains("<real>") }
        #expect(lines == ["\t<real>nan</real>", "\t<real>+infinity</real>", "\t<real>-infinity</real>",
                          "\t<real>3</real>", "\t<real>0.10000000000000001</real>", "\t<real>0.0</real>",
                          "\t<real>-0.0</real>", "\t<real>0.5</real>", "\t<real>1.0000000000000001e+300</real>",
                          "\t<real>10000000000000000</real>"])
    }

    @Test func datesAreWrittenInWholeSecondsRoundedDown() throws {
        func dateLine(_ t: Double) throws -> String {
            let s = try text(.date(Date(timeIntervalSinceReferenceDate: t)))
            return String(s.split(separator: "\n")[3])
        }
        #expect(try dateLine(12.75) == "<date>2001-01-01T00:00:12Z</date>")
        #expect(try dateLine(-0.5) == "<date>2000-12-31T23:59:59Z</date>")
        #expect(try dateLine(-63_113_904_000) == "<date>0001-01-01T00:00:00Z</date>")
        #expect(try dateLine(-63_113_904_000 - 366 * 86_400) == "<date>0000-01-01T00:00:00Z</date>")
        #expect(try dateLine(-63_113_904_000 - 731 * 86_400) == "<date>-001-01-01T00:00:00Z</date>")
        #expect(try dateLine(1e13) == "<date>318888-05-20T17:46:40Z</date>")
    }

    @Test func unrepresentableValuesThrowWithTheirKeyPath() throws {
        let set: PropertyListValue = ["$objects": ["a", .set([1])]]
        let error = #expect(throws: PropertyListError.self) { try XMLPropertyListWriter().write(set) }
        #expect(error?.code == .unrepresentable)
        #expect(error?.location.keyPath == "$objects[1]")

        let infiniteDate = PropertyListValue.date(Date(timeIntervalSinceReferenceDate: .infinity))
        #expect(throws: PropertyListError.self) { try XMLPropertyListWriter().write(infiniteDate) }
        #expect(throws: PropertyListError.self) { try infiniteDate.propertyListData(format: .xml) }
    }

    @Test func floatsBecomeRealsAndSubSecondDatesAreTruncated() throws {
        let value: PropertyListValue = [.float(0.1), .date(Date(timeIntervalSinceReferenceDate: 1.9))]
        let back = try XMLPropertyListReader().read(try XMLPropertyListWriter().write(value))
        #expect(back == [.real(Double(Float(0.1))), .date(Date(timeIntervalSinceReferenceDate: 1))])
    }

    @Test func deepValuesAreWrittenIteratively() throws {
        var value: PropertyListValue = "leaf"
        for _ in 0..<2_000 { value = .array([value]) }
        let data = try XMLPropertyListWriter().write(value)
        var options = PropertyListReadingOptions()
        options.maximumDepth = 2_000
        #expect(try XMLPropertyListReader(options: options).read(data) == value)
    }

    @Test func randomValuesRoundTrip() throws {
        var g = SeededGenerator(seed: 0x5EED)
        for _ in 0..<300 {
            let value = XMLTestSupport.randomValue(&g, depth: 4, .init())
            let data = try XMLPropertyListWriter().write(value)
            let back = try XMLPropertyListReader().read(data)
            #expect(back == XMLTestSupport.xmlNormalised(value))
            // Key order survives too.
            #expect(XMLTestSupport.keyOrders(back) == XMLTestSupport.keyOrders(value))
            // And writing again gives the same bytes.
            #expect(try XMLPropertyListWriter().write(back) == data)
        }
    }
}

extension XMLTestSupport {
    /// Every dictionary's key list, depth first.
    static func keyOrders(_ value: PropertyListValue) -> [[String]] {
        switch value {
        case .array(let a), .set(let a): return a.flatMap(keyOrders)
        case .dictionary(let d): return [d.keys] + d.values.flatMap(keyOrders)
        default: return []
        }
    }
}
