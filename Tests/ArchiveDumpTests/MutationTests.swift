import Testing
import Foundation
import KeyedArchive
@testable import ArchiveDumpCore

/// Corrupted archives go through every mode in-process: a crash would take the test runner down.
@Suite struct MutationTests {
    @Test func everySingleByteCorruptionEndsWithStatus0Or1() throws {
        let original = try Samples.note().propertyListData(format: .binary)
        var statuses: [Int32: Int] = [:]
        // --raw and --validate read the same way as these; the tree and JSON walk the graph.
        let modes: [[String]] = [[], ["--json"], ["--classes"]]
        for position in 0..<original.count {
            // A large value, and the byte with its top bit flipped.
            for replacement: UInt8 in [0xFF, original[position] ^ 0x80] where replacement != original[position] {
                var corrupted = original
                corrupted[position] = replacement
                for mode in modes {
                    let out = DumpOutputCollector(), err = DumpOutputCollector()
                    let status = ArchiveDumpCommand.run(arguments: mode + ["-"], input: { corrupted }, output: out.output,
                                                        errors: err.output, outputIsTerminal: false)
                    statuses[status, default: 0] += 1
                    #expect(status == 0 || status == 1, "byte \(position) = \(replacement), \(mode)")
                    if status == 1 {
                        #expect(err.text.hasPrefix("Error: <stdin>: "))
                        #expect(err.text.filter { $0 == "\n" }.count == 1, "\(err.text)")
                    }
                }
            }
        }
        // Both outcomes occur: some corruptions are still valid archives, most are not.
        #expect(statuses[0, default: 0] > 0)
        #expect(statuses[1, default: 0] > 0)
    }

    @Test func archivesWithStrangeReferencesStillDump() throws {
        var b = ArchiveBuilder()
        let cls = b.classRef("NSDictionary", ["NSObject"])                       // #1
        let selfKeyed = b.reserve()                                               // #2
        // A dictionary whose key and value are itself, an array holding a class description and $null,
        // and an NSURL whose base is itself.
        b.set(selfKeyed, .dictionary(["NS.keys": [selfKeyed], "NS.objects": [selfKeyed], "$class": cls]))
        let list = b.object("NSArray", ["NSObject"], [("NS.objects", [cls, .ref(0), selfKeyed])])
        let url = b.reserve()
        let rel = b.add("x")
        b.set(url, b.instance("NSURL", ["NSObject"], [("NS.base", url), ("NS.relative", rel)]))
        let root = b.object("Holder", ["NSObject"], [("d", selfKeyed), ("l", list), ("u", url)])
        let graph = try ArchivedObjectGraph(propertyList: b.archive(root: root))
        let tree = rendered { TreeRenderer().render(graph: graph, to: $0) }
        #expect(tree == """
            keyed archive: $archiver "NSKeyedArchiver", $version 100000, 10 entries in $objects
            root: #9 Holder
              d: #2 NSDictionary (1 entry)
                #2 NSDictionary: #2 NSDictionary (1 entry) (cycle: back to line 3)
              l: #4 NSArray (3 items)
                [0]: #1 class NSDictionary (NSDictionary, NSObject)
                [1]: nil
                [2]: #2 NSDictionary (1 entry) (repeated: see line 3)
              u: #5 NSURL x relative to
                base: #5 NSURL x relative to (cycle: back to line 9)

            """)
        let json = rendered { JSONRenderer().render(graph: graph, to: $0) }
        #expect(json.contains(#""d":{"$class":"NSDictionary","$id":2,"$keys":[{"$ref":2}],"$values":[{"$ref":2}]}"#))
        #expect(json.contains(#""u":{"$class":"NSURL","$id":5,"NS.base":{"$ref":5},"NS.relative":"x"}"#))
    }
}
