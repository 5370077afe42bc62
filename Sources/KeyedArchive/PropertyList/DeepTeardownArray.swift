/// The elements of a property-list or Foundation value array: use it as you would an `Array` of `Element`.
/// ``PropertyListArray`` and ``FoundationValueArray`` are its two forms.
///
/// It exists so that a value nested a million levels deep can be freed: Swift frees a tree of enums and
/// arrays recursively, one call per level, which overflows the stack tens of thousands of levels down.
/// `DeepTeardownArray` keeps its elements in class-backed storage whose deinitialiser hands them to a
/// per-thread worklist, so dropping the last reference to any tree uses a constant amount of stack.
///
/// It is a copy-on-write value with `Array`'s API (random access, mutation, range replacement, array
/// literals). ``elements`` gives the plain `[Element]` without copying.
///
/// `==` compares elements in order (iteratively, so any depth); the hash looks a bounded number of levels
/// deep, as the element type's does.
public struct DeepTeardownArray<Element: DeepTeardownArrayElement>: Sendable {
    @usableFromInline var box: DeepTeardownBox<[Element]>

    /// An array holding `elements`, in order.
    @inlinable
    public init(_ elements: [Element]) { box = DeepTeardownBox(elements) }

    /// An array holding the elements of `elements`, in order.
    @inlinable
    public init(_ elements: some Sequence<Element>) { self.init(Array(elements)) }

    /// An empty array.
    @inlinable
    public init() { self.init([Element]()) }

    /// The elements as a plain Swift array (shares the storage: no copy until one side is mutated).
    @inlinable
    public var elements: [Element] {
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

/// A value tree whose array case holds a ``DeepTeardownArray`` of it (``PropertyListValue``,
/// ``FoundationValue``): the tree's `==`, hash and description of that case are the array's.
public protocol DeepTeardownArrayElement: Hashable, Sendable {
    /// `array` as the tree's array value, which compares and hashes it.
    static func _arrayValue(_ array: DeepTeardownArray<Self>) -> Self
    /// How `array` describes itself.
    static func _description(of array: DeepTeardownArray<Self>) -> String
}

extension DeepTeardownArray: RandomAccessCollection, MutableCollection, RangeReplaceableCollection {
    public typealias Index = Int
    public typealias Indices = Range<Int>
    public typealias SubSequence = ArraySlice<Element>

    /// The position of the first element (always 0).
    @inlinable public var startIndex: Int { 0 }
    /// The position one past the last element (the count).
    @inlinable public var endIndex: Int { box.storage.count }
    /// The number of elements.
    @inlinable public var count: Int { box.storage.count }
    /// Whether there are no elements.
    @inlinable public var isEmpty: Bool { box.storage.isEmpty }

    /// The position after `i`.
    @inlinable public func index(after i: Int) -> Int { i + 1 }
    /// The position before `i`.
    @inlinable public func index(before i: Int) -> Int { i - 1 }

    /// The element at `position`; traps if it is out of bounds, as `Array` does.
    @inlinable
    public subscript(position: Int) -> Element {
        get { box.storage[position] }
        _modify {
            makeUnique()
            yield &box.storage[position]
        }
    }

    /// The elements in `bounds`, as an array slice.
    @inlinable
    public subscript(bounds: Range<Int>) -> ArraySlice<Element> {
        get { box.storage[bounds] }
        set {
            makeUnique()
            box.storage[bounds] = newValue
        }
    }

    /// Replaces the elements in `subrange` with `newElements`.
    @inlinable
    public mutating func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C)
    where C.Element == Element {
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
    public mutating func append(_ element: Element) {
        makeUnique()
        box.storage.append(element)
    }

    /// Iterates over the elements in order.
    @inlinable
    public func makeIterator() -> IndexingIterator<[Element]> { box.storage.makeIterator() }
}

extension DeepTeardownArray: ExpressibleByArrayLiteral {
    /// An array of the literal's elements.
    @inlinable
    public init(arrayLiteral elements: Element...) { self.init(elements) }
}

extension DeepTeardownArray: Hashable {
    /// Whether both hold equal elements in the same order (iterative: any depth; storage shared by both
    /// is equal without a look).
    public static func == (lhs: DeepTeardownArray, rhs: DeepTeardownArray) -> Bool {
        lhs.box === rhs.box || Element._arrayValue(lhs) == Element._arrayValue(rhs)
    }

    /// Hashes the count and the elements, a bounded number of levels deep (as the element type does).
    public func hash(into hasher: inout Hasher) {
        Element._arrayValue(self).hash(into: &hasher)
    }
}

extension DeepTeardownArray: CustomStringConvertible {
    /// The elements, as the element type describes an array.
    public var description: String { Element._description(of: self) }
}
