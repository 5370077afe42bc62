#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Foundation's `NSIndexSet` / `NSMutableIndexSet`: a set of non-negative integers, kept as sorted,
/// non-overlapping, non-adjacent ranges.
///
/// The corresponding Foundation types are `NSIndexSet` and `IndexSet`. `IndexSet` is not part of
/// FoundationEssentials, so this type holds plain ranges; with Foundation, insert each range into an
/// `IndexSet` (`insert(integersIn:)`) to convert, and read `IndexSet.rangeView` to convert back.
///
/// Layout (the Darwin NSIndexSet-*.archive and NSMutableIndexSet-*.archive fixtures, macOS 10.14):
/// - `NSRangeCount`: inline integer, the number of ranges;
/// - one range: `NSLocation` and `NSLength`, inline integers;
/// - several ranges: `NSRangeData`, UID → an NSMutableData object whose bytes are unsigned LEB128 varints,
///   a (location, length) pair per range.
///
/// Written as `NSIndexSet` (`$classes` `[NSIndexSet, NSObject]`); `NSMutableIndexSet` is read too (its
/// layout is the same), and written back as `NSIndexSet`.
public struct ArchivedIndexSet: CataloguedValue {
    /// The ranges, ascending, each non-empty, none overlapping or touching another.
    public private(set) var ranges: [Range<Int>]

    /// An index set holding the indexes of `ranges` (in any order; empty ranges are ignored, overlapping
    /// and adjacent ones merged). Negative indexes are the caller's error and are dropped.
    public init(ranges: [Range<Int>] = []) {
        self.ranges = Self.normalized(ranges.map { max($0.lowerBound, 0) ..< max($0.upperBound, 0) })
    }

    /// An index set holding `indexes` (negative ones are dropped).
    public init<S: Sequence>(indexes: S) where S.Element == Int {
        self.init(ranges: indexes.map { $0 ..< $0 + 1 })
    }

    /// How many indexes the set holds (saturating at `Int.max`).
    public var count: Int {
        ranges.reduce(0) { $0.addingReportingOverflow($1.count).overflow ? Int.max : $0 + $1.count }
    }

    /// Whether `index` is in the set.
    public func contains(_ index: Int) -> Bool { ranges.contains { $0.contains(index) } }

    public static var archivedClassName: String { "NSIndexSet" }
    public static var foundationValueName: String { "indexSet" }
    public static var legacyClassNames: [String] { ["NSMutableIndexSet"] }

    /// Reads `NSRangeCount` and the one-range or several-range members.
    ///
    /// - Throws: ``KeyedArchiveError`` naming `NSIndexSet` and the key when a member is missing or of the
    ///   wrong kind, a count is negative or does not match the data, a varint is truncated or too long,
    ///   or a range is negative or ends past `Int.max`.
    public init(from decoder: any ArchiveDecoder) throws {
        self = try namingClass(Self.archivedClassName) { try Self(reading: decoder) }
    }

    private init(reading decoder: any ArchiveDecoder) throws {
        let className = Self.archivedClassName
        let count = try decoder.decode(Int.self, forKey: "NSRangeCount")
        guard count >= 0 else {
            throw foundationTypeError(decoder, className: className, key: "NSRangeCount", "negative count \(count)")
        }
        var found: [Range<Int>] = []
        if count == 1 {
            let location = try decoder.decode(Int.self, forKey: "NSLocation")
            let length = try decoder.decode(Int.self, forKey: "NSLength")
            found.append(try Self.range(location, length, decoder, key: "NSLocation"))
        } else if count > 1 {
            let bytes = [UInt8](try decoder.decode(Data.self, forKey: "NSRangeData"))
            // Each range takes at least two bytes: never reserve more than the data can hold.
            guard count <= bytes.count / 2 else {
                throw foundationTypeError(decoder, className: className, key: "NSRangeData",
                                          "NSRangeCount is \(count) but the data holds \(bytes.count) bytes")
            }
            found.reserveCapacity(count)
            var offset = 0
            do {
                for _ in 0 ..< count {
                    let location = try Varint.read(bytes, at: &offset)
                    let length = try Varint.read(bytes, at: &offset)
                    guard let l = Int(exactly: location), let n = Int(exactly: length) else {
                        throw foundationTypeError(decoder, className: className, key: "NSRangeData",
                                                  "range {\(location), \(length)} does not fit in Int")
                    }
                    found.append(try Self.range(l, n, decoder, key: "NSRangeData"))
                }
            } catch let fault as Varint.Fault {
                throw foundationTypeError(decoder, className: className, key: "NSRangeData", Varint.describe(fault))
            }
            guard offset == bytes.count else {
                throw foundationTypeError(decoder, className: className, key: "NSRangeData",
                                          "\(bytes.count - offset) bytes left after \(count) ranges")
            }
        }
        ranges = Self.normalized(found)
    }

    /// Writes the form Apple writes for this many ranges.
    public func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(ranges.count, forKey: "NSRangeCount")
        if ranges.count == 1 {
            try encoder.encode(ranges[0].lowerBound, forKey: "NSLocation")
            try encoder.encode(ranges[0].count, forKey: "NSLength")
        } else if ranges.count > 1 {
            var bytes: [UInt8] = []
            for r in ranges {
                Varint.append(UInt64(r.lowerBound), to: &bytes)
                Varint.append(UInt64(r.count), to: &bytes)
            }
            try encoder.encode(MutableDataObject(Data(bytes)), forKey: "NSRangeData")
        }
    }

    /// `NSIndexSet [1-3, 7]`.
    public var description: String {
        "NSIndexSet [" + ranges.map { $0.count == 1 ? "\($0.lowerBound)" : "\($0.lowerBound)-\($0.upperBound - 1)" }
            .joined(separator: ", ") + "]"
    }

    private static func range(_ location: Int, _ length: Int, _ decoder: any ArchiveDecoder, key: String) throws -> Range<Int> {
        guard location >= 0, length >= 0, location <= Int.max - length else {
            throw foundationTypeError(decoder, className: archivedClassName, key: key,
                                      "range {\(location), \(length)} is negative or ends past Int.max")
        }
        return location ..< location + length
    }

    private static func normalized(_ ranges: [Range<Int>]) -> [Range<Int>] {
        let sorted = ranges.filter { !$0.isEmpty }.sorted { $0.lowerBound < $1.lowerBound }
        var result: [Range<Int>] = []
        result.reserveCapacity(sorted.count)
        for r in sorted {
            if let last = result.last, r.lowerBound <= last.upperBound {
                result[result.count - 1] = last.lowerBound ..< max(last.upperBound, r.upperBound)
            } else {
                result.append(r)
            }
        }
        return result
    }

    private enum CodingKeys: String, CodingKey { case ranges }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(ranges: try c.decode([Range<Int>].self, forKey: .ranges))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(ranges, forKey: .ranges)
    }
}
