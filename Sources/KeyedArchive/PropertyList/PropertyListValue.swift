#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A property-list value that keeps everything Apple's binary and XML formats can say.
///
/// Unlike `PropertyListSerialization`, which returns `Any`, this is a closed, typed tree:
/// - dictionaries keep their keys in the order they were stored (Apple's binary writer does not sort);
/// - integers cover the whole signed and unsigned 64-bit range (see ``PropertyListInteger``);
/// - reals remember whether they were stored in 4 bytes (``float(_:)``) or 8 bytes (``real(_:)``);
/// - the keyed-archive UID is a first-class value with a readable integer (``UID``).
///
/// Equality is exact: reals and dates compare by bit pattern, so `nan == nan` and `-0.0 != 0.0`,
/// which makes round-trip tests meaningful. Dictionaries compare as dictionaries (the order of their
/// keys does not matter for `==`; use ``PropertyListDictionary/keys`` to check the order).
public enum PropertyListValue: Sendable {
    /// A string (stored as ASCII or UTF-16 in the binary format).
    case string(String)
    /// An integer of up to 64 bits, signed or unsigned.
    case integer(PropertyListInteger)
    /// A real number stored in 8 bytes.
    case real(Double)
    /// A real number stored in 4 bytes. Apple's writers emit these for `Float` values.
    case float(Float)
    /// A boolean.
    case bool(Bool)
    /// A date: seconds since 2001-01-01 00:00:00 UTC, stored as a Double.
    case date(Date)
    /// Raw bytes.
    case data(Data)
    /// An ordered array. ``array(_:)-swift.type.method`` builds one from a plain `[PropertyListValue]`.
    case array(PropertyListArray)
    /// A set (binary format only; XML has no set). Elements keep the order they were stored in.
    /// ``set(_:)-swift.type.method`` builds one from a plain `[PropertyListValue]`.
    case set(PropertyListArray)
    /// A dictionary with string keys, in stored order.
    case dictionary(PropertyListDictionary)
    /// A keyed-archive object reference (`CF$UID`).
    case uid(UID)
}

extension PropertyListValue {
    /// Convenience: an integer value from any binary integer that fits in 64 bits (signed or unsigned).
    ///
    /// Returns `nil` when the value does not fit.
    public static func integer<T: BinaryInteger>(exactly value: T) -> PropertyListValue? {
        PropertyListInteger(exactly: value).map(PropertyListValue.integer)
    }

    /// A short name of the value's kind, used in error messages (`"string"`, `"dictionary"`, ...).
    public var kindName: String {
        switch self {
        case .string: return "string"
        case .integer: return "integer"
        case .real: return "real"
        case .float: return "real (4-byte)"
        case .bool: return "boolean"
        case .date: return "date"
        case .data: return "data"
        case .array: return "array"
        case .set: return "set"
        case .dictionary: return "dictionary"
        case .uid: return "UID"
        }
    }

    /// The string, if this is a string.
    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    /// The dictionary, if this is a dictionary.
    public var dictionaryValue: PropertyListDictionary? {
        if case .dictionary(let d) = self { return d }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [PropertyListValue]? {
        if case .array(let a) = self { return a.elements }
        return nil
    }

    /// The UID, if this is a UID.
    public var uidValue: UID? {
        if case .uid(let u) = self { return u }
        return nil
    }

    /// The integer, if this is an integer.
    public var integerValue: PropertyListInteger? {
        if case .integer(let i) = self { return i }
        return nil
    }
}

extension PropertyListValue: Hashable {
    /// Whether two values are equal: reals and dates by bit pattern, dictionaries as dictionaries.
    ///
    /// Iterative: containers are compared with an explicit stack, so values of any depth compare
    /// without exhausting the call stack.
    public static func == (lhs: PropertyListValue, rhs: PropertyListValue) -> Bool {
        switch (lhs, rhs) {
        case (.array, .array), (.set, .set), (.dictionary, .dictionary):
            return containersEqual(lhs, rhs)
        default:
            return scalarsEqual(lhs, rhs)
        }
    }

    /// `==` for two values that are not both containers of the same kind.
    @inline(__always)
    private static func scalarsEqual(_ lhs: PropertyListValue, _ rhs: PropertyListValue) -> Bool {
        switch (lhs, rhs) {
        case (.string(let a), .string(let b)): return a == b
        case (.integer(let a), .integer(let b)): return a == b
        case (.real(let a), .real(let b)): return a.bitPattern == b.bitPattern
        case (.float(let a), .float(let b)): return a.bitPattern == b.bitPattern
        case (.bool(let a), .bool(let b)): return a == b
        case (.date(let a), .date(let b)):
            return a.timeIntervalSinceReferenceDate.bitPattern == b.timeIntervalSinceReferenceDate.bitPattern
        case (.data(let a), .data(let b)): return a == b
        case (.uid(let a), .uid(let b)): return a == b
        default: return false
        }
    }

    /// `==` for containers: pairs still to compare wait on an explicit stack.
    @inline(never)
    private static func containersEqual(_ lhs: PropertyListValue, _ rhs: PropertyListValue) -> Bool {
        var pending: [(PropertyListValue, PropertyListValue)] = [(lhs, rhs)]
        // Past `PropertyListExpansionBudget.allowance` comparisons, pairs of storages already compared (or
        // waiting) are skipped, so values that share sub-trees (2^40 paths in 40 containers) compare fast.
        var comparisons = 0
        var compared: Set<[UnsafeRawPointer?]> = []
        func alreadyCompared(_ storages: @autoclosure () -> [UnsafeRawPointer?]) -> Bool {
            comparisons += 1
            return comparisons > PropertyListExpansionBudget.allowance && !compared.insert(storages()).inserted
        }
        while let (a, b) = pending.popLast() {
            switch (a, b) {
            case (.array(let x), .array(let y)), (.set(let x), .set(let y)):
                guard x.count == y.count else { return false }
                if x.box === y.box || alreadyCompared([address(x.elements), address(y.elements)]) { continue }
                for (u, v) in zip(x, y) {
                    switch (u, v) {
                    case (.array, .array), (.set, .set), (.dictionary, .dictionary): pending.append((u, v))
                    default: if !scalarsEqual(u, v) { return false }
                    }
                }
            case (.dictionary(let x), .dictionary(let y)):
                guard x.count == y.count else { return false }
                if x.storage === y.storage { continue }
                if alreadyCompared([address(x.keys), address(x.values), address(y.keys), address(y.values)]) { continue }
                for (i, k) in x.keys.enumerated() {
                    guard let j = y.position(of: k) else { return false }
                    let (u, v) = (x.values[i], y.values[j])
                    switch (u, v) {
                    case (.array, .array), (.set, .set), (.dictionary, .dictionary): pending.append((u, v))
                    default: if !scalarsEqual(u, v) { return false }
                    }
                }
            default:
                return false
            }
        }
        return true
    }

    /// The address of an array's storage: its identity while the array is alive.
    @inline(__always)
    private static func address<T>(_ x: [T]) -> UnsafeRawPointer? {
        x.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }

    /// How many levels of containers ``hash(into:)`` looks into; below that only kinds and counts count.
    /// Equal values still hash equally (the hash looks at less than `==` does), and the call stack
    /// stays bounded whatever the depth.
    static let hashedDepth = 8

    /// How many values ``hash(into:)`` looks at, at most, per level: a container of `n` elements shares
    /// its budget among them (an array hashes only its first elements when `n` is larger, a dictionary
    /// only its count), so a value whose containers share sub-trees (`n^8` paths) hashes fast. The split
    /// depends only on the structure, so equal values hash equally.
    static let hashedValues = 1 << 16

    public func hash(into hasher: inout Hasher) {
        hash(into: &hasher, levels: Self.hashedDepth, budget: Self.hashedValues)
    }

    /// Hashes this value, looking at most `levels` containers deep and about `budget` values per level.
    func hash(into hasher: inout Hasher, levels: Int, budget: Int) {
        switch self {
        case .string(let s): hasher.combine(0); hasher.combine(s)
        case .integer(let i): hasher.combine(1); hasher.combine(i)
        case .real(let d): hasher.combine(2); hasher.combine(d.bitPattern)
        case .float(let f): hasher.combine(3); hasher.combine(f.bitPattern)
        case .bool(let b): hasher.combine(4); hasher.combine(b)
        case .date(let d): hasher.combine(5); hasher.combine(d.timeIntervalSinceReferenceDate.bitPattern)
        case .data(let d): hasher.combine(6); hasher.combine(d)
        case .array(let a), .set(let a):
            hasher.combine(self.isSet ? 8 : 7)
            hasher.combine(a.count)
            guard levels > 0 else { return }
            let share = Swift.max(1, budget / Swift.max(1, a.count))
            for element in a.prefix(budget) { element.hash(into: &hasher, levels: levels - 1, budget: share) }
        case .dictionary(let d): hasher.combine(9); d.hash(into: &hasher, levels: levels, budget: budget)
        case .uid(let u): hasher.combine(10); hasher.combine(u)
        }
    }

    private var isSet: Bool {
        if case .set = self { return true }
        return false
    }
}

extension PropertyListValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(PropertyListInteger(value)) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: PropertyListValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, PropertyListValue)...) {
        self = .dictionary(PropertyListDictionary(elements))
    }
}

// MARK: - UID

/// A keyed-archive object reference: the index of an object in the archive's `$objects` array.
///
/// Binary property lists store it with the `0x8` marker; XML property lists as a dictionary with the
/// single key `CF$UID`. UID 0 refers to `$null` (nil) in a keyed archive.
/// Foundation on Linux hides this behind an opaque type; here its value is a plain integer.
public struct UID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The object index this UID refers to.
    public var value: UInt64

    /// Creates a UID for object index `value`.
    public init(_ value: UInt64) { self.value = value }

    public static func < (lhs: UID, rhs: UID) -> Bool { lhs.value < rhs.value }

    /// `UID(n)`, as `plutil -p` should show it.
    public var description: String { "UID(\(value))" }
}

// MARK: - Integers

/// An integer as property lists store it: any `Int64`, or a `UInt64` above `Int64.max`
/// (which the binary format writes as a 16-byte integer).
///
/// Values are normalised: a non-negative value that fits in `Int64` is always the signed form,
/// so `PropertyListInteger(UInt64(5)) == PropertyListInteger(Int64(5))`.
public struct PropertyListInteger: Hashable, Comparable, Sendable, CustomStringConvertible,
    ExpressibleByIntegerLiteral
{
    private enum Storage: Hashable, Sendable {
        case signed(Int64)
        case unsigned(UInt64)  // always > Int64.max
    }
    private let storage: Storage

    /// An integer from a signed 64-bit value.
    public init(_ value: Int64) { storage = .signed(value) }

    /// An integer from an unsigned 64-bit value.
    public init(_ value: UInt64) {
        storage = value > UInt64(Int64.max) ? .unsigned(value) : .signed(Int64(value))
    }

    /// An integer from any binary integer, or `nil` if it does not fit in the property-list range
    /// (`Int64.min ... UInt64.max`).
    public init?<T: BinaryInteger>(exactly value: T) {
        if let s = Int64(exactly: value) {
            self.init(s)
        } else if let u = UInt64(exactly: value) {
            self.init(u)
        } else {
            return nil
        }
    }

    public init(integerLiteral value: Int64) { self.init(value) }

    /// The value as `Int64`, or `nil` if it is above `Int64.max`.
    public var int64Value: Int64? {
        if case .signed(let s) = storage { return s }
        return nil
    }

    /// The value as `UInt64`, or `nil` if it is negative.
    public var uint64Value: UInt64? {
        switch storage {
        case .signed(let s): return s >= 0 ? UInt64(s) : nil
        case .unsigned(let u): return u
        }
    }

    /// Whether the value is below zero.
    public var isNegative: Bool {
        if case .signed(let s) = storage { return s < 0 }
        return false
    }

    /// The value converted to `T`, or `nil` if it does not fit.
    public func exactly<T: FixedWidthInteger>(_ type: T.Type) -> T? {
        switch storage {
        case .signed(let s): return T(exactly: s)
        case .unsigned(let u): return T(exactly: u)
        }
    }

    public static func < (lhs: PropertyListInteger, rhs: PropertyListInteger) -> Bool {
        switch (lhs.storage, rhs.storage) {
        case (.signed(let a), .signed(let b)): return a < b
        case (.signed, .unsigned): return true
        case (.unsigned, .signed): return false
        case (.unsigned(let a), .unsigned(let b)): return a < b
        }
    }

    /// All the digits, with a sign if negative.
    public var description: String {
        switch storage {
        case .signed(let s): return String(s)
        case .unsigned(let u): return String(u)
        }
    }
}

// MARK: - Description

extension PropertyListValue: CustomStringConvertible {
    /// A one-line rendering in Swift literal style: `["name": "x", "items": [1, 2.5, true], "ref": UID(3)]`.
    /// A set is `set[...]`, a 4-byte real `Float(1.5)`, a date `Date(<seconds since 2001>)`, data
    /// `Data(<n> bytes)`.
    ///
    /// Iterative: values of any depth are described without exhausting the call stack.
    ///
    /// Bounded: a value whose containers share sub-trees (which a binary property list can hold: 40 levels of
    /// arrays each holding the next twice make 2^40 paths from a few hundred bytes) is described until the
    /// walk has repeated shared sub-trees more than 16 times per distinct value (plus 100,000 values); the
    /// rest is replaced by `...<elided: ...>`, so the description stays a small multiple of the value's size.
    public var description: String {
        var out = ""
        var budget = PropertyListExpansionBudget()
        // What is still to be written, last first: a value, or a piece of punctuation.
        enum Item {
            case value(PropertyListValue)
            case text(String)
        }
        var pending: [Item] = [.value(self)]
        while let item = pending.popLast() {
            switch item {
            case .text(let t):
                out += t
            case .value(let v):
                switch v {
                case .string(let s): out += String(reflecting: s)
                case .integer(let i): out += i.description
                case .real(let d): out += "\(d)"
                case .float(let f): out += "Float(\(f))"
                case .bool(let b): out += b ? "true" : "false"
                case .date(let d): out += "Date(\(d.timeIntervalSinceReferenceDate))"
                case .data(let d): out += "Data(\(d.count) bytes)"
                case .uid(let u): out += u.description
                case .array(let a), .set(let a):
                    guard budget.visit(a.elements) else { return out + Self.elidedMarker }
                    if case .set = v { out += "set" }
                    out += "["
                    pending.append(.text("]"))
                    for (i, element) in a.enumerated().reversed() {
                        pending.append(.value(element))
                        if i > 0 { pending.append(.text(", ")) }
                    }
                case .dictionary(let d):
                    if d.isEmpty {
                        out += "[:]"
                        continue
                    }
                    guard budget.visit(d.values, keys: d.keys) else { return out + Self.elidedMarker }
                    out += "["
                    pending.append(.text("]"))
                    for (i, key) in d.keys.enumerated().reversed() {
                        pending.append(.value(d.values[i]))
                        pending.append(.text(String(reflecting: key) + ": "))
                        if i > 0 { pending.append(.text(", ")) }
                    }
                }
            }
        }
        return out
    }

    /// Ends a ``description`` cut short because shared sub-trees repeat too often.
    static let elidedMarker =
        "...<elided: shared sub-trees repeat beyond the limit of \(PropertyListExpansionBudget.limitDescription)>"
}

// MARK: - Freeing deep values

extension PropertyListValue {
    /// Frees `value`: kept for compatibility, since dropping the last reference is now enough at any depth.
    ///
    /// Swift frees a nested enum of arrays recursively, one call per level, which would exhaust an 8 MiB stack
    /// about 40,000 levels down. The containers' storage (``PropertyListArray``, ``PropertyListDictionary``)
    /// frees its elements through a per-thread worklist instead, so every value, however deep, is freed with
    /// a constant amount of stack wherever its last reference goes; this function only drops `value`.
    /// - Parameter value: the value to free.
    public static func dismantle(_ value: consuming PropertyListValue) {
        _ = consume value
    }

    /// Empties `pending` (its values are freed without recursion, as any value is).
    static func dismantle(all pending: inout [PropertyListValue]) {
        pending = []
    }
}
