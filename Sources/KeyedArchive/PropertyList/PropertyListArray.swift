/// The elements of a property-list array or set: use it as you would an `Array` of ``PropertyListValue``.
///
/// It exists so that a value nested a million levels deep can be freed: Swift frees a tree of enums and
/// arrays recursively, one call per level, which overflows the stack tens of thousands of levels down.
/// `PropertyListArray` keeps its elements in class-backed storage whose deinitialiser hands them to a
/// per-thread worklist, so dropping the last reference to any tree uses a constant amount of stack.
///
/// It is a copy-on-write value with `Array`'s API (random access, mutation, range replacement, array
/// literals): a ``DeepTeardownArray`` of ``PropertyListValue``, whose ``DeepTeardownArray/elements`` gives
/// the plain `[PropertyListValue]` without copying. `PropertyListValue.array(_:)` and `.set(_:)` also
/// accept a plain array, so `.array([1, 2])` and `.array(someArray)` work as before; a pattern
/// `case .array(let items)` binds a `PropertyListArray`.
///
/// `==` compares elements in order (iteratively, so any depth); the hash looks a bounded number of levels
/// deep, as ``PropertyListValue``'s does.
public typealias PropertyListArray = DeepTeardownArray<PropertyListValue>

extension PropertyListValue: DeepTeardownArrayElement {
    /// `.array(array)`: the value whose `==` and hash a ``PropertyListArray``'s are.
    public static func _arrayValue(_ array: PropertyListArray) -> PropertyListValue { .array(array) }

    /// The elements in Swift literal style, as ``PropertyListValue/description`` writes an array.
    public static func _description(of array: PropertyListArray) -> String { PropertyListValue.array(array).description }
}

extension PropertyListValue {
    /// An ordered array of plain elements: the same value as ``array(_:)-swift.enum.case`` with a
    /// ``PropertyListArray``, so `.array([1, 2])` and `.array(someArray)` keep working.
    @inlinable
    public static func array(_ elements: [PropertyListValue]) -> PropertyListValue {
        .array(PropertyListArray(elements))
    }

    /// A set of plain elements (in stored order): the same value as ``set(_:)-swift.enum.case`` with a
    /// ``PropertyListArray``.
    @inlinable
    public static func set(_ elements: [PropertyListValue]) -> PropertyListValue {
        .set(PropertyListArray(elements))
    }
}
