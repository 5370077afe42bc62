import Foundation
import Testing
@testable import KeyedArchive
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Kills a writer process at random moments and checks the file is always one complete version.
@Suite struct AtomicFileCrashTests {
    /// At most this many kills, and at most this much time (the test stops at whichever comes first).
    static let maximumKills = 300
    static let timeBudget: Duration = .seconds(25)

    @Test func killedWriterLeavesOneCompleteVersion() throws {
        guard let child = FileTestSupport.crashChildExecutable() else {
            print("skipping: atomic-write-crash-child not found next to the test bundle or in .build")
            return
        }
        let dir = ScratchDirectory()
        defer { withExtendedLifetime(dir) {} }
        let payloadDirectory = ScratchDirectory("payloads")
        defer { withExtendedLifetime(payloadDirectory) {} }
        // Two versions of different sizes and contents, large enough that a save takes a moment.
        let versionA = FileTestSupport.pseudoRandomBytes(count: 384 * 1024, seed: 0xA)
        let versionB = FileTestSupport.pseudoRandomBytes(count: 320 * 1024, seed: 0xB)
        let payloadA = payloadDirectory.file("a")
        let payloadB = payloadDirectory.file("b")
        try FileTestSupport.create(payloadA, versionA)
        try FileTestSupport.create(payloadB, versionB)
        let destination = dir.file("model.archive")
        try FileTestSupport.create(destination, versionA)

        var generator = SystemRandomNumberGenerator()
        var seenA = 0, seenB = 0, kills = 0
        let clock = ContinuousClock()
        let start = clock.now
        while kills < Self.maximumKills && clock.now - start < Self.timeBudget {
            let process = try ChildProcess.spawn(child, ["loop", destination, payloadA, payloadB])
            // Wait for the first completed save (so the child is in its loop), then a random moment
            // within the next few saves.
            guard process.awaitByte(timeoutMilliseconds: 10_000) else {
                let status = process.kill(SIGKILL)
                Issue.record("the child made no save within 10 s (wait status \(status))")
                return
            }
            usleep(UInt32.random(in: 0...6000, using: &generator))
            let status = process.kill(SIGKILL)
            kills += 1
            #expect(ChildProcess.terminatingSignal(status) == SIGKILL,
                    "the child ended on its own (wait status \(status)) instead of being killed")

            let contents = try #require(FileTestSupport.contents(destination), "the destination vanished")
            if contents == versionA {
                seenA += 1
            } else if contents == versionB {
                seenB += 1
            } else {
                Issue.record("after kill \(kills) the file is neither version: \(contents.count) bytes")
                return
            }
        }
        let stale = dir.names().filter { $0 != "model.archive" }
        print("crash test: \(kills) kills in \(clock.now - start); version A \(seenA) times, B \(seenB) times; "
              + "\(stale.count) kills landed mid-save and left a temporary file")
        #expect(kills >= 20)
        // The child alternates B, A, B...: both must have been seen, or the kills did not land in the loop.
        #expect(seenA > 0)
        #expect(seenB > 0)

        // Killed writers leave temporary files; the cleanup removes exactly those.
        #expect(stale.allSatisfy { AtomicFileWriter.isTemporaryName($0, prefix: ".model.archive.tmp-") })
        let removed = try AtomicFileWriter.removeStaleTemporaryFiles(for: destination, olderThan: .zero)
        #expect(removed.sorted() == stale.map { dir.file($0) }.sorted())
        #expect(dir.names() == ["model.archive"])
        let final = FileTestSupport.contents(destination)
        #expect(final == versionA || final == versionB)
    }
}
