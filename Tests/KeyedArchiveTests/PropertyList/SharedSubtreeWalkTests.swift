import Foundation
import Testing

@testable import KeyedArchive

/// Values whose containers share sub-trees: 40 levels, each holding the next level twice, make 41 distinct
/// containers and 2^40 paths. Every public walk of a value (equality, hashing, description, XML writing)
/// must finish at once, with bounded output or a clear error naming the limit.
@Suite struct SharedSubtreeWalkTests {
    /// 40 levels of arrays (or dictionaries), each holding the next twice, around `leaf`.
    static func bomb(dictionaries: Bool = false, leaf: PropertyListValue = .integer(1)) -> PropertyListValue {
        var value: PropertyListValue = .array([leaf])
        for _ in 0 ..< 40 {
            value = dictionaries ? .dictionary(["a": value, "b": value]) : .array([value, value])
        }
        return value
    }

    @Test(arguments: [false, true]) func descriptionIsElidedNotExpanded(dictionaries: Bool) {
        let text = Self.bomb(dictionaries: dictionaries).description
        #expect(text.hasSuffix(PropertyListValue.elidedMarker))
        // The budget: 16 visits per distinct value plus 100,000, each a few characters.
        #expect(text.utf8.count < 4_000_000)
        #expect(text.hasPrefix(dictionaries ? "[\"a\": [\"a\": " : "[[[["))
    }

    @Test func descriptionOfSmallSharingIsComplete() {
        let shared: PropertyListValue = [1, 2]
        let value: PropertyListValue = .array([shared, shared, .set([shared])])
        #expect(value.description == "[[1, 2], [1, 2], set[[1, 2]]]")
    }

    @Test(arguments: [false, true]) func xmlWriterRejectsSharedSubtreesNamingTheLimit(dictionaries: Bool) {
        let error = #expect(throws: PropertyListError.self) {
            try XMLPropertyListWriter().write(Self.bomb(dictionaries: dictionaries))
        }
        #expect(error?.code == .limitExceeded)
        #expect(error?.message.contains(PropertyListExpansionBudget.limitDescription) == true)
        #expect(error?.message.contains("binary") == true)
    }

    @Test func xmlWriterStillWritesALargeTreeWithoutSharing() throws {
        // 300,000 distinct values: over the allowance, but each visited once.
        let value = PropertyListValue.array((0 ..< 300).map { i in .array((0 ..< 1000).map { .integer(exactly: i * 1000 + $0)! }) })
        let xml = try XMLPropertyListWriter().write(value)
        #expect(try PropertyListValue(propertyListData: xml) == value)
    }

    @Test(arguments: [false, true]) func equalityOfSharedSubtreesFinishes(dictionaries: Bool) {
        let a = Self.bomb(dictionaries: dictionaries), b = Self.bomb(dictionaries: dictionaries)
        #expect(a == a)
        #expect(a == b)  // built apart: no storage in common, but each pair of storages is compared once
        #expect(a != Self.bomb(dictionaries: dictionaries, leaf: .integer(2)))
        #expect(a != Self.bomb(dictionaries: !dictionaries))
    }

    @Test(arguments: [false, true]) func hashingOfSharedSubtreesFinishes(dictionaries: Bool) {
        let a = Self.bomb(dictionaries: dictionaries), b = Self.bomb(dictionaries: dictionaries)
        #expect(a.hashValue == b.hashValue)
        #expect(Set([a, b]).count == 1)
    }

    @Test func hashingAWideSharedValueFinishes() {
        // 8 levels of 1,000 references each: 10^24 paths within the hashed depth.
        var value: PropertyListValue = .integer(1)
        for _ in 0 ..< 8 { value = .array(Array(repeating: value, count: 1000)) }
        var dictionary: PropertyListValue = .integer(1)
        for _ in 0 ..< 8 { dictionary = .dictionary(PropertyListDictionary((0 ..< 1000).map { ("k\($0)", dictionary) })) }
        #expect(value.hashValue == value.hashValue)
        #expect(dictionary.hashValue == dictionary.hashValue)
        #expect(value != dictionary)
    }

    @Test func equalDictionariesInAnotherOrderHashEqually() {
        let entries = (0 ..< 2000).map { ("k\($0)", PropertyListValue.array([.integer(exactly: $0)!])) }
        let a = PropertyListValue.dictionary(PropertyListDictionary(entries))
        let b = PropertyListValue.dictionary(PropertyListDictionary(entries.reversed()))
        #expect(a == b)
        #expect(a.hashValue == b.hashValue)
    }
}
