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
import KeyedArchive

/// Where the notes are kept, and how they are read and written.
///
/// The file is a binary keyed archive whose root is a ``Notebook``. Reading is secure: only `Notebook`
/// and `Note` objects are allowed, with limits sized for a notes file; saving is atomic (a crash or a
/// full disk leaves the previous file intact). Notes are personal: a new file is created `0600` and its
/// directory `0700`, readable by the owner only.
public struct NotesStore: Sendable {
    /// The file name inside the data directory.
    public static let fileName = "notes.archive"
    /// The folder name inside the user's data directory.
    public static let folderName = "keyedarchive-notes"
    /// The environment variable that overrides the data directory.
    public static let environmentVariable = "NOTES_DATA_DIR"
    /// The largest notes file read (16 MiB).
    public static let maximumFileSize = 16 << 20
    /// The permission bits of a new notes file: read and write for the owner only.
    public static let newFilePermissions: UInt16 = 0o600

    /// The data directory.
    public var directory: String
    /// The archive's path: `directory/notes.archive`.
    public var path: String { directory.hasSuffix("/") ? directory + Self.fileName : directory + "/" + Self.fileName }

    /// A store in `directory`.
    public init(directory: String) {
        self.directory = directory
    }

    /// The default data directory for the platform, given the environment.
    ///
    /// - `NOTES_DATA_DIR`, when set and not empty;
    /// - macOS: `$HOME/Library/Application Support/keyedarchive-notes`;
    /// - elsewhere: `$XDG_DATA_HOME/keyedarchive-notes` when that is an absolute path (as the XDG base
    ///   directory specification requires), else `$HOME/.local/share/keyedarchive-notes`.
    /// - Returns: `nil` when neither the override nor `HOME` is set.
    public static func defaultDirectory(environment: [String: String]) -> String? {
        if let override = environment[environmentVariable], !override.isEmpty { return override }
        #if os(macOS)
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home + "/Library/Application Support/" + folderName
        #else
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") { return xdg + "/" + folderName }
        guard let home = environment["HOME"], !home.isEmpty else { return nil }
        return home + "/.local/share/" + folderName
        #endif
    }

    /// Reads the notebook; a missing file is an empty notebook.
    /// - Throws: ``NotesError`` naming the file and what is wrong with it.
    public func load() throws(NotesError) -> Notebook {
        let data: Data
        do {
            data = try FileReader(options: .init(mapping: .never, maximumSize: Self.maximumFileSize)).read(atPath: path)
        } catch {
            if error.errno == ENOENT && error.step == .open { return Notebook() }
            if error.errno == EFBIG { throw NotesError("\(path): the file is larger than \(Self.maximumFileSize) bytes") }
            throw NotesError("\(error)")
        }
        var unarchiver = KeyedUnarchiver()
        unarchiver.limits.maximumObjectCount = 1 << 20
        unarchiver.limits.maximumByteCount = Self.maximumFileSize * 4
        unarchiver.limits.maximumDepth = 16
        do {
            return try unarchiver.decode(Notebook.self, from: data)
        } catch {
            throw NotesError("\(path): not a readable notes archive: \(error)")
        }
    }

    /// Writes the notebook atomically, creating the data directory if needed.
    ///
    /// A new file gets mode `0600` (owner only; a stricter umask can only remove bits); an existing
    /// file keeps its mode, so a user's `chmod` stays in effect.
    /// - Throws: ``NotesError`` naming the step that failed.
    public func save(_ notebook: Notebook) throws(NotesError) {
        let data: Data
        do {
            data = try KeyedArchiver.archivedData(withRootObject: notebook)
        } catch {
            throw NotesError("could not archive the notes: \(error)")
        }
        try Self.createDirectories(directory)
        do {
            try AtomicFileWriter(newFilePermissions: Self.newFilePermissions).write(data, toPath: path)
        } catch {
            throw NotesError("\(error)")
        }
    }

    /// Creates `path` and its missing parents (mode 0700, private to the user), like `mkdir -p`.
    static func createDirectories(_ path: String) throws(NotesError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if mkdir(prefix, 0o700) != 0 {
                let code = errno
                var info = stat()
                guard code == EEXIST, stat(prefix, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
                    let reason = code == EEXIST ? "a file is in the way" : String(cString: strerror(code))
                    throw NotesError("\(prefix): cannot create the data directory: \(reason)")
                }
            }
            prefix += "/"
        }
    }
}
