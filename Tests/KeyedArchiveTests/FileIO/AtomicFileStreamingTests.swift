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

@Suite struct AtomicFileStreamingTests {
    let old = Data("the previous contents, which must survive".utf8)
    let new = FileTestSupport.pseudoRandomBytes(count: 300_000, seed: 11)

    /// Streams `bytes` in chunks of `chunk` bytes through ``AtomicFileWriter/write(toPath:streaming:)``.
    private func stream(_ bytes: Data, chunk: Int, to path: String, hooks: SystemCallHooks = SystemCallHooks(),
                        thenThrow: (any Error)? = nil) throws {
        try SystemCallHooks.$current.withValue(hooks) {
            try AtomicFileWriter().write(toPath: path) { write in
                var offset = 0
                while offset < bytes.count {
                    let end = min(offset + chunk, bytes.count)
                    try bytes[offset ..< end].withUnsafeBytes { try write($0) }
                    offset = end
                }
                if let thenThrow { throw thenThrow }
            }
        }
    }

    @Test func streamedChunksReplaceTheFile() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("out.txt")
        try FileTestSupport.create(path, old, mode: 0o640)
        try stream(new, chunk: 7_000, to: path)
        #expect(FileTestSupport.contents(path) == new)
        #expect(FileTestSupport.permissions(path) == 0o640)
        #expect(dir.names() == ["out.txt"])
        try stream(Data(), chunk: 1, to: path)
        #expect(FileTestSupport.contents(path) == Data())
    }

    struct Abandoned: Error {}

    @Test func anErrorFromTheProducerKeepsTheOldFileAndLeavesNoTemporaryFile() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("out.txt")
        try FileTestSupport.create(path, old)
        #expect(throws: Abandoned.self) { try stream(new, chunk: 10_000, to: path, thenThrow: Abandoned()) }
        #expect(FileTestSupport.contents(path) == old)
        #expect(dir.names() == ["out.txt"])
    }

    @Test(arguments: [EIO, ENOSPC])
    func aFailedWriteKeepsTheOldFileEvenWhenTheProducerGoesOn(code: Int32) throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("out.txt")
        try FileTestSupport.create(path, old)
        let hooks = InjectedFault.write.hooks(failingWith: code)
        // The producer swallows the failure and returns: the write still fails, at the write step.
        let error = try #require(throws: FileIOError.self) {
            try SystemCallHooks.$current.withValue(hooks) {
                try AtomicFileWriter().write(toPath: path) { write in
                    for _ in 0 ..< 3 { try? new.withUnsafeBytes { try write($0) } }
                }
            }
        }
        #expect(error.step == .write)
        #expect(error.errno == code)
        #expect(FileTestSupport.contents(path) == old)
        #expect(dir.names() == ["out.txt"])
        // A producer that lets the failure through gets it thrown back.
        let rethrown = try #require(throws: FileIOError.self) { try stream(new, chunk: 50_000, to: path, hooks: hooks) }
        #expect(rethrown.errno == code)
        #expect(FileTestSupport.contents(path) == old)
        #expect(dir.names() == ["out.txt"])
    }
}
