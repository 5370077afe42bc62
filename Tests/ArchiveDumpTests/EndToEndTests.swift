import Testing
import Foundation
import KeyedArchive
@testable import ArchiveDumpCore

/// Runs the built `archive-dump` binary and checks exact output and exit status.
@Suite struct EndToEndUsageTests {
    @Test func helpVersionAndUsageErrorsFromTheBinary() throws {
        let help = try ToolRunner.run(["--help"])
        #expect(help.status == 0)
        #expect(help.text == ArchiveDumpCommand.help)
        let version = try ToolRunner.run(["--version"])
        #expect(version.status == 0)
        #expect(version.text == ArchiveDumpCommand.version + "\n")

        let missing = try ToolRunner.run([])
        #expect(missing.status == 64)
        #expect(missing.stdout.isEmpty)
        #expect(missing.stderr == """
            Error: Missing expected argument '<file>'
            Usage: \(ArchiveDumpCommand.usage)
              See 'archive-dump --help' for more information.

            """)
        let conflict = try ToolRunner.run(["--xml", "--validate", "x"])
        #expect(conflict.status == 64)
        #expect(conflict.stderr.hasPrefix("Error: '--xml' cannot be used with '--validate'\n"))
    }

    @Test func garbageOnStandardInputExits1WithoutCrashing() throws {
        for input in [Data(), Data("bplist00".utf8), Data([0xFF, 0x00, 0x3C]), Data("<plist><dict>".utf8)] {
            let result = try ToolRunner.run(["-"], input: input)
            #expect(result.status == 1, "\(Array(input))")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.hasPrefix("Error: <stdin>: "))
            #expect(result.stderr.filter { $0 == "\n" }.count == 1, "one line: \(result.stderr)")
        }
    }
}
