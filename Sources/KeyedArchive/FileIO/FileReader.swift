#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads whole files into `Data`, memory-mapping large ones.
///
/// Small files (below ``Options/mappingThreshold``, 1 MiB by default) are read with `read()`. Larger
/// regular files are mapped (`mmap`, `MAP_PRIVATE`) where that is safe: on Apple platforms, as Foundation's
/// `.mappedIfSafe` decides, only a file of a data protection class other than A, on a local, non-removable
/// volume, and not compressed (a page read after the device locks, or from a volume that went away, would
/// kill the process with `SIGBUS`); other files are read. The returned `Data` shares the mapping
/// without copying, stays valid as long as any copy of it lives, and unmaps it when the last is released.
/// Values read from it by ``BinaryPropertyListReader`` and ``KeyedUnarchiver`` (data values are slices of
/// it) count as such copies: the mapping lives until the last of them is gone. The mapping is private and
/// writable, so mutating the returned `Data` changes the process's copy of the pages, never the file.
/// Files that are not regular (pipes, devices, `/proc` files) are always read until end of file.
///
/// **The mapping caveat.** A mapped file must not shrink while mapped: reading a page past its new end
/// raises `SIGBUS` and kills the process. Files written by ``AtomicFileWriter`` are safe, because it
/// never changes a file in place (it renames a new file over the old one, and the mapping keeps the
/// old one alive). For files that other programs truncate or rewrite in place, or on network file
/// systems, use ``Options/Mapping/never``. The reader checks the size again after mapping and reads
/// instead when it changed, which narrows the window but cannot close it.
///
/// The corresponding Foundation API is `Data(contentsOf:options: .mappedIfSafe)`.
public struct FileReader: Sendable {
    /// Options for reading a file.
    public struct Options: Sendable, Hashable {
        /// When to memory-map a file.
        public enum Mapping: Sendable, Hashable {
            /// Map regular files of at least ``Options/mappingThreshold`` bytes where mapping is safe (see
            /// ``FileReader``); read the others.
            case automatic
            /// Always read (copy) the bytes: for files that may shrink while in use.
            case never
        }

        /// When to map; ``Mapping/automatic`` by default.
        public var mapping: Mapping = .automatic
        /// The size from which ``Mapping/automatic`` maps a file. Default: 1 MiB.
        public var mappingThreshold: Int = 1 << 20
        /// The largest file accepted, in bytes; larger files fail with `EFBIG`. Default: no limit
        /// beyond the address space.
        public var maximumSize: Int = Int.max

        /// The default options.
        public init() {}

        /// Options with the given values.
        public init(mapping: Mapping = .automatic, mappingThreshold: Int = 1 << 20, maximumSize: Int = Int.max) {
            self.mapping = mapping
            self.mappingThreshold = mappingThreshold
            self.maximumSize = maximumSize
        }
    }

    /// The options used by ``read(atPath:)``.
    public var options: Options

    /// A reader with the given options.
    public init(options: Options = .init()) {
        self.options = options
    }

    /// Reads the whole file at `url`.
    ///
    /// - Parameter url: a `file:` URL.
    /// - Returns: the file's bytes (memory-mapped for large files; see the type's notes).
    /// - Throws: ``FileIOError`` naming the step (``FileIOError/Step/open``, ``FileIOError/Step/read``...),
    ///   the path and the system's reason.
    public func read(at url: URL) throws(FileIOError) -> Data {
        try read(atPath: FilePath.path(of: url, isWrite: false))
    }

    /// Reads the whole file at `path`.
    ///
    /// - Parameter path: the file; symbolic links are followed.
    /// - Returns: the file's bytes (memory-mapped for large files; see the type's notes).
    /// - Throws: ``FileIOError`` naming the step (``FileIOError/Step/open``, ``FileIOError/Step/read``...),
    ///   the path and the system's reason; `EISDIR` for a directory, `EFBIG` above ``Options/maximumSize``.
    public func read(atPath path: String) throws(FileIOError) -> Data {
        try FilePath.validate(path, step: .open, isWrite: false)
        let fd = AtomicFileWriter.retryingEINTR { SystemCalls.openat(AT_FDCWD, path, O_RDONLY | O_CLOEXEC, 0) }
        guard fd >= 0 else {
            throw FileIOError(step: .open, path: path, errno: SystemCalls.lastError, isWrite: false)
        }
        defer { _ = SystemCalls.close(fd) }

        guard let status = SystemCalls.fstat(fd) else {
            throw FileIOError(step: .status, path: path, errno: SystemCalls.lastError, isWrite: false)
        }
        if status.isDirectory {
            throw FileIOError(step: .open, path: path, errno: EISDIR, isWrite: false)
        }
        guard status.isRegularFile else {
            // Pipes, devices and /proc files report no useful size: read to the end.
            return try readToEnd(fd, path: path, expectedSize: 0)
        }
        let maximum = max(0, options.maximumSize)
        guard status.st_size >= 0, status.st_size <= Int64(maximum), let size = Int(exactly: status.st_size) else {
            throw FileIOError(step: .status, path: path, errno: EFBIG,
                              detail: "the file has \(status.st_size) bytes; the limit is \(maximum)", isWrite: false)
        }
        if options.mapping == .automatic, size > 0, size >= options.mappingThreshold,
           SystemCalls.mappingFacts(fd)?.isSafeToMap ?? true, let mapped = Self.map(fd, size: size) {
            return mapped
        }
        return try readToEnd(fd, path: path, expectedSize: size)
    }

    /// Maps `size` bytes of `fd`, or returns `nil` (to fall back to reading) when mapping fails or the
    /// file's size changed meanwhile.
    static func map(_ fd: Int32, size: Int) -> Data? {
        guard let pointer = SystemCalls.mmap(fd, size) else { return nil }
        guard let after = SystemCalls.fstat(fd), after.st_size == Int64(size) else {
            SystemCalls.munmap(pointer, size)
            return nil
        }
        return Data(bytesNoCopy: pointer, count: size, deallocator: .custom { pointer, count in
            SystemCalls.munmap(pointer, count)
        })
    }

    /// Reads from `fd` until end of file into one buffer, growing it when the file grew; never beyond
    /// ``Options/maximumSize``. Package access: `archive-dump` reads standard input with it.
    package func readToEnd(_ fd: Int32, path: String, expectedSize: Int) throws(FileIOError) -> Data {
        let maximum = max(0, options.maximumSize)
        // Room for one byte past the limit, to tell "exactly the limit" from "too big".
        let hardCap = maximum == Int.max ? Int.max : maximum + 1
        // One byte more than expected, so that reaching the end needs no second buffer.
        var capacity = expectedSize > 0 && expectedSize < Int.max ? expectedSize + 1 : 16 * 1024
        capacity = max(1, min(capacity, hardCap))
        guard var buffer = malloc(capacity) else {
            throw FileIOError(step: .read, path: path, errno: ENOMEM, detail: "allocating \(capacity) bytes", isWrite: false)
        }
        var count = 0
        while true {
            if count == capacity {
                if capacity >= hardCap { break }
                let (doubled, overflow) = capacity.multipliedReportingOverflow(by: 2)
                let newCapacity = overflow ? hardCap : min(doubled, hardCap)
                guard let grown = realloc(buffer, newCapacity) else {
                    free(buffer)
                    throw FileIOError(step: .read, path: path, errno: ENOMEM,
                                      detail: "growing the buffer to \(newCapacity) bytes", isWrite: false)
                }
                buffer = grown
                capacity = newCapacity
            }
            let result = SystemCalls.read(fd, UnsafeMutableRawBufferPointer(start: buffer + count, count: capacity - count))
            if result < 0 {
                let code = SystemCalls.lastError
                if code == EINTR { continue }
                free(buffer)
                throw FileIOError(step: .read, path: path, errno: code, detail: "after \(count) bytes", isWrite: false)
            }
            if result == 0 { break }
            count += min(result, capacity - count)
        }
        if count > maximum {
            free(buffer)
            throw FileIOError(step: .read, path: path, errno: EFBIG,
                              detail: "the file is larger than the limit of \(maximum) bytes", isWrite: false)
        }
        if count > 0 && capacity - count > capacity / 4, let shrunk = realloc(buffer, count) {
            buffer = shrunk
        }
        if count == 0 {
            free(buffer)
            return Data()
        }
        return Data(bytesNoCopy: buffer, count: count, deallocator: .free)
    }
}
