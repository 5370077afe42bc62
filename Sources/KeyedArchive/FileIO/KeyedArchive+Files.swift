#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension KeyedArchiver {
    /// Archives `root` and writes the archive atomically to the file at `path` (see ``AtomicFileWriter``).
    ///
    /// The corresponding Foundation API is `NSKeyedArchiver.archiveRootObject(_:toFile:)`, which
    /// Foundation deprecated because it could not report errors; this one throws them, and a crash or
    /// full disk during the save leaves the previous file intact.
    /// - Parameters:
    ///   - root: the value to archive, stored under the top-level key `root`.
    ///   - path: the destination; a symbolic link is kept and its target replaced.
    ///   - format: binary (the default, as Foundation writes) or XML.
    ///   - options: for example ``AtomicFileWriter/Options/withoutOverwriting``.
    /// - Throws: ``KeyedArchiveError`` when `root` cannot be archived (nothing is written then), or
    ///   ``FileIOError`` naming the failed step, the path and the reason.
    public static func archiveRootObject<T: ArchiveValue>(_ root: T, toFile path: String, format: PropertyListFormat = .binary,
                                                          options: AtomicFileWriter.Options = []) throws {
        let data = try archivedData(withRootObject: root, format: format)
        try AtomicFileWriter(options: options).write(data, toPath: path)
    }

    /// Archives `root` and writes the archive atomically to the file at `url` (see ``AtomicFileWriter``).
    ///
    /// The corresponding Foundation API is `NSKeyedArchiver.archiveRootObject(_:toFile:)`.
    /// - Parameters:
    ///   - root: the value to archive, stored under the top-level key `root`.
    ///   - url: a `file:` URL.
    ///   - format: binary (the default) or XML.
    ///   - options: for example ``AtomicFileWriter/Options/withoutOverwriting``.
    /// - Throws: ``KeyedArchiveError`` when `root` cannot be archived (nothing is written then), or
    ///   ``FileIOError`` naming the failed step, the path and the reason.
    public static func archiveRootObject<T: ArchiveValue>(_ root: T, to url: URL, format: PropertyListFormat = .binary,
                                                          options: AtomicFileWriter.Options = []) throws {
        let data = try archivedData(withRootObject: root, format: format)
        try AtomicFileWriter(options: options).write(data, to: url)
    }
}

extension KeyedUnarchiver {
    /// Reads the keyed archive in the file at `path` and decodes its root as `type`.
    ///
    /// The corresponding Foundation API is `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)` applied
    /// to `Data(contentsOf:)` (or the older `unarchiveObject(withFile:)`). Large files are memory-mapped;
    /// see ``FileReader`` for the caveat about files that shrink while mapped.
    /// - Parameters:
    ///   - type: the type expected at the root.
    ///   - path: the archive file; symbolic links are followed.
    ///   - fileOptions: how to read the file (mapping, size limit).
    /// - Returns: the decoded root.
    /// - Throws: ``FileIOError`` when the file cannot be read (naming the path and the reason), or
    ///   ``KeyedArchiveError`` when its contents are not an archive of `type`.
    public static func unarchivedObject<T: ArchiveValue>(ofClass type: T.Type, fromFile path: String,
                                                         fileOptions: FileReader.Options = .init()) throws -> T {
        let data = try FileReader(options: fileOptions).read(atPath: path)
        return try unarchivedObject(ofClass: type, from: data)
    }

    /// Reads the keyed archive in the file at `url` and decodes its root as `type`.
    ///
    /// The corresponding Foundation API is `NSKeyedUnarchiver.unarchivedObject(ofClass:from:)`.
    /// - Parameters:
    ///   - type: the type expected at the root.
    ///   - url: a `file:` URL.
    ///   - fileOptions: how to read the file (mapping, size limit).
    /// - Returns: the decoded root.
    /// - Throws: ``FileIOError`` when the file cannot be read (naming the path and the reason), or
    ///   ``KeyedArchiveError`` when its contents are not an archive of `type`.
    public static func unarchivedObject<T: ArchiveValue>(ofClass type: T.Type, contentsOf url: URL,
                                                         fileOptions: FileReader.Options = .init()) throws -> T {
        let data = try FileReader(options: fileOptions).read(at: url)
        return try unarchivedObject(ofClass: type, from: data)
    }

    /// Reads the keyed archive in the file at `path` and decodes its root as one of `types`.
    ///
    /// The corresponding Foundation API is `NSKeyedUnarchiver.unarchivedObject(ofClasses:from:)`.
    /// - Parameters:
    ///   - types: the types allowed at the root.
    ///   - path: the archive file; symbolic links are followed.
    ///   - fileOptions: how to read the file (mapping, size limit).
    /// - Returns: the decoded root.
    /// - Throws: ``FileIOError`` when the file cannot be read, or ``KeyedArchiveError`` when its
    ///   contents are not an archive of one of `types`.
    public static func unarchivedObject(ofClasses types: [any KeyedArchivable.Type], fromFile path: String,
                                        fileOptions: FileReader.Options = .init()) throws -> any KeyedArchivable {
        let data = try FileReader(options: fileOptions).read(atPath: path)
        return try unarchivedObject(ofClasses: types, from: data)
    }
    /// Reads the keyed archive in the file at `path` and decodes the value under `key` as `type`, with this
    /// unarchiver's allow-list additions, class-name mappings, module moves and limits.
    ///
    /// The corresponding Foundation API is `NSKeyedUnarchiver(forReadingFrom:)` on `Data(contentsOf:)`, then
    /// `decodeObject(of:forKey:)`. Large files are memory-mapped; see ``FileReader`` for the caveat about files
    /// that shrink while mapped.
    /// - Parameters:
    ///   - type: the type expected under `key`.
    ///   - key: the `$top` key; `"root"` for archives written with `archivedData(withRootObject:)`.
    ///   - path: the archive file; symbolic links are followed.
    ///   - fileOptions: how to read the file (mapping, size limit).
    /// - Returns: the decoded value.
    /// - Throws: ``FileIOError`` when the file cannot be read (naming the path and the reason), or
    ///   ``KeyedArchiveError`` (`DecodingError` for a Codable type) when its contents are not an archive of `type`.
    public func decode<T: ArchiveValue>(_ type: T.Type, forKey key: String = "root", fromFile path: String,
                                        fileOptions: FileReader.Options = .init()) throws -> T {
        let data = try FileReader(options: fileOptions).read(atPath: path)
        return try decode(type, forKey: key, from: data)
    }
}
