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
}
