import Foundation
import Testing
@testable import KeyedArchive

/// Holds a value that a thread's body uses.
private final class Holder: @unchecked Sendable {
    var value: FoundationValue?
    init(_ value: FoundationValue?) { self.value = value }
}

/// Counted sets nested thousands of levels deep (each the only element of the next) archive, unarchive and
/// are freed on an 8 MiB stack.
@Suite struct DeepCountedSetTests {
    static func chain(_ levels: Int) -> FoundationValue {
        var value = FoundationValue.string("leaf")
        for _ in 0 ..< levels { value = .countedSet(ArchivedCountedSet(counts: [value: 2])) }
        return value
    }

    static func onEightMiBStack<R>(_ body: @escaping () -> R) -> R? {
        var result: R?
        guard runOnThread(stackBytes: 8 << 20, { result = body() }) else { return nil }
        return result
    }

    /// `levels` NSCountedSets, each holding the next once twice, around the string "leaf", written by hand.
    static func deepArchive(levels: Int) throws -> Data {
        var builder = ArchiveBuilder()
        var inner = builder.add("leaf")
        for _ in 0 ..< levels {
            inner = builder.object("NSCountedSet", ["NSMutableSet", "NSSet", "NSObject"],
                                   [("NS.count", 1), ("NS.object0", inner), ("NS.count0", 2)])
        }
        return try builder.archive(root: inner).propertyListData(format: .binary)
    }

    /// 9,000 levels: the archiver ordered each set's elements by their descriptions, which described the
    /// whole chain below recursively at every level (and overflowed an 8 MiB stack).
    @Test func nineThousandNestedCountedSetsRoundTripOnAnEightMebibyteStack() throws {
        let levels = 9_000
        let built = Holder(Self.chain(levels))
        let written = try #require(Self.onEightMiBStack { Result { try KeyedArchiver.archivedData(withRootObject: built.value) } })
        let data = try written.get()
        // $null, the leaf, the class and one NSCountedSet per level.
        let graph = try ArchivedObjectGraph(data: data)
        #expect(graph.count == levels + 3)
        #expect(graph.instanceCounts() == ["NSCountedSet": levels])
        // The same bytes as a hand-written archive of the same chain, read back equal.
        #expect(try KeyedUnarchiver().decode(FoundationValue.self, from: Self.deepArchive(levels: levels))
            == KeyedUnarchiver().decode(FoundationValue.self, from: data))
        let back = Holder(nil)
        let decoded = try #require(Self.onEightMiBStack { Result { back.value = try KeyedUnarchiver().decode(FoundationValue.self, from: data) } })
        try decoded.get()
        let same = Self.onEightMiBStack { back.value == built.value }
        #expect(same == true)
        _ = Self.onEightMiBStack {
            back.value = nil
            built.value = nil
        }
    }

    /// A decoded chain of 9,000 counted sets (each the only element of the next; the default depth limit
    /// allows 10,000) is described on an 8 MiB stack: a nested set's description was built by describing
    /// the one inside it, one call per level (the process crashed). The first 64 levels are written out,
    /// the set below them summarized.
    @Test func nineThousandDecodedNestedCountedSetsAreDescribedOnAnEightMebibyteStack() throws {
        let levels = 9_000
        let decoded = Holder(try KeyedUnarchiver().decode(FoundationValue.self, from: Self.deepArchive(levels: levels)))
        let text = try #require(Self.onEightMiBStack { decoded.value.map { String(describing: $0) } ?? "" })
        let shown = ArchivedCountedSet.describedLevels
        let expected = String(repeating: "NSCountedSet {", count: shown) + "NSCountedSet (1 element)" + String(repeating: " ×2}", count: shown)
        #expect(text == expected)
        _ = Self.onEightMiBStack { decoded.value = nil }
    }

    /// A chain as deep as a description writes out is written whole.
    @Test func aChainOfSixtyFourCountedSetsIsDescribedWhole() throws {
        let levels = ArchivedCountedSet.describedLevels
        let text = try KeyedUnarchiver().decode(FoundationValue.self, from: Self.deepArchive(levels: levels)).description
        #expect(text == String(repeating: "NSCountedSet {", count: levels) + #""leaf""# + String(repeating: " ×2}", count: levels))
    }

    /// Counted sets each holding the next and a string: the description described each nested set twice
    /// (once to order the entries, once to write them), so 2^40 times at 40 levels.
    @Test func aFortyLevelCountedSetChainWithTwoEntriesPerLevelIsDescribed() throws {
        var value = FoundationValue.string("leaf")
        var expected = #""leaf""#
        for _ in 0 ..< 40 {
            value = .countedSet(ArchivedCountedSet(counts: [value: 2, .string("x"): 1]))
            // Ordered by case name and description: `countedSet(...)` (or `string("leaf")`) before `string("x")`.
            expected = "NSCountedSet {" + expected + #" ×2, "x" ×1}"#
        }
        #expect(value.description == expected)
        let data = try KeyedArchiver.archivedData(withRootObject: value)
        #expect(try KeyedUnarchiver().decode(FoundationValue.self, from: data) == value)
    }

    /// An attributed string whose one attribute name is 9,000 nested counted sets: the error that says the
    /// name is not a string described the whole chain, recursively.
    @Test func anAttributeNamedByNineThousandNestedCountedSetsIsRejectedWithoutDescribingThem() throws {
        var builder = ArchiveBuilder()
        var inner = builder.add("leaf")
        for _ in 0 ..< 9_000 {
            inner = builder.object("NSCountedSet", ["NSMutableSet", "NSSet", "NSObject"],
                                   [("NS.count", 1), ("NS.object0", inner), ("NS.count0", 2)])
        }
        let attributes = builder.object("NSDictionary", ["NSObject"], [("NS.keys", .array([inner])), ("NS.objects", .array([builder.add("v")]))])
        let text = builder.object("NSAttributedString", ["NSObject"], [("NSString", builder.add("x")), ("NSAttributes", attributes)])
        let data = try builder.archive(root: text).propertyListData(format: .binary)
        let outcome = Self.onEightMiBStack { Result { try KeyedUnarchiver().decode(FoundationValue.self, from: data) } }
        let error = try #require(throws: KeyedArchiveError.self) { try #require(outcome).get() }
        #expect(error.code == .typeMismatch)
        #expect(error.className == "NSAttributedString")
        #expect(error.message.contains("attribute name NSCountedSet (1 element) is not a string"))
    }
}
