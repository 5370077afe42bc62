#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// Archives a value, unarchives it securely, and reports field by field what the copy lost.
///
/// Works with any test framework: it returns a ``RoundTripReport`` that the test asserts on.
///
/// ```swift
/// // Swift Testing
/// let report = ArchiveRoundTrip.check(note)
/// #expect(report.isFaithful, "\(report)")
/// // XCTest
/// XCTAssertTrue(report.isFaithful, report.description)
/// ```
///
/// ## How the comparison works
/// The value is archived (graph A), the archive is decoded as `T` with the given ``KeyedUnarchiver``
/// (so only `T` and what its `init(from:)` asks for are allowed), and the decoded copy is archived again
/// (graph B). The two raw object graphs are then walked side by side from `root`, and every difference is
/// reported with its key path, in the archive's terms: `root.members[1].name: "Ada" != ""`.
///
/// This catches what a hand-written `init(from:)` or `encode(to:)` typically gets wrong: a field the
/// decoder forgets (the copy re-archives a default), a wrong key, a changed type, a lost shared
/// reference (two places that were one object in the original are two objects in the copy) or two
/// objects merged into one. It compares what the archive records: a field that `encode(to:)` never
/// writes is invisible to it (compare such state yourself).
public enum ArchiveRoundTrip {
    /// Archives `value`, decodes it as `type`, re-archives the copy and compares the two archives.
    ///
    /// - Parameters:
    ///   - value: the value to round-trip (a model object, or any ``ArchiveValue`` such as `[Note]`).
    ///   - type: the type to decode as; by default the value's own type.
    ///   - format: the property-list format of the archive (binary by default, as Foundation writes).
    ///   - unarchiver: the unarchiver to decode with (its registry, legacy names and limits apply).
    ///   - maximumDifferences: the comparison stops after this many differences.
    /// - Returns: the report, with the decoded copy when decoding succeeded. Never throws: an error
    ///   while archiving or decoding is reported as ``RoundTripReport/failure``.
    public static func check<T: ArchiveValue>(_ value: T, as type: T.Type = T.self, format: PropertyListFormat = .binary,
                                              unarchiver: KeyedUnarchiver = KeyedUnarchiver(),
                                              maximumDifferences: Int = 100) -> RoundTripReport<T> {
        let original: Data
        do {
            original = try KeyedArchiver.archivedData(withRootObject: value, format: format)
        } catch {
            return RoundTripReport(failure: RoundTripFailure(stage: .archiving, error: error))
        }
        var report = RoundTripReport<T>(archive: original)
        let copy: T
        do {
            copy = try unarchiver.decode(T.self, from: original)
        } catch {
            report.failure = RoundTripFailure(stage: .unarchiving, error: error)
            return report
        }
        report.decoded = copy
        do {
            let again = try KeyedArchiver.archivedData(withRootObject: copy, format: format)
            let graphA = try ArchivedObjectGraph(data: original)
            let graphB = try ArchivedObjectGraph(data: again)
            let comparison = ArchiveGraphComparison(original: graphA, copy: graphB, maximumDifferences: maximumDifferences)
            report.differences = comparison.differences
            report.isTruncated = comparison.isTruncated
        } catch {
            report.failure = RoundTripFailure(stage: .rearchiving, error: error)
        }
        return report
    }
}

/// What ``ArchiveRoundTrip/check(_:as:format:unarchiver:maximumDifferences:)`` found.
public struct RoundTripReport<Value> {
    /// The decoded copy, when decoding succeeded.
    public var decoded: Value?
    /// The archive of the original value, when archiving succeeded.
    public var archive: Data?
    /// The differences between the original's archive and the copy's, in the order met walking from `root`.
    public var differences: [RoundTripDifference] = []
    /// Whether the comparison stopped at `maximumDifferences`.
    public var isTruncated = false
    /// The step that threw, if any.
    public var failure: RoundTripFailure?

    init(archive: Data? = nil, failure: RoundTripFailure? = nil) {
        self.archive = archive
        self.failure = failure
    }

    /// Whether the value archived, decoded and re-archived with no difference at all.
    public var isFaithful: Bool { failure == nil && differences.isEmpty }
}

extension RoundTripReport: Sendable where Value: Sendable {}

extension RoundTripReport: CustomStringConvertible {
    /// `round trip: faithful`, or the failure, or one line per difference.
    public var description: String {
        if let failure { return "round trip failed while \(failure.stage): \(failure.message)" }
        if differences.isEmpty { return "round trip: faithful" }
        var lines = ["round trip: \(differences.count)\(isTruncated ? "+" : "") difference\(differences.count == 1 ? "" : "s")"]
        lines += differences.map { "  " + $0.description }
        return lines.joined(separator: "\n")
    }
}

/// An error met during a round trip.
public struct RoundTripFailure: Sendable, Hashable {
    /// The step of the round trip.
    public enum Stage: String, Sendable, Hashable, CustomStringConvertible {
        /// Archiving the original value.
        case archiving
        /// Decoding the archive as the requested type.
        case unarchiving
        /// Archiving the decoded copy, or reading either archive back as a raw graph.
        case rearchiving
        public var description: String { rawValue }
    }
    /// Where it happened.
    public var stage: Stage
    /// The error's description.
    public var message: String
    /// The error's code, when it was a ``KeyedArchiveError``.
    public var code: KeyedArchiveError.Code?

    init(stage: Stage, error: any Error) {
        self.stage = stage
        self.message = "\(error)"
        self.code = (error as? KeyedArchiveError)?.code
    }
}

/// One place where the copy's archive differs from the original's.
public struct RoundTripDifference: Sendable, Hashable, CustomStringConvertible {
    /// Where: `root.members[1].name`; dictionary entries as `root.scores["ada"]`.
    public var keyPath: String
    /// The original's value as text: `"Ada"`, `42`, `nil`, `(absent)`, `Person object`, ...
    public var original: String
    /// The copy's value as text.
    public var copy: String
    /// What kind of difference it is.
    public var kind: Kind

    /// Kinds of differences.
    public enum Kind: String, Sendable, Hashable {
        /// Two different values (or types) at the same place.
        case value
        /// A field present on one side only.
        case missingField
        /// An object shared by several places on one side but not on the other.
        case identity
        /// Different classes at the same place.
        case className
        /// Containers with different element counts.
        case count
    }

    /// Creates a difference.
    public init(keyPath: String, original: String, copy: String, kind: Kind) {
        self.keyPath = keyPath
        self.original = original
        self.copy = copy
        self.kind = kind
    }

    /// `root.members[1].name: "Ada" != ""`.
    public var description: String {
        switch kind {
        case .identity: return "\(keyPath): identity: \(original) != \(copy)"
        default: return "\(keyPath): \(original) != \(copy)"
        }
    }
}
