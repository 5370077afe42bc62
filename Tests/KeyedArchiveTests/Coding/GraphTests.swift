import Foundation
import Testing
@testable import KeyedArchive

@Suite struct GraphTests {
    @Test func sameInstanceTwiceIsOneObject() throws {
        let shared = Book(title: "shared", pages: 1)
        let tree = try KeyedArchiver.archivedPropertyList(withRootObject: [shared, shared])
        let books = ArchiveFixture.objects(tree).filter { $0.dictionaryValue?["pages"] != nil }
        #expect(books.count == 1)
        let back = try KeyedUnarchiver().decode([Book].self, from: tree)
        #expect(back.count == 2)
        #expect(back[0] === back[1])
    }

    @Test func topLevelArrayOfModelsWithNestedArrays() throws {
        // Regression: objects queued while a top-level array captured its elements must not clobber them.
        let libraries = [
            Library(name: "one", books: [Book(title: "a", pages: 1)], byCode: [:], shelf: [Tag("x")], featured: nil),
            Library(name: "two", books: [], byCode: ["k": Book(title: "b", pages: 2)], shelf: [], featured: nil),
        ]
        let back = try KeyedUnarchiver().decode([Library].self, from: KeyedArchiver.archivedPropertyList(withRootObject: libraries))
        #expect(back.map(\.name) == ["one", "two"])
        #expect(back[0].books.map(\.title) == ["a"])
        #expect(back[0].shelf == [Tag("x")])
        #expect(back[1].byCode["k"]?.pages == 2)
    }

    @Test func equalDistinctObjectsStayDistinct() throws {
        let tree = try KeyedArchiver.archivedPropertyList(withRootObject: [Book(title: "x", pages: 1), Book(title: "x", pages: 1)])
        #expect(ArchiveFixture.objects(tree).filter { $0.dictionaryValue?["pages"] != nil }.count == 2)
        let back = try KeyedUnarchiver().decode([Book].self, from: tree)
        #expect(back[0] !== back[1])
        #expect(back[0].title == back[1].title)
    }

    @Test func structsHaveNoIdentity() throws {
        let tag = Tag("t")
        let tree = try KeyedArchiver.archivedPropertyList(withRootObject: [tag, tag])
        #expect(ArchiveFixture.objects(tree).filter { $0.dictionaryValue?["label"] != nil }.count == 2)
    }

    @Test func parentAndChildReferToEachOther() throws {
        let parent = Node("parent")
        let child = Node("child")
        parent.children = [child]
        child.parent = parent
        let back = try KeyedUnarchiver().decode(Node.self, from: KeyedArchiver.archivedPropertyList(withRootObject: parent))
        #expect(back.name == "parent")
        #expect(back.children.map(\.name) == ["child"])
        #expect(back.children[0].parent === back)
        #expect(back.parent == nil)
    }

    @Test func ringOfThreeKeepsIdentity() throws {
        let a = Node("a"), b = Node("b"), c = Node("c")
        a.next = b; b.next = c; c.next = a
        defer { a.next = nil }
        let back = try KeyedUnarchiver().decode(Node.self, from: KeyedArchiver.archivedPropertyList(withRootObject: a))
        defer { back.next = nil }
        #expect(back.name == "a")
        #expect(back.next?.name == "b")
        #expect(back.next?.next?.name == "c")
        #expect(back.next?.next?.next === back)
    }

    @Test func selfReference() throws {
        let a = Node("self")
        a.next = a
        defer { a.next = nil }
        let tree = try KeyedArchiver.archivedPropertyList(withRootObject: a)
        let back = try KeyedUnarchiver().decode(Node.self, from: tree)
        defer { back.next = nil }
        #expect(back.next === back)
    }

    @Test func typeWithoutOptInGetsCycleErrorNamingTheCycle() throws {
        let a = ListNode(1), b = ListNode(2)
        a.next = b; b.next = a
        defer { a.next = nil }
        let tree = try KeyedArchiver.archivedPropertyList(withRootObject: a)
        let error = try #require(throws: KeyedArchiveError.self) { try KeyedUnarchiver().decode(ListNode.self, from: tree) }
        #expect(error.code == .cycle)
        #expect(error.keyPath == "root.next.next")
        #expect(error.className == "KeyedArchiveTests.ListNode")
        #expect(error.message.contains("at root -> KeyedArchiveTests.ListNode"))
        #expect(error.message.contains("decodeObjectReference"))
    }

    @Test func conditionalObjectIsNilUnlessEncodedElsewhere() throws {
        let parent = Node("p")
        let orphan = Node("orphan")
        orphan.parent = parent  // parent is only conditional: not written
        let tree = try KeyedArchiver.archivedPropertyList(withRootObject: orphan)
        #expect(!ArchiveFixture.objects(tree).contains("p"))
        let back = try KeyedUnarchiver().decode(Node.self, from: tree)
        #expect(back.parent == nil)
        // Encoded unconditionally after the conditional reference: the reference is patched.
        let archiver = KeyedArchiver()
        try archiver.encode(orphan, forKey: "root")
        try archiver.encode(parent, forKey: "parent")
        let both = try archiver.encodedPropertyList()
        let (child, p) = try KeyedUnarchiver().withTopLevelDecoder(both) { top in
            (try top.decode(Node.self, forKey: "root"), try top.decode(Node.self, forKey: "parent"))
        }
        #expect(child.parent === p)
    }

    @Test func millionNodeLinkedListRoundTrips() throws {
        let count = 1_000_000
        var head: ListNode?
        for i in stride(from: count - 1, through: 0, by: -1) { head = ListNode(i, next: head) }
        defer { ListNode.dismantle(head) }
        let tree = try KeyedArchiver.archivedPropertyList(withRootObject: head)
        #expect(ArchiveFixture.objects(tree).count == count + 2)  // $null, nodes, one class
        // The default depth limit refuses it; raising the limit decodes it.
        let refusal = try #require(throws: KeyedArchiveError.self) { try KeyedUnarchiver().decode(ListNode.self, from: tree) }
        #expect(refusal.code == .limitExceeded)
        var unarchiver = KeyedUnarchiver()
        unarchiver.limits.maximumDepth = 1_100_000
        let back = try unarchiver.decode(ListNode.self, from: tree)
        defer { ListNode.dismantle(back) }
        var n = 0
        var current: ListNode? = back
        while let node = current {
            guard node.value == n else { Issue.record("node \(n) has value \(node.value)"); return }
            n += 1
            current = node.next
        }
        #expect(n == count)
    }
}
