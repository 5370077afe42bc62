import Foundation
import Testing
@testable import KeyedArchive

@Suite struct ArchivedCountedSetTests {
    static func numbers(_ count: Int) -> [FoundationValue: Int] {
        Dictionary(uniqueKeysWithValues: (1 ... 5).map { (FoundationValue.integer(PropertyListInteger(Int64($0))), count) })
    }

    @Test(.enabled(if: FoundationFixtures.available))
    func darwinCountedSetFixturesRead() throws {
        func read(_ name: String) throws -> [FoundationValue: Int] {
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedCountedSet.self, from: FoundationFixtures.data("NSCountedSet-\(name).archive")).counts
        }
        #expect(try read("Empty") == [:])
        #expect(try read("NumbersAppearingOnce") == Self.numbers(1))
        #expect(try read("NumbersAppearingSeveralTimes") == Self.numbers(5))
    }

    @Test(.enabled(if: FoundationFixtures.available))
    func ourCountedSetsHaveTheFixturesStructure() throws {
        for (name, counts) in [("Empty", [:]), ("NumbersAppearingOnce", Self.numbers(1)), ("NumbersAppearingSeveralTimes", Self.numbers(5))] {
            let ours = try KeyedArchiver.archivedData(withRootObject: ArchivedCountedSet(counts: counts))
            #expect(try ArchiveStructure.differences(expected: FoundationFixtures.data("NSCountedSet-\(name).archive"), actual: ours) == [],
                    "\(name)")
        }
    }

    @Test func countedSetsRoundTrip() throws {
        let mixed: [FoundationValue: Int] = [.string("a"), .real(2.5), .integer(PropertyListInteger(UInt64.max)), .data(Data([1])),
                                             .array([.string("x")]), .null, .date(Date(timeIntervalSinceReferenceDate: 5))]
            .enumerated().reduce(into: [:]) { $0[$1.element] = $1.offset + 1 }
        for counts in [[:], Self.numbers(3), mixed] {
            let set = ArchivedCountedSet(counts: counts)
            let back = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedCountedSet.self, from: KeyedArchiver.archivedData(withRootObject: set))
            #expect(back.counts == counts)
            #expect(try JSONDecoder().decode(ArchivedCountedSet.self, from: JSONEncoder().encode(set)) == set)
        }
        // The same set gives the same bytes.
        #expect(try KeyedArchiver.archivedData(withRootObject: ArchivedCountedSet(counts: mixed))
                == KeyedArchiver.archivedData(withRootObject: ArchivedCountedSet(counts: mixed)))
        #expect(ArchivedCountedSet([.string("a"), .integer(1), .string("a")]).description == "NSCountedSet {1 ×1, \"a\" ×2}")
    }

    @Test func foundationAndWeReadEachOthersCountedSets() throws {
        let foundationSet = NSCountedSet()
        for n in [1, 2, 2, 3, 3, 3] { foundationSet.add(NSNumber(value: n)) }
        foundationSet.add(NSString(string: "s"))
        let expected: [FoundationValue: Int] = [.integer(1): 1, .integer(2): 2, .integer(3): 3, .string("s"): 1]
        let theirs = try NSKeyedArchiver.archivedData(withRootObject: foundationSet, requiringSecureCoding: true)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedCountedSet.self, from: theirs).counts == expected)

        let ours = try KeyedArchiver.archivedData(withRootObject: ArchivedCountedSet(counts: expected))
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSCountedSet.self, NSNumber.self, NSString.self], from: ours) as? NSCountedSet)
        #expect(decoded.count == 4)
        for n in 1 ... 3 { #expect(decoded.count(for: NSNumber(value: n)) == n) }
        #expect(decoded.count(for: NSString(string: "s")) == 1)
    }

    @Test func malformedCountedSetsThrowNamingClassAndKey() throws {
        let cls = HandMadeArchive.classDict(["NSCountedSet", "NSMutableSet", "NSSet", "NSObject"])
        func read(_ fields: PropertyListDictionary) throws -> (code: String, className: String?, keyPath: String?)? {
            var f = fields
            f["$class"] = HandMadeArchive.uid(2)
            let data = try HandMadeArchive.binary([.dictionary(f), cls, "element"])
            return errorSummary { _ = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedCountedSet.self, from: data) }
        }
        let cases: [(PropertyListDictionary, String, String)] = [
            (["NS.count": "1"], "typeMismatch", "root.NS.count"),
            (["NS.count": -1], "dataCorrupted", "root.NS.count"),
            // A count far beyond the entries present: fails at the first missing key, nothing reserved.
            (["NS.count": .integer(PropertyListInteger(Int64.max))], "keyNotFound", "root.NS.object0"),
            (["NS.count": 2, "NS.object0": HandMadeArchive.uid(3), "NS.count0": 1], "keyNotFound", "root.NS.object1"),
            (["NS.count": 1, "NS.object0": HandMadeArchive.uid(3), "NS.count0": 0], "dataCorrupted", "root.NS.count0"),
            (["NS.count": 1, "NS.object0": HandMadeArchive.uid(3), "NS.count0": "many"], "typeMismatch", "root.NS.count0"),
            // An element may be a counted set (FoundationValue.countedSet), so a set holding itself is a cycle.
            (["NS.count": 1, "NS.object0": HandMadeArchive.uid(1), "NS.count0": 1], "cycle", "root.NS.object0"),
            (["NS.count": 2, "NS.object0": HandMadeArchive.uid(3), "NS.count0": .integer(PropertyListInteger(Int64.max)),
              "NS.object1": HandMadeArchive.uid(3), "NS.count1": 1], "dataCorrupted", "root.NS.count1"),
        ]
        for (fields, code, path) in cases {
            let e = try read(fields)
            #expect(e?.code == code, "\(fields)")
            #expect(e?.className == "NSCountedSet", "\(fields)")
            #expect(e?.keyPath == path, "\(fields)")
        }
    }
}

/// The JSON form (archive-dump's `--json`) refuses a deeply nested element with an error instead of
/// exhausting the stack; the description still shows it.
@Suite struct ArchivedCountedSetDeepElementTests {
    /// `levels` arrays, each holding the next, around 7.
    static func nested(_ levels: Int) -> FoundationValue {
        var value = FoundationValue.integer(7)
        for _ in 0 ..< levels { value = .array([value]) }
        return value
    }

    @Test func aDeeplyNestedElementIsAnEncodingErrorNotACrash() throws {
        // Decoded from an archive, as archive-dump decodes it (default limits: 10,000 levels).
        let data = try KeyedArchiver.archivedData(withRootObject: ArchivedCountedSet([Self.nested(5_000)]))
        let set = try KeyedUnarchiver().decode(ArchivedCountedSet.self, from: data)
        #expect(set.counts == [Self.nested(5_000): 1])
        #expect(set.description == "NSCountedSet {[1 items] ×1}")
        do {
            _ = try JSONEncoder().encode(set)
            Issue.record("encoded a 5,000-level element")
        } catch let EncodingError.invalidValue(_, context) {
            #expect(context.debugDescription.hasPrefix("FoundationValue nested deeper than 512 coding-path components (at entries.0.element.array.0.array..."),
                    "\(context.debugDescription)")
        }
        // 200 levels are within the bound and round-trip.
        let shallow = ArchivedCountedSet([Self.nested(200)])
        #expect(try JSONDecoder().decode(ArchivedCountedSet.self, from: JSONEncoder().encode(shallow)) == shallow)
    }

    @Test func aDeeplyNestedJSONElementIsADecodingError() throws {
        // 300 levels of {"array": [...]}: 600 coding-path components below the entry (JSONDecoder may refuse
        // the nesting itself first; either way a thrown DecodingError, not a crash).
        let element = String(repeating: #"{"array":["#, count: 300) + #"{"integer":7}"# + String(repeating: "]}", count: 300)
        let json = Data((#"{"entries":[{"count":1,"element":"# + element + "}]}").utf8)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ArchivedCountedSet.self, from: json) }
    }
}
