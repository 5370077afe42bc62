import Foundation
import Testing
@testable import KeyedArchive

// Strings that NSString tells apart stay apart (issue #30, part 6). Swift's `String ==` is canonical
// equivalence; NSString's `-isEqual:` compares UTF-16 units, and Apple's and GNUstep's NSSet and NSDictionary
// keep "\u{E9}" and "e\u{301}" as two members. FoundationValue and the archiver follow NSString; decoding such
// a pair into a Swift `Set<String>` or `[String: V]`, which cannot hold both, throws `equivalentKeys`.
// The failures the randomized differential test (FoundationValueDifferentialTests) found, minimized.

/// Pairs of strings that are canonically equivalent but have different scalars.
private let equivalentPairs: [(String, String)] = [
    ("\u{C5}", "\u{212B}"), ("\u{E9}", "e\u{301}"), ("s\u{323}\u{307}", "s\u{307}\u{323}"), ("\u{AC00}", "\u{1100}\u{1161}"),
]

/// Writes `field` under "field" with the class name of the reader types below, so each reads what it holds.
private struct FieldWriter: KeyedArchivable {
    static var archivedClassName: String { "StringKeysHolder" }
    var field: FoundationValue
    func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(field, forKey: "field") }
}

extension FieldWriter {
    init(from decoder: any ArchiveDecoder) throws { field = try decoder.decode(FoundationValue.self, forKey: "field") }
}

/// Reads "field" as a Swift dictionary whose values may be integers or strings (`decodeDictionary(keyType:valuesOfAnyOf:)`).
private struct HeterogeneousReader: KeyedArchivable {
    static var archivedClassName: String { "StringKeysHolder" }
    var count: Int
    init(from decoder: any ArchiveDecoder) throws {
        count = try decoder.decodeDictionary(keyType: String.self, valuesOfAnyOf: [Int.self, String.self], forKey: "field").count
    }
    func encode(to encoder: any ArchiveEncoder) throws {}
}

/// Codable readers: a `[String: Int]` field, a `Set<String>` field, and a nested keyed container.
private struct CodableCounts: ArchivableCodable {
    static var archivedClassName: String { "StringKeysHolder" }
    var field: [String: Int]
}

private struct CodableTags: ArchivableCodable {
    static var archivedClassName: String { "StringKeysHolder" }
    var field: Set<String>
}

private struct CodableKeyedContainer: ArchivableCodable {
    static var archivedClassName: String { "StringKeysHolder" }
    var names: [String]
    enum CodingKeys: String, CodingKey { case field }
    struct Name: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
    init(from decoder: any Decoder) throws {
        let nested = try decoder.container(keyedBy: CodingKeys.self).nestedContainer(keyedBy: Name.self, forKey: .field)
        names = nested.allKeys.map(\.stringValue)
    }
    func encode(to encoder: any Encoder) throws {}
}

@Suite struct NSStringEqualityTests {
    @Test func canonicallyEquivalentStringsAreDistinctFoundationValues() {
        for (a, b) in equivalentPairs {
            #expect(a == b, "Swift's == finds them equal")
            #expect(FoundationValue.string(a) != .string(b))
            #expect(FoundationValue.string(a) == .string(String(a.unicodeScalars)))
            #expect(Set<FoundationValue>([.string(a), .string(b), .string(a)]).count == 2)
            let d: [FoundationValue: FoundationValue] = [.string(a): .integer(1), .string(b): .integer(2)]
            #expect(d.count == 2 && d[.string(a)] == .integer(1) && d[.string(b)] == .integer(2))
            #expect(FoundationValue.set([.string(a), .string(b)]) != .set([.string(a), .string(a)]))
        }
    }

    @Test func archiverKeepsEquivalentSetMembers() throws {
        for (a, b) in equivalentPairs {
            let value: FoundationValue = .set([.string(a), .string(b)])
            let back = try KeyedUnarchiver().decode(FoundationValue.self, from: try KeyedArchiver.archivedData(withRootObject: value))
            #expect(back == value)
            // An ordered set of members given as Swift strings keeps both too.
            let archiver = KeyedArchiver()
            try archiver.encodeSet(orderedElements: [a, b, a], forKey: "root")
            #expect(try KeyedUnarchiver().decode(FoundationValue.self, from: archiver.encodedData()) == value)
        }
    }

    @Test func archiverKeepsEquivalentDictionaryKeysWithTheirValues() throws {
        for (a, b) in equivalentPairs {
            let value: FoundationValue = .dictionary([.string(a): .integer(1), .string(b): .string("two")])
            let back = try KeyedUnarchiver().decode(FoundationValue.self, from: try KeyedArchiver.archivedData(withRootObject: value))
            guard case .dictionary(let d) = back else { Issue.record("not a dictionary: \(back)"); continue }
            #expect(d.count == 2 && d[.string(a)] == .integer(1) && d[.string(b)] == .string("two"))
        }
    }

    /// Equivalent keys are equal under `<`; their order in the archive must not follow the dictionary's hash
    /// order, which differs between two instances with the same entries.
    @Test func equivalentKeysArchiveInOneOrder() throws {
        let keys = ["\u{C5}", "\u{212B}", "A\u{30A}", "\u{E9}", "e\u{301}", "b"]
        var archives = Set<Data>()
        for rotation in 0 ..< keys.count {
            var d = FoundationValueDictionary()
            for (i, k) in (keys[rotation...] + keys[..<rotation]).enumerated() { d[.string(k)] = .integer(PropertyListInteger(Int64(i))) }
            for (k, _) in d { d[k] = .integer(PropertyListInteger(Int64(k.description.utf8.count))) }
            archives.insert(try KeyedArchiver.archivedData(withRootObject: FoundationValue.dictionary(d)))
        }
        #expect(archives.count == 1)
    }

    @Test func decodingEquivalentKeysIntoASwiftDictionaryThrows() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: FoundationValue.dictionary([.string("\u{E9}"): .integer(1), .string("e\u{301}"): .integer(2)]))
        let error = try #require(throws: KeyedArchiveError.self) { try KeyedUnarchiver().decode([String: Int].self, from: data) }
        #expect(error.code == .equivalentKeys)
        #expect(error.className == "NSDictionary")
        #expect(error.keyPath == "root.<key 1>")
        #expect(error.message.contains("U+00E9") && error.message.contains("U+0065 U+0301"), "\(error.message)")
        // The same archive as FoundationValue keeps both entries, each with its own value.
        #expect(try KeyedUnarchiver().decode(FoundationValue.self, from: data) == .dictionary([.string("\u{E9}"): .integer(1), .string("e\u{301}"): .integer(2)]))
    }

    @Test func decodingEquivalentMembersIntoASwiftSetThrows() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: FoundationValue.set([.string("\u{C5}"), .string("\u{212B}")]))
        let error = try #require(throws: KeyedArchiveError.self) { try KeyedUnarchiver().decode(Set<String>.self, from: data) }
        #expect(error.code == .equivalentKeys)
        #expect(error.keyPath == "root[1]")
        #expect(error.message.contains("U+00C5") && error.message.contains("U+212B"), "\(error.message)")
    }

    @Test func repeatedIdenticalMembersStillCollapseInASwiftSet() throws {
        // An NSOrderedSet read as a set may repeat a member; the same scalars are the same member, as in NSSet.
        let data = try KeyedArchiver.archivedData(withRootObject: FoundationValue.orderedSet([.string("e\u{301}"), .string("e\u{301}")]))
        #expect(try KeyedUnarchiver().decode(Set<String>.self, from: data) == ["e\u{301}"])
    }

    @Test func everyStringKeyedDecodePathRejectsEquivalentKeys() throws {
        let keys = FoundationValue.dictionary([.string("\u{E9}"): .integer(1), .string("e\u{301}"): .integer(2)])
        let members = FoundationValue.set([.string("\u{E9}"), .string("e\u{301}")])
        func archive(_ field: FoundationValue) throws -> Data { try KeyedArchiver.archivedData(withRootObject: FieldWriter(field: field)) }
        /// Whether `body` threw an error whose description names both spellings' key path or scalars.
        func rejects<T>(_ body: () throws -> T) -> String? {
            do {
                _ = try body()
                return nil
            } catch {
                return "\(error)"
            }
        }
        let heterogeneous = rejects { try KeyedUnarchiver.unarchivedObject(ofClass: HeterogeneousReader.self, from: try archive(keys)) }
        #expect(heterogeneous?.contains("equivalent") == true, "\(heterogeneous ?? "no error")")
        let codableDictionary = rejects { try KeyedUnarchiver.unarchivedObject(ofClass: CodableCounts.self, from: try archive(keys)) }
        #expect(codableDictionary?.contains("U+0065 U+0301") == true, "\(codableDictionary ?? "no error")")
        let codableSet = rejects { try KeyedUnarchiver.unarchivedObject(ofClass: CodableTags.self, from: try archive(members)) }
        #expect(codableSet?.contains("U+0065 U+0301") == true, "\(codableSet ?? "no error")")
        let container = rejects { try KeyedUnarchiver.unarchivedObject(ofClass: CodableKeyedContainer.self, from: try archive(keys)) }
        #expect(container?.contains("canonically equivalent") == true, "\(container ?? "no error")")
        // Keys that differ in more than canonical equivalence read as before.
        let plain = try KeyedUnarchiver.unarchivedObject(ofClass: CodableCounts.self, from: try archive(.dictionary([.string("\u{E9}"): .integer(1), .string("e"): .integer(2)])))
        #expect(plain.field == ["\u{E9}": 1, "e": 2])
    }

    @Test func decodeDecodableRejectsEquivalentKeys() throws {
        struct Reader: KeyedArchivable {
            static var archivedClassName: String { "StringKeysHolder" }
            var field: [String: Int]?
            init(from decoder: any ArchiveDecoder) throws { field = try decoder.decodeDecodable([String: Int].self, forKey: "field") }
            func encode(to encoder: any ArchiveEncoder) throws {}
        }
        let data = try KeyedArchiver.archivedData(withRootObject: FieldWriter(field: .dictionary([.string("\u{E9}"): .integer(1), .string("e\u{301}"): .integer(2)])))
        let error = try #require(throws: KeyedArchiveError.self) { try KeyedUnarchiver.unarchivedObject(ofClass: Reader.self, from: data) }
        #expect(error.code == .equivalentKeys)
    }
}
