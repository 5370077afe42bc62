#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Shared pieces of the Foundation value types in this folder: the NSMutableData / NSMutableString member
// objects Apple writes, the unsigned LEB128 varints of NSIndexSet / NSAttributedString, errors that name
// the class and key, and a Codable form of FoundationValue for archive-dump's JSON.

/// The most elements a Foundation value type reserves room for up front, whatever count the archive
/// claims; larger collections still decode, growing as their elements are actually read.
let foundationTypeReserveCap = 4096

/// An error for a member whose content makes no sense, naming the class and the member's key path.
func foundationTypeError(_ decoder: any ArchiveDecoder, className: String, key: String, _ message: String,
                         code: KeyedArchiveError.Code = .dataCorrupted) -> KeyedArchiveError {
    let path = decoder.keyPath.isEmpty ? key : decoder.keyPath + "." + key
    return KeyedArchiveError(code, "\(className).\(key): \(message)", keyPath: path, className: className)
}

/// An NSMutableData object: Apple writes NSIndexSet's `NSRangeData`, NSIndexPath's `NSIndexPathData`,
/// NSAttributedString's `NSAttributeInfo` and NSTimeZone's `NS.data` this way, with `NS.data` inline.
/// (Reading goes through ``ArchiveDecoder/decode(_:forKey:)`` of `Data`, which accepts NSMutableData.)
struct MutableDataObject: KeyedArchivable {
    static var archivedClassName: String { "NSMutableData" }
    static var archivedClassChain: [String] { ["NSMutableData", "NSData", "NSObject"] }
    var data: Data
    init(_ data: Data) { self.data = data }
    init(from decoder: any ArchiveDecoder) throws { data = try decoder.decode(Data.self, forKey: "NS.data") }
    func encode(to encoder: any ArchiveEncoder) throws { try encoder.encodeInline(data, forKey: "NS.data") }
}

/// An NSMutableString object (`NS.string` inline), as NSMutableAttributedString's `NSString` member is written.
struct MutableStringObject: KeyedArchivable {
    static var archivedClassName: String { "NSMutableString" }
    static var archivedClassChain: [String] { ["NSMutableString", "NSString", "NSObject"] }
    var string: String
    init(_ string: String) { self.string = string }
    init(from decoder: any ArchiveDecoder) throws { string = try decoder.decode(String.self, forKey: "NS.string") }
    func encode(to encoder: any ArchiveEncoder) throws { try encoder.encodeInline(string, forKey: "NS.string") }
}

// MARK: - Varints

/// Unsigned LEB128: seven bits per byte, low bits first, the high bit set on every byte but the last.
enum Varint {
    /// Appends `value` to `bytes`.
    static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    /// Why a varint could not be read.
    enum Fault: Error {
        case truncated(offset: Int)
        case tooLong(offset: Int)
    }

    /// Reads one varint at `offset` (advanced past it). At most 10 bytes, and the value must fit in 64 bits.
    static func read(_ bytes: [UInt8], at offset: inout Int) throws(Fault) -> UInt64 {
        let start = offset
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < bytes.count else { throw .truncated(offset: start) }
            let byte = bytes[offset]
            offset += 1
            let bits = UInt64(byte & 0x7F)
            guard shift < 64, shift < 63 || bits <= 1 else { throw .tooLong(offset: start) }
            result |= bits << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    /// A description of `fault` for an error message.
    static func describe(_ fault: Fault) -> String {
        switch fault {
        case .truncated(let offset): return "varint at byte \(offset) runs past the end of the data"
        case .tooLong(let offset): return "varint at byte \(offset) does not fit in 64 bits"
        }
    }
}

// MARK: - Codable form of FoundationValue

/// ``FoundationValue`` as JSON: `{"integer": 3}`, `{"string": "a"}`, `{"dictionary": [[key, value], ...]}`.
/// Used by the Codable conformances of the types in this folder (archive-dump's JSON).
///
/// An `Encoder`/`Decoder` nests one call per level, so both directions refuse a value whose coding path
/// is longer than ``maximumCodingPathLength`` (a collection level adds two or three components) with an
/// `EncodingError`/`DecodingError`, instead of exhausting the stack on a deeply nested value.
struct CodableFoundationValue: Codable, Hashable {
    var value: FoundationValue
    init(_ value: FoundationValue) { self.value = value }

    /// The longest coding path encoded or decoded: a few hundred levels of collections.
    static let maximumCodingPathLength = 512

    /// The message of the error thrown for a coding path longer than ``maximumCodingPathLength``.
    private static func tooDeep(_ path: [any CodingKey]) -> String {
        "FoundationValue nested deeper than \(maximumCodingPathLength) coding-path components (at "
            + path.prefix(6).map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".") + "...)"
    }

    /// The keys of the property-list kinds (`"unsignedInteger"` holds an integer above `Int64.max`).
    private enum PlainKind: String {
        case null, bool, integer, unsignedInteger, real, string, data, date, uuid, url, array, orderedSet, set, dictionary
    }

    /// The one key of a value's form: a ``PlainKind`` or a catalogued type's ``CataloguedValue/foundationValueName``.
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ kind: PlainKind) { stringValue = kind.rawValue }
        init(_ catalogued: any CataloguedValue.Type) { stringValue = catalogued.foundationValueName }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The catalogued value types by ``CataloguedValue/foundationValueName``, from the catalogue.
    private static let cataloguedTypes: [String: any CataloguedValue.Type] = {
        var types: [String: any CataloguedValue.Type] = [:]
        for entry in FoundationClassCatalogue.standard.entries {
            if case .archivable(let type) = entry.family, let catalogued = type as? any CataloguedValue.Type {
                types[catalogued.foundationValueName] = catalogued
            }
        }
        return types
    }()

    func encode(to encoder: any Encoder) throws {
        guard encoder.codingPath.count <= Self.maximumCodingPathLength else {
            throw EncodingError.invalidValue(encoder.codingPath.count, .init(codingPath: encoder.codingPath,
                                                                                 debugDescription: Self.tooDeep(encoder.codingPath)))
        }
        var c = encoder.container(keyedBy: Key.self)
        switch value {
        case .null: try c.encodeNil(forKey: Key(.null))
        case .bool(let b): try c.encode(b, forKey: Key(.bool))
        case .integer(let i):
            if let s = i.int64Value { try c.encode(s, forKey: Key(.integer)) } else { try c.encode(i.uint64Value ?? 0, forKey: Key(.unsignedInteger)) }
        case .real(let d): try c.encode(d, forKey: Key(.real))
        case .string(let s): try c.encode(s, forKey: Key(.string))
        case .data(let d): try c.encode(d, forKey: Key(.data))
        case .date(let d): try c.encode(d, forKey: Key(.date))
        case .uuid(let u): try c.encode(u, forKey: Key(.uuid))
        case .url(let u): try c.encode(u, forKey: Key(.url))
        case .array(let a): try c.encode(a.map(CodableFoundationValue.init), forKey: Key(.array))
        case .orderedSet(let a): try c.encode(a.map(CodableFoundationValue.init), forKey: Key(.orderedSet))
        case .set(let a): try c.encode(a.map(CodableFoundationValue.init), forKey: Key(.set))
        case .dictionary(let d):
            try c.encode(d.map { [CodableFoundationValue($0.key), CodableFoundationValue($0.value)] }, forKey: Key(.dictionary))
        case .catalogued(let v): try c.encode(v, forKey: Key(type(of: v)))
        }
    }

    init(from decoder: any Decoder) throws {
        guard decoder.codingPath.count <= Self.maximumCodingPathLength else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: Self.tooDeep(decoder.codingPath)))
        }
        let c = try decoder.container(keyedBy: Key.self)
        guard let key = c.allKeys.first, c.allKeys.count == 1 else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath,
                                                    debugDescription: "expected exactly one FoundationValue case key"))
        }
        switch PlainKind(rawValue: key.stringValue) {
        case .null?: value = .null
        case .bool?: value = .bool(try c.decode(Bool.self, forKey: key))
        case .integer?: value = .integer(PropertyListInteger(try c.decode(Int64.self, forKey: key)))
        case .unsignedInteger?: value = .integer(PropertyListInteger(try c.decode(UInt64.self, forKey: key)))
        case .real?: value = .real(try c.decode(Double.self, forKey: key))
        case .string?: value = .string(try c.decode(String.self, forKey: key))
        case .data?: value = .data(try c.decode(Data.self, forKey: key))
        case .date?: value = .date(try c.decode(Date.self, forKey: key))
        case .uuid?: value = .uuid(try c.decode(UUID.self, forKey: key))
        case .url?: value = .url(try c.decode(URL.self, forKey: key))
        case .array?: value = .array(try c.decode([CodableFoundationValue].self, forKey: key).map(\.value))
        case .orderedSet?: value = .orderedSet(try c.decode([CodableFoundationValue].self, forKey: key).map(\.value))
        case .set?: value = .set(try c.decode([CodableFoundationValue].self, forKey: key).map(\.value))
        case .dictionary?:
            var d: [FoundationValue: FoundationValue] = [:]
            for pair in try c.decode([[CodableFoundationValue]].self, forKey: key) {
                guard pair.count == 2 else {
                    throw DecodingError.dataCorruptedError(forKey: key, in: c, debugDescription: "a dictionary entry is a [key, value] pair")
                }
                d[pair[0].value] = pair[1].value
            }
            value = .dictionary(d)
        case nil:
            guard let type = Self.cataloguedTypes[key.stringValue] else {
                throw DecodingError.dataCorruptedError(forKey: key, in: c,
                                                       debugDescription: "\"\(key.stringValue)\" is not a FoundationValue kind")
            }
            value = .catalogued(try c.decode(type, forKey: key))
        }
    }
}

/// A short rendering of a Foundation value for one-line descriptions (`"Helvetica"`, `123`, `[2 items]`).
func foundationValueSummary(_ value: FoundationValue) -> String {
    switch value {
    case .null: return "null"
    case .bool(let b): return "\(b)"
    case .integer(let i): return i.description
    case .real(let d): return "\(d)"
    case .string(let s): return s.count > 40 ? "\"\(s.prefix(40))...\"" : "\"\(s)\""
    case .data(let d): return "<\(d.count) bytes>"
    case .date(let d): return "\(d)"
    case .uuid(let u): return u.uuidString
    case .url(let u): return u.absoluteString
    case .array(let a): return "[\(a.count) items]"
    case .orderedSet(let a): return "ordered set of \(a.count)"
    case .set(let a): return "set of \(a.count)"
    case .dictionary(let d): return "{\(d.count) entries}"
    case .catalogued(let v): return v.description
    }
}

/// Runs `body`, giving any ``KeyedArchiveError`` it throws that names no class the name `className`
/// (the decoder leaves it out of some errors, such as a `$null` member), so every error names the class.
func namingClass<T>(_ className: String, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch var error as KeyedArchiveError where error.className == nil {
        error.className = className
        throw error
    }
}
