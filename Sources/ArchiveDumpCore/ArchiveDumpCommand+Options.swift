#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

extension ArchiveDumpCommand {
    /// What the command line asks for.
    package struct Options: Equatable, Sendable {
        /// How the input is shown or converted.
        package enum Mode: Equatable, Sendable {
            /// The resolved object tree (default), or a tree of values for a plain property list.
            case tree
            /// `--raw`: the property list as stored, like `plutil -p`.
            case raw
            /// `--json`: the resolved object graph as JSON.
            case json
            /// `--json --raw`: the stored property list as JSON.
            case rawJSON
            /// `--xml`: conversion to an XML property list.
            case xml
            /// `--binary`: conversion to a binary property list.
            case binary
            /// `--validate`: check and print `OK` or the first error.
            case validate
            /// `--classes`: archived classes and how many objects of each.
            case classes
        }
        /// The chosen mode.
        package var mode: Mode = .tree
        /// The input path; `-` for standard input.
        package var input: String = "-"
        /// The output path, if `-o` was given.
        package var output: String?
        /// `--max-depth`.
        package var maxDepth: Int?
        /// `--help` was asked for (handled before everything else).
        package var showHelp = false
        /// `--version` was asked for.
        package var showVersion = false
        /// `--lenient`: read a damaged file and mark its damaged places instead of refusing it.
        package var isLenient = false

        /// The defaults: tree mode, standard input, no limit.
        package init() {}
    }

    /// A command-line mistake, reported with exit status 64.
    package struct UsageError: Error, Equatable, Sendable {
        /// What was wrong, such as `Unknown option '--frob'`.
        package var message: String
    }

    /// Parses the arguments (without the program name).
    ///
    /// - Throws: ``UsageError`` for unknown options, missing or extra arguments, bad values and
    ///   conflicting modes.
    package static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options()
        var raw = false, json = false
        var exclusive: [String] = []
        var input: String?
        var i = 0
        var onlyArguments = false

        func value(for name: String, inline: String?) throws(UsageError) -> String {
            if let inline { return inline }
            i += 1
            guard i < arguments.count else { throw UsageError(message: "Missing value for '\(name)'") }
            return arguments[i]
        }

        while i < arguments.count {
            let argument = arguments[i]
            if !onlyArguments, argument.hasPrefix("-"), argument != "-" {
                var name = argument
                var inline: String?
                if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
                    name = String(argument[..<eq])
                    inline = String(argument[argument.index(after: eq)...])
                }
                switch name {
                case "--": onlyArguments = true
                case "-h", "--help": options.showHelp = true
                case "--version": options.showVersion = true
                case "--raw": raw = true
                case "--lenient": options.isLenient = true
                case "--json": json = true
                case "--xml", "--binary", "--validate", "--classes": exclusive.append(name)
                case "-o", "--output":
                    let path = try value(for: "--output <file>", inline: inline)
                    guard !path.isEmpty else { throw UsageError(message: "The value '' is invalid for '--output <file>'") }
                    options.output = path
                case "--max-depth":
                    let text = try value(for: "--max-depth <n>", inline: inline)
                    guard let n = Int(text), n >= 0 else {
                        throw UsageError(message: "The value '\(text)' is invalid for '--max-depth <n>'")
                    }
                    options.maxDepth = n
                default:
                    throw UsageError(message: "Unknown option '\(argument)'")
                }
                if inline != nil, name != "--output", name != "--max-depth" {
                    throw UsageError(message: "Unknown option '\(argument)'")
                }
            } else {
                guard input == nil else { throw UsageError(message: "Unexpected argument '\(argument)'") }
                input = argument
            }
            i += 1
        }
        if options.showHelp || options.showVersion { return options }
        guard let input else { throw UsageError(message: "Missing expected argument '<file>'") }
        options.input = input
        if exclusive.count > 1 {
            throw UsageError(message: "'\(exclusive[0])' cannot be used with '\(exclusive[1])'")
        }
        if let only = exclusive.first {
            if raw || json {
                throw UsageError(message: "'\(only)' cannot be used with '\(raw ? "--raw" : "--json")'")
            }
            switch only {
            case "--xml": options.mode = .xml
            case "--binary": options.mode = .binary
            case "--validate": options.mode = .validate
            default: options.mode = .classes
            }
        } else {
            options.mode = raw ? (json ? .rawJSON : .raw) : (json ? .json : .tree)
        }
        if options.isLenient, options.mode == .validate {
            throw UsageError(message: "'--validate' cannot be used with '--lenient'")
        }
        if options.output != nil, options.mode == .validate {
            throw UsageError(message: "'--output' cannot be used with '--validate'")
        }
        if options.maxDepth != nil, [.xml, .binary, .validate, .classes].contains(options.mode) {
            throw UsageError(message: "'--max-depth' only applies to the tree, --raw and --json outputs")
        }
        return options
    }
}
