import Foundation
import Testing
@testable import PlutilCore
import KeyedArchive

/// README.md's plutil section shows real output: each `$ plutil ...` line of its console block is run, in
/// order and in one empty folder, with the built tool, and must print what follows it.
@Suite struct ReadmePlutilSessionTests {
    /// The `$ ` lines of the section's console block, each with the lines shown after it.
    static func readmeSession() throws -> [(command: String, shown: [String])] {
        let readme = try String(contentsOf: BuiltProducts.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "\n## plutil\n"), "README.md has no plutil section")
        let rest = readme[section.upperBound...]
        let open = try #require(rest.range(of: "```console\n"))
        let close = try #require(rest[open.upperBound...].range(of: "\n```"))
        var steps: [(command: String, shown: [String])] = []
        for line in rest[open.upperBound..<close.lowerBound].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("$ ") {
                steps.append((String(line.dropFirst(2)), []))
            } else {
                try #require(!steps.isEmpty, "output before the first command: \(line)")
                steps[steps.count - 1].shown.append(String(line))
            }
        }
        return steps
    }

    /// Splits a command line as a shell does for words and single-quoted strings (all the README uses).
    static func words(_ line: String) -> [String] {
        var words: [String] = [], current = "", quoted = false, inWord = false
        for character in line {
            if character == "'" {
                quoted.toggle()
                inWord = true
            } else if character == " ", !quoted {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }

    /// The keyed archive the README's session reads, as its text describes it.
    static func contactsArchive() throws -> Data {
        let contacts: FoundationValue = .dictionary([
            .string("contacts"): .array([
                .dictionary([.string("name"): .string("Ann")]),
                .dictionary([.string("name"): .string("Bob"), .string("born"): .date(Date(timeIntervalSinceReferenceDate: 86_400))]),
            ]),
        ])
        return try KeyedArchiver.archivedData(withRootObject: contacts)
    }

    @Test func readmeSessionIsWhatTheToolPrints() throws {
        let tool = try #require(PlutilRunner.built, "plutil not built next to the test bundle")
        let steps = try Self.readmeSession()
        try #require(steps.count >= 5, "the plutil section shows too short a session")
        let runner = try PlutilRunner(files: ["contacts.archive": try Self.contactsArchive()])
        defer { runner.remove() }
        for step in steps {
            let words = Self.words(step.command)
            try #require(words.first == "plutil", "unsupported: \(step.command)")
            let result = try runner.run(tool, Array(words.dropFirst()))
            // JSON ends without a newline, as Apple's plutil writes it; the README shows the next prompt on a line of its own.
            let printed = result.text + result.stderr, shown = step.shown.map { $0 + "\n" }.joined()
            #expect(printed == shown || (result.text.hasPrefix("{") && printed + "\n" == shown),
                    "README shows other output for: \(step.command)")
            #expect(result.status == (result.stderr.isEmpty ? 0 : 1), "\(step.command): exit \(result.status)")
        }
    }

    @Test func readmeUsageNamesEveryCommandOfTheHelp() throws {
        let readme = try String(contentsOf: BuiltProducts.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "\n## plutil\n"))
        let rest = readme[section.upperBound...]
        let open = try #require(rest.range(of: "```\n"))
        let close = try #require(rest[open.upperBound...].range(of: "\n```"))
        let usage = rest[open.upperBound..<close.lowerBound]
        for command in ["-lint", "-p", "-convert", "-extract", "-expect", "-type", "-insert", "-replace", "-append", "-remove",
                        "-create", "-o PATH", "-e EXT", "-s", "-r", "-n", "--"] {
            #expect(usage.contains(command), "README's usage lacks \(command)")
            #expect(PlutilCommand.help.contains(command.split(separator: " ")[0]), "-help lacks \(command)")
        }
    }
}
