#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Foundation's `NSCountedSet`: a set whose elements each have a count (how many times each was added).
///
/// The corresponding Foundation class is `NSCountedSet`. Elements are plain Foundation values
/// (``FoundationValue``); any other class of element is ``KeyedArchiveError/Code/classNotAllowed``.
///
/// Layout (the Darwin NSCountedSet-*.archive fixtures, macOS 10.14), `$classes`
/// `[NSCountedSet, NSMutableSet, NSSet, NSObject]`:
/// - `NS.count`: inline integer, the number of distinct elements;
/// - `NS.object0`, `NS.object1`, ...: UID → the element (a number is its own NSNumber object, not inline);
/// - `NS.count0`, `NS.count1`, ...: inline integer, that element's count.
///
/// Written in a fixed order (elements sorted by their description), so equal sets give the same bytes.
/// A Boolean element is its own NSNumber object holding a property-list Boolean, as Foundation writes `@YES`.
public struct ArchivedCountedSet: CataloguedValue {
    /// Each distinct element and how many times it is in the set (always at least 1).
    public private(set) var counts: [FoundationValue: Int]

    /// A counted set with the given counts; elements whose count is not positive are left out.
    public init(counts: [FoundationValue: Int] = [:]) { self.counts = counts.filter { $0.value > 0 } }

    /// A counted set of `elements`, each counted as often as it occurs.
    public init<S: Sequence>(_ elements: S) where S.Element == FoundationValue {
        var counts: [FoundationValue: Int] = [:]
        for e in elements { counts[e, default: 0] += 1 }
        self.counts = counts
    }

    /// How many times `element` is in the set (0 when absent). The corresponding Foundation API is
    /// `NSCountedSet.count(for:)`.
    public func count(for element: FoundationValue) -> Int { counts[element] ?? 0 }

    public static var archivedClassName: String { "NSCountedSet" }
    public static var foundationValueName: String { "countedSet" }
    public static var archivedClassChain: [String] { ["NSCountedSet", "NSMutableSet", "NSSet", "NSObject"] }

    /// Reads `NS.count` pairs of `NS.objectN` and `NS.countN`.
    ///
    /// - Throws: ``KeyedArchiveError`` naming `NSCountedSet` and the key when a member is missing or of the
    ///   wrong kind, `NS.count` is negative, a count is not positive, or two entries' counts overflow.
    public init(from decoder: any ArchiveDecoder) throws {
        self = try namingClass(Self.archivedClassName) { try Self(reading: decoder) }
    }

    private init(reading decoder: any ArchiveDecoder) throws {
        let className = Self.archivedClassName
        let n = try decoder.decode(Int.self, forKey: "NS.count")
        guard n >= 0 else {
            throw foundationTypeError(decoder, className: className, key: "NS.count", "negative count \(n)")
        }
        // Every element needs its own keys, so a count larger than the object fails at the first missing key.
        var counts = [FoundationValue: Int](minimumCapacity: min(n, foundationTypeReserveCap))
        for i in 0 ..< n {
            let element = try decoder.decodeFoundationValue(forKey: "NS.object\(i)")
            let count = try decoder.decode(Int.self, forKey: "NS.count\(i)")
            guard count > 0 else {
                throw foundationTypeError(decoder, className: className, key: "NS.count\(i)", "count \(count) is not positive")
            }
            let (sum, overflow) = (counts[element] ?? 0).addingReportingOverflow(count)
            guard !overflow else {
                throw foundationTypeError(decoder, className: className, key: "NS.count\(i)", "counts of one element overflow Int")
            }
            counts[element] = sum
        }
        self.counts = counts
    }

    /// Writes `NS.count` and one `NS.objectN` / `NS.countN` pair per element, as Apple does.
    public func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(counts.count, forKey: "NS.count")
        for (i, (element, count)) in sortedEntries.enumerated() {
            let key = "NS.object\(i)"
            switch element {
            case .integer(let v):
                if let s = v.int64Value { try encoder.encodeIntegerObject(s, forKey: key) } else { try encoder.encodeIntegerObject(v.uint64Value ?? 0, forKey: key) }
            case .real(let d): try encoder.encodeRealObject(d, forKey: key)
            case .bool(let b): try encoder.encodeBoolObject(b, forKey: key)
            default: try encoder.encode(element, forKey: key)
            }
            try encoder.encode(count, forKey: "NS.count\(i)")
        }
    }

    /// The entries in the order they are written and described.
    /// Ordered by ``orderKey(_:)``, computed once per element rather than once per comparison.
    var sortedEntries: [(FoundationValue, Int)] { orderedEntries.map { ($0.element, $0.count) } }

    /// The entries in the order they are written, each with its element's description when ordering needed
    /// it (two entries or more). A single entry needs no order, so a chain of counted sets each holding the
    /// next is archived without describing (recursively) what it holds.
    private var orderedEntries: [(element: FoundationValue, count: Int, text: String?)] {
        guard counts.count > 1 else { return counts.map { ($0.key, $0.value, nil) } }
        return counts.map { entry -> (key: String, entry: (element: FoundationValue, count: Int, text: String?)) in
            let text = entry.key.description
            return (Self.orderKey(entry.key, text), (entry.key, entry.value, text))
        }.sorted { $0.key < $1.key }.map(\.entry)
    }

    /// An element's place in the written order: its case name and description (`integer(1)`, `string("a")`),
    /// the order earlier versions wrote plain elements in.
    private static func orderKey(_ element: FoundationValue, _ description: String) -> String {
        if case .null = element { return "null" }
        return element.kindName + "(" + description + ")"
    }

    /// Whether both hold the same elements with the same counts (elements compared as ``FoundationValue``'s
    /// `==` compares them: iteratively, so counted sets nested in elements to any depth compare).
    public static func == (lhs: ArchivedCountedSet, rhs: ArchivedCountedSet) -> Bool {
        FoundationValue.countedSet(lhs) == .countedSet(rhs)
    }

    /// Hashes the elements and counts, a bounded number of levels deep (as ``FoundationValue``).
    public func hash(into hasher: inout Hasher) {
        FoundationValue.countedSet(self).hash(into: &hasher)
    }

    /// `NSCountedSet {1 ×2, "a" ×1}`. Counted sets nested more than 64 deep inside it are
    /// summarized (`NSCountedSet (1 element)`), so describing a set decoded from an untrusted archive, nested
    /// as deep as the unarchiver's limits allow, cannot exhaust the stack.
    public var description: String {
        let level = Self.describingLevel
        guard level < Self.describedLevels else { return summary }
        return Self.$describingLevel.withValue(level + 1) { describedEntries }
    }

    /// `NSCountedSet (2 elements)`: the set named by its size, without describing what it holds.
    var summary: String { "NSCountedSet (\(counts.count) element\(counts.count == 1 ? "" : "s"))" }

    /// How many counted sets, one inside another, a description writes out in full.
    static let describedLevels = 64

    /// How many counted-set descriptions are being written on this task or thread, one inside another:
    /// every way a description recurses into a nested set (its entries, their order, an element that is
    /// an array or an attributed string holding one) goes through ``description``.
    @TaskLocal static var describingLevel = 0

    /// ``description`` written out.
    private var describedEntries: String {
        // A nested counted set's summary is its description, already written for the order: described once
        // (describing it again per use doubled the work at every level).
        "NSCountedSet {" + orderedEntries.map { entry in
            let summary: String
            if entry.element.countedSet != nil, let text = entry.text { summary = text } else { summary = foundationValueSummary(entry.element) }
            return "\(summary) ×\(entry.count)"
        }.joined(separator: ", ") + "}"
    }

    private struct CodableEntry: Codable {
        var element: CodableFoundationValue
        var count: Int
    }
    private enum CodingKeys: String, CodingKey { case entries }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        var counts: [FoundationValue: Int] = [:]
        for e in try c.decode([CodableEntry].self, forKey: .entries) {
            let (sum, overflow) = counts[e.element.value, default: 0].addingReportingOverflow(e.count)
            guard !overflow else {
                throw DecodingError.dataCorruptedError(forKey: .entries, in: c, debugDescription: "counts of one element overflow Int")
            }
            counts[e.element.value] = sum
        }
        self.init(counts: counts)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(sortedEntries.map { CodableEntry(element: CodableFoundationValue($0.0), count: $0.1) }, forKey: .entries)
    }
}
