import Foundation
import KeyedArchive
import KeyedArchiveTesting
import NotesCore
import Testing

/// The notes sample, in-process through NotesCore, against a temporary data directory.
@Suite(.temporaryDirectory("samples-notes")) struct NotesTests {
    let directory: URL
    let environment: [String: String]
    var file: URL { directory.appendingPathComponent("notes.archive") }

    init() throws {
        directory = try TemporaryDirectory.subdirectory().appendingPathComponent("data")
        environment = ["NOTES_DATA_DIR": directory.path]
    }

    /// Runs `notes` in-process at a fixed time.
    func notes(_ arguments: String..., at seconds: TimeInterval = 800_000_000) -> NotesCommand.Outcome {
        NotesCommand.run(arguments: arguments, environment: environment, now: Date(timeIntervalSinceReferenceDate: seconds))
    }

    @Test func addListEditDeleteKeepsStableIDs() throws {
        #expect(notes("list").output == "No notes. Add one with: notes add <text>\n")
        #expect(notes("add", "Buy", "milk") == .init(status: 0, output: "Added note 1.\n", errors: ""))
        #expect(notes("add", "Call mum").output == "Added note 2.\n")
        #expect(notes("add", "Water the plants").output == "Added note 3.\n")
        #expect(notes("edit", "2", "Call", "mum", "tonight", at: 800_000_060) == .init(status: 0, output: "Edited note 2.\n", errors: ""))
        #expect(notes("delete", "1") == .init(status: 0, output: "Deleted note 1.\n", errors: ""))
        // A deleted id is never reused.
        #expect(notes("add", "New").output == "Added note 4.\n")
        let list = notes("list")
        #expect(list.status == 0)
        #expect(list.output == """
            2  2026-05-09 06:14:20Z  Call mum tonight
            3  2026-05-09 06:13:20Z  Water the plants
            4  2026-05-09 06:13:20Z  New

            """)

        // The file is a keyed archive that a secure reader of the Note types decodes.
        let notebook = try KeyedUnarchiver().decode(Notebook.self, from: Data(contentsOf: file))
        #expect(notebook.notes.map(\.id) == [2, 3, 4])
        #expect(notebook.nextID == 5)
        #expect(notebook.note(withID: 2)?.content == "Call mum tonight")
        #expect(notebook.note(withID: 2)?.date == Date(timeIntervalSinceReferenceDate: 800_000_060))
        let graph = try ArchivedObjectGraph(data: Data(contentsOf: file))
        #expect(graph.instanceCounts().filter { !$0.key.hasPrefix("NS") } == ["Notebook": 1, "Note": 3])
    }

    @Test func notebookRoundTripsFaithfully() throws {
        var notebook = Notebook()
        try notebook.add("first", date: Date(timeIntervalSinceReferenceDate: 1))
        try notebook.add("second\nline", date: Date(timeIntervalSinceReferenceDate: 2.5))
        try notebook.delete(id: 1)
        let report = ArchiveRoundTrip.check(notebook)
        #expect(report.isFaithful, "\(report)")
        #expect(report.decoded == notebook)
    }

    @Test func missingNoteIsARuntimeFailure() {
        #expect(notes("edit", "7", "x") == .init(status: 1, output: "", errors: "Error: there is no note 7\n"))
        #expect(notes("delete", "7") == .init(status: 1, output: "", errors: "Error: there is no note 7\n"))
    }

    @Test(arguments: [
        (["frob"], "Unknown command 'frob'"),
        ([], "Missing expected command"),
        (["add"], "Missing expected argument '<text>'"),
        (["add", "  "], "The note text is empty"),
        (["edit", "x", "y"], "The value 'x' is invalid for '<id>'"),
        (["edit", "0", "y"], "The value '0' is invalid for '<id>'"),
        (["edit", "2"], "Missing expected argument '<text>'"),
        (["delete"], "Missing expected argument '<id>'"),
        (["delete", "1", "2"], "Unexpected argument '2'"),
        (["list", "all"], "Unexpected argument 'all'"),
        (["--frob", "list"], "Unknown option '--frob'"),
        (["list", "--data-dir"], "Missing value for '--data-dir <dir>'"),
        (["--data-dir=", "list"], "The value '' is invalid for '--data-dir <dir>'"),
    ])
    func usageErrorsExit64WithUsage(arguments: [String], message: String) {
        let outcome = NotesCommand.run(arguments: arguments, environment: environment)
        #expect(outcome.status == 64)
        #expect(outcome.output == "")
        #expect(outcome.errors == "Error: \(message)\nUsage: \(NotesCommand.usage)\n  See 'notes --help' for more information.\n")
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func helpAndVersionExit0() {
        let help = notes("--help")
        #expect(help.status == 0)
        #expect(help.output.hasPrefix("OVERVIEW: "))
        #expect(help.output.contains("USAGE: \(NotesCommand.usage)"))
        #expect(notes("list", "-h").output == help.output)
        #expect(notes("--version") == .init(status: 0, output: NotesCommand.version + "\n", errors: ""))
    }

    @Test func corruptedFileIsAClearErrorAndIsNotOverwritten() throws {
        #expect(notes("add", "keep me").status == 0)
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count / 2] ^= 0xFF          // flip one byte in the middle of the archive
        bytes.removeLast(bytes.count / 4)        // and cut the trailer off
        try bytes.write(to: file)
        for arguments in [["list"], ["add", "more"], ["delete", "1"]] {
            let outcome = NotesCommand.run(arguments: arguments, environment: environment)
            #expect(outcome.status == 1)
            #expect(outcome.output == "")
            #expect(outcome.errors.hasPrefix("Error: \(file.path): not a readable notes archive: "))
            #expect(outcome.errors.hasSuffix("\n"))
            #expect(outcome.errors.split(separator: "\n").count == 1)
        }
        #expect(try Data(contentsOf: file) == bytes)  // a failed add or delete never replaced the file
    }

    @Test func newNotesFileIsPrivateToItsOwner() throws {
        #expect(notes("add", "my secret").status == 0)
        let mode = try SampleRunner.permissions(file.path)
        #expect(mode & 0o077 == 0, "group and others get no access; mode is \(String(mode, radix: 8))")
        if let mask = SampleRunner.currentUmask() {
            #expect(mode == 0o600 & ~mask)
        }
        #expect(try SampleRunner.permissions(directory.path) & 0o077 == 0)

        // A mode the user chose stays in effect across saves.
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: file.path)
        #expect(notes("add", "another").status == 0)
        #expect(try SampleRunner.permissions(file.path) == 0o640)
        #expect(notes("list").output.contains("my secret"))
    }

    @Test func foreignClassesAreRefused() throws {
        // A well-formed archive whose root is not a Notebook: the allow-list refuses it before any init runs.
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try KeyedArchiver.archivedData(withRootObject: Intruder()).write(to: file)
        let outcome = notes("list")
        #expect(outcome.status == 1)
        #expect(outcome.errors.contains("classNotAllowed") || outcome.errors.contains("Intruder"), "\(outcome.errors)")
        #expect(outcome.errors.contains("Intruder"))
    }

    @Test func inconsistentNotebookIsRejected() throws {
        // Two notes with the same id: written by a forged Notebook, rejected by the real one.
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let forged = ForgedNotebook(nextID: 9, notes: [Note(id: 3, date: Date(), content: "a"), Note(id: 3, date: Date(), content: "b")])
        try KeyedArchiver.archivedData(withRootObject: forged).write(to: file)
        let outcome = notes("list")
        #expect(outcome.status == 1)
        #expect(outcome.errors.contains("two notes have the id 3"))
    }

    @Test func dataDirectoryComesFromOptionThenEnvironmentThenPlatformDefault() {
        #expect(NotesStore.defaultDirectory(environment: ["NOTES_DATA_DIR": "/a", "XDG_DATA_HOME": "/x", "HOME": "/h"]) == "/a")
        #if os(macOS)
        #expect(NotesStore.defaultDirectory(environment: ["HOME": "/h"]) == "/h/Library/Application Support/keyedarchive-notes")
        #else
        #expect(NotesStore.defaultDirectory(environment: ["XDG_DATA_HOME": "/x", "HOME": "/h"]) == "/x/keyedarchive-notes")
        #expect(NotesStore.defaultDirectory(environment: ["XDG_DATA_HOME": "relative", "HOME": "/h"]) == "/h/.local/share/keyedarchive-notes")
        #expect(NotesStore.defaultDirectory(environment: ["NOTES_DATA_DIR": "", "HOME": "/h"]) == "/h/.local/share/keyedarchive-notes")
        #endif
        #expect(NotesStore.defaultDirectory(environment: [:]) == nil)
        let outcome = NotesCommand.run(arguments: ["path"], environment: [:])
        #expect(outcome.status == 1)
        #expect(outcome.errors.hasPrefix("Error: no data directory"))
        let explicit = NotesCommand.run(arguments: ["--data-dir", "/d", "path"], environment: environment)
        #expect(explicit.output == "/d/notes.archive\n")
    }

    @Test func dataDirectoryBlockedByAFileIsAClearError() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let blocker = directory.appendingPathComponent("blocker")
        try Data("x".utf8).write(to: blocker)
        let outcome = NotesCommand.run(arguments: ["--data-dir", blocker.path + "/inner", "add", "x"], environment: [:])
        #expect(outcome.status == 1)
        #expect(outcome.errors.hasPrefix("Error: reading \(blocker.path)/inner/notes.archive failed"))
        #expect(outcome.errors.contains("ENOTDIR"))
    }

    @Test func controlCharactersAreShownEscaped() {
        #expect(notes("add", "two\nlines \u{1B}[31mred").status == 0)
        #expect(notes("list").output == "1  2026-05-09 06:13:20Z  two\\nlines \\u{1b}[31mred\n")
    }
}

/// Runs the built `notes` executable end to end.
@Suite(.temporaryDirectory("samples-notes")) struct NotesEndToEndTests {
    @Test func builtBinaryAddsListsAndFailsCleanly() throws {
        let dir = try TemporaryDirectory.subdirectory()
        // The platform default is used (no NOTES_DATA_DIR), under a HOME and an XDG_DATA_HOME of the test's own:
        // on macOS the default is $HOME/Library/Application Support, elsewhere $XDG_DATA_HOME.
        var environment = ProcessInfo.processInfo.environment
        environment["NOTES_DATA_DIR"] = nil
        environment["HOME"] = dir.appendingPathComponent("home").path
        environment["XDG_DATA_HOME"] = dir.appendingPathComponent("xdg").path
        let dataDirectory = try #require(NotesStore.defaultDirectory(environment: environment))
        #expect(dataDirectory.hasPrefix(dir.path + "/"))

        let add = try SampleRunner.run("notes", ["add", "Buy", "milk"], environment: environment)
        #expect(add.status == 0)
        #expect(add.stdout == "Added note 1.\n")
        #expect(add.stderr == "")
        let file = URL(fileURLWithPath: dataDirectory).appendingPathComponent("notes.archive")
        #expect(FileManager.default.fileExists(atPath: file.path))
        #expect(try SampleRunner.permissions(file.path) & 0o077 == 0)

        let list = try SampleRunner.run("notes", ["list"], environment: environment)
        #expect(list.status == 0)
        #expect(list.stdout.hasPrefix("1  "))
        #expect(list.stdout.hasSuffix("Z  Buy milk\n"))

        let usage = try SampleRunner.run("notes", ["edit", "one", "x"], environment: environment)
        #expect(usage.status == 64)
        #expect(usage.stdout == "")
        #expect(usage.stderr.hasPrefix("Error: The value 'one' is invalid for '<id>'\nUsage: notes "))

        let other = dir.appendingPathComponent("other")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        try Data("bplist00 definitely not an archive".utf8).write(to: other.appendingPathComponent("notes.archive"))
        let corrupt = try SampleRunner.run("notes", ["--data-dir", other.path, "list"], environment: environment)
        #expect(corrupt.status == 1)
        #expect(corrupt.stdout == "")
        #expect(corrupt.stderr.hasPrefix("Error: \(other.path)/notes.archive: not a readable notes archive: "))
    }
}

/// A type with a foreign class name, to plant in a notes file.
private struct Intruder: KeyedArchivable {
    static var archivedClassName: String { "Intruder" }
    init() {}
    init(from decoder: any ArchiveDecoder) throws {}
    func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode("payload", forKey: "x") }
}

/// Writes what a Notebook writes, without its checks.
private struct ForgedNotebook: KeyedArchivable {
    static var archivedClassName: String { "Notebook" }
    var nextID: Int
    var notes: [Note]
    init(nextID: Int, notes: [Note]) {
        self.nextID = nextID
        self.notes = notes
    }
    init(from decoder: any ArchiveDecoder) throws {
        nextID = try decoder.decode(Int.self, forKey: "nextID")
        notes = try decoder.decode([Note].self, forKey: "notes")
    }
    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(nextID, forKey: "nextID")
        try encoder.encode(notes, forKey: "notes")
    }
}
