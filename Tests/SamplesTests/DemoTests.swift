import Foundation
import Testing

/// The main job: `swift run keyedarchive-demo`.
@Suite struct DemoTests {
    @Test func demoRunsAllChecksAndExits0() throws {
        let result = try SampleRunner.run("keyedarchive-demo", [])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count < 60)
        #expect(!result.stdout.contains("FAIL"))
        for expected in [
            "  ok   names and roles survived",
            "  ok   shared: every member's manager is the team's manager, one object (===)",
            "  ok   cycle: every person's team is the decoded team itself (===)",
            "  ok   distinct people stay distinct objects",
            "  ok   stored once each: 1 Team and 4 Person objects in $objects",
            "  ok   asking for a Person at the root refuses the Team (classNotAllowed), before any init runs",
            "root: #1 Team",
            "All checks passed.",
        ] {
            #expect(lines.contains(expected), "missing line: \(expected)")
        }
        // The dump shows the shared manager once and the back-references as cycles.
        #expect(lines.filter { $0.hasSuffix("manager: #4 Person (repeated: see line 4)") }.count == 3)
        #expect(lines.filter { $0.hasSuffix("team: #1 Team (cycle: back to line 2)") }.count == 4)
        // The temporary directory is gone afterwards.
        let path = try #require(lines.first { $0.hasSuffix("team.archive (removed at exit)") })
            .trimmingCharacters(in: .whitespaces).replacingOccurrences(of: " (removed at exit)", with: "")
        #expect(path.hasPrefix("/"))
        #expect(!FileManager.default.fileExists(atPath: (path as NSString).deletingLastPathComponent))
    }

    @Test func demoKeepsItsDirectoryWhenAskedAndRejectsUnknownArguments() throws {
        let kept = try SampleRunner.run("keyedarchive-demo", ["--keep"])
        #expect(kept.status == 0)
        let path = try #require(kept.stdout.split(separator: "\n").first { $0.hasSuffix("/team.archive") })
            .trimmingCharacters(in: .whitespaces)
        #expect(FileManager.default.fileExists(atPath: path))
        try? FileManager.default.removeItem(atPath: (path as NSString).deletingLastPathComponent)

        let wrong = try SampleRunner.run("keyedarchive-demo", ["--frob"])
        #expect(wrong.status == 64)
        #expect(wrong.stderr.hasPrefix("Error: Unexpected argument '--frob'\nUsage: keyedarchive-demo [--keep]\n"))
    }
}
