import Foundation
import Testing
@testable import KeyedArchive

@Suite struct ArchivedAttributedStringTests {
    typealias AS = ArchivedAttributedString

    static let helvetica: [String: FoundationValue] = ["Font": .string("Helvetica"), "Size": .integer(123)]
    static let times: [String: FoundationValue] = ["Font": .string("Times"), "Size": .integer(456)]
    /// The runs of both Darwin fixtures.
    static let fixtureRuns: [AS.Run] = [
        .init(range: 0 ..< 1, attributes: [:]), .init(range: 1 ..< 2, attributes: helvetica),
        .init(range: 2 ..< 6, attributes: times), .init(range: 6 ..< 8, attributes: helvetica),
        .init(range: 8 ..< 9, attributes: times), .init(range: 9 ..< 10, attributes: [:]),
    ]

    @Test(.enabled(if: FoundationFixtures.available))
    func darwinAttributedStringFixturesRead() throws {
        for name in ["NSAttributedString.archive", "NSMutableAttributedString.archive"] {
            let value = try KeyedUnarchiver.unarchivedObject(ofClass: AS.self, from: FoundationFixtures.data(name))
            #expect(value.string == "0123456789", "\(name)")
            #expect(value.runs.map(\.range) == Self.fixtureRuns.map(\.range), "\(name)")
            #expect(value.runs == Self.fixtureRuns, "\(name)")
            #expect(value.description == "NSAttributedString \"0123456789\" (6 runs)")
        }
    }

    /// Apple's archive and ours store the same classes and members, with two documented differences:
    /// Apple's `NSAttributes` is an NSMutableArray (ours an NSArray), and Apple writes its two equal but
    /// distinct "Times" dictionaries twice (we write equal dictionaries once: 3 entries, not 4).
    @Test(.enabled(if: FoundationFixtures.available))
    func ourAttributedStringHasTheFixturesStructure() throws {
        let apple = try FoundationFixtures.data("NSAttributedString.archive")
        let oursData = try KeyedArchiver.archivedData(withRootObject: AS(string: "0123456789", runs: Self.fixtureRuns))
        func topLevel(_ structure: String) -> [String] {
            structure.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("    ") }
                .map { $0.replacingOccurrences(of: "NSMutableArray < NSArray", with: "NSArray") }
        }
        #expect(try topLevel(ArchiveStructure.outline(oursData)) == topLevel(ArchiveStructure.outline(apple)))
        // Each attribute dictionary has the same structure as one of Apple's, and vice versa.
        func dictionaries(_ data: Data) throws -> Set<String> {
            var result: Set<String> = []
            var i = 0
            while true {
                let s = try ArchiveStructure.outline(data, path: ["NSAttributes"])
                let lines = s.split(separator: "\n").map(String.init)
                guard let start = lines.firstIndex(of: "    [\(i)]: -> NSDictionary < NSObject") else { break }
                let body = lines[(start + 1)...].prefix { $0.hasPrefix("      ") }
                // Key order inside a dictionary is free: compare the kinds of keys and values as sorted lists.
                result.insert(body.map { $0.replacingOccurrences(of: #"\[\d+\]"#, with: "[]", options: .regularExpression) }
                    .sorted().joined(separator: "\n"))
                i += 1
            }
            return result
        }
        #expect(try dictionaries(oursData) == dictionaries(apple))
        #expect(try dictionaries(oursData).count == 2)  // empty, and two entries of string and integer
        // The run data: Apple's, except that the fifth run uses the one "Times" dictionary (slot 2, not 3).
        guard case .data(let info)? = try ArchiveStructure.value(oursData, path: ["NSAttributeInfo", "NS.data"]),
              case .data(let appleInfo)? = try ArchiveStructure.value(apple, path: ["NSAttributeInfo", "NS.data"]) else {
            Issue.record("no NSAttributeInfo data")
            return
        }
        #expect([UInt8](appleInfo) == [1, 0, 1, 1, 4, 2, 2, 1, 1, 3, 1, 0])
        #expect([UInt8](info) == [1, 0, 1, 1, 4, 2, 2, 1, 1, 2, 1, 0])
    }

    @Test func everyRunFormRoundTrips() throws {
        let values = [
            AS(string: ""), AS(string: "plain"), AS(string: "héllo 👋", attributes: ["Link": .url(URL(string: "https://example.org")!)]),
            try AS(string: "0123456789", runs: Self.fixtureRuns),
            try AS(string: "a👋b", runs: [.init(range: 0 ..< 1, attributes: ["k": .bool(true)]), .init(range: 1 ..< 3, attributes: [:]),
                                        .init(range: 3 ..< 4, attributes: ["k": .real(1.5)])]),
        ]
        for value in values {
            let back = try KeyedUnarchiver.unarchivedObject(ofClass: AS.self, from: KeyedArchiver.archivedData(withRootObject: value))
            #expect(back.string == value.string)
            #expect(back.runs == value.runs)
            #expect(try JSONDecoder().decode(AS.self, from: JSONEncoder().encode(value)) == value)
        }
        #expect(throws: KeyedArchiveError.self) { try AS(string: "abc", runs: [.init(range: 0 ..< 2, attributes: [:])]) }
        #expect(throws: KeyedArchiveError.self) { try AS(string: "abc", runs: [.init(range: 0 ..< 0, attributes: [:]), .init(range: 0 ..< 3, attributes: [:])]) }
    }

    // MARK: Foundation on Linux

    static func foundationRuns(_ s: NSAttributedString) -> [AS.Run] {
        var runs: [AS.Run] = []
        s.enumerateAttributes(in: NSRange(location: 0, length: s.length), options: []) { attributes, range, _ in
            var converted: [String: FoundationValue] = [:]
            for (k, v) in attributes {
                if let n = v as? NSNumber { converted[k.rawValue] = .integer(PropertyListInteger(n.int64Value)) }
                else if let str = v as? String { converted[k.rawValue] = .string(str) }
            }
            runs.append(.init(range: range.location ..< range.location + range.length, attributes: converted))
        }
        return runs
    }

    @Test func foundationReadsOurAttributedStringsOfSeveralRuns() throws {
        let value = try AS(string: "0123456789", runs: Self.fixtureRuns)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(
            ofClasses: Self.foundationClasses, from: KeyedArchiver.archivedData(withRootObject: value)) as? NSAttributedString)
        #expect(decoded.string == value.string)
        #expect(Self.foundationRuns(decoded) == value.runs)
    }

    /// swift-corelibs-foundation (6.3.1) cannot read the one-run form, not even from its own archiver: its
    /// reader asks for NSAttributeInfo, which both Darwin and its own writer leave out when one dictionary
    /// covers the string ("No value found for key Optional("NSAttributeInfo")"). We write what Apple writes,
    /// so Foundation on Linux fails on ours exactly as on its own; checked here so that a fix shows up.
    @Test(.describesCorelibsFoundation) func foundationOnLinuxCannotReadTheOneRunFormEvenFromItself() throws {
        let theirs = try NSKeyedArchiver.archivedData(
            withRootObject: NSAttributedString(string: "abc", attributes: [NSAttributedString.Key("Font"): "Helvetica"]),
            requiringSecureCoding: true)
        let ours = try KeyedArchiver.archivedData(withRootObject: AS(string: "abc", attributes: ["Font": .string("Helvetica")]))
        #expect(try ArchiveStructure.differences(expected: theirs, actual: ours) == [])
        #expect(throws: (any Error).self) { try NSKeyedUnarchiver.unarchivedObject(ofClasses: Self.foundationClasses, from: theirs) }
        #expect(throws: (any Error).self) { try NSKeyedUnarchiver.unarchivedObject(ofClasses: Self.foundationClasses, from: ours) }
        // We read Foundation's one-run archive.
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: AS.self, from: theirs).runs == [.init(range: 0 ..< 3, attributes: ["Font": .string("Helvetica")])])
    }

    static let foundationClasses: [AnyClass] = [NSAttributedString.self, NSDictionary.self, NSArray.self, NSString.self, NSNumber.self]

    @Test func weReadFoundationsAttributedStrings() throws {
        let single = NSAttributedString(string: "abc", attributes: [NSAttributedString.Key("Font"): "Helvetica"])
        let several = NSMutableAttributedString(string: "abcdef")
        several.addAttribute(NSAttributedString.Key("K"), value: NSNumber(value: 3), range: NSRange(location: 1, length: 2))
        several.addAttribute(NSAttributedString.Key("F"), value: "x", range: NSRange(location: 2, length: 4))
        for object in [single, several, NSAttributedString(string: ""), NSAttributedString(string: "no attributes")] {
            let data = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
            let ours = try KeyedUnarchiver.unarchivedObject(ofClass: AS.self, from: data)
            #expect(ours.string == object.string)
            #expect(ours.runs == Self.foundationRuns(object))
        }
    }

    // MARK: Malformed input

    @Test func malformedAttributedStringsThrowNamingClassAndKey() throws {
        let cls = HandMadeArchive.classDict(["NSAttributedString", "NSObject"])
        let arrayClass = HandMadeArchive.classDict(["NSMutableArray", "NSArray", "NSObject"])
        let dictClass = HandMadeArchive.classDict(["NSDictionary", "NSObject"])
        let dataClass = HandMadeArchive.classDict(["NSMutableData", "NSData", "NSObject"])
        /// Objects: 1 root, 2 its class, 3 "abcd", 4 array of [5], 5 empty dict, 6 info data, 7-9 classes, 10 a dict with a number key.
        func read(info: [UInt8], attributes: UInt64 = 4, string: UInt64 = 3) throws -> (code: String, className: String?, keyPath: String?)? {
            let objects: [PropertyListValue] = [
                .dictionary(["$class": HandMadeArchive.uid(2), "NSString": HandMadeArchive.uid(string),
                             "NSAttributes": HandMadeArchive.uid(attributes), "NSAttributeInfo": HandMadeArchive.uid(6)]),
                cls, "abcd",
                .dictionary(["$class": HandMadeArchive.uid(7), "NS.objects": .array([HandMadeArchive.uid(5)])]),
                .dictionary(["$class": HandMadeArchive.uid(8), "NS.keys": .array([]), "NS.objects": .array([])]),
                .dictionary(["$class": HandMadeArchive.uid(9), "NS.data": .data(Data(info))]),
                arrayClass, dictClass, dataClass,
                .dictionary(["$class": HandMadeArchive.uid(8), "NS.keys": .array([HandMadeArchive.uid(11)]), "NS.objects": .array([HandMadeArchive.uid(3)])]),
                7,
            ]
            let data = try HandMadeArchive.binary(objects)
            return errorSummary { _ = try KeyedUnarchiver.unarchivedObject(ofClass: AS.self, from: data) }
        }
        #expect(try read(info: [2, 0, 2, 0]) == nil)
        let cases: [([UInt8], UInt64, UInt64, String, String)] = [
            ([2, 0, 3, 0], 4, 3, "dataCorrupted", "root.NSAttributeInfo"),         // a run past the string's end
            ([2, 0, 1, 0], 4, 3, "dataCorrupted", "root.NSAttributeInfo"),         // runs stop short
            ([4, 1], 4, 3, "dataCorrupted", "root.NSAttributeInfo"),               // dictionary index past NSAttributes
            ([0, 0, 4, 0], 4, 3, "dataCorrupted", "root.NSAttributeInfo"),         // an empty run
            ([4, 0x80], 4, 3, "dataCorrupted", "root.NSAttributeInfo"),            // truncated varint
            ([0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0], 4, 3, "dataCorrupted", "root.NSAttributeInfo"),  // 70-bit varint
            ([4, 0], 3, 3, "typeMismatch", "root.NSAttributes"),                   // NSAttributes is a string
            ([4, 0], 10, 3, "typeMismatch", "root.NSAttributes"),                  // an attribute name that is a number
            ([4, 0], 4, 11, "typeMismatch", "root.NSString"),                      // the string is a number
        ]
        for (info, attributes, string, code, path) in cases {
            let e = try read(info: info, attributes: attributes, string: string)
            #expect(e?.code == code, "\(info) \(attributes) \(string)")
            #expect(e?.className == "NSAttributedString", "\(info) \(attributes) \(string)")
            #expect(e?.keyPath == path, "\(info) \(attributes) \(string)")
        }
    }
}
