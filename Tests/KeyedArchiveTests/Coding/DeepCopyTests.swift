import Foundation
import Testing
@testable import KeyedArchive

@Suite struct DeepCopyTests {
    @Test func cyclicGraphIsCopiedWithItsIdentityAndSharesNothing() throws {
        // root -> [a, b]; a.next = b, b.next = a (a ring), both children point back at root; `shared` is
        // reached from root.children and from a.children.
        let root = Node("root"), a = Node("a"), b = Node("b"), shared = Node("shared")
        root.children = [a, b, shared]
        a.children = [shared]
        a.next = b
        b.next = a
        a.parent = root
        b.parent = root
        shared.parent = a
        let copy = try KeyedArchiver.deepCopy(of: root)
        #expect(copy !== root)
        #expect(copy.name == "root")
        #expect(copy.children.map(\.name) == ["a", "b", "shared"])
        let (ca, cb, cs) = (copy.children[0], copy.children[1], copy.children[2])
        // Identity inside the copy.
        #expect(ca.next === cb)
        #expect(cb.next === ca)
        #expect(ca.parent === copy)
        #expect(cb.parent === copy)
        #expect(ca.children.first === cs)
        #expect(cs.parent === ca)
        #expect(copy.next == nil)
        #expect(copy.parent == nil)
        // Nothing shared with the original.
        let originals: [Node] = [root, a, b, shared]
        for node in [copy, ca, cb, cs] { #expect(!originals.contains { $0 === node }, "\(node.name) is an original") }
        // The original is untouched.
        #expect(a.next === b && b.next === a && shared.parent === a)
    }

    @Test func sharedInstanceStaysOneInstance() throws {
        let book = Book(title: "Shared", pages: 10)
        let library = Library(name: "L", books: [book, book], byCode: ["x": book], shelf: [], featured: book)
        let copy = try KeyedArchiver.deepCopy(of: library)
        #expect(copy !== library)
        #expect(copy.books.count == 2)
        #expect(copy.books[0] === copy.books[1])
        #expect(copy.byCode["x"] === copy.books[0])
        #expect(copy.featured === copy.books[0])
        #expect(copy.books[0] !== book)
        #expect(copy.books[0].title == "Shared")
        #expect(copy.books[0].pages == 10)
        // Mutating the copy leaves the original alone.
        copy.books[0].title = "Changed"
        #expect(book.title == "Shared")
        #expect(copy.featured?.title == "Changed")
    }

    @Test func valuesAndCollectionsOfModelsCopy() throws {
        let first = Book(title: "one", pages: 1)
        let copies = try KeyedArchiver.deepCopy(of: [first, Book(title: "two", pages: 2), first])
        #expect(copies.map(\.title) == ["one", "two", "one"])
        #expect(copies[0] === copies[2])
        #expect(copies[0] !== first)
        #expect(try KeyedArchiver.deepCopy(of: FoundationValue.orderedSet([.string("a"), .integer(1)])) == .orderedSet([.string("a"), .integer(1)]))
        #expect(try KeyedArchiver.deepCopy(of: 42) == 42)
    }

    @Test func longChainsNeedTheCallersLimits() throws {
        var head: Node?
        for i in 0 ..< 12_000 {
            let node = Node("n\(i)")
            node.next = head
            head = node
        }
        let list = try #require(head)
        let error = try #require(throws: KeyedArchiveError.self) { try KeyedArchiver.deepCopy(of: list) }
        #expect(error.code == .limitExceeded)
        var unarchiver = KeyedUnarchiver()
        unarchiver.limits.maximumDepth = 20_000
        let copy = try KeyedArchiver.deepCopy(of: list, using: unarchiver)
        var count = 0
        var current: Node? = copy
        while let node = current {
            count += 1
            current = node.next
        }
        #expect(count == 12_000)
        // Release the chains iteratively (a recursive deinit of 12,000 nodes could overflow the stack).
        for start in [list, copy] {
            var next = start.next
            start.next = nil
            while let node = next {
                next = node.next
                node.next = nil
            }
        }
    }
}
