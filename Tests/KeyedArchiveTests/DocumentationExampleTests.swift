// GettingStarted 1: begin
import Foundation
import KeyedArchive
// GettingStarted 1: end
import Testing
import KeyedArchiveTesting
import KeyedArchiveTestSupport
@testable import KeyedArchive

// The code examples of the DocC articles (Sources/KeyedArchive/KeyedArchive.docc/*.md), compiled and run.
// Each article's n-th ```swift block is this file's `// <Article> n: begin` ... `end` regions, dedented and
// joined by blank lines; `articlesShowExactlyThisFilesExamples` checks that, so an article's example cannot
// drift from code that compiles. The models sit in namespaces because the test module has other `Recipe`s.

enum GettingStartedExample {
    // GettingStarted 1: begin
    struct Ingredient: ArchivableCodable {
        var name: String
        var grams: Double?
    }
    // GettingStarted 1: end

    // GettingStarted 2: begin
    final class Recipe: KeyedArchivable {
        static var archivedClassName: String { "Recipe" }

        var title: String
        var servings: Int
        var ingredients: [Ingredient]

        init(title: String, servings: Int, ingredients: [Ingredient]) {
            self.title = title
            self.servings = servings
            self.ingredients = ingredients
        }

        init(from decoder: any ArchiveDecoder) throws {
            title = try decoder.decode(String.self, forKey: "title")
            servings = try decoder.decode(Int.self, forKey: "servings")
            ingredients = try decoder.decode([Ingredient].self, forKey: "ingredients")
        }

        func encode(to encoder: any ArchiveEncoder) throws {
            try encoder.encode(title, forKey: "title")
            try encoder.encode(servings, forKey: "servings")
            try encoder.encode(ingredients, forKey: "ingredients")
        }
    }
    // GettingStarted 2: end

    static var pancakes: Recipe {
        Recipe(title: "Pancakes", servings: 4,
               ingredients: [Ingredient(name: "flour", grams: 250), Ingredient(name: "salt", grams: nil)])
    }

    static func expectPancakes(_ recipe: Recipe) {
        #expect(recipe.title == "Pancakes")
        #expect(recipe.servings == 4)
        #expect(recipe.ingredients.map(\.name) == ["flour", "salt"])
        #expect(recipe.ingredients.map(\.grams) == [250, nil])
    }
}

enum ArchiveFormatExample {
    // ArchiveFormat 1: begin
    struct Tag: KeyedArchivable {
        static var archivedClassName: String { "Tag" }
        var name: String
        init(name: String) { self.name = name }
        init(from decoder: any ArchiveDecoder) throws { name = try decoder.decode(String.self, forKey: "name") }
        func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(name, forKey: "name") }
    }
    // ArchiveFormat 1: end
}

// AddingACatalogueClass 1: begin
/// Foundation's `NSByteCountFormatter`: the settings of a byte-count formatter.
///
/// The corresponding Foundation class is `ByteCountFormatter`.
///
/// Layout (the macOS 10.14 fixtures ByteCountFormatter-Default.archive and -AllFieldsSet.archive;
/// `$classes` `[NSByteCountFormatter, NSFormatter, NSObject]`): every member is inline and left out
/// when it has its default value: `NSUnits`, `NSKBSize` (the count style) and `NSFormattingContext`
/// (integers, default 0); `NSNoAdaptive`, `NSNoCount`, `NSNoUnit`, `NSNoNonnumeric` (Booleans, the
/// negation of the property, default false) and `NSZeroPad` (default false).
public struct ArchivedByteCountFormatter: CataloguedValue {
    public var allowedUnits = 0
    public var countStyle = 0
    public var formattingContext = 0
    public var isAdaptive = true
    public var includesCount = true
    public var includesUnit = true
    public var allowsNonnumericFormatting = true
    public var zeroPadsFractionDigits = false

    /// A formatter with Foundation's default settings.
    public init() {}

    public static var archivedClassName: String { "NSByteCountFormatter" }
    public static var archivedClassChain: [String] { ["NSByteCountFormatter", "NSFormatter", "NSObject"] }
    public static var foundationValueName: String { "byteCountFormatter" }

    /// Reads the members that are present.
    ///
    /// - Throws: ``KeyedArchiveError`` naming `NSByteCountFormatter` and the key when a member has
    ///   another type.
    public init(from decoder: any ArchiveDecoder) throws {
        self = try namingClass(Self.archivedClassName) { try Self(reading: decoder) }
    }

    private init(reading decoder: any ArchiveDecoder) throws {
        allowedUnits = try decoder.decodeIfPresent(Int.self, forKey: "NSUnits") ?? 0
        countStyle = try decoder.decodeIfPresent(Int.self, forKey: "NSKBSize") ?? 0
        formattingContext = try decoder.decodeIfPresent(Int.self, forKey: "NSFormattingContext") ?? 0
        isAdaptive = try !(decoder.decodeIfPresent(Bool.self, forKey: "NSNoAdaptive") ?? false)
        includesCount = try !(decoder.decodeIfPresent(Bool.self, forKey: "NSNoCount") ?? false)
        includesUnit = try !(decoder.decodeIfPresent(Bool.self, forKey: "NSNoUnit") ?? false)
        allowsNonnumericFormatting = try !(decoder.decodeIfPresent(Bool.self, forKey: "NSNoNonnumeric") ?? false)
        zeroPadsFractionDigits = try decoder.decodeIfPresent(Bool.self, forKey: "NSZeroPad") ?? false
    }

    /// Writes the members that differ from their defaults, as Apple does.
    public func encode(to encoder: any ArchiveEncoder) throws {
        if allowedUnits != 0 { try encoder.encode(allowedUnits, forKey: "NSUnits") }
        if countStyle != 0 { try encoder.encode(countStyle, forKey: "NSKBSize") }
        if formattingContext != 0 { try encoder.encode(formattingContext, forKey: "NSFormattingContext") }
        if !isAdaptive { try encoder.encode(true, forKey: "NSNoAdaptive") }
        if !includesCount { try encoder.encode(true, forKey: "NSNoCount") }
        if !includesUnit { try encoder.encode(true, forKey: "NSNoUnit") }
        if !allowsNonnumericFormatting { try encoder.encode(true, forKey: "NSNoNonnumeric") }
        if zeroPadsFractionDigits { try encoder.encode(true, forKey: "NSZeroPad") }
    }

    /// `NSByteCountFormatter units 3 style 2`.
    public var description: String { "NSByteCountFormatter units \(allowedUnits) style \(countStyle)" }
}
// AddingACatalogueClass 1: end

// The "Adding a field with a default" section of ChangingYourModels.
enum AddingAFieldExample {
    enum Version1 {
        struct Contact: ArchivableCodable {
            static var archivedClassName: String { "Contact" }
            var name: String
        }
    }

    // ChangingYourModels 8: begin
    enum SortOrder: String, ArchiveDefaultValue {
        case byName, byDate
        static var archiveDefault: SortOrder { .byName }
    }
    enum DefaultFontSize: ArchiveDefaultProvider {
        static var archiveDefault: Double { 12 }
    }

    struct Contact: ArchivableCodable {
        static var archivedClassName: String { "Contact" }
        var name: String
        // Added in version 2: an archive written by version 1 reads with these defaults.
        @DefaultWhenMissing var isFavorite: Bool        // false
        @DefaultWhenMissing var groups: [String]        // []
        @DefaultWhenMissing var order: SortOrder        // .byName
        @DefaultFrom<DefaultFontSize> var fontSize: Double  // 12
    }
    // ChangingYourModels 8: end

    // ChangingYourModels 9: begin
    struct HandWrittenContact: ArchivableCodable {
        static var archivedClassName: String { "Contact" }
        var name: String
        var isFavorite: Bool
        var fontSize: Double

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: CodingKeys.self)
            name = try fields.decode(String.self, forKey: .name)
            isFavorite = try fields.decodeIfPresent(Bool.self, forKey: .isFavorite) ?? false
            fontSize = try fields.decodeIfPresent(Double.self, forKey: .fontSize) ?? 12
        }
    }
    // ChangingYourModels 9: end
}

extension AddingAFieldExample.Contact {
    init(name: String) { self.name = name }
}

@Suite struct AddingAFieldExampleTests {
    /// The "Guarding old files in your tests" example: a version-1 archive whose type was then called
    /// `AddressCard` is checked against the current model; a wrong expected value fails the check.
    @Test func goldenFileExampleChecksAVersionOneArchive() throws {
        typealias Contact = AddingAFieldExample.Contact
        let directory = ScratchDirectory()
        defer { directory.remove() }
        let contactsVersion1 = URL(fileURLWithPath: directory.file("contacts-v1.archive"))
        var writer = KeyedArchiver.Configuration()
        writer.setClassName("AddressCard", for: AddingAFieldExample.Version1.Contact.self)
        try KeyedArchiver.archivedData(withRootObject: AddingAFieldExample.Version1.Contact(name: "Ada"), configuration: writer)
            .write(to: contactsVersion1)
        _ = try #require(throws: DecodingError.self) {
            try KeyedUnarchiver().decode(Contact.self, from: Data(contentsOf: contactsVersion1))
        }

        // ChangingYourModels 10: begin
        var unarchiver = KeyedUnarchiver()
        unarchiver.setClass(Contact.self, forClassName: "AddressCard")  // as the app reads its files
        let report = ArchiveGoldenFile.check(Contact(name: "Ada"), goldenFile: contactsVersion1, unarchiver: unarchiver)
        #expect(report.isPassed, "\(report)")
        // ChangingYourModels 10: end

        let wrongValue = ArchiveGoldenFile.check(Contact(name: "Bob"), goldenFile: contactsVersion1, unarchiver: unarchiver)
        #expect(!wrongValue.isPassed)
        #expect("\(wrongValue)".contains("name"))
    }


    @Test func versionOneArchiveReadsWithTheDefaultsBothWays() throws {
        let old = try KeyedArchiver.archivedData(withRootObject: AddingAFieldExample.Version1.Contact(name: "Ada"))
        let wrapped = try KeyedUnarchiver.unarchivedObject(ofClass: AddingAFieldExample.Contact.self, from: old)
        #expect(wrapped.name == "Ada")
        #expect(wrapped.isFavorite == false)
        #expect(wrapped.groups == [])
        #expect(wrapped.order == .byName)
        #expect(wrapped.fontSize == 12)
        let handWritten = try KeyedUnarchiver.unarchivedObject(ofClass: AddingAFieldExample.HandWrittenContact.self, from: old)
        #expect(handWritten.name == "Ada")
        #expect(handWritten.isFavorite == false)
        #expect(handWritten.fontSize == 12)
    }
}

@Suite struct DocumentationExampleTests {
    typealias Recipe = GettingStartedExample.Recipe
    typealias Ingredient = GettingStartedExample.Ingredient

    @Test func gettingStartedArchivesAndUnarchivesAModel() throws {
        let pancakes = GettingStartedExample.pancakes
        // GettingStarted 3: begin
        let data = try KeyedArchiver.archivedData(withRootObject: pancakes)
        let copy = try KeyedUnarchiver.unarchivedObject(ofClass: Recipe.self, from: data)
        // GettingStarted 3: end
        GettingStartedExample.expectPancakes(copy)
        #expect(copy !== pancakes)

        // GettingStarted 4: begin
        let xml = try KeyedArchiver.archivedData(withRootObject: pancakes, format: .xml)
        let fromXML = try KeyedUnarchiver.unarchivedObject(ofClass: Recipe.self, from: xml)
        // GettingStarted 4: end
        #expect(xml.starts(with: Data("<?xml".utf8)))
        GettingStartedExample.expectPancakes(fromXML)
    }

    @Test func gettingStartedWritesAndReadsAFile() throws {
        let pancakes = GettingStartedExample.pancakes
        let folderURL = try TemporaryDirectory.create("docs")
        defer { TemporaryDirectory.remove(folderURL) }
        let folder = folderURL.path
        // GettingStarted 5: begin
        let path = folder + "/pancakes.recipe"
        try KeyedArchiver.archiveRootObject(pancakes, toFile: path)
        let saved = try KeyedUnarchiver.unarchivedObject(ofClass: Recipe.self, fromFile: path)
        // GettingStarted 5: end
        GettingStartedExample.expectPancakes(saved)
        // The article's claim about `.withoutOverwriting`: the existing file is refused and kept.
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(throws: FileIOError.self) {
            try KeyedArchiver.archiveRootObject(Recipe(title: "x", servings: 1, ingredients: []), toFile: path,
                                                options: .withoutOverwriting)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func secureUnarchivingExamplesBehaveAsTheArticleSays() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: GettingStartedExample.pancakes)
        // SecureUnarchiving 1: begin
        let root = try KeyedUnarchiver.unarchivedObject(ofClasses: [Recipe.self, Ingredient.self], from: data)
        let title = (root as? Recipe)?.title ?? (root as? Ingredient)?.name
        // SecureUnarchiving 1: end
        #expect(title == "Pancakes")
        GettingStartedExample.expectPancakes(try #require(root as? Recipe))

        // SecureUnarchiving 3: begin
        var unarchiver = KeyedUnarchiver()
        unarchiver.limits.maximumObjectCount = 1_000       // objects decoded
        unarchiver.limits.maximumElementCount = 10_000     // array, set and dictionary elements decoded
        unarchiver.limits.maximumByteCount = 1 << 20       // bytes of strings and data decoded
        unarchiver.limits.maximumDepth = 32                // objects and containers nested
        unarchiver.readingOptions.maximumObjectCount = 100_000  // property-list objects in the file
        unarchiver.setClass(Recipe.self, forClassName: "CookBook.Recipe")
        let recipe = try unarchiver.decode(Recipe.self, from: data)
        // SecureUnarchiving 3: end
        GettingStartedExample.expectPancakes(recipe)

        var logged: [String] = []
        func log(_ line: String) { logged.append(line) }
        // SecureUnarchiving 4: begin
        do {
            _ = try KeyedUnarchiver.unarchivedObject(ofClass: Ingredient.self, from: data)
        } catch DecodingError.typeMismatch(_, let context) {
            // Ingredient is ArchivableCodable, so its errors are DecodingErrors with the KeyedArchiveError
            // inside; a hand-written model throws the KeyedArchiveError itself.
            if let error = context.underlyingError as? KeyedArchiveError {
                // error.code == .classNotAllowed, error.keyPath == "root", error.objectUID == 1,
                // error.className == "Recipe"
                log(error.description)
            }
        }
        // SecureUnarchiving 4: end
        let line = try #require(logged.first)
        #expect(line.hasPrefix("keyed archive: root (object #1, class Recipe): "), "\(line)")
        let decodingError = try #require(throws: DecodingError.self) {
            try KeyedUnarchiver.unarchivedObject(ofClass: Ingredient.self, from: data)
        }
        let error = try #require(decodingError.context.underlyingError as? KeyedArchiveError)
        #expect(error.code == .classNotAllowed)
        #expect(error.keyPath == "root")
        #expect(error.objectUID == 1)
        #expect(error.className == "Recipe")

        // The limits example really limits: one object fewer than the archive holds fails.
        var tight = KeyedUnarchiver()
        tight.limits.maximumObjectCount = 3  // the recipe, its array and two ingredients are 4
        #expect(throws: KeyedArchiveError.self) { try tight.decode(Recipe.self, from: data) }

        // A registered legacy name is read.
        let renamed = try ArchivedObjectGraph(data: data).propertyList.renamingClass("Recipe", to: "CookBook.Recipe")
        #expect(try unarchiver.decode(Recipe.self, from: renamed.propertyListData(format: .binary)).title == "Pancakes")
        #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver().decode(Recipe.self, from: renamed.propertyListData(format: .binary))
        }

        // SecureUnarchiving 2: begin
        let graph = try ArchivedObjectGraph(data: data)
        let counts = graph.instanceCounts()  // class name -> number of objects, nothing instantiated
        // SecureUnarchiving 2: end
        #expect(counts["Recipe"] == 1)
        #expect(counts["NSArray"] == 1)
        #expect(counts[String(reflecting: Ingredient.self)] == 2)
    }

    @Test func addingALimitShowsARealLimitTest() throws {
        // AddingALimit 1: begin
        let archive = try KeyedArchiver.archivedData(withRootObject: [[1, 2], [3, 4, 5]])
        var unarchiver = KeyedUnarchiver()
        unarchiver.limits.maximumElementCount = 6  // the outer array's 2 and the inner 2 + 3: 7 in all
        let error = try #require(throws: KeyedArchiveError.self) { try unarchiver.decode([[Int]].self, from: archive) }
        #expect(error.code == .limitExceeded)
        #expect(error.message.contains("limits.maximumElementCount"))
        unarchiver.limits.maximumElementCount = 7
        #expect(try unarchiver.decode([[Int]].self, from: archive) == [[1, 2], [3, 4, 5]])
        // AddingALimit 1: end
    }

    @Test func archiveFormatShowsTheArchiversXML() throws {
        typealias Tag = ArchiveFormatExample.Tag
        // ArchiveFormat 2: begin
        let xml = try KeyedArchiver.archivedData(withRootObject: [Tag(name: "home"), Tag(name: "work")], format: .xml)
        // ArchiveFormat 2: end
        let article = try Self.article("ArchiveFormat")
        let block = try #require(Self.blocks(language: "xml", in: article).first, "ArchiveFormat.md has no xml block")
        let actual = String(decoding: xml, as: UTF8.self)
        if actual != block + "\n" {
            // Write what the archiver gives, for pasting into the article.
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("ArchiveFormat-actual.xml")
            try xml.write(to: path)
            Issue.record("ArchiveFormat.md's xml block is not what the archiver writes (that is in \(path.path))")
        }
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: [Tag].self, from: xml).map(\.name) == ["home", "work"])
        // ArchiveFormat 3: begin
        let mixed = try KeyedArchiver.archivedData(withRootObject: FoundationValue.array([.string("a"), .integer(1), .null]))
        let value = try KeyedUnarchiver().decode(FoundationValue.self, from: mixed)
        // ArchiveFormat 3: end
        #expect(value == .array([.string("a"), .integer(1), .null]))
    }

    @Test func archiveFormatNavigatesAFoundationValue() {
        // ArchiveFormat 4: begin
        let order = FoundationValue.dictionary([
            .string("items"): .array([.dictionary([.string("sku"): .string("A-1"), .string("quantity"): .integer(2)])]),
        ])
        let sku = order["items"]?[0]?["sku"]?.string               // "A-1"
        let quantity = order["items"]?[0]?["quantity"]?.integer(as: UInt8.self)  // 2
        let missing = order["items"]?[5]?["sku"]?.string           // nil, no trap
        // ArchiveFormat 4: end
        #expect(sku == "A-1")
        #expect(quantity == 2)
        #expect(missing == nil)
    }

    @Test func archiveFormatFoundationValueRefusesTheModel() throws {
        typealias Tag = ArchiveFormatExample.Tag
        let xml = try KeyedArchiver.archivedData(withRootObject: [Tag(name: "home"), Tag(name: "work")], format: .xml)
        let error = try #require(throws: KeyedArchiveError.self) { try KeyedUnarchiver().decode(FoundationValue.self, from: xml) }
        #expect(error.code == .classNotAllowed)
        #expect(error.className == "Tag")
    }

    @Test(.enabled(if: FoundationFixtures.available, "needs ../shared/corpus"))
    func addingACatalogueClassExampleReadsAndWritesApplesLayout() throws {
        let all = try FoundationFixtures.data("ByteCountFormatter-AllFieldsSet.archive")
        let formatter = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedByteCountFormatter.self, from: all)
        var expected = ArchivedByteCountFormatter()
        expected.allowedUnits = 3
        expected.countStyle = 2
        expected.formattingContext = 4
        expected.isAdaptive = false
        expected.includesCount = false
        expected.includesUnit = false
        expected.allowsNonnumericFormatting = false
        expected.zeroPadsFractionDigits = true
        #expect(formatter == expected)
        let empty = try FoundationFixtures.data("ByteCountFormatter-Default.archive")
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedByteCountFormatter.self, from: empty) == ArchivedByteCountFormatter())
        // Re-archived, each has Apple's structure (class, chain, keys, inline members).
        for (fixture, value) in [(all, expected), (empty, ArchivedByteCountFormatter())] {
            let ours = try KeyedArchiver.archivedData(withRootObject: value)
            #expect(try ArchiveStructure.differences(expected: fixture, actual: ours) == [])
        }
        // A member of another type is an error naming the class and the key.
        let wrong = try HandMadeArchive.binary([
            .dictionary(["$class": HandMadeArchive.uid(2), "NSKBSize": "two"]),
            HandMadeArchive.classDict(["NSByteCountFormatter", "NSFormatter", "NSObject"]),
        ])
        let failure = try #require(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedByteCountFormatter.self, from: wrong)
        }
        #expect(failure.className == "NSByteCountFormatter")
        #expect(failure.keyPath == "root.NSKBSize")

        // The catalogue line of the article, as a test catalogue adds it.
        let catalogue = FoundationClassCatalogue.standard.adding([
            // AddingACatalogueClass 2: begin
            FoundationClass(archivable: ArchivedByteCountFormatter.self),  // NSByteCountFormatter
            // AddingACatalogueClass 2: end
        ])
        let entry = try #require(catalogue.entry(named: "NSByteCountFormatter"))
        #expect(entry.chain == ["NSByteCountFormatter", "NSFormatter", "NSObject"])
        #expect(entry.members.isEmpty)
        guard case .archivable(let type) = entry.family else {
            Issue.record("not an archivable entry")
            return
        }
        #expect(ObjectIdentifier(type) == ObjectIdentifier(ArchivedByteCountFormatter.self))
        // FoundationValue holds it without a change.
        let value = FoundationValue.catalogued(expected)
        #expect(value.catalogued(as: ArchivedByteCountFormatter.self) == expected)
        #expect(value.kindName == "byteCountFormatter")
        #expect(value != .catalogued(ArchivedByteCountFormatter()))
    }

    // MARK: The articles show exactly this file's examples

    /// Every ```swift block of every article is this file's regions with the article's name and the block's
    /// number, dedented and joined by blank lines; and every region is shown.
    @Test func articlesShowExactlyThisFilesExamples() throws {
        let thisFile = try String(contentsOfFile: #filePath, encoding: .utf8)
        let folder = Self.catalogue
        let articles = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".md") }.sorted()
        #expect(articles.count >= 6, "\(articles)")
        var shown = 0
        for file in articles {
            let name = String(file.dropLast(3))
            let blocks = Self.blocks(language: "swift", in: try Self.article(name))
            for (index, block) in blocks.enumerated() {
                let regions = ExampleRegions.regions(named: "\(name) \(index + 1)", in: thisFile)
                #expect(!regions.isEmpty, "\(file): Swift block \(index + 1) has no `// \(name) \(index + 1): begin` region here")
                #expect(block == regions.map(ExampleRegions.dedent).joined(separator: "\n\n"), "\(file): Swift block \(index + 1)")
            }
            #expect(ExampleRegions.regions(named: "\(name) \(blocks.count + 1)", in: thisFile).isEmpty, "\(file) shows fewer blocks")
            shown += blocks.count
        }
        #expect(shown >= 12, "the articles show \(shown) Swift blocks")
    }

    static var catalogue: String { FileTestSupport.packageRoot() + "/Sources/KeyedArchive/KeyedArchive.docc" }

    static func article(_ name: String) throws -> String {
        try String(contentsOfFile: catalogue + "/\(name).md", encoding: .utf8)
    }

    /// The contents of the article's fenced blocks of `language`, in order.
    static func blocks(language: String, in text: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```\(language)" { current = [] }
            else if current != nil, line == "```" { blocks.append((current ?? []).joined(separator: "\n")); current = nil }
            else if current != nil { current?.append(line) }
        }
        return blocks
    }
}

private extension PropertyListValue {
    /// This archive with every class dictionary named `old` renamed `new`.
    func renamingClass(_ old: String, to new: String) -> PropertyListValue {
        guard case .dictionary(var root) = self, case .array(var objects)? = root["$objects"] else { return self }
        for (i, object) in objects.enumerated() {
            if case .dictionary(var fields) = object, fields["$classname"] == .string(old) {
                fields["$classname"] = .string(new)
                if case .array(var chain)? = fields["$classes"], !chain.isEmpty { chain[0] = .string(new); fields["$classes"] = .array(chain) }
                objects[i] = .dictionary(fields)
            }
        }
        root["$objects"] = .array(objects)
        return .dictionary(root)
    }
}

// MARK: - ChangingYourModels

enum ChangingYourModelsExample {
    /// Version 1 of `Contact`, as it was shipped: no `isFavorite`, and a `fax` field later removed.
    struct ContactV1: ArchivableCodable {
        static var archivedClassName: String { "Contact" }
        var name: String
        var fax: String
    }

    // ChangingYourModels 1: begin
    struct Contact: ArchivableCodable {
        static var archivedClassName: String { "Contact" }
        var name: String
        var isFavorite: Bool  // added in version 2; `fax` was removed

        init(name: String, isFavorite: Bool) {
            self.name = name
            self.isFavorite = isFavorite
        }

        init(from decoder: any Decoder) throws {
            let fields = try decoder.container(keyedBy: CodingKeys.self)
            name = try fields.decode(String.self, forKey: .name)
            isFavorite = try fields.decodeIfPresent(Bool.self, forKey: .isFavorite) ?? false
        }
    }
    // ChangingYourModels 1: end

    /// Version 1 of `Note`: a title only.
    final class NoteV1: KeyedArchivable {
        static var archivedClassName: String { "Note" }
        var title: String
        init(title: String) { self.title = title }
        init(from decoder: any ArchiveDecoder) throws { title = try decoder.decode(String.self, forKey: "title") }
        func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(title, forKey: "title") }
    }

    // ChangingYourModels 2: begin
    final class Note: KeyedArchivable {
        static var archivedClassName: String { "Note" }
        var title: String
        var pinned: Bool  // added in version 2

        init(title: String, pinned: Bool) {
            self.title = title
            self.pinned = pinned
        }

        init(from decoder: any ArchiveDecoder) throws {
            title = try decoder.decode(String.self, forKey: "title")
            pinned = try decoder.decodeIfPresent(Bool.self, forKey: "pinned") ?? false
        }

        func encode(to encoder: any ArchiveEncoder) throws {
            try encoder.encode(title, forKey: "title")
            try encoder.encode(pinned, forKey: "pinned")
        }
    }
    // ChangingYourModels 2: end

    /// Version 1 of the book: `name` instead of `title`, a `Publication` in module `Library`, a format
    /// that has since been removed.
    struct PublicationV1: ArchivableCodable {
        static var archivedClassName: String { "Library.Publication" }
        var headline: String
    }

    struct BookV1: ArchivableCodable {
        static var archivedClassName: String { "App.Book" }
        var name: String
        var format: String
        var review: PublicationV1
    }

    // ChangingYourModels 3: begin
    struct Book: ArchivableCodable {
        static var archivedClassName: String { "Models.Book" }  // the default name in module Models
        var title: String
        var format: Format
        var review: Article

        enum CodingKeys: String, CodingKey {
            case title = "name"  // the key version 1 wrote
            case format, review
        }
    }
    // ChangingYourModels 3: end

    // ChangingYourModels 4: begin
    struct Article: Codable, ArchiveNamed {
        static var legacyClassNames: [String] { ["Library.Publication"] }
        var headline: String
    }
    // ChangingYourModels 4: end

    // ChangingYourModels 6: begin
    enum Format: String, Codable {
        case hardcover, paperback  // `audiobook` was removed

        init(from decoder: any Decoder) throws {
            let stored = try decoder.singleValueContainer().decode(String.self)
            self = Format(rawValue: stored) ?? .paperback
        }
    }
    // ChangingYourModels 6: end

    // ChangingYourModels 7: begin
    struct Invoice: ArchivableCodable {
        var total: Decimal                 // NSDecimalNumber
        var locale: Locale                 // NSLocale
        var timeZone: TimeZone             // NSTimeZone
        var period: DateInterval           // NSDateInterval
        var calendar: Calendar             // NSCalendar
        var due: DateComponents            // NSDateComponents
        var weight: Measurement<UnitMass>  // NSMeasurement, its unit an NSUnitMass
    }
    // ChangingYourModels 7: end
}

@Suite struct ChangingYourModelsExampleTests {
    typealias Example = ChangingYourModelsExample

    @Test func addedFieldsGetTheirDefaultAndRemovedFieldsAreIgnored() throws {
        let v1 = try KeyedArchiver.archivedData(withRootObject: Example.ContactV1(name: "Ada", fax: "555"))
        let contact = try KeyedUnarchiver.unarchivedObject(ofClass: Example.Contact.self, from: v1)
        #expect(contact.name == "Ada")
        #expect(contact.isFavorite == false)
        let v2 = try KeyedArchiver.archivedData(withRootObject: Example.Contact(name: "Ada", isFavorite: true))
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: Example.Contact.self, from: v2).isFavorite)

        let note = try KeyedUnarchiver.unarchivedObject(
            ofClass: Example.Note.self, from: KeyedArchiver.archivedData(withRootObject: Example.NoteV1(title: "Milk")))
        #expect(note.title == "Milk")
        #expect(note.pinned == false)
    }

    @Test func renamedFieldsTypesModulesAndRemovedCasesRead() throws {
        let v1 = Example.BookV1(name: "Dune", format: "audiobook", review: .init(headline: "A classic"))
        let data = try KeyedArchiver.archivedData(withRootObject: v1)
        // Without the module move, `App.Book` is not `Models.Book`.
        let refused = try #require(throws: DecodingError.self) { try KeyedUnarchiver().decode(Example.Book.self, from: data) }
        #expect(archiveError(refused)?.code == .classNotAllowed)
        // ChangingYourModels 5: begin
        var unarchiver = KeyedUnarchiver()
        unarchiver.mapModule("App", to: "Models")  // App.Book is read as Models.Book
        let book = try unarchiver.decode(Book.self, from: data)
        // ChangingYourModels 5: end
        #expect(book.title == "Dune")
        #expect(book.format == .paperback)
        #expect(book.review.headline == "A classic")

        // The same old name, mapped on the unarchiver instead of declared on the type.
        struct Review: Codable { var headline: String }
        struct ShelfV2: ArchivableCodable {
            static var archivedClassName: String { "Models.Book" }
            var name: String
            var review: Review
        }
        var mapping = KeyedUnarchiver()
        mapping.mapModule("App", to: "Models")
        #expect(throws: DecodingError.self) { try mapping.decode(ShelfV2.self, from: data) }
        mapping.setClass(Review.self, forClassName: "Library.Publication")
        #expect(try mapping.decode(ShelfV2.self, from: data).review.headline == "A classic")
    }

    typealias Book = Example.Book

    @Test func foundationValuesAreArchivedAsTheirFoundationClasses() throws {
        let invoice = Example.Invoice(total: Decimal(string: "19.99") ?? 0, locale: Locale(identifier: "de_DE"),
                                      timeZone: TimeZone(identifier: "Europe/Berlin") ?? .gmt,
                                      period: DateInterval(start: Date(timeIntervalSince1970: 0), duration: 86_400),
                                      calendar: Calendar(identifier: .iso8601), due: DateComponents(year: 2026, month: 12, day: 31),
                                      weight: Measurement(value: 1.5, unit: .kilograms))
        let data = try KeyedArchiver.archivedData(withRootObject: invoice)
        let counts = try ArchivedObjectGraph(data: data).instanceCounts()
        for name in ["NSDecimalNumber", "NSDateInterval", "NSDateComponents", "NSMeasurement", "NSUnitMass"] {
            #expect(counts[name] == 1, "\(name): \(counts)")
        }
        // The calendar holds a locale and a time zone of its own.
        #expect(counts["NSCalendar"] == 1 && counts["NSLocale", default: 0] >= 1 && counts["NSTimeZone", default: 0] >= 1, "\(counts)")
        #expect(!counts.keys.contains { $0.hasPrefix("FoundationEssentials.") || $0.hasPrefix("Foundation.") }, "\(counts)")
        let back = try KeyedUnarchiver.unarchivedObject(ofClass: Example.Invoice.self, from: data)
        #expect(back.total == invoice.total)
        #expect(back.locale.identifier == "de_DE")
        #expect(back.timeZone.identifier == "Europe/Berlin")
        #expect(back.period == invoice.period)
        #expect(back.calendar.identifier == .iso8601)
        #expect(back.due == invoice.due)
        #expect(back.weight == invoice.weight)
    }
}

// MARK: - Typedstream.md

// Typedstream 1: begin
/// Each run of a message: its text, the message part it belongs to, and its link, if any.
func messageRuns(_ attributedBody: Data) throws -> [(text: String, part: Int?, link: URL?)] {
    let body = try TypedstreamUnarchiver().foundationValue(from: attributedBody)
    guard let message = body.attributedString else { return [] }
    let utf16 = Array(message.string.utf16)
    return message.runs.map { run in
        (String(decoding: utf16[run.range], as: UTF16.self),
         run.attributes["__kIMMessagePartAttributeName"]?.int,
         run.attributes["__kIMLinkAttributeName"]?.url)
    }
}
// Typedstream 1: end

enum TypedstreamExample {
    // Typedstream 2: begin
    struct Bookmark: TypedstreamCodable {
        static let typedstreamClassName = "Bookmark"
        static let typedstreamClassVersion = 2

        var title: String
        var url: URL?
        var visits: Int

        init(title: String, url: URL?, visits: Int) {
            (self.title, self.url, self.visits) = (title, url, visits)
        }

        init(from decoder: TypedstreamDecoder) throws {
            title = try decoder.decodeString() ?? ""
            url = try decoder.decodeFoundationValue().url
            // Version 1 did not count visits.
            let version = decoder.version(forClassName: decoder.className) ?? 0
            visits = version >= 2 ? try decoder.decodeInteger() : 0
        }

        func encode(to encoder: TypedstreamEncoder) throws {
            try encoder.encodeString(title)
            try encoder.encodeFoundationValue(url.map(FoundationValue.url) ?? .null)
            try encoder.encodeInteger(visits)
        }
    }
    // Typedstream 2: end

    /// The class as an older app wrote it: named `WebBookmark`, at version 1, without a visit count.
    struct WebBookmarkVersion1: TypedstreamEncodable {
        static let typedstreamClassName = "WebBookmark"
        static let typedstreamClassVersion = 1
        var title: String
        var url: URL
        func encode(to encoder: TypedstreamEncoder) throws {
            try encoder.encodeString(title)
            try encoder.encodeFoundationValue(.url(url))
        }
    }
}

@Suite("Typedstream article examples")
struct TypedstreamDocumentationExampleTests {
    typealias Bookmark = TypedstreamExample.Bookmark

    @Test func messageRunsGiveEachRunsTextPartAndLink() throws {
        let link = try #require(URL(string: "https://swift.org"))
        let text = try ArchivedAttributedString(string: "Hi 👋 swift.org", runs: [
            .init(range: 0 ..< 6, attributes: ["__kIMMessagePartAttributeName": .integer(0)]),
            .init(range: 6 ..< 15, attributes: ["__kIMMessagePartAttributeName": .integer(1), "__kIMLinkAttributeName": .url(link)]),
        ])
        let attributedBody = try TypedstreamArchiver().archivedData(withRootValue: .attributedString(text))
        let runs = try messageRuns(attributedBody)
        #expect(runs.map(\.text) == ["Hi 👋 ", "swift.org"])
        #expect(runs.map(\.part) == [0, 1])
        #expect(runs.map(\.link) == [nil, link])
    }

    @Test func oldBookmarkIsMigratedAndWrittenUnderItsOldName() throws {
        let url = try #require(URL(string: "https://example.com/old"))
        let oldFile = try TypedstreamArchiver().archivedData(withRootObject: TypedstreamExample.WebBookmarkVersion1(title: "Old", url: url))
        // Typedstream 3: begin
        var unarchiver = TypedstreamUnarchiver()
        unarchiver.setClass(Bookmark.self, forClassName: "WebBookmark")
        let bookmark = try unarchiver.decode(Bookmark.self, from: oldFile)
        // Typedstream 3: end
        #expect(bookmark.title == "Old")
        #expect(bookmark.url == url)
        #expect(bookmark.visits == 0)
        #expect(throws: TypedstreamError.self) { try TypedstreamUnarchiver().decode(Bookmark.self, from: oldFile) }

        // Typedstream 4: begin
        var archiver = TypedstreamArchiver()
        archiver.setClassName("WebBookmark", forClassName: "Bookmark")
        let data = try archiver.archivedData(withRootObject: Bookmark(title: "Swift", url: URL(string: "https://swift.org"), visits: 3))
        // Typedstream 4: end
        let archive = try TypedstreamArchive(data: data)
        #expect(archive.classChain(ofClassAt: archive.objects[0].classIndex).map(\.name) == ["WebBookmark", "NSObject"])
        #expect(archive.classes.first?.version == 2)
        let back = try unarchiver.decode(Bookmark.self, from: data)
        #expect(back.title == "Swift")
        #expect(back.url == URL(string: "https://swift.org"))
        #expect(back.visits == 3)
    }
}
