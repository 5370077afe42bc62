#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// One note: a stable id, the date it was last written, and its text.
///
/// Archived as class `Note` with the keys `id`, `date` and `content` (as the classic iOS memo example
/// archives its `Memo` objects with `NSKeyedArchiver`).
public struct Note: KeyedArchivable, Hashable, Sendable {
    /// The note's id: assigned once, never reused, never changed by editing.
    public var id: Int
    /// When the note was added or last edited.
    public var date: Date
    /// The note's text.
    public var content: String

    /// Creates a note.
    public init(id: Int, date: Date, content: String) {
        self.id = id
        self.date = date
        self.content = content
    }

    public static var archivedClassName: String { "Note" }

    public init(from decoder: any ArchiveDecoder) throws {
        id = try decoder.decode(Int.self, forKey: "id")
        date = try decoder.decode(Date.self, forKey: "date")
        content = try decoder.decode(String.self, forKey: "content")
        guard id > 0 else { throw decoder.dataCorruptedError(forKey: "id", "a note id must be positive, not \(id)") }
    }

    public func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(id, forKey: "id")
        try encoder.encode(date, forKey: "date")
        try encoder.encode(content, forKey: "content")
    }
}

/// All the notes, in the order they were added, and the next id to hand out.
///
/// Archived as class `Notebook` with the keys `nextID` and `notes` (an array of `Note`).
public struct Notebook: KeyedArchivable, Hashable, Sendable {
    /// The notes, oldest first.
    public private(set) var notes: [Note]
    /// The id the next added note gets; larger than every id ever used.
    public private(set) var nextID: Int

    /// An empty notebook.
    public init() {
        notes = []
        nextID = 1
    }

    public static var archivedClassName: String { "Notebook" }

    /// Reads a notebook, checking that ids are unique and below `nextID`.
    public init(from decoder: any ArchiveDecoder) throws {
        nextID = try decoder.decode(Int.self, forKey: "nextID")
        notes = try decoder.decode([Note].self, forKey: "notes")
        var seen = Set<Int>()
        for note in notes {
            guard seen.insert(note.id).inserted else {
                throw decoder.dataCorruptedError(forKey: "notes", "two notes have the id \(note.id)")
            }
            guard note.id < nextID else {
                throw decoder.dataCorruptedError(forKey: "nextID", "nextID \(nextID) is not above the note id \(note.id)")
            }
        }
    }

    public func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(nextID, forKey: "nextID")
        try encoder.encode(notes, forKey: "notes")
    }

    /// The note with this id, if any.
    public func note(withID id: Int) -> Note? {
        notes.first { $0.id == id }
    }

    /// Adds a note with the next id and returns it.
    /// - Throws: ``NotesError`` when the ids are exhausted.
    @discardableResult
    public mutating func add(_ content: String, date: Date) throws(NotesError) -> Note {
        let (following, overflow) = nextID.addingReportingOverflow(1)
        guard !overflow else { throw NotesError("no more note ids are available") }
        let note = Note(id: nextID, date: date, content: content)
        notes.append(note)
        nextID = following
        return note
    }

    /// Replaces the content (and date) of the note with this id.
    /// - Throws: ``NotesError`` when there is no such note.
    @discardableResult
    public mutating func edit(id: Int, content: String, date: Date) throws(NotesError) -> Note {
        guard let index = notes.firstIndex(where: { $0.id == id }) else { throw NotesError("there is no note \(id)") }
        notes[index].content = content
        notes[index].date = date
        return notes[index]
    }

    /// Deletes the note with this id and returns it.
    /// - Throws: ``NotesError`` when there is no such note.
    @discardableResult
    public mutating func delete(id: Int) throws(NotesError) -> Note {
        guard let index = notes.firstIndex(where: { $0.id == id }) else { throw NotesError("there is no note \(id)") }
        return notes.remove(at: index)
    }
}

/// A failure of a notes operation (a runtime failure: exit status 1).
public struct NotesError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, naming the file or note concerned.
    public var message: String
    /// Creates an error.
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
