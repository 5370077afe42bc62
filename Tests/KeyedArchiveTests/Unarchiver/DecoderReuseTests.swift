import Foundation
import Testing
@testable import KeyedArchive

/// The unarchiver hands the decoder of a finished object to the next object, unless the model kept it:
/// a kept decoder goes on reading its own object's fields for as long as the unarchive runs.
@Suite struct DecoderReuseTests {
    /// A node that keeps its decoder and, after decoding its children, reads its own name through each
    /// child's kept decoder (whose object finished while later siblings were decoded).
    final class KeepingNode: KeyedArchivable {
        static var archivedClassName: String { "KeepingNode" }
        let name: String
        var children: [KeepingNode] = []
        /// The name each child's kept decoder read again after every child was decoded.
        var namesReadAgain: [String] = []
        /// The decoder this node was decoded from (nil for a node made in memory).
        var keptDecoder: (any ArchiveDecoder)?

        init(_ name: String, children: [KeepingNode] = []) {
            self.name = name
            self.children = children
        }

        init(from decoder: any ArchiveDecoder) throws {
            name = try decoder.decode(String.self, forKey: "name")
            children = try decoder.decode([KeepingNode].self, forKey: "children")
            namesReadAgain = try children.map { try $0.keptDecoder?.decode(String.self, forKey: "name") ?? "not decoded" }
            keptDecoder = decoder
        }

        func encode(to encoder: any ArchiveEncoder) throws {
            try encoder.encode(name, forKey: "name")
            try encoder.encode(children, forKey: "children")
        }
    }

    /// A leaf that does not keep its decoder, so that its decoder can serve the next object.
    final class Leaf: KeyedArchivable {
        static var archivedClassName: String { "Leaf" }
        let value: Int
        init(_ value: Int) { self.value = value }
        init(from decoder: any ArchiveDecoder) throws { value = try decoder.decode(Int.self, forKey: "value") }
        func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(value, forKey: "value") }
    }

    @Test func aKeptDecoderKeepsReadingItsOwnObjectWhileLaterObjectsDecode() throws {
        let root = KeepingNode("root", children: [KeepingNode("a"), KeepingNode("b"), KeepingNode("c")])
        let back = try KeyedUnarchiver.unarchivedObject(ofClass: KeepingNode.self,
                                                        from: KeyedArchiver.archivedData(withRootObject: root))
        #expect(back.children.map(\.name) == ["a", "b", "c"])
        #expect(back.namesReadAgain == ["a", "b", "c"])
        // Once the unarchive is over, every kept decoder answers "absent" (the bytes are gone).
        #expect(back.keptDecoder?.containsValue(forKey: "name") == false)
        #expect(back.children.allSatisfy { $0.keptDecoder?.containsValue(forKey: "name") == false })
    }

    @Test func objectsDecodedOneAfterAnotherEachReadTheirOwnFields() throws {
        let leaves = (0 ..< 50).map(Leaf.init)
        let back = try KeyedUnarchiver.unarchivedObject(ofClass: [Leaf].self,
                                                        from: KeyedArchiver.archivedData(withRootObject: leaves))
        #expect(back.map(\.value) == Array(0 ..< 50))
    }
}
