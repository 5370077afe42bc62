#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A Swift `Decoder` that reads a value's Codable encoding through an ``ArchiveDecoder``: the reading half
/// of ``ArchiveCodableEncoder``.
///
/// - **object** role (`key` nil): a keyed container reads the object's fields; a single-value container
///   reads ``ArchivableCodableKeys/value``; an unkeyed container reads the NSArray under
///   ``ArchivableCodableKeys/elements``.
/// - **field** role: the value under `key` of the object (or the element) `archive` reads; keyed containers
///   read an NSDictionary, unkeyed ones an NSArray or NSSet, single-value ones the value itself.
///
/// Collections opened by containers stay entered (depth, cycles) until ``close()``, which the code that
/// made this decoder calls once the value's `init(from:)` has returned.
final class ArchiveCodableDecoder: Decoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }
    let archive: any ArchiveDecoder
    /// Object role: `archive` when it is the unarchiver's decoder, for the reads of arrays of strings and of
    /// models that it answers directly (found once per object, not per field).
    let reader: ArchiveObjectDecoder?
    /// The field read in the field role; nil in the object role.
    let key: String?
    private var cursors: [ArchiveCollectionCursor] = []
    /// Field role: the Codable type being read, whose name a nested object of it would have as its class.
    var expectedType: Any.Type?
    private var children: [ArchiveCodableDecoder] = []

    init(object archive: any ArchiveDecoder, codingPath: [any CodingKey]) {
        self.archive = archive
        self.reader = archive as? ArchiveObjectDecoder
        self.key = nil
        self.codingPath = codingPath
    }

    init(field archive: any ArchiveDecoder, key: String, codingPath: [any CodingKey]) {
        self.archive = archive
        self.reader = nil
        self.key = key
        self.codingPath = codingPath
    }

    /// Leaves every collection this decoder's containers opened, in reverse order.
    func close() {
        for child in children.reversed() { child.close() }
        children = []
        for cursor in cursors.reversed() { cursor.close() }
        cursors = []
    }

    func adopt(_ child: ArchiveCodableDecoder) { children.append(child) }

    // Reads for the object role's keyed container, here so that the archive decoder (a `let` of this
    // class) is used without a retain and release per field.

    // The coding key comes as its name and, for errors only, the key itself (not generic over the key type,
    // so that the calls are specialized for the value types).

    func decodeField<V: ArchiveValue>(_ type: V.Type, _ name: String, _ key: @autoclosure () -> any CodingKey) throws -> V {
        do { return try archive.decode(V.self, forKey: name) } catch {
            throw CodableArchiving.decodingError(error, type: V.self, key: key(), codingPath: codingPath)
        }
    }

    func decodeNilField(_ name: String, _ key: @autoclosure () -> any CodingKey) throws -> Bool {
        do { return try archive.decodeNil(forKey: name) } catch {
            throw CodableArchiving.decodingError(error, type: Never?.self, key: key(), codingPath: codingPath)
        }
    }

    func decodeCodableField<T: Decodable>(_ type: T.Type, _ name: String, _ key: @autoclosure () -> any CodingKey) throws -> T {
        do {
            return try CodableArchiving.decode(T.self, from: archive, reader: reader, forKey: name, codingPath: codingPath + [key()])
        } catch {
            throw CodableArchiving.decodingError(error, type: T.self, key: key(), codingPath: codingPath)
        }
    }

    /// Opens the collection under `key` of `archive`, closed with this decoder.
    func open(_ archive: any ArchiveDecoder, forKey key: String, dictionary: Bool, codingPath: [any CodingKey])
        throws -> ArchiveCollectionCursor
    {
        guard let reader = archive.objectReading else {
            throw DecodingError.typeMismatch(dictionary ? [String: Any].self : [Any].self, .init(codingPath: codingPath,
                debugDescription: "this ArchiveDecoder cannot read Codable containers element by element"))
        }
        do {
            let cursor = try reader.openCollection(forKey: key, dictionary: dictionary)
            cursors.append(cursor)
            return cursor
        } catch {
            throw CodableArchiving.decodingError(error, type: dictionary ? [String: Any].self : [Any].self,
                                                 key: ArchiveCodingKey(stringValue: key), codingPath: codingPath)
        }
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        guard let key else {
            return KeyedDecodingContainer(ArchiveObjectKeyedDecodingContainer<Key>(owner: self))
        }
        if let expectedType, let reader = archive.objectReading,
           case .object(let name) = try storedKind(reader, key), !CodableArchiving.foundationClassNames.contains(name) {
            let path = archive.keyPath
            let error = KeyedArchiveError(.classNotAllowed,
                                          "class \"\(name)\" is not allowed here; expected \(String(reflecting: expectedType))"
                                              + ArchivedClassNameRules.renamedClassHint(for: name),
                                          keyPath: key.isEmpty ? path : (path.isEmpty ? key : path + "." + key), className: name)
            throw CodableArchiving.decodingError(error, type: expectedType, key: nil, codingPath: codingPath)
        }
        let cursor = try open(archive, forKey: key, dictionary: true, codingPath: codingPath)
        return KeyedDecodingContainer(try ArchiveDictionaryKeyedDecodingContainer<Key>(cursor: cursor, owner: self, codingPath: codingPath))
    }

    private func storedKind(_ decoder: any ArchiveObjectReading, _ key: String) throws -> ArchiveStoredValueKind {
        do { return try decoder.storedValueKind(forKey: key) } catch {
            throw CodableArchiving.decodingError(error, type: Any.self, key: nil, codingPath: codingPath)
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let cursor = try open(archive, forKey: key ?? ArchivableCodableKeys.elements, dictionary: false, codingPath: codingPath)
        return ArchiveUnkeyedDecodingContainer(cursor: cursor, owner: self, codingPath: codingPath)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        ArchiveSingleValueDecodingContainer(archive: archive, key: key ?? ArchivableCodableKeys.value, codingPath: codingPath)
    }
}

// MARK: - Reading one value

extension CodableArchiving {
    /// Foundation classes that hold a plain value or a collection, never a nested Codable object.
    static let foundationClassNames: Set<String> = [
        "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet",
        "NSDictionary", "NSMutableDictionary", "NSString", "NSMutableString", "NSData", "NSMutableData",
        "NSDate", "NSUUID", "NSURL", "NSNull", "NSNumber",
    ]

    /// Reads a Codable value under `key`, by the rules ``encode(_:to:forKey:isElement:codingPath:)`` writes it.
    ///
    /// Only `T`'s own structure decides what may be instantiated: ``ArchiveValue`` types through the
    /// hand-written coding (models by their archived class names), other Codable values as objects whose
    /// class name must be one of `T`'s names (`String(reflecting: T.self)` or its ``ArchiveNamed`` names, or a
    /// name the unarchiver maps to `T`), checked before `T.init(from:)` runs.
    static func decode<T: Decodable>(_ type: T.Type, from archive: any ArchiveDecoder, forKey key: String,
                                     codingPath: @autoclosure () -> [any CodingKey]) throws -> T {
        try decode(T.self, from: archive, reader: nil, forKey: key, codingPath: codingPath())
    }

    /// ``decode(_:from:forKey:codingPath:)`` given `archive` as the unarchiver's decoder when the caller has it
    /// (`reader`; nil: `archive` is cast where that decoder reads an array directly).
    static func decode<T: Decodable>(_ type: T.Type, from archive: any ArchiveDecoder, reader: ArchiveObjectDecoder?, forKey key: String,
                                     codingPath: @autoclosure () -> [any CodingKey]) throws -> T {
        // The plain values a model's fields hold most, by a metadata compare (no cache look-up).
        if T.self == Date.self { return unsafeBitCast(try decodeTyped(Date.self, archive, key, codingPath()), to: T.self) }
        if T.self == Data.self { return unsafeBitCast(try decodeTyped(Data.self, archive, key, codingPath()), to: T.self) }
        if T.self == String.self { return unsafeBitCast(try decodeTyped(String.self, archive, key, codingPath()), to: T.self) }
        if T.self == UUID.self { return unsafeBitCast(try decodeTyped(UUID.self, archive, key, codingPath()), to: T.self) }
        if T.self == URL.self { return unsafeBitCast(try decodeTyped(URL.self, archive, key, codingPath()), to: T.self) }
        // Arrays of strings and of models, read by the unarchiver's decoder as the element wrapper
        // (`CodableDecodedElement`) reads them, with the same checks and errors.
        if T.self == [String].self, let reader = reader ?? archive as? ArchiveObjectDecoder {
            do {
                let strings = try reader.decodeCodableStringArray(forKey: key, expected: "an array of \(CodableDecodedElement<String>.self)")
                return unsafeBitCast(strings, to: T.self)  // T is [String]
            } catch {
                throw decodingError(error, type: T.self, key: nil, codingPath: codingPath(), prefix: true)
            }
        }
        let typeKind = CodableDecodingKind.cache.kind(of: T.self) { CodableDecodingKind(T.self) }
        if let optional = typeKind.optional {
            return try optional.decodeCodableOptional(T.self, from: archive, forKey: key, codingPath: codingPath())
        }
        if let collection = typeKind.collection {
            do {
                // The reading's fields are read in place (its `expected` only for an error), not copied.
                if let element = typeKind.instanceArray?.element, let reader = reader ?? archive as? ArchiveObjectDecoder {
                    return try element.decodeCodableInstanceArray(T.self, from: reader, forKey: key,
                                                                  expected: typeKind.instanceArray?.expected ?? "")
                }
                return try collection.decodeCodableCollection(T.self, from: archive, forKey: key)
            } catch {
                throw decodingError(error, type: T.self, key: nil, codingPath: codingPath(), prefix: true)
            }
        }
        if let archivable = typeKind.archiveValue {
            do {
                return try archivable.decodeCodableValue(T.self, from: archive, forKey: key)
            } catch {
                throw decodingError(error, type: T.self, key: nil, codingPath: codingPath(), prefix: true)
            }
        }
        if let measurement = typeKind.measurement {
            do {
                return try measurement.decode(T.self, from: archive, forKey: key)
            } catch {
                throw decodingError(error, type: T.self, key: nil, codingPath: codingPath(), prefix: true)
            }
        }
        if typeKind.isClass {
            throw DecodingError.typeMismatch(T.self, .init(codingPath: codingPath(), debugDescription:
                "class \(T.self) must adopt ArchivableCodable to be unarchived (a class instance is archived once, with its identity)"))
        }
        return try decodeNested(T.self, from: archive, forKey: key, codingPath: codingPath())
    }

    /// Reads a Codable value that is neither an ``ArchiveValue`` nor a collection: a nested object of its
    /// type's name, or what its own `init(from:)` asks for.
    ///
    /// Apart from ``decode(_:from:forKey:codingPath:)`` so that the fields a model holds most do not pay for
    /// this path's generic metadata (`CodableDecodedObject<T>`, looked up in the runtime's cache on every
    /// call of an unspecialized generic function that names it).
    @inline(never)
    private static func decodeNested<T: Decodable>(_ type: T.Type, from archive: any ArchiveDecoder, forKey key: String,
                                                   codingPath: [any CodingKey]) throws -> T {
        let kind: ArchiveStoredValueKind
        do {
            kind = try archive.objectReading?.storedValueKind(forKey: key) ?? .object("")
        } catch {
            throw decodingError(error, type: T.self, key: nil, codingPath: codingPath)
        }
        // A nested Codable value written as an object carries its type's name; any other object here is what
        // a single-value container wrote (a wrapper around a model), read through the field role, where a
        // keyed container refuses it (see `ArchiveCodableDecoder.container(keyedBy:)`).
        if case .object(let name) = kind, ArchiveAllowList.isNestedObject(named: name, of: CodableDecodedObject<T>.self, in: archive) {
            do {
                return try archive.decodeObject(of: CodableDecodedObject<T>.self, forKey: key).value
            } catch {
                throw decodingError(error, type: T.self, key: nil, codingPath: codingPath, prefix: true)
            }
        }
        let decoder = ArchiveCodableDecoder(field: archive, key: key, codingPath: codingPath)
        decoder.expectedType = T.self
        defer { decoder.close() }
        return try T(from: decoder)
    }

    @inline(__always)
    private static func decodeTyped<V: ArchiveValue>(_ type: V.Type, _ archive: any ArchiveDecoder, _ key: String,
                                                     _ codingPath: @autoclosure () -> [any CodingKey]) throws -> V {
        do { return try archive.decode(V.self, forKey: key) } catch {
            throw decodingError(error, type: V.self, key: nil, codingPath: codingPath())
        }
    }

    /// Whether the value under `key` is absent, `$null` or NSNull.
    static func isNil(_ archive: any ArchiveDecoder, forKey key: String) throws -> Bool {
        if try archive.decodeNil(forKey: key) { return true }
        if case .object("NSNull")? = try archive.objectReading?.storedValueKind(forKey: key) { return true }
        return false
    }

    /// The error a Codable user expects for a failed read: the archive's error becomes a `DecodingError`
    /// (with the archive's location in its description, and the error itself as `underlyingError`); a
    /// `DecodingError` from a nested value read with its own coding path gets this one in front (`prefix`).
    static func decodingError(_ error: any Error, type: Any.Type, key: (any CodingKey)?, codingPath: [any CodingKey],
                              prefix: Bool = false) -> any Error {
        if let decodingError = error as? DecodingError {
            return prefix ? prefixed(decodingError, codingPath) : decodingError
        }
        guard let archiveError = error as? KeyedArchiveError else { return error }
        let path = key.map { codingPath + [$0] } ?? codingPath
        // The summary leaves the what and where to `underlyingError`, so that a printed error says them once.
        func context(_ summary: String, _ path: [any CodingKey]) -> DecodingError.Context {
            .init(codingPath: path, debugDescription: summary + " (see the underlying KeyedArchiveError)", underlyingError: archiveError)
        }
        switch archiveError.code {
        case .keyNotFound:
            let key = key ?? ArchiveCodingKey(stringValue: "")
            return DecodingError.keyNotFound(key, context("the archived object has no key \"\(key.stringValue)\""
                                                          + missingKeyHint, codingPath))
        case .valueNotFound:
            return DecodingError.valueNotFound(type, context("the archive holds no value where a \(type) is expected", path))
        case .typeMismatch, .classNotAllowed:
            return DecodingError.typeMismatch(type, context("the archived value cannot be read as \(type)", path))
        default:
            return DecodingError.dataCorrupted(context("the archive cannot be read here (\(archiveError.code))", path))
        }
    }

    /// What a Codable `keyNotFound` message adds: how a model reads archives written before a property existed.
    static let missingKeyHint = "; a property added since the archive was written reads a default when declared "
        + "@DefaultWhenMissing (or @DefaultFrom<Provider>), or nil when it is optional"

    /// `error` with `prefix` in front of its coding path, unless its path already starts at the archive's
    /// top-level key (see ``anchored(_:at:)``).
    private static func prefixed(_ error: DecodingError, _ prefix: [any CodingKey]) -> DecodingError {
        guard !prefix.isEmpty, !isAnchored(error) else { return error }
        return error.withCodingPath { prefix + $0 }
    }
}

/// An `Optional` of a Codable type, read as nil from an absent key, `$null` or NSNull.
protocol ArchiveOptionalDecodable {
    static func decodeArchiveOptional(from archive: any ArchiveDecoder, forKey key: String, codingPath: [any CodingKey]) throws -> Self
}

extension Optional: ArchiveOptionalDecodable where Wrapped: Decodable {
    static func decodeArchiveOptional(from archive: any ArchiveDecoder, forKey key: String, codingPath: [any CodingKey]) throws -> Wrapped? {
        do {
            if try CodableArchiving.isNil(archive, forKey: key) { return nil }
        } catch {
            throw CodableArchiving.decodingError(error, type: Wrapped.self, key: nil, codingPath: codingPath)
        }
        return try CodableArchiving.decode(Wrapped.self, from: archive, forKey: key, codingPath: codingPath)
    }
}
