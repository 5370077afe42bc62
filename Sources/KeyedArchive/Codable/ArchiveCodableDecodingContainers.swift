#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The containers an ``ArchiveCodableDecoder`` hands to a `Decodable`'s `init(from:)`: an archived object's
// fields, an NSDictionary, an NSArray or NSSet, and a single value.

/// The fields of an archived object.
///
/// One stored reference (the decoder, which holds the archive decoder and the path): the standard library's
/// container box copies the container for every call, and each stored reference costs a retain and a release.
struct ArchiveObjectKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let owner: ArchiveCodableDecoder
    var archive: any ArchiveDecoder { owner.archive }
    var codingPath: [any CodingKey] { owner.codingPath }

    var allKeys: [Key] {
        guard let reader = archive.objectReading, let keys = try? reader.storedKeys() else { return [] }
        return keys.compactMap { Key(stringValue: $0) }
    }

    func contains(_ key: Key) -> Bool { archive.containsValue(forKey: key.stringValue) }

    @inline(__always)
    private func get<V: ArchiveValue>(_ type: V.Type, _ key: Key) throws -> V {
        try owner.decodeField(V.self, key.stringValue, key)
    }

    /// An absent key and `$null` are nil (as for hand-written models; NSNull is a value here).
    func decodeNil(forKey key: Key) throws -> Bool {
        try owner.decodeNilField(key.stringValue, key)
    }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try get(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try get(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try get(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try get(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try get(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try get(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try get(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try get(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try get(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try get(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try get(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try get(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try get(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try get(type, key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try owner.decodeCodableField(T.self, key.stringValue, key)
    }

    /// One look-up: an absent key and `$null` are both nil.
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        if try decodeNil(forKey: key) { return nil }
        return try decode(T.self, forKey: key)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let path = codingPath + [key]
        let cursor = try owner.open(archive, forKey: key.stringValue, dictionary: true, codingPath: codingPath)
        return KeyedDecodingContainer(try ArchiveDictionaryKeyedDecodingContainer<NestedKey>(cursor: cursor, owner: owner, codingPath: path))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let cursor = try owner.open(archive, forKey: key.stringValue, dictionary: false, codingPath: codingPath)
        return ArchiveUnkeyedDecodingContainer(cursor: cursor, owner: owner, codingPath: codingPath + [key])
    }

    func superDecoder() throws -> any Decoder { superDecoder(named: ArchiveCodingKey(stringValue: "super")) }
    func superDecoder(forKey key: Key) throws -> any Decoder { superDecoder(named: key) }

    private func superDecoder(named key: any CodingKey) -> any Decoder {
        let decoder = ArchiveCodableDecoder(field: archive, key: key.stringValue, codingPath: codingPath + [key])
        owner.adopt(decoder)
        return decoder
    }
}

/// The entries of an archived NSDictionary with string keys (a nested keyed container or a super encoder's).
struct ArchiveDictionaryKeyedDecodingContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let cursor: ArchiveCollectionCursor
    let owner: ArchiveCodableDecoder
    let codingPath: [any CodingKey]
    private let positions: [String: Int]

    init(cursor: ArchiveCollectionCursor, owner: ArchiveCodableDecoder, codingPath: [any CodingKey]) throws {
        self.cursor = cursor
        self.owner = owner
        self.codingPath = codingPath
        var positions: [String: Int] = [:]
        for i in 0 ..< cursor.count {
            let key: String
            do {
                key = try cursor.decodeKey(at: i) { try $0.decode(String.self, forKey: "") }
            } catch {
                throw CodableArchiving.decodingError(error, type: String.self, key: nil, codingPath: codingPath)
            }
            // Keys that NSDictionary keeps apart (their UTF-16 units differ) but Swift's `==` finds equal
            // (canonically equivalent) cannot both be looked up by name: fail rather than read one for both.
            if positions.updateValue(i, forKey: key) != nil, let kept = positions.index(forKey: key),
               !positions[kept].key.hasSameScalars(as: key) {
                throw DecodingError.dataCorrupted(.init(codingPath: codingPath, debugDescription:
                    positions[kept].key.equivalentKeysMessage(key, in: "dictionary") + " (entry \(i))"))
            }
        }
        self.positions = positions
    }

    var allKeys: [Key] { positions.keys.compactMap { Key(stringValue: $0) } }
    func contains(_ key: Key) -> Bool { positions[key.stringValue] != nil }

    private func read<R>(_ key: Key, _ type: Any.Type, _ body: (any ArchiveDecoder) throws -> R) throws -> R {
        guard let i = positions[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no entry \"\(key.stringValue)\" in the archived dictionary"
                                                        + CodableArchiving.missingKeyHint))
        }
        do { return try cursor.decodeElement(at: i, body) } catch {
            throw CodableArchiving.decodingError(error, type: type, key: key, codingPath: codingPath)
        }
    }

    @inline(__always)
    private func get<V: ArchiveValue>(_ type: V.Type, _ key: Key) throws -> V {
        try read(key, V.self) { try $0.decode(V.self, forKey: "") }
    }

    func decodeNil(forKey key: Key) throws -> Bool { try read(key, Never?.self) { try CodableArchiving.isNil($0, forKey: "") } }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try get(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try get(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try get(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try get(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try get(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try get(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try get(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try get(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try get(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try get(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try get(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try get(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try get(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try get(type, key) }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        let path = codingPath + [key]
        return try read(key, T.self) { try CodableArchiving.decode(T.self, from: $0, forKey: "", codingPath: path) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let path = codingPath + [key]
        let nested = try read(key, [String: Any].self) { try owner.open($0, forKey: "", dictionary: true, codingPath: path) }
        return KeyedDecodingContainer(try ArchiveDictionaryKeyedDecodingContainer<NestedKey>(cursor: nested, owner: owner, codingPath: path))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let path = codingPath + [key]
        let nested = try read(key, [Any].self) { try owner.open($0, forKey: "", dictionary: false, codingPath: path) }
        return ArchiveUnkeyedDecodingContainer(cursor: nested, owner: owner, codingPath: path)
    }

    func superDecoder() throws -> any Decoder { try superDecoder(named: ArchiveCodingKey(stringValue: "super")) }
    func superDecoder(forKey key: Key) throws -> any Decoder { try superDecoder(named: key) }

    private func superDecoder(named key: any CodingKey) throws -> any Decoder {
        guard let i = positions[key.stringValue] else {
            throw DecodingError.keyNotFound(key, .init(codingPath: codingPath, debugDescription: "no entry \"\(key.stringValue)\" in the archived dictionary"
                                                        + CodableArchiving.missingKeyHint))
        }
        let element = try cursor.decodeElement(at: i) { $0 }
        let decoder = ArchiveCodableDecoder(field: element, key: "", codingPath: codingPath + [key])
        owner.adopt(decoder)
        return decoder
    }
}

/// The elements of an archived NSArray or NSSet, read in order.
struct ArchiveUnkeyedDecodingContainer: UnkeyedDecodingContainer {
    let cursor: ArchiveCollectionCursor
    let owner: ArchiveCodableDecoder
    let codingPath: [any CodingKey]
    private(set) var currentIndex = 0

    init(cursor: ArchiveCollectionCursor, owner: ArchiveCodableDecoder, codingPath: [any CodingKey]) {
        self.cursor = cursor
        self.owner = owner
        self.codingPath = codingPath
    }

    var count: Int? { cursor.count }
    var isAtEnd: Bool { currentIndex >= cursor.count }

    private mutating func next<R>(_ type: Any.Type, _ body: (any ArchiveDecoder) throws -> R) throws -> R {
        let key = ArchiveCodingKey(intValue: currentIndex)
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: codingPath + [key], debugDescription: "the unkeyed container is at its end"))
        }
        do {
            let value = try cursor.decodeElement(at: currentIndex, body)
            currentIndex += 1
            return value
        } catch {
            throw CodableArchiving.decodingError(error, type: type, key: key, codingPath: codingPath)
        }
    }

    private mutating func get<V: ArchiveValue>(_ type: V.Type) throws -> V { try next(V.self) { try $0.decode(V.self, forKey: "") } }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else { return false }
        let isNil = try cursor.decodeElement(at: currentIndex) { try CodableArchiving.isNil($0, forKey: "") }
        if isNil { currentIndex += 1 }
        return isNil
    }
    mutating func decode(_ type: Bool.Type) throws -> Bool { try get(type) }
    mutating func decode(_ type: String.Type) throws -> String { try get(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try get(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try get(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try get(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try get(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try get(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try get(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try get(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try get(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try get(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try get(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try get(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try get(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let path = codingPath + [ArchiveCodingKey(intValue: currentIndex)]
        return try next(T.self) { try CodableArchiving.decode(T.self, from: $0, forKey: "", codingPath: path) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let path = codingPath + [ArchiveCodingKey(intValue: currentIndex)]
        let owner = owner
        let nested = try next([String: Any].self) { try owner.open($0, forKey: "", dictionary: true, codingPath: path) }
        return KeyedDecodingContainer(try ArchiveDictionaryKeyedDecodingContainer<NestedKey>(cursor: nested, owner: owner, codingPath: path))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let path = codingPath + [ArchiveCodingKey(intValue: currentIndex)]
        let owner = owner
        let nested = try next([Any].self) { try owner.open($0, forKey: "", dictionary: false, codingPath: path) }
        return ArchiveUnkeyedDecodingContainer(cursor: nested, owner: owner, codingPath: path)
    }

    mutating func superDecoder() throws -> any Decoder {
        let path = codingPath + [ArchiveCodingKey(intValue: currentIndex)]
        let element = try next(Any.self) { $0 }
        let decoder = ArchiveCodableDecoder(field: element, key: "", codingPath: path)
        owner.adopt(decoder)
        return decoder
    }
}

/// One value: the field under `key` (or the element).
struct ArchiveSingleValueDecodingContainer: SingleValueDecodingContainer {
    let archive: any ArchiveDecoder
    let key: String
    let codingPath: [any CodingKey]

    private func get<V: ArchiveValue>(_ type: V.Type) throws -> V {
        do { return try archive.decode(V.self, forKey: key) } catch {
            throw CodableArchiving.decodingError(error, type: V.self, key: nil, codingPath: codingPath)
        }
    }

    func decodeNil() -> Bool { (try? CodableArchiving.isNil(archive, forKey: key)) ?? false }
    func decode(_ type: Bool.Type) throws -> Bool { try get(type) }
    func decode(_ type: String.Type) throws -> String { try get(type) }
    func decode(_ type: Double.Type) throws -> Double { try get(type) }
    func decode(_ type: Float.Type) throws -> Float { try get(type) }
    func decode(_ type: Int.Type) throws -> Int { try get(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try get(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try get(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try get(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try get(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try get(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try get(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try get(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try get(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try get(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try CodableArchiving.decode(T.self, from: archive, forKey: key, codingPath: codingPath)
    }
}
