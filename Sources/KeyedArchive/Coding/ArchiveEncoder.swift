#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
