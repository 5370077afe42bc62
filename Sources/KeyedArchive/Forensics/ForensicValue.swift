#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A value of a keyed archive, a typedstream or a property list as forensic reading shows it: one tree for
/// all three formats, with Foundation's classes as their values, other objects as their stored fields,
/// objects met again as references, and payloads found inside data and strings decoded in place.
///
/// Read one with ``ForensicReader``. Everything in it is as the input says; nothing is instantiated.
public indirect enum ForensicValue: Hashable, Sendable {
    /// nil: UID 0, a typedstream's `nil`, `NSNull`.
    case null
    /// A boolean.
    case bool(Bool)
    /// An integer.
    case integer(PropertyListInteger)
    /// A real number.
    case real(Double)
    /// A string (NSString, a property-list string, a URL's text, a UUID's text).
    case string(String)
    /// Bytes (NSData, a property-list data value) in which no payload was found, or not looked for.
    case data(Data)
    /// A date (NSDate, a property-list date).
    case date(Date)
    /// A UID of a property list that is not a keyed archive.
    case uid(UID)
    /// An array or a set (NSArray, NSSet, NSOrderedSet, a property-list array).
    case array([ForensicValue])
    /// A dictionary (NSDictionary, a property-list dictionary), in stored order.
    case dictionary([ForensicEntry])
    /// An object that is not one of Foundation's values: its class and its fields.
    case object(ForensicObject)
    /// An object shown already, at another path (shared, or an object that contains itself).
    case reference(ForensicReference)
    /// A data value or string that holds a property list, a keyed archive or a typedstream, decoded.
    case nested(NestedPayload)
}

/// A key and its value: a dictionary's entry or an object's field.
public struct ForensicEntry: Hashable, Sendable {
    /// The key (a dictionary key that is not a string is shown as its description).
    public var key: String
    /// The value.
    public var value: ForensicValue

    /// An entry of `key` and `value`.
    public init(_ key: String, _ value: ForensicValue) {
        self.key = key
        self.value = value
    }
}

/// An archived object shown with its fields: a keyed archive's instance (fields as the coder's keys) or a
/// typedstream's object (fields `$0`, `$1`... in stored order, or as its Foundation value's parts).
public struct ForensicObject: Hashable, Sendable {
    /// The class name as stored. Attacker-controlled.
    public var className: String
    /// The object as its archive numbers it: `#5` for UID 5 of a keyed archive or object 5 of a typedstream;
    /// unique within one payload only.
    public var storedID: String
    /// The fields, in stored order.
    public var fields: [ForensicEntry]

    /// An object of `className`, numbered `storedID`, with `fields`.
    public init(className: String, storedID: String, fields: [ForensicEntry]) {
        self.className = className
        self.storedID = storedID
        self.fields = fields
    }
}

/// An object met again: where it was shown first.
public struct ForensicReference: Hashable, Sendable {
    /// The object as its archive numbers it (`#5`).
    public var storedID: String
    /// Its class name, when it has one.
    public var className: String?
    /// The path where it was shown in full (the first met, depth first in stored order).
    public var target: ForensicPath

    /// A reference to the object `storedID` of `className` shown at `target`.
    public init(storedID: String, className: String?, target: ForensicPath) {
        self.storedID = storedID
        self.className = className
        self.target = target
    }
}

/// A payload found inside a data value or a string, and what it decoded to.
public struct NestedPayload: Hashable, Sendable {
    /// How the payload is carried.
    public enum Carrier: String, Hashable, Sendable {
        /// The bytes of a data value.
        case data
        /// The UTF-8 text of a string (an XML property list stored as a string).
        case string
        /// A string of base64 text whose bytes are the payload.
        case base64String = "base64 string"
        /// A string of hexadecimal digits whose bytes are the payload.
        case hexString = "hex string"
    }

    /// The payload's format.
    public var format: PayloadFormat
    /// How it is carried.
    public var carrier: Carrier
    /// The path of the value that carries it.
    public var path: ForensicPath
    /// The object whose field (or whose dictionary's entry) holds the carrier, such as `#12 DDScannerResult`;
    /// nil when no object encloses it (a plain property list).
    public var containingObject: String?
    /// The key under which the carrier is stored, nil for an array element.
    public var key: String?
    /// Where the carrier's bytes start in the enclosing payload's bytes (the input's, at the first level),
    /// found by searching for them: nil when they are not stored there as they are (an XML property list's
    /// base64 data, a UTF-16 string), or when the payload's search budget (16 bytes scanned per byte of
    /// it, plus 1 MiB) is spent. Equal carriers stored at several places are given those places in turn.
    public var byteOffset: Int?
    /// The carrier's bytes: the data, or the string's UTF-8.
    public var storedBytes: Data
    /// The decoded payload, when it decoded.
    public var value: ForensicValue?
    /// The path of the decoded payload's root (``innerPath`` and `$top`, `$root`, a class name or
    /// `$values`), when it decoded.
    public var rootPath: ForensicPath?
    /// Why it did not decode, when it did not (the reader's error, naming where).
    public var error: String?
    /// The places where the decoded keyed archive breaks the archive's rules, each with the error the strict
    /// reader reports for it; empty when it breaks none (see ``ForensicDocument/damage``).
    public var damage: [String] = []

    /// A nested payload; see the properties.
    public init(format: PayloadFormat, carrier: Carrier, path: ForensicPath, containingObject: String?, key: String?,
                byteOffset: Int?, storedBytes: Data, value: ForensicValue?, error: String?) {
        self.format = format
        self.carrier = carrier
        self.path = path
        self.containingObject = containingObject
        self.key = key
        self.byteOffset = byteOffset
        self.storedBytes = storedBytes
        self.value = value
        self.error = error
    }

    /// The path inside the payload: ``path`` and the hop into it.
    public var innerPath: ForensicPath {
        path.appending(.payload(carrier: carrier.rawValue, format: format))
    }
}

/// A whole input read by ``ForensicReader``: its format and its root.
public struct ForensicDocument: Hashable, Sendable {
    /// The input's format.
    public var format: PayloadFormat
    /// The root: a keyed archive's `$top` as a dictionary, a property list's root value, or a
    /// typedstream's root object (its top-level values as an array when it has several).
    public var root: ForensicValue
    /// The root's path: `$top`, `$root`, the typedstream root's class name, or `$values`.
    public var rootPath: ForensicPath
    /// The places where a keyed archive breaks the archive's rules, each with the error the strict reader
    /// reports for it: such an archive is read as ``ArchivedObjectGraph/init(lenientPropertyList:)`` reads
    /// it (an entry with a bad `$class` as its stored fields, a dangling UID as nil). Empty for an archive
    /// that breaks none, and for other formats.
    public var damage: [String] = []

    /// A document of `format` whose root `root` is at `rootPath`.
    public init(format: PayloadFormat, root: ForensicValue, rootPath: ForensicPath) {
        self.format = format
        self.root = root
        self.rootPath = rootPath
    }
}
