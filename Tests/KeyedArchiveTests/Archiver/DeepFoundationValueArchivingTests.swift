import Foundation
import Testing
@testable import KeyedArchive

/// The archiver writes nested Foundation values (arrays of arrays of ...) without recursing per level.
/// Holds a value that a thread's body uses.
private final class Box: @unchecked Sendable {
    let value: FoundationValue
    init(_ value: FoundationValue) { self.value = value }
}

@Suite struct DeepFoundationValueArchivingTests {
    /// `[[[...[leaf]...]]]`, `depth` arrays deep, built without recursion.
    static func nested(depth: Int, leaf: FoundationValue = .string("leaf"), orderedEvery: Int = 0) -> FoundationValue {
        var value = leaf
        for level in 0 ..< depth {
            value = orderedEvery > 0 && level % orderedEvery == 0 ? .orderedSet([value, .integer(PropertyListInteger(Int64(level)))])
                : .array([value])
        }
        return value
    }

    @Test func nestedValuesGiveTheOraclesBytes() throws {
        // Arrays, ordered sets, sets, dictionaries, scalars and nil, several levels deep.
        var value = Self.nested(depth: 40, orderedEvery: 3)
        value = .array([.string("a"), value, .set([.integer(1), .array([.null, .real(2.5)])]),
                        .dictionary([.string("k"): .array([.bool(true), .orderedSet([.string("x")])])]), value])
        let ours = try KeyedArchiver.archivedData(withRootObject: value)
        let oracle = try TreeReferenceArchiver.archivedData(withRootObject: value)
        #expect(ours == oracle)
        #expect(try KeyedUnarchiver().decode(FoundationValue.self, from: ours) == value)
    }

    /// The leaf under `depth` single-element arrays, found without recursion; nil when the shape differs.
    static func leaf(of value: FoundationValue, depth: Int) -> FoundationValue? {
        var current = value
        for _ in 0 ..< depth {
            guard case .array(let items) = current, items.count == 1 else { return nil }
            current = items[0]
        }
        return current
    }

    @Test func aMillionLevelsAreWrittenOnAnEightMebibyteStackAndReadBack() throws {
        let depth = 1_000_000
        // Freed at the end of the test, on this thread: FoundationValue's teardown does not recurse.
        let box = Box(Self.nested(depth: depth))
        var written: Result<Data, any Error>?
        let ran = runOnThread(stackBytes: 8 << 20) {
            written = Result { try KeyedArchiver.archivedData(withRootObject: box.value) }
        }
        #expect(ran)
        let data = try #require(written).get()
        // $null, the leaf, NSArray's class and one NSArray per level; the raw model checks every UID.
        let graph = try ArchivedObjectGraph(data: data)
        #expect(graph.count == depth + 3)
        #expect(graph.instanceCounts() == ["NSArray": depth])

        var unarchiver = KeyedUnarchiver()
        unarchiver.limits.maximumDepth = 2 * depth
        unarchiver.limits.maximumObjectCount = 4 * depth
        let back = Box(try unarchiver.decode(FoundationValue.self, from: data))
        #expect(Self.leaf(of: back.value, depth: depth) == .string("leaf"))
    }

    /// `depth` sets (`set([inner])`) or dictionaries (`["k": inner]`) around a string, built without recursion.
    static func nestedSetsOrDictionaries(depth: Int, dictionaries: Bool) -> FoundationValue {
        var value = FoundationValue.string("leaf")
        for _ in 0 ..< depth { value = dictionaries ? .dictionary([.string("k"): value]) : .set([value]) }
        return value
    }

    @Test(arguments: [false, true]) func nestedSetsAndDictionariesGiveTheOraclesBytes(dictionaries: Bool) throws {
        let value = Self.nestedSetsOrDictionaries(depth: 30, dictionaries: dictionaries)
        let wide = FoundationValue.dictionary([.string("a"): value, .string("b"): .set([value, .integer(1), value])])
        for v in [value, wide] {
            let ours = try KeyedArchiver.archivedData(withRootObject: v)
            #expect(ours == (try TreeReferenceArchiver.archivedData(withRootObject: v)))
        }
        // (The wide value's set repeats a member, which decoding collapses as NSSet does.)
        let ours = try KeyedArchiver.archivedData(withRootObject: value)
        #expect(try KeyedUnarchiver().decode(FoundationValue.self, from: ours) == value)
    }

    @Test(arguments: [false, true]) func aMillionLevelsOfSetsOrDictionariesAreWrittenOnAnEightMebibyteStack(dictionaries: Bool) throws {
        let depth = 1_000_000
        let box = Box(Self.nestedSetsOrDictionaries(depth: depth, dictionaries: dictionaries))
        var written: Result<Data, any Error>?
        let ran = runOnThread(stackBytes: 8 << 20) {
            written = Result { try KeyedArchiver.archivedData(withRootObject: box.value) }
        }
        #expect(ran)
        let data = try #require(written).get()
        let graph = try ArchivedObjectGraph(data: data)
        // $null, the leaf, the class and one object per level (and its key "k", for dictionaries).
        #expect(graph.count == (dictionaries ? 2 * depth : depth) + 3)
        #expect(graph.instanceCounts() == [dictionaries ? "NSDictionary" : "NSSet": depth])
    }
}

/// Dropping the last reference to a ``FoundationValue`` frees it without recursion, and `==` and `hash(into:)`
/// work at any depth: a million levels of each collection kind on an 8 MiB stack.
@Suite struct FoundationValueTeardownTests {
    static let million = 1_000_000
    static let eightMiB = 8 << 20

    enum Kind: String, CaseIterable, Sendable { case array, orderedSet, set, dictionary }

    /// `levels` collections of `kind`, each holding the next, around `leaf`.
    static func chain(_ kind: Kind, _ levels: Int, leaf: FoundationValue = .string("leaf")) -> FoundationValue {
        var value = leaf
        for i in 0 ..< levels {
            switch kind {
            case .array: value = .array([value])
            case .orderedSet: value = .orderedSet([value, .integer(PropertyListInteger(Int64(i)))])
            case .set: value = .set([value])
            case .dictionary: value = .dictionary([.string("k"): value])
            }
        }
        return value
    }

    /// How many collections deep `value` goes along first elements (a dictionary's value for key "k"), and
    /// the value found there.
    static func walk(_ value: FoundationValue) -> (levels: Int, leaf: FoundationValue) {
        var v = value
        var levels = 0
        while true {
            switch v {
            case .array(let a) where !a.isEmpty: v = a[0]
            case .orderedSet(let a) where !a.isEmpty: v = a[0]
            case .set(let a) where !a.isEmpty: v = a[0]
            case .dictionary(let d) where d[.string("k")] != nil: v = d[.string("k")] ?? .null
            default: return (levels, v)
            }
            levels += 1
        }
    }

    /// Runs `body` on a thread with an 8 MiB stack (the main thread's size) and returns its result.
    static func onEightMiBThread<T>(_ body: @escaping () -> T) -> T? {
        var result: T?
        let ran = runOnThread(stackBytes: eightMiB) { result = body() }
        return ran ? result : nil
    }

    static func hashValue(_ v: FoundationValue) -> Int {
        var h = Hasher()
        v.hash(into: &h)
        return h.finalize()
    }

    @Test(arguments: Kind.allCases)
    func droppingTheLastReferenceFreesAMillionLevels(kind: Kind) throws {
        let outcome = Self.onEightMiBThread { () -> (Int, FoundationValue, Bool) in
            var value: FoundationValue? = Self.chain(kind, Self.million)
            let (levels, leaf) = Self.walk(value!)
            value = nil  // the last reference: Swift's own deinitialisation would recurse a million times
            return (levels, leaf, value == nil)
        }
        let (levels, leaf, dropped) = try #require(outcome)
        #expect(levels == Self.million)
        #expect(leaf == .string("leaf"))
        #expect(dropped)
    }

    @Test(arguments: Kind.allCases)
    func equalityAndHashingWorkAMillionLevelsDeep(kind: Kind) throws {
        let outcome = Self.onEightMiBThread { () -> [Bool] in
            let a = Self.chain(kind, Self.million)
            let b = Self.chain(kind, Self.million)
            let c = Self.chain(kind, Self.million, leaf: .string("other"))
            return [a == b, a != c, Self.hashValue(a) == Self.hashValue(b), a == a]
        }
        #expect(try #require(outcome) == [true, true, true, true])
    }

    @Test func equalityComparesCollectionsByContent() {
        let inner: FoundationValue = .array([.integer(1), .string("x")])
        #expect(FoundationValue.array([inner, .null]) == .array([.array([.integer(1), .string("x")]), .null]))
        #expect(FoundationValue.array([inner]) != .orderedSet([inner]))
        #expect(FoundationValue.set([.integer(1), .integer(2)]) != .set([.integer(2), .integer(1)]))  // stored order
        let d1: FoundationValue = .dictionary([.string("a"): inner, .integer(2): .real(2.5)])
        let d2: FoundationValue = .dictionary([.integer(2): .real(2.5), .string("a"): .array([.integer(1), .string("x")])])
        #expect(d1 == d2)
        #expect(Self.hashValue(d1) == Self.hashValue(d2))
        #expect(d1 != .dictionary([.string("a"): inner, .integer(2): .real(3)]))
        #expect(d1 != .dictionary([.string("a"): inner]))
        // Usable as dictionary keys and set members, as before.
        let keyed: [FoundationValue: Int] = [d1: 1, inner: 2]
        #expect(keyed[d2] == 1)
        #expect(keyed[.array([.integer(1), .string("x")])] == 2)
    }

    @Test func theCollectionTypesWorkAsArrayAndDictionary() {
        var list: FoundationValueArray = [.integer(1), .string("b")]
        let copy = list
        list.append(.null)
        list[0] = .integer(7)
        list.replaceSubrange(1 ..< 2, with: [.bool(true), .bool(false)])
        #expect(list.elements == [.integer(7), .bool(true), .bool(false), .null])
        #expect(copy.elements == [.integer(1), .string("b")])  // copy-on-write
        var map: FoundationValueDictionary = [.string("a"): .integer(1)]
        let before = map
        map[.string("b")] = .integer(2)
        map[.string("a")] = nil
        #expect(map.dictionary == [.string("b"): .integer(2)])
        #expect(before.dictionary == [.string("a"): .integer(1)])
        #expect(map.count == 1 && Array(map.keys) == [.string("b")])
        if case .dictionary(let d) = FoundationValue.dictionary(map.dictionary) {
            #expect(d == map)
        } else {
            Issue.record("not a dictionary")
        }
    }

    /// Two threads free million-level values at the same time: each runs its own worklist.
    @Test func twoThreadsFreeDeepValuesAtTheSameTime() throws {
        let results = ConcurrentResults()
        let built = DispatchGroup()
        let done = DispatchGroup()
        for (index, kind) in [Kind.dictionary, .array].enumerated() {
            built.enter()
            done.enter()
            Thread {
                let freed = Self.onEightMiBThread { () -> Bool in
                    var value: FoundationValue? = Self.chain(kind, Self.million, leaf: .integer(PropertyListInteger(Int64(index))))
                    let (levels, leaf) = Self.walk(value!)
                    built.leave()
                    built.wait()  // both built: they are freed together
                    value = nil
                    return levels == Self.million && leaf == .integer(PropertyListInteger(Int64(index))) && value == nil
                }
                results.record(index, freed == true)
                done.leave()
            }.start()
        }
        done.wait()
        #expect(results.all == [0: true, 1: true])
    }

    /// A sub-tree shared by two values survives, whole, when one of them is freed.
    @Test func freeingOneValueLeavesASharedSubtreeIntact() throws {
        let outcome = Self.onEightMiBThread { () -> [Bool] in
            var shared: FoundationValue? = Self.chain(.orderedSet, Self.million)
            let wide: FoundationValue = .array((0 ..< 1_000).map { .dictionary([.string("n"): .integer(PropertyListInteger(Int64($0)))]) })
            var first: FoundationValue? = .array([shared!, wide, .set([shared!])])
            let second: FoundationValue = .dictionary([.string("deep"): shared!, .string("wide"): wide])
            shared = nil
            first = nil  // frees `first`'s own collections only
            guard case .dictionary(let survivor) = second, let deep = survivor[.string("deep")],
                  case .array(let elements)? = survivor[.string("wide")] else { return [false] }
            let (levels, leaf) = Self.walk(deep)
            let everyElement = elements.enumerated().allSatisfy { i, e in
                e == .dictionary([.string("n"): .integer(PropertyListInteger(Int64(i)))])
            }
            return [first == nil, levels == Self.million, leaf == .string("leaf"), elements.count == 1_000, everyElement,
                    deep == Self.chain(.orderedSet, Self.million)]
        }
        #expect(try #require(outcome) == [true, true, true, true, true, true])
    }
}
