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

    /// The usage: the single-input modes, the forensic modes, and a batch of blobs.
    package static let usage = """
        archive-dump [--raw] [--json] [--xml | --binary | --validate | --classes] [--lenient] [--max-depth <n>] [-o <file>] <file>
               archive-dump [--nested] [--json | --timeline | --extract <dir> | --diff <old> [--json] | --dot [--max-objects <n>]] <file>
               archive-dump (--hex | --base64 | --batch) [--nested] [--timeline] [--jobs <n>] [-o <file>] <file>...
        """

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
          <file>                  The property list to read, or - for standard input (several in a batch).

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
                                  stricter rules relaxed too. Not with --validate. A typedstream is
                                  read strictly all the same (a note on stderr says so).
          --max-depth <n>         Do not expand objects or containers more than <n> levels deep.

        FORENSIC OPTIONS:
          --nested                Decode the payloads inside data values and strings where they stand: binary
                                  and XML property lists, keyed archives, typedstreams (also as XML text,
                                  base64 or hex in a string), 16 levels deep at most, each shown with its
                                  path ($top.root.body -> data -> typedstream -> NSAttributedString), the
                                  object and key that hold it and the byte offset where it starts. All levels
                                  share one budget (4 values per input byte + 4096). A damaged nested
                                  archive is shown with its damage listed. With --json: one JSON object.
          --timeline              Every date (NSDate, property-list dates, typedstream dates) with its path
                                  and source, one JSON line each, earliest first.
          --extract <dir>         Write every data value to a new file in <dir> (which must exist), named
                                  by its path (only letters, digits, '.', '_', '-'; never outside <dir>,
                                  never over an existing file) with an extension sniffed from its bytes;
                                  one JSON line per file.
          --diff <old>            What changed from <old> to <file> (archive-dump --diff OLD NEW): objects
                                  matched by their path from $top, not by UID; added (in NEW only), removed
                                  (in OLD only), changed (OLD -> NEW), class changes, sharing that appeared
                                  or went. With --json: one JSON line per difference, "old" and "new" the
                                  values in "oldFile" and "newFile".
          --dot                   The object graph as Graphviz DOT (shared objects double-bordered, cycles
                                  dashed red), cut at --max-objects <n> boxes (500) or --max-depth.
          --hex, --base64         Each line of each <file> is one blob in hex (as sqlite3's hex() prints it)
                                  or base64; one JSON line per blob ({"input", "line", then the value or
                                  the error}), in input order, going on after errors; exit 1 if any failed.
          --batch                 Each <file> is one blob, as above.
          --jobs <n>              Read <n> blobs at once (default: one per processor).
          --version               Show the version.
          -h, --help              Show help information.

        """

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
        if options.isBatch {
            return batchRun(options, standardInput: input, output: output, errors: errors)
        }
        if options.decodesNested || [.timeline, .extract, .diff, .dot].contains(options.mode) {
            return forensicRun(options, standardInput: input, output: output, errors: errors)
        }
        return dump(options, standardInput: input, output: output, errors: errors, outputIsTerminal: outputIsTerminal)
    }
}
