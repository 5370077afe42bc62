import Foundation
import Testing
@testable import KeyedArchive

/// `FoundationValue`'s description (and `String(reflecting:)`, and the descriptions of its array and
/// dictionary types) is exact on small values and works, without recursion, on a value decoded from an
/// archive nested a million levels deep.
@Suite struct FoundationValueDescriptionTests {
    /// One of every plain case, collections of every kind, and a catalogued value.
    static let small: FoundationValue = .array([
        .null, .bool(true), .integer(-3), .integer(PropertyListInteger(UInt64.max)), .real(2.5), .string("a\"b\n"),
        .data(Data([1, 2, 3])), .date(Date(timeIntervalSinceReferenceDate: 10.5)),
        .uuid(UUID(uuid: (0xE6, 0x21, 0xE1, 0xF8, 0xC3, 0x6C, 0x49, 0x5A, 0x93, 0xFC, 0x0C, 0x24, 0x7A, 0x3E, 0x6E, 0x5F))),
        .orderedSet([.integer(1), .string("x")]), .set([]), .dictionary([.string("k"): .array([])]), .dictionary([:]),
        .dictionary([.array([.integer(1)]): .set([.bool(false)])]), .specialValue(ArchivedSpecialValue(range: 2 ..< 7)),
    ])

    static let smallText = #"[null, true, -3, 18446744073709551615, 2.5, "a\"b\n", Data(3 bytes), Date(10.5), "#
        + #"UUID(E621E1F8-C36C-495A-93FC-0C247A3E6E5F), orderedSet[1, "x"], set[], ["k": []], [:], "#
        + #"[[1]: set[false]], NSValue range {2, 5}]"#

    @Test func aSmallDecodedValueIsDescribedExactly() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Self.small)
        let value = try KeyedUnarchiver().decode(FoundationValue.self, from: data)
        #expect(value == Self.small)
        #expect(value.description == Self.smallText)
        #expect(String(reflecting: value) == Self.smallText)
        #expect("\(value)" == Self.smallText)
        guard case .array(let items) = value else {
            Issue.record("not an array: \(value)")
            return
        }
        #expect(items.description == Self.smallText)
        #expect(items.elements.description == Self.smallText)  // Swift's Array uses the elements' descriptions
        let dictionary: FoundationValueDictionary = [.string("a"): .array([.url(try #require(URL(string: "https://h/p?q")))])]
        #expect(dictionary.description == #"["a": [URL("https://h/p?q")]]"#)
        #expect(FoundationValue.dictionary(dictionary).description == dictionary.description)
    }

    enum Kind: CaseIterable { case array, orderedSet, set, dictionary }

    /// The kind of collection at `level` (counted from the outside): the four kinds in turn.
    static func kind(atLevel level: Int) -> Kind { Kind.allCases[level % 4] }

    /// An archive, written by hand with ``ArchiveBuilder``, of `levels` collections each holding the next
    /// (NSArray, NSOrderedSet, NSSet, NSDictionary `{"k": next}`, in turn from the outside) around the
    /// string "leaf".
    static func deepArchive(levels: Int) throws -> Data {
        var builder = ArchiveBuilder()
        var inner = builder.add("leaf")
        let key = builder.add("k")
        for level in stride(from: levels - 1, through: 0, by: -1) {
            switch kind(atLevel: level) {
            case .array: inner = builder.object("NSArray", ["NSObject"], [("NS.objects", .array([inner]))])
            case .orderedSet: inner = builder.object("NSOrderedSet", ["NSObject"], [("NS.objects", .array([inner]))])
            case .set: inner = builder.object("NSSet", ["NSObject"], [("NS.objects", .array([inner]))])
            case .dictionary: inner = builder.object("NSDictionary", ["NSObject"], [("NS.keys", .array([key])), ("NS.objects", .array([inner]))])
            }
        }
        return try builder.archive(root: inner).propertyListData(format: .binary)
    }

    /// What the deep archive's value describes itself as, built level by level.
    static func deepText(levels: Int) -> String {
        var opening = ""
        for level in 0 ..< levels {
            switch kind(atLevel: level) {
            case .array: opening += "["
            case .orderedSet: opening += "orderedSet["
            case .set: opening += "set["
            case .dictionary: opening += #"["k": "#
            }
        }
        return opening + #""leaf""# + String(repeating: "]", count: levels)
    }

    /// The same value built in memory.
    static func deepValue(levels: Int) -> FoundationValue {
        var value = FoundationValue.string("leaf")
        for level in stride(from: levels - 1, through: 0, by: -1) {
            switch kind(atLevel: level) {
            case .array: value = .array([value])
            case .orderedSet: value = .orderedSet([value])
            case .set: value = .set([value])
            case .dictionary: value = .dictionary([.string("k"): value])
            }
        }
        return value
    }

    // 200,000 levels: recursion of even 50 bytes per level would need 10 MB, more than the 8 MiB stack; a
    // million levels proves no more and costs 47 s and 7.9 GB in the suite (the unarchiver's deep decode).
    @Test func aValueDecodedTwoHundredThousandLevelsDeepIsDescribedAndComparedOnAnEightMebibyteStack() throws {
        let levels = 200_000
        let data = try Self.deepArchive(levels: levels)
        var unarchiver = KeyedUnarchiver()
        unarchiver.limits.maximumDepth = levels + 10
        unarchiver.limits.maximumObjectCount = levels + 10
        let decoded = DescribedValue(try unarchiver.decode(FoundationValue.self, from: data))
        let expected = Self.deepText(levels: levels)
        var outcome: [Bool] = []
        let ran = runOnThread(stackBytes: 8 << 20) {
            let value = decoded.value
            let text = value.description
            outcome.append(text.utf8.count == expected.utf8.count)
            outcome.append(text == expected)
            outcome.append(String(reflecting: value) == expected)
            outcome.append([value].description == "[" + expected + "]")
            outcome.append(value == Self.deepValue(levels: levels))
            outcome.append(value != Self.deepValue(levels: levels - 1))
            if case .array(let a) = value { outcome.append(a.description == expected) }
            if case .array(let a) = value, case .orderedSet(let b) = a[0], case .set(let c) = b[0],
               case .dictionary(let d) = c[0] {
                outcome.append(d.description == String(expected.dropFirst(16).dropLast(3)))
            }
        }
        #expect(ran)
        #expect(outcome == Array(repeating: true, count: 8))
    }
}

/// Holds a value that a thread's body reads.
private final class DescribedValue: @unchecked Sendable {
    let value: FoundationValue
    init(_ value: FoundationValue) { self.value = value }
}
