/// An error reading or writing a property list, with where it happened.
///
/// Like swift-system's `Errno`, this is a struct with named codes rather than an enum, so new codes
/// can be added without breaking a caller's `switch`. The ``description`` is one line that names what
/// was wrong and where: `bplist: object 7 at byte 212: array count 4000000 exceeds the file size`.
public struct PropertyListError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What kind of fault this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name, such as `"truncated"`.
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }

        /// The bytes are neither a binary (`bplist00`) nor an XML property list.
        public static let unknownFormat = Code("unknownFormat")
        /// The data ends before a structure it announces (header, trailer, object, table).
        public static let truncated = Code("truncated")
        /// The binary trailer's fields are inconsistent with each other or with the file size.
        public static let invalidTrailer = Code("invalidTrailer")
        /// An offset or object reference points outside the object area or past the object count.
        public static let invalidReference = Code("invalidReference")
        /// An object marker, integer width, or length that the format does not have.
        public static let invalidObject = Code("invalidObject")
        /// A string whose bytes are not valid ASCII or UTF-16 (or UTF-8 in XML).
        public static let invalidString = Code("invalidString")
        /// A dictionary key that is not a string.
        public static let invalidKey = Code("invalidKey")
        /// A container that contains itself, directly or through others.
        public static let cycle = Code("cycle")
        /// Nesting deeper than ``PropertyListReadingOptions/maximumDepth``.
        public static let tooDeep = Code("tooDeep")
        /// A count or size above a configured limit, or larger than the input could hold.
        public static let limitExceeded = Code("limitExceeded")
        /// Malformed XML, or XML that is not a property list.
        public static let invalidXML = Code("invalidXML")
        /// A malformed OpenStep (old ASCII) property list or `.strings` file.
        public static let invalidOpenStep = Code("invalidOpenStep")
        /// A value that the requested output format cannot represent (for example a set in XML).
        public static let unrepresentable = Code("unrepresentable")
    }

    /// Where in the input the fault was found. Every field that is known is filled in.
    public struct Location: Hashable, Sendable, CustomStringConvertible {
        /// Byte offset from the start of the input.
        public var byteOffset: Int?
        /// Binary format: the object number (index in the offset table).
        public var objectNumber: Int?
        /// XML format: 1-based line.
        public var line: Int?
        /// XML format: 1-based column.
        public var column: Int?
        /// Path of keys and indexes from the root, such as `$objects[3].NS.keys`.
        public var keyPath: String?

        public init(byteOffset: Int? = nil, objectNumber: Int? = nil, line: Int? = nil, column: Int? = nil,
                    keyPath: String? = nil) {
            self.byteOffset = byteOffset
            self.objectNumber = objectNumber
            self.line = line
            self.column = column
            self.keyPath = keyPath
        }

        public var description: String {
            var parts: [String] = []
            if let objectNumber { parts.append("object \(objectNumber)") }
            if let byteOffset { parts.append("at byte \(byteOffset)") }
            if let line { parts.append("line \(line)" + (column.map { ", column \($0)" } ?? "")) }
            if let keyPath, !keyPath.isEmpty { parts.append("at \(keyPath)") }
            return parts.joined(separator: " ")
        }
    }

    /// The kind of fault.
    public var code: Code
    /// A human-readable explanation of what was wrong.
    public var message: String
    /// Where it was found.
    public var location: Location

    public init(_ code: Code, _ message: String, at location: Location = Location()) {
        self.code = code
        self.message = message
        self.location = location
    }

    public var description: String {
        let loc = location.description
        return loc.isEmpty ? "property list: \(message)" : "property list: \(loc): \(message)"
    }
}
