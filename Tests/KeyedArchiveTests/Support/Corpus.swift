import Foundation

/// The shared corpus of real property lists and keyed archives (`<package root>/../shared/corpus`).
///
/// Tests must never fail because the corpus is missing: call ``Corpus/available(_:)`` first, which prints
/// `skipping: ../shared/corpus not found` and returns `false` when it is absent.
///
/// ```swift
/// @Test func everyCorpusFileReads() throws {
///     guard Corpus.available("everyCorpusFileReads") else { return }
///     for file in Corpus.files(extensionsOrNil) { let data = try Corpus.data(file) ... }
/// }
/// ```
enum Corpus {
    /// The package root: the folder that holds Package.swift (found from this file's path).
    static let packageRoot: URL = {
        // <root>/Tests/KeyedArchiveTests/Support/Corpus.swift
        URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // Support
            .deletingLastPathComponent()  // KeyedArchiveTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // root
    }()

    /// `<package root>/../shared/corpus`, standardized.
    static let directory: URL = packageRoot.appendingPathComponent("../shared/corpus").standardizedFileURL

    /// Whether the corpus folder exists.
    static var isPresent: Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    /// `true` when the corpus is present; otherwise prints a skip notice naming `test` and returns `false`.
    ///
    /// - Parameter test: the calling test's name, shown in the notice.
    static func available(_ test: String = #function) -> Bool {
        if isPresent { return true }
        print("skipping \(test): ../shared/corpus not found (looked in \(directory.path))")
        return false
    }

    /// Every corpus file (not the MANIFEST.md / provenance.json bookkeeping), as paths relative to the
    /// corpus folder (`"bpylist2/array_long.plist"`), sorted. Empty when the corpus is absent.
    static func files() -> [String] {
        guard isPresent,
              let enumerator = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: [.isRegularFileKey])
        else { return [] }
        let rootPath = directory.resolvingSymlinksInPath().path
        var result: [String] = []
        for case let url as URL in enumerator {
            guard (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true else { continue }
            let full = url.resolvingSymlinksInPath().path
            guard full.hasPrefix(rootPath + "/") else { continue }
            let relative = String(full.dropFirst(rootPath.count + 1))
            if relative == "MANIFEST.md" || relative == "provenance.json" { continue }
            result.append(relative)
        }
        return result.sorted()
    }

    /// The corpus files whose first bytes are `bplist` (binary property lists).
    static func binaryFiles() -> [String] {
        files().filter { (try? data($0).prefix(6)) == Data("bplist".utf8) }
    }

    /// The absolute URL of a corpus file given by its relative path.
    static func url(_ relativePath: String) -> URL { directory.appendingPathComponent(relativePath) }

    /// The bytes of a corpus file given by its relative path.
    static func data(_ relativePath: String) throws -> Data { try Data(contentsOf: url(relativePath)) }
}
