import Testing
import Foundation
import KeyedArchive
@testable import ArchiveDumpCore

/// `archive-dump --validate` applies the strict (CoreFoundation's) binary rules and says when only they
/// reject a file.
@Suite struct ValidateStrictnessTests {
    private func validate(_ bytes: [UInt8]) -> (status: Int32, stdout: String, stderr: String) {
        let out = DumpOutputCollector(), err = DumpOutputCollector()
        let status = ArchiveDumpCommand.run(arguments: ["--validate", "-"], input: { Data(bytes) },
                                            output: out.output, errors: err.output, outputIsTerminal: false)
        return (status, out.text, err.text)
    }

    @Test func fileOnlyTheStrictRulesRejectIsNamedAsSuch() {
        let bytes: [UInt8] = Array("bplist00".utf8) + [  // bplist00
            0x10, 0x01,  // object 0 at 8: int 1
            0x08,  // offset table at 10
            0xEE,  // a byte the trailer does not account for -- CORRUPTED
            0, 0, 0, 0, 0, 0, 1, 1,  // trailer at 12: unused, sort version, offset size 1, reference size 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 10,  // offset table at 10
        ]
        let result = validate(bytes)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("object count does not match the table"), "\(result.stderr)")
        #expect(result.stderr.hasSuffix("(rejected as CoreFoundation rejects it; PropertyListReadingOptions.isLenient would read it)\n"),
                "\(result.stderr)")
    }

    @Test func fileNoReaderAcceptsGetsNoLenientNote() {
        let bytes: [UInt8] = Array("bplist00".utf8) + [  // bplist00
            0x10, 0x01,  // object 0 at 8: int 1
            0x08,  // offset table at 10
            0, 0, 0, 0, 0, 0, 1, 1,  // trailer: unused, sort version, offset size 1, reference size 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 1,  // top object 1 -- CORRUPTED: only object 0 exists
            0, 0, 0, 0, 0, 0, 0, 10,  // offset table at 10
        ]
        let result = validate(bytes)
        #expect(result.status == 1)
        #expect(result.stderr.contains("top object 1 is not below the object count 1"), "\(result.stderr)")
        #expect(!result.stderr.contains("isLenient"))
    }
}
