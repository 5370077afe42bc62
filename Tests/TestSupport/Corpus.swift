import Foundation

/// The shared corpus of real property lists and keyed archives (`<package root>/../shared/corpus`, or the
/// folder named by the environment variable `KEYEDARCHIVE_CORPUS`).
///
/// A test that reads the corpus carries the condition trait `.enabled(if: Corpus.isAvailable, ...)`, so that
/// a run without the corpus reports it as skipped, never as passed:
///
/// ```swift
/// @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus"))
/// func everyCorpusFileReads() throws {
///     for file in Corpus.files() { let data = try Corpus.data(file) ... }
/// }
/// ```
public enum Corpus {
    /// The package root: the folder that holds Package.swift.
    public static var packageRoot: URL { BuiltProducts.packageRoot }

    /// `<package root>/../shared/corpus`, standardized, or `$KEYEDARCHIVE_CORPUS` when that is set (a test
    /// run can point it at a missing folder to see which tests are skipped without the corpus).
    public static let directory: URL = {
        if let override = ProcessInfo.processInfo.environment["KEYEDARCHIVE_CORPUS"], !override.isEmpty {
            return URL(fileURLWithPath: override).standardizedFileURL
        }
        return packageRoot.appendingPathComponent("../shared/corpus").standardizedFileURL
    }()

    /// Whether the corpus is there, for `.enabled(if: Corpus.isAvailable, "needs ../shared/corpus")`.
    public static let isAvailable: Bool = isPresent

    /// Whether the corpus folder exists.
    public static var isPresent: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// Whether the corpus's description, MANIFEST.md, is there: the shared corpus has it; a corpus fetched from the
    /// files' public origins (Scripts/fetch-corpus.sh) does not. For `.enabled(if: Corpus.hasManifest, ...)`.
    public static var hasManifest: Bool { FileManager.default.fileExists(atPath: url("MANIFEST.md").path) }

    /// The documented corpus files: those listed in `provenance.json` (described in MANIFEST.md) that exist,
    /// as paths relative to the corpus folder (`"bpylist2/array_long.plist"`), sorted. Anything else in the
    /// folder (such as fuzzer output left there) is ignored, so tests see the same 166 files everywhere.
    /// Empty when the corpus is absent.
    public static func files() -> [String] {
        guard isPresent,
              let json = try? Data(contentsOf: directory.appendingPathComponent("provenance.json")),
              let entries = try? JSONSerialization.jsonObject(with: json) as? [[String: Any]]
        else { return [] }
        let listed = entries.compactMap { $0["file"] as? String }
        return listed.filter { FileManager.default.fileExists(atPath: url($0).path) }.sorted()
    }

    /// The folders of the corpus that hold no property lists: typedstreams (NSArchiver), Apple bookmark data, and
    /// SQLite databases with the fixtures that describe them.
    public static let foldersWithoutPropertyLists = ["typedstream/", "bookmark/", "sqlite/"]

    /// The corpus files outside ``foldersWithoutPropertyLists``: property lists (keyed archives among them),
    /// well-formed or damaged.
    public static func propertyListFiles() -> [String] {
        files().filter { file in !foldersWithoutPropertyLists.contains { file.hasPrefix($0) } }
    }

    /// The corpus files whose first bytes are `bplist` (binary property lists).
    public static func binaryFiles() -> [String] {
        files().filter { (try? data($0).prefix(6)) == Data("bplist".utf8) }
    }

    /// The absolute URL of a corpus file given by its relative path.
    public static func url(_ relativePath: String) -> URL { directory.appendingPathComponent(relativePath) }

    /// The bytes of a corpus file given by its relative path.
    public static func data(_ relativePath: String) throws -> Data { try Data(contentsOf: url(relativePath)) }
}
