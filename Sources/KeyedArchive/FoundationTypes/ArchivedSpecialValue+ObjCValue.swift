#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ArchivedSpecialValue {
    /// An NSValue of an Objective-C number type or C array of numbers, as `NSValue(bytes:objCType:)` makes
    /// one: its type encoding (`"i"`, `"d"`, `"[3i]"`) and its numbers.
    ///
    /// Apple writes such a value without `NS.special`: `$0` refers to the type encoding string, and `$1` holds
    /// the value: a number, inline, for a number type; for an array type a reference to an
    /// `_NSKeyedCoderOldStyleArray` object whose `NS.count`, `NS.size` (bytes per element) and `NS.type` (the
    /// element's type character, as a number) describe the elements stored inline under `$0` ... `$<count-1>`.
    /// Evidence: Apple's NSKeyedUnarchiver-ConcreteValueTest.plist fixture (`[3i]` holding 1, 2, 3), and
    /// swift-corelibs-foundation, which writes the same layout and reads that fixture.
    ///
    /// Number types: `c` `s` `i` `l` `q` (signed, 1, 2, 4, 4 and 8 bytes), `C` `S` `I` `L` `Q` (unsigned),
    /// `f` `d` (4- and 8-byte reals) and `B` (a C99 `bool`). Any other type (structs, pointers, objects,
    /// nested arrays) is rejected with ``KeyedArchiveError/Code/dataCorrupted``, as is an element that is not
    /// a number of the type or does not fit it, a count, size or type that disagrees with the encoding, or a
    /// missing or extra element. Reading never allocates more than the elements actually stored.
    ///
    /// Such values are read only: writing one throws ``KeyedArchiveError/Code/invalidValue`` (the reserved
    /// keys `$0` and `$1` cannot be written through ``ArchiveEncoder``, which escapes `$` keys).
    ///
    /// The corresponding Foundation API is `NSValue(bytes:objCType:)` and `NSValue.objCType`.
    public struct ObjCValue: Hashable, Sendable, Codable {
        /// The Objective-C type encoding, as `NSValue.objCType` gives it: `"i"`, `"d"`, `"[3i]"`.
        public var typeEncoding: String
        /// The numbers: one for a number type, the array's elements, in order, for an array type.
        public var elements: [Number]

        /// One number of an ``ObjCValue``, of the kind its type character gives.
        public enum Number: Hashable, Sendable, Codable {
            /// A signed integer (`c`, `s`, `i`, `l`, `q`).
            case integer(Int64)
            /// An unsigned integer (`C`, `S`, `I`, `L`, `Q`).
            case unsignedInteger(UInt64)
            /// A real (`f`, `d`).
            case real(Double)
            /// A C99 `bool` (`B`).
            case bool(Bool)

            private enum CodingKeys: String, CodingKey { case integer, unsignedInteger, real, bool }

            /// Writes `{"integer": 1}`, `{"real": 2.5}`, ...
            public func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                switch self {
                case .integer(let v): try c.encode(v, forKey: .integer)
                case .unsignedInteger(let v): try c.encode(v, forKey: .unsignedInteger)
                case .real(let v): try c.encode(v, forKey: .real)
                case .bool(let v): try c.encode(v, forKey: .bool)
                }
            }

            /// Reads what ``encode(to:)`` writes.
            /// - Throws: `DecodingError` unless there is exactly one of the four keys.
            public init(from decoder: any Decoder) throws {
                let c = try decoder.container(keyedBy: CodingKeys.self)
                guard let key = c.allKeys.first, c.allKeys.count == 1 else {
                    throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                            debugDescription: "expected one of integer, unsignedInteger, real, bool"))
                }
                switch key {
                case .integer: self = .integer(try c.decode(Int64.self, forKey: key))
                case .unsignedInteger: self = .unsignedInteger(try c.decode(UInt64.self, forKey: key))
                case .real: self = .real(try c.decode(Double.self, forKey: key))
                case .bool: self = .bool(try c.decode(Bool.self, forKey: key))
                }
            }
        }

        /// A value of `typeEncoding` holding `elements` (not checked against each other).
        public init(typeEncoding: String, elements: [Number]) {
            self.typeEncoding = typeEncoding
            self.elements = elements
        }
    }
}

// MARK: - Reading

/// A number type of the Objective-C type encoding: its character, size and the numbers it admits.
struct ObjCNumberType {
    let character: UInt8
    let size: Int
    private let kind: Kind

    private enum Kind {
        case signed(ClosedRange<Int64>)
        case unsigned(UInt64)
        case real
        case bool
    }

    /// The type character, quoted: `'i'`.
    var name: String { "'\(Character(Unicode.Scalar(character)))'" }

    /// The number type `character` names, or nil for any other type character.
    init?(_ character: UInt8) {
        self.character = character
        switch character {
        case UInt8(ascii: "c"): (size, kind) = (1, .signed(Int64(Int8.min) ... Int64(Int8.max)))
        case UInt8(ascii: "s"): (size, kind) = (2, .signed(Int64(Int16.min) ... Int64(Int16.max)))
        case UInt8(ascii: "i"), UInt8(ascii: "l"): (size, kind) = (4, .signed(Int64(Int32.min) ... Int64(Int32.max)))
        case UInt8(ascii: "q"): (size, kind) = (8, .signed(Int64.min ... Int64.max))
        case UInt8(ascii: "C"): (size, kind) = (1, .unsigned(UInt64(UInt8.max)))
        case UInt8(ascii: "S"): (size, kind) = (2, .unsigned(UInt64(UInt16.max)))
        case UInt8(ascii: "I"), UInt8(ascii: "L"): (size, kind) = (4, .unsigned(UInt64(UInt32.max)))
        case UInt8(ascii: "Q"): (size, kind) = (8, .unsigned(UInt64.max))
        case UInt8(ascii: "f"): (size, kind) = (4, .real)
        case UInt8(ascii: "d"): (size, kind) = (8, .real)
        case UInt8(ascii: "B"): (size, kind) = (1, .bool)
        default: return nil
        }
    }

    /// `value` as a number of this type, or nil when it is not one (or does not fit).
    func number(_ value: PropertyListValue) -> ArchivedSpecialValue.ObjCValue.Number? {
        switch (kind, value) {
        case (.signed(let range), .integer(let i)):
            guard let v = i.int64Value, range.contains(v) else { return nil }
            return .integer(v)
        case (.unsigned(let maximum), .integer(let i)):
            guard let v = i.uint64Value, v <= maximum else { return nil }
            return .unsignedInteger(v)
        case (.real, .real(let d)): return .real(d)
        case (.real, .float(let f)): return .real(Double(f))
        case (.bool, .bool(let b)): return .bool(b)
        default: return nil
        }
    }
}

/// A parsed type encoding: a number type, or a C array `[<count><number type>]`.
struct ObjCValueType {
    let element: ObjCNumberType
    /// The array's count; nil for a plain number.
    let count: Int?

    /// The longest type encoding read.
    static let maximumLength = 32

    /// The type `encoding` describes, or nil when it is not a number type or an array of one.
    init?(_ encoding: String) {
        let bytes = Array(encoding.utf8.prefix(Self.maximumLength + 1))
        guard bytes.count <= Self.maximumLength, let last = bytes.last else { return nil }
        if bytes.count == 1 {
            guard let element = ObjCNumberType(last) else { return nil }
            (self.element, count) = (element, nil)
            return
        }
        // "[" digits type "]": at most 9 digits, no leading zero.
        guard bytes.count >= 4, bytes.count <= 12, bytes[0] == UInt8(ascii: "["), last == UInt8(ascii: "]"),
              let element = ObjCNumberType(bytes[bytes.count - 2]) else { return nil }
        let digits = bytes[1 ..< bytes.count - 2]
        guard digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              digits.first != UInt8(ascii: "0") || digits.count == 1 else { return nil }
        (self.element, count) = (element, digits.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) })
    }
}

/// An `_NSKeyedCoderOldStyleArray`: the elements of a C array that `encodeArray(ofObjCType:count:at:)` wrote,
/// read by what its own `NS.type`, `NS.size` and `NS.count` say; the NSValue holding it checks them against
/// its type encoding.
struct OldStyleArrayObject: KeyedArchivable {
    static var archivedClassName: String { "_NSKeyedCoderOldStyleArray" }

    let type: ObjCNumberType
    let elements: [ArchivedSpecialValue.ObjCValue.Number]

    init(from decoder: any ArchiveDecoder) throws {
        let className = Self.archivedClassName
        guard let reader = decoder.objectReading else {
            throw foundationTypeError(decoder, className: className, key: "$0", "read only by KeyedUnarchiver")
        }
        let typeCode = try decoder.decode(Int.self, forKey: "NS.type")
        guard let code = UInt8(exactly: typeCode), let type = ObjCNumberType(code) else {
            throw foundationTypeError(decoder, className: className, key: "NS.type",
                                      "\(typeCode) is not a number type character (c C s S i I l L q Q f d B)")
        }
        let size = try decoder.decode(Int.self, forKey: "NS.size")
        guard size == type.size else {
            throw foundationTypeError(decoder, className: className, key: "NS.size",
                                      "\(size) bytes per element, where type \(type.name) has \(type.size)")
        }
        let count = try decoder.decode(Int.self, forKey: "NS.count")
        guard count >= 0 else {
            throw foundationTypeError(decoder, className: className, key: "NS.count", "negative count \(count)")
        }
        // Read one by one: a count larger than the elements stored fails at the first missing one, having
        // allocated only for what is there.
        var elements: [ArchivedSpecialValue.ObjCValue.Number] = []
        elements.reserveCapacity(min(count, foundationTypeReserveCap))
        for i in 0 ..< count {
            elements.append(try Self.number(reader, key: "$\(i)", type: type, className: className))
        }
        guard try !reader.hasValue(reservedKey: "$\(count)") else {
            throw foundationTypeError(decoder, className: className, key: "$\(count)", "an element beyond NS.count \(count)")
        }
        self.type = type
        self.elements = elements
    }

    /// The number under the reserved key `key`, of `type`.
    static func number(_ reader: any ArchiveObjectReading, key: String, type: ObjCNumberType, className: String) throws
        -> ArchivedSpecialValue.ObjCValue.Number
    {
        guard let value = try reader.scalarValue(reservedKey: key, expected: "a number of type \(type.name)") else {
            throw foundationTypeError(reader, className: className, key: key, "absent", code: .keyNotFound)
        }
        guard let number = type.number(value) else {
            throw foundationTypeError(reader, className: className, key: key,
                                      "\(value.kindName) \(String(describing: value).prefix(40)) is not a number of type \(type.name)",
                                      code: .typeMismatch)
        }
        return number
    }

    func encode(to encoder: any ArchiveEncoder) throws {
        throw KeyedArchiveError(.invalidValue, "\(Self.archivedClassName) is read only", className: Self.archivedClassName)
    }
}

extension ArchivedSpecialValue.ObjCValue {
    /// Reads the `$0` / `$1` layout of an NSValue (see ``ArchivedSpecialValue/ObjCValue``).
    init(reading decoder: any ArchiveDecoder) throws {
        let className = ArchivedSpecialValue.archivedClassName
        guard let reader = decoder.objectReading else {
            throw foundationTypeError(decoder, className: className, key: "$0", "the Objective-C-type layout is read only by KeyedUnarchiver")
        }
        guard let stored = try reader.scalarValue(reservedKey: "$0", expected: "a type encoding string") else {
            throw foundationTypeError(decoder, className: className, key: "$0", "absent: expected a type encoding string", code: .keyNotFound)
        }
        guard case .string(let encoding) = stored else {
            throw foundationTypeError(decoder, className: className, key: "$0",
                                      "expected a type encoding string, found \(stored.kindName) \(String(describing: stored).prefix(40))",
                                      code: .typeMismatch)
        }
        guard let type = ObjCValueType(encoding) else {
            throw foundationTypeError(decoder, className: className, key: "$0",
                                      "unsupported Objective-C type \"\(encoding.prefix(40))\": only numbers (c C s S i I l L q Q f d B) "
                                        + "and C arrays of them ([3i]) are read")
        }
        typeEncoding = encoding
        if type.count == nil {
            elements = [try OldStyleArrayObject.number(reader, key: "$1", type: type.element, className: className)]
        } else {
            let array = try reader.object(of: OldStyleArrayObject.self, reservedKey: "$1")
            guard array.type.character == type.element.character, array.elements.count == type.count else {
                throw foundationTypeError(decoder, className: className, key: "$1",
                                          "_NSKeyedCoderOldStyleArray of \(array.elements.count) \(array.type.name), where the type "
                                            + "\"\(encoding)\" says \(type.count ?? 0) \(type.element.name)")
            }
            elements = array.elements
        }
    }
}
