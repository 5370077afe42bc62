#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

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
/// | ``array(_:)-swift.enum.case`` | NSArray, NSMutableArray | NSArray |
/// | ``orderedSet(_:)-swift.enum.case`` | NSOrderedSet, NSMutableOrderedSet | NSOrderedSet |
/// | ``set(_:)-swift.enum.case`` | NSSet, NSMutableSet (elements in stored order) | NSSet |
/// | ``dictionary(_:)-swift.enum.case`` | NSDictionary, NSMutableDictionary | NSDictionary |
/// | ``specialValue(_:)`` | NSValue (range, point, size, rect, edge insets; numbers and C arrays of numbers of an Objective-C type, read only) | NSValue (``ArchivedSpecialValue``) |
/// | ``indexSet(_:)`` | NSIndexSet, NSMutableIndexSet | NSIndexSet (``ArchivedIndexSet``) |
/// | ``indexPath(_:)`` | NSIndexPath | NSIndexPath (``ArchivedIndexPath``) |
/// | ``countedSet(_:)`` | NSCountedSet | NSCountedSet (``ArchivedCountedSet``) |
/// | ``measurement(_:)`` | NSMeasurement | NSMeasurement (``ArchivedMeasurement``) |
/// | ``timeZone(_:)`` | NSTimeZone | NSTimeZone (``ArchivedTimeZone``) |
/// | ``locale(_:)`` | NSLocale | NSLocale (``ArchivedLocale``) |
/// | ``iso8601DateFormatter(_:)`` | NSISO8601DateFormatter | NSISO8601DateFormatter (``ArchivedISO8601DateFormatter``) |
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
    /// An NSValue holding a range, point, size, rect or edge insets, or a number or C array of numbers of
    /// an Objective-C type (``ArchivedSpecialValue/ObjCValue``).
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
    /// An NSISO8601DateFormatter's settings.
    case iso8601DateFormatter(ArchivedISO8601DateFormatter)
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
        case let v as ArchivedISO8601DateFormatter: self = .iso8601DateFormatter(v)
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
        case .iso8601DateFormatter(let v): return v
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
        case .iso8601DateFormatter(let v): try encoder.encodeObject(v, forKey: key)
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
