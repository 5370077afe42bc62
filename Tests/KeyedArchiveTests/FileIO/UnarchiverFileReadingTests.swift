import Foundation
import Testing
@testable import KeyedArchive

/// A configured unarchiver reads files itself (the static calls cannot take module moves or limits), and the
/// package's errors give their one-line description as `localizedDescription`.
@Suite struct UnarchiverFileReadingTests {
    struct MovedNote: ArchivableCodable {
        static var archivedClassName: String { "NewModule.MovedNote" }
        var title: String
    }
    struct OldNote: ArchivableCodable {
        static var archivedClassName: String { "OldModule.MovedNote" }
        var title: String
    }

    @Test func aConfiguredUnarchiverReadsAFileWithItsModuleMoves() throws {
        let directory = ScratchDirectory()
        defer { directory.remove() }
        let path = directory.file("old.archive")
        try KeyedArchiver.archiveRootObject(OldNote(title: "kept"), toFile: path)

        #expect(throws: DecodingError.self) { try KeyedUnarchiver.unarchivedObject(ofClass: MovedNote.self, fromFile: path) }
        var unarchiver = KeyedUnarchiver()
        unarchiver.mapModule("OldModule", to: "NewModule")
        let note = try unarchiver.decode(MovedNote.self, fromFile: path)
        #expect(note.title == "kept")
    }

    @Test func aMissingFileThrowsFileIOErrorNamingThePath() throws {
        let directory = ScratchDirectory()
        defer { directory.remove() }
        let path = directory.file("absent.archive")
        let error = try #require(throws: FileIOError.self) { try KeyedUnarchiver().decode(MovedNote.self, fromFile: path) }
        #expect(error.localizedDescription == error.description)
        #expect(error.localizedDescription.contains(path))
    }

    @Test func localizedDescriptionIsTheOneLineDescription() throws {
        let archive = try KeyedArchiver.archivedData(withRootObject: "text")
        let archiveError = try #require(throws: KeyedArchiveError.self) { try KeyedUnarchiver().decode(Int.self, from: archive) }
        #expect(archiveError.localizedDescription == archiveError.description)
        #expect(archiveError.localizedDescription.contains("root"))

        let listError = try #require(throws: PropertyListError.self) {
            try PropertyListValue(propertyListData: Data("bplist00".utf8))
        }
        #expect(listError.localizedDescription == listError.description)
    }
}
