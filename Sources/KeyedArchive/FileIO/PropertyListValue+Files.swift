#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension PropertyListValue {
    /// Reads a property list, binary or XML, from the file at `url`.
    ///
    /// Large files are memory-mapped (see ``FileReader`` for the caveat about files that shrink while
    /// mapped; pass `fileOptions` with ``FileReader/Options/Mapping/never`` to copy instead).
    /// The corresponding Foundation API is `PropertyListSerialization.propertyList(from: Data(contentsOf:), ...)`.
    /// - Parameters:
    ///   - url: a `file:` URL.
    ///   - options: limits for untrusted input.
    ///   - fileOptions: how to read the file.
    /// - Throws: ``FileIOError`` when the file cannot be read (naming the path and reason), or
    ///   ``PropertyListError`` when its bytes are not a valid property list.
    public init(contentsOf url: URL, options: PropertyListReadingOptions = .init(),
                fileOptions: FileReader.Options = .init()) throws {
        let data = try FileReader(options: fileOptions).read(at: url)
        try self.init(propertyListData: data, options: options)
    }

    /// Reads a property list, binary or XML, from the file at `path`.
    ///
    /// - Parameters:
    ///   - path: the file; symbolic links are followed.
    ///   - options: limits for untrusted input.
    ///   - fileOptions: how to read the file.
    /// - Throws: ``FileIOError`` when the file cannot be read (naming the path and reason), or
    ///   ``PropertyListError`` when its bytes are not a valid property list.
    public init(contentsOfFile path: String, options: PropertyListReadingOptions = .init(),
                fileOptions: FileReader.Options = .init()) throws {
        let data = try FileReader(options: fileOptions).read(atPath: path)
        try self.init(propertyListData: data, options: options)
    }

    /// Encodes this value and writes it atomically to the file at `url` (see ``AtomicFileWriter``).
    ///
    /// The corresponding Foundation API is `PropertyListSerialization.data(fromPropertyList:format:options:)`
    /// followed by `Data.write(to:options: .atomic)`.
    /// - Parameters:
    ///   - url: a `file:` URL.
    ///   - format: binary (the default) or XML.
    ///   - options: for example ``AtomicFileWriter/Options/withoutOverwriting``.
    /// - Throws: ``PropertyListError`` when the format cannot hold the value (nothing is written then),
    ///   or ``FileIOError`` naming the failed step, the path and the reason (the old file is kept).
    public func write(to url: URL, format: PropertyListFormat = .binary, options: AtomicFileWriter.Options = []) throws {
        let data = try propertyListData(format: format)
        try AtomicFileWriter(options: options).write(data, to: url)
    }

    /// Encodes this value and writes it atomically to the file at `path` (see ``AtomicFileWriter``).
    ///
    /// - Parameters:
    ///   - path: the destination; a symbolic link is kept and its target replaced.
    ///   - format: binary (the default) or XML.
    ///   - options: for example ``AtomicFileWriter/Options/withoutOverwriting``.
    /// - Throws: ``PropertyListError`` when the format cannot hold the value (nothing is written then),
    ///   or ``FileIOError`` naming the failed step, the path and the reason (the old file is kept).
    public func write(toFile path: String, format: PropertyListFormat = .binary, options: AtomicFileWriter.Options = []) throws {
        let data = try propertyListData(format: format)
        try AtomicFileWriter(options: options).write(data, toPath: path)
    }
}
