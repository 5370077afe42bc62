#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Foundation's `NSAttributedString` / `NSMutableAttributedString`: a string with attribute dictionaries
/// over runs of it.
///
/// The corresponding Foundation class is `NSAttributedString`. Ranges count UTF-16 code units, as
/// `NSRange` does. Attribute values are plain Foundation values (``FoundationValue``): an attribute whose
/// value is of another class (an NSColor, NSFont, NSParagraphStyle...) makes reading fail with
/// ``KeyedArchiveError/Code/classNotAllowed``; colors and fonts become readable once the class catalogue
/// offers ``FoundationValue`` cases for them.
///
/// Layout (the Darwin NSAttributedString.archive and NSMutableAttributedString.archive fixtures, macOS
/// 10.14, and swift-corelibs-foundation's NSKeyedArchiver run in-process):
/// - `NSString`: UID → the string (an inline string; Darwin writes an NSMutableString object, `NS.string`
///   inline, for NSMutableAttributedString);
/// - no runs (empty string): nothing else;
/// - one run over the whole string: `NSAttributes`, UID → its NSDictionary;
/// - several runs: `NSAttributes`, UID → an NSMutableArray of NSDictionary (each distinct dictionary once),
///   and `NSAttributeInfo`, UID → an NSMutableData object of unsigned LEB128 varint pairs, one per run:
///   the run's length, then the index of its dictionary in `NSAttributes`.
///
/// Written as `NSAttributedString` (`NSMutableAttributedString` is read too). Equal attribute
/// dictionaries are written once (Apple shares them by identity, so two equal but distinct dictionaries
/// appear twice in Apple's archives). `NSAttributes` is written as an NSArray: the encoder has no
/// NSMutableArray form (Foundation reads either).
public struct ArchivedAttributedString: CataloguedValue {
    /// One run: a range of the string (UTF-16 offsets) and its attributes.
    public struct Run: Hashable, Sendable {
        /// The run's range, in UTF-16 code units.
        public var range: Range<Int>
        /// The run's attributes (attribute name → value).
        public var attributes: [String: FoundationValue]
        /// A run over `range` with `attributes`.
        public init(range: Range<Int>, attributes: [String: FoundationValue]) {
            self.range = range
            self.attributes = attributes
        }
    }

    /// The characters.
    public private(set) var string: String
    /// The runs, in order, covering the whole string (UTF-16 offsets); none for an empty string.
    public private(set) var runs: [Run]

    /// An attributed string whose runs are `runs`.
    ///
    /// - Throws: ``KeyedArchiveError/Code/invalidValue`` when the runs do not cover the string's UTF-16
    ///   length exactly, in order, without gaps or empty runs.
    public init(string: String, runs: [Run]) throws {
        var position = 0
        for (i, run) in runs.enumerated() {
            guard run.range.lowerBound == position, !run.range.isEmpty else {
                throw KeyedArchiveError(.invalidValue, "run \(i) (\(run.range)) does not start at \(position) or is empty",
                                        className: Self.archivedClassName)
            }
            position = run.range.upperBound
        }
        guard position == string.utf16.count else {
            throw KeyedArchiveError(.invalidValue, "the runs cover \(position) UTF-16 units; the string has \(string.utf16.count)",
                                    className: Self.archivedClassName)
        }
        self.string = string
        self.runs = runs
    }

    /// An attributed string whose runs are known to cover `string`'s UTF-16 length exactly, in order,
    /// without gaps or empty runs (what ``init(string:runs:)`` checks).
    init(string: String, validRuns runs: [Run]) {
        self.string = string
        self.runs = runs
    }

    /// A string with the same attributes throughout (no run when it is empty).
    public init(string: String, attributes: [String: FoundationValue] = [:]) {
        self.string = string
        let length = string.utf16.count
        runs = length == 0 ? [] : [Run(range: 0 ..< length, attributes: attributes)]
    }

    public static var archivedClassName: String { "NSAttributedString" }
    public static var foundationValueName: String { "attributedString" }
    public static var legacyClassNames: [String] { ["NSMutableAttributedString"] }

    public init(from decoder: any ArchiveDecoder) throws {
        self = try namingClass(Self.archivedClassName) { try Self(reading: decoder) }
    }

    /// Reads `NSString` and the one-dictionary or several-run form of `NSAttributes` / `NSAttributeInfo`.
    ///
    /// - Throws: ``KeyedArchiveError`` naming `NSAttributedString` and the key when a member is missing or of
    ///   the wrong kind, an attribute name is not a string, a varint is truncated or too long, a run points
    ///   past `NSAttributes` or past the string's end, or the runs stop short of it.
    private init(reading decoder: any ArchiveDecoder) throws {
        let className = Self.archivedClassName
        let string = try decoder.decode(String.self, forKey: "NSString")
        let length = string.utf16.count
        self.string = string
        guard try !decoder.decodeNil(forKey: "NSAttributes") else {
            runs = []
            return
        }
        switch try decoder.decodeFoundationValue(forKey: "NSAttributes") {
        case .dictionary(let d):
            let attributes = try Self.attributes(d.dictionary, decoder, key: "NSAttributes")
            runs = length == 0 ? [] : [Run(range: 0 ..< length, attributes: attributes)]
        case .array(let table):
            var dictionaries: [[String: FoundationValue]] = []
            dictionaries.reserveCapacity(table.count)
            for (i, entry) in table.enumerated() {
                guard case .dictionary(let d) = entry else {
                    throw foundationTypeError(decoder, className: className, key: "NSAttributes",
                                              "element \(i) is not a dictionary", code: .typeMismatch)
                }
                dictionaries.append(try Self.attributes(d.dictionary, decoder, key: "NSAttributes"))
            }
            let info = [UInt8](try decoder.decode(Data.self, forKey: "NSAttributeInfo"))
            var runs: [Run] = []
            // Each run takes at least two bytes and one UTF-16 unit.
            runs.reserveCapacity(min(info.count / 2, length, foundationTypeReserveCap))
            var offset = 0, position = 0
            do {
                while offset < info.count {
                    let runStart = offset
                    let runLength = try Varint.read(info, at: &offset)
                    let slot = try Varint.read(info, at: &offset)
                    guard runLength > 0, runLength <= UInt64(length - position) else {
                        throw foundationTypeError(decoder, className: className, key: "NSAttributeInfo",
                                                  "run at byte \(runStart) of length \(runLength) from \(position) is empty or ends past the string's \(length) UTF-16 units")
                    }
                    guard slot < UInt64(dictionaries.count) else {
                        throw foundationTypeError(decoder, className: className, key: "NSAttributeInfo",
                                                  "run at byte \(runStart) uses attribute dictionary \(slot) of \(dictionaries.count)")
                    }
                    let end = position + Int(runLength)
                    runs.append(Run(range: position ..< end, attributes: dictionaries[Int(slot)]))
                    position = end
                }
            } catch let fault as Varint.Fault {
                throw foundationTypeError(decoder, className: className, key: "NSAttributeInfo", Varint.describe(fault))
            }
            guard position == length else {
                throw foundationTypeError(decoder, className: className, key: "NSAttributeInfo",
                                          "the runs cover \(position) of the string's \(length) UTF-16 units")
            }
            self.runs = runs
        default:
            throw foundationTypeError(decoder, className: className, key: "NSAttributes",
                                      "expected a dictionary or an array of dictionaries", code: .typeMismatch)
        }
    }

    /// Writes the form Apple writes for this many runs.
    public func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(string, forKey: "NSString")
        if runs.count == 1 {
            try encoder.encode(runs[0].attributes, forKey: "NSAttributes")
        } else if runs.count > 1 {
            var table: [[String: FoundationValue]] = []
            var slots: [[String: FoundationValue]: Int] = [:]
            var info: [UInt8] = []
            for run in runs {
                let slot: Int
                if let known = slots[run.attributes] {
                    slot = known
                } else {
                    slot = table.count
                    slots[run.attributes] = slot
                    table.append(run.attributes)
                }
                Varint.append(UInt64(run.range.count), to: &info)
                Varint.append(UInt64(slot), to: &info)
            }
            try encoder.encode(table, forKey: "NSAttributes")
            try encoder.encode(MutableDataObject(Data(info)), forKey: "NSAttributeInfo")
        }
    }

    /// Whether both have the same string and runs (attribute values compared as ``FoundationValue``'s `==`
    /// compares them: iteratively, so attributed strings nested in attributes to any depth compare).
    public static func == (lhs: ArchivedAttributedString, rhs: ArchivedAttributedString) -> Bool {
        FoundationValue.attributedString(lhs) == .attributedString(rhs)
    }

    /// Hashes the string and runs, attribute values a bounded number of levels deep (as ``FoundationValue``).
    public func hash(into hasher: inout Hasher) {
        FoundationValue.attributedString(self).hash(into: &hasher)
    }

    /// `NSAttributedString "0123456789" (6 runs)`.
    public var description: String {
        let text = string.count > 40 ? "\"\(string.prefix(40))...\"" : "\"\(string)\""
        return "NSAttributedString \(text) (\(runs.count) run\(runs.count == 1 ? "" : "s"))"
    }

    /// How an error names a value that should have been an attribute name: a counted set by its size (its
    /// description would describe every counted set nested in it, recursively), anything else by its summary.
    private static func attributeNameSummary(_ name: FoundationValue) -> String {
        guard let set = name.countedSet else { return foundationValueSummary(name) }
        return set.summary
    }

    private static func attributes(_ d: [FoundationValue: FoundationValue], _ decoder: any ArchiveDecoder, key: String) throws
        -> [String: FoundationValue]
    {
        var result = [String: FoundationValue](minimumCapacity: d.count)
        for (name, value) in d {
            guard case .string(let s) = name else {
                throw foundationTypeError(decoder, className: archivedClassName, key: key,
                                          "attribute name \(attributeNameSummary(name)) is not a string", code: .typeMismatch)
            }
            result[s] = value
        }
        return result
    }

    // MARK: Codable

    private struct CodableRun: Codable {
        var location: Int
        var length: Int
        var attributes: [String: CodableFoundationValue]
    }
    private enum CodingKeys: String, CodingKey { case string, runs }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let string = try c.decode(String.self, forKey: .string)
        var runs: [Run] = []
        for r in try c.decode([CodableRun].self, forKey: .runs) {
            guard r.length > 0, r.location >= 0, r.location <= Int.max - r.length else {
                throw DecodingError.dataCorruptedError(forKey: .runs, in: c, debugDescription: "run {\(r.location), \(r.length)} is invalid")
            }
            runs.append(Run(range: r.location ..< r.location + r.length, attributes: r.attributes.mapValues(\.value)))
        }
        do {
            try self.init(string: string, runs: runs)
        } catch {
            throw DecodingError.dataCorruptedError(forKey: .runs, in: c, debugDescription: "\(error)")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(string, forKey: .string)
        try c.encode(runs.map { CodableRun(location: $0.range.lowerBound, length: $0.range.count,
                                           attributes: $0.attributes.mapValues(CodableFoundationValue.init)) }, forKey: .runs)
    }
}
