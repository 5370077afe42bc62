#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Where ``TypedstreamFoundationValues`` reads an object's values: the raw model, all read before
/// (``TypedstreamArchiveSource``), or the stream itself, read as the values are asked for
/// (``TypedstreamStreamSource``).
protocol TypedstreamValueSource {
    /// The place in one object's groups (or the top level's).
    associatedtype Cursor: TypedstreamValueCursor
    /// Whether an ``TypedstreamValue/object(_:)`` that ``next(_:_:)`` returns is an object whose groups come
    /// next in the stream, so that it must be made at once.
    static var makesObjectsWhereStored: Bool { get }
    /// The deepest nesting of objects this source reads (a stream source recurses once per level).
    static var deepestNesting: Int { get }
    /// The raw model, when the source has one (objects of unknown classes can then be kept).
    var archive: TypedstreamArchive? { get }
    /// A cursor at the first group of the object at `index`.
    func cursor(forObjectAt index: Int) throws(TypedstreamError) -> Cursor
    /// Whether the object's groups are all read.
    func isAtEnd(_ cursor: Cursor) -> Bool
    /// At least as many as the groups left in the object (a bound for counts and capacities).
    func remainingGroups(_ cursor: Cursor) -> Int
    /// The next value, which must have the type `encoding`; nil takes the next value of the group
    /// ``enterGroup(_:_:)`` entered (or, at the top level, of any group).
    mutating func next(_ cursor: inout Cursor, _ encoding: String?) throws(TypedstreamError) -> TypedstreamValue
    /// The next value, which must be a `*` C string, as text; nil when it is nil or not UTF-8.
    mutating func nextCString(_ cursor: inout Cursor) throws(TypedstreamError) -> String?
    /// A first capacity for a table of the objects (at most what the data can hold).
    var objectCapacityHint: Int { get }
    /// The next value, which must be an NSString's `+` byte string, as text.
    /// - Throws: when it is another type, nil, or not UTF-8.
    mutating func nextString(_ cursor: inout Cursor) throws(TypedstreamError) -> String
    /// Moves to the next group, whose encoding must be `encoding`, and returns how many values it holds.
    mutating func enterGroup(_ cursor: inout Cursor, _ encoding: String) throws(TypedstreamError) -> Int
    /// Checks that the object's groups are all read (and, in a stream, reads its end marker).
    mutating func finish(_ cursor: Cursor) throws(TypedstreamError)
}

/// The place in one object's groups, which names the object in errors.
protocol TypedstreamValueCursor {
    var className: String { get }
    /// The Foundation class of the object, nil for a class with no Foundation value (or the top level).
    var foundationClass: TypedstreamFoundationClass? { get }
    func corrupted(_ message: String) -> TypedstreamError
}

extension TypedstreamFields: TypedstreamValueCursor {
    var foundationClass: TypedstreamFoundationClass? { TypedstreamFoundationClass(className: className) }
}

/// The classes whose objects ``TypedstreamFoundationValues`` makes values of (each with its mutable form).
enum TypedstreamFoundationClass {
    case string, number, value, data, date, url, null, array, set, dictionary, color, font, attributedString

    /// The kind of the class named `name`; nil for a class with no Foundation value.
    init?(className name: String) {
        switch name {
        case "NSString", "NSMutableString": self = .string
        case "NSNumber": self = .number
        case "NSValue": self = .value
        case "NSData", "NSMutableData": self = .data
        case "NSDate": self = .date
        case "NSURL": self = .url
        case "NSNull": self = .null
        case "NSArray", "NSMutableArray": self = .array
        case "NSSet", "NSMutableSet": self = .set
        case "NSDictionary", "NSMutableDictionary": self = .dictionary
        case "NSColor": self = .color
        case "NSFont": self = .font
        case "NSAttributedString", "NSMutableAttributedString": self = .attributedString
        default: return nil
        }
    }
}

/// The raw model as a value source: every object's groups are in ``archive``.
struct TypedstreamArchiveSource: TypedstreamValueSource {
    static var makesObjectsWhereStored: Bool { false }
    static var deepestNesting: Int { Int.max }
    let archive: TypedstreamArchive?
    private let model: TypedstreamArchive

    init(archive: TypedstreamArchive) {
        self.archive = archive
        model = archive
    }

    func cursor(forObjectAt index: Int) throws(TypedstreamError) -> TypedstreamFields {
        guard model.className(ofObjectAt: index) != nil else {
            throw TypedstreamError(.invalidArchive, "object #\(index) or its class is past the archive's tables", objectIndex: index)
        }
        return TypedstreamFields(archive: model, objectIndex: index)
    }

    func isAtEnd(_ cursor: TypedstreamFields) -> Bool { cursor.isAtEnd }
    func remainingGroups(_ cursor: TypedstreamFields) -> Int { cursor.remainingGroups }
    func next(_ cursor: inout TypedstreamFields, _ encoding: String?) throws(TypedstreamError) -> TypedstreamValue { try cursor.next(encoding) }
    var objectCapacityHint: Int { model.objects.count }
    func nextCString(_ cursor: inout TypedstreamFields) throws(TypedstreamError) -> String? {
        guard case .cString(let bytes?) = try cursor.next("*") else { return nil }
        return validUTF8(bytes)
    }
    func nextString(_ cursor: inout TypedstreamFields) throws(TypedstreamError) -> String {
        guard case .bytes(let bytes?) = try cursor.next("+") else { throw cursor.corrupted("an NSString without its bytes") }
        guard let text = validUTF8(bytes) else { throw cursor.corrupted("an NSString whose bytes are not UTF-8") }
        return text
    }
    func enterGroup(_ cursor: inout TypedstreamFields, _ encoding: String) throws(TypedstreamError) -> Int { try cursor.enterGroup(encoding) }
    func finish(_ cursor: TypedstreamFields) throws(TypedstreamError) { try cursor.expectEnd() }
}

/// The stream as a value source: values are read from the bytes as they are asked for, and each object is
/// made where it is stored, so that no raw model is built.
///
/// It reads what the raw reading reads, with the same checks and limits (``TypedstreamReader``'s own
/// functions), but only the common shapes: each value an object's class asks for by type is a group of its
/// own, objects nest at most ``deepestNesting`` levels, and no object sits inside a C array or struct.
/// Anything else (and any fault) throws, and the caller reads the data through the raw model instead, which
/// gives the value or the error with its byte offset.
struct TypedstreamStreamSource: TypedstreamValueSource {
    static var makesObjectsWhereStored: Bool { true }
    /// The nesting that any thread's stack holds: each level is a few frames of this recursion.
    static var deepestNesting: Int { levelsEveryStackHolds }
    var archive: TypedstreamArchive? { nil }
    var reader: TypedstreamReader

    /// The place in one object's (or the top level's) groups: the group being read and the next value's
    /// position in it.
    struct Cursor: TypedstreamValueCursor {
        /// The object (nil: the top level).
        let objectIndex: Int?
        let className: String
        let foundationClass: TypedstreamFoundationClass?
        /// The group being read (nil before the first).
        var group: TypedstreamReader.GroupHead?
        /// The number of values in ``group`` (0 before the first group), kept here so that asking whether the
        /// group is read does not load its encoding.
        var valueCount = 0
        var value = 0

        var isBetweenGroups: Bool { value == valueCount }

        func corrupted(_ message: String) -> TypedstreamError {
            TypedstreamError(.dataCorrupted, message, objectIndex: objectIndex, className: objectIndex == nil ? nil : className)
        }
    }

    /// A cursor before the first top-level group.
    static var topLevel: Cursor { Cursor(objectIndex: nil, className: "", foundationClass: nil) }

    func cursor(forObjectAt index: Int) throws(TypedstreamError) -> Cursor {
        guard reader.objectClasses.indices.contains(index), reader.classes.indices.contains(reader.objectClasses[index]) else {
            throw TypedstreamError(.invalidArchive, "object #\(index) or its class is past the tables read", objectIndex: index)
        }
        let classIndex = reader.objectClasses[index]
        return Cursor(objectIndex: index, className: reader.classes[classIndex].name, foundationClass: reader.foundationClasses[classIndex])
    }

    func isAtEnd(_ cursor: Cursor) -> Bool {
        cursor.isBetweenGroups && reader.isAt(TypedstreamTag.endOfObject)
    }

    /// Every group takes at least one byte.
    func remainingGroups(_ cursor: Cursor) -> Int { reader.bytesLeft }

    mutating func next(_ cursor: inout Cursor, _ encoding: String?) throws(TypedstreamError) -> TypedstreamValue {
        try reader.readStoredValue(try nextType(&cursor, encoding), nested: false)
    }

    var objectCapacityHint: Int { reader.objectCapacityHint }

    mutating func nextCString(_ cursor: inout Cursor) throws(TypedstreamError) -> String? {
        _ = try nextType(&cursor, "*")
        return try reader.readCStringText()
    }

    mutating func nextString(_ cursor: inout Cursor) throws(TypedstreamError) -> String {
        _ = try nextType(&cursor, "+")
        try reader.countElement()
        let start = reader.offset
        let head = try reader.readByte(what: "a '+' byte string")
        guard head != TypedstreamTag.nilValue else { throw cursor.corrupted("an NSString without its bytes") }
        guard let text = try reader.readUTF8String(head: head, at: start, what: "a '+' byte string") else {
            throw cursor.corrupted("an NSString whose bytes are not UTF-8")
        }
        return text
    }

    /// Moves `cursor` to the next value, which must have the type `encoding` (nil: any type, inside the group
    /// entered), and returns its type.
    private mutating func nextType(_ cursor: inout Cursor, _ encoding: String?) throws(TypedstreamError) -> TypedstreamTypeEncoding {
        if cursor.isBetweenGroups {
            guard encoding != nil || cursor.objectIndex == nil else { throw cursor.corrupted("a value is read outside a group") }
            try beginGroup(&cursor)
            // A value asked for by type must be a group of its own, so that an object's groups are at least
            // its values asked for (the raw model's bound for counts).
            guard encoding == nil || cursor.valueCount == 1 else {
                throw cursor.corrupted("a group of several values where one of type \((encoding ?? "").debugDescription) should follow")
            }
        } else if encoding != nil, cursor.objectIndex != nil {
            throw cursor.corrupted("a value of type \((encoding ?? "").debugDescription) is asked for inside a group")
        }
        switch cursor.group {
        case .scalar(let code)?:
            // The group's text is the one character `code`, as the text each value's type is compared with.
            if cursor.value == 0, encoding.map({ code < 0x80 && $0 == TypedstreamReader.asciiCharacters[Int(code)] }) ?? true {
                cursor.value = 1
                return .scalar(code)
            }
        case .encoding(let group)?:
            if group.typeTexts.count == group.types.count, cursor.value < group.types.count,
               encoding.map({ group.typeTexts[cursor.value] == $0 }) ?? true {
                cursor.value += 1
                return group.types[cursor.value - 1]
            }
        case nil:
            break
        }
        throw cursor.corrupted("a group of type \((cursor.group?.text ?? "").debugDescription) where \((encoding ?? "").debugDescription) should follow")
    }

    mutating func enterGroup(_ cursor: inout Cursor, _ encoding: String) throws(TypedstreamError) -> Int {
        guard cursor.isBetweenGroups else { throw cursor.corrupted("a group of type \(encoding.debugDescription) is asked for inside a group") }
        try beginGroup(&cursor)
        switch cursor.group {
        case .scalar(let code)?:
            if code < 0x80, encoding == TypedstreamReader.asciiCharacters[Int(code)] { return 1 }
        case .encoding(let group)?:
            if group.text == encoding, group.typeTexts.count == group.types.count { return group.types.count }
        case nil:
            break
        }
        throw cursor.corrupted("a group of type \((cursor.group?.text ?? "").debugDescription) where \(encoding.debugDescription) should follow")
    }

    mutating func finish(_ cursor: Cursor) throws(TypedstreamError) {
        guard isAtEnd(cursor) else { throw cursor.corrupted("values are left after those its class reads") }
        _ = try reader.readByte(what: "the end of the object")
    }

    /// Reads a group's head (its type encoding) into `cursor`.
    private mutating func beginGroup(_ cursor: inout Cursor) throws(TypedstreamError) {
        let start = reader.offset
        let head = try reader.readByte(what: "the next group")
        guard head != TypedstreamTag.endOfObject,
              let stringIndex = try reader.readSharedStringIndex(head: head, at: start, what: "a group's type encoding") else {
            throw cursor.corrupted("the object ends, or a group's type encoding is nil, where a value should follow")
        }
        let group = try reader.groupHead(ofSharedString: stringIndex, at: start)
        switch group {
        case .scalar: cursor.valueCount = 1
        case .encoding(let encoding): cursor.valueCount = encoding.types.count
        }
        cursor.group = group
        cursor.value = 0
    }

    /// The Foundation values of a typedstream's top-level values, read from the stream; `rootOnly` asks for
    /// the single value of an archive of one top-level group of one value.
    ///
    /// - Returns: the values, or nil when the data holds anything this source does not read (or a fault):
    ///   then the raw model reads it.
    static func foundationValues(from data: Data, limits: KeyedUnarchiver.Limits, rootOnly: Bool) -> [FoundationValue]? {
        // The reader lives only inside the maker, so that its tables stay uniquely referenced (never copied
        // when they grow).
        let values = try? TypedstreamReader.withReader(of: data, limits: limits, in: { reader in
            TypedstreamFoundationValues(source: TypedstreamStreamSource(reader: reader), maximumDepth: limits.maximumDepth)
        }) { (maker) throws(TypedstreamError) -> [FoundationValue]? in
            _ = try maker.source.reader.readHeader()
            _ = try maker.source.reader.checkedInt(try maker.source.reader.readSignedInteger(what: "the system version"), what: "the system version")
            var top = topLevel
            var values: [FoundationValue] = []
            while !(top.isBetweenGroups && maker.source.reader.bytesLeft == 0) {
                if rootOnly, !values.isEmpty { return nil }
                let value = try maker.next(&top, nil, depth: 0)
                values.append(try maker.value(value, depth: 0))
            }
            guard !rootOnly || values.count == 1 else { return nil }
            return values
        }
        return values ?? nil
    }
}

extension TypedstreamReader {
    /// One value of type `type`, read and counted as ``read()`` reads and counts it: a group's value, or
    /// (`nested`) an element of a C array or a field of a struct, where an object is not read here.
    /// Recurses once per level of the type's nesting (at most ``TypedstreamTypeEncoding/maximumNesting``).
    mutating func readStoredValue(_ type: TypedstreamTypeEncoding, nested: Bool) throws(TypedstreamError) -> TypedstreamValue {
        try countElement()
        switch type {
        case .array(let count, let element):
            if case .scalar(let code) = element, code == UInt8(ascii: "c") || code == UInt8(ascii: "C") {
                let start = offset
                return .byteArray(try readBytes(count, what: "a byte array of \(count) bytes", at: start))
            }
            guard count == 0 || !element.storesNothing else {
                throw fault(.invalidValue, "an array of \(count) values that take no bytes", at: offset)
            }
            guard count <= bytesLeft else {
                throw fault(.truncated, "an array of \(count) values needs at least \(count) bytes; \(bytesLeft) are left", at: offset)
            }
            var items: [TypedstreamValue] = []
            items.reserveCapacity(count)
            for _ in 0 ..< count { items.append(try readStoredValue(element, nested: true)) }
            return .array(items)
        case .structure(let fields):
            var items: [TypedstreamValue] = []
            items.reserveCapacity(fields.count)
            for field in fields { items.append(try readStoredValue(field, nested: true)) }
            return .structure(items)
        case .scalar(UInt8(ascii: "@")):
            guard !nested else { throw fault(.invalidValue, "an object inside a C array or struct (read by the raw model)", at: offset) }
            let start = offset
            let head = try readByte(what: "an object")
            switch head {
            case TypedstreamTag.nilValue: return .nilObject
            case TypedstreamTag.new: return .object(try readNewObject(at: start))
            default: return .objectReference(try readObjectReference(head: head, at: start))
            }
        case .scalar(let code):
            return try readScalar(code)
        }
    }
}
