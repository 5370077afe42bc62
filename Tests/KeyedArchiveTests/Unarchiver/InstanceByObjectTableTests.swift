import Foundation
import Testing
@testable import KeyedArchive

/// A reference to an object decoded before is answered from a table by property-list object number (the
/// UID object the field holds) instead of through the UID's value and its `$objects` slot. The table only
/// ever answers as the slots do: through one UID object or several with the same value, for fields and
/// array elements, next to `$null`, cycles, self references and out-of-range UIDs (whose errors name the
/// object and the key path as before), and when an object decoded as an instance is read again as a
/// collection (after which the slots decode it anew).
@Suite struct InstanceByObjectTableTests {
    typealias F = ArchiveFixture

    final class Node: KeyedArchivable {
        static var archivedClassName: String { "TableNode" }
        let index: Int
        init(index: Int) { self.index = index }
        init(from decoder: any ArchiveDecoder) throws { index = try decoder.decode(Int.self, forKey: "index") }
        func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(index, forKey: "index") }
    }

    /// Reads its fields `a`, `b`, `c` and `a` again (each present one a `Node`, or `$null`).
    final class Holder: KeyedArchivable {
        static var archivedClassName: String { "TableHolder" }
        var links: [Node?] = []
        init(from decoder: any ArchiveDecoder) throws {
            for key in ["a", "b", "c", "a"] { links.append(try decoder.decodeIfPresent(Node.self, forKey: key)) }
        }
        func encode(to encoder: any ArchiveEncoder) throws {}
    }

    /// The envelope and a holder whose fields `a`, `b`, `c` hold the property-list objects `a`, `b`, `c`
    /// (numbers below): 20 and 21 are two distinct UID objects with the same value, 2 (the node).
    private static func sameValueInTwoUIDObjects(a: Int, b: Int, c: Int) -> Data {
        HandMadeBinaryPropertyList.encode([
            .dictionary(keys: [1, 2, 3, 4], values: [5, 6, 7, 8]),  // 0: the envelope
            .ascii("$archiver"), .ascii("$version"), .ascii("$top"), .ascii("$objects"),
            .ascii("NSKeyedArchiver"),                              // 5
            .integer(100000),                                       // 6
            .dictionary(keys: [9], values: [10]),                   // 7: $top = {root: UID 1}
            .array([11, 12, 13, 14, 15]),                           // 8: $objects: $null, holder, node, two classes
            .ascii("root"), .uid(1), .ascii("$null"),               // 9, 10, 11
            .dictionary(keys: [16, 17, 18, 19], values: [22, a, b, c]),  // 12: the holder
            .dictionary(keys: [16, 23], values: [24, 25]),          // 13: the node {index: 7}
            .dictionary(keys: [26, 27], values: [28, 30]),          // 14: class TableHolder
            .dictionary(keys: [26, 27], values: [31, 32]),          // 15: class TableNode
            .ascii("$class"), .ascii("a"), .ascii("b"), .ascii("c"),  // 16-19
            .uid(2), .uid(2),                                       // 20, 21: the node, twice
            .uid(3), .ascii("index"), .uid(4), .integer(7),         // 22-25
            .ascii("$classname"), .ascii("$classes"),               // 26, 27
            .ascii("TableHolder"), .ascii("NSObject"), .array([28, 29]),  // 28-30
            .ascii("TableNode"), .array([31, 29]),                  // 31, 32
            .uid(0),                                                // 33: $null
            .uid(1),                                                // 34: the holder itself
        ])
    }

    @Test func oneObjectThroughTwoUIDObjectsWithTheSameValueIsOneInstance() throws {
        let data = Self.sameValueInTwoUIDObjects(a: 20, b: 21, c: 20)
        let holder = try KeyedUnarchiver().decode(Holder.self, from: data)
        #expect(holder.links.count == 4)
        let node = try #require(holder.links[0])
        #expect(node.index == 7)
        for link in holder.links { #expect(link === node) }
    }

    @Test func aReferenceToNullAfterSharedOnesIsNil() throws {
        let data = Self.sameValueInTwoUIDObjects(a: 21, b: 33, c: 20)
        let holder = try KeyedUnarchiver().decode(Holder.self, from: data)
        #expect(holder.links.count == 4)
        let node = try #require(holder.links[0])
        #expect(holder.links[1] == nil)
        #expect(holder.links[2] === node)
        #expect(holder.links[3] === node)
    }

    @Test func aSelfReferenceIsAClassMismatchNamingTheObjectAndKey() throws {
        // Field c refers to the holder itself (asked for as a node, after the node was shared through a and b).
        let data = Self.sameValueInTwoUIDObjects(a: 20, b: 21, c: 34)
        let error = #expect(throws: KeyedArchiveError.self) { try KeyedUnarchiver().decode(Holder.self, from: data) }
        #expect(error?.code == .classNotAllowed, "\(String(describing: error))")
        #expect(error?.objectUID == 1)
        #expect(error?.keyPath == "root.c")
    }

    /// A chain whose last node refers back to `back` (an index into the chain) through field `next`.
    final class Chain: KeyedArchivable {
        static var archivedClassName: String { "TableChain" }
        var next: Chain?
        var extra: Chain?
        init() {}
        init(from decoder: any ArchiveDecoder) throws {
            next = try decoder.decodeIfPresent(Chain.self, forKey: "next")
            extra = try decoder.decodeIfPresent(Chain.self, forKey: "extra")
        }
        func encode(to encoder: any ArchiveEncoder) throws {
            try encoder.encode(next, forKey: "next")
            try encoder.encode(extra, forKey: "extra")
        }
    }

    @Test func aCycleThroughObjectsBeingDecodedIsStillACycle() throws {
        // $objects: 1 root chain -> 2 -> 3 -> back to 2 (being decoded); 3.extra is the root's first link too.
        var objects: [PropertyListValue] = ["$null"]
        objects.append(["$class": F.uid(4), "next": F.uid(2)])
        objects.append(["$class": F.uid(4), "next": F.uid(3)])
        objects.append(["$class": F.uid(4), "next": F.uid(2), "extra": F.uid(2)])
        objects.append(F.classDict("TableChain"))
        let error = keyedArchiveError(decoding: Chain.self, from: F.archive(objects))
        #expect(error?.code == .cycle, "\(String(describing: error))")
        #expect(error?.objectUID == 2)
        #expect(error?.keyPath == "root.next.next.next")
    }

    @Test func anObjectReferringToItselfIsACycleNamingTheObjectAndKey() throws {
        let archive = F.archive([
            "$null",
            ["$class": F.uid(3), "next": F.uid(2)],
            ["$class": F.uid(3), "next": F.uid(2)],  // its own next
            F.classDict("TableChain"),
        ])
        let error = keyedArchiveError(decoding: Chain.self, from: archive)
        #expect(error?.code == .cycle, "\(String(describing: error))")
        #expect(error?.objectUID == 2)
        #expect(error?.keyPath == "root.next.next")
    }

    @Test func objectsSharedAcrossManyHoldersStayShared() throws {
        // 300 chains, each next/extra pointing at earlier ones: most references are to objects decoded long before.
        let chains = (0 ..< 300).map { _ in Chain() }
        for (i, chain) in chains.enumerated() where i > 0 {
            chain.next = chains[(i * 7) % i]
            chain.extra = i % 3 == 0 ? nil : chains[i / 2]
        }
        let data = try KeyedArchiver.archivedData(withRootObject: chains + chains.reversed())
        let back = try KeyedUnarchiver().decode([Chain].self, from: data)
        #expect(back.count == 600)
        for i in 0 ..< 300 {
            #expect(back[599 - i] === back[i], "element \(i) is shared with its repeat")
            if i > 0 {
                #expect(back[i].next === back[(i * 7) % i], "chain \(i).next")
                #expect(back[i].extra === (i % 3 == 0 ? nil : back[i / 2]), "chain \(i).extra")
            }
        }
    }

    @Test func anOutOfRangeUIDAfterSharedReferencesNamesTheObjectAndKey() throws {
        let archive = F.archive([
            "$null",
            ["$class": F.uid(3), "a": F.uid(2), "b": F.uid(2), "c": F.uid(44)],  // CORRUPTED: c out of range
            ["$class": F.uid(4), "index": 7],
            F.classDict("TableHolder"), F.classDict("TableNode"),
        ])
        let error = keyedArchiveError(decoding: Holder.self, from: archive)
        #expect(error?.code == .invalidReference, "\(String(describing: error))")
        #expect(error?.message == "UID 44 is out of range: $objects has 5 entries")
        #expect(error?.objectUID == 1)
        #expect(error?.keyPath == "c")
    }

    /// A model archived under the class name of an array, so that the same object can be asked for as an
    /// instance and as a collection.
    final class ArrayLike: KeyedArchivable {
        static var archivedClassName: String { "NSArray" }
        init(from decoder: any ArchiveDecoder) throws {}
        func encode(to encoder: any ArchiveEncoder) throws {}
    }

    final class Mixed: KeyedArchivable {
        static var archivedClassName: String { "TableMixed" }
        var first: ArrayLike
        var numbers: [Int]
        var again: ArrayLike
        var once: ArrayLike
        init(from decoder: any ArchiveDecoder) throws {
            first = try decoder.decode(ArrayLike.self, forKey: "x")
            once = try decoder.decode(ArrayLike.self, forKey: "x")
            numbers = try decoder.decode([Int].self, forKey: "y")
            again = try decoder.decode(ArrayLike.self, forKey: "x")
        }
        func encode(to encoder: any ArchiveEncoder) throws {}
    }

    @Test func anInstanceReadAgainAsACollectionIsDecodedAgainAfterwards() throws {
        // x and y are the same object: an instance, then an array (which leaves its slot not decoded), then an
        // instance again, which the slots decode anew; the table, turned off, does not hand out the first one.
        let archive = F.archive([
            "$null",
            ["$class": F.uid(3), "x": F.uid(2), "y": F.uid(2)],
            ["$class": F.uid(4), "NS.objects": [F.uid(5)]],
            F.classDict("TableMixed"), F.classDict("NSArray"),
            1,
        ])
        let mixed = try KeyedUnarchiver().decode(Mixed.self, from: archive)
        #expect(mixed.numbers == [1])
        #expect(mixed.once === mixed.first)
        #expect(mixed.again !== mixed.first)
    }
}
