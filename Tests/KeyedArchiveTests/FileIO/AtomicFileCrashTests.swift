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
    static let timeBudget: Duration = .seconds(20)

    @Test func killedWriterLeavesOneCompleteVersion() throws {
        // The child is a dependency of this test target, so it is always built: missing is a failure.
        let child = try #require(FileTestSupport.crashChildExecutable(),
                                 "atomic-write-crash-child not found next to the test bundle or in .build")
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let payloadDirectory = ScratchDirectory("payloads")
        defer { payloadDirectory.remove() }
        // Two archives of different values and sizes (about 380 and 320 KiB), large enough that a save
        // takes a moment, with few objects so that decoding after every kill stays quick.
        let valueA = (0..<400).map { "A\($0):" + String(repeating: "a", count: 950) }
        let valueB = (0..<320).map { "B\($0):" + String(repeating: "b", count: 1000) }
        let versionA = try KeyedArchiver.archivedData(withRootObject: valueA)
        let versionB = try KeyedArchiver.archivedData(withRootObject: valueB)
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

            // The file must decode as exactly one of the two values, byte for byte the archive of it.
            let decoded: [String]
            do {
                decoded = try KeyedUnarchiver.unarchivedObject(ofClass: [String].self, fromFile: destination)
            } catch {
                Issue.record("after kill \(kills) the file does not decode: \(error)")
                return
            }
            let contents = FileTestSupport.contents(destination)
            if decoded == valueA && contents == versionA {
                seenA += 1
            } else if decoded == valueB && contents == versionB {
                seenB += 1
            } else {
                Issue.record("after kill \(kills) the file is neither version: \(contents?.count ?? -1) bytes")
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
