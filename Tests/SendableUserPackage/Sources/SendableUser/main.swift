#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// A model a user writes: immutable, so `Sendable` itself.
final class Note: KeyedArchivable, Sendable {
    static var archivedClassName: String { "Note" }
    let title: String
    let tags: [String]

    init(title: String, tags: [String]) {
        self.title = title
        self.tags = tags
    }

    init(from decoder: any ArchiveDecoder) throws {
        title = try decoder.decode(String.self, forKey: "title")
        tags = try decoder.decode([String].self, forKey: "tags")
    }

    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(title, forKey: "title")
        try encoder.encode(tags, forKey: "tags")
    }
}

/// The configured coders, set up once for the whole program.
enum Archiving {
    /// Reads notes, also under the name an earlier version wrote, with tight limits.
    static let unarchiver: KeyedUnarchiver = {
        var unarchiver = KeyedUnarchiver()
        unarchiver.setClass(Note.self, forClassName: "LegacyNote")
        unarchiver.limits.maximumObjectCount = 1_000
        unarchiver.limits.maximumDepth = 64
        return unarchiver
    }()

    /// Writes notes as XML under the earlier name.
    static let configuration: KeyedArchiver.Configuration = {
        var configuration = KeyedArchiver.Configuration(outputFormat: .xml)
        configuration.setClassName("LegacyNote", for: Note.self)
        return configuration
    }()
}

/// Fails to compile unless `T` is `Sendable`.
func requireSendable<T: Sendable>(_: T.Type) {}

// What a decode returns, what it throws, and what configures it.
requireSendable(KeyedUnarchiver.self)
requireSendable(KeyedUnarchiver.Limits.self)
requireSendable(KeyedArchiver.Configuration.self)
requireSendable(PropertyListReadingOptions.self)
requireSendable(PropertyListFormat.self)
requireSendable(KeyedArchiveError.self)
requireSendable(PropertyListError.self)
requireSendable(FileIOError.self)
requireSendable(FoundationValue.self)
requireSendable(FoundationValueDictionary.self)
requireSendable(ArchivedNumber.self)
requireSendable(ArchiveNull.self)
requireSendable(PropertyListValue.self)
requireSendable(ArchivedObjectGraph.self)
requireSendable(LazyArchivedObjectGraph.self)
requireSendable(ResolvedArchivedObject.self)
requireSendable(ArchivedObject.self)
requireSendable(ArchivedValue.self)
requireSendable(ArchivedClass.self)
requireSendable(ArchivedColor.self)
requireSendable(ArchivedFont.self)
requireSendable(ArchivedAttributedString.self)
requireSendable(ArchivedIndexSet.self)
requireSendable(ArchivedIndexPath.self)
requireSendable(ArchivedCountedSet.self)
requireSendable(ArchivedLocale.self)
requireSendable(ArchivedTimeZone.self)
requireSendable(ArchivedMeasurement.self)
requireSendable(ArchivedSpecialValue.self)
requireSendable(ArchivedISO8601DateFormatter.self)
requireSendable(Archived<Note>.self)
requireSendable((any KeyedArchivable.Type).self)
requireSendable((any ArchiveValue.Type).self)

let data = try KeyedArchiver.archivedData(withRootObject: Note(title: "Hello", tags: ["a"]),
                                          configuration: Archiving.configuration)

// The shared unarchiver from a detached task; the decoded value comes back across tasks.
let note = try await Task.detached { try Archiving.unarchiver.decode(Note.self, from: data) }.value

// A copy of it captured by a task, and an error returned across tasks.
let unarchiver = Archiving.unarchiver
let failure: KeyedArchiveError? = await Task.detached {
    do {
        _ = try unarchiver.decode(Note.self, from: Data("not an archive".utf8))
        return nil
    } catch let error as KeyedArchiveError {
        return error
    } catch {
        return nil
    }
}.value

// Untyped values read in one task and used in another.
let graph = try await Task.detached { try ArchivedObjectGraph(data: data) }.value
let propertyList = try await Task.detached { try PropertyListValue(propertyListData: data) }.value
let untypedArchive = try KeyedArchiver.archivedData(withRootObject: ["tags": ["a", "b"]])
let untyped = try await Task.detached { try unarchiver.decode(FoundationValue.self, from: untypedArchive) }.value

/// What the program throws (and exits non-zero with) when a task brought back something unexpected.
struct UnexpectedResult: Error, CustomStringConvertible {
    var description: String
}

guard note.title == "Hello", note.tags == ["a"] else { throw UnexpectedResult(description: "decoded \(note.title) \(note.tags)") }
guard failure?.code == .invalidPropertyList else { throw UnexpectedResult(description: "error \(String(describing: failure))") }
guard graph.instanceCounts()["LegacyNote"] == 1, propertyList.dictionaryValue?["$top"] != nil else {
    throw UnexpectedResult(description: "graph \(graph.instanceCounts())")
}
guard untyped == .dictionary([.string("tags"): .array([.string("a"), .string("b")])]) else { throw UnexpectedResult(description: "\(untyped)") }
print("decoded \(note.title) in a detached task with a shared unarchiver")
