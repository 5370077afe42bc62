// README 1: begin
import Foundation
import KeyedArchive
// README 1: end
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
        defer { withExtendedLifetime(directory) {} }
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
        let section = try #require(readme.range(of: "## A model type"), "README.md has no \"## A model type\" section")
        var rest = readme[section.upperBound...]
        for (number, regionCount) in [(1, 3), (2, 1)] {
            let regions = Self.regions(numbered: number, in: thisFile)
            try #require(regions.count == regionCount, "README \(number) regions")
            let expected = regions.map(Self.dedent).joined(separator: "\n\n")
            let open = try #require(rest.range(of: "```swift\n"), "README.md has no Swift block \(number)")
            let close = try #require(rest[open.upperBound...].range(of: "\n```"))
            #expect(String(rest[open.upperBound..<close.lowerBound]) == expected, "README Swift block \(number)")
            rest = rest[close.upperBound...]
        }
    }

    private static func regions(numbered number: Int, in file: String) -> [[Substring]] {
        var regions: [[Substring]] = []
        var current: [Substring]?
        for line in file.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop(while: { $0 == " " })
            if trimmed == "// README \(number): begin" { current = [] }
            else if trimmed == "// README \(number): end", let region = current { regions.append(region); current = nil }
            else if current != nil { current?.append(line) }
        }
        return regions
    }

    private static func dedent(_ lines: [Substring]) -> String {
        let indent = lines.filter { !$0.isEmpty }.map { $0.prefix(while: { $0 == " " }).count }.min() ?? 0
        return lines.map { $0.isEmpty ? "" : String($0.dropFirst(indent)) }.joined(separator: "\n")
    }
}
