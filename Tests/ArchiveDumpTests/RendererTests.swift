import Testing
import Foundation
import KeyedArchive
@testable import ArchiveDumpCore

/// The archives the renderer tests print.
enum Samples {
    /// Note { title, tags: NSArray, created: NSDate, id: NSUUID, link: NSURL, meta: NSDictionary, parent: nil,
    /// me: (cycle), again: (repeat of tags), count: 3, ratio: 0.5 }
    static func note() -> PropertyListValue {
        var b = ArchiveBuilder()
        let note = b.reserve()                                                       // #1
        let title = b.add("Shopping\tlist")                                          // #2
        let milk = b.add("milk")                                                     // #3
        let tags = b.object("NSArray", ["NSObject"], [("NS.objects", [milk, .ref(0)])])  // class #4, #5
        let created = b.object("NSDate", ["NSObject"], [("NS.time", 736_250_400.25)])     // class #6, #7
        let uuidBytes: [UInt8] = [0x6B, 0xA7, 0xB8, 0x10, 0x9D, 0xAD, 0x11, 0xD1, 0x80, 0xB4, 0x00, 0xC0, 0x4F, 0xD4, 0x30, 0xC8]
        let id = b.object("NSUUID", ["NSObject"], [("NS.uuidbytes", .data(Data(uuidBytes)))])  // class #8, #9
        let urlString = b.add("https://example.com/")                               // #10
        let link = b.object("NSURL", ["NSObject"], [("NS.base", .ref(0)), ("NS.relative", urlString)])  // class #11, #12
        let key = b.add("k")                                                         // #13
        let meta = b.object("NSDictionary", ["NSObject"], [("NS.keys", [key]), ("NS.objects", [tags])])  // class #14, #15
        b.set(note, b.instance("Note", ["NSObject"], [
            ("title", title), ("tags", tags), ("created", created), ("id", id), ("link", link), ("meta", meta),
            ("parent", .ref(0)), ("me", note), ("count", 3), ("ratio", 0.5),
        ]))                                                                          // class #16
        return b.archive(root: note)
    }

    /// A small plain property list with every kind of value.
    static let allKinds: PropertyListValue = .dictionary([
        "int": .integer(PropertyListInteger(UInt64.max)),
        "neg": -42,
        "one": 1.0,
        "big": 1e100,
        "tiny": .real(.leastNonzeroMagnitude),
        "negzero": .real(-0.0),
        "nan": .real(.nan),
        "inf": .real(.infinity),
        "minf": .real(-.infinity),
        "float": .float(0.1),
        "yes": true,
        "when": .date(Date(timeIntervalSinceReferenceDate: -1.5)),
        "bytes": .data(Data([0, 1, 254, 255])),
        "ref": .uid(UID(7)),
        "set": .set(["a"]),
        "empty": [],
        "none": [:],
        "text": "q\"\\\u{1B}é",
    ])
}

func rendered(_ body: (DumpOutput) -> Void) -> String {
    let collector = DumpOutputCollector()
    body(collector.output)
    return collector.text
}

@Suite struct TreeRendererTests {
    @Test func treeShowsFoundationValuesRepeatsAndCycles() throws {
        let graph = try ArchivedObjectGraph(propertyList: Samples.note())
        let text = rendered { TreeRenderer().render(graph: graph, to: $0) }
        #expect(text == """
            keyed archive: $archiver "NSKeyedArchiver", $version 100000, 17 entries in $objects
            root: #1 Note
              title: #2 "Shopping\\tlist"
              tags: #5 NSArray (2 items)
                [0]: #3 "milk"
                [1]: nil
              created: #7 NSDate 2024-05-01T10:00:00.25Z
              id: #9 NSUUID 6BA7B810-9DAD-11D1-80B4-00C04FD430C8
              link: #12 NSURL https://example.com/
              meta: #15 NSDictionary (1 entry)
                "k": #5 NSArray (2 items) (repeated: see line 4)
              parent: nil
              me: #1 Note (cycle: back to line 2)
              count: 3
              ratio: 0.5

            """)
    }

    @Test func maxDepthStopsExpandingAndDoesNotMarkObjectsShown() throws {
        let graph = try ArchivedObjectGraph(propertyList: Samples.note())
        let text = rendered { TreeRenderer(maxDepth: 1).render(graph: graph, to: $0) }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines[3] == "  tags: #5 NSArray (2 items) ...")
        #expect(lines[7] == "  meta: #15 NSDictionary (1 entry) ...")
        #expect(lines.count == 13)
        let top = rendered { TreeRenderer(maxDepth: 0).render(graph: graph, to: $0) }
        #expect(top.hasSuffix("\nroot: #1 Note ...\n"))
    }

    @Test func plainPropertyListIsATreeOfValues() {
        let plist: PropertyListValue = ["name": "x", "list": [1, ["k": true]], "weird key": .data(Data(repeating: 7, count: 40))]
        let text = rendered { TreeRenderer().render(propertyList: plist, to: $0) }
        #expect(text == """
            dictionary (3 entries)
              name: "x"
              list: array (2 items)
                [0]: 1
                [1]: dictionary (1 entry)
                  k: true
              "weird key": {length = 40, bytes = 0x070707070707070707070707070707070707070707070707 ... 0707070707070707}

            """)
    }

    @Test func classDefinitionsAndInlineContainersAreShown() throws {
        var b = ArchiveBuilder()
        let loose = b.add(["a", 1])                                   // #1, an array without $class
        let cls = b.classRef("Thing", ["NSObject"])                    // #2
        let thing = b.object("Thing", ["NSObject"], [("loose", loose), ("cls", cls), ("refs", .dictionary(["x": .ref(1)]))])
        let graph = try ArchivedObjectGraph(propertyList: b.archive(root: thing))
        let text = rendered { TreeRenderer().render(graph: graph, to: $0) }
        #expect(text == """
            keyed archive: $archiver "NSKeyedArchiver", $version 100000, 4 entries in $objects
            root: #3 Thing
              loose: #1 array (2 items)
                [0]: "a"
                [1]: 1
              cls: #2 class Thing (Thing, NSObject)
              refs: dictionary (1 entry)
                x: #1 array (2 items)
                  [0]: "a"
                  [1]: 1

            """)
    }

    @Test func deepChainRendersWithBoundedStackAndIndentation() throws {
        let depth = 20_000
        var objects: [PropertyListValue] = ["$null", .dictionary(["$classname": "Link", "$classes": ["Link", "NSObject"]])]
        objects.reserveCapacity(depth + 2)
        for i in 0..<depth {
            let next: PropertyListValue = i == depth - 1 ? .ref(2) : .ref(UInt64(i + 3))
            objects.append(.dictionary(["next": next, "$class": .ref(1)]))
        }
        let archive: PropertyListValue = .dictionary([
            "$version": 100000, "$archiver": "NSKeyedArchiver", "$top": ["root": .ref(2)], "$objects": .array(objects),
        ])
        let graph = try ArchivedObjectGraph(propertyList: archive)
        let collector = DumpOutputCollector()
        TreeRenderer().render(graph: graph, to: collector.output)
        let text = collector.text
        let lines = text.split(separator: "\n")
        #expect(lines.count == depth + 2)
        #expect(lines[1] == "root: #2 Link")
        #expect(lines[2] == "  next: #3 Link")
        // Past level 64 the margin stops growing and the level is printed instead.
        let margin = String(repeating: "  ", count: 64)
        #expect(lines[depth] == margin + "<\(depth - 1)> next: #\(depth + 1) Link")
        #expect(lines[depth + 1] == margin + "<\(depth)> next: #2 Link (cycle: back to line 2)")

        let json = rendered { JSONRenderer().render(graph: graph, to: $0) }
        #expect(json.hasPrefix(#"{"$archiver":"NSKeyedArchiver","$version":100000,"$top":{"root":{"$class":"Link","$id":2,"next":{"$class":"Link","$id":3,"next":"#))
        #expect(json.hasSuffix(#""next":{"$ref":2}"# + String(repeating: "}", count: depth) + "}}\n"))
    }
}

@Suite struct RawRendererTests {
    @Test func rawTextFollowsPlutilLayoutWithUIDs() {
        var b = ArchiveBuilder()
        let s = b.add("hi")
        let a = b.object("NSArray", ["NSObject"], [("NS.objects", [s])])
        let text = rendered { RawTextRenderer().render(b.archive(root: a), to: $0) }
        #expect(text == """
            {
              "$version" => 100000
              "$archiver" => "NSKeyedArchiver"
              "$top" => {
                "root" => UID(3)
              }
              "$objects" => [
                0 => "$null"
                1 => "hi"
                2 => {
                  "$classname" => "NSArray"
                  "$classes" => [
                    0 => "NSArray"
                    1 => "NSObject"
                  ]
                }
                3 => {
                  "NS.objects" => [
                    0 => UID(1)
                  ]
                  "$class" => UID(2)
                }
              ]
            }

            """)
        let cut = rendered { RawTextRenderer(maxDepth: 1).render(b.archive(root: a), to: $0) }
        #expect(cut.contains("\n  \"$objects\" => [ ... 4 items ]\n"))
        #expect(cut.contains("\n  \"$top\" => { ... 1 entries }\n"))
    }

    @Test func rawTextShowsEveryKindOfValue() {
        let text = rendered { RawTextRenderer().render(Samples.allKinds, to: $0) }
        #expect(text == """
            {
              "int" => 18446744073709551615
              "neg" => -42
              "one" => 1.0
              "big" => 1e+100
              "tiny" => 5e-324
              "negzero" => -0.0
              "nan" => nan
              "inf" => +infinity
              "minf" => -infinity
              "float" => 0.1
              "yes" => true
              "when" => 2000-12-31T23:59:58.5Z
              "bytes" => {length = 4, bytes = 0x0001feff}
              "ref" => UID(7)
              "set" => {(
                0 => "a"
              )}
              "empty" => []
              "none" => {}
              "text" => "q\\"\\\\\\u{1B}é"
            }

            """)
    }

    @Test func rawJSONMapsEveryKindExactly() throws {
        let json = rendered { JSONRenderer().render(propertyList: Samples.allKinds, to: $0) }
        #expect(json == #"{"int":18446744073709551615,"neg":-42,"one":1.0,"big":1e+100,"tiny":5e-324,"negzero":-0.0,"# +
            #""nan":{"$real":"nan"},"inf":{"$real":"inf"},"minf":{"$real":"-inf"},"float":0.10000000149011612,"yes":true,"# +
            #""when":{"$date":"2000-12-31T23:59:58.5Z","$time":-1.5},"bytes":{"$data":"AAH+/w=="},"ref":{"$uid":7},"# +
            #""set":["a"],"empty":[],"none":{},"text":"q\"\\\u001bé"}"# + "\n")
        // Foundation reads it. (corelibs' JSONSerialization rounds some doubles, so exact numbers are
        // checked against plistlib in the end-to-end tests.)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        #expect((object["neg"] as? NSNumber)?.int64Value == -42)
        #expect(Double("0.10000000149011612") == Double(Float(0.1)))
        #expect(object["text"] as? String == "q\"\\\u{1B}é")
    }

    @Test func resolvedJSONShowsObjectsWithIdsAndRefs() throws {
        let graph = try ArchivedObjectGraph(propertyList: Samples.note())
        let json = rendered { JSONRenderer().render(graph: graph, to: $0) }
        #expect(json == #"{"$archiver":"NSKeyedArchiver","$version":100000,"$top":{"root":{"$class":"Note","$id":1,"# +
            #""title":"Shopping\tlist","tags":{"$class":"NSArray","$id":5,"$items":["milk",null]},"# +
            #""created":{"$date":"2024-05-01T10:00:00.25Z","$time":736250400.25},"# +
            #""id":{"$uuid":"6BA7B810-9DAD-11D1-80B4-00C04FD430C8"},"link":{"$url":"https://example.com/"},"# +
            #""meta":{"$class":"NSDictionary","$id":15,"$entries":{"k":{"$ref":5}}},"parent":null,"me":{"$ref":1},"# +
            #""count":3,"ratio":0.5}}}"# + "\n")
        #expect(try JSONSerialization.jsonObject(with: Data(json.utf8)) is [String: Any])
        let cut = rendered { JSONRenderer(maxDepth: 1).render(graph: graph, to: $0) }
        #expect(cut == #"{"$archiver":"NSKeyedArchiver","$version":100000,"$top":{"root":{"$class":"Note","$id":1,"$truncated":10}}}"# + "\n")
    }

    @Test func dictionaryWithNonStringKeysUsesParallelArrays() throws {
        var b = ArchiveBuilder()
        let one = b.add(1)
        let map = b.object("NSMutableDictionary", ["NSDictionary", "NSObject"], [("NS.keys", [one]), ("NS.objects", [one])])
        let graph = try ArchivedObjectGraph(propertyList: b.archive(root: map))
        let json = rendered { JSONRenderer().render(graph: graph, to: $0) }
        #expect(json.contains(#"{"$class":"NSMutableDictionary","$id":3,"$keys":[1],"$values":[1]}"#))
        let tree = rendered { TreeRenderer().render(graph: graph, to: $0) }
        #expect(tree.hasSuffix("root: #3 NSMutableDictionary (1 entry)\n  1: #1 1\n"))
    }
}

@Suite struct ValueFormattingTests {
    @Test func realsAreShortestRoundTripWithAFraction() {
        let samples: [Double] = [1, 0.1, 1e100, .leastNonzeroMagnitude, -0.0, 123456789012345680, 1.0 / 3, .pi, 2e-7, Double.greatestFiniteMagnitude]
        var generator = SystemRandomNumberGenerator()
        let random = (0..<200).map { _ in Double(bitPattern: generator.next() & ~(0x7FF << 52) | (UInt64.random(in: 1...2046) << 52)) }
        for d in samples + random {
            let s = ValueFormatting.jsonReal(d)
            #expect(s.contains(".") || s.contains("e"), "\(s)")
            #expect(Double(s)?.bitPattern == d.bitPattern, "\(s)")
        }
        #expect(ValueFormatting.jsonReal(1) == "1.0")
    }

    @Test func datesMatchFoundationsISO8601Formatter() {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        for t: Double in [0, -1, 86_399, 86_400, -978_307_200, 736_250_400, 4_102_444_800, 1e10, -1e10 - 0.0] {
            let expected = formatter.string(from: Date(timeIntervalSinceReferenceDate: t))
            #expect(ValueFormatting.iso8601(sinceReferenceDate: t) == expected, "t = \(t)")
        }
        // Proleptic Gregorian, as ISO 8601 and Python's datetime (Foundation switches to Julian before 1582).
        #expect(ValueFormatting.iso8601(sinceReferenceDate: -63_113_904_000) == "0001-01-01T00:00:00Z")
        #expect(ValueFormatting.iso8601(sinceReferenceDate: 0.000001) == "2001-01-01T00:00:00.000001Z")
        #expect(ValueFormatting.iso8601(sinceReferenceDate: -0.5) == "2000-12-31T23:59:59.5Z")
        #expect(ValueFormatting.iso8601(sinceReferenceDate: .nan) == nil)
        #expect(ValueFormatting.iso8601(sinceReferenceDate: 1e300) == nil)
    }

    @Test func hostileStringsAreEscaped() {
        #expect(ValueFormatting.quoted("a\u{1B}[2Jb\u{9B}\n") == #""a\u{1B}[2Jb\u{9B}\n""#)
        #expect(ValueFormatting.jsonString("\u{0}\u{1F}\u{7F}\"") == #""\u0000\u001f"# + "\u{7F}" + #"\"""#)
        #expect(ValueFormatting.printable("https://x") == "https://x")
        #expect(ValueFormatting.printable("a\nb") == #""a\nb""#)
    }
}
