// README 1: begin
import Foundation
import KeyedArchive
// README 1: end
import KeyedArchiveTestSupport
import Testing

/// The models from README.md, word for word (`readmeShowsExactlyThisFilesExamples` checks that), so the
/// README's examples are compiled and run. They sit in namespaces because the test module has another `Note`.
enum ReadmeExample {
    // README 1: begin
    struct Note: ArchivableCodable {
        var title: String
        var tags: [String]
        var created: Date
    }
    // README 1: end
}

enum ReadmeHandWrittenExample {
    // README 2: begin
    final class Note: KeyedArchivable {
        var title: String
        var created: Date
        init(title: String, created: Date) { self.title = title; self.created = created }

        init(from decoder: any ArchiveDecoder) throws {
            title = try decoder.decode(String.self, forKey: "title")
            created = try decoder.decode(Date.self, forKey: "created")
        }
        func encode(to encoder: any ArchiveEncoder) throws {
            try encoder.encode(title, forKey: "title")
            try encoder.encode(created, forKey: "created")
        }
    }
    // README 2: end
}

@Suite struct ReadmeExampleTests {
    @Test func readmeExampleRunsAndRoundTrips() throws {
        typealias Note = ReadmeExample.Note
        let directory = ScratchDirectory()
        defer { directory.remove() }
        let path = directory.file("note.archive")
        let before = Date.now
        // README 1: begin
        let data = try KeyedArchiver.archivedData(withRootObject: Note(title: "Hi", tags: ["home"], created: .now))
        let note = try KeyedUnarchiver.unarchivedObject(ofClass: Note.self, from: data)

        try KeyedArchiver.archiveRootObject(note, toFile: path)                          // atomic write
        let saved = try KeyedUnarchiver.unarchivedObject(ofClass: Note.self, fromFile: path)
        // README 1: end
        let after = Date.now
        #expect(note.title == "Hi")
        #expect(note.tags == ["home"])
        #expect(before <= note.created && note.created <= after, "\(note.created) not in \(before)...\(after)")
        #expect(saved.title == note.title)
        #expect(saved.tags == note.tags)
        #expect(saved.created == note.created)
    }

    @Test func readmeModelsRoundTripEveryField() throws {
        let original = ReadmeExample.Note(title: "Hi", tags: ["a", "b"], created: Date(timeIntervalSinceReferenceDate: 12345.5))
        let note = try KeyedUnarchiver.unarchivedObject(ofClass: ReadmeExample.Note.self,
                                                        from: try KeyedArchiver.archivedData(withRootObject: original))
        #expect(note.title == original.title)
        #expect(note.tags == original.tags)
        #expect(note.created == original.created)

        let handWritten = ReadmeHandWrittenExample.Note(title: "Hi", created: Date(timeIntervalSinceReferenceDate: 12345.5))
        let back = try KeyedUnarchiver.unarchivedObject(ofClass: ReadmeHandWrittenExample.Note.self,
                                                        from: try KeyedArchiver.archivedData(withRootObject: handWritten))
        #expect(back.title == "Hi")
        #expect(back.created == handWritten.created)
    }

    /// The README's first two Swift blocks under "## A model type" are this file's `README 1` and `README 2`
    /// regions, dedented and joined by blank lines: an edit to either side that the other does not share fails here.
    @Test func readmeShowsExactlyThisFilesExamples() throws {
        let thisFile = try String(contentsOfFile: #filePath, encoding: .utf8)
        let readme = try String(contentsOfFile: FileTestSupport.packageRoot() + "/README.md", encoding: .utf8)
        let blocks = ExampleRegions.swiftBlocks(after: "## A model type", in: readme)
        for (number, regionCount) in [(1, 3), (2, 1)] {
            let regions = ExampleRegions.regions(named: "README \(number)", in: thisFile)
            try #require(regions.count == regionCount, "README \(number) regions")
            try #require(blocks.count >= number, "README.md has no Swift block \(number) under \"## A model type\"")
            #expect(blocks[number - 1] == regions.map(ExampleRegions.dedent).joined(separator: "\n\n"), "README Swift block \(number)")
        }
    }
}
