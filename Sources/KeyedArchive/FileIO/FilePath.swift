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

/// Path handling shared by the reader and the writer: validation, splitting, symbolic links.
enum FilePath {
    /// The most symbolic links followed for one destination, as Linux's `MAXSYMLINKS`.
    static let maximumSymbolicLinkHops = 40

    /// The file-system path of a `file:` URL.
    static func path(of url: URL, isWrite: Bool) throws(FileIOError) -> String {
        guard url.isFileURL else {
            throw FileIOError(step: isWrite ? .validatePath : .open, path: url.absoluteString, errno: EINVAL,
                              detail: "not a file URL", isWrite: isWrite)
        }
        let path = url.withUnsafeFileSystemRepresentation { $0.map { String(cString: $0) } }
        guard let path, !path.isEmpty else {
            throw FileIOError(step: isWrite ? .validatePath : .open, path: url.absoluteString, errno: EINVAL,
                              detail: "the URL has no file-system representation", isWrite: isWrite)
        }
        return path
    }

    /// Rejects paths the C functions would misread: empty, or with a NUL byte (which would silently
    /// cut the path short and name another file).
    static func validate(_ path: String, step: FileIOError.Step, isWrite: Bool) throws(FileIOError) {
        if path.isEmpty {
            throw FileIOError(step: step, path: path, errno: ENOENT, detail: "the path is empty", isWrite: isWrite)
        }
        if path.utf8.contains(0) {
            throw FileIOError(step: step, path: path, errno: EINVAL, detail: "the path contains a NUL byte",
                              isWrite: isWrite)
        }
    }

    /// Splits `path` into its directory and its last component: `"a/b/c"` -> `("a/b", "c")`,
    /// `"c"` -> `(".", "c")`, `"/c"` -> `("/", "c")`. Returns `nil` for a path ending in `/`.
    static func split(_ path: String) -> (directory: String, name: String)? {
        let bytes = Array(path.utf8)
        guard let last = bytes.last, last != UInt8(ascii: "/") else { return nil }
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return (".", path) }
        let name = String(decoding: bytes[(slash + 1)...], as: UTF8.self)
        var directoryEnd = slash
        // "a//b" -> "a"; "/b" -> "/"
        while directoryEnd > 0 && bytes[directoryEnd - 1] == UInt8(ascii: "/") { directoryEnd -= 1 }
        let directory = directoryEnd == 0 ? "/" : String(decoding: bytes[..<directoryEnd], as: UTF8.self)
        return (directory, name)
    }

    /// `name` resolved against `directory`, unless it is absolute.
    static func join(_ directory: String, _ name: String) -> String {
        if name.hasPrefix("/") { return name }
        if directory == "/" { return "/" + name }
        return directory + "/" + name
    }

    /// The file a write to `path` lands in: `path` itself, or, when `path` is a symbolic link, the file
    /// at the end of its chain of links (which need not exist yet: a dangling link's target is created).
    ///
    /// Only the last component is followed here; links among the directories of the path are followed
    /// by the kernel as usual. Relative link targets are taken relative to the link's own directory.
    /// - Returns: the path to write and its current status (`nil` when nothing exists there yet).
    static func resolveDestination(_ path: String) throws(FileIOError) -> (path: String, status: stat?) {
        var current = path
        for _ in 0...maximumSymbolicLinkHops {
            guard let status = SystemCalls.lstat(current) else {
                let code = SystemCalls.lastError
                if code == ENOENT { return (current, nil) }
                throw FileIOError(step: .resolveSymbolicLink, path: path, errno: code,
                                  detail: current == path ? nil : "at link target \(current)", isWrite: true)
            }
            guard status.st_mode & S_IFMT == S_IFLNK else { return (current, status) }
            guard let target = SystemCalls.readlink(current) else {
                throw FileIOError(step: .resolveSymbolicLink, path: path, errno: SystemCalls.lastError,
                                  detail: "reading link \(current)", isWrite: true)
            }
            guard !target.isEmpty, !target.utf8.contains(0), let parts = split(current) else {
                throw FileIOError(step: .resolveSymbolicLink, path: path, errno: ENOENT,
                                  detail: "link \(current) has an empty or unusable target", isWrite: true)
            }
            current = join(parts.directory, target)
        }
        throw FileIOError(step: .resolveSymbolicLink, path: path, errno: ELOOP,
                          detail: "more than \(maximumSymbolicLinkHops) symbolic links", isWrite: true)
    }
}

extension stat {
    /// Whether this is a directory.
    var isDirectory: Bool { st_mode & S_IFMT == S_IFDIR }
    /// Whether this is a regular file.
    var isRegularFile: Bool { st_mode & S_IFMT == S_IFREG }
    /// Whether this is a symbolic link (from `lstat`).
    var isSymbolicLink: Bool { st_mode & S_IFMT == S_IFLNK }
    /// Seconds of the last modification, since 1970.
    var modificationSeconds: Int {
        #if canImport(Darwin)
        return Int(st_mtimespec.tv_sec)
        #else
        return Int(st_mtim.tv_sec)
        #endif
    }
}
