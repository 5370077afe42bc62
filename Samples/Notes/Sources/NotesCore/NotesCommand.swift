#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `notes` command: parsing, running one command against a ``NotesStore``, and the exit status.
///
/// `main.swift` only prints what ``run(arguments:environment:now:)`` returns; tests call it in-process.
/// Exit statuses follow `archive-dump`: 0 success, 1 runtime failure (`Error: ...` on standard error),
/// 64 usage error (`Error: ...`, the usage line and a pointer to `--help` on standard error).
public enum NotesCommand {
    /// The sample's version, printed by `--version`.
    public static let version = "0.1.0"
    /// Exit status: success.
    public static let exitSuccess: Int32 = 0
    /// Exit status: a runtime failure (unreadable notes file, no such note, write failed).
    public static let exitFailure: Int32 = 1
    /// Exit status: the command line is wrong (EX_USAGE).
    public static let exitUsage: Int32 = 64

    /// The one-line usage.
    public static let usage = "notes [--data-dir <dir>] (add <text> | list | edit <id> <text> | delete <id> | path)"

    /// The `--help` text.
    public static let help = """
        OVERVIEW: Keeps short notes in a keyed archive (NSKeyedArchiver format).

        Each note has a stable id, a date (when it was added or last edited, shown in UTC) and its text.
        The notes are saved atomically and read back securely (only Notebook and Note objects allowed).

        USAGE: \(usage)

        COMMANDS:
          add <text>...           Add a note (the words are joined with spaces); prints its id.
          list                    List the notes, oldest first: id, date, text.
          edit <id> <text>...     Replace the text of a note (its date becomes now).
          delete <id>             Delete a note.
          path                    Print the path of the notes file.

        OPTIONS:
          --data-dir <dir>        Keep the notes in <dir>/notes.archive. Default: $NOTES_DATA_DIR; else
                                  $XDG_DATA_HOME/keyedarchive-notes, or ~/.local/share/keyedarchive-notes
                                  (Linux), ~/Library/Application Support/keyedarchive-notes (macOS).
          --version               Show the version.
          -h, --help              Show help information.

        """

    /// What the process prints and returns.
    public struct Outcome: Equatable, Sendable {
        /// The exit status.
        public var status: Int32
        /// Text for standard output.
        public var output: String
        /// Text for standard error.
        public var errors: String

        /// Creates an outcome.
        public init(status: Int32, output: String, errors: String) {
            self.status = status
            self.output = output
            self.errors = errors
        }
    }

    /// A parsed command.
    public enum Command: Equatable, Sendable {
        case add(String)
        case list
        case edit(id: Int, text: String)
        case delete(id: Int)
        case path
        case help
        case version
    }

    /// A command-line mistake (exit status 64).
    public struct UsageError: Error, Equatable, Sendable {
        /// What was wrong, such as `Unknown command 'frob'`.
        public var message: String
    }

    /// Parses the arguments (without the program name) into a command and the `--data-dir` value.
    /// - Throws: ``UsageError``.
    public static func parse(_ arguments: [String]) throws(UsageError) -> (command: Command, dataDirectory: String?) {
        var words: [String] = []
        var dataDirectory: String?
        var help = false, showVersion = false, onlyWords = false
        var i = 0
        while i < arguments.count {
            let argument = arguments[i]
            i += 1
            if onlyWords || !argument.hasPrefix("-") || argument == "-" || Int(argument) != nil {
                words.append(argument)
                continue
            }
            switch argument {
            case "--": onlyWords = true
            case "-h", "--help": help = true
            case "--version": showVersion = true
            case "--data-dir":
                guard i < arguments.count else { throw UsageError(message: "Missing value for '--data-dir <dir>'") }
                dataDirectory = arguments[i]
                i += 1
            default:
                if argument.hasPrefix("--data-dir=") {
                    dataDirectory = String(argument.dropFirst("--data-dir=".count))
                } else {
                    throw UsageError(message: "Unknown option '\(argument)'")
                }
            }
            if dataDirectory == "" { throw UsageError(message: "The value '' is invalid for '--data-dir <dir>'") }
        }
        if help { return (.help, dataDirectory) }
        if showVersion { return (.version, dataDirectory) }
        guard let name = words.first else { throw UsageError(message: "Missing expected command") }
        let rest = Array(words.dropFirst())

        func text(_ words: ArraySlice<String>) throws(UsageError) -> String {
            guard !words.isEmpty else { throw UsageError(message: "Missing expected argument '<text>'") }
            let joined = words.joined(separator: " ")
            guard !joined.allSatisfy(\.isWhitespace) else { throw UsageError(message: "The note text is empty") }
            return joined
        }
        func id(_ words: [String]) throws(UsageError) -> Int {
            guard let first = words.first else { throw UsageError(message: "Missing expected argument '<id>'") }
            guard let n = Int(first), n > 0 else { throw UsageError(message: "The value '\(first)' is invalid for '<id>'") }
            return n
        }
        func noMore(_ words: ArraySlice<String>) throws(UsageError) {
            if let extra = words.first { throw UsageError(message: "Unexpected argument '\(extra)'") }
        }

        switch name {
        case "add":
            return (.add(try text(rest[...])), dataDirectory)
        case "list", "ls":
            try noMore(rest[...])
            return (.list, dataDirectory)
        case "edit":
            let n = try id(rest)
            return (.edit(id: n, text: try text(rest.dropFirst())), dataDirectory)
        case "delete", "rm":
            let n = try id(rest)
            try noMore(rest.dropFirst())
            return (.delete(id: n), dataDirectory)
        case "path":
            try noMore(rest[...])
            return (.path, dataDirectory)
        default:
            throw UsageError(message: "Unknown command '\(name)'")
        }
    }

    /// Runs one command.
    ///
    /// - Parameters:
    ///   - arguments: the arguments, without the program name.
    ///   - environment: the process environment (for `NOTES_DATA_DIR`, `XDG_DATA_HOME` and `HOME`).
    ///   - now: the date given to added and edited notes.
    /// - Returns: what to print and the exit status.
    public static func run(arguments: [String], environment: [String: String], now: Date = Date()) -> Outcome {
        let command: Command, dataDirectory: String?
        do {
            (command, dataDirectory) = try parse(arguments)
        } catch {
            return Outcome(status: exitUsage, output: "",
                           errors: "Error: \(error.message)\nUsage: \(usage)\n  See 'notes --help' for more information.\n")
        }
        switch command {
        case .help: return Outcome(status: exitSuccess, output: help, errors: "")
        case .version: return Outcome(status: exitSuccess, output: version + "\n", errors: "")
        default: break
        }
        guard let directory = dataDirectory ?? NotesStore.defaultDirectory(environment: environment) else {
            return Outcome(status: exitFailure, output: "",
                           errors: "Error: no data directory: set HOME or \(NotesStore.environmentVariable), or pass --data-dir <dir>\n")
        }
        let store = NotesStore(directory: directory)
        do {
            return Outcome(status: exitSuccess, output: try execute(command, store: store, now: now), errors: "")
        } catch {
            return Outcome(status: exitFailure, output: "", errors: "Error: \(printable(error.message))\n")
        }
    }

    /// Runs a parsed command against `store` and returns its output.
    static func execute(_ command: Command, store: NotesStore, now: Date) throws(NotesError) -> String {
        switch command {
        case .path:
            return store.path + "\n"
        case .list:
            let notebook = try store.load()
            if notebook.notes.isEmpty { return "No notes. Add one with: notes add <text>\n" }
            let width = String(notebook.notes.map(\.id).max() ?? 1).count
            return notebook.notes.map { note in
                let id = String(note.id)
                return String(repeating: " ", count: width - id.count) + id + "  " + dateText(note.date) + "  " + printable(note.content) + "\n"
            }.joined()
        case .add(let text):
            var notebook = try store.load()
            let note = try notebook.add(text, date: now)
            try store.save(notebook)
            return "Added note \(note.id).\n"
        case .edit(let id, let text):
            var notebook = try store.load()
            try notebook.edit(id: id, content: text, date: now)
            try store.save(notebook)
            return "Edited note \(id).\n"
        case .delete(let id):
            var notebook = try store.load()
            try notebook.delete(id: id)
            try store.save(notebook)
            return "Deleted note \(id).\n"
        case .help, .version:
            return ""
        }
    }

    /// `2026-11-22 05:40:00Z`: the date in UTC, to the second.
    public static func dateText(_ date: Date) -> String {
        let style = Date.ISO8601FormatStyle(dateSeparator: .dash, dateTimeSeparator: .space, timeZone: TimeZone(identifier: "UTC") ?? .gmt)
        return style.format(date)
    }

    /// Text with control characters (newlines, escapes) shown as `\n` or `\u{1b}`, so a note cannot
    /// scramble the terminal.
    static func printable(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                    out += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }
}
