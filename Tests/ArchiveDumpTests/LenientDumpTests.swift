import Testing
import Foundation
@testable import ArchiveDumpCore
import KeyedArchive
import KeyedArchiveTestSupport

/// `archive-dump --lenient` shows what can be shown of a damaged archive, each damaged place listed and
/// marked with its error; without it the archive is refused, and `--validate` still reports the first error.
@Suite(.temporaryDirectory("archive-dump")) struct LenientDumpTests {
    /// A wrong $version, a dangling UID in object #1 and a broken $class on object #4.
    static let damaged: PropertyListValue = .dictionary([
        "$archiver": "NSKeyedArchiver", "$version": 99999,
        "$top": ["root": .uid(UID(1)), "flag": true],
        "$objects": ["$null",
                     ["$class": .uid(UID(3)), "name": .uid(UID(2)), "next": .uid(UID(4)), "lost": .uid(UID(77))],
                     "hello", ["$classname": "Thing", "$classes": ["Thing", "NSObject"]],
                     ["$class": .uid(UID(2)), "x": 1]],
    ])

    @Test func theTreeListsAndMarksEachDamagedPlace() throws {
        let path = try ToolRunner.temporaryFile(try Self.damaged.propertyListData(format: .binary))
        let tree = try ToolRunner.run(["--lenient", path])
        #expect(tree.status == 0, "\(tree.stderr)")
        #expect(tree.text == """
            keyed archive: $archiver "NSKeyedArchiver", $version 99999, 5 entries in $objects
            damaged: $version must be 100000, found 99999
            damaged: lost (object #1, class Thing): UID 77 is out of range: $objects has 5 entries
            damaged: $class (object #4): $class points at object #2, a string, not a class dictionary
            root: #1 Thing
              name: #2 "hello"
              next: #4 [damaged: $class (object #4): $class points at object #2, a string, not a class dictionary] dictionary (2 entries)
                $class: UID(2)
                x: 1
              lost: #77 (damaged: UID 77 is out of range: $objects has 5 entries)
            flag: true

            """)
        // Strict stays the default, and --validate reports the first error.
        let strict = try ToolRunner.run([path])
        #expect(strict.status == 1)
        #expect(strict.stderr == "Error: \(path): keyed archive: $version must be 100000, found 99999 (use --raw to see the property list as stored)\n")
        let validate = try ToolRunner.run(["--validate", path])
        #expect(validate.stderr == "Error: \(path): keyed archive: $version must be 100000, found 99999\n")
        #expect(try ToolRunner.run(["--lenient", "--validate", path]).status == 64)
    }

    @Test func jsonListsTheDamageAndMarksEachPlace() throws {
        let path = try ToolRunner.temporaryFile(try Self.damaged.propertyListData(format: .xml))
        let json = try ToolRunner.run(["--lenient", "--json", path])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        #expect((object["$damage"] as? [String])?.count == 3)
        let root = try #require((object["$top"] as? [String: Any])?["root"] as? [String: Any])
        #expect((root["lost"] as? [String: Any])?["$damaged"] as? String == "UID 77 is out of range: $objects has 5 entries")
        let next = try #require(root["next"] as? [String: Any])
        #expect(next["$damaged"] as? String == "$class (object #4): $class points at object #2, a string, not a class dictionary")
        #expect((next["$stored"] as? [String: Any])?["x"] as? Int == 1)
        let classes = try ToolRunner.run(["--lenient", "--classes", path])
        #expect(classes.text == "1  Thing\n")
    }

    @Test func aValidArchiveShowsTheSameLenientlyAndStrictly() throws {
        let path = try ToolRunner.temporaryFile(SystemFieldsArchive.foundation())
        for mode in [[], ["--json"], ["--classes"], ["--raw"]] {
            #expect(try ToolRunner.run(["--lenient"] + mode + [path]).stdout == (try ToolRunner.run(mode + [path]).stdout), "\(mode)")
        }
    }

    @Test func aFileOnlyCoreFoundationsStricterRulesRejectIsShownLeniently() {
        let bytes: [UInt8] = Array("bplist00".utf8) + [  // bplist00
            0x10, 0x01,  // object 0 at 8: int 1
            0x08,  // offset table at 10
            0xEE,  // a byte the trailer does not account for -- CORRUPTED (CoreFoundation's length rule)
            0, 0, 0, 0, 0, 0, 1, 1,  // trailer at 12: unused, sort version, offset size 1, reference size 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 10,  // offset table at 10
        ]
        for (arguments, expected) in [(["--raw"], 1 as Int32), (["--lenient", "--raw"], 0), (["--lenient"], 0)] {
            let out = DumpOutputCollector(), err = DumpOutputCollector()
            let status = ArchiveDumpCommand.run(arguments: arguments + ["-"], input: { Data(bytes) }, output: out.output,
                                                errors: err.output, outputIsTerminal: false)
            #expect(status == expected, "\(arguments): \(err.text)")
            if expected == 0 { #expect(out.text == "1\n", "\(arguments)") }
        }
    }

    /// The typedstream reader has no lenient mode: `--lenient` reads a typedstream strictly and says so.
    @Test func lenientSaysItDoesNotApplyToATypedstream() throws {
        let data = try TypedstreamArchiver().archivedData(withRootValue: .string("hello"))
        func dump(_ arguments: [String]) -> (status: Int32, out: String, err: String) {
            let out = DumpOutputCollector(), err = DumpOutputCollector()
            let status = ArchiveDumpCommand.run(arguments: arguments + ["-"], input: { data }, output: out.output,
                                                errors: err.output, outputIsTerminal: false)
            return (status, out.text, err.text)
        }
        let strict = dump([]), lenient = dump(["--lenient"])
        #expect(strict.status == 0 && lenient.status == 0, "\(strict.err) \(lenient.err)")
        #expect(lenient.out == strict.out)
        #expect(strict.err == "")
        #expect(lenient.err == "Note: <stdin>: --lenient does not apply to a typedstream (NSArchiver) archive; it is read "
                + "with the strict rules\n")
        #expect(ArchiveDumpCommand.help.contains("A typedstream is\n" + String(repeating: " ", count: 26) + "read strictly all the same"))
    }

    /// crabstep's ExtraData, a typedstream cut short on purpose: refused with and without `--lenient`.
    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus"))
    func aDamagedTypedstreamIsRefusedWithTheNote() throws {
        let path = Corpus.url("typedstream/crabstep/ExtraData").path
        let strict = try ToolRunner.run([path]), lenient = try ToolRunner.run(["--lenient", path])
        #expect(strict.status == 1)
        #expect(lenient.status == 1)
        #expect(strict.stderr.hasPrefix("Error: \(path): "))
        #expect(lenient.stderr == "Note: \(path): --lenient does not apply to a typedstream (NSArchiver) archive; it is "
                + "read with the strict rules\n" + strict.stderr)
    }
}
