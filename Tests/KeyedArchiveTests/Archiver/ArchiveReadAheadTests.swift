import Foundation
import Testing
@testable import KeyedArchive

// The archiver's layout walk prefetches what the containers a few turns ahead of it will read (their
// record, their refs, the numbers and bytes of the scalars they name), and within a long container what
// the refs 8 and 16 on name. A prefetch changes nothing, and the loads that compute its address are
// checked first, so the bytes must stay the oracle's (TreeReferenceArchiver: a tree, then
// BinaryPropertyListWriter) on the shapes where it looks furthest ahead: objects of more than 16 fields,
// arrays of more than 64 elements, containers nested in objects next to references, objects met again
// after they were numbered, and refs at the very end of a container.

/// A model with as many fields as the test gives it: integers, strings, one object, and arrays of objects
/// or strings.
private final class Wide: KeyedArchivable {
    static var archivedClassName: String { "ArchiveReadAheadTests.Wide" }
    enum Field {
        case int(Int), string(String), object(Wide), objects([Wide]), strings([String])
    }
    var fields: [Field] = []
    init() {}
    init(from decoder: any ArchiveDecoder) throws {}
    func encode(to encoder: any ArchiveEncoder) throws {
        for (i, field) in fields.enumerated() {
            let key = "f\(i)"
            switch field {
            case .int(let v): try encoder.encode(v, forKey: key)
            case .string(let v): try encoder.encode(v, forKey: key)
            case .object(let v): try encoder.encode(v, forKey: key)
            case .objects(let v): try encoder.encode(v, forKey: key)
            case .strings(let v): try encoder.encode(v, forKey: key)
            }
        }
    }
}

@Suite struct ArchiveReadAheadTests {
    /// `count` models whose fields (1 to 40 of them) are drawn from a fixed generator: repeated and distinct
    /// scalars, references to any model (shared, cycles), and arrays of up to 150 models or strings.
    private func randomGraph(count: Int, seed: UInt64) -> [Wide] {
        var state = seed
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        let models = (0 ..< count).map { _ in Wide() }
        for model in models {
            for _ in 0 ... next(40) {
                switch next(6) {
                case 0: model.fields.append(.int(next(5) == 0 ? next(1_000_000) : next(4)))
                case 1: model.fields.append(.string("s\(next(3) == 0 ? next(1_000_000) : next(8))"))
                case 2, 3: model.fields.append(.object(models[next(count)]))
                case 4: model.fields.append(.objects((0 ..< next(150)).map { _ in models[next(count)] }))
                default: model.fields.append(.strings((0 ..< next(150)).map { _ in "e\(next(200))" }))
                }
            }
        }
        return models
    }

    @Test(arguments: [1, 2, 3])
    func randomGraphsOfWideObjectsAndLongArraysGiveTheOraclesBytes(seed: UInt64) throws {
        let models = randomGraph(count: 300, seed: seed)
        // The whole list (one array of 300 refs), and one model (reached only through the fields).
        try expectArchiveMatchesOracle(models)
        try expectArchiveMatchesOracle(models[0])
    }

    @Test func referencesAtTheEndsOfContainersGiveTheOraclesBytes() throws {
        // An object whose last fields are a nested array and a reference, and objects of exactly 16 and of
        // 17 object fields (the read-ahead covers a container's first 16 refs).
        let leaf = Wide()
        leaf.fields = [.string("leaf")]
        let sixteen = Wide()
        sixteen.fields = (0 ..< 16).map { _ in .object(leaf) }
        let seventeen = Wide()
        seventeen.fields = (0 ..< 16).map { i in .object(i == 3 ? sixteen : Wide()) } + [.object(sixteen)]
        let last = Wide()
        last.fields = [.int(7), .objects([seventeen, leaf]), .object(seventeen)]
        try expectArchiveMatchesOracle(last)
        try expectArchiveMatchesOracle([last, sixteen, leaf, last])
        // Arrays of exactly 64, 65 and 80 elements (the layout looks 8 and 16 refs ahead past 64).
        for length in [64, 65, 80] {
            try expectArchiveMatchesOracle((0 ..< length).map { i in i % 3 == 0 ? last : leaf })
            try expectArchiveMatchesOracle((0 ..< length).map { "x\($0 % 17)" })
        }
    }
}
