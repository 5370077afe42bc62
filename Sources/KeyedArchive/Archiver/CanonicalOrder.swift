#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The order in which ``KeyedArchiver`` writes the elements of a set and the entries of a dictionary.
///
/// A `Set` or `Dictionary` iterates in an order that depends on the process's random hashing seed and on
/// the storage of the instance, so two instances holding the same elements can iterate differently, even
/// in one process. When the element (or key) type is `Comparable`, as `String`, the integer types,
/// `Double`, `Float`, `Date` and `UUID` are, the archiver writes them in ascending order instead, so the
/// same value gives the same bytes. `Double`, `Float` and `Date` use the IEEE 754 total order, which also
/// places NaNs and -0.0; other types use their `<`, which gives one order only when it is a total order
/// consistent with `==`. ``FoundationValue`` sets and dictionaries whose elements (keys) are all strings
/// are ordered as strings, canonically equivalent but distinct strings by their UTF-8 bytes. Anything
/// else (`Bool`, `Data`, `URL`, non-`Comparable` models) keeps the collection's own order.
enum CanonicalOrder {
    /// Whether elements of type `T` may be ordered (for ``FoundationValue``, only when all are strings).
    static func mayOrder<T>(_: T.Type) -> Bool {
        T.self == FoundationValue.self || T.self is any Comparable.Type
    }

    /// The positions of `items` in ascending order of their values, or `nil` when they are not ordered:
    /// `Item` is not `Comparable`, they are ``FoundationValue``s that are not all strings, or there are
    /// fewer than two.
    static func ascendingPositions<Item>(of items: [Item]) -> [Int]? {
        guard items.count > 1, mayOrder(Item.self) else { return nil }
        // The common element types are sorted by code specialised for them; any other `Comparable` type
        // through its protocol witness, several times slower.
        // (`withMemoryRebound` to the very same type reinterprets nothing.)
        return items.withUnsafeBufferPointer { buffer in
            if Item.self == String.self { return buffer.withMemoryRebound(to: String.self) { ascendingPositions(of: $0) } }
            if Item.self == Int.self { return buffer.withMemoryRebound(to: Int.self) { ascendingPositions(of: $0) } }
            if Item.self == Int64.self { return buffer.withMemoryRebound(to: Int64.self) { ascendingPositions(of: $0) } }
            if Item.self == Double.self { return buffer.withMemoryRebound(to: Double.self) { ascendingPositions(ofReals: $0) } }
            if Item.self == Float.self { return buffer.withMemoryRebound(to: Float.self) { ascendingPositions(ofReals: $0) } }
            if Item.self == Date.self {
                let times = buffer.withMemoryRebound(to: Date.self) { $0.map(\.timeIntervalSinceReferenceDate) }
                return times.withUnsafeBufferPointer { ascendingPositions(ofReals: $0) }
            }
            if Item.self == FoundationValue.self {
                return buffer.withMemoryRebound(to: FoundationValue.self) { ascendingPositions(ofStringValues: $0) }
            }
            guard let comparable = Item.self as? any Comparable.Type else { return nil }
            return ascendingPositions(of: buffer, as: comparable)
        }
    }

    /// Ascending in the IEEE 754 total order (-NaN < -∞ < ... < -0.0 < 0.0 < ... < ∞ < NaN), which `<`
    /// is not: NaN compares false with everything.
    private static func ascendingPositions<F: BinaryFloatingPoint>(ofReals values: UnsafeBufferPointer<F>) -> [Int] {
        values.indices.sorted { !values[$1].isTotallyOrdered(belowOrEqualTo: values[$0]) }
    }

    /// The ascending positions of `items`, whose type `Item` is `Value`, compared through `Value`'s witness.
    private static func ascendingPositions<Item, Value: Comparable>(of items: UnsafeBufferPointer<Item>, as _: Value.Type) -> [Int] {
        items.withMemoryRebound(to: Value.self) { ascendingPositions(of: $0) }
    }

    /// ``FoundationValue``s are not `Comparable`; when all of them are strings (the keys of nearly every
    /// dictionary in Apple's archives), they are ordered as strings.
    ///
    /// Such a set or dictionary may hold strings that `<` finds equal, being canonically equivalent ("\u{E9}"
    /// and "e\u{301}"), but that are distinct members, as in an NSSet (see
    /// ``Swift/String/hasSameScalars(as:)``). `<` leaves them next to each other in the order they came in,
    /// which is the set's hash order; each run of them is then ordered by UTF-8 bytes, so the output is the
    /// same whatever the input order.
    private static func ascendingPositions(ofStringValues values: UnsafeBufferPointer<FoundationValue>) -> [Int]? {
        var strings: [String] = []
        strings.reserveCapacity(values.count)
        for value in values {
            guard case .string(let string) = value else { return nil }
            strings.append(string)
        }
        return strings.withUnsafeBufferPointer { strings in
            var order = ascendingPositions(of: strings)
            var start = 0
            while start < order.count {
                var end = start + 1
                while end < order.count, !(strings[order[end - 1]] < strings[order[end]]) { end += 1 }
                if end - start > 1 {
                    order[start ..< end].sort { strings[$0].utf8.lexicographicallyPrecedes(strings[$1].utf8) }
                }
                start = end
            }
            return order
        }
    }

    private static func ascendingPositions<Value: Comparable>(of values: UnsafeBufferPointer<Value>) -> [Int] {
        values.indices.sorted { values[$0] < values[$1] }
    }

    /// The elements of `set` in ascending order, or `nil` when they are not ordered (see
    /// ``ascendingPositions(of:)``): the caller then iterates the set itself, without copying it.
    static func orderedElements<Element>(of set: Set<Element>) -> [Element]? {
        guard set.count > 1, mayOrder(Element.self) else { return nil }
        let items = Array(set)
        guard let order = ascendingPositions(of: items) else { return nil }
        return order.map { items[$0] }
    }

    /// The entries of `dictionary` ascending by key, or `nil` when its keys are not ordered (see
    /// ``ascendingPositions(of:)``): the caller then iterates the dictionary itself, without copying it.
    static func orderedEntries<Key, Value>(of dictionary: [Key: Value]) -> [(key: Key, value: Value)]? {
        guard dictionary.count > 1, mayOrder(Key.self) else { return nil }
        let entries = Array(dictionary)
        guard let order = ascendingPositions(of: entries.map(\.key)) else { return nil }
        return order.map { entries[$0] }
    }
}
