/// The elements of a ``FoundationValue`` array, ordered set or set (in stored order): use it as you would
/// an `Array` of ``FoundationValue``.
///
/// It exists so that a value nested a million levels deep can be freed: Swift frees a tree of enums and
/// arrays recursively, one call per level, which overflows the stack tens of thousands of levels down.
/// `FoundationValueArray` keeps its elements in class-backed storage whose deinitialiser hands them to a
/// per-thread worklist, so dropping the last reference to any tree uses a constant amount of stack.
///
/// It is a copy-on-write value with `Array`'s API (random access, mutation, range replacement, array
/// literals). ``elements`` gives the plain `[FoundationValue]` without copying.
/// `FoundationValue.array(_:)`, `.orderedSet(_:)` and `.set(_:)` also accept a plain array, so
/// `.array([1, "a"])` and `.array(someArray)` work as before; a pattern `case .array(let items)` binds a
/// `FoundationValueArray`.
///
/// `==` compares elements in order (iteratively, so any depth); the hash looks a bounded number of levels
/// deep, as ``FoundationValue``'s does.
public struct FoundationValueArray: Sendable {
    @usableFromInline var box: DeepTeardownBox<[FoundationValue]>

    /// An array holding `elements`, in order.
    @inlinable
    public init(_ elements: [FoundationValue]) { box = DeepTeardownBox(elements) }

    /// An array holding the elements of `elements`, in order.
    @inlinable
    public init(_ elements: some Sequence<FoundationValue>) { self.init(Array(elements)) }

    /// An empty array.
    @inlinable
    public init() { self.init([FoundationValue]()) }

    /// The elements as a plain Swift array (shares the storage: no copy until one side is mutated).
    @inlinable
    public var elements: [FoundationValue] {
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
}

extension FoundationValueArray: RandomAccessCollection, MutableCollection, RangeReplaceableCollection {
    public typealias Index = Int
    public typealias Indices = Range<Int>
    public typealias SubSequence = ArraySlice<FoundationValue>

    /// The position of the first element (always 0).
    @inlinable public var startIndex: Int { 0 }
    /// The position one past the last element (the count).
    @inlinable public var endIndex: Int { box.storage.count }
    /// The number of elements.
    @inlinable public var count: Int { box.storage.count }
    /// Whether there are no elements.
    @inlinable public var isEmpty: Bool { box.storage.isEmpty }

    @inlinable public func index(after i: Int) -> Int { i + 1 }
    @inlinable public func index(before i: Int) -> Int { i - 1 }

    /// The element at `position`; traps if it is out of bounds, as `Array` does.
    @inlinable
    public subscript(position: Int) -> FoundationValue {
        get { box.storage[position] }
        _modify {
            makeUnique()
            yield &box.storage[position]
        }
    }

    /// The elements in `bounds`, as an array slice.
    @inlinable
    public subscript(bounds: Range<Int>) -> ArraySlice<FoundationValue> {
        get { box.storage[bounds] }
        set {
            makeUnique()
            box.storage[bounds] = newValue
        }
    }

    /// Replaces the elements in `subrange` with `newElements`.
    @inlinable
    public mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C)
    where C.Element == FoundationValue {
        makeUnique()
        box.storage.replaceSubrange(subrange, with: newElements)
    }

    /// Reserves room for `minimumCapacity` elements.
    @inlinable
    public mutating func reserveCapacity(_ minimumCapacity: Int) {
        makeUnique()
        box.storage.reserveCapacity(minimumCapacity)
    }

    /// Adds `element` at the end.
    @inlinable
    public mutating func append(_ element: FoundationValue) {
        makeUnique()
        box.storage.append(element)
    }

    /// Iterates over the elements in order.
    @inlinable
    public func makeIterator() -> IndexingIterator<[FoundationValue]> { box.storage.makeIterator() }
}

extension FoundationValueArray: ExpressibleByArrayLiteral {
    /// An array of the literal's elements.
    @inlinable
    public init(arrayLiteral elements: FoundationValue...) { self.init(elements) }
}

extension FoundationValueArray: Hashable {
    /// Whether both hold equal elements in the same order (iterative: any depth; storage shared by both
    /// is equal without a look).
    public static func == (lhs: FoundationValueArray, rhs: FoundationValueArray) -> Bool {
        lhs.box === rhs.box || FoundationValue.array(lhs) == FoundationValue.array(rhs)
    }

    /// Hashes the count and the elements, a bounded number of levels deep (see ``FoundationValue``).
    public func hash(into hasher: inout Hasher) {
        FoundationValue.array(self).hash(into: &hasher)
    }
}

extension FoundationValueArray: CustomStringConvertible {
    /// The elements, as `Array` describes them (shallow values only: a deep value's description recurses).
    public var description: String { box.storage.description }
}

extension FoundationValue {
    /// An NSArray of plain elements: the same value as ``array(_:)-swift.enum.case`` with a
    /// ``FoundationValueArray``, so `.array([1, "a"])` and `.array(someArray)` keep working.
    @inlinable
    public static func array(_ elements: [FoundationValue]) -> FoundationValue { .array(FoundationValueArray(elements)) }

    /// An NSOrderedSet of plain elements: the same value as ``orderedSet(_:)-swift.enum.case`` with a
    /// ``FoundationValueArray``.
    @inlinable
    public static func orderedSet(_ elements: [FoundationValue]) -> FoundationValue {
        .orderedSet(FoundationValueArray(elements))
    }

    /// An NSSet of plain elements, in stored order: the same value as ``set(_:)-swift.enum.case`` with a
    /// ``FoundationValueArray``.
    @inlinable
    public static func set(_ elements: [FoundationValue]) -> FoundationValue { .set(FoundationValueArray(elements)) }

    /// An NSDictionary from a plain Swift dictionary: the same value as ``dictionary(_:)-swift.enum.case``
    /// with a ``FoundationValueDictionary``.
    @inlinable
    public static func dictionary(_ entries: [FoundationValue: FoundationValue]) -> FoundationValue {
        .dictionary(FoundationValueDictionary(entries))
    }
}
