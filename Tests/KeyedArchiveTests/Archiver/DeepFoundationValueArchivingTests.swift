import Foundation
import Testing
@testable import KeyedArchive

/// The archiver writes nested Foundation values (arrays of arrays of ...) without recursing per level.
/// Holds a value that must outlive the test (see the million-level test).
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
        // FoundationValue's own teardown recurses per level (an indirect enum) and overflows an 8 MiB stack
        // at this depth; that belongs to the value type, not the archiver, so the values are kept alive.
        let box = Box(Self.nested(depth: depth))
        _ = Unmanaged.passRetained(box)
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
        _ = Unmanaged.passRetained(back)
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
        // Kept alive: FoundationValue's own teardown still recurses per level (see above).
        let box = Box(Self.nestedSetsOrDictionaries(depth: depth, dictionaries: dictionaries))
        _ = Unmanaged.passRetained(box)
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
