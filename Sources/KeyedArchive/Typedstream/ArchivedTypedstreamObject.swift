#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An object of a class that has no Foundation value (an old nib's Interface Builder objects, a Grapher
/// document's classes, an app's own class), kept as the typedstream stores it, so that nothing of it is lost:
/// what ``TypedstreamUnarchiver`` reads such an object as when ``TypedstreamUnarchiver/keepsUnknownObjects``
/// is set.
///
/// It names its place in the raw model: ``archive`` (the whole archive, shared, not copied) and
/// ``objectIndex``. ``TypedstreamArchiver`` writes it back as it was stored: its class chain with versions,
/// its groups, and every object they hold, each once (also across several kept objects of one archive
/// written together). Read its values with
/// ``TypedstreamUnarchiver/foundationValues(of:in:)`` over ``groups``.
///
/// Foundation has no corresponding API (`NSUnarchiver` instantiates the class or fails). It has no keyed or
/// `Codable` form: writing it with ``KeyedArchiver`` or an `Encoder` throws. Two are equal when they are the
/// same object of equal archives.
public struct ArchivedTypedstreamObject: CataloguedValue {
    public static var archivedClassName: String { "TypedstreamObject" }
    public static var foundationValueName: String { "typedstreamObject" }

    /// The archive the object is stored in.
    public let archive: TypedstreamArchive
    /// The object's index in ``TypedstreamArchive/objects``.
    public let objectIndex: Int

    /// The object at `index` of `archive`.
    ///
    /// - Parameters:
    ///   - index: an index in `archive`'s ``TypedstreamArchive/objects``.
    ///   - archive: the archive.
    /// - Throws: ``TypedstreamError/Code/invalidArchive`` when `index` or the object's class is outside the
    ///   archive's tables.
    public init(objectAt index: Int, in archive: TypedstreamArchive) throws(TypedstreamError) {
        guard archive.className(ofObjectAt: index) != nil else {
            throw TypedstreamError(.invalidArchive, "object #\(index) or its class is past the archive's tables", objectIndex: index)
        }
        self.archive = archive
        objectIndex = index
    }

    /// The class chain: the object's class, its superclass, ..., the root class, each with the version the
    /// archive records.
    public var classChain: [TypedstreamClassVersion] {
        archive.classChain(ofClassAt: archive.objects[objectIndex].classIndex).map { TypedstreamClassVersion(name: $0.name, version: $0.version) }
    }

    /// The object's class name.
    public var className: String { archive.classes[archive.objects[objectIndex].classIndex].name }

    /// The groups of values its `encodeWithCoder:` wrote, in order (objects in them are indexes in ``archive``).
    public var groups: [TypedstreamGroup] { archive.objects[objectIndex].groups }

    public var description: String {
        "\(className) (typedstream object #\(objectIndex), \(groups.count) groups)"
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.objectIndex == rhs.objectIndex && lhs.archive == rhs.archive
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(objectIndex)
        hasher.combine(className)
        hasher.combine(groups.count)
    }

    /// Refused: the object has no keyed form.
    ///
    /// - Throws: ``KeyedArchiveError/Code/invalidValue``, always.
    public init(from decoder: any ArchiveDecoder) throws {
        throw KeyedArchiveError(.invalidValue, "a typedstream object is not read from a keyed archive", className: Self.archivedClassName)
    }

    /// Refused: the object has no keyed form.
    ///
    /// - Throws: ``KeyedArchiveError/Code/invalidValue``, always.
    public func encode(to encoder: any ArchiveEncoder) throws {
        throw KeyedArchiveError(.invalidValue, "a typedstream object of class \(className) has no keyed form; write it with TypedstreamArchiver",
                                className: className)
    }

    /// Refused: the object has no `Codable` form.
    ///
    /// - Throws: `DecodingError.dataCorrupted`, always.
    public init(from decoder: any Decoder) throws {
        throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "a typedstream object has no Codable form"))
    }

    /// Refused: the object has no `Codable` form.
    ///
    /// - Throws: `EncodingError.invalidValue`, always.
    public func encode(to encoder: any Encoder) throws {
        throw EncodingError.invalidValue(className, .init(codingPath: encoder.codingPath,
                                                          debugDescription: "a typedstream object of class \(className) has no Codable form"))
    }
}
