// README: begin
import Foundation
import KeyedArchive
// README: end
import Testing

/// The model from README.md, word for word (`readmeShowsExactlyThisFilesExample` checks that), so the
/// README's example is compiled and run. It sits in a namespace because the test module has another `Note`.
enum ReadmeExample {
    // README: begin
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
    // README: end
}

@Suite struct ReadmeExampleTests {
    @Test func readmeExampleRunsAndRoundTrips() throws {
        typealias Note = ReadmeExample.Note
        let before = Date.now
        // README: begin
        let data = try KeyedArchiver.archivedData(withRootObject: Note(title: "Hi", created: .now))
        let note = try KeyedUnarchiver.unarchivedObject(ofClass: Note.self, from: data)
        // README: end
        let after = Date.now
        #expect(note.title == "Hi")
        #expect(before <= note.created && note.created <= after, "\(note.created) not in \(before)...\(after)")
    }

    @Test func readmeModelRoundTripsEveryField() throws {
        let original = ReadmeExample.Note(title: "Hi", created: Date(timeIntervalSinceReferenceDate: 12345.5))
        let data = try KeyedArchiver.archivedData(withRootObject: original)
        let note = try KeyedUnarchiver.unarchivedObject(ofClass: ReadmeExample.Note.self, from: data)
        #expect(note.title == "Hi")
        #expect(note.created == original.created)
    }

    /// The README's Swift block is the `README: begin`/`end` regions of this file, dedented and joined by
    /// blank lines: an edit to either that the other does not share fails here.
    @Test func readmeShowsExactlyThisFilesExample() throws {
        let thisFile = try String(contentsOfFile: #filePath, encoding: .utf8)
        let readme = try String(contentsOfFile: FileTestSupport.packageRoot() + "/README.md", encoding: .utf8)
        var regions: [[Substring]] = []
        var current: [Substring]?
        for line in thisFile.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop(while: { $0 == " " })
            if trimmed == "// README: begin" { current = [] }
            else if trimmed == "// README: end", let region = current { regions.append(region); current = nil }
            else if current != nil { current?.append(line) }
        }
        try #require(regions.count == 3)
        let expected = regions.map(Self.dedent).joined(separator: "\n\n")

        let section = try #require(readme.range(of: "## A model type"), "README.md has no \"## A model type\" section")
        let rest = readme[section.upperBound...]
        let open = try #require(rest.range(of: "```swift\n"))
        let close = try #require(rest[open.upperBound...].range(of: "\n```"))
        #expect(String(rest[open.upperBound..<close.lowerBound]) == expected)
    }

    private static func dedent(_ lines: [Substring]) -> String {
        let indent = lines.filter { !$0.isEmpty }.map { $0.prefix(while: { $0 == " " }).count }.min() ?? 0
        return lines.map { $0.isEmpty ? "" : String($0.dropFirst(indent)) }.joined(separator: "\n")
    }
}
