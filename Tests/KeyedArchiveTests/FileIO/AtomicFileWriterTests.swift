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

@Suite struct AtomicFileWriterTests {
    let old = Data("the previous archive".utf8)
    let new = FileTestSupport.pseudoRandomBytes(count: 70_000, seed: 7)

    @Test func newFileGetsTheBytes() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("model.plist")
        try new.writeAtomically(toPath: path)
        #expect(FileTestSupport.contents(path) == new)
        #expect(dir.names() == ["model.plist"])
    }

    @Test func existingFileIsReplaced() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("model.plist")
        try FileTestSupport.create(path, old)
        let inodeBefore = try #require(FileTestSupport.status(path)).st_ino
        try AtomicFileWriter().write(new, toPath: path)
        #expect(FileTestSupport.contents(path) == new)
        // Replaced by rename: a new inode, so readers holding the old file keep the old bytes.
        #expect(try #require(FileTestSupport.status(path)).st_ino != inodeBefore)
        #expect(dir.names() == ["model.plist"])
    }

    @Test func urlDestinationWorks() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let url = URL(fileURLWithPath: dir.file("with space é.plist"))
        try new.writeAtomically(to: url)
        #expect(FileTestSupport.contents(url.path) == new)
    }

    @Test func nonFileURLIsRejected() throws {
        let url = try #require(URL(string: "https://example.com/model.plist"))
        #expect(throws: FileIOError.self) { try new.writeAtomically(to: url) }
        do {
            try new.writeAtomically(to: url)
        } catch {
            #expect(error.step == .validatePath)
            #expect(error.errno == EINVAL)
        }
    }

    @Test func emptyDataIsWrittenAndSynchronized() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("empty")
        try FileTestSupport.create(path, old)
        let log = HookLog()
        var hooks = SystemCallHooks()
        hooks.fsync = { fd in
            log.count(FileTestSupport.isDirectory(fd) ? "directory" : "file")
            return SystemCalls.realFsync(fd)
        }
        hooks.write = { fd, buffer in
            log.count("write")
            return SystemCalls.realWrite(fd, buffer)
        }
        #expect(atomicWrite(Data(), to: path, hooks: hooks) == nil)
        #expect(FileTestSupport.contents(path) == Data())
        #expect(log.value("file") == 1)
        #expect(log.value("directory") == 1)
        #expect(log.value("write") == 0)
    }

    @Test func nonContiguousBytesAreWrittenInOrder() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("regions")
        // DispatchData-like input: a DataProtocol with several regions.
        let parts = [Data("first,".utf8), Data(), Data("second,".utf8), Data("third".utf8)]
        let joined = parts.reduce(Data(), +)
        try AtomicFileWriter().write(MultiRegionBytes(regions: parts), toPath: path)
        #expect(FileTestSupport.contents(path) == joined)
    }

    @Test func withoutOverwritingCreatesANewFile() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("fresh")
        try new.writeAtomically(toPath: path, options: .withoutOverwriting)
        #expect(FileTestSupport.contents(path) == new)
        #expect(dir.names() == ["fresh"])
    }

    @Test func withoutOverwritingRefusesAnExistingFile() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("taken")
        try FileTestSupport.create(path, old)
        let error = try #require(atomicWrite(new, to: path, options: .withoutOverwriting))
        #expect(error.step == .rename)
        #expect(error.errno == EEXIST)
        #expect(error.path == path)
        #expect(FileTestSupport.contents(path) == old)
        #expect(dir.names() == ["taken"])
    }

    @Test func withoutOverwritingLosesARaceCleanly() throws {
        // Another writer creates the file between our check and our rename: the kernel refuses.
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("contested")
        let theirs = Data("the other writer won".utf8)
        var hooks = SystemCallHooks()
        hooks.renameatNoReplace = { from, source, to, destination in
            try? FileTestSupport.create(path, theirs)
            return SystemCalls.realRenameatNoReplace(from, source, to, destination)
        }
        let error = try #require(atomicWrite(new, to: path, options: .withoutOverwriting, hooks: hooks))
        #expect(error.step == .rename)
        #expect(error.errno == EEXIST)
        #expect(FileTestSupport.contents(path) == theirs)
        #expect(dir.names() == ["contested"])
    }

    @Test(arguments: [EINVAL, ENOSYS])
    func withoutOverwritingFallsBackToLink(unsupported: Int32) throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("linked")
        let log = HookLog()
        var hooks = SystemCallHooks()
        hooks.renameatNoReplace = { _, _, _, _ in
            log.count("renameat2")
            errno = unsupported
            return -1
        }
        hooks.linkat = { from, source, to, destination in
            log.count("link")
            return source.withCString { s in destination.withCString { d in linkat(from, s, to, d, 0) } }
        }
        #expect(atomicWrite(new, to: path, options: .withoutOverwriting, hooks: hooks) == nil)
        #expect(log.value("renameat2") == 1)
        #expect(log.value("link") == 1)
        #expect(FileTestSupport.contents(path) == new)
        #expect(dir.names() == ["linked"])
        #expect(try #require(FileTestSupport.status(path)).st_nlink == 1)
    }

    @Test func linkFallbackStillRefusesAnExistingFile() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("linked")
        let theirs = Data("already here".utf8)
        var hooks = SystemCallHooks()
        hooks.renameatNoReplace = { _, _, _, _ in
            // The file appears meanwhile, and this file system cannot do a no-replace rename.
            try? FileTestSupport.create(path, theirs)
            errno = EINVAL
            return -1
        }
        let error = try #require(atomicWrite(new, to: path, options: .withoutOverwriting, hooks: hooks))
        #expect(error.step == .rename)
        #expect(error.errno == EEXIST)
        #expect(FileTestSupport.contents(path) == theirs)
        #expect(dir.names() == ["linked"])
    }

    @Test func invalidPathsAreRejectedBeforeTouchingAnything() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let cases: [(String, Int32)] = [
            ("", ENOENT),                         // empty
            (dir.file("a\u{0}b"), EINVAL),        // NUL would cut the path short at "a"
            (dir.path + "/", EISDIR),             // names a directory
            (dir.path, EISDIR),                   // is a directory
        ]
        for (path, code) in cases {
            let error = try #require(atomicWrite(new, to: path))
            #expect(error.step == .validatePath, "\(path)")
            #expect(error.errno == code, "\(path): \(error)")
        }
        #expect(dir.names() == [])
    }

    @Test func fifoAtTheDestinationIsNotReplaced() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("fifo")
        try #require(mkfifo(path, 0o600) == 0)
        let error = try #require(atomicWrite(new, to: path))
        #expect(error.step == .validatePath)
        #expect(error.errno == EINVAL)
        #expect(try #require(FileTestSupport.status(path)).st_mode & S_IFMT == S_IFIFO)
        #expect(dir.names() == ["fifo"])
    }

    @Test func otherHardLinksKeepTheOldContents() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("model")
        try FileTestSupport.create(path, old)
        try #require(link(path, dir.file("backup")) == 0)
        try new.writeAtomically(toPath: path)
        #expect(FileTestSupport.contents(path) == new)
        #expect(FileTestSupport.contents(dir.file("backup")) == old)
    }

    @Test func missingDirectoryIsReportedWithItsPath() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("no/such/dir/file")
        let error = try #require(atomicWrite(new, to: path))
        #expect(error.step == .openDirectory)
        #expect(error.errno == ENOENT)
        #expect(error.description.contains(dir.file("no/such/dir")))
    }

    @Test func longNamesGetAShortenedTemporaryName() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let name = String(repeating: "é", count: 120) + "x"   // 241 bytes: "." + name + suffix would exceed 255
        let path = dir.file(name)
        let log = HookLog()
        var hooks = SystemCallHooks()
        hooks.openat = { directory, file, flags, mode in
            if flags & O_CREAT != 0 { log.append(file) }
            return SystemCalls.realOpenat(directory, file, flags, mode)
        }
        #expect(atomicWrite(new, to: path, hooks: hooks) == nil)
        #expect(FileTestSupport.contents(path) == new)
        let temporary = try #require(log.log.first)
        #expect(temporary.utf8.count <= 255)
        #expect(temporary.hasPrefix("." + String(repeating: "é", count: 116) + ".tmp-"))
    }

    @Test func temporaryNamesAreUnpredictableAndMatchThePattern() {
        let names = (0..<50).map { _ in AtomicFileWriter.temporaryName(for: "model.plist") }
        #expect(Set(names).count == 50)
        for name in names {
            #expect(AtomicFileWriter.isTemporaryName(name, prefix: ".model.plist.tmp-"), "\(name)")
        }
        #expect(!AtomicFileWriter.isTemporaryName(".model.plist.tmp-0123", prefix: ".model.plist.tmp-"))
        #expect(!AtomicFileWriter.isTemporaryName(".model.plist.tmp-0123456789ABCDEF", prefix: ".model.plist.tmp-"))
        #expect(!AtomicFileWriter.isTemporaryName(".model.plist.tmp-0123456789abcdefa", prefix: ".model.plist.tmp-"))
    }

    @Test func concurrentWritersLeaveOneCompleteFile() async throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("shared")
        let payloads = (0..<6).map { FileTestSupport.pseudoRandomBytes(count: 50_000 + $0 * 1000, seed: UInt64($0 + 100)) }
        await withTaskGroup(of: Void.self) { group in
            for payload in payloads {
                group.addTask {
                    for _ in 0..<10 { try? payload.writeAtomically(toPath: path) }
                }
            }
        }
        let final = try #require(FileTestSupport.contents(path))
        #expect(payloads.contains(final))
        #expect(dir.names() == ["shared"])
    }

    @Test func racingWritersWithoutOverwritingHaveExactlyOneWinner() async throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        for round in 0..<5 {
            let path = dir.file("claim-\(round)")
            let payloads = (0..<8).map { FileTestSupport.pseudoRandomBytes(count: 20_000, seed: UInt64(round * 100 + $0 + 1)) }
            let outcomes = await withTaskGroup(of: (Int, Int32?).self) { group in
                for (index, payload) in payloads.enumerated() {
                    group.addTask { () -> (Int, Int32?) in
                        do throws(FileIOError) {
                            try payload.writeAtomically(toPath: path, options: .withoutOverwriting)
                            return (index, nil)
                        } catch {
                            return (index, error.errno)
                        }
                    }
                }
                return await group.reduce(into: [(Int, Int32?)]()) { $0.append($1) }
            }
            let winners = outcomes.filter { $0.1 == nil }.map { $0.0 }
            #expect(winners.count == 1, "round \(round): \(outcomes)")
            #expect(outcomes.allSatisfy { $0.1 == nil || $0.1 == EEXIST })
            if let winner = winners.first {
                #expect(FileTestSupport.contents(path) == payloads[winner])
            }
        }
        #expect(dir.names() == (0..<5).map { "claim-\($0)" })
    }

    @Test func errorDescriptionNamesStepPathAndReason() {
        let error = FileIOError(step: .write, path: "/data/model.plist", errno: ENOSPC,
                                detail: "temporary file /data/.model.plist.tmp-0123456789abcdef", isWrite: true)
        #expect(error.errnoName == "ENOSPC")
        #expect(error.reason == String(cString: strerror(ENOSPC)))
        #expect(error.description == "atomic write to /data/model.plist failed at step \"write\" "
                + "(temporary file /data/.model.plist.tmp-0123456789abcdef): ENOSPC: \(error.reason)")
        let read = FileIOError(step: .open, path: "/x", errno: 99_999, isWrite: false)
        #expect(read.errnoName == "errno 99999")
        #expect(read.description.hasPrefix("reading /x failed at step \"open\": errno 99999: "))
    }

    // MARK: - Symbolic links

    @Test func symbolicLinkIsKeptAndItsTargetReplaced() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let target = dir.file("real.plist")
        let link = dir.file("link.plist")
        try FileTestSupport.create(target, old, mode: 0o600)
        try #require(symlink("real.plist", link) == 0)
        try new.writeAtomically(toPath: link)
        #expect(try #require(FileTestSupport.status(link)).isSymbolicLink)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "real.plist")
        #expect(FileTestSupport.contents(target) == new)
        #expect(FileTestSupport.permissions(target) == 0o600)
        #expect(dir.names() == ["link.plist", "real.plist"])
    }

    @Test func chainOfLinksAcrossDirectoriesIsFollowed() throws {
        let root = ScratchDirectory()
        defer { root.remove() }
        try FileManager.default.createDirectory(atPath: root.file("a"), withIntermediateDirectories: false)
        try FileManager.default.createDirectory(atPath: root.file("b"), withIntermediateDirectories: false)
        let target = root.file("b/target.bin")
        try FileTestSupport.create(target, old)
        try #require(symlink("../b/hop", root.file("a/start")) == 0)    // relative to a/
        try #require(symlink("target.bin", root.file("b/hop")) == 0)    // relative to b/
        try new.writeAtomically(toPath: root.file("a/start"))
        #expect(FileTestSupport.contents(target) == new)
        #expect(try #require(FileTestSupport.status(root.file("a/start"))).isSymbolicLink)
        #expect(try #require(FileTestSupport.status(root.file("b/hop"))).isSymbolicLink)
        // The temporary file was made next to the target, and is gone.
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.file("b")).sorted() == ["hop", "target.bin"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.file("a")) == ["start"])
    }

    @Test func danglingLinkCreatesItsTarget() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let link = dir.file("link")
        try #require(symlink(dir.file("created-later"), link) == 0)  // absolute target
        try new.writeAtomically(toPath: link)
        #expect(try #require(FileTestSupport.status(link)).isSymbolicLink)
        #expect(FileTestSupport.contents(dir.file("created-later")) == new)
        #expect(try #require(FileTestSupport.status(dir.file("created-later"))).isRegularFile)
    }

    @Test func linkLoopFailsWithELOOP() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        try #require(symlink("b", dir.file("a")) == 0)
        try #require(symlink("a", dir.file("b")) == 0)
        let error = try #require(atomicWrite(new, to: dir.file("a")))
        #expect(error.step == .resolveSymbolicLink)
        #expect(error.errno == ELOOP)
        #expect(dir.names() == ["a", "b"])
    }

    @Test func linkWhoseTargetIsNotUTF8IsRejected() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        // "caf\xE9": Latin-1, not UTF-8; decoding it into a String would name a different file.
        let target: [CChar] = [0x63, 0x61, 0x66, CChar(bitPattern: 0xE9), 0]
        try #require(symlink(target, dir.file("link")) == 0)
        let error = try #require(atomicWrite(new, to: dir.file("link")))
        #expect(error.step == .resolveSymbolicLink)
        #expect(error.errno == EILSEQ)
        #expect(dir.names() == ["link"])
    }

    @Test func linkToDirectoryIsRejected() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.file("sub"), withIntermediateDirectories: false)
        try #require(symlink("sub", dir.file("link")) == 0)
        let error = try #require(atomicWrite(new, to: dir.file("link")))
        #expect(error.errno == EISDIR)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("sub")) == [])
    }

    @Test func withoutOverwritingTreatsAnyLinkAsExisting() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        try #require(symlink("nowhere", dir.file("dangling")) == 0)
        let error = try #require(atomicWrite(new, to: dir.file("dangling"), options: .withoutOverwriting))
        #expect(error.errno == EEXIST)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir.file("dangling")) == "nowhere")
        #expect(dir.names() == ["dangling"])
    }

    // MARK: - Stale temporary files

    @Test func staleTemporaryFilesAreRemovedAndNothingElse() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("model.plist")
        try FileTestSupport.create(path, old)
        let staleA = ".model.plist.tmp-0123456789abcdef"
        let staleB = ".model.plist.tmp-fedcba9876543210"
        let fresh = ".model.plist.tmp-00000000000000ff"
        let keep = [
            ".model.plist.tmp-0123",               // too short
            ".model.plist.tmp-0123456789ABCDEF",   // upper case: not ours
            ".other.plist.tmp-0123456789abcdef",   // another destination's
            "model.plist.tmp-0123456789abcdef",    // no leading dot
            ".model.plist.tmp-0123456789abcdef0",  // too long
        ]
        for name in [staleA, staleB, fresh] + keep { try FileTestSupport.create(dir.file(name), Data("x".utf8)) }
        // A directory and a symbolic link with our pattern are not removed either.
        let directoryName = ".model.plist.tmp-1111111111111111"
        try FileManager.default.createDirectory(atPath: dir.file(directoryName), withIntermediateDirectories: false)
        let linkName = ".model.plist.tmp-2222222222222222"
        try #require(symlink("model.plist", dir.file(linkName)) == 0)
        // Age everything but `fresh` by two hours.
        let past = Date(timeIntervalSinceNow: -7200)
        for name in [staleA, staleB, directoryName] + keep {
            try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: dir.file(name))
        }

        let removed = try AtomicFileWriter.removeStaleTemporaryFiles(for: path, olderThan: .seconds(3600))
        #expect(removed.sorted() == [dir.file(staleA), dir.file(staleB)])
        #expect(dir.names() == ([fresh, directoryName, linkName, "model.plist"] + keep).sorted())
        #expect(FileTestSupport.contents(path) == old)

        let removedNow = try AtomicFileWriter.removeStaleTemporaryFiles(for: path, olderThan: .zero)
        #expect(removedNow == [dir.file(fresh)])
    }

    @Test func staleCleanupFollowsTheLinkLikeTheWriter() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        try FileManager.default.createDirectory(atPath: dir.file("data"), withIntermediateDirectories: false)
        try FileTestSupport.create(dir.file("data/real"), old)
        try #require(symlink("data/real", dir.file("link")) == 0)
        try FileTestSupport.create(dir.file("data/.real.tmp-0123456789abcdef"), old)
        try FileTestSupport.create(dir.file(".link.tmp-0123456789abcdef"), old)
        let removed = try AtomicFileWriter.removeStaleTemporaryFiles(for: dir.file("link"), olderThan: .zero)
        #expect(removed == [dir.file("data/.real.tmp-0123456789abcdef")])
        #expect(dir.names() == [".link.tmp-0123456789abcdef", "data", "link"])
    }

    @Test func staleCleanupReportsAMissingDirectory() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        #expect(throws: FileIOError.self) {
            try AtomicFileWriter.removeStaleTemporaryFiles(for: dir.file("gone/model"), olderThan: .zero)
        }
    }
}

/// A `DataProtocol` value made of several separate regions.
struct MultiRegionBytes: DataProtocol {
    var regions: [Data]
    var startIndex: Int { 0 }
    var endIndex: Int { regions.reduce(0) { $0 + $1.count } }
    subscript(position: Int) -> UInt8 {
        var offset = position
        for region in regions {
            if offset < region.count { return region[region.startIndex + offset] }
            offset -= region.count
        }
        return 0
    }
}
