import Testing
import Foundation
@testable import KeyedArchive
@testable import ArchiveDumpCore

/// A made-up class implemented by a value type, plugged into a test catalogue.
private struct DumpTestRange: KeyedArchivable, Encodable, CustomStringConvertible {
    static var archivedClassName: String { "TSRange" }
    var start: Int
    var count: Int
    init(start: Int, count: Int) {
        self.start = start
        self.count = count
    }
    init(from decoder: any ArchiveDecoder) throws {
        start = try decoder.decode(Int.self, forKey: "start")
        count = try decoder.decode(Int.self, forKey: "count")
    }
    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(start, forKey: "start")
        try encoder.encode(count, forKey: "count")
    }
    var description: String { "\(start)..<\(start + count)" }
}

@Suite struct CatalogueRenderingTests {
    static let catalogue = FoundationClassCatalogue.standard.adding([FoundationClass("TSRange", .archivable(DumpTestRange.self))])
    static let resolve: @Sendable (ArchivedObjectGraph, UID) -> ResolvedArchivedObject? = {
        $0.resolvedObject($1, catalogue: catalogue)
    }

    @Test func valueTypeEntriesPrintAsTheirDecodedValue() throws {
        let graph = try ArchivedObjectGraph(data: KeyedArchiver.archivedData(withRootObject: [DumpTestRange(start: 2, count: 3)]))
        var tree = TreeRenderer()
        tree.resolve = Self.resolve
        #expect(rendered { tree.render(graph: graph, to: $0) } == """
            keyed archive: $archiver "NSKeyedArchiver", $version 100000, 5 entries in $objects
            root: #1 NSArray (1 item)
              [0]: #3 TSRange 2..<5

            """)
        var json = JSONRenderer()
        json.resolve = Self.resolve
        #expect(rendered { json.render(graph: graph, to: $0) }
                == #"{"$archiver":"NSKeyedArchiver","$version":100000,"$top":{"root":{"$class":"NSArray","$id":1,"$items":[{"$class":"TSRange","$value":{"count":3,"start":2}}]}}}"# + "\n")
        // The standard catalogue does not know the class: its fields are printed.
        #expect(rendered { TreeRenderer().render(graph: graph, to: $0) }.contains("  [0]: #3 TSRange\n    start: 2\n    count: 3\n"))
    }

    @Test func decimalNumbersPrintAsTheirValue() throws {
        let graph = try ArchivedObjectGraph(data: KeyedArchiver.archivedData(withRootObject: ArchivedDecimalNumber(Decimal(string: "-12.5") ?? 0)))
        let tree = rendered { TreeRenderer().render(graph: graph, to: $0) }
        #expect(tree.contains("root: #1 NSDecimalNumber") && tree.contains("-12.5"), "\(tree)")
        #expect(!tree.contains("NS.mantissa"), "\(tree)")
    }

    /// An ordered set stored one key per element, in hash order (as Apple's binary archives store it), and
    /// one stored as an NS.objects array (what this package wrote before): both are listed as items.
    @Test func orderedSetsInEitherLayoutAreListedAsItems() throws {
        var b = ArchiveBuilder()
        let a = b.add("a"), c = b.add("c"), d = b.add("d")
        let indexed = b.object("NSOrderedSet", ["NSObject"], [("NS.object.2", d), ("NS.object.0", a), ("NS.object.1", c)])
        let array = b.object("NSMutableOrderedSet", ["NSOrderedSet", "NSObject"], [("NS.objects", [c, a])])
        let graph = try ArchivedObjectGraph(propertyList: b.archive(top: ["one": indexed, "two": array]))
        #expect(rendered { TreeRenderer().render(graph: graph, to: $0) } == """
            keyed archive: $archiver "NSKeyedArchiver", $version 100000, 8 entries in $objects
            one: #5 NSOrderedSet (3 items)
              [0]: #1 "a"
              [1]: #2 "c"
              [2]: #3 "d"
            two: #7 NSMutableOrderedSet (2 items)
              [0]: #2 "c"
              [1]: #1 "a"

            """)
    }

    static var corpusPresent: Bool { FileManager.default.fileExists(atPath: TestEnvironment.corpus.path) }

    /// Apple-written archives: corelibs-foundation's macOS-10.14 fixtures and its NSKeyedUnarchiver-*.plist resources.
    static func appleArchives() -> [URL] {
        TestEnvironment.corpusFiles().filter {
            $0.path.contains("/corelibs-foundation/Fixtures/macOS-10.14/")
                || ($0.path.contains("/corelibs-foundation/Resources/") && $0.lastPathComponent.hasPrefix("NSKeyedUnarchiver-"))
        }
    }

    /// Every object of a catalogued value-type class in Apple's archives is shown by the tree and `--json` as
    /// its value (the type's description; its JSON under `$value`), never with raw fields or as "(0 items)".
    /// The one exception is an NSValue in the Objective-C-type layout (`$0`/`$1`, no `NS.special`), which
    /// ArchivedSpecialValue does not read: it is shown with its fields, as any unknown layout.
    @Test(.enabled(if: corpusPresent, "needs ../shared/corpus"))
    func everyCataloguedValueTypeInApplesArchivesIsShownAsAValue() throws {
        let valueTypeNames = Set(FoundationClassCatalogue.valueTypes.flatMap(\.names))
        var shown = Set<String>(), unsupported: [String] = []
        let files = Self.appleArchives()
        #expect(files.count > 40, "found \(files.count) Apple archives")
        for url in files {
            let file = url.lastPathComponent
            guard let graph = try? ArchivedObjectGraph(data: Data(contentsOf: url)) else { continue }
            let tree = rendered { TreeRenderer().render(graph: graph, to: $0) }
            let json = rendered { JSONRenderer().render(graph: graph, to: $0) }
            // A value type's member that is itself a value type (NSISO8601DateFormatter's NSTimeZone) is shown
            // inside the outer value, not on a line of its own.
            var insideValues = Set<UID>()
            for uid in graph.uids {
                guard case .decoded? = graph.resolvedObject(uid)?.kind, let fields = graph.object(uid)?.instance?.fields else { continue }
                for field in fields { if case .reference(let member) = field.value { insideValues.insert(member) } }
            }
            for uid in graph.uids {
                guard let object = graph.resolvedObject(uid), let name = object.archivedClass?.name,
                      valueTypeNames.contains(name) else { continue }
                switch object.kind {
                case .decoded where insideValues.contains(uid):
                    shown.insert(name)
                case .decoded(_, let description, let valueJSON):
                    shown.insert(name)
                    let text = ValueFormatting.printable(ValueFormatting.decodedValueText(description, className: name))
                    #expect(tree.contains("#\(uid.value) \(name) \(text)\n"), "\(file) #\(uid.value) \(name): tree")
                    let jsonValue = try #require(valueJSON, "\(file) #\(uid.value) \(name) has no JSON")
                    #expect(json.contains(#"{"$class":"\#(name)","$value":\#(jsonValue)}"#), "\(file) #\(uid.value) \(name): JSON")
                case .object(let instance) where name == "NSValue" && instance["NS.special"] == nil:
                    unsupported.append("\(file) #\(uid.value)")
                default:
                    Issue.record("\(file) #\(uid.value) \(name) is not shown as a value: \(object.kind)")
                }
            }
            for name in valueTypeNames {
                #expect(!tree.contains(" \(name) (0 items)"), "\(file): \(name) shown as an empty list")
                if !unsupported.contains(where: { $0.hasPrefix(file + " ") }) || name != "NSValue" {
                    #expect(!json.contains(#""$class":"\#(name)","$id""#), "\(file): \(name) shown with raw fields in JSON")
                }
            }
        }
        #expect(shown.isSuperset(of: ["NSValue", "NSIndexSet", "NSMutableIndexSet", "NSIndexPath", "NSCountedSet", "NSMeasurement",
                                      "NSTimeZone", "NSLocale", "NSAttributedString", "NSMutableAttributedString", "NSISO8601DateFormatter"]),
                "shown: \(shown.sorted())")
        // Only the ConcreteValueTest fixture holds the $0/$1 layout.
        #expect(unsupported.allSatisfy { $0.contains("ConcreteValue") }, "\(unsupported)")
    }
}
