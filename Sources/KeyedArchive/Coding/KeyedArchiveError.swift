/// An error archiving or unarchiving, with what was expected, what was found, and where.
///
/// A struct with named codes (in the style of swift-system's `Errno`), so codes can be added without
/// breaking a caller's `switch`. The ``description`` is one line:
/// `keyed archive: root.children[2] (object #7, class NSArray): class "Evil" is not allowed here; allowed: Note, NSArray`.
public struct KeyedArchiveError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of fault this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, such as `"keyNotFound"`.
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The bytes are not a valid property list (see ``KeyedArchiveError/underlying``).
        public static let invalidPropertyList = Code("invalidPropertyList")
        /// The envelope is wrong: `$archiver`, `$version`, `$top` or `$objects` missing or malformed.
        public static let invalidArchive = Code("invalidArchive")
        /// A UID that points past `$objects`, or a value that should be a UID and is not.
        public static let invalidReference = Code("invalidReference")
        /// An object's `$class` is missing or does not point at a `$classname`/`$classes` dictionary.
        public static let invalidClass = Code("invalidClass")
        /// The archive's class is not among the types the caller allowed at that point.
        public static let classNotAllowed = Code("classNotAllowed")
        /// No type is registered for the archive's class name.
        public static let unknownClass = Code("unknownClass")
        /// A required key is absent.
        public static let keyNotFound = Code("keyNotFound")
        /// A value is present but of another type than asked for.
        public static let typeMismatch = Code("typeMismatch")
        /// A value is nil (`$null`) where a non-optional value was asked for.
        public static let valueNotFound = Code("valueNotFound")
        /// A number does not fit in the type asked for.
        public static let numberOutOfRange = Code("numberOutOfRange")
        /// An object refers back to itself (directly or through others) in a way the type cannot take.
        public static let cycle = Code("cycle")
        /// A configured limit (objects, bytes, depth) was exceeded.
        public static let limitExceeded = Code("limitExceeded")
        /// The data is well-formed but its content is not what the type expects (user types may throw this).
        public static let dataCorrupted = Code("dataCorrupted")
        /// A value could not be turned into an archive value (for example `PropertyListEncoder` gave no value
        /// for a type passed to `encodeEncodable`), or a coder was used the wrong way round (reading from a
        /// container that only records what is written). Keys starting with `$` are not refused: the
        /// archiver escapes them as Apple's does.
        public static let invalidValue = Code("invalidValue")
        /// An archived set or dictionary holds two strings that NSString keeps apart (their UTF-16 units
        /// differ) but Swift's `String` `==` finds equal (they are canonically equivalent, as "\u{E9}" and
        /// "e\u{301}"), as members of the Swift `Set` or keys of the `Dictionary` asked for, which cannot hold
        /// both. The message names both strings; ``FoundationValue`` keeps them apart.
        public static let equivalentKeys = Code("equivalentKeys")
        /// The value is well-formed but this process cannot build it: a calendar other than the Gregorian and
        /// ISO 8601 ones where only FoundationEssentials is linked (FoundationInternationalization builds the others).
        public static let unsupported = Code("unsupported")
    }

    /// The kind of fault.
    public var code: Code
    /// What was expected and what was found.
    public var message: String
    /// The path of keys from the root object, such as `root.children[2].name`.
    public var keyPath: String?
    /// The UID (index in `$objects`) of the object being decoded when it happened.
    public var objectUID: UInt64?
    /// The archived class name of that object, if known.
    public var className: String?
    /// The property-list error beneath this one, for ``Code/invalidPropertyList``.
    public var underlying: PropertyListError?

    public init(_ code: Code, _ message: String, keyPath: String? = nil, objectUID: UInt64? = nil,
                className: String? = nil, underlying: PropertyListError? = nil) {
        self.code = code
        self.message = message
        self.keyPath = keyPath
        self.objectUID = objectUID
        self.className = className
        self.underlying = underlying
    }

    public var description: String {
        var place: [String] = []
        if let keyPath, !keyPath.isEmpty { place.append(keyPath) }
        var detail: [String] = []
        if let objectUID { detail.append("object #\(objectUID)") }
        if let className { detail.append("class \(className)") }
        var head = place.joined()
        if !detail.isEmpty { head += (head.isEmpty ? "" : " ") + "(" + detail.joined(separator: ", ") + ")" }
        return head.isEmpty ? "keyed archive: \(message)" : "keyed archive: \(head): \(message)"
    }
}
