import Testing
import Foundation
@testable import ArchiveDumpCore
import KeyedArchive
import KeyedArchiveTestSupport

/// `archive-dump` shows `$top` values a program encoded straight into the archiver: the tree as top-level
/// fields, JSON as values; `--validate` accepts them.
@Suite(.temporaryDirectory("archive-dump")) struct InlineTopDumpTests {
    @Test func foundationSystemFieldsAreShownInEveryMode() throws {
        let path = try ToolRunner.temporaryFile(SystemFieldsArchive.foundation())
        let tree = try ToolRunner.run([path])
        #expect(tree.status == 0, "\(tree.stderr)")
        let lines = tree.text.split(separator: "\n").map(String.init)
        for expected in ["isZoneWide: true", "wasCached: false", "changeTag: 1234567890123", "version: -7", "ratio: 0.25",
                         "etag: {length = 3, bytes = 0x0001fe}", "ModificationDate: #2 NSDate 2001-01-02T10:17:36.75Z"] {
            #expect(lines.contains(expected), "\(expected) in\n\(tree.text)")
        }
        #expect(lines.contains { $0.hasPrefix("RecordName: #") && $0.hasSuffix(" \"record-1\"") })
        #expect(lines.contains { $0.hasPrefix("ZoneID: #") && $0.hasSuffix(" " + SystemFieldsZoneID.archivedName) })

        let json = try ToolRunner.run(["--json", path])
        #expect(json.status == 0, "\(json.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        let top = try #require(object["$top"] as? [String: Any])
        #expect(top["isZoneWide"] as? Bool == true)
        #expect(top["wasCached"] as? Bool == false)
        #expect((top["changeTag"] as? NSNumber)?.int64Value == SystemFieldsArchive.changeTag)
        #expect(top["ratio"] as? Double == 0.25)
        #expect(top["RecordName"] as? String == "record-1")
        #expect((top["ZoneID"] as? [String: Any])?["ZoneName"] as? String == "zone")

        #expect(try ToolRunner.run(["--validate", path]).text == "OK\n")
        #expect(try ToolRunner.run(["--classes", path]).text == "1  \(SystemFieldsZoneID.archivedName)\n1  NSDate\n")
        let raw = try ToolRunner.run(["--raw", path])
        #expect(raw.status == 0)
        #expect(raw.text.contains("\"isZoneWide\" => true"))
    }

    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus"))
    func compiledNibShowsItsInlineTopInteger() throws {
        let path = Corpus.url("inline-top/amethyst/561c8eb5/SUStatus.nib").path
        let tree = try ToolRunner.run([path])
        #expect(tree.status == 0)
        #expect(tree.text.hasPrefix("""
            keyed archive: $archiver "NSKeyedArchiver", $version 100000, 146 entries in $objects
            IB.systemFontUpdateVersion: 1
            IB.objectdata: #1 NSIBObjectData

            """))
        let json = try ToolRunner.run(["--json", "--max-depth", "1", path])
        #expect(json.text.hasPrefix(#"{"$archiver":"NSKeyedArchiver","$version":100000,"$top":{"IB.systemFontUpdateVersion":1,"#))
        #expect(try ToolRunner.run(["--validate", path]).text == "OK\n")
    }
}
