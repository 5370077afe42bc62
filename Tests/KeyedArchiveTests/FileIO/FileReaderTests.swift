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

@Suite struct FileReaderTests {
    /// Reads `path` under `hooks`, returning the data or the error.
    func read(_ path: String, options: FileReader.Options = .init(),
              hooks: SystemCallHooks = SystemCallHooks()) -> Result<Data, FileIOError> {
        SystemCallHooks.$current.withValue(hooks) {
            Result { () throws(FileIOError) -> Data in try FileReader(options: options).read(atPath: path) }
        }
    }

    /// Hooks that count mmap calls (and pass them through). No file-system facts are gathered, so a large
    /// regular file is mapped on every platform (on Darwin whether the scratch volume allows it is
    /// FileMappingDecisionTests' subject).
    func countingMaps(_ log: HookLog) -> SystemCallHooks {
        var hooks = SystemCallHooks()
        hooks.mappingFacts = { _ in nil }
        hooks.mmap = { fd, length in
            log.count("mmap")
            return SystemCalls.realMmap(fd, length)
        }
        return hooks
    }

    @Test func smallFileIsReadWithoutMapping() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let bytes = FileTestSupport.pseudoRandomBytes(count: 10_000, seed: 1)
        try FileTestSupport.create(dir.file("small"), bytes)
        let log = HookLog()
        let data = try read(dir.file("small"), hooks: countingMaps(log)).get()
        #expect(data == bytes)
        #expect(log.value("mmap") == 0)
    }

    @Test func largeFileIsMappedAndStaysValidAfterTheFileIsReplaced() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("large")
        let bytes = FileTestSupport.pseudoRandomBytes(count: 3 << 20, seed: 2)
        try FileTestSupport.create(path, bytes)
        let log = HookLog()
        let data = try read(path, hooks: countingMaps(log)).get()
        #expect(log.value("mmap") == 1)
        // An atomic replace makes a new file; the mapping keeps the old one alive and unchanged.
        try Data("replaced".utf8).writeAtomically(toPath: path)
        try #require(unlink(path) == 0)
        #expect(data.count == bytes.count)
        #expect(data == bytes)
        #expect(data.suffix(10) == bytes.suffix(10))
    }

    #if os(Linux)
    @Test func mappingIsReleasedWithTheLastCopyOfTheData() throws {
        // Observed through the hooks rather than /proc/self/maps: on this kernel a reading of that
        // file, taken while other tests' threads map and unmap memory, can miss a live mapping or
        // show one already gone, and the freed address is soon reused by another test's mapping.
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("mapped-and-released")
        let bytes = FileTestSupport.pseudoRandomBytes(count: 2 << 20, seed: 3)
        try FileTestSupport.create(path, bytes)
        let log = HookLog()
        var hooks = SystemCallHooks()
        hooks.mmap = { fd, length in
            let pointer = SystemCalls.realMmap(fd, length)
            log.append("mmap \(UInt(bitPattern: pointer)) \(length)")
            return pointer
        }
        hooks.munmap = { pointer, length in
            let result = SystemCalls.realMunmap(pointer, length)
            log.append("munmap \(UInt(bitPattern: pointer)) \(length) -> \(result)")
            return result
        }
        try SystemCallHooks.$current.withValue(hooks) {
            var address: UInt = 0
            do {
                let slice = try { () throws -> Data in
                    let data = try FileReader().read(atPath: path)
                    // The bytes are the mapping itself, not a copy of it.
                    address = data.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
                    #expect(log.log == ["mmap \(address) \(bytes.count)"])
                    return data[1000..<2000]
                }()
                // The whole is gone; the slice alone keeps the mapping alive.
                #expect(log.log.count == 1)
                #expect(slice == bytes[1000..<2000])
            }
            #expect(log.log == ["mmap \(address) \(bytes.count)", "munmap \(address) \(bytes.count) -> 0"])
        }
    }
    @Test(.enabled(if: access("/proc/self/status", R_OK) == 0, "needs /proc/self/status"))
    func procFileWithZeroSizeIsReadToTheEnd() throws {
        // /proc files say they are empty regular files; their contents appear only when read.
        let path = "/proc/self/status"
        let text = String(decoding: try FileReader().read(atPath: path), as: UTF8.self)
        #expect(text.hasPrefix("Name:"))
        #expect(text.contains("\nPid:"))
    }
    #endif

    @Test func mappingPolicyNeverCopies() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let bytes = FileTestSupport.pseudoRandomBytes(count: 2 << 20, seed: 4)
        try FileTestSupport.create(dir.file("f"), bytes)
        let log = HookLog()
        let data = try read(dir.file("f"), options: .init(mapping: .never), hooks: countingMaps(log)).get()
        #expect(data == bytes)
        #expect(log.value("mmap") == 0)
    }

    @Test func thresholdDecidesWhenToMap() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let bytes = FileTestSupport.pseudoRandomBytes(count: 5000, seed: 5)
        try FileTestSupport.create(dir.file("f"), bytes)
        let log = HookLog()
        #expect(try read(dir.file("f"), options: .init(mappingThreshold: 5000), hooks: countingMaps(log)).get() == bytes)
        #expect(log.value("mmap") == 1)
        #expect(try read(dir.file("f"), options: .init(mappingThreshold: 5001), hooks: countingMaps(log)).get() == bytes)
        #expect(log.value("mmap") == 1)
    }

    @Test func failedMappingFallsBackToReading() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let bytes = FileTestSupport.pseudoRandomBytes(count: 2 << 20, seed: 6)
        try FileTestSupport.create(dir.file("f"), bytes)
        var hooks = SystemCallHooks()
        hooks.mmap = { _, _ in errno = ENODEV; return nil }
        #expect(try read(dir.file("f"), hooks: hooks).get() == bytes)
    }

    @Test func fileThatShrinksWhileBeingMappedIsReadInstead() throws {
        // The size is checked again after mapping; when it changed, the mapping (whose tail would
        // now raise SIGBUS) is dropped and the file is read.
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("shrinking")
        let bytes = FileTestSupport.pseudoRandomBytes(count: 2 << 20, seed: 7)
        try FileTestSupport.create(path, bytes)
        var hooks = SystemCallHooks()
        hooks.mmap = { fd, length in
            let pointer = SystemCalls.realMmap(fd, length)
            _ = truncate(path, 1 << 20)   // another program truncates the file in place
            return pointer
        }
        let data = try read(path, hooks: hooks).get()
        #expect(data == bytes.prefix(1 << 20))
    }

    @Test func emptyFileIsEmptyData() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        try FileTestSupport.create(dir.file("empty"), Data())
        #expect(try read(dir.file("empty")).get() == Data())
        #expect(try read(dir.file("empty"), options: .init(mappingThreshold: 0)).get() == Data())
    }

    @Test func missingFileNamesPathAndReason() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("absent.plist")
        guard case .failure(let error) = read(path) else {
            Issue.record("reading a missing file succeeded")
            return
        }
        #expect(error.step == .open)
        #expect(error.errno == ENOENT)
        #expect(error.path == path)
        #expect(error.description == "reading \(path) failed at step \"open\": ENOENT: \(String(cString: strerror(ENOENT)))")
    }

    @Test func directoryIsRejected() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        guard case .failure(let error) = read(dir.path) else {
            Issue.record("reading a directory succeeded")
            return
        }
        #expect(error.errno == EISDIR)
    }

    @Test func readErrorsAreReportedWithTheByteCount() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        try FileTestSupport.create(dir.file("f"), FileTestSupport.pseudoRandomBytes(count: 50_000, seed: 8))
        let log = HookLog()
        var hooks = SystemCallHooks()
        hooks.read = { fd, buffer in
            // One short read, one interruption, then a device error.
            switch log.count("read") {
            case 1: return SystemCalls.realRead(fd, UnsafeMutableRawBufferPointer(rebasing: buffer[..<100]))
            case 2: errno = EINTR; return -1
            default: errno = EIO; return -1
            }
        }
        guard case .failure(let error) = read(dir.file("f"), hooks: hooks) else {
            Issue.record("the read should have failed")
            return
        }
        #expect(error.step == .read)
        #expect(error.errno == EIO)
        #expect(error.detail == "after 100 bytes")
        #expect(log.value("read") == 3)
    }

    @Test func shortReadsAreContinued() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let bytes = FileTestSupport.pseudoRandomBytes(count: 50_000, seed: 9)
        try FileTestSupport.create(dir.file("f"), bytes)
        var hooks = SystemCallHooks()
        hooks.read = { fd, buffer in
            SystemCalls.realRead(fd, UnsafeMutableRawBufferPointer(rebasing: buffer[..<min(777, buffer.count)]))
        }
        #expect(try read(dir.file("f"), hooks: hooks).get() == bytes)
    }

    @Test func maximumSizeIsEnforced() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let bytes = FileTestSupport.pseudoRandomBytes(count: 100, seed: 10)
        try FileTestSupport.create(dir.file("f"), bytes)
        #expect(try read(dir.file("f"), options: .init(maximumSize: 100)).get() == bytes)
        guard case .failure(let error) = read(dir.file("f"), options: .init(maximumSize: 99)) else {
            Issue.record("a file above the limit was read")
            return
        }
        #expect(error.errno == EFBIG)
        #expect(error.step == .status)
    }

    @Test func fileThatGrowsWhileReadIsReadToTheEnd() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("growing")
        let first = FileTestSupport.pseudoRandomBytes(count: 1000, seed: 11)
        let more = FileTestSupport.pseudoRandomBytes(count: 40_000, seed: 12)
        try FileTestSupport.create(path, first)
        /// Hooks under which another program appends `more` right after our fstat.
        func appendingOnFirstRead() -> SystemCallHooks {
            let log = HookLog()
            var hooks = SystemCallHooks()
            hooks.read = { fd, buffer in
                if log.count("read") == 1, let handle = FileHandle(forWritingAtPath: path) {
                    handle.seekToEndOfFile()
                    handle.write(more)
                    handle.closeFile()
                }
                return SystemCalls.realRead(fd, buffer)
            }
            return hooks
        }
        #expect(try read(path, hooks: appendingOnFirstRead()).get() == first + more)
        // The same growth past a limit is refused.
        try FileTestSupport.create(path, first)
        guard case .failure(let error) = read(path, options: .init(maximumSize: 20_000), hooks: appendingOnFirstRead()) else {
            Issue.record("growth past the limit was accepted")
            return
        }
        #expect(error.errno == EFBIG)
        #expect(error.step == .read)
    }

    @Test func pipeIsReadUntilEndOfFile() async throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let fifo = dir.file("fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        let bytes = FileTestSupport.pseudoRandomBytes(count: 200_000, seed: 13)
        let writer = Thread {
            let fd = open(fifo, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { return }
            bytes.withUnsafeBytes { buffer in
                guard let base = buffer.baseAddress else { return }
                var offset = 0
                while offset < buffer.count {
                    let n = write(fd, base + offset, buffer.count - offset)
                    if n <= 0 { break }
                    offset += n
                }
            }
            close(fd)
        }
        writer.start()
        #expect(try FileReader().read(atPath: fifo) == bytes)
    }

    @Test func urlsAreAccepted() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let bytes = Data("hello".utf8)
        try FileTestSupport.create(dir.file("a b"), bytes)
        #expect(try FileReader().read(at: URL(fileURLWithPath: dir.file("a b"))) == bytes)
        let web = try #require(URL(string: "https://example.com/x"))
        #expect(throws: FileIOError.self) { try FileReader().read(at: web) }
    }
}
