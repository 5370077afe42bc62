@testable import KeyedArchive
import Foundation

/// A small, seeded, reproducible random number generator (SplitMix64) for property-style tests.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    /// A generator that always produces the same sequence for the same `seed`.
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random ``PropertyListValue`` trees covering every case and the edges of each (negative and 16-byte
/// integers, NaN / -0.0 / infinities, non-ASCII and astral strings, long lengths, empty containers).
struct RandomPropertyList {
    /// Include `.set` values (the XML format has none).
    var sets = true
    /// Include `.uid` values.
    var uids = true
    /// Include `.float` values.
    var floats = true
    /// Include reals that are not finite or are -0.0 (Foundation's and XML's text forms may not keep them).
    var specialReals = true
    /// Deepest container nesting.
    var maximumDepth = 4
    /// Most elements per container.
    var maximumCount = 8

    /// A random value; containers only above `depth` 0.
    func value(_ g: inout SeededGenerator, depth: Int = 0) -> PropertyListValue {
        let containers = depth < maximumDepth
        switch Int.random(in: 0 ..< (containers ? 14 : 10), using: &g) {
        case 0, 1: return .string(string(&g))
        case 2, 3: return .integer(integer(&g))
        case 4:
            if floats && Bool.random(using: &g) { return .float(Float(bitPattern: UInt32.random(in: 0...0x7F7F_FFFF, using: &g))) }
            return .real(real(&g))
        case 5: return .bool(Bool.random(using: &g))
        case 6: return .date(Date(timeIntervalSinceReferenceDate: Double(Int.random(in: -2_000_000_000...2_000_000_000, using: &g)) + [0, 0.5, 0.25][Int.random(in: 0...2, using: &g)]))
        case 7: return .data(Data((0 ..< [0, 3, 16, 40][Int.random(in: 0...3, using: &g)]).map { _ in UInt8.random(in: 0...255, using: &g) }))
        case 8: return uids ? .uid(UID([0, 1, 255, 256, 70_000, UInt64(UInt32.max)][Int.random(in: 0...5, using: &g)])) : .bool(true)
        case 9: return .string(["a", "", "NS.keys", "$class"][Int.random(in: 0...3, using: &g)])
        case 10, 11:
            return .array((0 ..< count(&g)).map { _ in value(&g, depth: depth + 1) })
        case 12:
            if sets { return .set((0 ..< count(&g)).map { _ in value(&g, depth: depth + 1) }) }
            return .array([])
        default:
            var d = PropertyListDictionary()
            for _ in 0 ..< count(&g) { d[string(&g)] = value(&g, depth: depth + 1) }
            return .dictionary(d)
        }
    }

    private func count(_ g: inout SeededGenerator) -> Int {
        Int.random(in: 0...maximumCount, using: &g)
    }

    func string(_ g: inout SeededGenerator) -> String {
        let alphabets: [[Character]] = [
            Array("abcdefghijklmnopqrstuvwxyz$._0123456789"),
            Array("aé中ü€ß"),
            Array("a😀🇫🇷x"),
        ]
        let alphabet = alphabets[Int.random(in: 0...2, using: &g)]
        let length = [0, 1, 5, 14, 15, 16, 40][Int.random(in: 0...6, using: &g)]
        return String((0 ..< length).map { _ in alphabet[Int.random(in: 0 ..< alphabet.count, using: &g)] })
    }

    func integer(_ g: inout SeededGenerator) -> PropertyListInteger {
        switch Int.random(in: 0...5, using: &g) {
        case 0: return PropertyListInteger(Int64.random(in: 0...255, using: &g))
        case 1: return PropertyListInteger(Int64.random(in: 256...70_000, using: &g))
        case 2: return PropertyListInteger(Int64.random(in: Int64.min...Int64.max, using: &g))
        case 3: return PropertyListInteger(UInt64.random(in: UInt64(Int64.max)...UInt64.max, using: &g))
        case 4: return PropertyListInteger([Int64.min, -1, 0, Int64.max, 0xFFFF_FFFF, 0x1_0000_0000][Int.random(in: 0...5, using: &g)])
        default: return PropertyListInteger(Int64.random(in: -1000...0, using: &g))
        }
    }

    func real(_ g: inout SeededGenerator) -> Double {
        if specialReals && Int.random(in: 0...4, using: &g) == 0 {
            return [Double.nan, -0.0, .infinity, -.infinity, .leastNonzeroMagnitude][Int.random(in: 0...4, using: &g)]
        }
        return Double.random(in: -1e12...1e12, using: &g)
    }
}
