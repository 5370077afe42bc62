import Foundation
import Testing
@testable import KeyedArchive

// The order of an archive's objects does not depend on the order the archiver meets them in: reachable
// objects are numbered depth-first from `$top` (Apple's order), and objects nothing reaches (a field
// written twice loses its first value) follow in the order the work queue made them. These tests pin
// that for the one-call API (`archivedData(withRootObject:)`, `archivedPropertyList(withRootObject:)`), the
// archiver instance and the tree-building oracle alike, on the graphs where an archiver encoding in
// another order (depth-first, as Apple's recursive archiver does) would be most likely to differ.

/// A class model whose `children` may be written twice: first `overwritten`, then `children` (last one wins).
private final class Node: KeyedArchivable {
    static var archivedClassName: String { "ArchiveOrderTests.Node" }
    let name: String
    var children: [Node]
    var overwritten: [Node]?

    init(_ name: String, _ children: [Node] = [], overwritten: [Node]? = nil) {
        self.name = name
        self.children = children
        self.overwritten = overwritten
    }

    init(from decoder: any ArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        children = try decoder.decode([Node].self, forKey: "children")
    }

    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        if let overwritten { try encoder.encode(overwritten, forKey: "children") }
        try encoder.encode(children, forKey: "children")
    }
}

/// A model that swallows the error its child throws when encoded (`try?`).
private final class Forgiving: KeyedArchivable {
    static var archivedClassName: String { "ArchiveOrderTests.Forgiving" }
    let child: Refusing
    init(_ child: Refusing) { self.child = child }
    init(from decoder: any ArchiveDecoder) throws { child = Refusing() }
    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode("kept", forKey: "name")
        try? encoder.encode(child, forKey: "child")
    }
}

/// A model whose encode throws after writing one field.
private final class Refusing: KeyedArchivable {
    struct Refusal: Error {}
    static var archivedClassName: String { "ArchiveOrderTests.Refusing" }
    init() {}
    init(from decoder: any ArchiveDecoder) throws {}
    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode("before", forKey: "written")
        throw Refusal()
    }
}

@Suite struct ArchiveOrderTests {
    /// The strings of `$objects`, in order.
    private func strings(in archive: Data) throws -> [String] {
        let tree = try PropertyListValue(propertyListData: archive)
        return ArchiveFixture.objects(tree).compactMap(\.stringValue)
    }

    @Test func objectsNothingReachesFollowInTheOrderTheWorkQueueMadeThem() throws {
        // "children" is written twice: the first value, two levels of nodes with siblings, is reached by
        // nothing. The queue made its nodes level by level (A, B, then A's children, then B's); a
        // depth-first order would give A, A1, A2, B, B1.
        let lost = [Node("A", [Node("A1"), Node("A2")]), Node("B", [Node("B1")])]
        let root = Node("root", [Node("kept", [Node("kept child")])], overwritten: lost)
        let archive = try expectArchiveMatchesOracle(root)
        let names = try strings(in: archive)
        #expect(names.filter { ["A", "B", "A1", "A2", "B1"].contains($0) } == ["A", "B", "A1", "A2", "B1"])
        // The reachable ones come first, depth-first: each node before its children.
        #expect(names.filter { ["root", "kept", "kept child"].contains($0) } == ["root", "kept", "kept child"])
        let lastReached = try #require(names.firstIndex(of: "kept child"))
        let firstLost = try #require(names.firstIndex(of: "A"))
        #expect(lastReached < firstLost)
    }

    @Test func sharedObjectsCyclesAndLayersGiveOneArchive() throws {
        // Layers of nodes, each referring to three nodes of the next layer chosen apart (the benchmark's
        // shape: a depth-first walk jumps between them), one node of the last layer referring back to
        // the first (a cycle), and one overwritten field reaching shared nodes.
        let layers = (0 ..< 6).map { layer in (0 ..< 12).map { Node("L\(layer) #\($0)") } }
        for (layer, nodes) in layers.enumerated().dropLast() {
            for (i, node) in nodes.enumerated() {
                node.children = (1 ... 3).map { layers[layer + 1][(i &* 5 &+ $0 &* 7) % 12] }
            }
        }
        layers[5][0].children = [layers[0][3]]
        layers[2][1].overwritten = [layers[4][2], Node("only here", [layers[5][5]])]
        let archive = try expectArchiveMatchesOracle(layers[0])
        // Every node is written once.
        #expect(try strings(in: archive).filter { $0.hasPrefix("L") }.count == 72)
    }

    @Test func aChainDeeperThanAnyStackGivesOneArchive() throws {
        // 5,000 nodes each holding the next: encoding never recurses that deep, whatever order it takes.
        var head = Node("end")
        for i in 0 ..< 5_000 { head = Node("n\(i)", [head]) }
        let archive = try expectArchiveMatchesOracle([head, head])
        #expect(try strings(in: archive).count == 5_002)
    }

    @Test func anErrorInsideTheGraphIsTheArchiversError() throws {
        // The child's error is swallowed where the child is referred to, but the work queue writes the child
        // later, outside that `try?`: every API throws it.
        let forgiving = Forgiving(Refusing())
        #expect(throws: Refusing.Refusal.self) { try KeyedArchiver.archivedData(withRootObject: forgiving) }
        #expect(throws: Refusing.Refusal.self) { try KeyedArchiver.archivedPropertyList(withRootObject: [forgiving]) }
        let archiver = KeyedArchiver()
        #expect(throws: Refusing.Refusal.self) { try archiver.encode(forgiving, forKey: "root") }
    }
}
