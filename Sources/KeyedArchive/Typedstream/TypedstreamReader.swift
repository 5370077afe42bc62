#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a typedstream's bytes into a ``TypedstreamArchive``, iteratively: objects nested in objects are
/// frames on a heap stack, never Swift recursion, so input cannot run the thread's stack out; only the
/// type-encoding parser recurses, at most ``TypedstreamTypeEncoding/maximumNesting`` levels.
///
/// Every count and length is checked against the bytes left before anything is allocated, and against
/// ``KeyedUnarchiver/Limits`` (objects, classes and C strings count as objects; values as elements; string
/// and data bytes as bytes; nested objects as depth). Every failure is a ``TypedstreamError`` with the byte
/// offset where the value being read began.
///
/// The file is kept whole (over 500 lines): the read position and the tables it fills have setters private
/// to this file, so that only the code here, which checks each count before it moves the position, can
/// change them, and only the code here reads ``bytes``.
///
/// A reader borrows the data's bytes: it is made only by ``withReader(of:limits:in:_:)``, inside the data's
/// `withUnsafeBytes`, and lives no longer than that call.
struct TypedstreamReader {
    /// The data's bytes, borrowed for the reader's life (``withReader(of:limits:in:_:)``).
    ///
    /// Unsafe: valid only while ``withReader(of:limits:in:_:)``'s body runs, which holds because every reader
    /// is made there and none leaves it (its holder is a local of that call, and what a reader returns is
    /// copied out of the bytes: `Data`, `String`, numbers and ranges). Reading past the end is not checked
    /// in optimised builds: every index read is below `bytes.count` because ``readByte(what:)``,
    /// ``readFixed(_:what:)``, ``readByteRange(_:what:at:)`` and ``isAt(_:)`` check it first, and the ranges
    /// kept in the tables come from ``readByteRange(_:what:at:)``.
    private let bytes: UnsafeBufferPointer<UInt8>
    private(set) var offset = 0
    private var bigEndian = false
    let limits: KeyedUnarchiver.Limits

    /// Each shared string, by shared string index: where its bytes are in ``bytes``, and its parsed group
    /// encoding once it has led a group.
    private var sharedStrings: [SharedString] = []
    /// What each reference number names: classes, objects and C strings share one numbering.
    private var references: [Referent] = []
    private(set) var classes: [TypedstreamClass] = []
    /// The Foundation class of each class in ``classes`` (nil: a class with no Foundation value).
    private(set) var foundationClasses: [TypedstreamFoundationClass?] = []
    /// The index in ``classes`` of each object's class, by object index.
    private(set) var objectClasses: [Int] = []
    private var elementCount = 0
    private var byteCount = 0

    struct SharedString {
        let range: Range<Int>
        /// The string parsed as a group's type encoding (nil: it has not led a group).
        var groupEncoding: GroupEncoding?
        /// The type code when the string, as a group's encoding, is one scalar type
        /// (``GroupEncoding/singleScalar``), kept here so that finding it loads no encoding; nil: it is not,
        /// or it has not led a group.
        var singleScalar: UInt8?
    }

    /// What leads a group: one scalar type, the group's only value (the common case, which needs no
    /// reference to the parsed encoding), or the parsed encoding of any other group.
    enum GroupHead {
        case scalar(UInt8)
        case encoding(GroupEncoding)

        /// The group's encoding text.
        var text: String {
            switch self {
            case .scalar(let code): return String(decoding: [code], as: UTF8.self)
            case .encoding(let encoding): return encoding.text
            }
        }
    }

    enum Referent {
        case object(Int)
        case `class`(Int)
        /// A C string: the index of its content among the shared strings.
        case cString(Int)

        var kindName: String {
            switch self {
            case .object: return "an object"
            case .class: return "a class"
            case .cString: return "a C string"
            }
        }
    }

    /// A group's type encoding string, parsed once per shared string: its text, its types, and the text of
    /// each type (``TypedstreamTypeEncoding/split(_:)``).
    /// A class, so that a cursor holding one holds a single reference; immutable, so that the common ones are
    /// parsed once and shared by every reading.
    final class GroupEncoding: Sendable {
        let text: String
        let types: [TypedstreamTypeEncoding]
        let typeTexts: [String]
        /// The type code when the encoding is one scalar type, one character (`@`, `+`, `i`...); nil otherwise.
        let singleScalar: UInt8?

        init(text: String, types: [TypedstreamTypeEncoding], typeTexts: [String]) {
            self.text = text
            self.types = types
            self.typeTexts = typeTexts
            if text.utf8.count == 1, types.count == 1, case .scalar(let code) = types[0] { singleScalar = code } else { singleScalar = nil }
        }

        /// The encodings Foundation's classes write (NSString's `+`, NSNumber's `*` and value, an attributed
        /// string's `iI` runs, NSColor's components...), parsed once, each with its ``key(_:)``.
        private static let commonEncodings: [(key: UInt64, encoding: GroupEncoding)] = {
            let texts = ["@", "+", "*", "#", ":", "%", "c", "C", "s", "S", "i", "I", "l", "L", "q", "Q", "f", "d", "B",
                         "iI", "ff", "fff", "ffff", "fffff", "@@", "@@@", "ii", "II"]
            return texts.compactMap { text in
                let utf8 = Array(text.utf8)
                guard let types = try? TypedstreamTypeEncoding.parseList(utf8), let key = key(utf8[...]) else { return nil }
                return (key, GroupEncoding(text: text, types: types, typeTexts: TypedstreamTypeEncoding.split(text)))
            }
        }()

        /// The bytes of an encoding of at most 5 bytes and its length, packed into one number that equals
        /// another encoding's exactly when the bytes do; nil for a longer encoding.
        private static func key<Bytes: Collection<UInt8>>(_ encoding: Bytes) -> UInt64? {
            guard encoding.count <= 5 else { return nil }
            var key = UInt64(encoding.count) << 40
            for (shift, byte) in zip(stride(from: 0, to: 40, by: 8), encoding) { key |= UInt64(byte) << UInt64(shift) }
            return key
        }

        /// The parsed form of `encoding` when it is one of the common encodings, byte for byte.
        static func common(_ encoding: Slice<UnsafeBufferPointer<UInt8>>) -> GroupEncoding? {
            guard let key = key(encoding) else { return nil }
            for entry in commonEncodings where entry.key == key { return entry.encoding }
            return nil
        }
    }

    /// One level of the reading stack: an object's (or the top level's) groups, or the values of a group,
    /// array or struct being filled.
    private struct Frame {
        enum Kind {
            /// Reading an object's groups until its end marker (nil: the top level, until the data ends).
            case object(Int?)
            case group(String)
            case array
            case structure
        }
        var kind: Kind
        /// The types of the values to read (an array repeats its one element type `count` times).
        var types: [TypedstreamTypeEncoding] = []
        var count = 0
        var next = 0
        var values: [TypedstreamValue] = []
        var groups: [TypedstreamGroup] = []
    }

    /// A reader of `bytes`, which must stay valid as long as the reader lives (``withReader(of:limits:in:_:)``).
    private init(bytes: UnsafeBufferPointer<UInt8>, limits: KeyedUnarchiver.Limits) {
        self.bytes = bytes
        self.limits = limits
        references.reserveCapacity(objectCapacityHint)
        objectClasses.reserveCapacity(objectCapacityHint)
        sharedStrings.reserveCapacity(objectCapacityHint)
        classes.reserveCapacity(objectCapacityHint)
        foundationClasses.reserveCapacity(objectCapacityHint)
    }

    /// Runs `body` with a reader of `data` that reads the data's bytes where they are (no copy), held by
    /// `holder` (the reader itself, or a value made around it).
    ///
    /// The held reader must not outlive `body`: `body` gets it `inout`, so it cannot keep it, and it returns
    /// nothing that holds it. `holder` consumes the reader, so that the holder's tables are its only copy.
    static func withReader<Holder, R>(of data: Data, limits: KeyedUnarchiver.Limits,
                                      in holder: (consuming TypedstreamReader) -> Holder,
                                      _ body: (inout Holder) throws(TypedstreamError) -> R) throws(TypedstreamError) -> R {
        let result = data.withUnsafeBytes { raw -> Result<R, TypedstreamError> in
            var held = holder(TypedstreamReader(bytes: raw.bindMemory(to: UInt8.self), limits: limits))
            return Result { () throws(TypedstreamError) in try body(&held) }
        }
        return try result.get()
    }

    /// How many bytes are left after the read position.
    var bytesLeft: Int { bytes.count - offset }

    /// Whether the byte at the read position is `byte` (false at the end of the data).
    func isAt(_ byte: UInt8) -> Bool { offset < bytes.count && bytes[offset] == byte }

    /// A first capacity for the tables of objects and strings: far fewer than the bytes can hold (each entry
    /// takes at least 2 bytes), as many as typical data holds (a few dozen in the smallest archives: an
    /// attributedBody of a few hundred bytes holds about 20 objects, classes and C strings, and 15 shared
    /// strings); the tables grow past it when they need to.
    var objectCapacityHint: Int { 16 + bytes.count / 32 }

    // MARK: - The stream

    mutating func read() throws(TypedstreamError) -> TypedstreamArchive {
        let byteOrder = try readHeader()
        let systemVersion = try checkedInt(try readSignedInteger(what: "the system version"), what: "the system version")
        var frames = [Frame(kind: .object(nil))]
        // Each object's groups, by object index (filled when its end marker is read).
        var objectGroups: [[TypedstreamGroup]] = []
        var depth = 0
        // The top frame is read through `frames[level]`, never bound to a local: a copy would share its
        // arrays, and every append would then copy them.
        while !frames.isEmpty {
            let level = frames.count - 1
            switch frames[level].kind {
            case .object(let index):
                if index == nil, offset == bytes.count {
                    let objects = zip(objectClasses, objectGroups).map { TypedstreamObject(classIndex: $0, groups: $1) }
                    return TypedstreamArchive(byteOrder: byteOrder, systemVersion: systemVersion, classes: classes,
                                              objects: objects, groups: frames.removeLast().groups)
                }
                let start = offset
                let head = try readByte(what: index == nil ? "the next group's type encoding" : "the next group or the end of the object")
                if let index, head == TypedstreamTag.endOfObject {
                    objectGroups[index] = frames.removeLast().groups
                    depth -= 1
                    continue
                }
                guard let stringIndex = try readSharedStringIndex(head: head, at: start, what: "a group's type encoding") else {
                    throw fault(.invalidValue, "a group's type encoding is nil", at: start)
                }
                let encoding = try groupEncoding(ofSharedString: stringIndex, at: start)
                frames.append(Frame(kind: .group(encoding.text), types: encoding.types, count: encoding.types.count))
            case .group, .array, .structure:
                if frames[level].next == frames[level].count {
                    let finished = frames.removeLast()
                    try deliver(finished, into: &frames[level - 1])
                    continue
                }
                let type: TypedstreamTypeEncoding
                if case .array = frames[level].kind { type = frames[level].types[0] } else { type = frames[level].types[frames[level].next] }
                frames[level].next += 1
                try countElement()
                switch type {
                case .array(let count, let element):
                    if case .scalar(let code) = element, code == UInt8(ascii: "c") || code == UInt8(ascii: "C") {
                        let start = offset
                        let data = try readBytes(count, what: "a byte array of \(count) bytes", at: start)
                        frames[level].values.append(.byteArray(data))
                        continue
                    }
                    guard count == 0 || !element.storesNothing else {
                        throw fault(.invalidValue, "an array of \(count) values that take no bytes", at: offset)
                    }
                    guard count <= bytes.count - offset else {
                        throw fault(.truncated, "an array of \(count) values needs at least \(count) bytes; \(bytes.count - offset) are left", at: offset)
                    }
                    frames.append(Frame(kind: .array, types: [element], count: count))
                case .structure(let fields):
                    frames.append(Frame(kind: .structure, types: fields, count: fields.count))
                case .scalar(UInt8(ascii: "@")):
                    let start = offset
                    let head = try readByte(what: "an object")
                    switch head {
                    case TypedstreamTag.nilValue:
                        frames[level].values.append(.nilObject)
                    case TypedstreamTag.new:
                        guard depth < limits.maximumDepth else {
                            throw fault(.limitExceeded, "objects nest deeper than limits.maximumDepth (\(limits.maximumDepth))", at: start)
                        }
                        let index = try readNewObject(at: start)
                        objectGroups.append([])
                        frames[level].values.append(.object(index))
                        frames.append(Frame(kind: .object(index)))
                        depth += 1
                    default:
                        frames[level].values.append(.objectReference(try readObjectReference(head: head, at: start)))
                    }
                case .scalar(let code):
                    frames[level].values.append(try readScalar(code))
                }
            }
        }
        throw fault(.invalidValue, "the reading stack emptied", at: offset)
    }

    /// Hands a finished group, array or struct to the frame below it.
    private func deliver(_ finished: Frame, into parent: inout Frame) throws(TypedstreamError) {
        switch finished.kind {
        case .group(let encoding): parent.groups.append(TypedstreamGroup(encoding: encoding, values: finished.values))
        case .array: parent.values.append(.array(finished.values))
        case .structure: parent.values.append(.structure(finished.values))
        case .object: throw fault(.invalidValue, "an object frame finished as a value", at: offset)
        }
    }

    /// An object stored here (after its `84` head at `start`): numbers it and reads its class chain, leaving
    /// the stream at its first group. Returns its index in ``objectClasses``.
    mutating func readNewObject(at start: Int) throws(TypedstreamError) -> Int {
        let index = objectClasses.count
        try addReferent(.object(index), at: start)
        objectClasses.append(0)
        let classStart = offset
        guard let classIndex = try readClass(head: try readByte(what: "an object's class"), at: classStart) else {
            throw fault(.invalidValue, "an object's class is Nil", at: classStart, object: index)
        }
        objectClasses[index] = classIndex
        return index
    }

    /// The index of the object a reference (head `head` at `start`) names.
    mutating func readObjectReference(head: UInt8, at start: Int) throws(TypedstreamError) -> Int {
        let found = try readReference(head: head, at: start, what: "an object")
        guard case .object(let index) = found else {
            throw fault(.invalidReference, "an object reference names \(found.kindName)", at: start)
        }
        return index
    }

    mutating func readHeader() throws(TypedstreamError) -> TypedstreamArchive.ByteOrder {
        let version = try readByte(what: "the streamer version")
        guard version == TypedstreamTag.streamerVersion else {
            throw fault(.invalidHeader, "streamer version \(version); expected \(TypedstreamTag.streamerVersion)", at: 0)
        }
        let length = try readByte(what: "the signature's length")
        guard Int(length) == TypedstreamTag.littleEndianSignature.count else {
            throw fault(.invalidHeader, "signature length \(length); expected 11", at: 1)
        }
        let signature = UnsafeBufferPointer(rebasing: bytes[try readByteRange(Int(length), what: "the signature", at: 2)])
        if signature.elementsEqual(TypedstreamTag.littleEndianSignature) { bigEndian = false; return .littleEndian }
        if signature.elementsEqual(TypedstreamTag.bigEndianSignature) { bigEndian = true; return .bigEndian }
        throw fault(.invalidHeader, "signature \(String(decoding: signature, as: UTF8.self).debugDescription); expected \"streamtyped\" or \"typedstream\"", at: 2)
    }

    // MARK: - Values

    mutating func readScalar(_ code: UInt8) throws(TypedstreamError) -> TypedstreamValue {
        let start = offset
        switch code {
        case UInt8(ascii: "c"): return .integer(Int64(Int8(bitPattern: try readByte(what: "a 'c' value"))))
        case UInt8(ascii: "C"): return .unsignedInteger(UInt64(try readByte(what: "a 'C' value")))
        case UInt8(ascii: "B"):
            let byte = try readByte(what: "a 'B' value")
            guard byte <= 1 else { throw fault(.invalidValue, "a 'B' value is \(byte); expected 0 or 1", at: start) }
            return .bool(byte == 1)
        case UInt8(ascii: "s"), UInt8(ascii: "i"), UInt8(ascii: "l"), UInt8(ascii: "q"):
            return .integer(try readSignedInteger(what: Self.integerValueName(code)))
        case UInt8(ascii: "S"), UInt8(ascii: "I"), UInt8(ascii: "L"), UInt8(ascii: "Q"):
            let (bits, width) = try readIntegerBits(head: try readByte(what: Self.integerValueName(code)), at: start,
                                                    what: Self.integerValueName(code))
            return .unsignedInteger(width == 1 ? bits & 0xFF : bits)
        case UInt8(ascii: "f"):
            let head = try readByte(what: "an 'f' value")
            if head == TypedstreamTag.real {
                return .float(Float(bitPattern: UInt32(truncatingIfNeeded: try readFixed(4, what: "an 'f' value's 4 bytes"))))
            }
            return .float(Float(try signedValue(head: head, at: start, what: "an 'f' value")))
        case UInt8(ascii: "d"):
            let head = try readByte(what: "a 'd' value")
            if head == TypedstreamTag.real {
                return .double(Double(bitPattern: try readFixed(8, what: "a 'd' value's 8 bytes")))
            }
            return .double(Double(try signedValue(head: head, at: start, what: "a 'd' value")))
        case UInt8(ascii: "*"):
            let head = try readByte(what: "a C string")
            switch head {
            case TypedstreamTag.nilValue: return .cString(nil)
            default:
                let index = try readCString(head: head, at: start)
                return .cString(sharedString(index))
            }
        case UInt8(ascii: "%"):
            return .atom(try readSharedString(head: try readByte(what: "an atom"), at: start, what: "an atom"))
        case UInt8(ascii: ":"):
            return .selector(try readSharedString(head: try readByte(what: "a selector"), at: start, what: "a selector"))
        case UInt8(ascii: "+"):
            let head = try readByte(what: "a '+' byte string")
            if head == TypedstreamTag.nilValue { return .bytes(nil) }
            return .bytes(try readUnsharedString(head: head, at: start, what: "a '+' byte string"))
        case UInt8(ascii: "#"):
            return .class(try readClass(head: try readByte(what: "a class"), at: start))
        case UInt8(ascii: "!"):
            return .ignored
        default:
            throw fault(.invalidValue, "type \(describeByte(code)) cannot be read", at: start)
        }
    }

    /// A C string that is not nil (head `head` at `start`): new, or a reference to one read before. Returns
    /// the index of its content among the shared strings.
    private mutating func readCString(head: UInt8, at start: Int) throws(TypedstreamError) -> Int {
        if head == TypedstreamTag.new {
            let contentStart = offset
            guard let index = try readSharedStringIndex(head: try readByte(what: "a C string's content"), at: contentStart,
                                                        what: "a C string's content")
            else { throw fault(.invalidValue, "a C string's content is nil", at: contentStart) }
            try addReferent(.cString(index), at: start)
            return index
        }
        let found = try readReference(head: head, at: start, what: "a C string")
        guard case .cString(let contentIndex) = found else {
            throw fault(.invalidReference, "a C string reference names \(found.kindName)", at: start)
        }
        return contentIndex
    }

    /// A `*` value (a C string), read and counted as ``readStoredValue(_:nested:)`` reads and counts it, as
    /// text; nil when it is nil or not UTF-8.
    mutating func readCStringText() throws(TypedstreamError) -> String? {
        try countElement()
        let start = offset
        let head = try readByte(what: "a C string")
        guard head != TypedstreamTag.nilValue else { return nil }
        let index = try readCString(head: head, at: start)
        let range = sharedStrings[index].range
        // A type encoding of one character (NSNumber's `q`, `d`...) is the table's string for it.
        if range.count == 1, bytes[range.lowerBound] < 0x80 { return Self.asciiCharacters[Int(bytes[range.lowerBound])] }
        return validUTF8(UnsafeBufferPointer(rebasing: bytes[range]))
    }

    /// Each ASCII character as a one-character string, by its code (made as decoding that byte makes it, so
    /// that comparing one with a literal of the same character is a comparison of equal bits).
    static let asciiCharacters: [String] = (0 ..< 0x80).map { String(decoding: [UInt8($0)], as: UTF8.self) }

    /// What an integer value of type `code` is called in errors: a literal, so that reading one builds no string.
    private static func integerValueName(_ code: UInt8) -> String {
        switch code {
        case UInt8(ascii: "s"): return "a 's' value"
        case UInt8(ascii: "i"): return "a 'i' value"
        case UInt8(ascii: "l"): return "a 'l' value"
        case UInt8(ascii: "q"): return "a 'q' value"
        case UInt8(ascii: "S"): return "a 'S' value"
        case UInt8(ascii: "I"): return "a 'I' value"
        case UInt8(ascii: "L"): return "a 'L' value"
        default: return "a 'Q' value"
        }
    }

    /// A class chain: new classes (name, version), each the subclass of the next, ended by nil or a
    /// reference to a class read before. Returns the first class's index (nil for `Nil`).
    mutating func readClass(head firstHead: UInt8, at start: Int) throws(TypedstreamError) -> Int? {
        var head = firstHead
        var headStart = start
        // The chain's classes are appended one after another: they are `first ..< classes.count`.
        var first: Int?
        while head == TypedstreamTag.new {
            let nameStart = offset
            guard let nameIndex = try readSharedStringIndex(head: try readByte(what: "a class name"), at: nameStart, what: "a class name") else {
                throw fault(.invalidValue, "a class name is nil", at: nameStart)
            }
            guard let (text, foundationClass) = className(ofSharedString: nameIndex) else {
                throw fault(.dataCorrupted, "a class name is not UTF-8", at: nameStart)
            }
            let version = try checkedInt(try readSignedInteger(what: "the version of class \(text)"), what: "the version of class \(text)")
            let index = classes.count
            try addReferent(.class(index), at: headStart)
            classes.append(TypedstreamClass(name: text, version: version, superclass: nil))
            foundationClasses.append(foundationClass)
            if first != nil { classes[index - 1].superclass = index } else { first = index }
            headStart = offset
            head = try readByte(what: "the superclass of class \(text)")
        }
        var end: Int?
        if head != TypedstreamTag.nilValue {
            let found = try readReference(head: head, at: headStart, what: "a class")
            guard case .class(let index) = found else {
                throw fault(.invalidReference, "a class reference names \(found.kindName)", at: headStart)
            }
            // The reference that ends a chain names a class read before the chain began, as Apple's writer
            // stops at a class it wrote before and pytypedstream resolves it before numbering the chain's
            // classes: a class of this chain would be its own superclass.
            if let first, index >= first {
                throw fault(.invalidReference, "the superclass of class \(classes[classes.count - 1].name) refers to class #\(index) (\(classes[index].name)) of its own chain", at: headStart)
            }
            end = index
        }
        if first != nil { classes[classes.count - 1].superclass = end }
        return first ?? end
    }

    /// The names of the classes Foundation writes, as UTF-8, with their Foundation class, so that reading
    /// one makes no new string.
    private static let foundationClassNames: [(utf8: [UInt8], name: String, foundationClass: TypedstreamFoundationClass?)] = [
        "NSObject", "NSString", "NSMutableString", "NSAttributedString", "NSMutableAttributedString", "NSNumber",
        "NSValue", "NSData", "NSMutableData", "NSDate", "NSURL", "NSNull", "NSArray", "NSMutableArray", "NSSet",
        "NSMutableSet", "NSDictionary", "NSMutableDictionary", "NSColor", "NSFont",
    ].map { (Array($0.utf8), $0, TypedstreamFoundationClass(className: $0)) }

    /// The shared string at `index` as a class name, with its Foundation class: one of
    /// ``foundationClassNames``, or its bytes when they are valid UTF-8; nil when they are not.
    private func className(ofSharedString index: Int) -> (String, TypedstreamFoundationClass?)? {
        let range = sharedStrings[index].range
        let stored = UnsafeBufferPointer(rebasing: bytes[range])
        for known in Self.foundationClassNames where known.utf8.count == range.count {
            if known.utf8.withUnsafeBufferPointer({ sameBytes(stored, $0) }) { return (known.name, known.foundationClass) }
        }
        guard let name = validatedUTF8String(stored) else { return nil }
        return (name, TypedstreamFoundationClass(className: name))
    }

    // MARK: - Strings

    /// A shared string's bytes (nil for `85`): new (`84` + an unshared string) or a reference.
    private mutating func readSharedString(head: UInt8, at start: Int, what: @autoclosure () -> String) throws(TypedstreamError) -> Data? {
        guard let index = try readSharedStringIndex(head: head, at: start, what: what()) else { return nil }
        return sharedString(index)
    }

    /// The bytes of the shared string at `index` (an index ``readSharedStringIndex(head:at:what:)`` returned).
    private func sharedString(_ index: Int) -> Data { Data(buffer: UnsafeBufferPointer(rebasing: bytes[sharedStrings[index].range])) }

    mutating func readSharedStringIndex(head: UInt8, at start: Int, what: @autoclosure () -> String) throws(TypedstreamError) -> Int? {
        switch head {
        case TypedstreamTag.nilValue: return nil
        case TypedstreamTag.new:
            let stringStart = offset
            let string = try readUnsharedStringRange(head: try readByte(what: what()), at: stringStart, what: what())
            sharedStrings.append(SharedString(range: string))
            return sharedStrings.count - 1
        default:
            let number = try referenceNumber(head: head, at: start, what: what())
            guard number < sharedStrings.count else {
                throw fault(.invalidReference, "\(what()) refers to shared string #\(number); \(sharedStrings.count) were read", at: start)
            }
            return number
        }
    }

    /// A length (an unsigned integer) and that many bytes.
    private mutating func readUnsharedString(head: UInt8, at start: Int, what: @autoclosure () -> String) throws(TypedstreamError) -> Data {
        Data(buffer: UnsafeBufferPointer(rebasing: bytes[try readUnsharedStringRange(head: head, at: start, what: what())]))
    }

    /// A length (an unsigned integer) and that many bytes (a byte string after its head `head` at `start`), as
    /// text; nil when the bytes are not UTF-8.
    mutating func readUTF8String(head: UInt8, at start: Int, what: @autoclosure () -> String) throws(TypedstreamError) -> String? {
        let stored = UnsafeBufferPointer(rebasing: bytes[try readUnsharedStringRange(head: head, at: start, what: what())])
        return Self.messageAttributeName(stored) ?? validUTF8(stored)
    }

    /// The attribute names the Messages app writes in an `attributedBody` (those of the shared corpus's
    /// iMessage samples, the most frequent first), as UTF-8, with their text, so that reading one makes no
    /// new string.
    private static let messageAttributeNames: [(utf8: [UInt8], text: String)] = [
        "__kIMMessagePartAttributeName", "__kIMBaseWritingDirectionAttributeName", "__kIMDataDetectedAttributeName",
        "__kIMFileTransferGUIDAttributeName", "__kIMLinkAttributeName", "__kIMTextUnderlineAttributeName",
        "__kIMTextStrikethroughAttributeName", "__kIMTextItalicAttributeName", "__kIMTextBoldAttributeName",
        "__kIMTextEffectAttributeName", "__kIMPhoneNumberAttributeName", "__kIMLinkIsRichLinkAttributeName",
        "__kIMInlineMediaWidthAttributeName", "__kIMInlineMediaHeightAttributeName", "__kIMFilenameAttributeName",
        "__kIMCalendarEventAttributeName", "__kIMOneTimeCodeAttributeName", "__kIMMentionConfirmedMention",
        "__kIMAddressAttributeName",
    ].map { (Array($0.utf8), $0) }

    /// The text of `stored` when its bytes are one of ``messageAttributeNames``; nil otherwise.
    private static func messageAttributeName(_ stored: UnsafeBufferPointer<UInt8>) -> String? {
        // Every name starts with `__kIM`: other text is ruled out by its first bytes.
        guard stored.count > 5, stored[0] == UInt8(ascii: "_"), stored[1] == UInt8(ascii: "_"), stored[4] == UInt8(ascii: "M") else { return nil }
        for known in messageAttributeNames where known.utf8.count == stored.count {
            if known.utf8.withUnsafeBufferPointer({ sameBytes(stored, $0) }) { return known.text }
        }
        return nil
    }

    /// A length (an unsigned integer) and that many bytes, counted against the limits: where they are in ``bytes``.
    private mutating func readUnsharedStringRange(head: UInt8, at start: Int, what: @autoclosure () -> String) throws(TypedstreamError) -> Range<Int> {
        let (bits, width) = try readIntegerBits(head: head, at: start, what: "the length of \(what())")
        let length = width == 1 ? bits & 0xFF : bits
        guard length <= UInt64(bytes.count - offset) else {
            throw fault(.truncated, "\(what()) of \(length) bytes; \(bytes.count - offset) are left", at: start)
        }
        return try readByteRange(Int(length), what: what(), at: start)
    }

    mutating func groupEncoding(ofSharedString index: Int, at start: Int) throws(TypedstreamError) -> GroupEncoding {
        if let parsed = sharedStrings[index].groupEncoding { return parsed }
        let parsed: GroupEncoding
        if let common = GroupEncoding.common(bytes[sharedStrings[index].range]) { parsed = common } else { parsed = try parseGroupEncoding(sharedString(index), at: start) }
        sharedStrings[index].groupEncoding = parsed
        sharedStrings[index].singleScalar = parsed.singleScalar
        return parsed
    }

    /// What leads a group whose encoding is the shared string at `index`, parsed as
    /// ``groupEncoding(ofSharedString:at:)`` parses it.
    mutating func groupHead(ofSharedString index: Int, at start: Int) throws(TypedstreamError) -> GroupHead {
        if let code = sharedStrings[index].singleScalar { return .scalar(code) }
        // One scalar type character parses to that scalar alone (TypedstreamTypeEncoding.parseList): found
        // without parsing, or keeping a parsed encoding.
        let range = sharedStrings[index].range
        if range.count == 1, TypedstreamTypeEncoding.isScalarCode(bytes[range.lowerBound]) {
            sharedStrings[index].singleScalar = bytes[range.lowerBound]
            return .scalar(bytes[range.lowerBound])
        }
        let encoding = try groupEncoding(ofSharedString: index, at: start)
        if let code = encoding.singleScalar { return .scalar(code) }
        return .encoding(encoding)
    }

    private func parseGroupEncoding(_ encoding: Data, at start: Int) throws(TypedstreamError) -> GroupEncoding {
        let text = [UInt8](encoding)
        guard !text.isEmpty else { throw fault(.invalidValue, "a group's type encoding is empty", at: start) }
        let types: [TypedstreamTypeEncoding]
        do {
            types = try TypedstreamTypeEncoding.parseList(text)
        } catch {
            throw fault(.invalidValue, "type encoding \(String(decoding: text, as: UTF8.self).debugDescription): \(error.message)", at: start)
        }
        let string = String(decoding: text, as: UTF8.self)
        return GroupEncoding(text: string, types: types, typeTexts: TypedstreamTypeEncoding.split(string))
    }

    // MARK: - References

    private mutating func referenceNumber(head: UInt8, at start: Int, what: @autoclosure () -> String) throws(TypedstreamError) -> Int {
        let value = try signedValue(head: head, at: start, what: what())
        let number = value - TypedstreamTag.firstReference
        guard number >= 0, let result = Int(exactly: number) else {
            throw fault(.invalidValue, "\(what()) starts with \(describeByte(head)), which is neither a tag nor a reference", at: start)
        }
        return result
    }

    mutating func readReference(head: UInt8, at start: Int, what: @autoclosure () -> String) throws(TypedstreamError) -> Referent {
        let number = try referenceNumber(head: head, at: start, what: what())
        guard number < references.count else {
            throw fault(.invalidReference, "\(what()) refers to #\(number); \(references.count) classes, objects and C strings were read", at: start)
        }
        return references[number]
    }

    mutating func addReferent(_ referent: Referent, at start: Int) throws(TypedstreamError) {
        guard references.count < limits.maximumObjectCount else {
            throw fault(.limitExceeded, "more than limits.maximumObjectCount (\(limits.maximumObjectCount)) objects, classes and C strings", at: start)
        }
        references.append(referent)
    }

    // MARK: - Integers and bytes

    /// A signed integer in any of the format's forms (one byte, or a tag and 2, 4 or 8 bytes).
    mutating func readSignedInteger(what: @autoclosure () -> String) throws(TypedstreamError) -> Int64 {
        let start = offset
        return try signedValue(head: try readByte(what: what()), at: start, what: what())
    }

    private func signedValueOfBits(_ bits: UInt64, width: Int) -> Int64 {
        switch width {
        case 1: return Int64(Int8(truncatingIfNeeded: bits))
        case 2: return Int64(Int16(truncatingIfNeeded: bits))
        case 4: return Int64(Int32(truncatingIfNeeded: bits))
        default: return Int64(bitPattern: bits)
        }
    }

    private mutating func signedValue(head: UInt8, at start: Int, what: @autoclosure () -> String) throws(TypedstreamError) -> Int64 {
        let (bits, width) = try readIntegerBits(head: head, at: start, what: what())
        return signedValueOfBits(bits, width: width)
    }

    /// The bits and width (1, 2, 4 or 8 bytes) of an integer whose head byte is `head`.
    private mutating func readIntegerBits(head: UInt8, at start: Int, what: @autoclosure () -> String) throws(TypedstreamError) -> (UInt64, Int) {
        switch head {
        case TypedstreamTag.integer2: return (try readFixed(2, what: "\(what()) (2 bytes after 0x81)"), 2)
        case TypedstreamTag.integer4: return (try readFixed(4, what: "\(what()) (4 bytes after 0x82)"), 4)
        case TypedstreamTag.integer8: return (try readFixed(8, what: "\(what()) (8 bytes after 0x87)"), 8)
        default:
            guard !TypedstreamTag.tagRange.contains(Int8(bitPattern: head)) else {
                throw fault(.invalidValue, "\(what()) starts with tag \(describeByte(head)), which is not an integer", at: start)
            }
            return (UInt64(head), 1)
        }
    }

    /// `width` bytes in the stream's byte order, as the low bits of a UInt64.
    private mutating func readFixed(_ width: Int, what: @autoclosure () -> String) throws(TypedstreamError) -> UInt64 {
        guard width <= bytes.count - offset else {
            throw fault(.truncated, "\(what()): the data ends (\(bytes.count - offset) bytes left)", at: offset)
        }
        var value: UInt64 = 0
        for i in 0 ..< width {
            let byte = UInt64(bytes[offset + (bigEndian ? i : width - 1 - i)])
            value = value << 8 | byte
        }
        offset += width
        return value
    }

    mutating func readByte(what: @autoclosure () -> String) throws(TypedstreamError) -> UInt8 {
        guard offset < bytes.count else { throw fault(.truncated, "\(what()): the data ends", at: offset) }
        offset += 1
        return bytes[offset - 1]
    }

    mutating func readBytes(_ length: Int, what: @autoclosure () -> String, at start: Int) throws(TypedstreamError) -> Data {
        let range = try readByteRange(length, what: what(), at: start)
        return Data(buffer: UnsafeBufferPointer(rebasing: bytes[range]))
    }

    /// Moves past `length` bytes, counted against the limits, and returns where they are in ``bytes``.
    mutating func readByteRange(_ length: Int, what: @autoclosure () -> String, at start: Int) throws(TypedstreamError) -> Range<Int> {
        guard length >= 0, length <= bytes.count - offset else {
            throw fault(.truncated, "\(what()): \(length) bytes needed, \(bytes.count - offset) left", at: start)
        }
        try count(bytes: length)
        defer { offset += length }
        return offset ..< offset + length
    }

    // The two counts run for every value: their errors are built out of line, so that the checks stay small
    // enough to inline.

    private mutating func count(bytes added: Int) throws(TypedstreamError) {
        byteCount += added
        guard byteCount <= limits.maximumByteCount else { throw byteLimitFault() }
    }

    @inline(never)
    private func byteLimitFault() -> TypedstreamError {
        fault(.limitExceeded, "more than limits.maximumByteCount (\(limits.maximumByteCount)) bytes of strings and data", at: offset)
    }

    mutating func countElement() throws(TypedstreamError) {
        elementCount += 1
        guard elementCount <= limits.maximumElementCount else { throw elementLimitFault() }
    }

    @inline(never)
    private func elementLimitFault() -> TypedstreamError {
        fault(.limitExceeded, "more than limits.maximumElementCount (\(limits.maximumElementCount)) values", at: offset)
    }

    func checkedInt(_ value: Int64, what: @autoclosure () -> String) throws(TypedstreamError) -> Int {
        guard let result = Int(exactly: value) else { throw fault(.invalidValue, "\(what()) \(value) does not fit in Int", at: offset) }
        return result
    }

    func fault(_ code: TypedstreamError.Code, _ message: String, at byteOffset: Int, object: Int? = nil) -> TypedstreamError {
        TypedstreamError(code, message, byteOffset: byteOffset, objectIndex: object,
                         className: object.flatMap { classes.indices.contains(objectClasses[$0]) ? classes[objectClasses[$0]].name : nil })
    }
}

extension TypedstreamArchive {
    /// Reads a typedstream (`NSArchiver`) archive of either byte order.
    ///
    /// Foundation on Apple platforms reads these with `NSUnarchiver`, which instantiates the classes; this
    /// reads them as they are stored and instantiates nothing.
    ///
    /// - Parameters:
    ///   - data: the bytes, starting with `04 0B streamtyped` or `04 0B typedstream`.
    ///   - limits: the most objects (objects, classes and C strings together), values, string and data bytes,
    ///     and the deepest nesting of objects, as for keyed archives.
    /// - Throws: ``TypedstreamError`` naming the byte offset and what was being read: a header that is not a
    ///   typedstream's, data that ends inside a value, a tag where a value cannot start, a reference to
    ///   something not read before, a malformed type encoding, a limit exceeded.
    public init(data: Data, limits: KeyedUnarchiver.Limits = KeyedUnarchiver.Limits()) throws(TypedstreamError) {
        self = try TypedstreamReader.withReader(of: data, limits: limits, in: { $0 }) { (reader) throws(TypedstreamError) in
            try reader.read()
        }
    }
}
