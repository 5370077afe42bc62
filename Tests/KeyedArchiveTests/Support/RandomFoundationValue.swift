import Foundation
@testable import KeyedArchive

/// Small random ``FoundationValue`` graphs for the differential tests: every plain kind (strings with
/// canonically equivalent spellings, non-BMP and empty; integers at the edges of every width; reals; booleans;
/// data; dates; UUIDs; URLs; NSNull) inside arrays, ordered sets, sets and dictionaries, some containers
/// shared (the same storage referenced twice in one graph).
///
/// Set members, ordered-set members and dictionary keys are strings, integers, data or NSNull only, so that
/// no two of them are equal as NSNumbers of different kinds (Foundation's `@1`, `@YES` and `@1.0` are equal
/// to each other; ``FoundationValue``'s are not): what stays is the NSString question the tests ask. Each
/// graph is a function of its seed and index alone (``graph(seed:index:)``), so a failure reproduces alone.
struct RandomFoundationValue {
    /// Include UUIDs (GNUstep reads and writes another key than Apple's: see GNUstepInteropTests).
    var uuids = true
    /// Include unsigned integers above Int64.max (16-byte integers, which GNUstep's reader rejects).
    var unsignedAboveInt64 = true
    /// Spell each string of a graph one way only: a string canonically equivalent to one made earlier in
    /// the graph is replaced by that one. Foundation on Linux needs it: its NSString `-isEqual:` says
    /// "\u{E9}" and "e\u{301}" are equal while their hashes differ, and a dictionary of its own (its
    /// archiver's object table, its NSDictionary and NSSet) that holds both traps ("Duplicate keys of type
    /// 'AnyHashable' were found in a Dictionary"), ending the test process. Both spellings still appear,
    /// in different graphs.
    var oneSpellingPerGraph = false
    /// Deepest container nesting.
    var maximumDepth = 3
    /// Most elements per container.
    var maximumCount = 5

    /// The pieces strings are made of: canonically equivalent spellings side by side ("\u{E9}" and
    /// "e\u{301}", "\u{C5}", "\u{212B}" and "A\u{30A}", two orders of the same combining marks, a Hangul
    /// syllable and its jamo, "Ω" and the ohm sign), a compatibility-only pair (the "ﬁ" ligature), non-BMP
    /// scalars, and characters that need escaping.
    static let pieces: [String] = [
        "a", "b", "Z", "\u{E9}", "e\u{301}", "\u{C5}", "\u{212B}", "A\u{30A}", "\u{1E69}", "s\u{323}\u{307}",
        "s\u{307}\u{323}", "\u{AC00}", "\u{1100}\u{1161}", "\u{3A9}", "\u{2126}", "\u{FB01}", "fi", "😀", "𝄞",
        "中", " ", "\"", "\\", "\n", "$",
    ]

    /// Graph `index` of the run seeded `seed`, and the dictionary entries ``FoundationValue`` lost while it
    /// was built (none: a key distinct by the generator's own rule, ``memberIdentity(_:)``, is a new entry).
    func graph(seed: UInt64, index: Int) -> (value: FoundationValue, lostEntries: [String]) {
        var g = SeededGenerator(seed: seed &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(index))
        var made = Made()
        let value = container(&g, depth: 0, made: &made)
        return (value, made.lostEntries)
    }

    /// What a graph has made so far: its containers (to share), its strings by canonical equivalence, and
    /// the dictionary entries that went missing.
    private struct Made {
        var containers: [FoundationValue] = []
        var spellings: [String: String] = [:]
        var lostEntries: [String] = []
    }

    private func value(_ g: inout SeededGenerator, depth: Int, made: inout Made) -> FoundationValue {
        if depth < maximumDepth, Int.random(in: 0 ..< 3, using: &g) == 0 { return container(&g, depth: depth, made: &made) }
        switch Int.random(in: 0 ..< 11, using: &g) {
        case 0, 1: return .string(spelled(string(&g), &made))
        case 2, 3: return .integer(integer(&g))
        case 4: return .real(real(&g))
        case 5: return .bool(Bool.random(using: &g))
        case 6: return .data(data(&g))
        case 7: return .date(Date(timeIntervalSinceReferenceDate: real(&g, finiteBelow: 4e9)))
        case 8: return .null
        case 9 where uuids: return .uuid(UUID(uuid: uuidBytes(&g)))
        default: return .url(url(&g))
        }
    }

    /// A container; one made earlier in the graph, now and then, so that the graph shares it.
    private func container(_ g: inout SeededGenerator, depth: Int, made: inout Made) -> FoundationValue {
        if depth > 0, !made.containers.isEmpty, Int.random(in: 0 ..< 6, using: &g) == 0 {
            return made.containers[Int.random(in: 0 ..< made.containers.count, using: &g)]
        }
        let count = Int.random(in: 0 ... maximumCount, using: &g)
        let result: FoundationValue
        switch Int.random(in: 0 ..< 4, using: &g) {
        case 0: result = .array((0 ..< count).map { _ in value(&g, depth: depth + 1, made: &made) })
        case 1: result = .orderedSet(distinct((0 ..< count).map { _ in member(&g, &made) }))
        case 2: result = .set(distinct((0 ..< count).map { _ in member(&g, &made) }))
        default:
            var entries: [FoundationValue: FoundationValue] = [:]
            let keys = distinct((0 ..< count).map { _ in member(&g, &made) })
            for key in keys { entries[key] = value(&g, depth: depth + 1, made: &made) }
            if entries.count != keys.count { made.lostEntries.append("\(keys.count) keys \(keys) made \(entries.count) entries") }
            result = .dictionary(entries)
        }
        made.containers.append(result)
        return result
    }

    /// A set member or dictionary key: mostly short strings (so that equal and equivalent ones meet).
    private func member(_ g: inout SeededGenerator, _ made: inout Made) -> FoundationValue {
        switch Int.random(in: 0 ..< 8, using: &g) {
        case 0: return .integer(integer(&g))
        case 1: return .data(data(&g))
        case 2: return .null
        default: return .string(spelled(string(&g, maximumPieces: 2), &made))
        }
    }

    /// `s`, or with ``oneSpellingPerGraph`` the spelling of `s` the graph already uses (Swift's `String`
    /// hashes and compares by canonical equivalence, so the dictionary finds it).
    private func spelled(_ s: String, _ made: inout Made) -> String {
        guard oneSpellingPerGraph else { return s }
        if let earlier = made.spellings[s] { return earlier }
        made.spellings[s] = s
        return s
    }

    /// The members of `values` that are distinct by ``memberIdentity(_:)``, in order.
    private func distinct(_ values: [FoundationValue]) -> [FoundationValue] {
        var seen = Set<String>()
        return values.filter { seen.insert(Self.memberIdentity($0)).inserted }
    }

    /// What tells set members and dictionary keys apart, written out independently of ``FoundationValue``'s
    /// `==` (which is under test): a string by its Unicode scalars, as NSString's `-isEqual:` compares it.
    static func memberIdentity(_ member: FoundationValue) -> String {
        switch member {
        case .string(let s): return "string " + s.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ")
        case .integer(let i): return "integer \(i)"
        case .data(let d): return "data " + d.map { String($0, radix: 16) }.joined(separator: " ")
        default: return "\(member)"
        }
    }

    func string(_ g: inout SeededGenerator, maximumPieces: Int = 4) -> String {
        (0 ..< Int.random(in: 0 ... maximumPieces, using: &g)).map { _ in Self.pieces[Int.random(in: 0 ..< Self.pieces.count, using: &g)] }.joined()
    }

    func integer(_ g: inout SeededGenerator) -> PropertyListInteger {
        let edges: [Int64] = [0, 1, -1, Int64(Int8.min), Int64(Int8.max), Int64(UInt8.max), Int64(Int16.min), Int64(Int16.max),
                              Int64(UInt16.max), Int64(Int32.min), Int64(Int32.min) + 1, Int64(Int32.max), Int64(Int32.max) - 1,
                              Int64(UInt32.max), Int64.min, Int64.max]
        switch Int.random(in: 0 ..< 6, using: &g) {
        case 0, 1: return PropertyListInteger(edges[Int.random(in: 0 ..< edges.count, using: &g)])
        case 2: return PropertyListInteger(Int64(Int8.random(in: .min ... .max, using: &g)))
        case 3: return PropertyListInteger(Int64(Int32.random(in: .min ... .max, using: &g)))
        case 4 where unsignedAboveInt64:
            return PropertyListInteger(UInt64.random(in: UInt64(Int64.max) + 1 ... UInt64.max, using: &g))
        default: return PropertyListInteger(Int64.random(in: .min ... .max, using: &g))
        }
    }

    /// A finite real (no NaN, which is not equal to itself) or an infinity.
    func real(_ g: inout SeededGenerator, finiteBelow limit: Double = .infinity) -> Double {
        let edges: [Double] = [0, -0.0, 0.1, -2.5, 1e300, -1e-300, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
                               .infinity, -.infinity]
        let d = Int.random(in: 0 ..< 2, using: &g) == 0
            ? edges[Int.random(in: 0 ..< edges.count, using: &g)]
            : Double(bitPattern: UInt64.random(in: 0 ..< 0x7FF0_0000_0000_0000, using: &g)) * (Bool.random(using: &g) ? 1 : -1)
        return abs(d) < limit ? d : Double(Int32.random(in: .min ... .max, using: &g)) + 0.25
    }

    private func data(_ g: inout SeededGenerator) -> Data {
        Data((0 ..< [0, 1, 4, 17][Int.random(in: 0 ..< 4, using: &g)]).map { _ in UInt8.random(in: 0 ... 255, using: &g) })
    }

    private func uuidBytes(_ g: inout SeededGenerator) -> uuid_t {
        let a = g.next(), b = g.next()
        return withUnsafeBytes(of: (a, b)) { raw in raw.load(as: uuid_t.self) }
    }

    /// An absolute http(s) URL, or one relative to a base (the form Apple writes with `NS.base`).
    private func url(_ g: inout SeededGenerator) -> URL {
        let path = ["", "a", "b/c", "d%20e", "f?g=h"][Int.random(in: 0 ..< 5, using: &g)]
        let base = URL(string: "https://example.com/base/")
        let made = Bool.random(using: &g) ? URL(string: "https://example.com/" + path) : URL(string: "docs/" + path, relativeTo: base)
        return made ?? URL(fileURLWithPath: "/")
    }
}
