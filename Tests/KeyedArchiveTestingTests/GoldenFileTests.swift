import Foundation
import KeyedArchive
import KeyedArchiveTesting
import Testing

// A model that changed over time. Version 1 of an app wrote `CookbookRecipe` objects with `name` and
// `minutes`; the golden files in GoldenFiles/ and `GoldenFileTests.recipeVersion1XML` are what it wrote
// (`RecipeVersion1` below is that model; a test checks that they are its archives). Version 2, `Recipe`, renamed the
// class and the `name` field and added `servings` and `tags`, and must still read version 1's files.

/// Version 1 of the model: the writer of the golden files.
private struct RecipeVersion1: KeyedArchivable {
    static var archivedClassName: String { "CookbookRecipe" }
    var name: String
    var minutes: Int
    init(name: String, minutes: Int) {
        self.name = name
        self.minutes = minutes
    }
    init(from decoder: any ArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        minutes = try decoder.decode(Int.self, forKey: "minutes")
    }
    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(minutes, forKey: "minutes")
    }
}

/// Version 2, the current model: reads version 1's class name and its `name` key, and defaults the new fields.
private struct Recipe: KeyedArchivable, Equatable {
    static var archivedClassName: String { "Recipe" }
    static var legacyClassNames: [String] { ["CookbookRecipe"] }
    var title: String
    var minutes: Int
    var servings: Int
    var tags: [String]
    init(title: String, minutes: Int, servings: Int = 2, tags: [String] = []) {
        self.title = title
        self.minutes = minutes
        self.servings = servings
        self.tags = tags
    }
    init(from decoder: any ArchiveDecoder) throws {
        title = try decoder.decodeIfPresent(String.self, forKey: "title") ?? decoder.decode(String.self, forKey: "name")
        minutes = try decoder.decode(Int.self, forKey: "minutes")
        servings = try decoder.decodeIfPresent(Int.self, forKey: "servings") ?? 2
        tags = try decoder.decodeIfPresent([String].self, forKey: "tags") ?? []
    }
    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(title, forKey: "title")
        try encoder.encode(minutes, forKey: "minutes")
        try encoder.encode(servings, forKey: "servings")
        try encoder.encode(tags, forKey: "tags")
    }
}

/// A later model that forgot version 1's class name.
private struct RecipeWithoutLegacyName: KeyedArchivable, Equatable {
    static var archivedClassName: String { "Recipe" }
    var title: String
    init(title: String) { self.title = title }
    init(from decoder: any ArchiveDecoder) throws { title = try decoder.decode(String.self, forKey: "title") }
    func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(title, forKey: "title") }
}

/// A model whose `==` compares a field it never archives.
private struct RecipeWithCache: KeyedArchivable, Equatable {
    static var archivedClassName: String { "Recipe" }
    static var legacyClassNames: [String] { ["CookbookRecipe"] }
    var title: String
    var cache: String
    init(title: String, cache: String) {
        self.title = title
        self.cache = cache
    }
    init(from decoder: any ArchiveDecoder) throws {
        title = try decoder.decodeIfPresent(String.self, forKey: "title") ?? decoder.decode(String.self, forKey: "name")
        cache = ""
    }
    func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(title, forKey: "title") }
}

@Suite struct GoldenFileTests {
    /// The golden file version 1 wrote: a binary archive of `RecipeVersion1(name: "Pancakes", minutes: 15)`.
    static func version1File() throws -> URL {
        try #require(Bundle.module.url(forResource: "recipe-v1", withExtension: "archive", subdirectory: "GoldenFiles"))
    }

    /// What version 1 wrote for `RecipeVersion1(name: "Omelette", minutes: 5)` as XML, kept in the source.
    static let recipeVersion1XML = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        	<key>$version</key>
        	<integer>100000</integer>
        	<key>$archiver</key>
        	<string>NSKeyedArchiver</string>
        	<key>$top</key>
        	<dict>
        		<key>root</key>
        		<dict>
        			<key>CF$UID</key>
        			<integer>1</integer>
        		</dict>
        	</dict>
        	<key>$objects</key>
        	<array>
        		<string>$null</string>
        		<dict>
        			<key>$class</key>
        			<dict>
        				<key>CF$UID</key>
        				<integer>2</integer>
        			</dict>
        			<key>name</key>
        			<dict>
        				<key>CF$UID</key>
        				<integer>3</integer>
        			</dict>
        			<key>minutes</key>
        			<integer>5</integer>
        		</dict>
        		<dict>
        			<key>$classname</key>
        			<string>CookbookRecipe</string>
        			<key>$classes</key>
        			<array>
        				<string>CookbookRecipe</string>
        				<string>NSObject</string>
        			</array>
        		</dict>
        		<string>Omelette</string>
        	</array>
        </dict>
        </plist>

        """

    /// A fresh folder for recorded files, removed by `body`'s caller.
    static func withTemporaryFolder<R>(_ body: (URL) throws -> R) throws -> R {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("golden-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        return try body(folder)
    }

    /// Where the golden archives come from: version 1's archive of their values, byte for byte.
    @Test func goldenArchivesAreWhatVersion1Wrote() throws {
        #expect(try Data(contentsOf: Self.version1File())
                == KeyedArchiver.archivedData(withRootObject: RecipeVersion1(name: "Pancakes", minutes: 15)))
        #expect(Data(Self.recipeVersion1XML.utf8)
                == (try KeyedArchiver.archivedData(withRootObject: RecipeVersion1(name: "Omelette", minutes: 5), format: .xml)))
    }

    @Test func version1FileDecodesWithTheCurrentModel() throws {
        let report = ArchiveGoldenFile.check(Recipe(title: "Pancakes", minutes: 15), goldenFile: try Self.version1File(),
                                             mode: .check)
        #expect(report.isPassed, "\(report)")
        #expect(report.decoded == Recipe(title: "Pancakes", minutes: 15, servings: 2, tags: []))
        #expect(report.description == "golden file: matches")
    }

    @Test func version1BytesInSourceDecodeWithTheCurrentModel() {
        let report = ArchiveGoldenFile.check(Recipe(title: "Omelette", minutes: 5), archive: Data(Self.recipeVersion1XML.utf8))
        #expect(report.isPassed, "\(report)")
        #expect(report.decoded?.title == "Omelette")
    }

    @Test func wrongExpectationNamesTheField() throws {
        let report = ArchiveGoldenFile.check(Recipe(title: "Pancakes", minutes: 20, tags: ["sweet"]),
                                             goldenFile: try Self.version1File(), mode: .check)
        #expect(!report.isPassed)
        #expect(report.failure == nil)
        #expect(report.differences == [
            RoundTripDifference(keyPath: "root.minutes", original: "20", copy: "15", kind: .value),
            RoundTripDifference(keyPath: "root.tags", original: "1 elements", copy: "0 elements", kind: .count),
            RoundTripDifference(keyPath: "root.tags[0]", original: "\"sweet\"", copy: "(absent)", kind: .missingField),
        ])
        #expect(report.description == """
            golden file: 3 differences (expected != decoded)
              root.minutes: 20 != 15
              root.tags: 1 elements != 0 elements
              root.tags[0]: "sweet" != (absent)
            """)
    }

    /// A model change that loses version 1's data: the new decoder no longer reads the old class name.
    @Test func modelThatNoLongerReadsTheOldNameFails() throws {
        let report = ArchiveGoldenFile.check(RecipeWithoutLegacyName(title: "Pancakes"), goldenFile: try Self.version1File(),
                                             mode: .check)
        #expect(!report.isPassed)
        #expect(report.failure?.stage == .unarchiving)
        #expect(report.failure?.code == .classNotAllowed, "\(report)")
        #expect(report.decoded == nil)
    }

    /// `==` that sees what the archive does not (a field `encode(to:)` never writes) is checked too.
    @Test func equalityIsCheckedBeyondTheArchive() {
        let archive = Data(Self.recipeVersion1XML.utf8)
        let report = ArchiveGoldenFile.check(RecipeWithCache(title: "Omelette", cache: "warm"), archive: archive)
        #expect(report.differences.map(\.keyPath) == ["root"])
        #expect(report.differences.first?.kind == .value)
        #expect(!report.isPassed)
    }

    @Test func missingFileFailsInCheckModeAndIsNotCreated() throws {
        try Self.withTemporaryFolder { folder in
            let url = folder.appendingPathComponent("missing.archive")
            let report = ArchiveGoldenFile.check(Recipe(title: "Tea", minutes: 3), goldenFile: url, mode: .check)
            #expect(report.failure?.stage == .missingFile)
            #expect(report.failure?.message.contains(url.path) == true)
            #expect(report.failure?.message.contains("KEYEDARCHIVE_RECORD_GOLDEN_FILES=1") == true)
            #expect(!FileManager.default.fileExists(atPath: url.path))
        }
    }

    @Test func recordingWritesAMissingFileOnceAndDoesNotPass() throws {
        try Self.withTemporaryFolder { folder in
            let url = folder.appendingPathComponent("new/recipe.archive")
            let recipe = Recipe(title: "Tea", minutes: 3, tags: ["hot"])
            let recording = ArchiveGoldenFile.check(recipe, goldenFile: url, mode: .recordIfMissing,
                                                    recordingWith: KeyedArchiver.Configuration(outputFormat: .xml))
            #expect(recording.recordedFile == url)
            #expect(recording.differences.isEmpty && recording.failure == nil, "\(recording)")
            #expect(!recording.isPassed)
            #expect(recording.description.hasPrefix("golden file recorded at \(url.path)"))
            let written = try Data(contentsOf: url)
            #expect(PropertyListValue.detectFormat(of: written) == .xml)

            let check = ArchiveGoldenFile.check(recipe, goldenFile: url, mode: .check)
            #expect(check.isPassed, "\(check)")
            #expect(check.recordedFile == nil)
        }
    }

    @Test func existingFileIsNeverReplaced() throws {
        try Self.withTemporaryFolder { folder in
            let url = folder.appendingPathComponent("damaged.archive")
            let damaged = Data("not an archive".utf8)
            try damaged.write(to: url)
            let report = ArchiveGoldenFile.check(Recipe(title: "Tea", minutes: 3), goldenFile: url, mode: .recordIfMissing)
            #expect(report.recordedFile == nil)
            #expect(report.failure?.stage == .unarchiving)
            #expect(try Data(contentsOf: url) == damaged)
        }
    }

    @Test func environmentVariableSelectsRecording() {
        #expect(ArchiveGoldenFile.Mode(environment: ["KEYEDARCHIVE_RECORD_GOLDEN_FILES": "1"]) == .recordIfMissing)
        #expect(ArchiveGoldenFile.Mode(environment: ["KEYEDARCHIVE_RECORD_GOLDEN_FILES": "0"]) == .check)
        #expect(ArchiveGoldenFile.Mode(environment: ["OTHER": "1"]) == .check)
        #expect(ArchiveGoldenFile.Mode(environment: [:]) == .check)
    }
}
