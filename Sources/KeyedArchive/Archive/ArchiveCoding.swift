#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// MARK: - The model protocol

/// A type that can be written to and read from a keyed archive, field by field, as an object with a class.
///
/// Classes and structs both adopt it. The corresponding Foundation protocol is `NSSecureCoding`:
/// ``init(from:)`` plays `init?(coder:)` and ``encode(to:)`` plays `encode(with:)`.
///
/// ```swift
/// final class Note: KeyedArchivable {
///     var title: String
///     var tags: [String]
///     init(from decoder: any ArchiveDecoder) throws {
///         title = try decoder.decode(String.self, forKey: "title")
///         tags = try decoder.decode([String].self, forKey: "tags")
///     }
///     func encode(to encoder: any ArchiveEncoder) throws {
///         try encoder.encode(title, forKey: "title")
///         try encoder.encode(tags, forKey: "tags")
///     }
/// }
/// ```
///
/// The archive stores the object as a dictionary of its fields plus a `$class` reference to
/// `{"$classname": archivedClassName, "$classes": archivedClassChain}`.
///
/// Class hierarchies: declare the static properties as `class var` in the base class so that subclasses
/// can override them; the archiver asks the dynamic type of each instance.
public protocol KeyedArchivable: ArchiveValue {
    /// The name written as `$classname`. Default: `"Module.TypeName"`, as Foundation names Swift classes
    /// (`String(reflecting:)` of the type). Override to match an Objective-C or older Swift name.
    static var archivedClassName: String { get }
    /// The `$classes` chain: the class and its superclasses. Default: `[archivedClassName, "NSObject"]`.
    /// Only written, never trusted when reading.
    static var archivedClassChain: [String] { get }
    /// Other `$classname`s this type is read from (renamed or moved types). Default: none.
    static var legacyClassNames: [String] { get }

    /// Creates an instance from the fields of one archived object.
    ///
    /// Throw (any error; ``KeyedArchiveError`` with ``KeyedArchiveError/Code/dataCorrupted`` is usual)
    /// when the fields make no sense; the unarchiver then fails as a whole.
    init(from decoder: any ArchiveDecoder) throws
    /// Writes this instance's fields.
    func encode(to encoder: any ArchiveEncoder) throws
}

extension KeyedArchivable {
    public static var archivedClassName: String { String(reflecting: Self.self) }
    public static var archivedClassChain: [String] { [archivedClassName, "NSObject"] }
    public static var legacyClassNames: [String] { [] }

    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws {
        try encoder.encodeObject(self, forKey: key)
    }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Self {
        try decoder.decodeObject(of: Self.self, forKey: key)
    }
}

// MARK: - Values

/// A value that can be stored under a key or as an element of an archived array, set or dictionary:
/// `Bool`, every integer type, `Float`, `Double`, `String`, `Data`, `Date`, `UUID`, `URL`,
/// ``ArchiveNull``, optionals, arrays, sets and dictionaries of values, and every ``KeyedArchivable`` type.
///
/// A conforming type encodes itself by calling exactly **one** typed method of the encoder with the
/// given key, and decodes itself with the matching typed method of the decoder. Coders implement
/// collection elements this way too: to encode an element they call `element.encode(to:forKey:)` with a
/// key of their choosing and capture what that one call wrote.
public protocol ArchiveValue {
    /// Writes this value under `key` with exactly one call of a typed `encoder` method.
    func encode(to encoder: any ArchiveEncoder, forKey key: String) throws
    /// Reads a value of this type stored under `key`.
    static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Self
}

// MARK: - The encoding half

/// The encoding half of the coder protocol pair: what a ``KeyedArchivable`` type writes its fields to.
///
/// The corresponding Foundation class is `NSCoder` (keyed methods only). ``KeyedArchiver`` is the
/// implementation that writes Apple's format; tests may provide others. Keys beginning with `$` are
/// allowed (the archiver escapes them). Encoding the same key twice keeps the last value.
///
/// Use the generic ``encode(_:forKey:)-(T,_)`` for everything; the requirements below are the small set of
/// typed primitives an implementation provides.
public protocol ArchiveEncoder: AnyObject {
    /// Writes a Boolean (inline in the object, as `encodeBool(_:forKey:)` does).
    func encode(_ value: Bool, forKey key: String) throws
    /// Writes an integer of any width (inline, as `encodeInt64(_:forKey:)` does).
    func encodeInteger<T: FixedWidthInteger>(_ value: T, forKey key: String) throws
    /// Writes a `Float` (inline, as a 4-byte real).
    func encode(_ value: Float, forKey key: String) throws
    /// Writes a `Double` (inline).
    func encode(_ value: Double, forKey key: String) throws
    /// Writes a string (as an NSString object).
    func encode(_ value: String, forKey key: String) throws
    /// Writes bytes (as an NSData object).
    func encode(_ value: Data, forKey key: String) throws
    /// Writes a date (as an NSDate object).
    func encode(_ value: Date, forKey key: String) throws
    /// Writes a UUID (as an NSUUID object).
    func encode(_ value: UUID, forKey key: String) throws
    /// Writes a URL (as an NSURL object).
    func encode(_ value: URL, forKey key: String) throws
    /// Writes nil (`$null`).
    func encodeNil(forKey key: String) throws
    /// Writes an integer as its own NSNumber object in `$objects`, referenced by UID, instead of inline.
    ///
    /// Apple stores some members this way (NSValue's `NS.rangeval.location`). Decoding is the same as for
    /// an inline integer: ``ArchiveDecoder/decodeInteger(_:forKey:)`` follows the UID. The default
    /// implementation writes the integer inline, for encoders that have no object table.
    func encodeIntegerObject<T: FixedWidthInteger>(_ value: T, forKey key: String) throws
    /// Writes a `Double` as its own NSNumber object in `$objects`, referenced by UID, instead of inline.
    /// The default implementation writes it inline.
    func encodeRealObject(_ value: Double, forKey key: String) throws
    /// Writes a Boolean as its own NSNumber object in `$objects`, referenced by UID, instead of inline (as
    /// Apple's `encode(NSNumber(value: true), forKey:)` stores it). The default implementation writes it inline.
    func encodeBoolObject(_ value: Bool, forKey key: String) throws
    /// Writes a string inline in the object's own dictionary instead of as a separate NSString in
    /// `$objects` (Apple stores NSMutableString's `NS.string` member this way). Decoding is the same as for
    /// any string. The default implementation writes an NSString object.
    func encodeInline(_ value: String, forKey key: String) throws
    /// Writes bytes inline in the object's own dictionary instead of as a separate NSData in `$objects`
    /// (Apple stores NSMutableData's `NS.data` member this way). The default implementation writes an NSData object.
    func encodeInline(_ value: Data, forKey key: String) throws
    /// Writes a reference to an object. A class instance encoded several times is stored once.
    func encodeObject<T: KeyedArchivable>(_ object: T, forKey key: String) throws
    /// Writes a reference to `object` only if some other place encodes it unconditionally; otherwise nil.
    ///
    /// The corresponding Foundation API is `NSCoder.encodeConditionalObject(_:forKey:)`.
    func encodeConditionalObject<T: KeyedArchivable & AnyObject>(_ object: T?, forKey key: String) throws
    /// Writes an array (as an NSArray).
    func encodeArray<T: ArchiveValue>(_ elements: [T], forKey key: String) throws
    /// Writes a set (as an NSSet).
    func encodeSet<T: ArchiveValue & Hashable>(_ elements: Set<T>, forKey key: String) throws
    /// Writes a dictionary (as an NSDictionary).
    func encodeDictionary<K: ArchiveValue & Hashable, V: ArchiveValue>(_ dictionary: [K: V], forKey key: String) throws
    /// Writes elements in order as an ordered set (an NSOrderedSet). The default implementation writes
    /// an array, for encoders that have no ordered-set form.
    func encodeOrderedSet<T: ArchiveValue>(_ elements: [T], forKey key: String) throws
    /// Writes the distinct elements of `elements` as a set (an NSSet), in the order given (the first of
    /// equal elements is kept), so that the same elements always give the same bytes; a `Set`'s own
    /// order can differ between two equal sets. The default implementation writes `Set(elements)`.
    func encodeSet<T: ArchiveValue & Hashable>(orderedElements elements: [T], forKey key: String) throws
}

extension ArchiveEncoder {
    public func encodeIntegerObject<T: FixedWidthInteger>(_ value: T, forKey key: String) throws {
        try encodeInteger(value, forKey: key)
    }

    public func encodeRealObject(_ value: Double, forKey key: String) throws {
        try encode(value, forKey: key)
    }

    public func encodeBoolObject(_ value: Bool, forKey key: String) throws {
        try encode(value, forKey: key)
    }

    public func encodeInline(_ value: String, forKey key: String) throws {
        try encode(value, forKey: key)
    }

    public func encodeInline(_ value: Data, forKey key: String) throws {
        try encode(value, forKey: key)
    }

    public func encodeOrderedSet<T: ArchiveValue>(_ elements: [T], forKey key: String) throws {
        try encodeArray(elements, forKey: key)
    }

    public func encodeSet<T: ArchiveValue & Hashable>(orderedElements elements: [T], forKey key: String) throws {
        try encodeSet(Set(elements), forKey: key)
    }

    /// Writes any ``ArchiveValue`` under `key`: scalars, strings, models, optionals and collections.
    ///
    /// The corresponding Foundation API is `NSCoder.encode(_:forKey:)`.
    @inlinable
    public func encode<T: ArchiveValue>(_ value: T, forKey key: String) throws {
        try value.encode(to: self, forKey: key)
    }
}

// MARK: - The decoding half

/// The decoding half of the coder protocol pair: what a ``KeyedArchivable`` type reads its fields from.
///
/// The corresponding Foundation class is `NSCoder` with `requiresSecureCoding` on. Decoding is typed and
/// throws a ``KeyedArchiveError``:
/// - ``KeyedArchiveError/Code/keyNotFound`` when the key is absent;
/// - ``KeyedArchiveError/Code/valueNotFound`` when the value is nil (`$null`) and the type is not optional;
/// - ``KeyedArchiveError/Code/typeMismatch`` when the value has another type;
/// - ``KeyedArchiveError/Code/classNotAllowed`` when an object's class is not one the call allows;
/// - ``KeyedArchiveError/Code/numberOutOfRange`` when a number does not fit (`Int8` from 300).
///
/// Numbers follow Foundation's `NSNumber` where that is unambiguous: a `Bool` can be read from an integer
/// (0 is false, anything else true) and an integer from a Boolean (1 or 0); `Double`/`Float` can be read
/// from an integer; an integer can be read from a real only when the real is integral and in range
/// (Foundation truncates silently; this decoder throws ``KeyedArchiveError/Code/typeMismatch``).
///
/// Use the generic ``decode(_:forKey:)->T`` and ``decodeIfPresent(_:forKey:)`` for everything.
public protocol ArchiveDecoder: AnyObject {
    /// The key path from the root to the object being decoded (`root.children[2]`), for error messages.
    var keyPath: String { get }
    /// Whether a value (possibly nil) is stored under `key`.
    ///
    /// The corresponding Foundation API is `NSCoder.containsValue(forKey:)`.
    func containsValue(forKey key: String) -> Bool
    /// Whether the value under `key` is absent or nil (`$null`).
    func decodeNil(forKey key: String) throws -> Bool
    /// Reads a Boolean.
    func decode(_ type: Bool.Type, forKey key: String) throws -> Bool
    /// Reads an integer of any width; throws `numberOutOfRange` when the stored number does not fit.
    func decodeInteger<T: FixedWidthInteger>(_ type: T.Type, forKey key: String) throws -> T
    /// Reads a `Float` (a stored `Double` is rounded, as Foundation does).
    func decode(_ type: Float.Type, forKey key: String) throws -> Float
    /// Reads a `Double`.
    func decode(_ type: Double.Type, forKey key: String) throws -> Double
    /// Reads a string (inline, NSString or NSMutableString).
    func decode(_ type: String.Type, forKey key: String) throws -> String
    /// Reads bytes (inline, NSData or NSMutableData).
    func decode(_ type: Data.Type, forKey key: String) throws -> Data
    /// Reads a date (NSDate).
    func decode(_ type: Date.Type, forKey key: String) throws -> Date
    /// Reads a UUID (NSUUID).
    func decode(_ type: UUID.Type, forKey key: String) throws -> UUID
    /// Reads a URL (NSURL, with its base).
    func decode(_ type: URL.Type, forKey key: String) throws -> URL
    /// Reads an object that must be of type `T` (by its archived name, legacy names, or a name the
    /// unarchiver's registry maps to `T` or a subclass of `T`).
    ///
    /// The corresponding Foundation API is `NSCoder.decodeObject(of:forKey:)`.
    func decodeObject<T: KeyedArchivable>(of type: T.Type, forKey key: String) throws -> T
    /// Reads an object that may be of any of `types`.
    ///
    /// The corresponding Foundation API is `NSCoder.decodeObject(of:forKey:)` with several classes.
    func decodeObject(ofTypes types: [any KeyedArchivable.Type], forKey key: String) throws -> any KeyedArchivable
    /// Reads an array (NSArray, NSMutableArray or NSOrderedSet) whose elements must be `T`.
    func decodeArray<T: ArchiveValue>(of type: T.Type, forKey key: String) throws -> [T]
    /// Reads a set (NSSet, NSMutableSet or NSOrderedSet) whose elements must be `T`.
    func decodeSet<T: ArchiveValue & Hashable>(of type: T.Type, forKey key: String) throws -> Set<T>
    /// Reads a dictionary (NSDictionary or NSMutableDictionary) with keys `K` and values `V`.
    func decodeDictionary<K: ArchiveValue & Hashable, V: ArchiveValue>(
        keyType: K.Type, valueType: V.Type, forKey key: String) throws -> [K: V]
    /// Reads a reference to an object that may still be being decoded (a parent, a ring, itself), and
    /// hands it to `assign` once the whole graph is built.
    ///
    /// Swift cannot hand out an instance before its initializer finishes, so a back-reference cannot be
    /// returned directly. This is the opt-in: the unarchiver checks the class now (before anything is
    /// instantiated), decodes the object now if nobody has started it, and calls `assign` after the root
    /// and every object are fully initialized — never with a half-built object, and never if the
    /// unarchive fails. `assign` receives nil when the stored value is `$null` or the key is absent.
    ///
    /// ```swift
    /// try decoder.decodeObjectReference(of: Node.self, forKey: "parent") { [unowned self] in self.parent = $0 }
    /// ```
    /// A type that reads a back-reference with ``decodeObject(of:forKey:)`` instead gets a
    /// ``KeyedArchiveError/Code/cycle`` error naming the cycle.
    func decodeObjectReference<T: KeyedArchivable & AnyObject>(
        of type: T.Type, forKey key: String, assign: @escaping (T?) -> Void) throws
    /// Reads whatever plain Foundation value is stored under `key` (see ``FoundationValue``); any other
    /// class is ``KeyedArchiveError/Code/classNotAllowed``. The default implementation throws
    /// ``KeyedArchiveError/Code/typeMismatch`` (a decoder that cannot tell classes apart).
    func decodeFoundationValue(forKey key: String) throws -> FoundationValue

    // MARK: Heterogeneous values

    /// Reads the value under `key` as whichever of `types` its stored class calls for: one call for a
    /// field that may hold, say, a `String`, a model object or a number.
    ///
    /// The stored class (see ``storedClassName(forKey:)``) is matched against the allowed types *before*
    /// anything is decoded: ``KeyedArchivable`` types by their archived and legacy names (and names the
    /// unarchiver's registry maps to them or their subclasses), `String` by NSString/NSMutableString, `Data`
    /// by NSData/NSMutableData, `Date`, `UUID`, `URL` by NSDate/NSUUID/NSURL, arrays, sets and dictionaries
    /// by their collection classes, ``FoundationValue`` by any Foundation value class, and number types by
    /// NSNumber (the first listed type of the stored kind wins: `Bool` for a Boolean, an integer type for
    /// an integer, `Double`/`Float` for a real). The first matching type decodes the value, with its own
    /// checks (an array's elements must still be its element type). Nothing outside `types` is ever
    /// instantiated.
    ///
    /// ```swift
    /// let body = try decoder.decodeValue(ofAnyOf: [String.self, RichText.self], forKey: "body")
    /// switch body {
    /// case let text as String: ...
    /// case let rich as RichText: ...
    /// default: ...
    /// }
    /// ```
    ///
    /// The corresponding Foundation API is `NSCoder.decodeObject(of:forKey:)` with several classes
    /// (`[NSString.self, NSAttributedString.self]`).
    /// - Throws: ``KeyedArchiveError/Code/keyNotFound`` when the key is absent, ``KeyedArchiveError/Code/valueNotFound``
    ///   for nil, ``KeyedArchiveError/Code/classNotAllowed`` when no type of `types` may be read from the
    ///   stored class, or what the chosen type's decoding throws.
    func decodeValue(ofAnyOf types: [any ArchiveValue.Type], forKey key: String) throws -> any ArchiveValue
    /// The class stored under `key`, without decoding or instantiating anything: `"NSString"` for an
    /// inline string, `"NSNumber"` for a number or Boolean, `"NSData"` for inline data, the object's
    /// `$classname` otherwise (`"NSMutableString"`, `"NSArray"`, `"Note"`); nil when the key is absent or
    /// holds nil. In an array element's decoder (inside ``ArchiveValue/decode(from:forKey:)``) any key
    /// names the element. Use it to choose how to read a field whose class varies.
    ///
    /// The corresponding Foundation idiom is decoding with several classes and testing the result's
    /// class; this answers before anything is created. The default implementation returns nil.
    /// - Throws: ``KeyedArchiveError`` when the stored reference is damaged (out of range).
    func storedClassName(forKey key: String) throws -> String?
    /// Reads a number as it was stored: Boolean, integer, 4-byte or 8-byte real (see ``ArchivedNumber``).
    ///
    /// The corresponding Foundation API is `decodeObject(of: NSNumber.self, forKey:)` and `NSNumber.objCType`.
    /// The default implementation throws ``KeyedArchiveError/Code/typeMismatch``.
    /// - Throws: ``KeyedArchiveError/Code/typeMismatch`` when the value is not a number.
    func decodeNumber(forKey key: String) throws -> ArchivedNumber
    /// Reads an array (NSArray, NSMutableArray or NSOrderedSet) whose elements may each be any of `types`,
    /// each read as ``decodeValue(ofAnyOf:forKey:)`` reads one value (nothing outside `types` is
    /// instantiated). The corresponding Foundation API is `NSCoder.decodeArrayOfObjects(ofClasses:forKey:)`.
    /// The default implementation throws ``KeyedArchiveError/Code/typeMismatch``.
    func decodeArray(ofAnyOf types: [any ArchiveValue.Type], forKey key: String) throws -> [any ArchiveValue]
    /// Reads a dictionary (NSDictionary or NSMutableDictionary) whose keys are `K` and whose values may
    /// each be any of `types` (see ``decodeValue(ofAnyOf:forKey:)``). The corresponding Foundation API is
    /// `NSCoder.decodeDictionary(withKeysOfClasses:objectsOfClasses:forKey:)`. The default implementation
    /// throws ``KeyedArchiveError/Code/typeMismatch``.
    func decodeDictionary<K: ArchiveValue & Hashable>(keyType: K.Type, valuesOfAnyOf types: [any ArchiveValue.Type],
                                                      forKey key: String) throws -> [K: any ArchiveValue]
}

extension ArchiveDecoder {
    public func decodeFoundationValue(forKey key: String) throws -> FoundationValue {
        throw KeyedArchiveError(.typeMismatch, "this decoder cannot read untyped Foundation values", keyPath: key)
    }
}

extension ArchiveDecoder {
    /// Reads any ``ArchiveValue`` stored under `key`.
    ///
    /// The corresponding Foundation API is `NSCoder.decodeObject(of:forKey:)` and the typed
    /// `decodeBool(forKey:)`, `decodeInt64(forKey:)`, ... methods (which return 0 for a missing key; this throws).
    @inlinable
    public func decode<T: ArchiveValue>(_ type: T.Type, forKey key: String) throws -> T {
        try T.decode(from: self, forKey: key)
    }

    /// Reads a value stored under `key`, or nil when the key is absent or holds `$null`.
    @inlinable
    public func decodeIfPresent<T: ArchiveValue>(_ type: T.Type, forKey key: String) throws -> T? {
        if try decodeNil(forKey: key) { return nil }
        return try T.decode(from: self, forKey: key)
    }

    /// An error to throw from ``KeyedArchivable/init(from:)`` when a field's content makes no sense.
    public func dataCorruptedError(forKey key: String, _ message: String) -> KeyedArchiveError {
        KeyedArchiveError(.dataCorrupted, message, keyPath: keyPath.isEmpty ? key : keyPath + "." + key)
    }
}

// MARK: - Standard conformances

extension Bool: ArchiveValue {
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encoder.encode(self, forKey: key) }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Bool {
        try decoder.decode(Bool.self, forKey: key)
    }
}

/// Integers share one implementation: encoded inline, decoded with a range check.
public protocol _ArchiveInteger: FixedWidthInteger, ArchiveValue {}
extension _ArchiveInteger {
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encoder.encodeInteger(self, forKey: key) }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Self {
        try decoder.decodeInteger(Self.self, forKey: key)
    }
}
extension Int: _ArchiveInteger {}
extension Int8: _ArchiveInteger {}
extension Int16: _ArchiveInteger {}
extension Int32: _ArchiveInteger {}
extension Int64: _ArchiveInteger {}
extension UInt: _ArchiveInteger {}
extension UInt8: _ArchiveInteger {}
extension UInt16: _ArchiveInteger {}
extension UInt32: _ArchiveInteger {}
extension UInt64: _ArchiveInteger {}

extension Float: ArchiveValue {
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encoder.encode(self, forKey: key) }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Float {
        try decoder.decode(Float.self, forKey: key)
    }
}
extension Double: ArchiveValue {
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encoder.encode(self, forKey: key) }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Double {
        try decoder.decode(Double.self, forKey: key)
    }
}
extension String: ArchiveValue {
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encoder.encode(self, forKey: key) }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> String {
        try decoder.decode(String.self, forKey: key)
    }
}
extension Data: ArchiveValue {
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encoder.encode(self, forKey: key) }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Data {
        try decoder.decode(Data.self, forKey: key)
    }
}
extension Date: ArchiveValue {
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encoder.encode(self, forKey: key) }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Date {
        try decoder.decode(Date.self, forKey: key)
    }
}
extension UUID: ArchiveValue {
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encoder.encode(self, forKey: key) }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> UUID {
        try decoder.decode(UUID.self, forKey: key)
    }
}
extension URL: ArchiveValue {
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encoder.encode(self, forKey: key) }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> URL {
        try decoder.decode(URL.self, forKey: key)
    }
}

extension Optional: ArchiveValue where Wrapped: ArchiveValue {
    /// `nil` is written as `$null` (UID 0), as Foundation writes `encodeObject(nil, forKey:)`.
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws {
        switch self {
        case .none: try encoder.encodeNil(forKey: key)
        case .some(let wrapped): try wrapped.encode(to: encoder, forKey: key)
        }
    }
    /// An absent key or `$null` reads as nil.
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Wrapped? {
        if try decoder.decodeNil(forKey: key) { return nil }
        return try Wrapped.decode(from: decoder, forKey: key)
    }
}

extension Array: ArchiveValue where Element: ArchiveValue {
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encoder.encodeArray(self, forKey: key) }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> [Element] {
        try decoder.decodeArray(of: Element.self, forKey: key)
    }
}
extension Set: ArchiveValue where Element: ArchiveValue {
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encoder.encodeSet(self, forKey: key) }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Set<Element> {
        try decoder.decodeSet(of: Element.self, forKey: key)
    }
}
extension Dictionary: ArchiveValue where Key: ArchiveValue, Value: ArchiveValue {
    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws {
        try encoder.encodeDictionary(self, forKey: key)
    }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> [Key: Value] {
        try decoder.decodeDictionary(keyType: Key.self, valueType: Value.self, forKey: key)
    }
}

/// Foundation's `NSNull`: a placeholder object, archived as an `NSNull` instance with no fields.
public struct ArchiveNull: KeyedArchivable, Hashable, Sendable {
    public static var archivedClassName: String { "NSNull" }
    /// The null value.
    public init() {}
    public init(from decoder: any ArchiveDecoder) throws {}
    public func encode(to encoder: any ArchiveEncoder) throws {}
}

/// Any plain Foundation value: what `NSKeyedUnarchiver` returns for the Foundation value classes, as a
/// closed Swift enum. Use it to read heterogeneous collections (`[1, "a", NSNull()]`) and archives whose
/// shape is not known in advance, still securely: only these classes can appear, never a model type.
///
/// The classes of the package's catalogue that have a value type (NSValue, NSIndexSet, NSAttributedString,
/// NSColor, ...) are cases too, holding that type: an NSArray mixing strings, attributed strings and index
/// sets reads as `[FoundationValue]`, and an attributed string's attributes (`[String: FoundationValue]`)
/// can hold colors and fonts.
///
/// | Case | Read from | Written as |
/// |---|---|---|
/// | ``null`` | NSNull | NSNull |
/// | ``bool(_:)``, ``integer(_:)``, ``real(_:)`` | NSNumber (inline) | NSNumber (inline) |
/// | ``string(_:)`` | NSString, NSMutableString | NSString (inline) |
/// | ``data(_:)`` | NSData, NSMutableData | NSData (inline) |
/// | ``date(_:)``, ``uuid(_:)``, ``url(_:)`` | NSDate, NSUUID, NSURL | the same |
/// | ``array(_:)`` | NSArray, NSMutableArray | NSArray |
/// | ``orderedSet(_:)`` | NSOrderedSet, NSMutableOrderedSet | NSOrderedSet |
/// | ``set(_:)`` | NSSet, NSMutableSet (elements in stored order) | NSSet |
/// | ``dictionary(_:)`` | NSDictionary, NSMutableDictionary | NSDictionary |
/// | ``specialValue(_:)`` | NSValue (range, point, size, rect, edge insets) | NSValue (``ArchivedSpecialValue``) |
/// | ``indexSet(_:)`` | NSIndexSet, NSMutableIndexSet | NSIndexSet (``ArchivedIndexSet``) |
/// | ``indexPath(_:)`` | NSIndexPath | NSIndexPath (``ArchivedIndexPath``) |
/// | ``countedSet(_:)`` | NSCountedSet | NSCountedSet (``ArchivedCountedSet``) |
/// | ``measurement(_:)`` | NSMeasurement | NSMeasurement (``ArchivedMeasurement``) |
/// | ``timeZone(_:)`` | NSTimeZone | NSTimeZone (``ArchivedTimeZone``) |
/// | ``locale(_:)`` | NSLocale | NSLocale (``ArchivedLocale``) |
/// | ``attributedString(_:)`` | NSAttributedString, NSMutableAttributedString | NSAttributedString (``ArchivedAttributedString``) |
/// | ``color(_:)`` | NSColor | NSColor (``ArchivedColor``) |
/// | ``font(_:)`` | NSFont | NSFont (``ArchivedFont``) |
public indirect enum FoundationValue: Hashable, Sendable, ArchiveValue {
    case null
    case bool(Bool)
    case integer(PropertyListInteger)
    case real(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case uuid(UUID)
    case url(URL)
    /// An NSArray. ``array(_:)-swift.type.method`` builds one from a plain `[FoundationValue]`.
    case array(FoundationValueArray)
    /// An NSOrderedSet. ``orderedSet(_:)-swift.type.method`` builds one from a plain `[FoundationValue]`.
    case orderedSet(FoundationValueArray)
    /// An NSSet, elements in stored order. ``set(_:)-swift.type.method`` builds one from a plain array.
    case set(FoundationValueArray)
    /// An NSDictionary. ``dictionary(_:)-swift.type.method`` builds one from a plain Swift dictionary.
    case dictionary(FoundationValueDictionary)
    /// An NSValue holding a range, point, size, rect or edge insets.
    case specialValue(ArchivedSpecialValue)
    /// An NSIndexSet or NSMutableIndexSet.
    case indexSet(ArchivedIndexSet)
    /// An NSIndexPath.
    case indexPath(ArchivedIndexPath)
    /// An NSCountedSet.
    case countedSet(ArchivedCountedSet)
    /// An NSMeasurement.
    case measurement(ArchivedMeasurement)
    /// An NSTimeZone.
    case timeZone(ArchivedTimeZone)
    /// An NSLocale.
    case locale(ArchivedLocale)
    /// An NSAttributedString or NSMutableAttributedString.
    case attributedString(ArchivedAttributedString)
    /// An AppKit NSColor.
    case color(ArchivedColor)
    /// An AppKit NSFont.
    case font(ArchivedFont)

    /// The value of a catalogued value type (``ArchivedIndexSet``, ``ArchivedColor``, ...) as its case;
    /// nil for any other type.
    public init?(cataloguedValue value: any KeyedArchivable) {
        switch value {
        case let v as ArchivedSpecialValue: self = .specialValue(v)
        case let v as ArchivedIndexSet: self = .indexSet(v)
        case let v as ArchivedIndexPath: self = .indexPath(v)
        case let v as ArchivedCountedSet: self = .countedSet(v)
        case let v as ArchivedMeasurement: self = .measurement(v)
        case let v as ArchivedTimeZone: self = .timeZone(v)
        case let v as ArchivedLocale: self = .locale(v)
        case let v as ArchivedAttributedString: self = .attributedString(v)
        case let v as ArchivedColor: self = .color(v)
        case let v as ArchivedFont: self = .font(v)
        default: return nil
        }
    }

    /// The value-type payload of the catalogued-class cases (``indexSet(_:)``, ``color(_:)``, ...); nil
    /// for the plain values and collections.
    public var cataloguedValue: (any KeyedArchivable & Sendable)? {
        switch self {
        case .specialValue(let v): return v
        case .indexSet(let v): return v
        case .indexPath(let v): return v
        case .countedSet(let v): return v
        case .measurement(let v): return v
        case .timeZone(let v): return v
        case .locale(let v): return v
        case .attributedString(let v): return v
        case .color(let v): return v
        case .font(let v): return v
        case .null, .bool, .integer, .real, .string, .data, .date, .uuid, .url, .array, .orderedSet, .set, .dictionary:
            return nil
        }
    }

    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws {
        switch self {
        case .null: try encoder.encodeObject(ArchiveNull(), forKey: key)
        case .bool(let b): try encoder.encode(b, forKey: key)
        case .integer(let i):
            if let s = i.int64Value { try encoder.encodeInteger(s, forKey: key) } else { try encoder.encodeInteger(i.uint64Value ?? 0, forKey: key) }
        case .real(let d): try encoder.encode(d, forKey: key)
        case .string(let s): try encoder.encode(s, forKey: key)
        case .data(let d): try encoder.encode(d, forKey: key)
        case .date(let d): try encoder.encode(d, forKey: key)
        case .uuid(let u): try encoder.encode(u, forKey: key)
        case .url(let u): try encoder.encode(u, forKey: key)
        case .array(let a): try encoder.encodeArray(a.elements, forKey: key)
        case .orderedSet(let a): try encoder.encodeOrderedSet(a.elements, forKey: key)
        case .set(let a): try encoder.encodeSet(orderedElements: a.elements, forKey: key)
        case .dictionary(let d): try encoder.encodeDictionary(d.dictionary, forKey: key)
        case .specialValue(let v): try encoder.encodeObject(v, forKey: key)
        case .indexSet(let v): try encoder.encodeObject(v, forKey: key)
        case .indexPath(let v): try encoder.encodeObject(v, forKey: key)
        case .countedSet(let v): try encoder.encodeObject(v, forKey: key)
        case .measurement(let v): try encoder.encodeObject(v, forKey: key)
        case .timeZone(let v): try encoder.encodeObject(v, forKey: key)
        case .locale(let v): try encoder.encodeObject(v, forKey: key)
        case .attributedString(let v): try encoder.encodeObject(v, forKey: key)
        case .color(let v): try encoder.encodeObject(v, forKey: key)
        case .font(let v): try encoder.encodeObject(v, forKey: key)
        }
    }

    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> FoundationValue {
        try decoder.decodeFoundationValue(forKey: key)
    }
}
