#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// Checks that an archive written by an earlier version of a model (a *golden file* kept with the tests)
/// still decodes to the value it held, so that a change to the model cannot silently stop reading the
/// files users already have.
///
/// Works with any test framework: it returns a ``GoldenFileReport`` that the test asserts on.
///
/// ```swift
/// // Swift Testing
/// let url = try #require(Bundle.module.url(forResource: "note-v1", withExtension: "archive"))
/// let report = ArchiveGoldenFile.check(Note(title: "Groceries", tags: []), goldenFile: url)
/// #expect(report.isPassed, "\(report)")
/// // XCTest
/// let url = try XCTUnwrap(Bundle.module.url(forResource: "note-v1", withExtension: "archive"))
/// XCTAssertTrue(ArchiveGoldenFile.check(Note(title: "Groceries", tags: []), goldenFile: url).isPassed)
/// ```
///
/// ## Recording
/// A golden file is written once, by the model version whose archives it guards, and checked in. In the
/// default mode (``Mode/check``) a missing file fails the check. Run the tests once with the environment
/// variable `KEYEDARCHIVE_RECORD_GOLDEN_FILES=1` (or pass ``Mode/recordIfMissing``) to write each missing
/// file from the expected value with the current model; such a run reports ``GoldenFileReport/recordedFile``
/// and does not pass, so recording cannot be left on by mistake. An existing file is never replaced, in
/// either mode: delete it to record it again.
///
/// ## How the comparison works
/// The golden archive is decoded as `T` with the given ``KeyedUnarchiver`` (its registry and legacy names
/// apply, as they do for users' files). The expected value and the decoded one are then both archived with
/// the current `encode(to:)`, and the two archives are compared from `root` as ``ArchiveRoundTrip`` compares
/// (``ArchiveGraphComparison``): every difference names its key path, `root.tags: 2 elements != 0 elements`,
/// with the expected value as the original and the decoded value as the copy. For an `Equatable` type,
/// `==` must hold as well.
public enum ArchiveGoldenFile {
    /// What a check does when its golden file does not exist.
    public enum Mode: Sendable, Hashable {
        /// A missing golden file fails the check (``GoldenFileFailure/Stage/missingFile``).
        case check
        /// A missing golden file is written from the expected value; an existing one is checked, never replaced.
        case recordIfMissing

        /// The environment variable that selects ``recordIfMissing`` when set to `1`.
        public static let environmentVariable = "KEYEDARCHIVE_RECORD_GOLDEN_FILES"

        /// The mode `environment` selects: ``recordIfMissing`` when ``environmentVariable`` is `1`, else ``check``.
        /// - Parameter environment: environment variables, such as `ProcessInfo.processInfo.environment`.
        public init(environment: [String: String]) {
            self = environment[Self.environmentVariable] == "1" ? .recordIfMissing : .check
        }

        /// The mode this process's environment selects (see ``init(environment:)``).
        public static var fromEnvironment: Mode { Mode(environment: ProcessInfo.processInfo.environment) }
    }

    /// Decodes the golden file at `url` as `T` and compares the result with `expected`.
    ///
    /// - Parameters:
    ///   - expected: the value the golden file was written from, built with the current model.
    ///   - type: the type to decode as; by default the expected value's own type.
    ///   - url: the golden file (a binary or XML keyed archive).
    ///   - unarchiver: the unarchiver to decode with (the one the app uses, with its legacy names and limits).
    ///   - mode: what to do when the file is missing; by default ``Mode/fromEnvironment``.
    ///   - configuration: how a missing file is recorded (output format, class names).
    ///   - maximumDifferences: the comparison stops after this many differences.
    /// - Returns: the report. Never throws: a missing file, an error while reading, decoding, archiving or
    ///   recording is reported as ``GoldenFileReport/failure``.
    public static func check<T: ArchiveValue>(_ expected: T, as type: T.Type = T.self, goldenFile url: URL,
                                              unarchiver: KeyedUnarchiver = KeyedUnarchiver(),
                                              mode: Mode = .fromEnvironment,
                                              recordingWith configuration: KeyedArchiver.Configuration = .init(),
                                              maximumDifferences: Int = 100) -> GoldenFileReport<T> {
        checkFile(expected, url, unarchiver, mode, configuration, maximumDifferences, equals: nil)
    }

    /// Decodes the golden file at `url` as `T` and compares the result with `expected`, field by field
    /// and with `==`. The parameters are those of the same method for any `T`.
    public static func check<T: ArchiveValue & Equatable>(_ expected: T, as type: T.Type = T.self, goldenFile url: URL,
                                                          unarchiver: KeyedUnarchiver = KeyedUnarchiver(),
                                                          mode: Mode = .fromEnvironment,
                                                          recordingWith configuration: KeyedArchiver.Configuration = .init(),
                                                          maximumDifferences: Int = 100) -> GoldenFileReport<T> {
        checkFile(expected, url, unarchiver, mode, configuration, maximumDifferences, equals: ==)
    }

    /// Decodes `archive` (golden bytes kept in a test's source) as `T` and compares the result with `expected`.
    ///
    /// - Parameters:
    ///   - expected: the value the archive was written from, built with the current model.
    ///   - type: the type to decode as; by default the expected value's own type.
    ///   - archive: the golden archive's bytes (binary or XML).
    ///   - unarchiver: the unarchiver to decode with.
    ///   - maximumDifferences: the comparison stops after this many differences.
    /// - Returns: the report. Never throws: an error while decoding or archiving is reported as
    ///   ``GoldenFileReport/failure``.
    public static func check<T: ArchiveValue>(_ expected: T, as type: T.Type = T.self, archive: Data,
                                              unarchiver: KeyedUnarchiver = KeyedUnarchiver(),
                                              maximumDifferences: Int = 100) -> GoldenFileReport<T> {
        compare(expected, archive, unarchiver, maximumDifferences, equals: nil)
    }

    /// Decodes `archive` as `T` and compares the result with `expected`, field by field and with `==`. The
    /// parameters are those of the same method for any `T`.
    public static func check<T: ArchiveValue & Equatable>(_ expected: T, as type: T.Type = T.self, archive: Data,
                                                          unarchiver: KeyedUnarchiver = KeyedUnarchiver(),
                                                          maximumDifferences: Int = 100) -> GoldenFileReport<T> {
        compare(expected, archive, unarchiver, maximumDifferences, equals: ==)
    }

    // MARK: Implementation

    /// Reads the golden file, or records it when missing and `mode` allows, then compares.
    private static func checkFile<T: ArchiveValue>(_ expected: T, _ url: URL, _ unarchiver: KeyedUnarchiver, _ mode: Mode,
                                                   _ configuration: KeyedArchiver.Configuration, _ maximumDifferences: Int,
                                                   equals: ((T, T) -> Bool)?) -> GoldenFileReport<T> {
        let archive: Data
        var recorded: URL?
        if FileManager.default.fileExists(atPath: url.path) {
            do {
                archive = try Data(contentsOf: url)
            } catch {
                return GoldenFileReport(failure: GoldenFileFailure(stage: .readingFile, error: error))
            }
        } else if mode == .check {
            return GoldenFileReport(failure: GoldenFileFailure(stage: .missingFile, message:
                "no golden file at \(url.path); run once with \(Mode.environmentVariable)=1 to record it"))
        } else {
            do {
                archive = try KeyedArchiver.archivedData(withRootObject: expected, configuration: configuration)
            } catch {
                return GoldenFileReport(failure: GoldenFileFailure(stage: .archiving, error: error))
            }
            do {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try AtomicFileWriter(options: .withoutOverwriting).write(archive, to: url)
            } catch {
                return GoldenFileReport(failure: GoldenFileFailure(stage: .writingFile, error: error))
            }
            recorded = url
        }
        var report = compare(expected, archive, unarchiver, maximumDifferences, equals: equals)
        report.recordedFile = recorded
        return report
    }

    /// Decodes `archive`, then compares the re-archived decoded value with the archived expected value.
    private static func compare<T: ArchiveValue>(_ expected: T, _ archive: Data, _ unarchiver: KeyedUnarchiver,
                                                 _ maximumDifferences: Int, equals: ((T, T) -> Bool)?) -> GoldenFileReport<T> {
        var report = GoldenFileReport<T>()
        let decoded: T
        do {
            decoded = try unarchiver.decode(T.self, from: archive)
        } catch {
            report.failure = GoldenFileFailure(stage: .unarchiving, error: error)
            return report
        }
        report.decoded = decoded
        do {
            let expectedGraph = try ArchivedObjectGraph(data: KeyedArchiver.archivedData(withRootObject: expected))
            let decodedGraph = try ArchivedObjectGraph(data: KeyedArchiver.archivedData(withRootObject: decoded))
            let comparison = ArchiveGraphComparison(original: expectedGraph, copy: decodedGraph,
                                                    maximumDifferences: maximumDifferences)
            report.differences = comparison.differences
            report.isTruncated = comparison.isTruncated
        } catch {
            report.failure = GoldenFileFailure(stage: .archiving, error: error)
            return report
        }
        if report.differences.isEmpty, let equals, !equals(expected, decoded) {
            report.differences.append(RoundTripDifference(keyPath: "root", original: "\(expected)", copy: "\(decoded)", kind: .value))
        }
        return report
    }
}

/// What ``ArchiveGoldenFile`` found.
public struct GoldenFileReport<Value> {
    /// The value decoded from the golden archive, when decoding succeeded.
    public var decoded: Value?
    /// The differences between the expected value and the decoded one (the expected value is the original,
    /// the decoded value the copy), in the order met walking from `root`.
    public var differences: [RoundTripDifference] = []
    /// Whether the comparison stopped at `maximumDifferences`.
    public var isTruncated = false
    /// The golden file this check wrote because it was missing (``ArchiveGoldenFile/Mode/recordIfMissing``).
    public var recordedFile: URL?
    /// The step that failed, if any.
    public var failure: GoldenFileFailure?

    init(failure: GoldenFileFailure? = nil) {
        self.failure = failure
    }

    /// Whether an existing golden file decoded to the expected value with no difference at all.
    public var isPassed: Bool { failure == nil && differences.isEmpty && recordedFile == nil }
}

extension GoldenFileReport: Sendable where Value: Sendable {}

extension GoldenFileReport: CustomStringConvertible {
    /// `golden file: matches`, or the failure, or the recording, or one line per difference.
    public var description: String {
        if let failure { return "golden file check failed while \(failure.stage): \(failure.message)" }
        var lines: [String] = []
        if let recordedFile {
            lines.append("golden file recorded at \(recordedFile.path): check it in, then run the tests without recording")
        }
        if !differences.isEmpty {
            lines.append("golden file: \(differences.count)\(isTruncated ? "+" : "") difference\(differences.count == 1 ? "" : "s") (expected != decoded)")
            lines += differences.map { "  " + $0.description }
        }
        return lines.isEmpty ? "golden file: matches" : lines.joined(separator: "\n")
    }
}

/// An error met while checking a golden file.
public struct GoldenFileFailure: Sendable, Hashable {
    /// The step of the check.
    public enum Stage: String, Sendable, Hashable, CustomStringConvertible {
        /// Looking for the golden file in ``ArchiveGoldenFile/Mode/check`` mode: there is none.
        case missingFile
        /// Reading the golden file.
        case readingFile
        /// Decoding the golden archive as the requested type.
        case unarchiving
        /// Archiving the expected or the decoded value (to compare them, or to record a missing file).
        case archiving
        /// Writing a missing golden file.
        case writingFile
        public var description: String { rawValue }
    }
    /// Where it happened.
    public var stage: Stage
    /// What went wrong.
    public var message: String
    /// The error's code, when it was a ``KeyedArchiveError``.
    public var code: KeyedArchiveError.Code?

    init(stage: Stage, message: String) {
        self.stage = stage
        self.message = message
    }

    init(stage: Stage, error: any Error) {
        self.stage = stage
        self.message = "\(error)"
        self.code = (error as? KeyedArchiveError)?.code
    }
}
