import Foundation
import Testing
@testable import ArchiveDumpCore

/// README.md's archive-dump section shows real output: each `$ swift run archive-dump ...` line of its
/// console block is run with the built tool from the package root, and must print what follows it.
@Suite struct ReadmeTranscriptTests {
    static var packageRoot: URL { BuiltProducts.packageRoot }

    /// One command of the transcript and the lines shown after it.
    struct Step {
        var command: String
        var shown: [String]
    }

    static func readmeSteps() throws -> (usage: String, steps: [Step]) {
        let readme = try String(contentsOf: packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.range(of: "\n## archive-dump\n"), "README.md has no archive-dump section")
        let rest = readme[section.upperBound...]
        let usageOpen = try #require(rest.range(of: "```\n"))
        let usageClose = try #require(rest[usageOpen.upperBound...].range(of: "\n```"))
        let usage = String(rest[usageOpen.upperBound..<usageClose.lowerBound])
        let open = try #require(rest.range(of: "```console\n"))
        let close = try #require(rest[open.upperBound...].range(of: "\n```"))
        var steps: [Step] = []
        for line in rest[open.upperBound..<close.lowerBound].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("$ ") {
                steps.append(Step(command: String(line.dropFirst(2)), shown: []))
            } else {
                try #require(!steps.isEmpty, "output before the first command: \(line)")
                steps[steps.count - 1].shown.append(String(line))
            }
        }
        return (usage, steps)
    }

    @Test func readmeUsageLineIsTheToolsOwn() throws {
        #expect(try Self.readmeSteps().usage == ArchiveDumpCommand.usage)
    }

    @Test func readmeTranscriptIsWhatTheToolPrints() throws {
        let steps = try Self.readmeSteps().steps
        try #require(!steps.isEmpty, "the archive-dump section shows no command")
        for step in steps {
            // `swift run archive-dump ARGS`, optionally fed by `head -c N FILE | `.
            var input = Data()
            var command = Substring(step.command)
            if let pipe = command.range(of: " | ") {
                let feeder = command[..<pipe.lowerBound].split(separator: " ")
                try #require(feeder.count == 4 && feeder[0] == "head" && feeder[1] == "-c", "unsupported: \(step.command)")
                let count = try #require(Int(feeder[2]))
                input = try Data(contentsOf: Self.packageRoot.appendingPathComponent(String(feeder[3]))).prefix(count)
                command = command[pipe.upperBound...]
            }
            let words = command.split(separator: " ").map(String.init)
            try #require(words.starts(with: ["swift", "run", "archive-dump"]), "unsupported: \(step.command)")
            let result = try ToolRunner.run(Array(words.dropFirst(3)), input: input, currentDirectory: Self.packageRoot)
            let printed = result.text + result.stderr
            #expect(printed == step.shown.map { $0 + "\n" }.joined(), "README shows other output for: \(step.command)")
            #expect(result.status == (result.stderr.isEmpty ? 0 : 1), "\(step.command): exit \(result.status)")
        }
    }
}
