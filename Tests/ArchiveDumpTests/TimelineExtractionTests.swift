import Foundation
import Testing
@testable import ArchiveDumpCore
import KeyedArchive

/// `archive-dump --timeline` and `--extract <dir>`.
@Suite(.temporaryDirectory("archive-dump")) struct TimelineExtractionTests {
    static let addressBook = BuiltProducts.packageRoot.appendingPathComponent("Samples/SchemaMigration/Fixtures/address-book-v1.archive").path

    @Test func theTimelineListsEveryDateWithItsPathSorted() throws {
        let result = try ToolRunner.run(["--timeline", Self.addressBook])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.text.split(separator: "\n").map(String.init)
        #expect(lines == [
            #"{"date":"2001-01-01T00:00:00Z","time":0.0,"source":"NSDate in keyed archive","path":"$top.root.contacts[0].created"}"#,
            #"{"date":"2011-01-01T12:00:00Z","time":315576000.0,"source":"NSDate in keyed archive","path":"$top.root.contacts[1].created"}"#,
        ])
        for line in lines { _ = try JSONSerialization.jsonObject(with: Data(line.utf8)) }
    }

    @Test func timelineSourcesNameTheFormatAndNestedDatesTheirHop() throws {
        let late = Date(timeIntervalSinceReferenceDate: 500), early = Date(timeIntervalSinceReferenceDate: -500)
        let inner = try TypedstreamArchiver().archivedData(withRootValue: .date(early))
        let outer = try PropertyListValue.dictionary(["when": .date(late), "body": .data(inner)]).propertyListData(format: .xml)
        let dates = try ForensicReader().read(outer).dates()
        #expect(dates.map(\.source).sorted() == ["NSDate in typedstream", "date in XML property list"])
        let lines = ArchiveDumpCommand.timelineLines(dates, origin: "")
        #expect(lines.count == 2)
        #expect(lines[0].hasPrefix(#"{"date":"2000-12-31T23:51:40Z","time":-500.0,"source":"NSDate in typedstream","path":"$root.body -> data -> typedstream -> NSDate"}"#))
        #expect(lines[1].contains(#""path":"$root.when""#))
    }

    @Test func extractionWritesEveryBlobWithSafeNamesAndSniffedTypes() throws {
        let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 1, 2, 3])
        let nested = try PropertyListValue.dictionary(["jpeg": .data(Data([0xFF, 0xD8, 0xFF, 0xE0]))]).propertyListData(format: .binary)
        var builder = ArchiveBuilder()
        let picture = builder.add(.data(png))
        let root = builder.object("Attack", ["NSObject"], [
            ("../../../etc/passwd", picture), ("/absolute", .data(Data("plain".utf8))), (".hidden", .data(Data([0]))),
            ("payload", builder.add(.data(nested))),
        ])
        let archive = try builder.archive(root: root).propertyListData(format: .binary)
        let directory = try TemporaryDirectory.subdirectory()
        // A file that is there already is kept, not replaced.
        try Data("keep".utf8).write(to: directory.appendingPathComponent("top.root_absolute.bin"))
        let input = try ToolRunner.temporaryFile(archive)
        let result = try ToolRunner.run(["--extract", directory.path, "--nested", input])
        #expect(result.status == 0, "\(result.stderr)")
        let records = try result.text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        let names = records.compactMap { $0["file"] as? String }
        #expect(names == ["top.root_.._.._.._etc_passwd.png", "top.root_absolute-2.bin", "top.root_.hidden.bin",
                          "top.root.payload.plist", "top.root.payload_-_data_-_bplist_-_root.jpeg.jpg"], "\(names)")
        let written = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(written.count == 6)
        #expect(written.allSatisfy { !$0.hasPrefix(".") && !$0.contains("/") })
        #expect(records.map { $0["type"] as? String } == ["png", "bin", "bin", "plist", "jpg"])
        #expect(try Data(contentsOf: directory.appendingPathComponent("top.root_absolute.bin")) == Data("keep".utf8))
        for record in records {
            let name = try #require(record["file"] as? String)
            let bytes = try Data(contentsOf: directory.appendingPathComponent(name))
            #expect(bytes.count == record["length"] as? Int)
        }
        // Nothing was written outside the directory.
        #expect(!FileManager.default.fileExists(atPath: directory.deletingLastPathComponent().appendingPathComponent("passwd.png").path))
    }

    @Test func safeNamesStayInTheirDirectory() {
        #expect(BlobExtractor.safeName("../../x") == "x")
        #expect(BlobExtractor.safeName("..") == "blob")
        #expect(BlobExtractor.safeName("a/b\\c d") == "a_b_c_d")
        #expect(BlobExtractor.safeName("\u{202E}evil") == "evil")
        #expect(BlobExtractor.safeName(String(repeating: "a", count: 500)).utf8.count == 120)
    }
}
