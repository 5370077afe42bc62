import Foundation
import Testing
@testable import KeyedArchive

/// Reads the Objective-C `NSTextCheckingResult` subclasses of the fixtures just far enough to get at
/// their `NSRangeArray` (an array of range NSValues).
final class TextCheckingResultProbe: KeyedArchivable {
    static var archivedClassName: String { "NSSimpleRegularExpressionCheckingResult" }
    static var legacyClassNames: [String] {
        ["NSExtendedRegularExpressionCheckingResult", "NSComplexRegularExpressionCheckingResult"]
    }
    let ranges: [ArchivedSpecialValue]
    init(from decoder: any ArchiveDecoder) throws {
        ranges = try decoder.decode([ArchivedSpecialValue].self, forKey: "NSRangeArray")
    }
    func encode(to encoder: any ArchiveEncoder) throws {}
}

@Suite struct ArchivedSpecialValueTests {
    typealias Value = ArchivedSpecialValue

    // MARK: Apple's fixtures

    @Test(.enabled(if: FoundationFixtures.available))
    func darwinRangeRectAndEdgeInsetsFixturesRead() throws {
        let range = try KeyedUnarchiver.unarchivedObject(ofClass: Value.self, from: FoundationFixtures.data("NSKeyedUnarchiver-RangeTest.plist"))
        #expect(range.content == .range(location: 97345, length: 98345))
        #expect(range.range == 97345 ..< 97345 + 98345)
        let rect = try KeyedUnarchiver.unarchivedObject(ofClass: Value.self, from: FoundationFixtures.data("NSKeyedUnarchiver-RectTest.plist"))
        #expect(rect.content == .rect(x: 400, y: 300, width: 200, height: 300))
        let insets = try KeyedUnarchiver.unarchivedObject(ofClass: Value.self, from: FoundationFixtures.data("NSKeyedUnarchiver-EdgeInsetsTest.plist"))
        #expect(insets.content == .edgeInsets(top: 1, left: 2, bottom: 3, right: 4))
        #expect(rect.description == "NSValue rect {{400, 300}, {200, 300}}")
    }

    @Test(.enabled(if: FoundationFixtures.available))
    func textCheckingResultFixturesHoldRangeValues() throws {
        func ranges(_ name: String) throws -> [Range<Int>?] {
            try KeyedUnarchiver.unarchivedObject(ofClass: TextCheckingResultProbe.self, from: FoundationFixtures.data(name)).ranges.map(\.range)
        }
        #expect(try ranges("NSTextCheckingResult-SimpleRegex.archive") == [0 ..< 3])
        #expect(try ranges("NSTextCheckingResult-ExtendedRegex.archive") == [0 ..< 6, 1 ..< 6, 2 ..< 6, 3 ..< 6, 4 ..< 6, 5 ..< 6])
        #expect(try ranges("NSTextCheckingResult-ComplexRegex.archive")
                == [0 ..< 9, 1 ..< 9, 2 ..< 9, 3 ..< 9, 4 ..< 9, 5 ..< 9, 6 ..< 9, 7 ..< 9, 8 ..< 9])
    }

    @Test func anNSValueWithNeitherNSSpecialNorATypeIsRejectedNamingTheClass() throws {
        var b = ArchiveBuilder()
        let root = b.object("NSValue", ["NSObject"], [("other", 1)])
        let data = try b.archive(root: root).propertyListData(format: .binary)
        let e = errorSummary { _ = try KeyedUnarchiver.unarchivedObject(ofClass: Value.self, from: data) }
        #expect(e?.code == "dataCorrupted")
        #expect(e?.className == "NSValue")
        #expect(e?.keyPath == "root.NS.special")
    }

    // MARK: Structure

    @Test(.enabled(if: FoundationFixtures.available))
    func ourArchivesHaveTheFixturesStructure() throws {
        let cases: [(String, Value.Content)] = [
            ("NSKeyedUnarchiver-RangeTest.plist", .range(location: 97345, length: 98345)),
            ("NSKeyedUnarchiver-RectTest.plist", .rect(x: 400, y: 300, width: 200, height: 300)),
            ("NSKeyedUnarchiver-EdgeInsetsTest.plist", .edgeInsets(top: 1, left: 2, bottom: 3, right: 4)),
        ]
        for (fixture, content) in cases {
            let ours = try KeyedArchiver.archivedData(withRootObject: Value(content))
            #expect(try ArchiveStructure.differences(expected: FoundationFixtures.data(fixture), actual: ours) == [], "\(fixture)")
        }
        // The rect string is written exactly as Apple wrote it.
        let rect = try PropertyListValue(propertyListData: KeyedArchiver.archivedData(withRootObject: Value(.rect(x: 400, y: 300, width: 200, height: 300))))
        #expect(rect.dictionaryValue?["$objects"]?.arrayValue?.contains(.string("{{400, 300}, {200, 300}}")) == true)
    }

    // MARK: Round trip

    @Test func everyKindRoundTrips() throws {
        let values: [Value.Content] = [
            .range(location: 0, length: 0), .range(location: Int.max, length: 0), .range(location: 3, length: 7),
            .point(x: -1.5, y: 1e300), .size(width: 0.1, height: 2), .rect(x: -0.0, y: .leastNonzeroMagnitude, width: 1e15, height: 123.456),
            .edgeInsets(top: 1.25, left: -2, bottom: .infinity, right: 0),
        ]
        for content in values {
            let data = try KeyedArchiver.archivedData(withRootObject: Value(content))
            let back = try KeyedUnarchiver.unarchivedObject(ofClass: Value.self, from: data)
            #expect(back == Value(content))
            let encoder = JSONEncoder(), decoder = JSONDecoder()
            encoder.nonConformingFloatEncodingStrategy = .convertToString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
            decoder.nonConformingFloatDecodingStrategy = .convertFromString(positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
            let json = try decoder.decode(Value.self, from: encoder.encode(Value(content)))
            #expect(json == Value(content))
        }
    }

    // MARK: Foundation on Linux

    @Test func foundationReadsOurRangeAndGeometryValues() throws {
        func foundation(_ content: Value.Content) throws -> NSValue? {
            try NSKeyedUnarchiver.unarchivedObject(ofClass: NSValue.self, from: KeyedArchiver.archivedData(withRootObject: Value(content)))
        }
        #expect(try foundation(.range(location: 5, length: 10))?.rangeValue == NSRange(location: 5, length: 10))
        #expect(try foundation(.point(x: 1.5, y: -2))?.pointValue == NSPoint(x: 1.5, y: -2))
        #expect(try foundation(.size(width: 3, height: 4))?.sizeValue == NSSize(width: 3, height: 4))
        #expect(try foundation(.rect(x: 1, y: 2, width: 3, height: 4))?.rectValue == NSRect(x: 1, y: 2, width: 3, height: 4))
        let insets = try foundation(.edgeInsets(top: 1, left: 2, bottom: 3, right: 4))?.edgeInsetsValue
        #expect(insets.map { [$0.top, $0.left, $0.bottom, $0.right] } == [1, 2, 3, 4])
    }

    @Test func weReadFoundationsRangeAndGeometryValues() throws {
        func ours(_ value: NSValue) throws -> Value.Content {
            try KeyedUnarchiver.unarchivedObject(ofClass: Value.self, from: NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: true)).content
        }
        #expect(try ours(NSValue(range: NSRange(location: 5, length: 10))) == .range(location: 5, length: 10))
        #expect(try ours(NSValue(point: NSPoint(x: 1.5, y: -2))) == .point(x: 1.5, y: -2))
        #expect(try ours(NSValue(size: NSSize(width: 3, height: 4))) == .size(width: 3, height: 4))
        #expect(try ours(NSValue(rect: NSRect(x: 1, y: 2, width: 3, height: 4))) == .rect(x: 1, y: 2, width: 3, height: 4))
        #expect(try ours(NSValue(edgeInsets: NSEdgeInsets(top: 1, left: 2, bottom: 3, right: 4))) == .edgeInsets(top: 1, left: 2, bottom: 3, right: 4))
    }

    // MARK: Malformed input

    @Test func malformedValuesThrowNamingClassAndKey() throws {
        let cls = HandMadeArchive.classDict(["NSValue", "NSObject"])
        func read(_ fields: PropertyListDictionary, _ extra: [PropertyListValue] = []) throws -> (code: String, className: String?, keyPath: String?)? {
            var f = fields
            f["$class"] = HandMadeArchive.uid(2)
            let data = try HandMadeArchive.binary([.dictionary(f), cls] + extra)
            return errorSummary { _ = try KeyedUnarchiver.unarchivedObject(ofClass: Value.self, from: data) }
        }
        let unknown = try read(["NS.special": 99])
        #expect(unknown?.code == "dataCorrupted" && unknown?.className == "NSValue" && unknown?.keyPath == "root.NS.special")
        let wrongKind = try read(["NS.special": 4, "NS.rangeval.location": HandMadeArchive.uid(3), "NS.rangeval.length": 1], ["text"])
        #expect(wrongKind?.code == "typeMismatch" && wrongKind?.className == "NSValue")
        #expect(wrongKind?.keyPath == "root.NS.rangeval.location")
        let shortRect = try read(["NS.special": 3, "NS.rectval": HandMadeArchive.uid(3)], ["{{1, 2}, {3}}"])
        #expect(shortRect?.code == "dataCorrupted" && shortRect?.className == "NSValue" && shortRect?.keyPath == "root.NS.rectval")
        let garbage = try read(["NS.special": 1, "NS.pointval": HandMadeArchive.uid(3)], ["{x, 2}"])
        #expect(garbage?.code == "dataCorrupted" && garbage?.keyPath == "root.NS.pointval")
        let missing = try read(["NS.special": 12, "NS.edgeval.top": 1.0])
        #expect(missing?.code == "keyNotFound" && missing?.className == "NSValue")
    }
}

/// The structure comparison behind the fixture tests tells different layouts apart.
@Suite struct ArchiveStructureTests {
    @Test func differentLayoutsHaveDifferentStructures() throws {
        let range = try KeyedArchiver.archivedData(withRootObject: ArchivedSpecialValue(.range(location: 1, length: 2)))
        let rect = try KeyedArchiver.archivedData(withRootObject: ArchivedSpecialValue(.rect(x: 1, y: 2, width: 3, height: 4)))
        #expect(try ArchiveStructure.outline(range) != ArchiveStructure.outline(rect))
        #expect(try ArchiveStructure.differences(expected: range, actual: rect).contains { $0.contains("members") })
        // Inline versus UID: the same key and class, the member once inline and once an object.
        let inline = try HandMadeArchive.binary([.dictionary(["$class": HandMadeArchive.uid(2), "k": 1]), HandMadeArchive.classDict(["A", "NSObject"])])
        let object = try HandMadeArchive.binary([.dictionary(["$class": HandMadeArchive.uid(2), "k": HandMadeArchive.uid(3)]),
                                                 HandMadeArchive.classDict(["A", "NSObject"]), 1])
        #expect(try ArchiveStructure.outline(inline) == "root: -> A < NSObject\n  k: inline integer")
        #expect(try ArchiveStructure.outline(object) == "root: -> A < NSObject\n  k: -> integer")
        #expect(try ArchiveStructure.differences(expected: inline, actual: object) == ["root.k: stored as integer vs UID"])
        // Another class chain.
        let other = try HandMadeArchive.binary([.dictionary(["$class": HandMadeArchive.uid(2), "k": 1]), HandMadeArchive.classDict(["B", "A", "NSObject"])])
        #expect(try ArchiveStructure.outline(other) != ArchiveStructure.outline(inline))
        #expect(try ArchiveStructure.differences(expected: other, actual: inline) == ["root: class B vs A", "root: $classes [\"B\", \"A\", \"NSObject\"] vs [\"A\", \"NSObject\"]"])
    }
}
