import Foundation
import KeyedArchive
import KeyedArchiveTesting
import Testing

// Models for the helper's own tests: some faithful, some with a deliberately broken init(from:).

/// A faithful model with a nested array and a dictionary.
private final class Folder: KeyedArchivable {
    static var archivedClassName: String { "Folder" }
    var title: String
    var items: [Item]
    var scores: [String: Int]
    init(title: String, items: [Item], scores: [String: Int] = [:]) {
        self.title = title
        self.items = items
        self.scores = scores
    }
    init(from decoder: any ArchiveDecoder) throws {
        title = try decoder.decode(String.self, forKey: "title")
        items = try decoder.decode([Item].self, forKey: "items")
        scores = try decoder.decode([String: Int].self, forKey: "scores")
    }
    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(title, forKey: "title")
        try encoder.encode(items, forKey: "items")
        try encoder.encode(scores, forKey: "scores")
    }
}

/// A faithful item (keys decoded in another order than encoded, which must not matter).
private final class Item: KeyedArchivable {
    static var archivedClassName: String { "Item" }
    var title: String
    var subtitle: String
    var count: Int
    init(title: String, subtitle: String, count: Int) {
        self.title = title
        self.subtitle = subtitle
        self.count = count
    }
    init(from decoder: any ArchiveDecoder) throws {
        title = try decoder.decode(String.self, forKey: "title")
        count = try decoder.decode(Int.self, forKey: "count")
        subtitle = try decoder.decode(String.self, forKey: "subtitle")
    }
    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(title, forKey: "title")
        try encoder.encode(subtitle, forKey: "subtitle")
        try encoder.encode(count, forKey: "count")
    }
}

/// Like `Item`, but its decoder drops `subtitle` (a typical migration slip).
private struct LossyItem: KeyedArchivable, Equatable {
    static var archivedClassName: String { "LossyItem" }
    var title: String
    var subtitle: String
    init(title: String, subtitle: String) {
        self.title = title
        self.subtitle = subtitle
    }
    init(from decoder: any ArchiveDecoder) throws {
        title = try decoder.decode(String.self, forKey: "title")
        subtitle = ""  // BUG on purpose: the field is never read
    }
    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(title, forKey: "title")
        try encoder.encode(subtitle, forKey: "subtitle")
    }
}

private final class Box: KeyedArchivable {
    static var archivedClassName: String { "Box" }
    var label: String
    init(_ label: String) { self.label = label }
    init(from decoder: any ArchiveDecoder) throws { label = try decoder.decode(String.self, forKey: "label") }
    func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(label, forKey: "label") }
}

/// Holds the same box twice; `copiesSecond` makes its decoder replace the second reference by a copy.
private final class Pair: KeyedArchivable {
    static var archivedClassName: String { "Pair" }
    var first: Box
    var second: Box
    var copiesSecond: Bool
    init(_ first: Box, _ second: Box, copiesSecond: Bool = false) {
        self.first = first
        self.second = second
        self.copiesSecond = copiesSecond
    }
    init(from decoder: any ArchiveDecoder) throws {
        copiesSecond = try decoder.decode(Bool.self, forKey: "copiesSecond")
        first = try decoder.decode(Box.self, forKey: "first")
        let second = try decoder.decode(Box.self, forKey: "second")
        self.second = copiesSecond ? Box(second.label) : second  // BUG when set: loses the sharing
    }
    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(copiesSecond, forKey: "copiesSecond")
        try encoder.encode(first, forKey: "first")
        try encoder.encode(second, forKey: "second")
    }
}

/// A node with a back-reference (a cycle).
private final class TreeNode: KeyedArchivable {
    static var archivedClassName: String { "TreeNode" }
    var name: String
    var children: [TreeNode] = []
    weak var parent: TreeNode?
    init(_ name: String) { self.name = name }
    init(from decoder: any ArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        children = try decoder.decode([TreeNode].self, forKey: "children")
        try decoder.decodeObjectReference(of: TreeNode.self, forKey: "parent") { [unowned self] in self.parent = $0 }
    }
    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(children, forKey: "children")
        try encoder.encodeConditionalObject(parent, forKey: "parent")
    }
}

/// Always refuses to decode.
private struct Refuser: KeyedArchivable {
    static var archivedClassName: String { "Refuser" }
    init() {}
    init(from decoder: any ArchiveDecoder) throws {
        throw decoder.dataCorruptedError(forKey: "nothing", "refused on purpose")
    }
    func encode(to encoder: any ArchiveEncoder) throws {}
}

@Suite struct RoundTripHelperTests {
    @Test func faithfulGraphReportsNoDifference() throws {
        let folder = Folder(title: "Inbox", items: [Item(title: "a", subtitle: "x", count: 1), Item(title: "b", subtitle: "y", count: 2)],
                            scores: Dictionary(uniqueKeysWithValues: (0..<40).map { ("key\($0)", $0) }))
        let report = ArchiveRoundTrip.check(folder)
        #expect(report.isFaithful, "\(report)")
        #expect(report.differences.isEmpty)
        #expect(report.failure == nil)
        let copy = try #require(report.decoded)
        #expect(copy.title == "Inbox")
        #expect(copy.items.map(\.subtitle) == ["x", "y"])
        #expect(copy.scores == folder.scores)
        #expect(report.description == "round trip: faithful")
    }

    @Test func droppedFieldIsReportedWithItsKeyPath() throws {
        let report = ArchiveRoundTrip.check([LossyItem(title: "kept", subtitle: "lost"), LossyItem(title: "t", subtitle: "")])
        #expect(!report.isFaithful)
        #expect(report.differences == [
            RoundTripDifference(keyPath: "root[0].subtitle", original: "\"lost\"", copy: "\"\"", kind: .value),
        ])
        #expect(report.description.contains("root[0].subtitle: \"lost\" != \"\""))
        // The decoded copy is there to inspect.
        #expect(try #require(report.decoded).map(\.title) == ["kept", "t"])
    }

    @Test func nestedDifferenceNamesTheElement() throws {
        // The comparison on its own: two archives of different values.
        let changed = Folder(title: "f", items: [Item(title: "a", subtitle: "s", count: 1), Item(title: "b", subtitle: "s", count: 7)])
        let original = Folder(title: "f", items: [Item(title: "a", subtitle: "s", count: 1), Item(title: "b", subtitle: "s", count: 2)])
        let a = try ArchivedObjectGraph(data: KeyedArchiver.archivedData(withRootObject: original))
        let b = try ArchivedObjectGraph(data: KeyedArchiver.archivedData(withRootObject: changed))
        let comparison = ArchiveGraphComparison(original: a, copy: b)
        #expect(comparison.differences.map(\.description) == ["root.items[1].count: 2 != 7"])
    }

    @Test func extraAndMissingElementsAndEntriesAreReported() throws {
        let original = Folder(title: "f", items: [Item(title: "a", subtitle: "", count: 1)], scores: ["x": 1, "y": 2])
        let changed = Folder(title: "f", items: [], scores: ["x": 1, "z": 2])
        let a = try ArchivedObjectGraph(data: KeyedArchiver.archivedData(withRootObject: original))
        let b = try ArchivedObjectGraph(data: KeyedArchiver.archivedData(withRootObject: changed))
        let texts = ArchiveGraphComparison(original: a, copy: b).differences.map(\.description)
        #expect(texts.contains("root.items: 1 elements != 0 elements"))
        #expect(texts.contains("root.items[0]: Item object != (absent)"))
        #expect(texts.contains("root.scores[\"y\"]: 2 != (absent)"))
        #expect(texts.contains("root.scores[\"z\"]: (absent) != 2"))
    }

    @Test func lostSharingIsReportedAsIdentity() throws {
        let box = Box("shared")
        let faithful = ArchiveRoundTrip.check(Pair(box, box))
        #expect(faithful.isFaithful, "\(faithful)")
        #expect(try #require(faithful.decoded).first === faithful.decoded?.second)

        let report = ArchiveRoundTrip.check(Pair(box, box, copiesSecond: true))
        #expect(report.differences == [
            RoundTripDifference(keyPath: "root.second", original: "the same object as root.first",
                                copy: "a different object", kind: .identity),
        ])
    }

    @Test func mergedObjectsAreReportedAsIdentity() throws {
        // The other direction: distinct in the original, one object in the copy.
        let a = try ArchivedObjectGraph(data: KeyedArchiver.archivedData(withRootObject: Pair(Box("x"), Box("x"))))
        let shared = Box("x")
        let b = try ArchivedObjectGraph(data: KeyedArchiver.archivedData(withRootObject: Pair(shared, shared)))
        let differences = ArchiveGraphComparison(original: a, copy: b).differences
        #expect(differences.map(\.keyPath) == ["root.second"])
        #expect(differences.first?.kind == .identity)
    }

    @Test func cyclesAreComparedWithoutLooping() throws {
        let root = TreeNode("root")
        for name in ["a", "b"] {
            let child = TreeNode(name)
            child.parent = root
            root.children.append(child)
        }
        let report = ArchiveRoundTrip.check(root)
        #expect(report.isFaithful, "\(report)")
        let copy = try #require(report.decoded)
        #expect(copy.children.allSatisfy { $0.parent === copy })
    }

    @Test func decodeFailureIsReportedNotThrown() {
        let report = ArchiveRoundTrip.check(Refuser())
        #expect(!report.isFaithful)
        #expect(report.decoded == nil)
        #expect(report.failure?.stage == .unarchiving)
        #expect(report.failure?.code == .dataCorrupted)
        #expect(report.description.contains("refused on purpose"))
    }

    @Test func unarchiverSettingsApply() {
        var strict = KeyedUnarchiver()
        strict.limits.maximumObjectCount = 2
        let report = ArchiveRoundTrip.check(Folder(title: "f", items: [Item(title: "a", subtitle: "", count: 1)]), unarchiver: strict)
        #expect(report.failure?.code == .limitExceeded)
    }

    @Test func differencesStopAtTheLimit() throws {
        let items = (0..<20).map { LossyItem(title: "\($0)", subtitle: "s\($0)") }
        let report = ArchiveRoundTrip.check(items, maximumDifferences: 5)
        #expect(report.differences.count == 5)
        #expect(report.isTruncated)
        #expect(report.differences.map(\.keyPath) == (0..<5).map { "root[\($0)].subtitle" })
    }
}
