import Foundation
import Testing
@testable import KeyedArchive

/// A tree whose children point back at their parent.
final class BFolder: ArchivableCodable {
    var name: String
    var children: [BFolder] = []
    @BackReference var parent: BFolder?
    init(_ name: String) { self.name = name }

    func add(_ child: BFolder) {
        children.append(child)
        child.parent = self
    }
}

/// The same tree with a weak back-pointer.
final class BWeakFolder: ArchivableCodable {
    var name: String
    var children: [BWeakFolder] = []
    @WeakBackReference var parent: BWeakFolder?
    init(_ name: String) { self.name = name }
}

/// A ring: each node's `next` is a plain reference but the last one closes the ring through `back`.
final class BRingNode: ArchivableCodable {
    var name: String
    var next: BRingNode?
    @BackReference var back: BRingNode?
    init(_ name: String) { self.name = name }
}

/// BFolder with a plain parent pointer.
final class BPlainParent: ArchivableCodable {
    var name: String
    var children: [BPlainParent] = []
    var parent: BPlainParent?
    init(_ name: String) { self.name = name }
}

/// A class that holds a nested Codable struct that holds a class: a cycle through a struct object.
final class BHolder: ArchivableCodable {
    var name: String
    var box: BBox?
    init(_ name: String) { self.name = name }
}
struct BBox: Codable { var item: BHolder }

@Suite struct BackReferenceTests {
    @Test func parentAndChildrenRoundTripWithIdentity() throws {
        let root = BFolder("root"), a = BFolder("a"), b = BFolder("b"), a1 = BFolder("a1")
        root.add(a)
        root.add(b)
        a.add(a1)
        defer { [root, a, b, a1].forEach { $0.children = [] } }
        let back = try KeyedUnarchiver.unarchivedObject(ofClass: BFolder.self, from: KeyedArchiver.archivedData(withRootObject: root))
        defer { back.children.forEach { $0.children = [] }; back.children = [] }
        #expect(back.name == "root")
        #expect(back.parent == nil)
        #expect(back.children.map(\.name) == ["a", "b"])
        #expect(back.children[0].parent === back)
        #expect(back.children[1].parent === back)
        #expect(back.children[0].children.map(\.name) == ["a1"])
        #expect(back.children[0].children[0].parent === back.children[0])
    }

    @Test func readingAChildFirstStillDeliversItsParent() throws {
        let root = BFolder("root"), child = BFolder("child")
        root.add(child)
        defer { root.children = [] }
        // The child is the archive's root: its parent is decoded through the back-reference, and the parent's
        // children array refers to the child that is still being decoded.
        let back = try KeyedUnarchiver.unarchivedObject(ofClass: BFolder.self, from: KeyedArchiver.archivedData(withRootObject: child))
        let parent = try #require(back.parent)
        defer { parent.children = [] }
        #expect(parent.name == "root")
        #expect(parent.children.count == 1)
        #expect(parent.children.first === back)
    }

    @Test func ringClosedByABackReferenceRoundTrips() throws {
        let a = BRingNode("a"), b = BRingNode("b"), c = BRingNode("c")
        a.next = b
        b.next = c
        c.back = a
        defer { a.next = nil; b.next = nil }
        let back = try KeyedUnarchiver.unarchivedObject(ofClass: BRingNode.self, from: KeyedArchiver.archivedData(withRootObject: a))
        defer { back.next?.next = nil; back.next = nil }
        #expect(back.name == "a")
        #expect(back.next?.name == "b")
        #expect(back.next?.next?.name == "c")
        #expect(back.next?.next?.back === back)
        #expect(back.back == nil)
    }

    @Test func weakParentRoundTripsWithIdentity() throws {
        let root = BWeakFolder("root"), child = BWeakFolder("child")
        root.children = [child]
        child.parent = root
        let back = try KeyedUnarchiver.unarchivedObject(ofClass: BWeakFolder.self, from: KeyedArchiver.archivedData(withRootObject: root))
        #expect(back.children.first?.parent === back)
        // Weak: the child does not keep its parent alive.
        weak var weakParent: BWeakFolder?
        var orphan: BWeakFolder?
        do {
            let copy = try KeyedUnarchiver.unarchivedObject(ofClass: BWeakFolder.self, from: KeyedArchiver.archivedData(withRootObject: root))
            weakParent = copy
            orphan = copy.children.first
        }
        #expect(weakParent == nil)
        #expect(orphan?.parent == nil)
    }

    @Test func backReferenceWritesThePlainReferencesBytes() throws {
        final class Plain: ArchivableCodable {
            static var archivedClassName: String { String(reflecting: BFolder.self) }
            var name: String
            var children: [Plain] = []
            var parent: Plain?
            init(_ name: String) { self.name = name }
        }
        // A child whose parent does not list it: no cycle, so the plain model archives too.
        let parent = BFolder("parent"), child = BFolder("child")
        child.parent = parent
        let plainParent = Plain("parent"), plainChild = Plain("child")
        plainChild.parent = plainParent
        #expect(try KeyedArchiver.archivedData(withRootObject: child) == KeyedArchiver.archivedData(withRootObject: plainChild))
    }

    @Test func plainParentPointerIsRefusedWhenArchivedAndNamesTheWrapper() throws {
        let root = BPlainParent("root"), child = BPlainParent("child")
        root.children = [child]
        child.parent = root
        defer { root.children = [] }
        let error = #expect(throws: EncodingError.self) { try KeyedArchiver.archivedData(withRootObject: root) }
        guard case .invalidValue(_, let context)? = error else {
            Issue.record("expected invalidValue, got \(String(describing: error))")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["parent"])
        #expect(context.debugDescription.contains("BPlainParent.parent) @BackReference or @WeakBackReference"), "\(context.debugDescription)")
        // The same tree without the cycle archives and reads back.
        child.parent = nil
        let back = try KeyedUnarchiver.unarchivedObject(ofClass: BPlainParent.self, from: KeyedArchiver.archivedData(withRootObject: root))
        #expect(back.children.map(\.name) == ["child"])
    }

    @Test func cycleThroughANestedStructIsRefusedToo() throws {
        let a = BHolder("a"), b = BHolder("b")
        a.box = BBox(item: b)
        b.box = BBox(item: a)
        defer { a.box = nil }
        #expect(throws: EncodingError.self) { try KeyedArchiver.archivedData(withRootObject: a) }
    }

    @Test func sharedObjectWithoutACycleIsNotRefused() throws {
        let shared = BFolder("shared")
        let holder = BHolder("h")
        holder.box = BBox(item: BHolder("x"))
        let pair = [shared, shared]
        let data = try KeyedArchiver.archivedData(withRootObject: pair)
        let back = try KeyedUnarchiver.unarchivedObject(ofClass: [BFolder].self, from: data)
        #expect(back[0] === back[1])
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: BHolder.self, from: KeyedArchiver.archivedData(withRootObject: holder)).box?.item.name == "x")
    }

    @Test func otherEncodersAndDecodersRefuseABackReference() throws {
        #expect(throws: EncodingError.self) { try JSONEncoder().encode(BFolder("x")) }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode(BFolder.self, from: Data(#"{"name":"x","children":[],"parent":null}"#.utf8))
        }
    }
}
