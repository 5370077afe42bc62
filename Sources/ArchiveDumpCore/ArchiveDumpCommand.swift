#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import KeyedArchive

/// The `archive-dump` command: argument parsing, reading the input and choosing a renderer.
///
/// `main.swift` only calls ``main(arguments:)``; tests call ``run(arguments:input:output:errors:outputIsTerminal:)``
/// with in-memory streams.
package enum ArchiveDumpCommand {
    /// The tool's version, printed by `--version`.
    package static let version = KeyedArchivePackage.version

    /// Exit status: success.
    package static let exitSuccess: Int32 = 0
    /// Exit status: the input could not be read, is malformed, or failed `--validate`.
    package static let exitFailure: Int32 = 1
    /// Exit status: the command line is wrong (EX_USAGE).
    package static let exitUsage: Int32 = 64

    /// The one-line usage.
    package static let usage = "archive-dump [--raw] [--json] [--xml | --binary | --validate | --classes] [--lenient] [--max-depth <n>] [-o <file>] <file>"

    /// The `--help` text.
    package static let help = """
        OVERVIEW: Shows what is inside a property list, an NSKeyedArchiver archive or a typedstream.

        Reads a binary or XML property list from a file or standard input. A keyed archive is shown as a
        tree of its objects (UIDs as #n), with Foundation classes shown as their values; an object met
        again refers to the line where it was first shown. Nothing in the archive is instantiated.
        A typedstream (NSArchiver, such as an iMessage attributedBody; it starts 04 0B streamtyped or
        typedstream) is shown the same way, objects as #index Class vVersion; --xml and --binary refuse it.
        An attributed string shows each run's range, text and attributes.

        USAGE: \(usage)

        ARGUMENTS:
          <file>                  The property list to read, or - for standard input.

        OPTIONS:
          --raw                   Show the property list as stored, UIDs as UID(n) (like plutil -p); a
                                  typedstream's classes, objects and groups as stored.
          --json                  Write JSON: the resolved object graph, or with --raw the property list
                                  as stored. A typedstream: its Foundation values, or (when a value is
                                  not Foundation's, or with --raw) its stored model.
          --xml                   Convert to an XML property list (UIDs as CF$UID dictionaries).
          --binary                Convert to a binary property list. Refuses to write to a terminal.
          -o, --output <file>     Write to <file> instead of standard output.
          --validate              Check the property list and, if it is one, the keyed archive; print OK
                                  (exit 0) or the first error and where it is (exit 1). The archive
                                  rules are the unarchiver's, strict as Apple's: $archiver
                                  "NSKeyedArchiver", $version 100000, $objects[0] "$null", every
                                  UID in range, every $class a class description. Inline $top
                                  values (scalars encoded straight into the archiver) are valid. A
                                  typedstream is read in full; its first error names its byte offset.
          --classes               List the archived classes and how many objects of each.
          --lenient               Show what can be shown of a damaged file, for forensic work: each place
                                  that breaks the archive's rules is listed and marked with its error
                                  (a dangling UID, a bad $class, a wrong $archiver or $version...), the
                                  rest is shown. The property list is read with CoreFoundation's
                                  stricter rules relaxed too. Not with --validate.
          --max-depth <n>         Do not expand objects or containers more than <n> levels deep.
          --version               Show the version.
          -h, --help              Show help information.

        """

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

    /// Runs the tool as a process: real arguments, standard streams, exit status.
    package static func main(arguments: [String] = CommandLine.arguments) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let out = DumpOutput.fileDescriptor(1)
        let err = DumpOutput.fileDescriptor(2)
        let status = run(arguments: Array(arguments.dropFirst()), input: { try FileReader().readToEnd(0, path: "standard input", expectedSize: 0) },
                         output: out, errors: err, outputIsTerminal: isatty(1) != 0)
        out.flush()
        err.flush()
        return status
    }

    /// Runs the tool.
    ///
    /// - Parameters:
    ///   - arguments: the arguments, without the program name.
    ///   - input: reads standard input (called only for `-`).
    ///   - output: standard output (unused when `-o` is given).
    ///   - errors: standard error.
    ///   - outputIsTerminal: whether standard output is a terminal (binary output is refused there).
    /// - Returns: the exit status: 0, 1 (unreadable or malformed input, failed validation) or 64 (usage).
    package static func run(arguments: [String], input: () throws -> Data, output: DumpOutput, errors: DumpOutput,
                           outputIsTerminal: Bool) -> Int32 {
        let options: Options
        do {
            options = try parse(arguments)
        } catch {
            errors.write("Error: \(error.message)\nUsage: \(usage)\n  See 'archive-dump --help' for more information.\n")
            return exitUsage
        }
        if options.showHelp {
            output.write(help)
            return exitSuccess
        }
        if options.showVersion {
            output.write(version + "\n")
            return exitSuccess
        }
        let name = options.input == "-" ? "<stdin>" : options.input
        func fail(_ message: String) -> Int32 {
            errors.write("Error: \(ValueFormatting.printable(name)): \(ValueFormatting.sanitizedLine(message))\n")
            return exitFailure
        }

        // Read and parse.
        let data: Data
        do {
            data = options.input == "-" ? try input() : try FileReader().read(atPath: options.input)
        } catch let error as FileIOError {
            return fail(error.errno == EISDIR ? "is a directory" : error.reason)
        } catch {
            return fail("\(error)")
        }
        // A few hundred bytes whose containers share sub-trees can stand for 2^40 values: every output
        // shows them in full, so the work is capped before any of it starts.
        let budget = nodeBudget(inputByteCount: data.count)
        let root: PropertyListValue
        let graph: ArchivedObjectGraph?
        var mapped: MappedPropertyList?
        var typedstream: TypedstreamRenderer?
        if TypedstreamRenderer.isTypedstream(data) {
            // Refused as `--classes` refuses a property list that is no keyed archive: the input, not the
            // command line, is what does not fit (exit 1).
            if [.xml, .binary].contains(options.mode) {
                return fail("a typedstream (NSArchiver) archive is not a property list; '\(options.mode == .xml ? "--xml" : "--binary")' "
                            + "cannot convert it")
            }
            do {
                typedstream = TypedstreamRenderer(archive: try TypedstreamArchive(data: data), budget: budget, maxDepth: options.maxDepth)
            } catch {
                return fail("\(error)")
            }
            root = .dictionary([:])
            graph = nil
        } else if [.raw, .rawJSON].contains(options.mode), let plist = MappedPropertyList(data, expandedValueBudget: budget) {
            // The property list as stored, of a binary file that passes every check below: its containers
            // are read from the bytes as they are shown (memory: the file and, while checking, 9 bytes per object).
            root = .dictionary([:])
            graph = nil
            mapped = plist
        } else if [.tree, .json, .classes, .validate].contains(options.mode),
           let onDemand = ArchivedObjectGraph.onDemandIfValid(data, options: .init(), expandedValueBudget: budget) {
            // A binary keyed archive that passes every check below: its objects are read from the bytes as
            // they are shown, and the decoded tree never exists as a whole (memory: the file and a few
            // bytes per object). Anything else, faults included, takes the path below.
            root = .dictionary([:])
            graph = onDemand
        } else {
            do {
                var reading = PropertyListReadingOptions()
                reading.isLenient = options.isLenient
                root = try PropertyListValue(propertyListData: data, options: reading)
            } catch {
                // --validate: say whether only the strict rules reject it, and whose they are.
                var lenient = PropertyListReadingOptions()
                lenient.isLenient = true
                if options.mode == .validate, BinaryPropertyListReader.isRefusedOnlyForWhatCoreFoundationReads(data) {
                    return fail("\(error) (refused by the strict reader, as no writer writes it; CoreFoundation reads it, "
                                + "and so does PropertyListReadingOptions.isLenient)")
                }
                if options.mode == .validate, (try? PropertyListValue(propertyListData: data, options: lenient)) != nil {
                    return fail("\(error) (refused by the strict rules; PropertyListReadingOptions.isLenient reads it)")
                }
                return fail("\(error)")
            }
            guard expandedNodeCount(root, atMost: budget) <= budget else {
                return fail("the property list shares containers and, shown in full, has more than \(budget) values "
                            + "(archive-dump's limit: 4 per input byte + \(nodeBudgetConstant)); nothing was shown")
            }
            // --xml, --binary and --raw show the property list as stored and never look at the object
            // graph: not building it saves a second decoded copy of the archive (about as large as `root`).
            if isKeyedArchive(root), [.tree, .json, .classes, .validate].contains(options.mode) {
                do {
                    // The tree read above serves the graph too: the file is read as a property list once.
                    graph = options.isLenient ? try ArchivedObjectGraph(lenientPropertyList: root)
                        : try ArchivedObjectGraph(data: data, parsedRoot: root)
                } catch {
                    return fail("\(error)" + (options.mode == .validate ? "" : " (use --raw to see the property list as stored)"))
                }
            } else {
                graph = nil
            }
        }

        /// Writes the chosen output to `out`; returns the exit status of a failure (its message written).
        func render(to out: DumpOutput) -> Int32? {
            if let typedstream {
                return renderTypedstream(typedstream, mode: options.mode, to: out, fail: fail)
            }
            switch options.mode {
            case .tree:
                if let graph {
                    TreeRenderer(maxDepth: options.maxDepth).render(graph: graph, to: out)
                } else {
                    TreeRenderer(maxDepth: options.maxDepth).render(propertyList: root, to: out)
                }
            case .raw:
                if let mapped {
                    RawTextRenderer(maxDepth: options.maxDepth).render(mapped: mapped, to: out)
                } else {
                    RawTextRenderer(maxDepth: options.maxDepth).render(root, to: out)
                }
            case .rawJSON:
                if let mapped {
                    JSONRenderer(maxDepth: options.maxDepth).render(mapped: mapped, to: out)
                } else {
                    JSONRenderer(maxDepth: options.maxDepth).render(propertyList: root, to: out)
                }
            case .json:
                if let graph {
                    JSONRenderer(maxDepth: options.maxDepth).render(graph: graph, to: out)
                } else {
                    JSONRenderer(maxDepth: options.maxDepth).render(propertyList: root, to: out)
                }
            case .xml, .binary:
                if options.mode == .binary, options.output == nil, outputIsTerminal {
                    errors.write("Error: refusing to write binary data to a terminal; use -o <file> or redirect the output\n")
                    return exitFailure
                }
                do {
                    out.write(bytes: try root.propertyListData(format: options.mode == .xml ? .xml : .binary))
                } catch {
                    return fail("\(error)")
                }
            case .validate:
                out.write("OK\n")
            case .classes:
                guard let graph else { return fail("not a keyed archive: it has no $archiver and $objects") }
                let counts = graph.instanceCounts().sorted { a, b in a.value != b.value ? a.value > b.value : a.key < b.key }
                writeClassCounts(counts.map { ($0.key, $0.value) }, to: out)
            }
            return finish(out)
        }

        /// Flushes `out`; the exit status of a failed write (its message written), else nil.
        func finish(_ out: DumpOutput) -> Int32? {
            out.flush()
            if let failure = out.failure {
                // A reader that went away (`archive-dump big.plist | head`) is not worth a message.
                if !failure.isBrokenPipe { errors.write("Error: \(failure.message)\n") }
                return exitFailure
            }
            return nil
        }

        /// Writes a typedstream archive in `mode` (never --xml or --binary, refused above).
        func renderTypedstream(_ renderer: TypedstreamRenderer, mode: Options.Mode, to out: DumpOutput,
                               fail: (String) -> Int32) -> Int32? {
            switch mode {
            case .tree: renderer.renderTree(to: out)
            case .raw: renderer.renderRaw(to: out)
            case .json, .rawJSON:
                if let message = renderer.renderJSON(asStored: mode == .rawJSON, to: out) { return fail(message) }
            case .classes: writeClassCounts(renderer.classCounts(), to: out)
            case .validate, .xml, .binary: out.write("OK\n")
            }
            return finish(out)
        }

        // Where the output goes. A regular file (new or existing) is replaced with AtomicFileWriter: the
        // output streams into a temporary file beside it, renamed over it once complete, so a failure
        // leaves the old file as it was. A device or FIFO that exists (`-o /dev/stdout`) cannot be
        // replaced atomically and is written directly, as standard output is.
        guard let path = options.output else { return render(to: output) ?? exitSuccess }
        if isExistingSpecialFile(path) {
            let file = open(path, O_WRONLY | O_TRUNC)
            guard file >= 0 else {
                let reason = String(cString: strerror(errno))
                errors.write("Error: \(ValueFormatting.printable(path)): cannot open for writing: \(reason)\n")
                return exitFailure
            }
            defer { close(file) }
            return render(to: DumpOutput.fileDescriptor(file)) ?? exitSuccess
        }
        do {
            try AtomicFileWriter(newFilePermissions: 0o644).write(toPath: path) { write in try withoutActuallyEscaping(write) { write in
                var writeError: FileIOError?
                let out = DumpOutput { chunk in
                    do {
                        try chunk.withUnsafeBytes { try write($0) }
                        return 0
                    } catch {
                        writeError = error as? FileIOError
                        return writeError?.errno ?? EIO
                    }
                }
                let failure = render(to: out)
                if let writeError { throw writeError }
                if let failure { throw DumpFailed(status: failure) }
            } }
        } catch let failed as DumpFailed {
            return failed.status  // reported; the old file is kept
        } catch let error as FileIOError where error.step == .synchronizeDirectory {
            // The new contents are in place; only the directory entry's durability is in doubt.
        } catch let error as FileIOError {
            let opening: [FileIOError.Step] = [.validatePath, .resolveSymbolicLink, .openDirectory, .createTemporaryFile]
            let what = opening.contains(error.step) ? "cannot open for writing" : "cannot write the output"
            errors.write("Error: \(ValueFormatting.printable(path)): \(what): \(error.reason)\n")
            return exitFailure
        } catch {
            errors.write("Error: \(ValueFormatting.printable(path)): cannot write the output: \(error)\n")
            return exitFailure
        }
        return exitSuccess
    }

    /// Writes `counts` (most first) as `--classes` shows them: each count right-aligned, then the class name.
    private static func writeClassCounts(_ counts: [(name: String, count: Int)], to out: DumpOutput) {
        let width = String(counts.first?.count ?? 0).count
        for (name, count) in counts {
            let n = String(count)
            out.write(String(repeating: " ", count: width - n.count) + n + "  " + ValueFormatting.printable(name) + "\n")
        }
    }

    /// A dump that failed after the output file was opened (its message already written): the atomic
    /// write is abandoned, so the old file stays.
    private struct DumpFailed: Error {
        let status: Int32
    }

    /// Whether `path` names an existing file that is neither a regular file nor a directory (a device,
    /// a FIFO, a socket), following symbolic links.
    private static func isExistingSpecialFile(_ path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return false }
        let kind = info.st_mode & S_IFMT
        return kind != S_IFREG && kind != S_IFDIR
    }

    /// The constant part of ``nodeBudget(inputByteCount:)``.
    static let nodeBudgetConstant = 4096

    /// The most values (containers, scalars, UIDs) an output may show for an input of `inputByteCount`
    /// bytes: 4 per byte plus a constant. A property list without shared containers never reaches it,
    /// since every value but the root costs at least one reference byte.
    static func nodeBudget(inputByteCount: Int) -> Int {
        let (product, overflow) = inputByteCount.multipliedReportingOverflow(by: 4)
        return overflow ? Int.max - nodeBudgetConstant : product + nodeBudgetConstant
    }

    /// The number of values in `root` counted as the outputs show them (a shared container once per
    /// reference), or `limit + 1` as soon as it passes `limit`. Iterative, so any depth is safe.
    static func expandedNodeCount(_ root: PropertyListValue, atMost limit: Int) -> Int {
        var count = 0
        var pending: [PropertyListValue] = [root]
        while let value = pending.popLast() {
            count += 1
            if count > limit { return count }
            switch value {
            case .array(let items), .set(let items):
                if items.count > limit - count { return limit + 1 }
                pending.append(contentsOf: items)
            case .dictionary(let d):
                if d.count > limit - count { return limit + 1 }
                count += d.count  // the keys
                pending.append(contentsOf: d.values)
            default:
                continue
            }
        }
        return count
    }

    /// Whether the root is a keyed archive: a dictionary with `$archiver` and `$objects`, or with `$top`.
    static func isKeyedArchive(_ root: PropertyListValue) -> Bool {
        guard case .dictionary(let d) = root else { return false }
        return d["$archiver"] != nil && (d["$objects"] != nil || d["$top"] != nil)
    }
}
