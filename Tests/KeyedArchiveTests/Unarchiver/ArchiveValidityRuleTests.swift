import Foundation
import Testing
@testable import KeyedArchive

/// One set of validity rules: every corrupt archive below is rejected with the same error by the typed
/// unarchiver reading bytes, the typed unarchiver reading a parsed tree, and the raw model.
@Suite struct ArchiveValidityRuleTests {
    typealias F = ArchiveFixture

    /// Runs the three paths on `archive` and checks they fail alike; returns that error.
    @discardableResult
    func sameErrorOnAllPaths(_ archive: PropertyListValue, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> KeyedArchiveError
    {
        let data = BinaryPropertyListWriter().write(archive)
        return try sameErrorOnAllPaths(data, tree: archive, sourceLocation: sourceLocation)
    }

    /// Runs the bytes paths (and the tree path when given) and checks they fail alike.
    @discardableResult
    func sameErrorOnAllPaths(_ data: Data, tree: PropertyListValue?, sourceLocation: SourceLocation = #_sourceLocation)
        throws -> KeyedArchiveError
    {
        func failure(_ body: () throws -> Void) -> KeyedArchiveError? {
            do { try body() } catch let error as KeyedArchiveError { return error } catch { return nil }
            return nil
        }
        let bytes = failure { _ = try KeyedUnarchiver().decode(String.self, from: data) }
        let raw = failure { _ = try ArchivedObjectGraph(data: data) }
        let typed = try #require(bytes, "the typed unarchiver accepted it", sourceLocation: sourceLocation)
        let model = try #require(raw, "the raw model accepted it", sourceLocation: sourceLocation)
        var all = [("raw model", model)]
        if let tree {
            all.append(("tree", try #require(failure { _ = try KeyedUnarchiver().decode(String.self, from: tree) },
                                             "the tree path accepted it", sourceLocation: sourceLocation)))
            all.append(("raw model from tree", try #require(failure { _ = try ArchivedObjectGraph(propertyList: tree) },
                                                            "the raw model accepted the tree", sourceLocation: sourceLocation)))
        }
        for (name, other) in all {
            #expect(other.code == typed.code, "\(name)", sourceLocation: sourceLocation)
            #expect(other.message == typed.message, "\(name)", sourceLocation: sourceLocation)
            #expect(other.keyPath == typed.keyPath, "\(name)", sourceLocation: sourceLocation)
            #expect(other.objectUID == typed.objectUID, "\(name)", sourceLocation: sourceLocation)
        }
        return typed
    }

    /// `$objects` of a valid one-string archive: `$top.root` -> "hello".
    static let validObjects: [PropertyListValue] = ["$null", "hello"]

    @Test func theValidArchiveIsAcceptedOnAllPaths() throws {
        let archive = F.archive(Self.validObjects)
        let data = BinaryPropertyListWriter().write(archive)
        #expect(try KeyedUnarchiver().decode(String.self, from: data) == "hello")
        #expect(try KeyedUnarchiver().decode(String.self, from: archive) == "hello")
        #expect(try ArchivedObjectGraph(data: data).object(UID(1))?.content == .value("hello"))
    }

    @Test func anotherArchiverNameIsRejected() throws {
        let error = try sameErrorOnAllPaths(.dictionary([
            "$archiver": "Foundation.NSKeyedArchiver",   // CORRUPTED: corelibs' reader and bpylist2 want "NSKeyedArchiver"
            "$version": 100000,
            "$top": ["root": F.uid(1)],
            "$objects": .array(Self.validObjects),
        ]))
        #expect(error.code == .invalidArchive)
        #expect(error.message.contains("$archiver must be \"NSKeyedArchiver\""))
    }

    @Test func archiverThatIsNotAStringIsRejected() throws {
        let error = try sameErrorOnAllPaths(.dictionary([
            "$archiver": 1,                               // CORRUPTED: an integer
            "$version": 100000, "$top": ["root": F.uid(1)], "$objects": .array(Self.validObjects),
        ]))
        #expect(error.message == "$archiver must be a string, found integer")
    }

    @Test func anotherVersionIsRejected() throws {
        let error = try sameErrorOnAllPaths(.dictionary([
            "$archiver": "NSKeyedArchiver",
            "$version": 100001,                           // CORRUPTED: Apple writes and reads 100000 only
            "$top": ["root": F.uid(1)], "$objects": .array(Self.validObjects),
        ]))
        #expect(error.message == "$version must be 100000, found 100001")
    }

    @Test func versionThatIsNotAnIntegerIsRejected() throws {
        let error = try sameErrorOnAllPaths(.dictionary([
            "$archiver": "NSKeyedArchiver",
            "$version": "100000",                         // CORRUPTED: a string (bpylist2's invalid_type_archive)
            "$top": ["root": F.uid(1)], "$objects": .array(Self.validObjects),
        ]))
        #expect(error.message == "$version must be an integer, found string")
    }

    @Test func missingOrMistypedTopIsRejected() throws {
        #expect(try sameErrorOnAllPaths(.dictionary([
            "$archiver": "NSKeyedArchiver", "$version": 100000,
            // CORRUPTED: no $top
            "$objects": .array(Self.validObjects),
        ])).message == "$top is missing")
        #expect(try sameErrorOnAllPaths(.dictionary([
            "$archiver": "NSKeyedArchiver", "$version": 100000,
            "$top": [F.uid(1)],                           // CORRUPTED: an array
            "$objects": .array(Self.validObjects),
        ])).message == "$top must be a dictionary, found array")
    }

    @Test func inlineTopScalarIsAcceptedOnAllPathsAndAnObjectThereIsAnError() throws {
        // $top holds what a program encodes straight into the archiver: compiled nibs store an inline integer
        // there (corpus/inline-top), Foundation and GNUstep an inline boolean (InlineTopValueTests).
        let archive = F.archive(top: ["root": F.uid(1), "flag": true, "level": 3], Self.validObjects)
        let data = BinaryPropertyListWriter().write(archive)
        #expect(try KeyedUnarchiver().decode(Bool.self, forKey: "flag", from: data))
        #expect(try KeyedUnarchiver().decode(Int.self, forKey: "level", from: archive) == 3)
        let graph = try ArchivedObjectGraph(data: data)
        #expect(graph.top.first { $0.key == "flag" }?.value == .value(true))
        #expect(try ArchivedObjectGraph(propertyList: archive) == graph)
        #expect(try LazyArchivedObjectGraph(data: data).top == graph.top)
        // Decoding an object from the inline value is the error, for the key asked for (corelibs: "is not a reference").
        let error = try #require(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver().decodeObject(ofTypes: [ArchiveNull.self], forKey: "level", from: data)
        }
        #expect(error.message.hasSuffix("found an inline integer"), "\(error.message)")
        #expect(error.keyPath == "level")
    }

    @Test func topUIDOutOfRangeIsRejected() throws {
        let error = try sameErrorOnAllPaths(F.archive(
            top: ["root": F.uid(2)],                      // CORRUPTED: $objects has 2 entries
            Self.validObjects))
        #expect(error.message == "UID 2 is out of range: $objects has 2 entries")
        #expect(error.keyPath == "$top.root")
    }

    @Test func missingOrMistypedObjectsIsRejected() throws {
        #expect(try sameErrorOnAllPaths(.dictionary([
            "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": F.uid(1)],
            "$objects": ["hello": "$null"],               // CORRUPTED: a dictionary
        ])).message == "$objects must be an array, found dictionary")
        #expect(try sameErrorOnAllPaths(F.archive(
            top: [:],
            [])                                           // CORRUPTED: empty, no "$null"
        ).message == "$objects is empty: index 0 must hold \"$null\"")
    }

    @Test func firstObjectThatIsNotNullIsRejected() throws {
        let error = try sameErrorOnAllPaths(F.archive([
            "$nil",                                       // CORRUPTED: index 0 must be "$null"
            "hello",
        ]))
        #expect(error.code == .invalidArchive)
        #expect(error.message == "$objects[0] must be the string \"$null\", found string \"$nil\"")
        #expect(error.objectUID == 0)
    }

    @Test func classRulesAreTheSameOnAllPaths() throws {
        // Object #1 refers to object #2, whose $class is broken in each way in turn.
        func archive(_ object: PropertyListValue, _ classDict: PropertyListValue = F.classDict("Thing")) -> PropertyListValue {
            F.archive(["$null", "hello", object, classDict])
        }
        var e = try sameErrorOnAllPaths(archive(["x": 1, "$class": 3]))        // CORRUPTED: $class an integer
        #expect(e.message == "$class must be a UID, found integer")
        #expect(e.objectUID == 2)
        e = try sameErrorOnAllPaths(archive(["$class": F.uid(9)]))             // CORRUPTED: out of range
        #expect(e.message == "$class UID 9 is out of range: $objects has 4 entries")
        e = try sameErrorOnAllPaths(archive(["$class": F.uid(1)]))             // CORRUPTED: points at a string
        #expect(e.message == "$class points at object #1, a string, not a class dictionary")
        e = try sameErrorOnAllPaths(archive(["$class": F.uid(3)],
                                            ["$classes": ["Thing"]]))          // CORRUPTED: no $classname
        #expect(e.message == "class dictionary #3 has no $classname")
        e = try sameErrorOnAllPaths(archive(["$class": F.uid(3)],
                                            ["$classname": 7]))                // CORRUPTED: $classname an integer
        #expect(e.message == "$classname of class dictionary #3 must be a string, found integer")
        #expect(e.code == KeyedArchiveError.Code.invalidClass)
        // `$classes` is informational (corelibs and GNUstep only hand it to the delegate): a malformed one is
        // ignored on every path, and the raw model shows no chain.
        for classes: PropertyListValue in ["Thing", [], ["Thing", 1]] {
            let tree = archive(["$class": F.uid(3)], ["$classname": "Thing", "$classes": classes])
            let data = BinaryPropertyListWriter().write(tree)
            #expect(try KeyedUnarchiver().decode(String.self, from: data) == "hello")
            #expect(try KeyedUnarchiver().decode(String.self, from: tree) == "hello")
            let graph = try ArchivedObjectGraph(data: data)
            #expect(graph.object(UID(2))?.instance?.archivedClass.chain == [])
            #expect(try ArchivedObjectGraph(propertyList: tree) == graph)
            #expect(try LazyArchivedObjectGraph(data: data).object(UID(2))?.instance?.archivedClass.chain == [])
        }
        #expect(e.code == KeyedArchiveError.Code.invalidClass)
    }

    @Test func fieldUIDOutOfRangeIsRejectedEvenWhereNoOneReads() throws {
        let error = try sameErrorOnAllPaths(F.archive([
            "$null", "hello",
            ["$class": F.uid(3), "items": ["a", F.uid(40)]],   // CORRUPTED: items[1] out of range (never read as the root)
            F.classDict("Thing"),
        ]))
        #expect(error.message == "UID 40 is out of range: $objects has 4 entries")
        #expect(error.keyPath == "items[1]")
        #expect(error.objectUID == 2)
        #expect(error.className == "Thing")
    }

    @Test func fieldUIDOutOfRangeInAnObjectWithoutContainersIsRejected() throws {
        // Every value a scalar or a UID: the validation's quick check of such objects leaves the report to the walk.
        let error = try sameErrorOnAllPaths(F.archive([
            "$null", "hello",
            ["$class": F.uid(3), "count": 1, "friend": F.uid(40), "name": F.uid(1)],   // CORRUPTED: friend out of range
            F.classDict("Thing"),
        ]))
        #expect(error.message == "UID 40 is out of range: $objects has 4 entries")
        #expect(error.keyPath == "friend")
        #expect(error.objectUID == 2)
        #expect(error.className == "Thing")
    }

    /// Objects 0-6 of a hand-made archive: the envelope (keys 1-4, values 5-8), its four keys, the archiver's
    /// name and version; object 7 follows as `$top` and 8 as `$objects`.
    static let handMadeEnvelope: [HandMadeBinaryPropertyList.Object] = [
            .dictionary(keys: [1, 2, 3, 4], values: [5, 6, 7, 8]),   // 0: the envelope
            .ascii("$archiver"), .ascii("$version"), .ascii("$top"), .ascii("$objects"),
            .ascii("NSKeyedArchiver"),                               // 5
            .integer(100000),                                        // 6
    ]

    @Test func arrayFieldWithAUIDOutOfRangeIsReportedBesideACorrectArray() throws {
        // Arrays of scalars and UIDs are checked without the walk; a bad one leaves the report to the walk,
        // with the correct array beside it checked again, not skipped.
        let error = try sameErrorOnAllPaths(F.archive([
            "$null", "hello",
            ["$class": F.uid(3), "good": [F.uid(1), "x"], "tags": [F.uid(1), F.uid(40)]],   // CORRUPTED: tags[1] out of range
            F.classDict("Thing"),
        ]))
        #expect(error.message == "UID 40 is out of range: $objects has 4 entries")
        #expect(error.keyPath == "tags[1]")
        #expect(error.objectUID == 2)
    }

    @Test func arrayFieldInsideItselfIsRejectedOnTheBytesPaths() throws {
        let data = HandMadeBinaryPropertyList.encode(Self.handMadeEnvelope + [
            .dictionary(keys: [9], values: [10]),                    // 7: $top = {root: UID 2}
            .array([11, 12, 13]),                                    // 8: $objects = ["$null", class 12, object 13]
            .ascii("root"), .uid(2), .ascii("$null"),                // 9, 10, 11
            .dictionary(keys: [14, 16], values: [15, 17]),           // 12: {$classname: "Thing", $classes: ["Thing"]}
            .dictionary(keys: [18, 20], values: [19, 21]),           // 13: {$class: UID 1, items: 21}
            .ascii("$classname"), .ascii("Thing"), .ascii("$classes"), .array([15]),   // 14-17
            .ascii("$class"), .uid(1), .ascii("items"),              // 18, 19, 20
            .array([21]),                                            // 21: CORRUPTED: items contains itself
        ])
        let error = try sameErrorOnAllPaths(data, tree: nil)
        #expect(error.code == .invalidPropertyList)
        #expect(error.message.contains("container contains itself"))
    }

    @Test func containerInsideItselfIsRejectedOnTheBytesPaths() throws {
        let data = HandMadeBinaryPropertyList.encode(Self.handMadeEnvelope + [
            .dictionary(keys: [9], values: [10]),                    // 7: $top = {root: UID 1}
            .array([11, 12]),                                        // 8: $objects = ["$null", object 12]
            .ascii("root"), .uid(1), .ascii("$null"),                // 9, 10, 11
            .array([11, 12]),                                        // 12: CORRUPTED: $objects[1] contains itself
        ])
        let error = try sameErrorOnAllPaths(data, tree: nil)
        #expect(error.code == .invalidPropertyList)
        #expect(error.message.contains("container contains itself"))
        #expect(throws: PropertyListError.self) { try PropertyListValue(propertyListData: data) }
    }
}

