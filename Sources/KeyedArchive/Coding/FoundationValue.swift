#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Any plain Foundation value: what `NSKeyedUnarchiver` returns for the Foundation value classes, as a
/// Swift enum. Use it to read heterogeneous collections (`[1, "a", NSNull()]`) and archives whose shape is
/// not known in advance, still securely: only the catalogue's classes can appear, never a model type.
///
/// The property-list kinds are cases of their own. Every other class of the package's catalogue (NSValue,
/// NSIndexSet, NSAttributedString, NSColor, ...) is the one case ``catalogued(_:)``, holding its value type
/// (a ``CataloguedValue``): an NSArray mixing strings, attributed strings and index sets reads as
/// `[FoundationValue]`, and an attributed string's attributes (`[String: FoundationValue]`) can hold colors
/// and fonts. A class added to the catalogue later becomes a ``catalogued(_:)`` value too, so a `switch`
/// over the cases keeps compiling.
///
/// | Case | Read from | Written as |
/// |---|---|---|
/// | ``null`` | NSNull | NSNull |
/// | ``bool(_:)``, ``integer(_:)-swift.enum.case``, ``real(_:)`` | NSNumber (inline) | NSNumber (inline) |
/// | ``string(_:)-swift.enum.case`` | NSString, NSMutableString | NSString (inline) |
/// | ``data(_:)-swift.enum.case`` | NSData, NSMutableData | NSData (inline) |
/// | ``date(_:)-swift.enum.case``, ``uuid(_:)-swift.enum.case``, ``url(_:)-swift.enum.case`` | NSDate, NSUUID, NSURL | the same |
/// | ``array(_:)-swift.enum.case`` | NSArray, NSMutableArray | NSArray |
/// | ``orderedSet(_:)-swift.enum.case`` | NSOrderedSet, NSMutableOrderedSet | NSOrderedSet |
/// | ``set(_:)-swift.enum.case`` | NSSet, NSMutableSet (elements in stored order) | NSSet |
/// | ``dictionary(_:)-swift.enum.case`` | NSDictionary, NSMutableDictionary | NSDictionary |
/// | ``catalogued(_:)`` | any other catalogued class: NSValue (``ArchivedSpecialValue``), NSIndexSet (``ArchivedIndexSet``), NSIndexPath (``ArchivedIndexPath``), NSCountedSet (``ArchivedCountedSet``), NSMeasurement (``ArchivedMeasurement``), NSTimeZone (``ArchivedTimeZone``), NSLocale (``ArchivedLocale``), NSISO8601DateFormatter (``ArchivedISO8601DateFormatter``), NSAttributedString (``ArchivedAttributedString``), NSColor (``ArchivedColor``), NSFont (``ArchivedFont``) | the value type's class |
///
/// Each catalogued type the package ships has a constructor and an accessor named for its kind
/// (``color(_:)`` and ``color``, ``attributedString(_:)`` and ``attributedString``, ...); any catalogued
/// type is reached with ``catalogued(as:)``. Navigation: ``subscript(_:)-(String)`` by key,
/// ``subscript(_:)-(Int)`` by index and the typed accessors (``string-swift.property``, ``int``, ...), so
/// `value["items"]?[3]?["name"]?.string` reads a nested value without patterns.
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
    /// A value of any other class of the package's catalogue, as its value type (``ArchivedColor``,
    /// ``ArchivedIndexSet``, ...; the table above lists them). Match one type with
    /// `case .catalogued(let color as ArchivedColor)`, or read it with ``catalogued(as:)`` or its accessor
    /// (``color``).
    case catalogued(any CataloguedValue)

    /// The value of a catalogued value type (``ArchivedIndexSet``, ``ArchivedColor``, ...) as
    /// ``catalogued(_:)``; nil for a type that is not a ``CataloguedValue``.
    public init?(cataloguedValue value: any KeyedArchivable) {
        guard let catalogued = value as? any CataloguedValue else { return nil }
        self = .catalogued(catalogued)
    }

    /// The payload of ``catalogued(_:)``; nil for the property-list kinds and collections.
    @inlinable
    public var cataloguedValue: (any CataloguedValue)? {
        if case .catalogued(let value) = self { return value }
        return nil
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
        case .catalogued(let v): try encoder.encodeObject(v, forKey: key)
        }
    }

    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> FoundationValue {
        try decoder.decodeFoundationValue(forKey: key)
    }
}
