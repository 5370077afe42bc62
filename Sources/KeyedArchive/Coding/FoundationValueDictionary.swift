/// The entries of a ``FoundationValue`` dictionary (an NSDictionary): use it as you would a
/// `[FoundationValue: FoundationValue]`.
///
/// It exists so that a value nested a million levels deep can be freed without recursion (see
/// ``FoundationValueArray``): the entries live in class-backed storage that hands them to a per-thread
/// worklist when the last reference goes. `FoundationValue.dictionary(_:)` also accepts a plain Swift
/// dictionary, and ``dictionary`` gives one back without copying.
public struct FoundationValueDictionary: Sendable {
    @usableFromInline var box: DeepTeardownBox<[FoundationValue: FoundationValue]>

    /// A dictionary holding the entries of `dictionary`.
    @inlinable
    public init(_ dictionary: [FoundationValue: FoundationValue]) { box = DeepTeardownBox(dictionary) }

    /// An empty dictionary.
    @inlinable
    public init() { self.init([FoundationValue: FoundationValue]()) }

    /// The entries as a plain Swift dictionary (shares the storage: no copy until one side is mutated).
    @inlinable
    public var dictionary: [FoundationValue: FoundationValue] {
        get { box.storage }
        set { makeUnique(); box.storage = newValue }
        _modify {
            makeUnique()
            yield &box.storage
        }
    }

    /// Makes the storage unique before a mutation (copy-on-write).
    @inlinable
    mutating func makeUnique() {
        if !isKnownUniquelyReferenced(&box) { box = DeepTeardownBox(box.storage) }
    }

    /// The value stored for `key`; setting `nil` removes the entry.
    @inlinable
    public subscript(key: FoundationValue) -> FoundationValue? {
        get { box.storage[key] }
        set {
            makeUnique()
            box.storage[key] = newValue
        }
    }

    /// The number of entries.
    @inlinable public var count: Int { box.storage.count }
    /// Whether there are no entries.
    @inlinable public var isEmpty: Bool { box.storage.isEmpty }
    /// The keys, in the dictionary's (unspecified) order.
    @inlinable public var keys: Dictionary<FoundationValue, FoundationValue>.Keys { box.storage.keys }
    /// The values, in the order of ``keys``.
    @inlinable public var values: Dictionary<FoundationValue, FoundationValue>.Values { box.storage.values }
}

extension FoundationValueDictionary: Sequence {
    /// Iterates over the entries as `(key, value)` pairs, in the dictionary's order.
    @inlinable
    public func makeIterator() -> Dictionary<FoundationValue, FoundationValue>.Iterator { box.storage.makeIterator() }

    /// The number of entries.
    @inlinable public var underestimatedCount: Int { box.storage.count }
}

extension FoundationValueDictionary: ExpressibleByDictionaryLiteral {
    /// A dictionary of the literal's entries; a repeated key traps, as it does for a `Dictionary` literal.
    @inlinable
    public init(dictionaryLiteral elements: (FoundationValue, FoundationValue)...) {
        self.init(Dictionary(uniqueKeysWithValues: elements))
    }
}

extension FoundationValueDictionary: Hashable {
    /// Whether both hold the same entries (iterative: any depth).
    public static func == (lhs: FoundationValueDictionary, rhs: FoundationValueDictionary) -> Bool {
        lhs.box === rhs.box || FoundationValue.dictionary(lhs) == FoundationValue.dictionary(rhs)
    }

    /// Hashes the entries, order-independently and a bounded number of levels deep (see ``FoundationValue``).
    public func hash(into hasher: inout Hasher) {
        FoundationValue.dictionary(self).hash(into: &hasher)
    }
}

extension FoundationValueDictionary: CustomStringConvertible {
    /// The entries in Swift literal style, as ``FoundationValue/description`` writes a dictionary (any depth).
    public var description: String { FoundationValue.dictionary(self).description }
}
