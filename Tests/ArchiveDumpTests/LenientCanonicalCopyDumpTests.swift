import Foundation
import Testing
@testable import ArchiveDumpCore
import KeyedArchive

/// `archive-dump --lenient` in every mode it has shows a Foundation-written archive rewritten as no writer
/// writes it but CoreFoundation reads it (object references of 9 or 16 bytes, an offset-table entry inside
/// the header that no reference leads to) exactly as the strict dump shows the archive Foundation wrote;
/// without `--lenient` the rewritten file is refused.
@Suite struct LenientCanonicalCopyDumpTests {
    static let modes: [[String]] = [[], ["--raw"], ["--json"], ["--raw", "--json"], ["--xml"], ["--binary"], ["--classes"]]

    static let archive: Data = {
        let root: NSDictionary = ["name": "x", "list": [1, 2, "shared"], "again": "shared",
                                  "when": NSDate(timeIntervalSinceReferenceDate: 1)]
        return (try? NSKeyedArchiver.archivedData(withRootObject: root, requiringSecureCoding: false)) ?? Data()
    }()

    static let rewrites: [(String, Data)] = [
        ("references 9", BinaryPropertyListRewrite.widened(archive, referenceSize: 9)),
        ("references 16", BinaryPropertyListRewrite.widened(archive, referenceSize: 16, high: 0x5A)),
        ("header entry", BinaryPropertyListRewrite.addingEntry(archive, offset: 4)),
    ]

    func run(_ arguments: [String], input: Data) -> (status: Int32, output: [UInt8], errors: String) {
        let out = DumpOutputCollector(), err = DumpOutputCollector()
        let status = ArchiveDumpCommand.run(arguments: arguments + ["-"], input: { input }, output: out.output,
                                            errors: err.output, outputIsTerminal: false)
        _ = out.text
        return (status, out.bytes, err.text)
    }

    @Test(arguments: modes)
    func lenientDumpShowsTheRewrittenArchiveAsTheOriginal(_ mode: [String]) throws {
        let original = run(mode, input: Self.archive)
        #expect(original.status == 0, "\(original.errors)")
        #expect(!original.output.isEmpty)
        for (name, rewritten) in Self.rewrites {
            let strict = run(mode, input: rewritten)
            #expect(strict.status == 1, "\(name) \(mode)")
            let lenient = run(["--lenient"] + mode, input: rewritten)
            #expect(lenient.status == 0, "\(name) \(mode): \(lenient.errors)")
            #expect(lenient.output == original.output, "\(name) \(mode)")
        }
    }
}
