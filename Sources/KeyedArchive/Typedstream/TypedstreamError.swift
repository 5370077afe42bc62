/// An error reading or interpreting a typedstream (`NSArchiver`) archive, with the byte offset where it
/// happened and what was being read.
///
/// A struct with named codes (in the style of swift-system's `Errno`, like ``KeyedArchiveError`` and
/// ``PropertyListError``), so codes can be added without breaking a caller's `switch`. The ``description``
/// is one line: `typedstream: byte 212 (object #7, class NSString): reading a string length: the data ends`.
public struct TypedstreamError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of fault this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, such as `"truncated"`.
        public let name: String
        /// A code named `name`.
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The header is not `04 0B` + `streamtyped`/`typedstream` + a system version.
        public static let invalidHeader = Code("invalidHeader")
        /// The data ends inside a value.
        public static let truncated = Code("truncated")
        /// A tag byte that the value being read cannot start with, or a malformed type encoding.
        public static let invalidValue = Code("invalidValue")
        /// A reference to a shared string, class, object or C string that was not read before.
        public static let invalidReference = Code("invalidReference")
        /// A configured limit (objects, values, bytes, depth; see ``KeyedUnarchiver/Limits``) was exceeded.
        public static let limitExceeded = Code("limitExceeded")
        /// Well-formed values that are not what a Foundation class writes (an NSString that is not UTF-8,
        /// an NSArray count that is negative, ...).
        public static let dataCorrupted = Code("dataCorrupted")
        /// A value the writer cannot write (an object index past ``TypedstreamArchive/objects``, ...).
        public static let invalidArchive = Code("invalidArchive")
    }

    /// The kind of fault.
    public var code: Code
    /// What was being read, what was expected and what was found.
    public var message: String
    /// The byte offset from the start of the data where the fault was found, when it comes from bytes.
    public var byteOffset: Int?
    /// The index in ``TypedstreamArchive/objects`` of the object being read or interpreted, if any.
    public var objectIndex: Int?
    /// That object's class name, if known.
    public var className: String?

    /// An error of kind `code`, saying `message`, at `byteOffset` in the object `objectIndex` of class `className`.
    public init(_ code: Code, _ message: String, byteOffset: Int? = nil, objectIndex: Int? = nil, className: String? = nil) {
        self.code = code
        self.message = message
        self.byteOffset = byteOffset
        self.objectIndex = objectIndex
        self.className = className
    }

    public var description: String {
        var place: [String] = []
        if let byteOffset { place.append("byte \(byteOffset)") }
        var detail: [String] = []
        if let objectIndex { detail.append("object #\(objectIndex)") }
        if let className { detail.append("class \(className)") }
        var head = place.joined()
        if !detail.isEmpty { head += (head.isEmpty ? "" : " ") + "(" + detail.joined(separator: ", ") + ")" }
        return head.isEmpty ? "typedstream: \(message)" : "typedstream: \(head): \(message)"
    }
}
