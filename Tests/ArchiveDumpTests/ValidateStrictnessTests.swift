import Testing
import Foundation
import KeyedArchive
@testable import ArchiveDumpCore

/// `archive-dump --validate` applies the strict binary rules and says when only they reject a file: that
/// lenient reading reads it, and, for what no writer writes and CoreFoundation reads, that CoreFoundation reads it.
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
        #expect(result.stderr.hasSuffix("(refused by the strict rules; PropertyListReadingOptions.isLenient reads it)\n"),
                "\(result.stderr)")
    }

    static let readByCoreFoundationNote = "(refused by the strict reader, as no writer writes it; CoreFoundation reads it, "
        + "and so does PropertyListReadingOptions.isLenient)\n"

    /// A keyed archive Foundation wrote, rewritten with 9-byte references or offsets, or with an offset-table
    /// entry inside the header that no reference leads to (CoreFoundation reads all three: ReaderRuleEvidenceTests'
    /// rows with Foundation's verdict `accepts`), is refused with the note that CoreFoundation reads it.
    @Test(arguments: [
        ("references 9", "object-reference size 9 is not 1...8"),
        ("offsets 9", "offset size 9 is not 1...8"),
        ("header entry", "offset-table entry 4 is outside the object area"),
    ])
    func fileOnlyTheStrictReaderRefusesIsNamedAsReadByCoreFoundation(_ rewrite: String, _ reason: String) throws {
        let root: NSDictionary = ["name": "x", "list": [1, 2, "shared"], "again": "shared"]
        let archive = try NSKeyedArchiver.archivedData(withRootObject: root, requiringSecureCoding: false)
        #expect(validate(Array(archive)).status == 0)
        let file = switch rewrite {
        case "references 9": BinaryPropertyListRewrite.widened(archive, referenceSize: 9)
        case "offsets 9": BinaryPropertyListRewrite.widened(archive, offsetSize: 9)
        default: BinaryPropertyListRewrite.addingEntry(archive, offset: 4)
        }
        #expect((try? PropertyListSerialization.propertyList(from: file, options: [], format: nil)) != nil,
                "Foundation on Linux reads \(rewrite)")
        let result = validate(Array(file))
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains(reason), "\(result.stderr)")
        #expect(result.stderr.hasSuffix(Self.readByCoreFoundationNote), "\(result.stderr)")
    }

    /// A file with 9-byte references that also holds what CoreFoundation refuses (a UTF-8 string, marker
    /// `0x71`, which only lenient reading reads) gets only the lenient note, not that CoreFoundation reads it.
    @Test func wideReferencesBesideWhatCoreFoundationRejectsGetOnlyTheLenientNote() {
        let bytes: [UInt8] = Array("bplist00".utf8) + [  // bplist00
            0xA1, 0x01,  // object 0 at 8: array of object 1
            0x71, 0x61,  // object 1 at 10: UTF-8 string "a" -- no CoreFoundation case for 0x7n
            0x08, 0x0A,  // offset table at 12
            0, 0, 0, 0, 0, 0, 1, 1,  // trailer: unused, sort version, offset size 1, reference size 1
            0, 0, 0, 0, 0, 0, 0, 2,  // 2 objects
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 12,  // offset table at 12
        ]
        let file = BinaryPropertyListRewrite.widened(Data(bytes), referenceSize: 9)
        #expect((try? PropertyListSerialization.propertyList(from: file, options: [], format: nil)) == nil)
        let result = validate(Array(file))
        #expect(result.status == 1)
        #expect(result.stderr.contains("object-reference size 9 is not 1...8"), "\(result.stderr)")
        #expect(result.stderr.hasSuffix("(refused by the strict rules; PropertyListReadingOptions.isLenient reads it)\n"),
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
