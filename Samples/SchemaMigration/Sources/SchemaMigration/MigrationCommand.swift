#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// The `schema-migration` command; `main.swift` prints what ``run(arguments:)`` returns.
///
/// Exit statuses as `archive-dump`: 0 success, 1 runtime failure, 64 usage error.
public enum MigrationCommand {
    /// The one-line usage.
    public static let usage = "schema-migration (--write-v1 <file> | --write-kit <file> | [--upgrade <out>] <file>)"

    /// The `--help` text.
    public static let help = """
        OVERVIEW: Reads address books written by version 1 or version 2 of the sample's model.

        Version 1 archived `Contact` objects (name, email, fax, created) under the key `contacts`.
        Version 2 renamed the class to `Person` (with `Contact` as a legacy class name), added
        `isFavorite` (false when absent), dropped `fax`, and stores the list under `people`. It may hold a
        ledger (Decimal amounts) whose types moved from the module `AddressBookKit`.

        USAGE: \(usage)

        ARGUMENTS:
          <file>                  An address book archive (version 1 or 2) to read and list.

        OPTIONS:
          --write-v1 <file>       Write the version-1 sample address book (how the fixture is made).
          --write-kit <file>      Write the sample address book with an AddressBookKit ledger.
          --upgrade <out>         Also write what was read to <out> in the current format (version 2).
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

    /// Runs the command with `arguments` (without the program name).
    public static func run(arguments: [String]) -> Outcome {
        func usageError(_ message: String) -> Outcome {
            Outcome(status: 64, output: "",
                    errors: "Error: \(message)\nUsage: \(usage)\n  See 'schema-migration --help' for more information.\n")
        }
        var writeV1: String?, writeKit: String?, upgrade: String?, input: String?
        var i = 0
        while i < arguments.count {
            let argument = arguments[i]
            i += 1
            switch argument {
            case "-h", "--help":
                return Outcome(status: 0, output: help, errors: "")
            case "--write-v1", "--write-kit", "--upgrade":
                guard i < arguments.count, !arguments[i].isEmpty else {
                    return usageError("Missing value for '\(argument) <\(argument == "--upgrade" ? "out" : "file")>'")
                }
                switch argument {
                case "--write-v1": writeV1 = arguments[i]
                case "--write-kit": writeKit = arguments[i]
                default: upgrade = arguments[i]
                }
                i += 1
            default:
                if argument.hasPrefix("-") && argument != "-" { return usageError("Unknown option '\(argument)'") }
                guard input == nil else { return usageError("Unexpected argument '\(argument)'") }
                input = argument
            }
        }
        for (option, path, what, archive) in [("--write-v1", writeV1, "version-1 address book", AddressBookArchive.version1Archive),
                                              ("--write-kit", writeKit, "address book with an AddressBookKit ledger",
                                               AddressBookArchive.kitLedgerArchive)] {
            guard let path else { continue }
            guard input == nil, upgrade == nil, writeV1 == nil || writeKit == nil else {
                return usageError("'\(option)' cannot be used with other arguments")
            }
            do {
                let data = try archive()
                try AtomicFileWriter().write(data, toPath: path)
                return Outcome(status: 0, output: "Wrote the \(what) (\(data.count) bytes) to \(path)\n", errors: "")
            } catch {
                return Outcome(status: 1, output: "", errors: "Error: \(error)\n")
            }
        }
        guard let input else { return usageError("Missing expected argument '<file>'") }
        let book: AddressBook
        do {
            let data = try FileReader(options: .init(maximumSize: 16 << 20)).read(atPath: input)
            book = try AddressBookArchive.read(data)
        } catch {
            return Outcome(status: 1, output: "", errors: "Error: \(input): \(error)\n")
        }
        var output = "\(input): address book, format version \(book.formatVersion), \(book.people.count) people\n"
        for person in book.people {
            output += "  \(person.name)  <\(person.email.isEmpty ? "no e-mail" : person.email)>"
                + "  created \(person.created.formatted(.iso8601))  favorite: \(person.isFavorite)\n"
        }
        for entry in book.ledger?.entries ?? [] {
            output += "  owes: \(entry.person)  \(entry.amount)\n"
        }
        if let upgrade {
            do {
                let data = try AddressBookArchive.currentArchive(AddressBook(people: book.people, ledger: book.ledger))
                try AtomicFileWriter().write(data, toPath: upgrade)
                output += "Wrote it in format version \(AddressBook.currentFormatVersion) to \(upgrade)\n"
            } catch {
                return Outcome(status: 1, output: output, errors: "Error: \(error)\n")
            }
        }
        return Outcome(status: 0, output: output, errors: "")
    }
}
