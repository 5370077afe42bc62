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
import ArchiveDumpCore
import KeyedArchive

/// The `plutil` command: Apple's `plutil` command line over this package's readers and writers.
///
/// Every file is handled on its own: a failure prints `file: message` on standard error and the next file
/// is tried; the exit status is 1 if any file (or the command line) failed, else 0. An edit or conversion
/// replaces its file with ``AtomicFileWriter``, so a failure leaves the file as it was.
///
/// `main.swift` only calls ``main(arguments:)``; tests call ``run(arguments:input:output:errors:)``.
package enum PlutilCommand {
    /// The `-help` text.
    package static let help = """
        usage: plutil [command] [options] file...
        Reads and writes property lists (XML, binary, JSON) and checks NSKeyedArchiver archives.
        A file named - is standard input. Commands (-lint when none is given):
          -help                        show this text
          -lint [-archive]             check that each file is a property list; prints 'file: OK' or
                                       the fault; -archive: each must also be a keyed archive that
                                       keeps the archive's rules (as the unarchiver checks them)
          -p                           print each file for people (a keyed archive as its object
                                       tree, as archive-dump shows it); not a stable format
          -convert FORMAT              write each file in FORMAT: xml1 binary1 json swift objc raw
                                       typed-json (JSON keeping dates, data, UIDs, reals; a keyed
                                       archive as stored) resolved-json (a keyed archive as its
                                       object graph: classes, shared objects once by $id); read
                                       either back with -from (objc -header writes the .h too);
                                       in place unless -o or -e
          -extract KEYPATH FORMAT      write the value at KEYPATH as FORMAT (xml1 binary1 json swift
            [-expect TYPE]             objc raw typed-json); raw prints scalars as text, an array's count, a
                                       dictionary's keys; -expect fails unless the value is a TYPE
          -type KEYPATH [-expect TYPE] print the type at KEYPATH: bool integer float string date
                                       data dictionary array (set and uid beyond those)
          -insert KEYPATH -TYPE VALUE  insert VALUE at KEYPATH: a new key, or into an array before
            [-append]                  the index (the count appends); -append adds it to the end
                                       of the array at KEYPATH
          -replace KEYPATH -TYPE VALUE set the value at KEYPATH, adding the key if needed
          -remove KEYPATH              remove the value at KEYPATH
          -create FORMAT               write an empty dictionary in FORMAT to each file (- for output)
        KEYPATH: keys and array indices joined by '.', a '.' inside a key written '\\.'.
          In a keyed archive a key path not starting with $ follows UIDs from $top
          (root.items.0.name); one starting with $ addresses the archive as stored.
        -TYPE VALUE: -bool YES|true|other (false), -integer N, -float X, -string S,
          -date 2024-05-01T10:00:00Z, -data BASE64, -xml PLIST, -json JSON, -array, -dictionary
        Options (after the command):
          -o PATH      write the result to PATH (- for standard output)
          -e EXT       write the result beside the file, its extension replaced by EXT
          -s           no output on success
          -r           indented JSON with sorted keys
          -n           no newline after raw and -type output
          -from FORMAT read JSON input as FORMAT: json (the default: plain JSON, as Apple's
                       plutil reads it), typed-json or resolved-json
          --           every later argument is a file
        Exit status: 0 when every file succeeded, 1 otherwise.

        """

    /// Runs the tool as a process: real arguments, standard streams, exit status.
    package static func main(arguments: [String] = CommandLine.arguments) -> Int32 {
        signal(SIGPIPE, SIG_IGN)
        let out = DumpOutput.fileDescriptor(1)
        let err = DumpOutput.fileDescriptor(2)
        let status = run(arguments: Array(arguments.dropFirst()),
                         input: { try FileReader().readToEnd(0, path: "standard input", expectedSize: 0) },
                         output: out, errors: err)
        out.flush()
        err.flush()
        return status
    }

    /// Runs the tool.
    ///
    /// - Parameters:
    ///   - arguments: the arguments, without the program name.
    ///   - input: reads standard input (called at most once, for the first `-`).
    ///   - output: standard output.
    ///   - errors: standard error.
    /// - Returns: the exit status: 0 when every file succeeded, 1 otherwise.
    package static func run(arguments: [String], input: @escaping () throws -> Data, output: DumpOutput, errors: DumpOutput) -> Int32 {
        let parsed: PlutilArguments
        do {
            parsed = try PlutilArguments(arguments)
        } catch {
            errors.write(ValueFormatting.sanitizedLine(error.message) + "\n")
            return 1
        }
        if parsed.command == .help {
            output.write(help)
            return 0
        }
        if parsed.command == .print, parsed.silent {
            errors.write("-s doesn't make a lot of sense with -p.\n")
        }
        var session = PlutilSession(arguments: parsed, input: input, output: output)
        var failed = false
        for path in parsed.paths {
            do throws(PlutilFailure) {
                try session.handle(path)
            } catch {
                failed = true
                let name = path == "-" ? "<stdin>" : ValueFormatting.printable(path)
                errors.write(name + ": " + ValueFormatting.sanitizedLine(error.message) + "\n")
            }
        }
        output.flush()
        if let failure = output.failure, !failure.isBrokenPipe {
            errors.write("plutil: cannot write the output: \(failure.message)\n")
            return 1
        }
        return failed ? 1 : 0
    }
}
