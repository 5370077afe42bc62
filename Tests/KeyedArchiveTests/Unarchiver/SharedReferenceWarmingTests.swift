import Foundation
import Testing
@testable import KeyedArchive

/// The unarchiver reads references to objects decoded before a few at a time (a field's object with the
/// next entries', an array's elements four by four as a pipeline) before decoding them one by one. That
/// reading decides nothing: every graph decodes to the same objects, shared where the archive shares them,
/// whatever the array's length against the groups of four and whatever mix of nil, absent, new and shared
/// references the fields hold.
@Suite struct SharedReferenceWarmingTests {
    final class Node: KeyedArchivable {
        static var archivedClassName: String { "WarmingNode" }
        let index: Int
        var links: [Node?] = []

        init(_ index: Int) { self.index = index }

        init(from decoder: any ArchiveDecoder) throws {
            index = try decoder.decode(Int.self, forKey: "index")
            for key in ["a", "b", "c", "d", "e"] { links.append(try decoder.decodeIfPresent(Node.self, forKey: key)) }
        }

        func encode(to encoder: any ArchiveEncoder) throws {
            try encoder.encode(index, forKey: "index")
            // "e" is never written: an absent key among the references.
            for (key, link) in zip(["a", "b", "c", "d"], links) { try encoder.encode(link, forKey: key) }
        }
    }

    /// `count` nodes whose links mix nil, nodes met before (shared) and nodes met first there (new); links
    /// only go to later nodes, so the graph has no cycle.
    static func graph(count: Int) -> [Node] {
        let nodes = (0 ..< count).map(Node.init)
        func node(_ j: Int) -> Node? { j < count ? nodes[j] : nil }
        for n in nodes {
            let i = n.index, after = count - i - 1
            n.links = [node(i + 1), nil, after > 0 ? node(i + 1 + (i * 7 + 3) % after) : nil, node(i + 3)]
        }
        return nodes
    }

    @Test(arguments: [1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 33, 100])
    func everyArrayLengthDecodesTheSameSharedGraph(count: Int) throws {
        let nodes = Self.graph(count: count)
        // The nodes twice, reversed the second time: the array's elements are mostly shared references.
        let data = try KeyedArchiver.archivedData(withRootObject: nodes + nodes.reversed())
        let back = try KeyedUnarchiver().decode([Node].self, from: data)
        #expect(back.count == 2 * count)
        for (i, node) in back.prefix(count).enumerated() {
            #expect(node.index == i)
            #expect(back[2 * count - 1 - i] === node, "element \(i) is shared with its repeat")
            #expect(node.links.count == 5)
            for (k, link) in nodes[i].links.enumerated() {
                #expect(node.links[k]?.index == link?.index, "node \(i), link \(k)")
                if let link { #expect(node.links[k] === back[link.index], "node \(i), link \(k) is shared") }
            }
            #expect(node.links[4] == nil)
        }
    }

    @Test func aSharedObjectMetAgainIsStillCheckedAgainstTheField() throws {
        final class Other: KeyedArchivable {
            static var archivedClassName: String { "WarmingOther" }
            init() {}
            init(from decoder: any ArchiveDecoder) throws {}
            func encode(to encoder: any ArchiveEncoder) throws {}
        }
        final class Holder: KeyedArchivable {
            static var archivedClassName: String { "WarmingHolder" }
            let node: Node
            init(node: Node) { self.node = node }
            init(from decoder: any ArchiveDecoder) throws {
                node = try decoder.decode(Node.self, forKey: "node")
                // The same object again, now asked for as another class: refused, although it was read ahead.
                _ = try decoder.decodeIfPresent(Other.self, forKey: "again")
            }
            func encode(to encoder: any ArchiveEncoder) throws {
                try encoder.encode(node, forKey: "node")
                try encoder.encode(node, forKey: "again")
            }
        }
        let data = try KeyedArchiver.archivedData(withRootObject: [Holder(node: Node(0))])
        let error = #expect(throws: KeyedArchiveError.self) { try KeyedUnarchiver().decode([Holder].self, from: data) }
        #expect(error?.code == .classNotAllowed, "\(String(describing: error))")
    }
}
