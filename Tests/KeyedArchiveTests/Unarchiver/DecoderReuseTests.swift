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

    /// An array element that is a class but no object: it writes itself as its text and keeps the element
    /// decoder it was read from.
    final class KeptTag: ArchiveValue {
        let text: String
        var keptDecoder: (any ArchiveDecoder)?
        init(_ text: String) { self.text = text }
        func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encoder.encode(text, forKey: key) }
        static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> KeptTag {
            let tag = KeptTag(try decoder.decode(String.self, forKey: key))
            tag.keptDecoder = decoder
            return tag
        }
    }

    /// Reads an array whose elements keep their decoder, then more arrays, then reads again through the
    /// kept decoder (which answers with the element it read last).
    final class TagShelf: KeyedArchivable {
        static var archivedClassName: String { "TagShelf" }
        var kept: [KeptTag]
        var later: [KeptTag]
        var names: [String]
        var readAgain: String?
        init(kept: [String], later: [String], names: [String]) {
            self.kept = kept.map(KeptTag.init)
            self.later = later.map(KeptTag.init)
            self.names = names
        }
        init(from decoder: any ArchiveDecoder) throws {
            kept = try decoder.decode([KeptTag].self, forKey: "kept")
            later = try decoder.decode([KeptTag].self, forKey: "later")
            names = try decoder.decode([String].self, forKey: "names")
            readAgain = try kept.first?.keptDecoder?.decode(String.self, forKey: "")
        }
        func encode(to encoder: any ArchiveEncoder) throws {
            try encoder.encode(kept, forKey: "kept")
            try encoder.encode(later, forKey: "later")
            try encoder.encode(names, forKey: "names")
        }
    }

    @Test func aKeptElementDecoderIsNotHandedToALaterCollection() throws {
        let shelf = TagShelf(kept: ["k0", "k1"], later: ["l0", "l1", "l2"], names: ["n0"])
        let back = try KeyedUnarchiver.unarchivedObject(ofClass: TagShelf.self,
                                                        from: KeyedArchiver.archivedData(withRootObject: shelf))
        #expect(back.kept.map(\.text) == ["k0", "k1"])
        #expect(back.later.map(\.text) == ["l0", "l1", "l2"])
        #expect(back.names == ["n0"])
        // The kept decoder still belongs to the first array (one decoder serves all of a collection's
        // elements, so it answers with that array's last element), not to `later` or `names`.
        #expect(back.readAgain == "k1")
    }

    /// Tries to read an array of numbers as strings, then reads a field that is not there.
    struct CaughtElementFailure: KeyedArchivable {
        static var archivedClassName: String { "CaughtElementFailure" }
        var caught = false
        init() {}
        init(from decoder: any ArchiveDecoder) throws {
            caught = (try? decoder.decode([String].self, forKey: "mixed")) == nil
            _ = try decoder.decode(String.self, forKey: "absent")
        }
        func encode(to encoder: any ArchiveEncoder) throws {
            try encoder.encode([1, 2], forKey: "mixed")
        }
    }

    @Test func aCaughtElementFailureLeavesTheKeyPathAsItWas() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: CaughtElementFailure())
        let error = try #require(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(ofClass: CaughtElementFailure.self, from: data)
        }
        #expect(error.code == .keyNotFound)
        #expect(error.keyPath == "root.absent")
    }

    @Test func objectsDecodedOneAfterAnotherEachReadTheirOwnFields() throws {
        let leaves = (0 ..< 50).map(Leaf.init)
        let back = try KeyedUnarchiver.unarchivedObject(ofClass: [Leaf].self,
                                                        from: KeyedArchiver.archivedData(withRootObject: leaves))
        #expect(back.map(\.value) == Array(0 ..< 50))
    }
}
