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

/// Writes files so that readers, crashes and full disks only ever see the old file or the new one.
///
/// A write creates a temporary file next to the destination, writes and flushes it, and renames it
/// over the destination; the rename is atomic, so the destination is never half-written. In detail:
///
/// 1. The destination's directory is opened; the temporary file is created in it with
///    `O_CREAT|O_EXCL|O_CLOEXEC` under an unpredictable name, `.<name>.tmp-<16 hex digits>`
///    (a new name is drawn if that one exists).
/// 2. When a file is replaced, the temporary file gets its permission bits (`fchmod`) and, when
///    running as root, its owner and group (`fchown`). A new file gets ``newFilePermissions``
///    (default `0666`) minus the umask, never more.
/// 3. All bytes are written (short writes and `EINTR` are retried), then flushed with `fsync`
///    (`F_FULLFSYNC` on Apple platforms) — also when there are no bytes — and the file is closed.
/// 4. The temporary file is renamed over the destination, and the directory is flushed so the rename
///    itself survives a power loss.
///
/// If any step before the rename fails, the temporary file is removed, the destination is untouched,
/// and a ``FileIOError`` names the step, the path and the system's reason. If only the final directory
/// flush fails (``FileIOError/Step/synchronizeDirectory``), the new contents are already in place.
/// A process killed mid-write leaves its temporary file behind; see ``removeStaleTemporaryFiles(for:olderThan:)``.
///
/// **Symbolic links.** When the destination is a symbolic link, the link is kept and the file it points
/// to (following a chain of links, at most 40) is replaced; the temporary file is created in the target's
/// directory. A dangling link's target is created, as a shell's `>` would. (Foundation on Linux, as of
/// Swift 6.3, instead replaces the link itself with a regular file and leaves the target as it was.) With ``Options/withoutOverwriting`` links are not
/// followed: any existing name, including a link, counts as existing.
///
/// **What is not kept.** Only regular files are replaced (a FIFO, socket or device at the destination
/// fails with `EINVAL`, a directory with `EISDIR`). The new file is a new inode: other hard links to
/// the old file keep the old contents, and extended attributes and ACLs of the old file are not copied
/// (a new file gets the directory's default ACL, if any). Permission bits are kept (Foundation on Linux
/// gives the replacement the umask's default instead, so a `0600` file becomes `0644`), and so are
/// owner and group when running as root (other users cannot give files away).
///
/// The corresponding Foundation API is `Data.write(to:options: .atomic)`.
public struct AtomicFileWriter: Sendable {
    /// Options for an atomic write.
    public struct Options: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Refuse to replace an existing file: the write fails with `EEXIST` (step
        /// ``FileIOError/Step/rename``) if anything exists at the destination path, including a symbolic
        /// link. The check and the rename are one atomic step (`renameat2(RENAME_NOREPLACE)` on Linux,
        /// `renameatx_np(RENAME_EXCL)` on Apple platforms, or `link`+`unlink` where the file system lacks
        /// those), so two writers racing for the same new name cannot both succeed.
        ///
        /// Foundation's `.withoutOverwriting` cannot be combined with `.atomic` (it traps); this can.
        public static let withoutOverwriting = Options(rawValue: 1 << 0)
    }

    /// The options used by ``write(_:toPath:)``.
    public var options: Options

    /// The permission bits a write gives a file it creates, before the umask removes bits from them
    /// (as the mode argument of `open(2)` does). Default `0o666`; `0o600` keeps a new file private to
    /// its owner whatever the umask. Only the bits in `0o777` are used.
    ///
    /// A file that is replaced keeps its own permission bits; this setting does not change them.
    /// The corresponding Foundation API is the `.posixPermissions` attribute of
    /// `FileManager.createFile(atPath:contents:attributes:)` (which is not atomic).
    public var newFilePermissions: UInt16

    /// A writer with the given options.
    /// - Parameters:
    ///   - options: for example ``Options/withoutOverwriting``.
    ///   - newFilePermissions: the permission bits of a file the write creates, before the umask
    ///     (see ``newFilePermissions``).
    public init(options: Options = [], newFilePermissions: UInt16 = 0o666) {
        self.options = options
        self.newFilePermissions = newFilePermissions
    }

    /// Atomically replaces (or creates) the file at `url` with `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: the new contents.
    ///   - url: a `file:` URL.
    /// - Throws: ``FileIOError`` naming the failed step, the path and the system's reason; the old file
    ///   is then untouched (except after ``FileIOError/Step/synchronizeDirectory``, see the type's notes).
    public func write<Bytes: DataProtocol>(_ bytes: Bytes, to url: URL) throws(FileIOError) {
        try write(bytes, toPath: FilePath.path(of: url, isWrite: true))
    }

    /// Atomically replaces (or creates) the file at `path` with `bytes`.
    ///
    /// - Parameters:
    ///   - bytes: the new contents.
    ///   - path: the destination; relative paths are relative to the current directory.
    /// - Throws: ``FileIOError`` naming the failed step, the path and the system's reason; the old file
    ///   is then untouched (except after ``FileIOError/Step/synchronizeDirectory``, see the type's notes).
    public func write<Bytes: DataProtocol>(_ bytes: Bytes, toPath path: String) throws(FileIOError) {
        do {
            try replace(path) { fd in Self.writeAll(bytes, to: fd) }
        } catch let error as FileIOError {
            throw error
        } catch {
            // Only `fill` throws other errors, and this one does not throw.
            throw FileIOError(step: .write, path: path, errno: EIO, detail: "\(error)", isWrite: true)
        }
    }

    /// Atomically replaces (or creates) the file at `path` with the bytes `produce` passes to `write`, which
    /// go to the temporary file as they come, so contents of any size are written without being held in
    /// memory. The steps and guarantees are those of ``write(_:toPath:)``: until `produce` returns and the
    /// file is flushed and renamed, the destination is untouched.
    ///
    /// - Parameters:
    ///   - path: the destination; relative paths are relative to the current directory.
    ///   - produce: writes the contents by calling `write` any number of times. If `write` fails it throws
    ///     a ``FileIOError`` (step ``FileIOError/Step/write``) and every later call throws too; if
    ///     `produce` throws, or returns after a failed `write`, the temporary file is removed and the
    ///     destination is kept as it was.
    /// - Throws: ``FileIOError`` naming the failed step, the path and the system's reason, or the error
    ///   `produce` threw.
    public func write(toPath path: String,
                      streaming produce: (_ write: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        try replace(path) { fd in
            var failure: (Int32, String?)?
            var written = 0
            try produce { chunk in
                if let (code, _) = failure {
                    throw FileIOError(step: .write, path: path, errno: code, detail: "after an earlier failed write", isWrite: true)
                }
                if let (code, extra) = Self.writeAll(chunk, to: fd) {
                    failure = (code, "after \(written) bytes" + (extra.map { " and \($0)" } ?? ""))
                    throw FileIOError(step: .write, path: path, errno: code, detail: failure?.1, isWrite: true)
                }
                written += chunk.count
            }
            return failure
        }
    }

    /// The steps of an atomic write (see the type's notes); `fill` writes the contents to the temporary
    /// file's descriptor and returns the errno (and a note) of a failed write, or nil. An error `fill`
    /// throws removes the temporary file and is rethrown.
    private func replace(_ path: String, fill: (Int32) throws -> (Int32, String?)?) throws {
        try FilePath.validate(path, step: .validatePath, isWrite: true)
        let noReplace = options.contains(.withoutOverwriting)

        let target: String
        let existing: stat?
        if noReplace {
            if SystemCalls.lstat(path) != nil {
                throw FileIOError(step: .rename, path: path, errno: EEXIST,
                                  detail: "the destination exists and .withoutOverwriting was given", isWrite: true)
            }
            (target, existing) = (path, nil)
        } else {
            (target, existing) = try FilePath.resolveDestination(path)
        }
        let via = target == path ? "" : "via symbolic link to \(target); "
        if let existing, existing.isDirectory {
            throw FileIOError(step: .validatePath, path: path, errno: EISDIR,
                              detail: target == path ? nil : "the link points to directory \(target)", isWrite: true)
        }
        if let existing, !existing.isRegularFile {
            // Renaming over a FIFO, socket or device would swap it for a regular file.
            throw FileIOError(step: .validatePath, path: path, errno: EINVAL,
                              detail: "\(via)not a regular file: an atomic replace would turn it into one", isWrite: true)
        }
        guard let (directory, name) = FilePath.split(target) else {
            throw FileIOError(step: .validatePath, path: path, errno: EISDIR, detail: "the path ends in /", isWrite: true)
        }

        // 1. The directory, then the temporary file in it.
        let directoryFD = Self.retryingEINTR { SystemCalls.openat(AT_FDCWD, directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0) }
        guard directoryFD >= 0 else {
            throw FileIOError(step: .openDirectory, path: path, errno: SystemCalls.lastError,
                              detail: "\(via)directory \(directory)", isWrite: true)
        }
        defer { _ = SystemCalls.close(directoryFD) }

        let creationMode: mode_t = existing == nil ? mode_t(newFilePermissions & 0o777) : 0o600
        var temporaryName = ""
        var fd: Int32 = -1
        for _ in 0..<Self.maximumTemporaryNameAttempts {
            temporaryName = Self.temporaryName(for: name)
            fd = SystemCalls.openat(directoryFD, temporaryName, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, creationMode)
            if fd >= 0 { break }
            let code = SystemCalls.lastError
            if code == EEXIST || code == EINTR { continue }
            throw FileIOError(step: .createTemporaryFile, path: path, errno: code,
                              detail: "\(via)temporary file \(FilePath.join(directory, temporaryName))", isWrite: true)
        }
        guard fd >= 0 else {
            throw FileIOError(step: .createTemporaryFile, path: path, errno: EEXIST,
                              detail: "\(via)no free temporary name in \(directory) after \(Self.maximumTemporaryNameAttempts) tries",
                              isWrite: true)
        }

        // 2-4. Any failure from here removes the temporary file.
        var fdIsOpen = true
        let temporaryDetail = "\(via)temporary file \(FilePath.join(directory, temporaryName))"
        func fail(_ step: FileIOError.Step, _ code: Int32, _ extra: String? = nil) -> FileIOError {
            if fdIsOpen { _ = SystemCalls.close(fd) }
            _ = SystemCalls.unlinkat(directoryFD, temporaryName)
            let detail = extra.map { "\(temporaryDetail); \($0)" } ?? temporaryDetail
            return FileIOError(step: step, path: path, errno: code, detail: detail, isWrite: true)
        }

        if let existing {
            if geteuid() == 0, let mine = SystemCalls.fstat(fd),
               mine.st_uid != existing.st_uid || mine.st_gid != existing.st_gid {
                guard SystemCalls.fchown(fd, existing.st_uid, existing.st_gid) == 0 else {
                    throw fail(.setOwner, SystemCalls.lastError)
                }
            }
            // After fchown, which may clear set-user-ID and set-group-ID bits.
            guard SystemCalls.fchmod(fd, existing.st_mode & 0o7777) == 0 else {
                throw fail(.setPermissions, SystemCalls.lastError)
            }
        }

        let written: (Int32, String?)?
        do {
            written = try fill(fd)
        } catch {
            _ = fail(.write, 0)  // closes and removes the temporary file
            throw error
        }
        if let (code, extra) = written {
            throw fail(.write, code, extra)
        }
        guard Self.retryingEINTR({ SystemCalls.fsync(fd) }) == 0 else {
            throw fail(.synchronize, SystemCalls.lastError)
        }
        // The descriptor is gone after close() whatever it returns; EINTR is not a failure to retry.
        let closeResult = SystemCalls.close(fd)
        let closeError = SystemCalls.lastError
        fdIsOpen = false
        guard closeResult == 0 || closeError == EINTR else {
            throw fail(.close, closeError)
        }

        if noReplace {
            if let (code, extra) = Self.renameWithoutReplacing(directoryFD, temporaryName, name) {
                throw fail(.rename, code, extra)
            }
        } else {
            guard SystemCalls.renameat(directoryFD, temporaryName, directoryFD, name) == 0 else {
                throw fail(.rename, SystemCalls.lastError)
            }
        }

        // The rename is done; the temporary name no longer exists, so there is nothing to remove.
        guard Self.retryingEINTR({ SystemCalls.fsync(directoryFD) }) == 0 else {
            let code = SystemCalls.lastError
            // Some file systems cannot flush directories and say EINVAL; the rename stands.
            if code == EINVAL { return }
            throw FileIOError(step: .synchronizeDirectory, path: path, errno: code,
                              detail: "\(via)directory \(directory); the new contents are in place but may not survive a power loss",
                              isWrite: true)
        }
    }

    // MARK: - Stale temporary files

    /// Removes temporary files that killed writers left next to `path`, and returns their paths.
    ///
    /// Only regular files whose names match this writer's pattern for that destination
    /// (`.<name>.tmp-` followed by 16 hexadecimal digits) and that were last modified at least `age`
    /// ago are removed; nothing else in the directory is touched. Choose `age` longer than any write
    /// can take, so a write in progress in another process keeps its file (a few minutes is plenty;
    /// `.zero` is only safe when no other process writes this destination). A symbolic link at `path`
    /// is followed as ``write(_:toPath:)`` follows it. Files that vanish meanwhile are skipped.
    ///
    /// Call it, for example, when an app starts, for each file it saves.
    /// - Parameters:
    ///   - path: the destination whose stale temporary files to remove.
    ///   - age: the minimum time since a file's last modification.
    /// - Returns: the full paths of the files removed.
    /// - Throws: ``FileIOError`` with step ``FileIOError/Step/removeTemporaryFiles`` when the directory
    ///   cannot be listed or a matching file cannot be removed.
    @discardableResult
    public static func removeStaleTemporaryFiles(for path: String, olderThan age: Duration) throws(FileIOError) -> [String] {
        try FilePath.validate(path, step: .validatePath, isWrite: true)
        let (target, _) = try FilePath.resolveDestination(path)
        guard let (directory, name) = FilePath.split(target) else {
            throw FileIOError(step: .validatePath, path: path, errno: EISDIR, detail: "the path ends in /", isWrite: true)
        }
        let prefix = temporaryNamePrefix(for: name)
        let ageSeconds = max(0, age.components.seconds)
        let now = Int(time(nil))
        let (cutoff, overflow) = now.subtractingReportingOverflow(Int(clamping: ageSeconds))
        let latestModification = overflow ? Int.min : cutoff

        let directoryFD = retryingEINTR { SystemCalls.openat(AT_FDCWD, directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0) }
        guard directoryFD >= 0 else {
            throw FileIOError(step: .removeTemporaryFiles, path: path, errno: SystemCalls.lastError,
                              detail: "opening directory \(directory)", isWrite: true)
        }
        // fdopendir takes ownership of the descriptor; closedir closes it.
        guard let stream = fdopendir(directoryFD) else {
            let code = SystemCalls.lastError
            _ = SystemCalls.close(directoryFD)
            throw FileIOError(step: .removeTemporaryFiles, path: path, errno: code,
                              detail: "listing directory \(directory)", isWrite: true)
        }
        defer { closedir(stream) }

        var candidates: [String] = []
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                let code = SystemCalls.lastError
                if code != 0 {
                    throw FileIOError(step: .removeTemporaryFiles, path: path, errno: code,
                                      detail: "listing directory \(directory)", isWrite: true)
                }
                break
            }
            // Compared as bytes: a name that is not UTF-8 is never ours, and must not be "repaired" into one.
            let entryBytes = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix(while: { $0 != 0 })) }
            if isTemporaryName(entryBytes, prefix: prefix) {
                candidates.append(String(decoding: entryBytes, as: UTF8.self))
            }
        }

        var removed: [String] = []
        for candidate in candidates {
            guard let status = SystemCalls.fstatat(directoryFD, candidate, followingLinks: false),
                  status.isRegularFile, status.modificationSeconds <= latestModification else { continue }
            if SystemCalls.unlinkat(directoryFD, candidate) == 0 {
                removed.append(FilePath.join(directory, candidate))
            } else {
                let code = SystemCalls.lastError
                if code == ENOENT { continue }
                throw FileIOError(step: .removeTemporaryFiles, path: path, errno: code,
                                  detail: "removing \(FilePath.join(directory, candidate))", isWrite: true)
            }
        }
        return removed
    }

    // MARK: - Implementation

    static let maximumTemporaryNameAttempts = 100
    static let temporaryRandomDigits = 16

    /// `.<name>.tmp-`, with `name` shortened (at a character boundary) so that the whole temporary
    /// name stays within the 255-byte limit on file names.
    static func temporaryNamePrefix(for name: String) -> String {
        let budget = 255 - (1 + 5 + temporaryRandomDigits)
        var kept = ""
        var used = 0
        for scalar in name.unicodeScalars {
            let size = UTF8.width(scalar)
            if used + size > budget { break }
            kept.unicodeScalars.append(scalar)
            used += size
        }
        return "." + kept + ".tmp-"
    }

    /// A fresh temporary name for `name`: the prefix and 64 random bits in hexadecimal.
    static func temporaryName(for name: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let random = String(generator.next() as UInt64, radix: 16)
        let padding = String(repeating: "0", count: temporaryRandomDigits - random.count)
        return temporaryNamePrefix(for: name) + padding + random
    }

    /// Whether `candidate` is one of our temporary names for the prefix.
    static func isTemporaryName(_ candidate: String, prefix: String) -> Bool {
        isTemporaryName(Array(candidate.utf8), prefix: prefix)
    }

    /// Whether the file name `candidate` (raw bytes) is one of our temporary names for the prefix.
    static func isTemporaryName(_ candidate: [UInt8], prefix: String) -> Bool {
        guard candidate.starts(with: prefix.utf8) else { return false }
        let suffix = candidate.dropFirst(prefix.utf8.count)
        return suffix.count == temporaryRandomDigits && suffix.allSatisfy { byte in
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
        }
    }

    /// Writes every byte, retrying short writes and `EINTR`. Returns the errno on failure.
    static func writeAll<Bytes: DataProtocol>(_ bytes: Bytes, to fd: Int32) -> (Int32, String?)? {
        // write() takes at most about 2 GiB at once on Linux and fails above INT_MAX on Apple platforms.
        let maximumChunk = 1 << 30
        var written = 0
        for region in bytes.regions {
            let failure: (Int32, String?)? = region.withUnsafeBytes { buffer in
                var offset = 0
                while offset < buffer.count {
                    let end = buffer.count - offset > maximumChunk ? offset + maximumChunk : buffer.count
                    let result = SystemCalls.write(fd, UnsafeRawBufferPointer(rebasing: buffer[offset..<end]))
                    if result < 0 {
                        let code = SystemCalls.lastError
                        if code == EINTR { continue }
                        return (code, "after \(written + offset) of \(bytes.count) bytes")
                    }
                    if result == 0 {
                        return (EIO, "write made no progress after \(written + offset) of \(bytes.count) bytes")
                    }
                    offset += min(result, end - offset)
                }
                return nil
            }
            if let failure { return failure }
            written += region.count
        }
        return nil
    }

    /// The no-replace rename, falling back to `link` + `unlink` where the file system or the C
    /// library lacks it. Returns the errno (and a note) on failure.
    static func renameWithoutReplacing(_ directoryFD: Int32, _ from: String, _ to: String) -> (Int32, String?)? {
        if SystemCalls.renameatNoReplace(directoryFD, from, directoryFD, to) == 0 { return nil }
        let code = SystemCalls.lastError
        if code == EEXIST {
            return (code, "the destination exists and .withoutOverwriting was given")
        }
        guard code == EINVAL || code == ENOSYS || code == ENOTSUP || code == EOPNOTSUPP else { return (code, nil) }
        // link() fails with EEXIST if the name exists, which makes it an atomic no-replace too.
        guard SystemCalls.linkat(directoryFD, from, directoryFD, to) == 0 else {
            let linkError = SystemCalls.lastError
            if linkError == EEXIST {
                return (linkError, "the destination exists and .withoutOverwriting was given")
            }
            return (linkError, "no-replace rename unsupported (\(FileIOError.symbolicName(ofErrno: code) ?? "errno \(code)")); link fallback failed")
        }
        // The contents are in place under the destination name; a leftover temporary name would only
        // be a second link to them, and removeStaleTemporaryFiles removes it later.
        _ = SystemCalls.unlinkat(directoryFD, from)
        return nil
    }

    /// Calls `body` again while it fails with `EINTR`.
    static func retryingEINTR(_ body: () -> Int32) -> Int32 {
        while true {
            let result = body()
            if result == -1 && SystemCalls.lastError == EINTR { continue }
            return result
        }
    }
}

extension Data {
    /// Atomically replaces (or creates) the file at `url` with these bytes; see ``AtomicFileWriter``.
    ///
    /// The corresponding Foundation API is `Data.write(to:options: .atomic)`.
    /// - Parameters:
    ///   - url: a `file:` URL.
    ///   - options: for example ``AtomicFileWriter/Options/withoutOverwriting``.
    /// - Throws: ``FileIOError`` naming the failed step, the path and the system's reason.
    public func writeAtomically(to url: URL, options: AtomicFileWriter.Options = []) throws(FileIOError) {
        try AtomicFileWriter(options: options).write(self, to: url)
    }

    /// Atomically replaces (or creates) the file at `path` with these bytes; see ``AtomicFileWriter``.
    ///
    /// - Parameters:
    ///   - path: the destination.
    ///   - options: for example ``AtomicFileWriter/Options/withoutOverwriting``.
    /// - Throws: ``FileIOError`` naming the failed step, the path and the system's reason.
    public func writeAtomically(toPath path: String, options: AtomicFileWriter.Options = []) throws(FileIOError) {
        try AtomicFileWriter(options: options).write(self, toPath: path)
    }
}
