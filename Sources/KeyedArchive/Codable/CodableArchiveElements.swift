#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// MARK: - Nested Codable values as objects

/// The `$classname` of a nested Codable value of type `type`: its ``ArchiveNamed/archivedClassName`` when it
/// adopts ``ArchiveNamed``, else its type's name (`String(reflecting:)`) with the module `FoundationEssentials`
/// spelled `Foundation` (``platformModuleMoves``), so that Linux and Apple platforms write one name.
func codableArchivedClassName(of type: Any.Type) -> String {
    if let named = type as? any ArchiveNamed.Type { return named.archivedClassName }
    return portableCodableTypeName(String(reflecting: type))
}

/// The name written for a Codable type whose runtime name is `reflected`: the same on every platform.
/// Foundation's value types in `FoundationEssentials` are named after `Foundation`
/// (``platformModuleMoves``), and the types Apple platforms name otherwise (`__C.CGPoint`, `__C.NSDecimal`,
/// `CoreGraphics.CGFloat`) as Linux names them (``appleRuntimeTypeNames``), also inside a generic type's
/// arguments.
func portableCodableTypeName(_ reflected: String) -> String {
    let withoutCStructs = namingFoundationCStructs(reflected)
    return ArchivedModuleMoves.movedName(withoutCStructs, moves: platformModuleMoves) ?? withoutCStructs
}

/// The Codable types whose runtime name on Apple platforms differs from Foundation's on Linux, by module and
/// name there, with the name written for them: the structs Apple platforms import from C (module `__C`) and
/// Foundation on Linux declares in Swift (`NSRange` is `_NSRange` on both; `Decimal` is the C struct `NSDecimal`
/// on Apple platforms), and `CGFloat`, which CoreGraphics declares there. Linux has no `CGVector` or
/// `CGAffineTransform`; they are named the same way, so that all of Apple's geometry structs have one form.
let appleRuntimeTypeNames: [Substring: [Substring: String]] = [
    "__C": [
        "CGPoint": "Foundation.CGPoint", "CGSize": "Foundation.CGSize", "CGRect": "Foundation.CGRect",
        "CGVector": "Foundation.CGVector", "CGAffineTransform": "Foundation.CGAffineTransform",
        "_NSRange": "Foundation._NSRange", "NSDecimal": "Foundation.Decimal",
    ],
    "CoreGraphics": ["CGFloat": "Foundation.CGFloat"],
]

/// `name` with each qualified name of ``appleRuntimeTypeNames`` (`__C.CGPoint`) spelled as Linux spells it
/// (`Foundation.CGPoint`), also inside a generic type's arguments.
private func namingFoundationCStructs(_ name: String) -> String {
    guard name.contains("__C.") || name.contains("CoreGraphics.") else { return name }
    func isIdentifierCharacter(_ c: Character) -> Bool { c.isLetter || c.isNumber || c == "_" }
    var result = ""
    var index = name.startIndex
    // Walks identifier by identifier: a module name begins a qualified name only at the start or after a
    // character that is neither part of an identifier nor a `.` (`<`, `,`, ` `).
    var atBoundary = true
    while index < name.endIndex {
        guard isIdentifierCharacter(name[index]) else {
            atBoundary = name[index] != "."
            result.append(name[index])
            index = name.index(after: index)
            continue
        }
        var end = index
        while end < name.endIndex, isIdentifierCharacter(name[end]) { end = name.index(after: end) }
        let identifier = name[index..<end]
        if atBoundary, let names = appleRuntimeTypeNames[identifier], end < name.endIndex, name[end] == "." {
            let typeStart = name.index(after: end)
            var typeEnd = typeStart
            while typeEnd < name.endIndex, isIdentifierCharacter(name[typeEnd]) { typeEnd = name.index(after: typeEnd) }
            if let portable = names[name[typeStart..<typeEnd]] {
                result += portable
                index = typeEnd
                atBoundary = false
                continue
            }
        }
        result += identifier
        index = end
        atBoundary = false
    }
    return result
}

/// The other `$classname`s a nested Codable value of type `type` is read from: its
/// ``ArchiveNamed/legacyClassNames``, or its `String(reflecting:)` when that differs from the name written
/// (`FoundationEssentials.Calendar`, which earlier versions wrote on Linux).
func codableLegacyClassNames(of type: Any.Type) -> [String] {
    if let named = type as? any ArchiveNamed.Type { return named.legacyClassNames }
    let reflected = String(reflecting: type)
    return portableCodableTypeName(reflected) == reflected ? [] : [reflected]
}

/// Foundation's value types live in `FoundationEssentials` on Linux (swift-foundation) and are re-exported
/// by `Foundation`, the module Apple platforms name them after: a nested Codable value of such a type is
/// written under the `Foundation` name on every platform.
let platformModuleMoves = ["FoundationEssentials": "Foundation"]

/// A nested Codable value that is neither an ``ArchiveValue`` nor a collection, being written: an object
/// whose class name is its type's name (`String(reflecting:)`, or its ``ArchiveNamed`` name), holding the
/// fields its keyed container wrote.
struct CodableEncodedObject<T: Encodable>: KeyedArchivable {
    static var archivedClassName: String { codableArchivedClassName(of: T.self) }
    let fields: ArchiveCallRecorder

    init(fields: ArchiveCallRecorder) { self.fields = fields }

    init(from decoder: any ArchiveDecoder) throws {
        throw KeyedArchiveError(.invalidValue, "an encoded Codable value is only written, never read", keyPath: decoder.keyPath)
    }

    func encode(to encoder: any ArchiveEncoder) throws {
        (encoder as? KeyedArchiver)?.markCodableObject()
        try fields.replayFields(to: encoder)
    }
}

/// A nested Codable value being read from an object whose class name must be one of its type's names
/// (``ArchiveNamed``), or one the unarchiver maps to it (``KeyedUnarchiver/setClass(_:forClassName:)-(T.Type,_)``,
/// ``KeyedUnarchiver/mapModule(_:to:)``).
struct CodableDecodedObject<T: Decodable>: KeyedArchivable {
    static var archivedClassName: String { codableArchivedClassName(of: T.self) }
    static var legacyClassNames: [String] { codableLegacyClassNames(of: T.self) }
    let value: T

    init(from decoder: any ArchiveDecoder) throws {
        let adapter = ArchiveCodableDecoder(object: decoder, codingPath: [])
        defer { adapter.close() }
        value = try CodableArchiving.decodingObject(decoder) { try T(from: adapter) }
    }

    func encode(to encoder: any ArchiveEncoder) throws {
        throw KeyedArchiveError(.invalidValue, "a decoded Codable value is only read, never written")
    }
}

// MARK: - Collections

/// An array, set or dictionary of Codable elements, written as NSArray, NSSet or NSDictionary (not
/// through its own Codable, which would give an NSArray for a set and alternating keys and values for
/// a dictionary with non-string keys).
protocol ArchiveEncodableCollection {
    func encodeArchiveCollection(to sink: any ArchiveEncoder, forKey key: String, codingPath: [any CodingKey]) throws
}

/// The reading half of ``ArchiveEncodableCollection``.
protocol ArchiveDecodableCollection {
    static func decodeArchiveCollection(from decoder: any ArchiveDecoder, forKey key: String) throws -> Self
}

extension Array: ArchiveEncodableCollection where Element: Encodable {
    func encodeArchiveCollection(to sink: any ArchiveEncoder, forKey key: String, codingPath: [any CodingKey]) throws {
        // A string and a class instance that is an ArchiveValue (an ArchivableCodable model) are written by
        // the Codable rules as their ArchiveValue conformance writes them (one `encode(to:forKey:)` each):
        // such an array is handed to the encoder as it is, without a wrapped copy, and the archiver's
        // paths for arrays of strings and of instances apply. The calls and bytes are the same.
        if Element.self == String.self {
            try sink.encodeArray(unsafeBitCast(self, to: [String].self), forKey: key)  // Element is String
            return
        }
        if let archivable = CodableEncodingKind.cache.kind(of: Self.self, { CodableEncodingKind(Self.self) }).instanceArrayElement {
            try archivable.encodeCodableInstanceArray(self, to: sink, forKey: key)
            return
        }
        try sink.encodeArray(map { CodableEncodedElement(value: $0) }, forKey: key)
    }
}

/// An array of Encodable elements, seen through an existential: its element type when the elements are
/// class instances written by their ``ArchiveValue`` conformance (``ArchivableCodable`` models).
protocol ArchiveEncodableInstanceArray {
    static var instanceElement: (any ArchiveValue.Type)? { get }
}

extension Array: ArchiveEncodableInstanceArray where Element: Encodable {
    static var instanceElement: (any ArchiveValue.Type)? { CodableEncodingKind(Element.self).instanceValue }
}

extension ArchiveValue {
    /// Writes `elements`, an array whose element type is exactly `Self` (found by ``CodableEncodingKind``), as
    /// an array of `Self`.
    static func encodeCodableInstanceArray<U>(_ elements: U, to sink: any ArchiveEncoder, forKey key: String) throws {
        try sink.encodeArray(unsafeBitCast(elements, to: [Self].self), forKey: key)  // U is [Self]
    }
}

extension Array: ArchiveDecodableCollection where Element: Decodable {
    static func decodeArchiveCollection(from decoder: any ArchiveDecoder, forKey key: String) throws -> [Element] {
        // A closure, not the key path `\.value`: in this generic context a key path is built at run time
        // (its generic argument demangled) on every call.
        try decoder.decodeArray(of: CodableDecodedElement<Element>.self, forKey: key).map { $0.value }
    }
}

/// An array of Decodable elements, seen through an existential: how it is read when its elements are class
/// instances read by their ``ArchiveValue`` conformance (``ArchivableCodable`` models).
protocol ArchiveDecodableInstanceArray {
    static var instanceArrayReading: CodableInstanceArrayReading? { get }
}

/// How the unarchiver's decoder reads an array of `element` instances for the Codable adapter
/// (``ArchiveObjectDecoder/decodeCodableInstanceArray(of:forKey:expected:)``), as
/// ``ArchiveDecodableCollection/decodeArchiveCollection(from:forKey:)`` reads it through the element wrapper.
struct CodableInstanceArrayReading {
    /// The element type, a class.
    let element: any ArchiveValue.Type
    /// What the wrapped read names as expected in its errors (`an array of CodableDecodedElement<Element>`).
    let expected: String
}

extension Array: ArchiveDecodableInstanceArray where Element: Decodable {
    static var instanceArrayReading: CodableInstanceArrayReading? {
        guard let element = CodableDecodingKind(Element.self).instanceValue else { return nil }
        return CodableInstanceArrayReading(element: element, expected: "an array of \(CodableDecodedElement<Element>.self)")
    }
}

extension ArchiveValue {
    /// Reads an array of `Self`, a class, where `U` is `[Self]` (see ``CodableInstanceArrayReading``).
    static func decodeCodableInstanceArray<U>(_ type: U.Type, from decoder: ArchiveObjectDecoder, forKey key: String,
                                              expected: @autoclosure () -> String) throws -> U {
        let instances = try decoder.decodeCodableInstanceArray(of: Self.self, forKey: key, expected: expected())
        return unsafeBitCast(instances, to: U.self)  // [AnyObject] and [Self] hold the same references, laid out alike
    }
}

extension Set: ArchiveEncodableCollection where Element: Encodable {
    func encodeArchiveCollection(to sink: any ArchiveEncoder, forKey key: String, codingPath: [any CodingKey]) throws {
        try sink.encodeSet(Set<CodableEncodedElement<Element>>(map { CodableEncodedElement(value: $0) }), forKey: key)
    }
}

extension Set: ArchiveDecodableCollection where Element: Decodable {
    static func decodeArchiveCollection(from decoder: any ArchiveDecoder, forKey key: String) throws -> Set<Element> {
        Set(try decoder.decodeSet(of: CodableDecodedElement<Element>.self, forKey: key).map { $0.value })  // as above
    }
}

extension Dictionary: ArchiveEncodableCollection where Key: Encodable, Value: Encodable {
    func encodeArchiveCollection(to sink: any ArchiveEncoder, forKey key: String, codingPath: [any CodingKey]) throws {
        var entries: [CodableEncodedElement<Key>: CodableEncodedElement<Value>] = [:]
        entries.reserveCapacity(count)
        for (k, v) in self { entries[CodableEncodedElement(value: k)] = CodableEncodedElement(value: v) }
        try sink.encodeDictionary(entries, forKey: key)
    }
}

extension Dictionary: ArchiveDecodableCollection where Key: Decodable, Value: Decodable {
    static func decodeArchiveCollection(from decoder: any ArchiveDecoder, forKey key: String) throws -> [Key: Value] {
        let entries = try decoder.decodeDictionary(keyType: CodableDecodedElement<Key>.self,
                                                   valueType: CodableDecodedElement<Value>.self, forKey: key)
        var result: [Key: Value] = [:]
        result.reserveCapacity(entries.count)
        for (k, v) in entries { result[k.value] = v.value }
        return result
    }
}

/// A Codable element of an archived collection, written by the Codable rules (see ``CodableArchiving``).
struct CodableEncodedElement<T: Encodable>: ArchiveValue {
    let value: T

    func encode(to encoder: any ArchiveEncoder, forKey key: String) throws {
        try CodableArchiving.encode(value, to: encoder, forKey: key, isElement: true, codingPath: [])
    }

    static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> CodableEncodedElement<T> {
        throw KeyedArchiveError(.invalidValue, "an encoded Codable element is only written, never read", keyPath: decoder.keyPath)
    }
}

extension CodableEncodedElement: Equatable where T: Equatable {}
extension CodableEncodedElement: Hashable where T: Hashable {}
/// Sets and dictionary keys that are `Comparable` are written in ascending order (the same bytes every time).
extension CodableEncodedElement: Comparable where T: Comparable {
    static func < (a: Self, b: Self) -> Bool { a.value < b.value }
}

/// A Codable element of an archived collection, read by the Codable rules.
struct CodableDecodedElement<T: Decodable>: ArchiveValue {
    let value: T

    func encode(to encoder: any ArchiveEncoder, forKey key: String) throws {
        throw KeyedArchiveError(.invalidValue, "a decoded Codable element is only read, never written", keyPath: key)
    }

    static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> CodableDecodedElement<T> {
        CodableDecodedElement(value: try CodableArchiving.decodingObject(decoder) {
            try CodableArchiving.decode(T.self, from: decoder, forKey: key, codingPath: [])
        })
    }
}

extension CodableDecodedElement: Equatable where T: Equatable {}
extension CodableDecodedElement: Hashable where T: Hashable {}
/// A decoded `Set<String>` or `[String: V]` tells apart the strings NSString keeps apart (see
/// `checkSameScalars` in `ArchiveObjectDecoder+Collections.swift`).
extension CodableDecodedElement: ArchivedStringKey where T == String {
    var archivedString: String { value }
}
