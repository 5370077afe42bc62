import Foundation
import KeyedArchive
import Testing

/// The model from README.md, kept here so the README's example is compiled and run.
private final class ReadmeNote: KeyedArchivable {
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

@Suite struct ReadmeExampleTests {
    @Test func readmeModelRoundTripsEveryField() throws {
        let original = ReadmeNote(title: "Hi", created: Date(timeIntervalSinceReferenceDate: 12345.5))
        let data = try KeyedArchiver.archivedData(withRootObject: original)
        let note = try KeyedUnarchiver.unarchivedObject(ofClass: ReadmeNote.self, from: data)
        #expect(note.title == "Hi")
        #expect(note.created == original.created)
    }
}
