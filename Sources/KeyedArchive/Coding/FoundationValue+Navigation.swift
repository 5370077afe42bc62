#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Reading a FoundationValue without patterns: one accessor per kind, each nil for any other kind, and
// subscripts by key and by index that are nil where there is nothing to find, so that
// `value["items"]?[3]?["name"]?.string` walks a nested value in one expression. Each step looks at one
// level only, so any depth is safe.

extension FoundationValue {
    /// Whether this is ``null`` (an NSNull).
    @inlinable
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The boolean, if this is ``bool(_:)`` (NSNumber's booleans only: an integer 0 or 1 is not one).
    @inlinable
    public var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The integer, if this is ``integer(_:)-swift.enum.case``: any value of `Int64.min ... UInt64.max`.
    @inlinable
    public var integer: PropertyListInteger? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The integer converted to `type`, if this is ``integer(_:)-swift.enum.case`` and the value fits in
    /// `type` exactly; nil for any other kind and for a value out of `type`'s range (never truncated).
    ///
    /// ```swift
    /// let port = value["port"]?.integer(as: UInt16.self)
    /// ```
    @inlinable
    public func integer<T: FixedWidthInteger>(as type: T.Type) -> T? {
        integer?.exactly(type)
    }

    /// The integer as `Int`, if this is ``integer(_:)-swift.enum.case`` and it fits (``integer(as:)``).
    @inlinable
    public var int: Int? { integer(as: Int.self) }

    /// The number as `Double`: the value of ``real(_:)``, or of ``integer(_:)-swift.enum.case`` when the
    /// integer converts to a `Double` exactly (up to 2^53 in magnitude, and larger multiples of a power of
    /// two); nil for any other kind.
    @inlinable
    public var double: Double? {
        switch self {
        case .real(let value): return value
        case .integer(let value):
            if let signed = value.int64Value { return Double(exactly: signed) }
            return value.uint64Value.flatMap { Double(exactly: $0) }
        default: return nil
        }
    }

    /// The string, if this is ``string(_:)-swift.enum.case``.
    @inlinable
    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The bytes, if this is ``data(_:)-swift.enum.case``.
    @inlinable
    public var data: Data? {
        if case .data(let value) = self { return value }
        return nil
    }

    /// The date, if this is ``date(_:)-swift.enum.case``.
    @inlinable
    public var date: Date? {
        if case .date(let value) = self { return value }
        return nil
    }

    /// The UUID, if this is ``uuid(_:)-swift.enum.case``.
    @inlinable
    public var uuid: UUID? {
        if case .uuid(let value) = self { return value }
        return nil
    }

    /// The URL, if this is ``url(_:)-swift.enum.case``.
    @inlinable
    public var url: URL? {
        if case .url(let value) = self { return value }
        return nil
    }

    /// The elements, if this is ``array(_:)-swift.enum.case`` (an NSArray).
    @inlinable
    public var array: FoundationValueArray? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The elements in order, if this is ``orderedSet(_:)-swift.enum.case`` (an NSOrderedSet).
    @inlinable
    public var orderedSet: FoundationValueArray? {
        if case .orderedSet(let value) = self { return value }
        return nil
    }

    /// The elements in stored order, if this is ``set(_:)-swift.enum.case`` (an NSSet).
    @inlinable
    public var set: FoundationValueArray? {
        if case .set(let value) = self { return value }
        return nil
    }

    /// The elements of an array, an ordered set or a set (in stored order); nil for any other kind.
    @inlinable
    public var elements: FoundationValueArray? {
        switch self {
        case .array(let value), .orderedSet(let value), .set(let value): return value
        default: return nil
        }
    }

    /// The entries, if this is ``dictionary(_:)-swift.enum.case`` (an NSDictionary).
    @inlinable
    public var dictionary: FoundationValueDictionary? {
        if case .dictionary(let value) = self { return value }
        return nil
    }

    /// The number of elements of an array, ordered set or set, or of entries of a dictionary; nil for any
    /// other kind.
    @inlinable
    public var count: Int? {
        switch self {
        case .array(let value), .orderedSet(let value), .set(let value): return value.count
        case .dictionary(let value): return value.count
        default: return nil
        }
    }

    /// The value stored under the string `key`, if this is a dictionary that has that key (compared as
    /// NSString compares, see ``==(_:_:)``); nil otherwise. Chains: `value["a"]?["b"]`.
    ///
    /// A key of another kind is read with ``dictionary``: `value.dictionary?[.integer(1)]`.
    @inlinable
    public subscript(key: String) -> FoundationValue? {
        if case .dictionary(let entries) = self { return entries[.string(key)] }
        return nil
    }

    /// The element at `index`, if this is an array, an ordered set or a set (stored order) and `index` is
    /// in range; nil otherwise (never a trap). Chains: `value[0]?[1]`.
    @inlinable
    public subscript(index: Int) -> FoundationValue? {
        guard let elements, index >= 0, index < elements.count else { return nil }
        return elements[index]
    }

    /// The name of the value's kind: the case name (`"string"`, `"array"`, ...), or for
    /// ``catalogued(_:)`` the type's ``CataloguedValue/foundationValueName`` (`"color"`).
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "bool"
        case .integer: return "integer"
        case .real: return "real"
        case .string: return "string"
        case .data: return "data"
        case .date: return "date"
        case .uuid: return "uuid"
        case .url: return "url"
        case .array: return "array"
        case .orderedSet: return "orderedSet"
        case .set: return "set"
        case .dictionary: return "dictionary"
        case .catalogued(let value): return type(of: value).foundationValueName
        }
    }
}
