#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
///
/// ## Conforming types
/// The decoder ``KeyedUnarchiver`` passes to `init(from:)` is the one full implementation. A few readers
/// need what this protocol does not expose (an object's stored keys, the kind of a stored value before it
/// is read, the unarchiver's registry and stack), so they work only with that decoder:
/// - an ``ArchivableCodable`` model's unkeyed and dictionary containers (`[T]`, `[K: V]` properties) throw
///   `DecodingError.typeMismatch`, and its `allKeys` is empty;
/// - NSValue's Objective-C-type layout (``ArchivedSpecialValue``) throws ``KeyedArchiveError/Code/dataCorrupted``;
/// - a nested object's class is checked against the type's own names only (no registry, no module moves);
/// - a ``BackReference`` is delivered through ``decodeObjectReference(of:forKey:assign:)`` as a hand-written
///   model's is.
/// Another conforming type (a test double, a wrapper) serves hand-written ``KeyedArchivable`` models fully.
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
    ///
    /// A member repeated in the archive is one member. Two strings that NSSet keeps apart (their UTF-16
    /// units differ) but Swift's `String` `==` merges (canonically equivalent, as "\u{E9}" and
    /// "e\u{301}") cannot both be members of a `Set<String>`: the read throws
    /// ``KeyedArchiveError/Code/equivalentKeys`` naming both; read a ``FoundationValue`` to keep both.
    /// The corresponding Foundation API is `NSCoder.decodeObject(of:forKey:)` with NSSet.
    func decodeSet<T: ArchiveValue & Hashable>(of type: T.Type, forKey key: String) throws -> Set<T>
    /// Reads a dictionary (NSDictionary or NSMutableDictionary) with keys `K` and values `V`.
    ///
    /// A key repeated in the archive keeps its last value. Two string keys that NSDictionary keeps apart
    /// but Swift's `String` `==` merges (see ``decodeSet(of:forKey:)``) throw
    /// ``KeyedArchiveError/Code/equivalentKeys`` naming both, never one key with the other's value.
    /// The corresponding Foundation API is `NSCoder.decodeObject(of:forKey:)` with NSDictionary.
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
    /// throws ``KeyedArchiveError/Code/typeMismatch``. String keys that only canonical equivalence makes
    /// equal throw ``KeyedArchiveError/Code/equivalentKeys``, as in
    /// ``decodeDictionary(keyType:valueType:forKey:)``.
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
