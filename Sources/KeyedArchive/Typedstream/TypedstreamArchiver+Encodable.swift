#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension TypedstreamArchiver {
    /// Writes the class named `name` as `archivedName`, wherever it appears in a class chain (a class of your
    /// own, one of its superclasses, or a Foundation class).
    ///
    /// The corresponding Foundation API is `NSArchiver.encodeClassName(_:intoClassName:)`: for archives that
    /// older code, which knew the class under another name, reads. ``TypedstreamUnarchiver/setClass(_:forClassName:)``
    /// is the reading side.
    ///
    /// - Parameters:
    ///   - archivedName: the name written in the archive.
    ///   - name: the class's name (a ``TypedstreamEncodable/typedstreamClassName`` or a name in a
    ///     ``TypedstreamEncodable/typedstreamClassChain``).
    public mutating func setClassName(_ archivedName: String, forClassName name: String) {
        classNames[name] = archivedName
    }

    /// The typedstream of one root object of your own type: its class chain with versions, then the values
    /// its ``TypedstreamEncodable/encode(to:)`` writes, and the objects those hold.
    ///
    /// The corresponding Foundation API is `NSArchiver.archivedData(withRootObject:)`.
    /// ``TypedstreamUnarchiver/decode(_:from:)`` reads it back into a ``TypedstreamDecodable`` type.
    ///
    /// - Parameter object: the root.
    /// - Returns: the bytes.
    /// - Throws: ``TypedstreamError``: a value that cannot be written as its type, a Foundation value with no
    ///   typedstream form, a class chain that is empty, does not start with its class name or disagrees with
    ///   another for the same class, nesting deeper than ``maximumDepth``
    ///   (``TypedstreamError/Code/limitExceeded``), or an `encode(to:)` threw (its error is in the message).
    public func archivedData<T: TypedstreamEncodable>(withRootObject object: T) throws(TypedstreamError) -> Data {
        try archive(withRootObject: object).encodedData()
    }

    /// The raw model of one root object, as ``archivedData(withRootObject:)`` writes it.
    ///
    /// - Parameter object: the root.
    /// - Returns: the archive.
    /// - Throws: as ``archivedData(withRootObject:)``.
    public func archive<T: TypedstreamEncodable>(withRootObject object: T) throws(TypedstreamError) -> TypedstreamArchive {
        let session = TypedstreamEncodingSession(
            builder: TypedstreamModelBuilder(byteOrder: byteOrder, maximumDepth: maximumDepth, classNames: classNames))
        let root = try runTypedstreamWork(levels: maximumDepth + 1) { () throws(TypedstreamError) in
            try session.object(object, depth: 0)
        }
        session.builder.archive.groups = [TypedstreamGroup(encoding: "@", values: [root])]
        return session.builder.archive
    }
}
