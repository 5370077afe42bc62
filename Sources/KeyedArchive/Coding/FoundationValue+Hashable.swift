#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FoundationValue {
    /// Whether two values are equal: the same case with equal payloads, collections element by element
    /// (arrays, ordered sets and sets in stored order, dictionaries by entry).
    ///
    /// Strings are equal as NSString's `-isEqual:` finds them: when they have the same Unicode scalars
    /// (UTF-16 units). Canonically equivalent strings that Swift's `==` finds equal, such as "\u{E9}" and
    /// "e\u{301}", are different values here, so a set or a dictionary of ``FoundationValue`` keeps both as
    /// Apple's NSSet and NSDictionary do.
    ///
    /// Iterative: the pairs of collections still to compare wait on an explicit stack, so values of any
    /// depth compare without exhausting the call stack, dictionaries keyed by dictionaries included (their
    /// keys are paired by hash, not looked up). Collections that share their storage are equal without a look.
    public static func == (lhs: FoundationValue, rhs: FoundationValue) -> Bool {
        var pending: [(FoundationValue, FoundationValue)] = [(lhs, rhs)]
        while let (a, b) = pending.popLast() {
            switch (a, b) {
            case (.array(let x), .array(let y)), (.orderedSet(let x), .orderedSet(let y)), (.set(let x), .set(let y)):
                guard x.count == y.count else { return false }
                if x.box === y.box { continue }
                for (u, v) in zip(x, y) {
                    if u.isContainer || v.isContainer {
                        pending.append((u, v))
                    } else if !leavesEqual(u, v) {
                        return false
                    }
                }
            case (.dictionary(let x), .dictionary(let y)):
                if x.box === y.box { continue }
                guard entriesMatch(x.dictionary, y.dictionary, pending: &pending) else { return false }
            case (.catalogued(let x), .catalogued(let y)):
                if let x = x as? ArchivedCountedSet {
                    // The counts as values, so that element keys are paired as a dictionary's are.
                    guard let y = y as? ArchivedCountedSet, x.counts.count == y.counts.count,
                          entriesMatch(x.countsAsValues, y.countsAsValues, pending: &pending) else { return false }
                } else if let x = x as? ArchivedAttributedString {
                    guard let y = y as? ArchivedAttributedString, x.string.hasSameScalars(as: y.string),
                          x.runs.count == y.runs.count else { return false }
                    for (r, t) in zip(x.runs, y.runs) {
                        guard r.range == t.range, r.attributes.count == t.attributes.count else { return false }
                        for (name, u) in r.attributes {
                            guard let v = t.attributes[name] else { return false }
                            pending.append((u, v))
                        }
                    }
                } else if !x.isEqual(to: y) {
                    return false
                }
            default:
                if !leavesEqual(a, b) { return false }
            }
        }
        return true
    }

    /// Whether `x` and `y` can be equal: the same count, every plain key of `x` in `y`; the pairs of values
    /// (and of keys that are containers) still to compare are appended to `pending`.
    private static func entriesMatch(_ x: [FoundationValue: FoundationValue], _ y: [FoundationValue: FoundationValue],
                                     pending: inout [(FoundationValue, FoundationValue)]) -> Bool {
        guard x.count == y.count else { return false }
        var containerKeys: [(key: FoundationValue, value: FoundationValue)] = []
        for (key, u) in x {
            if key.isContainer {
                containerKeys.append((key, u))
                continue
            }
            guard let v = y[key] else { return false }
            if u.isContainer || v.isContainer {
                pending.append((u, v))
            } else if !leavesEqual(u, v) {
                return false
            }
        }
        if !containerKeys.isEmpty {
            guard let pairs = matchingCollectionKeys(containerKeys, in: y) else { return false }
            pending.append(contentsOf: pairs)
        }
        return true
    }

    /// The pairs still to compare for the entries of `entries` (whose keys are collections) to be equal to
    /// entries of `other`, or nil when one has no candidate. A key that is a collection is not looked up
    /// with `other[key]`, whose `==` on keys would recurse once per level of dictionaries keyed by
    /// dictionaries: it is paired with the one key of `other` that has its hash, and the two keys and their
    /// values are compared by the caller's loop. (Keys are unique, so a pairing that holds is one to one.)
    /// Only keys whose hashes collide, which the bounded hash makes possible below ``hashedDepth`` levels,
    /// are told apart with a nested `==`; each such level needs two colliding keys, so for a decoded value
    /// (whose size the unarchiver bounds) that nesting stays shallow.
    private static func matchingCollectionKeys(_ entries: [(key: FoundationValue, value: FoundationValue)],
                                               in other: [FoundationValue: FoundationValue]) -> [(FoundationValue, FoundationValue)]? {
        var candidates: [Int: [(key: FoundationValue, value: FoundationValue)]] = [:]
        for (key, value) in other where key.isContainer { candidates[key.hashValue, default: []].append((key, value)) }
        var pairs: [(FoundationValue, FoundationValue)] = []
        pairs.reserveCapacity(2 * entries.count)
        for (key, u) in entries {
            guard let sameHash = candidates[key.hashValue] else { return nil }
            if sameHash.count == 1 {
                pairs.append((key, sameHash[0].key))
                pairs.append((u, sameHash[0].value))
            } else {
                guard let match = sameHash.first(where: { $0.key == key }) else { return nil }
                pairs.append((u, match.value))
            }
        }
        return pairs
    }

    /// Whether this holds other values: an array, ordered set, set, dictionary, counted set or attributed
    /// string (whose attributes are values). `==` and the hash walk these on their own stack and levels.
    @inline(__always)
    private var isContainer: Bool {
        switch self {
        case .array, .orderedSet, .set, .dictionary: return true
        case .catalogued(let value): return value is ArchivedCountedSet || value is ArchivedAttributedString
        default: return false
        }
    }

    /// `==` for two values that are not both collections of the same kind.
    private static func leavesEqual(_ lhs: FoundationValue, _ rhs: FoundationValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case (.bool(let a), .bool(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.real(let a), .real(let b)): return a == b
        case (.string(let a), .string(let b)): return a.hasSameScalars(as: b)
        case (.data(let a), .data(let b)): return a == b
        case (.date(let a), .date(let b)): return a == b
        case (.uuid(let a), .uuid(let b)): return a == b
        case (.url(let a), .url(let b)): return a == b
        case (.catalogued(let a), .catalogued(let b)): return a.isEqual(to: b)
        default: return false  // different cases (two containers of the same kind never get here)
        }
    }

    /// How many levels of collections ``hash(into:)`` looks into; below that only kinds and counts count,
    /// so equal values still hash equally and the call stack stays bounded whatever the depth.
    static let hashedDepth = 8

    /// How many values ``hash(into:)`` looks at, at most, per level (shared among a collection's elements,
    /// as ``PropertyListValue`` does), so a value whose collections share sub-trees hashes fast.
    static let hashedValues = 1 << 16

    /// Hashes the case and payload (a string by its UTF-8 bytes, as `==` compares it; a catalogued value
    /// by its type and its own hash); collections a bounded number of levels deep, dictionaries independently
    /// of their order.
    public func hash(into hasher: inout Hasher) {
        hash(into: &hasher, levels: Self.hashedDepth, budget: Self.hashedValues)
    }

    /// Hashes this value, looking at most `levels` collections deep and about `budget` values per level.
    private func hash(into hasher: inout Hasher, levels: Int, budget: Int) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let v): hasher.combine(1); hasher.combine(v)
        case .integer(let v): hasher.combine(2); hasher.combine(v)
        case .real(let v): hasher.combine(3); hasher.combine(v)
        case .string(let v): hasher.combine(4); v.hashScalars(into: &hasher)
        case .data(let v): hasher.combine(5); hasher.combine(v)
        case .date(let v): hasher.combine(6); hasher.combine(v)
        case .uuid(let v): hasher.combine(7); hasher.combine(v)
        case .url(let v): hasher.combine(8); hasher.combine(v)
        case .array(let a): hasher.combine(9); Self.hash(a, into: &hasher, levels: levels, budget: budget)
        case .orderedSet(let a): hasher.combine(10); Self.hash(a, into: &hasher, levels: levels, budget: budget)
        case .set(let a): hasher.combine(11); Self.hash(a, into: &hasher, levels: levels, budget: budget)
        case .dictionary(let d):
            hasher.combine(12)
            Self.hash(d.dictionary, into: &hasher, levels: levels, budget: budget)
        case .catalogued(let value):
            hasher.combine(13)
            hasher.combine(ObjectIdentifier(type(of: value)))
            if let v = value as? ArchivedCountedSet {
                Self.hash(v.countsAsValues, into: &hasher, levels: levels, budget: budget)
            } else if let v = value as? ArchivedAttributedString {
                hasher.combine(v.string)
                hasher.combine(v.runs.count)
                guard levels > 0 else { return }
                let share = Swift.max(1, budget / Swift.max(1, v.runs.count))
                for run in v.runs.prefix(budget) {
                    hasher.combine(run.range)
                    Self.hash(Dictionary(uniqueKeysWithValues: run.attributes.map { (FoundationValue.string($0.key), $0.value) }),
                              into: &hasher, levels: levels - 1, budget: share)
                }
            } else {
                value.hash(into: &hasher)
            }
        }
    }

    /// Hashes a dictionary's count and entries, independently of their order, sharing `budget` among them.
    private static func hash(_ d: [FoundationValue: FoundationValue], into hasher: inout Hasher, levels: Int, budget: Int) {
        hasher.combine(d.count)
        guard levels > 0, d.count <= budget else { return }
        let share = budget / Swift.max(1, d.count)
        var combined = 0
        for (key, value) in d {
            var h = Hasher()
            key.hash(into: &h, levels: levels - 1, budget: share)
            value.hash(into: &h, levels: levels - 1, budget: share)
            combined ^= h.finalize()
        }
        hasher.combine(combined)
    }

    /// Hashes a collection's count and its first elements, sharing `budget` among them.
    private static func hash(_ a: FoundationValueArray, into hasher: inout Hasher, levels: Int, budget: Int) {
        hasher.combine(a.count)
        guard levels > 0 else { return }
        let share = Swift.max(1, budget / Swift.max(1, a.count))
        for element in a.prefix(budget) { element.hash(into: &hasher, levels: levels - 1, budget: share) }
    }
}

extension ArchivedCountedSet {
    /// The counts as ``FoundationValue`` integers, so that `==` and the hash pair and hash a counted set's
    /// entries as they do a dictionary's.
    fileprivate var countsAsValues: [FoundationValue: FoundationValue] {
        counts.mapValues { FoundationValue.integer(PropertyListInteger(Int64($0))) }
    }
}
