import Testing
import Foundation
@testable import ArchiveDumpCore

@Suite struct CommandLineParsingTests {
    typealias Mode = ArchiveDumpCommand.Options.Mode

    @Test func modesAreChosenFromFlags() throws {
        let cases: [([String], Mode)] = [
            (["f"], .tree), (["--raw", "f"], .raw), (["--json", "f"], .json), (["--json", "--raw", "f"], .rawJSON),
            (["--xml", "f"], .xml), (["f", "--binary"], .binary), (["--validate", "f"], .validate),
            (["--classes", "f"], .classes),
        ]
        for (arguments, mode) in cases {
            #expect(try ArchiveDumpCommand.parse(arguments).mode == mode, "\(arguments)")
        }
        let options = try ArchiveDumpCommand.parse(["--max-depth=3", "-o", "out.txt", "--", "-odd"])
        #expect(options.maxDepth == 3)
        #expect(options.output == "out.txt")
        #expect(options.input == "-odd")
        #expect(try ArchiveDumpCommand.parse(["-"]).input == "-")
        #expect(try ArchiveDumpCommand.parse(["--max-depth", "0", "f"]).maxDepth == 0)
    }

    @Test func usageMistakesAreNamed() {
        let cases: [([String], String)] = [
            ([], "Missing expected argument '<file>'"),
            (["--frob", "f"], "Unknown option '--frob'"),
            (["a", "b"], "Unexpected argument 'b'"),
            (["--max-depth", "x", "f"], "The value 'x' is invalid for '--max-depth <n>'"),
            (["--max-depth=-1", "f"], "The value '-1' is invalid for '--max-depth <n>'"),
            (["f", "--max-depth"], "Missing value for '--max-depth <n>'"),
            (["--xml", "--binary", "f"], "'--xml' cannot be used with '--binary'"),
            (["--classes", "--json", "f"], "'--classes' cannot be used with '--json'"),
            (["--raw=1", "f"], "Unknown option '--raw=1'"),
            (["--validate", "-o", "x", "f"], "'--output' cannot be used with '--validate'"),
            (["--validate", "--max-depth", "2", "f"], "'--max-depth' only applies to the tree, --raw and --json outputs"),
        ]
        for (arguments, message) in cases {
            #expect(throws: ArchiveDumpCommand.UsageError(message: message), "\(arguments)") {
                try ArchiveDumpCommand.parse(arguments)
            }
        }
    }

    private func run(_ arguments: [String]) -> (Int32, String, String) {
        let out = DumpOutputCollector(), err = DumpOutputCollector()
        let status = ArchiveDumpCommand.run(arguments: arguments, input: { Data() }, output: out.output,
                                            errors: err.output, outputIsTerminal: false)
        return (status, out.text, err.text)
    }

    @Test func helpAndVersionExitZero() {
        let (status, text, errors) = run(["--help"])
        #expect(status == 0)
        #expect(errors.isEmpty)
        #expect(text.hasPrefix("OVERVIEW: Shows what is inside a property list, an NSKeyedArchiver archive or a typedstream.\n"))
        for heading in ["\nUSAGE: archive-dump ", "\nARGUMENTS:\n", "\nOPTIONS:\n", "  --max-depth <n>", "  -h, --help"] {
            #expect(text.contains(heading), "\(heading)")
        }
        #expect(run(["-h"]).1 == text)
        #expect(run(["--version"]) == (0, ArchiveDumpCommand.version + "\n", ""))
    }

    @Test func usageErrorsExit64WithTheUsageLine() {
        let (status, text, errors) = run(["--frob"])
        #expect(status == 64)
        #expect(text.isEmpty)
        #expect(errors == """
            Error: Unknown option '--frob'
            Usage: \(ArchiveDumpCommand.usage)
              See 'archive-dump --help' for more information.

            """)
    }

    @Test func unreadableFilesExit1WithTheReason() {
        let (status, text, errors) = run(["/nonexistent/dir/file.plist"])
        #expect(status == 1)
        #expect(text.isEmpty)
        #expect(errors == "Error: /nonexistent/dir/file.plist: No such file or directory\n")
        let (dirStatus, _, dirErrors) = run(["/"])
        #expect(dirStatus == 1)
        #expect(dirErrors == "Error: /: is a directory\n")
    }

    @Test func bytesThatAreNotAPropertyListExit1() {
        let out = DumpOutputCollector(), err = DumpOutputCollector()
        let status = ArchiveDumpCommand.run(arguments: ["-"], input: { Data("%PDF-1.4".utf8) }, output: out.output,
                                            errors: err.output, outputIsTerminal: false)
        #expect(status == 1)
        #expect(out.text.isEmpty)
        #expect(err.text == "Error: <stdin>: property list: at byte 0: not a binary (bplist00), XML or OpenStep property list\n")
    }
}

@Suite struct DumpOutputTests {
    @Test func outputIsHandedOnInChunksAndStopsAfterAFailure() {
        var chunks: [[UInt8]] = []
        var failNext = false
        let out = DumpOutput(chunkSize: 8) { chunk in
            if failNext { return EPIPE }
            chunks.append(chunk)
            return 0
        }
        out.write("0123")
        #expect(chunks.isEmpty)              // still buffered
        out.write("4567\n89")
        #expect(chunks == [Array("01234567\n89".utf8)])
        #expect(out.linesWritten == 1)
        failNext = true
        out.write("abcdefghij")
        #expect(out.hasFailed)
        #expect(out.failure?.isBrokenPipe == true)
        failNext = false
        out.write("more text")
        out.flush()
        #expect(chunks.count == 1)           // nothing after the failure
    }
}
