/// A property-list dictionary: string keys mapped to values, in the order they were stored or inserted.
///
/// Apple's binary writer does not sort keys, and a tool that shows an archive should show it as it is,
/// so the order is kept. Lookups by key are O(1) for large dictionaries (an index is kept once the
/// dictionary has more than a few entries) and a short linear scan for small ones.
///
/// `==` compares the entries, not their order; compare ``keys`` to check the order too.
/// A key that occurs twice (possible in a hand-made binary file) keeps its first position and its last value,
/// as Python's plistlib and Foundation do.
///
/// The entries live in class-backed storage that frees its values without recursion (see
/// ``PropertyListArray``), so a dictionary nested a million levels deep can be dropped like any value.
public struct PropertyListDictionary: Sendable, Hashable, Sequence, ExpressibleByDictionaryLiteral {
    /// The entries, copy-on-write; freed through the thread's teardown worklist.
    var storage: DeepTeardownBox<Entries>

    /// What the box holds: parallel keys and values, and the index once the dictionary is large.
    struct Entries: DeepTeardownStorage {
        var keys: [String]
        var values: [PropertyListValue]
        /// Key -> position, kept only once `count > PropertyListDictionary.indexThreshold`.
        var index: [String: Int]?

        init() {
            keys = []
            values = []
            index = nil
        }

        init(keys: [String], values: [PropertyListValue], index: [String: Int]?) {
            self.keys = keys
            self.values = values
            self.index = index
        }

        var isEmpty: Bool { values.isEmpty }
    }

    /// The keys, in stored order.
    public var keys: [String] { storage.storage.keys }
    /// The values, parallel to ``keys``.
    public var values: [PropertyListValue] { storage.storage.values }

    private static let indexThreshold = 12

    /// An empty dictionary.
    public init() {
        storage = DeepTeardownBox(Entries())
    }

    private init(entries: Entries) {
        storage = DeepTeardownBox(entries)
    }

    /// A dictionary from key-value pairs, in order. A repeated key keeps its first position and last value.
    public init<S: Sequence>(_ pairs: S) where S.Element == (String, PropertyListValue) {
        self.init()
        let estimate = pairs.underestimatedCount
        storage.storage.keys.reserveCapacity(estimate)
        storage.storage.values.reserveCapacity(estimate)
        for (k, v) in pairs { self[k] = v }
    }

    /// A dictionary from parallel arrays of keys and values (same count), in order, without re-appending
    /// each entry: the fast path for readers. A repeated key keeps its first position and last value, as
    /// ``init(_:)`` does.
    init(keys: [String], values: [PropertyListValue]) {
        if keys.count <= Self.indexThreshold {
            // Pairwise (at most 66 pairs); keys of different UTF-8 lengths (an O(1) count) are not compared.
            let unique = keys.withUnsafeBufferPointer { keys in
                for i in keys.indices.dropFirst() {
                    let length = keys[i].utf8.count
                    for j in 0 ..< i where keys[j].utf8.count == length && keys[i] == keys[j] { return false }
                }
                return true
            }
            if unique {
                self.init(entries: Entries(keys: keys, values: values, index: nil))
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
                self.init(entries: Entries(keys: keys, values: values, index: built))
                return
            }
        }
        self.init()
        for (k, v) in zip(keys, values) { self[k] = v }
    }

    public init(dictionaryLiteral elements: (String, PropertyListValue)...) {
        self.init(elements)
    }

    /// The number of entries.
    public var count: Int { storage.storage.keys.count }

    /// Whether the dictionary has no entries.
    public var isEmpty: Bool { storage.storage.keys.isEmpty }

    /// The position of `key` in ``keys``, or `nil`.
    public func position(of key: String) -> Int? {
        let entries = storage.storage
        if let index = entries.index { return index[key] }
        return entries.keys.firstIndex(of: key)
    }

    /// Makes the storage unique before a mutation (copy-on-write).
    private mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&storage) { storage = DeepTeardownBox(storage.storage) }
    }

    /// The value stored for `key`; setting `nil` removes the entry, setting a new key appends it.
    public subscript(key: String) -> PropertyListValue? {
        get { position(of: key).map { storage.storage.values[$0] } }
        set {
            let found = position(of: key)
            makeUnique()
            if let i = found {
                if let newValue {
                    storage.storage.values[i] = newValue
                } else {
                    storage.storage.keys.remove(at: i)
                    storage.storage.values.remove(at: i)
                    rebuildIndex()
                }
            } else if let newValue {
                storage.storage.keys.append(key)
                storage.storage.values.append(newValue)
                let position = storage.storage.keys.count - 1
                if storage.storage.index != nil {
                    // (not `index?[key] = keys.count - 1`: the chain would read the storage while modifying it)
                    storage.storage.index?[key] = position
                } else if storage.storage.keys.count > Self.indexThreshold {
                    rebuildIndex()
                }
            }
        }
    }

    /// Rebuilds the index of a uniquely held storage.
    private mutating func rebuildIndex() {
        let keys = storage.storage.keys
        guard keys.count > Self.indexThreshold else {
            storage.storage.index = nil
            return
        }
        var built = [String: Int](minimumCapacity: keys.count)
        for (i, k) in keys.enumerated() { built[k] = i }
        storage.storage.index = built
    }

    /// The entries in stored order.
    public func makeIterator() -> some IteratorProtocol<(key: String, value: PropertyListValue)> {
        zip(keys, values).lazy.map { (key: $0.0, value: $0.1) }.makeIterator()
    }

    /// Whether both hold the same entries, in any order (iterative: any depth).
    public static func == (lhs: PropertyListDictionary, rhs: PropertyListDictionary) -> Bool {
        lhs.storage === rhs.storage || PropertyListValue.dictionary(lhs) == PropertyListValue.dictionary(rhs)
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
        let values = self.values
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
        storage = DeepTeardownBox(Entries(keys: keys, values: values, index: nil))
    }

    /// A dictionary with `template`'s keys (and index) and `values` in their place, sharing their storage:
    /// the binary reader's fast path for dictionaries whose key objects are the same. Internal;
    /// `template`'s keys are distinct and `values.count` equals `template.count`.
    init(keysOf template: PropertyListDictionary, values: [PropertyListValue]) {
        self.init(entries: Entries(keys: template.keys, values: values, index: template.storage.storage.index))
    }
}
