import Foundation
import Testing
@testable import KeyedArchive
import KeyedArchiveTestSupport

/// Each rule of the archive validation (`KeyedArchiveRules`, which names the evidence it follows) shown
/// on a real implementation's output or a real file it accepts, next to the real or derived input it rejects.
@Suite struct ArchiveRuleEvidenceTests {
    /// Opens `data` as every reader does; fails the test on an error.
    func expectAccepted(_ data: Data, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: Never.self, "\(what)", sourceLocation: sourceLocation) { try ArchivedObjectGraph(data: data) }
        #expect(throws: Never.self, "\(what)", sourceLocation: sourceLocation) { try LazyArchivedObjectGraph(data: data).loadGraph() }
        #expect(throws: Never.self, "\(what)", sourceLocation: sourceLocation) {
            try KeyedUnarchiver().withTopLevelDecoder(data) { _ in 0 }
        }
    }

    /// The error every reader reports for `data` (the same on each).
    func rejection(_ data: Data, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> KeyedArchiveError {
        let graph = try #require(throws: KeyedArchiveError.self, "\(what)", sourceLocation: sourceLocation) {
            try ArchivedObjectGraph(data: data)
        }
        let typed = try #require(throws: KeyedArchiveError.self, "\(what)", sourceLocation: sourceLocation) {
            try KeyedUnarchiver().withTopLevelDecoder(data) { _ in 0 }
        }
        #expect(typed.message == graph.message, "\(what)", sourceLocation: sourceLocation)
        return graph
    }

    /// Foundation on Linux's archive of `root`, and the same archive with `change` applied to its tree.
    func foundationArchive(_ root: Any, changing change: (inout PropertyListDictionary) -> Void = { _ in }) throws -> Data {
        let data = try NSKeyedArchiver.archivedData(withRootObject: root, requiringSecureCoding: false)
        guard case .dictionary(var envelope) = try PropertyListValue(propertyListData: data) else { return data }
        change(&envelope)
        return BinaryPropertyListWriter().write(.dictionary(envelope))
    }

    // Rule 1: corelibs' NSKeyedUnarchiver._readPropertyList refuses another $archiver or $version.
    @Test func archiverNameAndVersionAreCorelibs() throws {
        expectAccepted(try foundationArchive(["a", "b"] as NSArray), "Foundation's archive")
        #expect(try rejection(try foundationArchive("x" as NSString) { $0["$version"] = 100001 }, "$version 100001").message
                    == "$version must be 100000, found 100001")
        #expect(try rejection(try foundationArchive("x" as NSString) { $0["$archiver"] = "NSArchiver" }, "$archiver").message
                    .hasPrefix("$archiver must be \"NSKeyedArchiver\", found \"NSArchiver\""))
    }

    @Test(.requiresCorpus) func envelopeRulesRejectTheCorpusFilesBrokenThatWay() throws {
        let rejected: [(String, String)] = [
            ("bpylist2/invalid_type_archive.plist", "$archiver must be \"NSKeyedArchiver\", found \"NSArchiver\" (other archivers' formats are not read)"),
            ("bpylist2/invalid_version_archive.plist", "$version must be 100000, found 10000"),
            ("bpylist2/no_top_archive.plist", "$top is missing"),
            ("bpylist2/no_objects_archive.plist", "$objects is missing"),
            ("kiler129-nskeyedunarchiver/BrokenData/invalidContainer.bin.plist", "$top must be a dictionary, found boolean"),
        ]
        for (file, message) in rejected {
            #expect(try rejection(Corpus.data(file), file).message == message, "\(file)")
        }
        // The same writers' valid files beside them.
        expectAccepted(try Corpus.data("bpylist2/complex_archive.plist"), "bpylist2/complex_archive.plist")
        expectAccepted(try Corpus.data("kiler129-nskeyedunarchiver/ArchivedData/collections.bin.plist"), "collections.bin.plist")
    }

    // Rule 2: every writer puts "$null" at index 0; GNUstep's reader maps index 0 to nil whatever it holds, corelibs'
    // decodes it, so anything else there would mean different things to different readers.
    @Test func nullIsAtIndexZeroAsEveryWriterPutsIt() throws {
        let data = try foundationArchive(["a": 1] as NSDictionary)
        expectAccepted(data, "Foundation's archive")
        let replaced = try foundationArchive(["a": 1] as NSDictionary) { envelope in
            guard case .array(var objects)? = envelope["$objects"] else { return }
            objects[0] = "hello"
            envelope["$objects"] = .array(objects)
        }
        let error = try rejection(replaced, "$objects[0] replaced")
        #expect(error.message == "$objects[0] must be the string \"$null\", found string \"hello\"")
        #expect(error.objectUID == 0)
    }

    // Rule 4: corelibs fails on a UID past $objects when it reads it ("Invalid object reference"), GNUstep raises
    // (objectAtIndex:); the check finds it before anything is built.
    @Test(.requiresCorpus) func uidsOutOfRangeAreRejectedAsReadersFailOnThem() throws {
        expectAccepted(try foundationArchive(["a", "b"] as NSArray), "Foundation's archive")
        for (file, message) in [("bpylist2/invalid_uid_archive.plist", "UID 10 is out of range: $objects has 3 entries"),
                                ("kiler129-nskeyedunarchiver/BrokenData/invalidReference.bin.plist",
                                 "UID 5 is out of range: $objects has 3 entries")] {
            let error = try rejection(Corpus.data(file), file)
            #expect(error.message == message, "\(file)")
            #expect(error.keyPath == "$top.root", "\(file)")
        }
    }

    // Rule 5: $class must lead to a class dictionary with a string $classname (corelibs: "is not decodable",
    // "Invalid class"; GNUstep reads $class as a UID); $classes is only informational.
    @Test(.requiresCorpus) func classReferencesFollowCorelibsAndClassChainsAreInformational() throws {
        let rejected: [(String, String)] = [
            ("kiler129-nskeyedunarchiver/BrokenData/invalidObjectDeclarationContainer.bin.plist",
             "$class points at object #2, a boolean, not a class dictionary"),
            ("kiler129-nskeyedunarchiver/BrokenData/objectWithNoClassName.bin.plist", "class dictionary #2 has no $classname"),
            ("kiler129-nskeyedunarchiver/BrokenData/objectWithNonStringClassName.bin.plist",
             "$classname of class dictionary #2 must be a string, found integer"),
            ("bpylist2/no_class_meta_archive.plist", "$class points at object #3, a string, not a class dictionary"),
        ]
        for (file, message) in rejected {
            let error = try rejection(Corpus.data(file), file)
            #expect(error.message == message, "\(file)")
            #expect(error.code == .invalidClass, "\(file)")
        }
        // A `$classes` that is a string: no reader acts on it, so the archive opens and shows no chain.
        let chainless = try Corpus.data("kiler129-nskeyedunarchiver/BrokenData/objectWithNonArrayClassChain.bin.plist")
        expectAccepted(chainless, "objectWithNonArrayClassChain")
        let graph = try ArchivedObjectGraph(data: chainless)
        let root = try #require(graph.topReference().flatMap { graph.object($0)?.instance })
        #expect(root.className == "TestDummy")
        #expect(root.archivedClass.chain == [])
    }

    // Rule 6: CoreFoundation's binary reader refuses a container on its own path; object cycles go through UIDs.
    @Test(.enabled(if: GNUstepOracle.isAvailable, "GNUstep not installed (apt-get install gobjc libgnustep-base-dev gnustep-base-runtime)"))
    func objectCyclesThroughUIDsAreAcceptedContainerCyclesAreNot() throws {
        expectAccepted(try GNUstepOracle.encode("cyclicModel"), "GNUstep's cyclic model")
        typealias O = HandMadeBinaryPropertyList.Object
        let data = HandMadeBinaryPropertyList.encode([
            .dictionary(keys: [1, 2, 3, 4], values: [5, 6, 7, 8]),   // 0: the envelope
            .ascii("$archiver"), .ascii("$version"), .ascii("$top"), .ascii("$objects"),
            .ascii("NSKeyedArchiver"), .integer(100000),             // 5, 6
            .dictionary(keys: [9], values: [10]),                    // 7: $top = {root: UID 1}
            .array([11, 12]),                                        // 8: $objects = ["$null", object 12]
            .ascii("root"), .uid(1), .ascii("$null"),                // 9, 10, 11
            .array([11, 12]),                                        // 12: CORRUPTED: contains itself
        ])
        #expect(try rejection(data, "container inside itself").message.contains("container contains itself"))
    }
}
