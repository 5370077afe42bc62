#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An error reading or writing a file: which step failed, on which path, and the system's reason.
///
/// Like swift-system's `Errno`, this is a struct with named steps rather than an enum, so steps can be
/// added without breaking a caller's `switch`. The ``description`` is one line:
///
/// ```
/// atomic write to /data/model.plist failed at step "write" (temporary file /data/.model.plist.tmp-3f9c…): ENOSPC: No space left on device
/// ```
public struct FileIOError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A step of reading or writing a file.
    public struct Step: Hashable, Sendable, CustomStringConvertible {
        /// The step's name, such as `"write"`.
        public let name: String
        /// A step with the given name.
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        // MARK: Writing

        /// The path itself was unusable: empty, containing a NUL byte, ending in `/`, or naming a directory.
        public static let validatePath = Step("validatePath")
        /// Following a symbolic link at the destination (`lstat`/`readlink`; `ELOOP` for too many hops).
        public static let resolveSymbolicLink = Step("resolveSymbolicLink")
        /// Opening the destination's directory (used for the temporary file, the rename and the final sync).
        public static let openDirectory = Step("openDirectory")
        /// Creating the temporary file next to the destination (`open` with `O_CREAT|O_EXCL`).
        public static let createTemporaryFile = Step("createTemporaryFile")
        /// Giving the temporary file the owner and group of the file it replaces (`fchown`, root only).
        public static let setOwner = Step("setOwner")
        /// Giving the temporary file the permissions of the file it replaces (`fchmod`).
        public static let setPermissions = Step("setPermissions")
        /// Writing the bytes to the temporary file.
        public static let write = Step("write")
        /// Flushing the temporary file to storage (`fsync`; `F_FULLFSYNC` on Apple platforms).
        public static let synchronize = Step("synchronize")
        /// Closing the temporary file.
        public static let close = Step("close")
        /// Moving the temporary file over the destination (`rename`, or the no-replace variants).
        public static let rename = Step("rename")
        /// Flushing the directory so the rename itself is durable. When this step fails the new
        /// contents are already in place; only their durability across a power loss is in doubt.
        public static let synchronizeDirectory = Step("synchronizeDirectory")
        /// Listing or removing stale temporary files.
        public static let removeTemporaryFiles = Step("removeTemporaryFiles")

        // MARK: Reading

        /// Opening the file for reading.
        public static let open = Step("open")
        /// Reading the file's size and type (`fstat`).
        public static let status = Step("status")
        /// Reading the bytes.
        public static let read = Step("read")
        /// Mapping the file into memory (`mmap`). Mapping failures normally fall back to reading.
        public static let map = Step("map")
    }

    /// The step that failed.
    public var step: Step
    /// The path the caller named (the destination of a write, the file of a read).
    public var path: String
    /// The system's error number (`errno`), such as `ENOSPC`.
    public var errno: Int32
    /// More context, when there is any: the temporary file, the symbolic link's target, a limit.
    public var detail: String?
    /// Whether the operation was a write (`true`) or a read (`false`); only changes the wording.
    public var isWrite: Bool

    /// An error with every field given.
    public init(step: Step, path: String, errno: Int32, detail: String? = nil, isWrite: Bool) {
        self.step = step
        self.path = path
        self.errno = errno
        self.detail = detail
        self.isWrite = isWrite
    }

    /// The symbolic name of ``errno``, such as `"ENOSPC"`, or `"errno 1234"` when it is not known.
    public var errnoName: String {
        FileIOError.symbolicName(ofErrno: errno) ?? "errno \(errno)"
    }

    /// The system's explanation of ``errno`` (`strerror`), such as `"No space left on device"`.
    public var reason: String {
        guard let text = strerror(errno) else { return "unknown error" }
        return String(cString: text)
    }

    public var description: String {
        let operation = isWrite ? "atomic write to" : "reading"
        let context = detail.map { " (\($0))" } ?? ""
        return "\(operation) \(path) failed at step \"\(step.name)\"\(context): \(errnoName): \(reason)"
    }

    /// The name of an `errno` value, for the common file-system errors of Linux and Apple platforms.
    static func symbolicName(ofErrno code: Int32) -> String? {
        // An array rather than a dictionary: some names share a value on some platforms
        // (EAGAIN/EWOULDBLOCK, ENOTSUP/EOPNOTSUPP on Linux); the first listed wins.
        let names: [(Int32, String)] = [
            (EPERM, "EPERM"), (ENOENT, "ENOENT"), (ESRCH, "ESRCH"), (EINTR, "EINTR"), (EIO, "EIO"),
            (ENXIO, "ENXIO"), (E2BIG, "E2BIG"), (EBADF, "EBADF"), (EAGAIN, "EAGAIN"), (ENOMEM, "ENOMEM"),
            (EACCES, "EACCES"), (EFAULT, "EFAULT"), (EBUSY, "EBUSY"), (EEXIST, "EEXIST"), (EXDEV, "EXDEV"),
            (ENODEV, "ENODEV"), (ENOTDIR, "ENOTDIR"), (EISDIR, "EISDIR"), (EINVAL, "EINVAL"),
            (ENFILE, "ENFILE"), (EMFILE, "EMFILE"), (ETXTBSY, "ETXTBSY"), (EFBIG, "EFBIG"),
            (ENOSPC, "ENOSPC"), (ESPIPE, "ESPIPE"), (EROFS, "EROFS"), (EMLINK, "EMLINK"), (EPIPE, "EPIPE"),
            (ENAMETOOLONG, "ENAMETOOLONG"), (ENOSYS, "ENOSYS"), (ENOTEMPTY, "ENOTEMPTY"), (ELOOP, "ELOOP"),
            (ENOTSUP, "ENOTSUP"), (EOPNOTSUPP, "EOPNOTSUPP"), (EDQUOT, "EDQUOT"), (ESTALE, "ESTALE"),
            (EOVERFLOW, "EOVERFLOW"), (ECANCELED, "ECANCELED"), (EILSEQ, "EILSEQ"),
        ]
        return names.first(where: { $0.0 == code })?.1
    }
}
