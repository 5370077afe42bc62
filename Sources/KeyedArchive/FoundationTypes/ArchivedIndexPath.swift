#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Foundation's `NSIndexPath`: a list of indexes (a path into nested arrays or a tree).
///
/// The corresponding Foundation types are `NSIndexPath` and `IndexPath` (see ``indexPath``).
///
/// Layout (the Darwin NSIndexPath-*.archive fixtures, macOS 10.14; the varint encoding also in public
/// decompilations of Apple's `-[NSIndexPath encodeWithCoder:]`):
/// - `NSIndexPathLength`: inline integer, the number of indexes;
/// - one index: `NSIndexPathValue`, inline integer;
/// - several: `NSIndexPathData`, UID → an NSMutableData object of unsigned LEB128 varints, one per index.
///
/// (GNUstep writes `NSIndexPathData` as one 8-byte slot per index holding a big-endian 32-bit value, which GNUstep
/// itself reads back wrongly; that layout is not read: see Tests/GNUstepOracle/README.md.)
public struct ArchivedIndexPath: CataloguedValue {
    /// The indexes, in order; never negative.
    public private(set) var indexes: [Int]

    /// An index path of `indexes` (negative indexes are the caller's error and are clamped to 0).
    public init(indexes: [Int] = []) { self.indexes = indexes.map { max($0, 0) } }

    /// An index path with the indexes of `indexPath`.
    public init(_ indexPath: IndexPath) { self.init(indexes: Array(indexPath)) }

    /// The path as Foundation's value type.
    public var indexPath: IndexPath { IndexPath(indexes: indexes) }

    public static var archivedClassName: String { "NSIndexPath" }
    public static var foundationValueName: String { "indexPath" }

    /// Reads `NSIndexPathLength` and `NSIndexPathValue` or `NSIndexPathData`.
    ///
    /// - Throws: ``KeyedArchiveError`` naming `NSIndexPath` and the key when a member is missing or of the
    ///   wrong kind, the length is negative or does not match the data, or a varint is truncated or too long.
    public init(from decoder: any ArchiveDecoder) throws {
        self = try namingClass(Self.archivedClassName) { try Self(reading: decoder) }
    }

    private init(reading decoder: any ArchiveDecoder) throws {
        let className = Self.archivedClassName
        let length = try decoder.decode(Int.self, forKey: "NSIndexPathLength")
        guard length >= 0 else {
            throw foundationTypeError(decoder, className: className, key: "NSIndexPathLength", "negative length \(length)")
        }
        if length == 0 {
            indexes = []
        } else if length == 1 {
            let value = try decoder.decode(Int.self, forKey: "NSIndexPathValue")
            guard value >= 0 else {
                throw foundationTypeError(decoder, className: className, key: "NSIndexPathValue", "negative index \(value)")
            }
            indexes = [value]
        } else {
            let bytes = [UInt8](try decoder.decode(Data.self, forKey: "NSIndexPathData"))
            guard length <= bytes.count else {
                throw foundationTypeError(decoder, className: className, key: "NSIndexPathData",
                                          "NSIndexPathLength is \(length) but the data holds \(bytes.count) bytes")
            }
            var found: [Int] = []
            found.reserveCapacity(length)
            var offset = 0
            do {
                for _ in 0 ..< length {
                    let v = try Varint.read(bytes, at: &offset)
                    guard let i = Int(exactly: v) else {
                        throw foundationTypeError(decoder, className: className, key: "NSIndexPathData", "index \(v) does not fit in Int")
                    }
                    found.append(i)
                }
            } catch let fault as Varint.Fault {
                throw foundationTypeError(decoder, className: className, key: "NSIndexPathData", Varint.describe(fault))
            }
            guard offset == bytes.count else {
                throw foundationTypeError(decoder, className: className, key: "NSIndexPathData",
                                          "\(bytes.count - offset) bytes left after \(length) indexes")
            }
            indexes = found
        }
    }

    /// Writes the form Apple writes for this many indexes.
    public func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(indexes.count, forKey: "NSIndexPathLength")
        if indexes.count == 1 {
            try encoder.encode(indexes[0], forKey: "NSIndexPathValue")
        } else if indexes.count > 1 {
            var bytes: [UInt8] = []
            for i in indexes { Varint.append(UInt64(i), to: &bytes) }
            try encoder.encode(MutableDataObject(Data(bytes)), forKey: "NSIndexPathData")
        }
    }

    /// `NSIndexPath [4, 8, 15]`.
    public var description: String { "NSIndexPath [" + indexes.map(String.init).joined(separator: ", ") + "]" }

    private enum CodingKeys: String, CodingKey { case indexes }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(indexes: try c.decode([Int].self, forKey: .indexes))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(indexes, forKey: .indexes)
    }
}
