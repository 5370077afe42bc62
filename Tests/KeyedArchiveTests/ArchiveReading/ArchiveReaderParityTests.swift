import Foundation
import Testing
@testable import KeyedArchive
import KeyedArchiveTestSupport

/// Every way to open a keyed archive goes through one reader (`KeyedArchiveReader`, with the rules of
/// `KeyedArchiveRules`): the typed unarchiver, the eager, on-demand, lazy and lenient raw graphs, from
/// binary bytes, XML bytes or a parsed tree, all report an envelope fault with the very same error.
@Suite struct ArchiveReaderParityTests {
    typealias F = ArchiveFixture

    /// The envelope of a valid archive whose root is the string `x`, with `changes` applied (nil removes a member).
    private func envelope(_ changes: [String: PropertyListValue?]) -> PropertyListValue {
        var members: PropertyListDictionary = ["$archiver": "NSKeyedArchiver", "$version": .integer(100000),
                                               "$top": ["root": F.uid(1)], "$objects": ["$null", "x"]]
        for (key, value) in changes { members[key] = value }
        return .dictionary(members)
    }

    private func error(_ body: () throws -> Void) -> KeyedArchiveError? {
        do { try body() } catch { return error as? KeyedArchiveError }
        return nil
    }

    /// Expects every reader to reject `tree` (written as binary and as XML) with `message`, and the lenient
    /// graph to record the same error first.
    private func expectSameFault(_ tree: PropertyListValue, _ message: String, lenient: Bool = true,
                                 sourceLocation: SourceLocation = #_sourceLocation) throws {
        let binary = BinaryPropertyListWriter().write(tree)
        let xml = try tree.propertyListData(format: .xml)
        let eager = try #require(error { _ = try ArchivedObjectGraph(data: binary) }, sourceLocation: sourceLocation)
        #expect(eager.message == message, sourceLocation: sourceLocation)
        let others: [(String, KeyedArchiveError?)] = [
            ("typed unarchiver", error { try KeyedUnarchiver().withTopLevelDecoder(binary) { _ in } }),
            ("typed unarchiver, tree", error { try KeyedUnarchiver().withTopLevelDecoder(tree) { _ in } }),
            ("on demand", error { _ = try ArchivedObjectGraph(onDemand: binary) }),
            ("lazy", error { _ = try LazyArchivedObjectGraph(data: binary) }),
            ("lazy, XML", error { _ = try LazyArchivedObjectGraph(data: xml) }),
            ("eager, XML", error { _ = try ArchivedObjectGraph(data: xml) }),
            ("eager, tree", error { _ = try ArchivedObjectGraph(propertyList: tree) }),
        ]
        for (reader, found) in others {
            #expect(found == eager, "\(reader): \(found.map(String.init(describing:)) ?? "accepted")", sourceLocation: sourceLocation)
        }
        if lenient {
            #expect(try ArchivedObjectGraph(lenient: binary).damage.first == eager, sourceLocation: sourceLocation)
        }
    }

    @Test func envelopeFaultsAreReportedAlikeByEveryReader() throws {
        let cases: [([String: PropertyListValue?], String)] = [
            (["$archiver": nil], "$archiver is missing: this is a property list, not a keyed archive"),
            (["$archiver": 5], "$archiver must be a string, found integer"),
            (["$archiver": "NSArchiver"], #"$archiver must be "NSKeyedArchiver", found "NSArchiver" (other archivers' formats are not read)"#),
            (["$version": nil], "$version is missing"),
            (["$version": "100000"], "$version must be an integer, found string"),
            (["$version": 99], "$version must be 100000, found 99"),
            (["$top": nil], "$top is missing"),
            (["$top": [F.uid(1)]], "$top must be a dictionary, found array"),
            (["$objects": nil], "$objects is missing"),
            (["$objects": ["$null": "x"]], "$objects must be an array, found dictionary"),
            (["$objects": []], #"$objects is empty: index 0 must hold "$null""#),
        ]
        for (changes, message) in cases {
            try expectSameFault(envelope(changes), message)
        }
    }

    @Test func aWrongFirstEntryIsReportedAlikeWhateverItIs() throws {
        try expectSameFault(envelope(["$objects": ["nothing", "x"]]), #"$objects[0] must be the string "$null", found string "nothing""#)
        try expectSameFault(envelope(["$objects": [7, "x"]]), #"$objects[0] must be the string "$null", found integer 7"#)
        // A container is named by its kind alone, by the lazy reader too.
        try expectSameFault(envelope(["$objects": [["a"], "x"]]), #"$objects[0] must be the string "$null", found array"#)
        try expectSameFault(envelope(["$objects": [["k": "v"], "x"]]), #"$objects[0] must be the string "$null", found dictionary"#)
    }

    @Test func aTopReferenceOutOfRangeIsReportedAlike() throws {
        try expectSameFault(envelope(["$top": ["root": F.uid(7)]]), "UID 7 is out of range: $objects has 2 entries")
    }

    @Test func aRootThatIsNotADictionaryIsReportedAlike() throws {
        try expectSameFault(.array(["$null"]), "the root of a keyed archive must be a dictionary, found array", lenient: false)
        try expectSameFault("NSKeyedArchiver", "the root of a keyed archive must be a dictionary, found string", lenient: false)
    }

    @Test func bytesOfNoPropertyListFormatAreReportedAlike() throws {
        let data = Data("%PDF-1.4".utf8)
        let expected = KeyedArchiveError(.invalidPropertyList, "not a readable property list: not a binary (bplist00), XML or OpenStep property list",
                                         underlying: PropertyListError(.unknownFormat, "not a binary (bplist00), XML or OpenStep property list",
                                                                       at: .init(byteOffset: 0)))
        #expect(error { try KeyedUnarchiver().withTopLevelDecoder(data) { _ in } } == expected)
        #expect(error { _ = try ArchivedObjectGraph(data: data) } == expected)
        #expect(error { _ = try ArchivedObjectGraph(onDemand: data) } == expected)
        #expect(error { _ = try LazyArchivedObjectGraph(data: data) } == expected)
        #expect(error { _ = try ArchivedObjectGraph(lenient: data) } == expected)
    }
}
