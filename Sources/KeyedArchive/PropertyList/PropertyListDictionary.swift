/// A property-list dictionary: string keys mapped to values, in the order they were stored or inserted.
///
/// Apple's binary writer does not sort keys, and a tool that shows an archive should show it as it is,
/// so the order is kept. Lookups by key are O(1) for large dictionaries (an index is kept once the
/// dictionary has more than a few entries) and a short linear scan for small ones.
///
/// `==` compares the entries, not their order; compare ``keys`` to check the order too.
/// A key that occurs twice (possible in a hand-made binary file) keeps its first position and its last value,
/// as Python's plistlib and Foundation do.
public struct PropertyListDictionary: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The keys, in stored order.
    public private(set) var keys: [String]
    /// The values, parallel to ``keys``.
    public private(set) var values: [PropertyListValue]
    /// Key -> position, kept only once `count > PropertyListDictionary.indexThreshold`.
    private var index: [String: Int]?

    private static let indexThreshold = 12

    /// An empty dictionary.
    public init() {
        keys = []
        values = []
        index = nil
    }

    /// A dictionary from key-value pairs, in order. A repeated key keeps its first position and last value.
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, PropertyListValue) {
        self.init()
        let estimate = pairs.underestimatedCount
        keys.reserveCapacity(estimate)
        values.reserveCapacity(estimate)
        for (k, v) in pairs { self[k] = v }
    }

    /// A dictionary from parallel arrays of keys and values (same count), in order, without re-appending
    /// each entry: the fast path for readers. A repeated key keeps its first position and last value, as
    /// ``init(_:)`` does.
    init(keys: [String], values: [PropertyListValue]) {
        self.init()
        if keys.count <= Self.indexThreshold {
            var unique = true
            check: for i in keys.indices.dropFirst() {
                for j in 0 ..< i where keys[i] == keys[j] {
                    unique = false
                    break check
                }
            }
            if unique {
                self.keys = keys
                self.values = values
                self.index = nil
                return
            }
        } else {
            var built = [String: Int](minimumCapacity: keys.count)
            var unique = true
            for (i, k) in keys.enumerated() where built.updateValue(i, forKey: k) != nil {
                unique = false
                break
            }
            if unique {
                self.keys = keys
                self.values = values
                self.index = built
                return
            }
        }
        for (k, v) in zip(keys, values) { self[k] = v }
    }

    public init(dictionaryLiteral elements: (String, PropertyListValue)...) {
        self.init(elements)
    }

    /// The number of entries.
    public var count: Int { keys.count }

    /// Whether the dictionary has no entries.
    public var isEmpty: Bool { keys.isEmpty }

    /// The position of `key` in ``keys``, or `nil`.
    public func position(of key: String) -> Int? {
        if let index { return index[key] }
        return keys.firstIndex(of: key)
    }

    /// The value stored for `key`; setting `nil` removes the entry, setting a new key appends it.
    public subscript(key: String) -> PropertyListValue? {
        get { position(of: key).map { values[$0] } }
        set {
            if let i = position(of: key) {
                if let newValue {
                    values[i] = newValue
                } else {
                    keys.remove(at: i)
                    values.remove(at: i)
                    rebuildIndex()
                }
            } else if let newValue {
                keys.append(key)
                values.append(newValue)
                if index != nil {
                    index?[key] = keys.count - 1
                } else if keys.count > Self.indexThreshold {
                    rebuildIndex()
                }
            }
        }
    }

    private mutating func rebuildIndex() {
        guard keys.count > Self.indexThreshold else {
            index = nil
            return
        }
        var built = [String: Int](minimumCapacity: keys.count)
        for (i, k) in keys.enumerated() { built[k] = i }
        index = built
    }

    /// The entries in stored order.
    public func makeIterator() -> some IteratorProtocol<(key: String, value: PropertyListValue)> {
        zip(keys, values).lazy.map { (key: $0.0, value: $0.1) }.makeIterator()
    }

    /// Whether both hold the same entries, in any order (iterative: any depth).
    public static func == (lhs: PropertyListDictionary, rhs: PropertyListDictionary) -> Bool {
        PropertyListValue.dictionary(lhs) == PropertyListValue.dictionary(rhs)
    }

    public func hash(into hasher: inout Hasher) {
        hash(into: &hasher, levels: PropertyListValue.hashedDepth, budget: PropertyListValue.hashedValues)
    }

    /// Order-independent, to agree with `==`; looks at most `levels` containers deep, and into the
    /// entries only when `budget` covers them all (see `PropertyListValue.hashedValues`).
    func hash(into hasher: inout Hasher, levels: Int, budget: Int) {
        hasher.combine(count)
        guard levels > 0, count <= budget else { return }
        let share = budget / Swift.max(1, count)
        var combined = 0
        for (i, k) in keys.enumerated() {
            var h = Hasher()
            h.combine(k)
            values[i].hash(into: &h, levels: levels - 1, budget: share)
            combined ^= h.finalize()
        }
        hasher.combine(combined)
    }
}

extension PropertyListDictionary {
    /// A dictionary from parallel arrays whose keys the caller guarantees to be distinct (no lookups while
    /// building: the archiver's fast path). Internal; `keys.count` must equal `values.count`.
    /// No index is built: lookups scan until the dictionary is next mutated (the archiver's output is
    /// written, not searched).
    init(distinctKeys keys: [String], values: [PropertyListValue]) {
        self.keys = keys
        self.values = values
        self.index = nil
    }

    /// A dictionary with `template`'s keys (and index) and `values` in their place, sharing their storage:
    /// the binary reader's fast path for dictionaries whose key objects are the same. Internal;
    /// `template`'s keys are distinct and `values.count` equals `template.count`.
    init(keysOf template: PropertyListDictionary, values: [PropertyListValue]) {
        self = template
        self.values = values
    }
}
