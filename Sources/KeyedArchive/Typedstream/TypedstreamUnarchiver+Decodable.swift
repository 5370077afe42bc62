#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension TypedstreamUnarchiver {
    /// Reads names registered with ``setClass(_:forClassName:)`` as `type`.
    ///
    /// The corresponding Foundation API is `NSUnarchiver.decodeClassName(_:asClassName:)`: for classes renamed
    /// since the archive was written. A registration allows `type` only where `type` is asked for.
    ///
    /// - Parameters:
    ///   - type: the type to read such objects as.
    ///   - name: the class name found in archives.
    public mutating func setClass(_ type: any TypedstreamDecodable.Type, forClassName name: String) {
        registry[name] = type
    }

    /// Reads the archive's root object as `type`: the first top-level group's only value, of class `type`'s
    /// ``TypedstreamDecodable/typedstreamClassName`` or a name registered for it.
    ///
    /// The corresponding Foundation API is `NSUnarchiver.unarchiveObject(with:)`.
    ///
    /// - Parameters:
    ///   - type: the root's type; the objects it reads name their own types.
    ///   - data: the typedstream bytes.
    /// - Returns: the root.
    /// - Throws: ``TypedstreamError``: the bytes do not read, the root is not one object of an allowed class,
    ///   a value is not of the type asked for, an object contains itself, a limit is exceeded, or an
    ///   `init(from:)` threw (its error is in the message).
    public func decode<T: TypedstreamDecodable>(_ type: T.Type, from data: Data) throws(TypedstreamError) -> T {
        let archive = try TypedstreamArchive(data: data, limits: limits)
        guard let first = archive.groups.first, first.encoding == "@", first.values.count == 1 else {
            throw TypedstreamError(.dataCorrupted, "the first top-level group is \(archive.groups.first?.encoding.debugDescription ?? "missing"); expected one object")
        }
        let session = TypedstreamDecodingSession(archive: archive, registry: registry, maximumDepth: limits.maximumDepth,
                                                 keepsUnknownObjects: keepsUnknownObjects)
        let root = try onSizedThread(for: archive) { () throws(TypedstreamError) in try session.object(of: type, from: first.values[0], depth: 0) }
        guard let root else { throw TypedstreamError(.dataCorrupted, "the root object is nil") }
        return root
    }
}
