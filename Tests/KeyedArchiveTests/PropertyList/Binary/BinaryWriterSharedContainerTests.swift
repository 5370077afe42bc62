import Foundation
import Testing
@testable import KeyedArchive

// The writer numbers a container by its storage box, taken from the tree in place (not retained): one box
// placed at several spots of a tree, or as both an array and a set, is still one object per spot for the
// first `PropertyListExpansionBudget.allowance` containers; past them, one box of one kind is one object.

@Suite struct BinaryWriterSharedContainerTests {
    /// The object count in a file's trailer.
    private func objectCount(_ bytes: Data) -> Int {
        bytes.suffix(24).prefix(8).reduce(0) { $0 << 8 | Int($1) }
    }

    @Test func oneBoxAtSeveralSpotsIsWrittenOncePerSpot() throws {
        let shared = PropertyListArray(["a", 1, .uid(UID(3))])
        let inner: PropertyListValue = .array(shared)
        let dictionary: PropertyListValue = ["k": inner, "s": .set(shared)]
        let root: PropertyListValue = .array([inner, dictionary, inner, .set(shared), dictionary, inner])
        let bytes = BinaryPropertyListWriter().write(root)
        #expect(try BinaryPropertyListReader().read(bytes) == root)
        // Containers: the root, `inner` 3 times, `.set(shared)` once, `dictionary` twice (each holding an
        // array and a set): 1 + 3 + 1 + 2 * 3 = 11. Scalars: "a", 1, the UID, "k", "s": 5.
        #expect(objectCount(bytes) == 16)
        // Each spot is its own object: the root's six references are six distinct numbers.
        let back = try BinaryPropertyListReader().read(bytes)
        guard case .array(let elements) = back else {
            Issue.record("the root is not an array")
            return
        }
        #expect(elements.count == 6)
        if case .set(let s) = elements[3] { #expect(Array(s) == Array(shared)) } else { Issue.record("element 3 is not a set") }
    }

    /// Ten levels of a dictionary holding the level below twice: 2^11 - 1 dictionaries from 11 boxes.
    @Test func deeplySharedDictionariesAreWrittenPerPath() throws {
        var small: PropertyListValue = ["leaf": 7]
        for depth in 0 ..< 10 {
            small = ["left": small, "right": small, "depth": .integer(PropertyListInteger(Int64(depth)))]
        }
        let bytes = BinaryPropertyListWriter().write(small)
        #expect(try BinaryPropertyListReader().read(bytes) == small)
        // Dictionaries: 2^11 - 1; scalars: the keys "leaf", "left", "right", "depth", and 7, 0...9 (7 is shared).
        #expect(objectCount(bytes) == (1 << 11) - 1 + 4 + 10)
    }

    /// 40 levels of arrays, each holding the next twice (``SharedSubtreeWalkTests/bomb(dictionaries:leaf:)``):
    /// 41 distinct arrays in memory, 2^40 paths.
    @Test(arguments: [false, true]) func heavilySharedContainersAreWrittenOncePastTheAllowance(dictionaries: Bool) throws {
        let value = SharedSubtreeWalkTests.bomb(dictionaries: dictionaries)
        let bytes = BinaryPropertyListWriter().write(value)
        // At most the allowance written per spot, then the 42 distinct containers once; the scalars 1, "a", "b".
        let objects = PropertyListExpansionBudget.allowance + 42 + 3
        #expect(objectCount(bytes) <= objects)
        // Each object at most a marker, four 4-byte references (a dictionary's two keys and two values) and
        // a 4-byte offset; the header and the trailer.
        #expect(bytes.count <= objects * (1 + 4 * 4 + 4) + 8 + 32)
        #expect(try BinaryPropertyListReader().read(bytes) == value)
    }

    /// 17 levels: 2^18 arrays along the paths, past the allowance, so some are written once for many paths.
    /// (Foundation on Linux expands shared objects as it reads, so it is given a value that fits expanded.)
    @Test func foundationReadsASharedValuePastTheAllowanceEqual() throws {
        var value: PropertyListValue = ["leaf", 2.5]
        for depth in 0 ..< 17 { value = .array([value, .integer(exactly: depth)!, value]) }
        let bytes = BinaryPropertyListWriter().write(value)
        #expect(objectCount(bytes) < 1 << 18)
        #expect(try FoundationBridge.foundationRead(bytes) == value)
    }
}
