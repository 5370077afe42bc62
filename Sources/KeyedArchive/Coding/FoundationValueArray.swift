/// The elements of a ``FoundationValue`` array, ordered set or set (in stored order): use it as you would
/// an `Array` of ``FoundationValue``.
///
/// It exists so that a value nested a million levels deep can be freed: Swift frees a tree of enums and
/// arrays recursively, one call per level, which overflows the stack tens of thousands of levels down.
/// `FoundationValueArray` keeps its elements in class-backed storage whose deinitialiser hands them to a
/// per-thread worklist, so dropping the last reference to any tree uses a constant amount of stack.
///
/// It is a copy-on-write value with `Array`'s API (random access, mutation, range replacement, array
/// literals): a ``DeepTeardownArray`` of ``FoundationValue``, whose ``DeepTeardownArray/elements`` gives
/// the plain `[FoundationValue]` without copying.
/// `FoundationValue.array(_:)`, `.orderedSet(_:)` and `.set(_:)` also accept a plain array, so
/// `.array([1, "a"])` and `.array(someArray)` work as before; a pattern `case .array(let items)` binds a
/// `FoundationValueArray`.
///
/// `==` compares elements in order (iteratively, so any depth); the hash looks a bounded number of levels
/// deep, as ``FoundationValue``'s does.
public typealias FoundationValueArray = DeepTeardownArray<FoundationValue>

extension FoundationValue: DeepTeardownArrayElement {
    /// `.array(array)`: the value whose `==` and hash a ``FoundationValueArray``'s are.
    public static func _arrayValue(_ array: FoundationValueArray) -> FoundationValue { .array(array) }

    /// The elements in Swift literal style, as ``FoundationValue/description`` writes an array (any depth).
    public static func _description(of array: FoundationValueArray) -> String { FoundationValue.array(array).description }
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
