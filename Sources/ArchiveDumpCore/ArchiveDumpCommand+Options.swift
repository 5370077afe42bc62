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
            /// `--timeline`: every date with its path and source, as JSON lines.
            case timeline
            /// `--extract <dir>`: every data value written to a file in ``Options/extractDirectory``.
            case extract
            /// `--diff <old>`: what changed from ``Options/diffTarget`` (the old version) to the input (the new one).
            case diff
            /// `--dot`: the object graph as Graphviz DOT.
            case dot
        }

        /// How each line of a batch input encodes its blob.
        package enum BlobEncoding: String, Equatable, Sendable {
            /// `--hex`: hexadecimal digits (what `sqlite3`'s `hex()` prints).
            case hex
            /// `--base64`: base64.
            case base64
        }

        /// The chosen mode.
        package var mode: Mode = .tree
        /// The input path; `-` for standard input. The first of ``inputs``.
        package var input: String = "-"
        /// Every input path (several only in a batch).
        package var inputs: [String] = ["-"]
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
        /// `--nested`: decode the payloads inside data values and strings where they stand.
        package var decodesNested = false
        /// `--hex` or `--base64`: each line of each input is one blob.
        package var blobEncoding: BlobEncoding?
        /// `--batch`: each input file is one blob; set too by ``blobEncoding``.
        package var isBatch = false
        /// `--jobs <n>`: how many inputs a batch reads at once; nil for one per processor.
        package var jobs: Int?
        /// `--extract <dir>`: the directory blobs are written into.
        package var extractDirectory: String?
        /// `--diff <old>`: the old version of the archive, which the input (the new version) is compared with.
        package var diffTarget: String?
        /// `--max-objects <n>`: the most objects `--dot` draws.
        package var maxObjects: Int?
        /// `--diff --json`: the differences as JSON lines.
        package var writesJSONLines = false

        /// The defaults: tree mode, standard input, no limit.
        package init() {}
    }

    /// A command-line mistake, reported with exit status 64.
    package struct UsageError: Error, Equatable, Sendable {
        /// What was wrong, such as `Unknown option '--frob'`.
        package var message: String
    }

    /// The options that take a value, by their long name, with the value's placeholder.
    private static let valueOptions = ["--output": "<file>", "--max-depth": "<n>", "--jobs": "<n>", "--extract": "<dir>",
                                       "--diff": "<old>", "--max-objects": "<n>"]

    /// The options that choose a mode other than the tree, raw and JSON ones; at most one may be given.
    private static let exclusiveModes: [String: Options.Mode] = [
        "--xml": .xml, "--binary": .binary, "--validate": .validate, "--classes": .classes, "--timeline": .timeline,
        "--extract": .extract, "--diff": .diff, "--dot": .dot,
    ]

    /// Parses the arguments (without the program name).
    ///
    /// - Throws: ``UsageError`` for unknown options, missing or extra arguments, bad values and
    ///   conflicting modes.
    package static func parse(_ arguments: [String]) throws(UsageError) -> Options {
        var options = Options()
        var raw = false, json = false
        var exclusive: [String] = []
        var inputs: [String] = []
        var i = 0
        var onlyArguments = false

        func value(for name: String, inline: String?) throws(UsageError) -> String {
            let described = "\(name) \(valueOptions[name] ?? "")"
            var text: String
            if let inline {
                text = inline
            } else {
                i += 1
                guard i < arguments.count else { throw UsageError(message: "Missing value for '\(described)'") }
                text = arguments[i]
            }
            guard !text.isEmpty else { throw UsageError(message: "The value '' is invalid for '\(described)'") }
            return text
        }
        func count(for name: String, inline: String?, minimum: Int) throws(UsageError) -> Int {
            let text = try value(for: name, inline: inline)
            guard let n = Int(text), n >= minimum else {
                throw UsageError(message: "The value '\(text)' is invalid for '\(name) \(valueOptions[name] ?? "")'")
            }
            return n
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
                if name == "-o" { name = "--output" }
                if inline != nil, valueOptions[name] == nil { throw UsageError(message: "Unknown option '\(argument)'") }
                switch name {
                case "--": onlyArguments = true
                case "-h", "--help": options.showHelp = true
                case "--version": options.showVersion = true
                case "--raw": raw = true
                case "--lenient": options.isLenient = true
                case "--json": json = true
                case "--nested": options.decodesNested = true
                case "--batch": options.isBatch = true
                case "--hex", "--base64":
                    let encoding: Options.BlobEncoding = name == "--hex" ? .hex : .base64
                    if let other = options.blobEncoding, other != encoding {
                        throw UsageError(message: "'--hex' cannot be used with '--base64'")
                    }
                    options.blobEncoding = encoding
                    options.isBatch = true
                case "--output": options.output = try value(for: name, inline: inline)
                case "--max-depth": options.maxDepth = try count(for: name, inline: inline, minimum: 0)
                case "--jobs": options.jobs = try count(for: name, inline: inline, minimum: 1)
                case "--max-objects": options.maxObjects = try count(for: name, inline: inline, minimum: 1)
                case "--extract":
                    options.extractDirectory = try value(for: name, inline: inline)
                    exclusive.append(name)
                case "--diff":
                    options.diffTarget = try value(for: name, inline: inline)
                    exclusive.append(name)
                default:
                    guard exclusiveModes[name] != nil else { throw UsageError(message: "Unknown option '\(argument)'") }
                    exclusive.append(name)
                }
            } else {
                inputs.append(argument)
            }
            i += 1
        }
        if options.showHelp || options.showVersion { return options }
        guard let input = inputs.first else { throw UsageError(message: "Missing expected argument '<file>'") }
        if inputs.count > 1, !options.isBatch { throw UsageError(message: "Unexpected argument '\(inputs[1])'") }
        options.input = input
        options.inputs = inputs
        if exclusive.count > 1 {
            throw UsageError(message: "'\(exclusive[0])' cannot be used with '\(exclusive[1])'")
        }
        if let only = exclusive.first, let mode = exclusiveModes[only] {
            // `--diff --json` writes the differences as JSON lines; no other mode of these takes `--json`.
            if raw || (json && mode != .diff) {
                throw UsageError(message: "'\(only)' cannot be used with '\(raw ? "--raw" : "--json")'")
            }
            options.mode = mode
            options.writesJSONLines = json
        } else {
            options.mode = raw ? (json ? .rawJSON : .raw) : (json ? .json : .tree)
        }
        try check(options)
        return options
    }

    /// The combinations `parse` refuses once every argument is read.
    private static func check(_ options: Options) throws(UsageError) {
        let mode = options.mode
        if options.isLenient, mode == .validate {
            throw UsageError(message: "'--validate' cannot be used with '--lenient'")
        }
        if options.output != nil, mode == .validate {
            throw UsageError(message: "'--output' cannot be used with '--validate'")
        }
        if options.maxDepth != nil, [.xml, .binary, .validate, .classes].contains(mode) {
            throw UsageError(message: "'--max-depth' only applies to the tree, --raw and --json outputs")
        }
        if options.maxDepth != nil, [.timeline, .extract, .diff].contains(mode) {
            throw UsageError(message: "'--max-depth' cannot be used with '--timeline', '--extract' or '--diff'")
        }
        if options.maxObjects != nil, mode != .dot {
            throw UsageError(message: "'--max-objects' only applies to --dot")
        }
        let forensic: [Options.Mode] = [.timeline, .extract, .diff, .dot]
        if options.isLenient, forensic.contains(mode) || options.decodesNested || options.isBatch {
            throw UsageError(message: "'--lenient' cannot be used with '--nested', '--batch', '--hex', '--base64', "
                             + "'--timeline', '--extract', '--diff' or '--dot'")
        }
        if options.decodesNested, ![.tree, .json].contains(mode), !forensic.contains(mode) {
            throw UsageError(message: "'--nested' only applies to the tree, --json, --timeline, --extract, --diff and --dot outputs")
        }
        if options.isBatch {
            if ![.tree, .json, .timeline].contains(mode) {
                throw UsageError(message: "a batch ('--batch', '--hex', '--base64') writes JSON lines: only '--timeline' "
                                 + "and '--nested' apply")
            }
            if options.maxDepth != nil { throw UsageError(message: "'--max-depth' cannot be used in a batch") }
        } else if options.jobs != nil {
            throw UsageError(message: "'--jobs' only applies to a batch ('--batch', '--hex', '--base64')")
        }
    }
}
