#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes ``FoundationValue``s, and your own ``TypedstreamEncodable`` types, as a typedstream (`NSArchiver`)
/// archive, in the classes and layouts ``TypedstreamUnarchiver`` reads (its table lists them), so that the two
/// round-trip.
///
/// The corresponding Foundation API is `NSArchiver.archivedData(withRootObject:)` (macOS only). What a
/// ``FoundationValue`` does not keep is chosen as follows: strings, arrays, sets, dictionaries and data are
/// written as their immutable classes; integers as NSNumber `q` (as `NSNumber(value: Int)` on a 64-bit
/// machine), unsigned integers past `Int64.max` as `Q`, reals as `d`, booleans as `c` (as Apple writes
/// `kCFBooleanTrue`); set elements in their stored order; dictionary entries whose keys are all strings in
/// ascending order, as ``KeyedArchiver`` writes them; equal attribute dictionaries of an attributed string
/// once. So a value read from Apple's file is written back equal, but not always byte for byte (Apple's file
/// may hold the mutable classes, `i` numbers, or another order); ``TypedstreamArchive`` keeps every byte. An
/// ``ArchivedTypedstreamObject`` is written as it was stored, with every object it holds; an object that
/// several kept values of one archive hold (or one kept value met twice) is written once and referred to
/// after, as NSArchiver writes it.
public struct TypedstreamArchiver: Sendable {
    /// The byte order written (Apple's machines today write little-endian, `streamtyped`).
    public var byteOrder: TypedstreamArchive.ByteOrder = .littleEndian
    /// The deepest nesting of values written. Default 10,000, as ``KeyedUnarchiver/Limits/maximumDepth``.
    public var maximumDepth = 10_000
    /// A class's name to the name written for it (``setClassName(_:forClassName:)``).
    var classNames: [String: String] = [:]

    /// An archiver writing little-endian data.
    public init() {}

    /// The typedstream of one root value.
    ///
    /// The corresponding Foundation API is `NSArchiver.archivedData(withRootObject:)`.
    ///
    /// - Parameter value: the root.
    /// - Returns: the bytes.
    /// - Throws: ``TypedstreamError/Code/invalidArchive`` for a value with no typedstream form here (a UUID,
    ///   an index set, a measurement... the keyed catalogue's other classes),
    ///   ``TypedstreamError/Code/limitExceeded`` for nesting deeper than ``maximumDepth``.
    public func archivedData(withRootValue value: FoundationValue) throws(TypedstreamError) -> Data {
        try archive(withRootValue: value).encodedData()
    }

    /// The raw model of one root value, as ``archivedData(withRootValue:)`` writes it.
    ///
    /// - Parameter value: the root.
    /// - Returns: the archive.
    /// - Throws: as ``archivedData(withRootValue:)``.
    public func archive(withRootValue value: FoundationValue) throws(TypedstreamError) -> TypedstreamArchive {
        try runTypedstreamWork(levels: maximumDepth + 1) { () throws(TypedstreamError) in
            var builder = TypedstreamModelBuilder(byteOrder: byteOrder, maximumDepth: maximumDepth, classNames: classNames)
            let root = try builder.object(value, depth: 0)
            builder.archive.groups = [TypedstreamGroup(encoding: "@", values: [root])]
            return builder.archive
        }
    }
}
