#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ArchivedObjectGraph {
    /// The archive as typed JSON (``PropertyListValue/typedJSONData(prettyPrinted:)``): `$archiver`,
    /// `$version`, `$top` and `$objects` as stored, each UID as `{"$uid": n}`, dates, data and reals kept, so that
    /// ``init(typedJSON:options:)`` reads it back to an equal graph.
    /// - Parameter prettyPrinted: whether to indent nested values, one per line.
    /// - Returns: the JSON text, UTF-8.
    public func typedJSONData(prettyPrinted: Bool = false) -> Data {
        propertyList.typedJSONData(prettyPrinted: prettyPrinted)
    }

    /// Reads an archive written as typed JSON (``typedJSONData(prettyPrinted:)``) and checks it as any archive.
    ///
    /// - Parameters:
    ///   - data: UTF-8 typed JSON of the archive's property list.
    ///   - options: `maximumDepth` bounds the JSON's nesting.
    /// - Throws: ``PropertyListError`` (``PropertyListError/Code/invalidJSON``, with the byte offset or key
    ///   path) when the text is not typed JSON; ``KeyedArchiveError`` naming the first rule the archive breaks
    ///   (a UID out of range, a `$class` that is no class description...), with its object UID and key path.
    public init(typedJSON data: Data, options: PropertyListReadingOptions = .init()) throws {
        try self.init(propertyList: PropertyListValue(typedJSON: data, options: options))
    }
}
