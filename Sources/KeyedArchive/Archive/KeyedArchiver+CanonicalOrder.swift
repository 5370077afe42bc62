#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The order in which ``KeyedArchiver`` writes the elements of a set and the entries of a dictionary.
///
/// A `Set` or `Dictionary` iterates in an order that depends on the process's random hashing seed and on
/// the storage of the instance, so two equal values can iterate differently. When the element (or key)
/// type is `Comparable`, as `String`, the integer types, `Double`, `Date` and `UUID` are, the archiver
/// writes them in ascending order instead: equal values give equal bytes, in any process. So do
/// ``FoundationValue`` dictionaries whose keys are all strings. Other element types keep the collection's
/// own order.
enum CanonicalOrder {
    /// The positions of `items` in ascending order of their values, or `nil` when `Item` is not
    /// `Comparable` (or there is nothing to order).
    static func ascendingPositions<Item>(of items: [Item]) -> [Int]? {
        guard items.count > 1 else { return nil }
        // The common element types are sorted by code specialised for them; any other `Comparable` type
        // through its protocol witness, several times slower.
        // (`withMemoryRebound` to the very same type reinterprets nothing.)
        return items.withUnsafeBufferPointer { buffer in
            if Item.self == String.self { return buffer.withMemoryRebound(to: String.self) { ascendingPositions(of: $0) } }
            if Item.self == Int.self { return buffer.withMemoryRebound(to: Int.self) { ascendingPositions(of: $0) } }
            if Item.self == Int64.self { return buffer.withMemoryRebound(to: Int64.self) { ascendingPositions(of: $0) } }
            if Item.self == Double.self { return buffer.withMemoryRebound(to: Double.self) { ascendingPositions(of: $0) } }
            if Item.self == Date.self { return buffer.withMemoryRebound(to: Date.self) { ascendingPositions(of: $0) } }
            if Item.self == FoundationValue.self {
                return buffer.withMemoryRebound(to: FoundationValue.self) { ascendingPositions(ofStringValues: $0) }
            }
            guard let comparable = Item.self as? any Comparable.Type else { return nil }
            return ascendingPositions(of: buffer, as: comparable)
        }
    }

    /// The ascending positions of `items`, whose type `Item` is `Value`, compared through `Value`'s witness.
    private static func ascendingPositions<Item, Value: Comparable>(of items: UnsafeBufferPointer<Item>, as _: Value.Type) -> [Int] {
        items.withMemoryRebound(to: Value.self) { ascendingPositions(of: $0) }
    }

    /// ``FoundationValue``s are not `Comparable`; when all of them are strings (the keys of nearly every
    /// dictionary in Apple's archives), they are ordered as strings.
    private static func ascendingPositions(ofStringValues values: UnsafeBufferPointer<FoundationValue>) -> [Int]? {
        var strings: [String] = []
        strings.reserveCapacity(values.count)
        for value in values {
            guard case .string(let string) = value else { return nil }
            strings.append(string)
        }
        return strings.withUnsafeBufferPointer { ascendingPositions(of: $0) }
    }

    private static func ascendingPositions<Value: Comparable>(of values: UnsafeBufferPointer<Value>) -> [Int] {
        values.indices.sorted { values[$0] < values[$1] }
    }

    /// The elements of `set`, ascending when they are `Comparable`, otherwise in the set's order.
    static func elements<Element>(of set: Set<Element>) -> [Element] {
        let items = Array(set)
        guard let order = ascendingPositions(of: items) else { return items }
        return order.map { items[$0] }
    }

    /// The entries of `dictionary`, ascending by key when the keys are `Comparable`, otherwise in the
    /// dictionary's order.
    static func entries<Key, Value>(of dictionary: [Key: Value]) -> [(key: Key, value: Value)] {
        let entries = Array(dictionary)
        guard let order = ascendingPositions(of: entries.map(\.key)) else { return entries }
        return order.map { entries[$0] }
    }
}
