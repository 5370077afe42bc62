import Foundation
import Testing
@testable import KeyedArchive

/// `==` on dictionaries keyed by dictionaries (or other collections): keys are paired by hash and compared
/// on the explicit stack, so deep chains of them compare on an 8 MiB stack, and the answer is still exact
/// when keys collide (the hash looks only 8 levels deep).
@Suite struct FoundationValueEqualityTests {
    /// `levels` dictionaries, each the only key of the next, around `leaf`.
    static func keyChain(_ levels: Int, leaf: FoundationValue = .integer(1)) -> FoundationValue {
        var value = leaf
        for _ in 0 ..< levels { value = .dictionary([value: .integer(1)]) }
        return value
    }

    /// Holds values a thread's body reads.
    private final class Values: @unchecked Sendable {
        let values: [FoundationValue]
        init(_ values: [FoundationValue]) { self.values = values }
    }

    /// `body` on a thread with an 8 MiB stack; nil if the thread could not start.
    private static func onEightMiB(_ values: [FoundationValue], _ body: @escaping ([FoundationValue]) -> [Bool]) -> [Bool]? {
        let held = Values(values)
        var result: [Bool]?
        let ran = runOnThread(stackBytes: 8 << 20) { result = body(held.values) }
        return ran ? result : nil
    }

    @Test func dictionariesKeyedByDictionariesCompareAMillionLevelsDeep() throws {
        let levels = 1_000_000
        let outcome = Self.onEightMiB([Self.keyChain(levels), Self.keyChain(levels), Self.keyChain(levels, leaf: .integer(2))]) {
            [$0[0] == $0[1], $0[0] != $0[2], $0[0] == $0[0]]
        }
        #expect(outcome == [true, true, true])
    }

    @Test func dictionariesKeyedByDictionariesDecodedFromAnArchiveCompare() throws {
        let levels = 20_000
        let data = try KeyedArchiver.archivedData(withRootObject: Self.keyChain(levels))
        var unarchiver = KeyedUnarchiver()
        unarchiver.limits.maximumDepth = 3 * levels
        let decoded = try unarchiver.decode(FoundationValue.self, from: data)
        let outcome = Self.onEightMiB([decoded, Self.keyChain(levels), Self.keyChain(levels, leaf: .string("x"))]) {
            [$0[0] == $0[1], $0[0] != $0[2]]
        }
        #expect(outcome == [true, true])
    }

    @Test func keysThatAreCollectionsAreMatchedExactly() {
        // Keys equal for more levels than the hash looks at, so they collide.
        let deepA = Self.keyChain(12, leaf: .string("a")), deepB = Self.keyChain(12, leaf: .string("b"))
        var h1 = Hasher(), h2 = Hasher()
        deepA.hash(into: &h1)
        deepB.hash(into: &h2)
        #expect(h1.finalize() == h2.finalize())
        let x: FoundationValue = .dictionary([deepA: .integer(1), deepB: .integer(2), .string("s"): .array([])])
        #expect(x == .dictionary([.string("s"): .array([]), deepB: .integer(2), deepA: .integer(1)]))
        #expect(x != .dictionary([deepA: .integer(2), deepB: .integer(1), .string("s"): .array([])]))
        #expect(x != .dictionary([deepA: .integer(1), Self.keyChain(12, leaf: .string("c")): .integer(2), .string("s"): .array([])]))
        // One collection key each, unequal; a collection key where the other has a plain one.
        #expect(FoundationValue.dictionary([.array([.integer(1)]): .null]) != .dictionary([.array([.integer(2)]): .null]))
        #expect(FoundationValue.dictionary([.array([.integer(1)]): .null]) == .dictionary([.array([.integer(1)]): .null]))
        #expect(FoundationValue.dictionary([.array([]): .null, .integer(1): .null]) != .dictionary([.integer(2): .null, .integer(1): .null]))
        #expect(FoundationValue.dictionary([.set([]): .null, .orderedSet([]): .null]) != .dictionary([.set([]): .null, .array([]): .null]))
    }

    /// `levels` attributed strings, each an attribute value of the next, or counted sets, each the element
    /// of the next, around `leaf`.
    static func catalogueChain(_ levels: Int, countedSets: Bool, leaf: FoundationValue = .integer(1)) -> FoundationValue {
        var value = leaf
        for _ in 0 ..< levels {
            value = countedSets ? .countedSet(ArchivedCountedSet(counts: [value: 2]))
                : .attributedString(ArchivedAttributedString(string: "x", attributes: ["k": value]))
        }
        return value
    }

    static func hashValue(_ v: FoundationValue) -> Int {
        var h = Hasher()
        v.hash(into: &h)
        return h.finalize()
    }

    /// Nested attributed strings and counted sets: 3,000 levels overflowed an 8 MiB stack in `==` and the hash.
    @Test(arguments: [false, true])
    func nestedAttributedStringsAndCountedSetsCompareAndHash(countedSets: Bool) throws {
        let levels = 5_000
        let outcome = Self.onEightMiB([Self.catalogueChain(levels, countedSets: countedSets), Self.catalogueChain(levels, countedSets: countedSets),
                                       Self.catalogueChain(levels, countedSets: countedSets, leaf: .integer(2))]) { v -> [Bool] in
            var result = [v[0] == v[1], v[0] != v[2], Self.hashValue(v[0]) == Self.hashValue(v[1])]
            // The value types' own == and hash are the same.
            if let a = v[0].attributedString, let b = v[1].attributedString {
                result.append(a == b && a.hashValue == b.hashValue)
            } else if let a = v[0].countedSet, let b = v[1].countedSet {
                result.append(a == b && a.hashValue == b.hashValue)
            } else {
                result.append(false)
            }
            return result
        }
        #expect(outcome == [true, true, true, true])
    }
}
