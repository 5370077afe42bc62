import Foundation
import KeyedArchive

/// The floor of the work a Codable coder of ``CollectionsWorkload``'s ``CodableArrayPerson`` does that is
/// Codable's own: each person's synthesized `init(from:)` or `encode(to:)` run once, with a `Decoder` that hands
/// out fixed values (``FixedValueDecoder``) or an `Encoder` that keeps nothing (``FieldTouchingCodableEncoder``).
/// What is left is what every `Decoder`/`Encoder` pays on this model: the keyed container made per object and
/// boxed by the standard library, the calls through that box, the coding keys, the generic `decode<T>`/
/// `encode<T>` calls for dates, data and arrays; and for decoding, making each person. Nothing about an
/// archive (look-ups, checks, identities, bytes) is in it.
struct CodableFloor {
    let people: [CodableArrayPerson]

    /// Decodes `people.count` persons with a ``FixedValueDecoder``; returns a value made from all of them.
    func decodeAll() throws -> Int {
        let decoder = FixedValueDecoder(friends: Array(people.prefix(3)))
        var result: [CodableArrayPerson] = []
        result.reserveCapacity(people.count)
        for _ in people { result.append(try CodableArrayPerson(from: decoder as any Decoder)) }
        return keep(result).count &+ decoder.reads
    }

    /// Encodes every person once into a ``FieldTouchingCodableEncoder`` (friends are not followed: each person
    /// is encoded here); returns what the encoder folded.
    func encodeAll() throws -> Int {
        let encoder = FieldTouchingCodableEncoder()
        for person in people { try person.encode(to: encoder as any Encoder) }
        guard !encoder.metUnusedContainer else { throw FloorError.notUsedByTheModel }
        return encoder.sink
    }
}

/// A `Decoder` whose keyed container answers every read with a fixed value of the asked type (a person's
/// friends: three persons made before), counting the reads so that none can be left out.
final class FixedValueDecoder: Decoder {
    let friends: [CodableArrayPerson]
    let name = PersonData.name(123)
    let tags = PersonData.tags(123)
    let avatar = PersonData.avatar(123)
    var reads = 0
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    init(friends: [CodableArrayPerson]) { self.friends = friends }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(FixedValueContainer<Key>(decoder: self))
    }
    func unkeyedContainer() throws -> any UnkeyedDecodingContainer { throw FloorError.notUsedByTheModel }
    func singleValueContainer() throws -> any SingleValueDecodingContainer { throw FloorError.notUsedByTheModel }
}

/// What the floor's coders throw for a container or value the model does not use.
enum FloorError: Error {
    case notUsedByTheModel
}

/// ``FixedValueDecoder``'s keyed container.
struct FixedValueContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: FixedValueDecoder
    var codingPath: [any CodingKey] { [] }
    var allKeys: [Key] { [] }
    func contains(_ key: Key) -> Bool { true }
    func decodeNil(forKey key: Key) throws -> Bool { false }
    func decode(_ type: String.Type, forKey key: Key) throws -> String {
        decoder.reads &+= 1
        return decoder.name
    }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int {
        decoder.reads &+= 1
        return decoder.reads
    }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double {
        decoder.reads &+= 1
        return 1.5
    }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        decoder.reads &+= 1
        // The values of the asked types, by a metadata compare (as a Codable adapter tells them apart).
        if T.self == Date.self { return unsafeBitCast(PersonData.birthday(decoder.reads), to: T.self) }
        if T.self == Data.self { return unsafeBitCast(decoder.avatar, to: T.self) }
        if T.self == [String].self { return unsafeBitCast(decoder.tags, to: T.self) }
        if T.self == [CodableArrayPerson].self { return unsafeBitCast(decoder.friends, to: T.self) }
        throw FloorError.notUsedByTheModel
    }
    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey> { throw FloorError.notUsedByTheModel }
    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer { throw FloorError.notUsedByTheModel }
    func superDecoder() throws -> any Decoder { throw FloorError.notUsedByTheModel }
    func superDecoder(forKey key: Key) throws -> any Decoder { throw FloorError.notUsedByTheModel }
}

/// An `Encoder` that keeps nothing: each value is folded into ``sink`` (a string's or data value's first
/// byte and count, a number's bits, an array's count), so the caller's work cannot be optimised away.
/// Containers the model does not use are answered with ``UnusedContainer``, which marks ``metUnusedContainer``.
final class FieldTouchingCodableEncoder: Encoder {
    var sink = 0
    var metUnusedContainer = false
    var codingPath: [any CodingKey] { [] }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func fold(_ value: Int) { sink = sink &* 31 &+ value }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        KeyedEncodingContainer(FieldTouchingContainer<Key>(encoder: self))
    }
    func unkeyedContainer() -> any UnkeyedEncodingContainer { UnusedContainer(encoder: self) }
    func singleValueContainer() -> any SingleValueEncodingContainer { UnusedContainer(encoder: self) }
}

/// ``FieldTouchingCodableEncoder``'s keyed container.
struct FieldTouchingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let encoder: FieldTouchingCodableEncoder
    var codingPath: [any CodingKey] { [] }

    func encodeNil(forKey key: Key) throws { encoder.fold(0) }
    func encode(_ value: String, forKey key: Key) throws {
        var value = value
        encoder.fold(value.withUTF8 { Int($0.first ?? 0) &+ $0.count })
    }
    func encode(_ value: Int, forKey key: Key) throws { encoder.fold(value) }
    func encode(_ value: Double, forKey key: Key) throws { encoder.fold(Int(bitPattern: UInt(value.bitPattern))) }
    func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        // The values of the model's types, by a metadata compare; friends are counted, not followed.
        if T.self == Date.self {
            encoder.fold(Int(unsafeBitCast(value, to: Date.self).timeIntervalSinceReferenceDate))
        } else if T.self == Data.self {
            let data = unsafeBitCast(value, to: Data.self)
            encoder.fold(Int(data.first ?? 0) &+ data.count)
        } else if T.self == [String].self {
            for var tag in unsafeBitCast(value, to: [String].self) { encoder.fold(tag.withUTF8 { Int($0.first ?? 0) &+ $0.count }) }
        } else if T.self == [CodableArrayPerson].self {
            encoder.fold(unsafeBitCast(value, to: [CodableArrayPerson].self).count)
        } else {
            throw FloorError.notUsedByTheModel
        }
    }
    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        encoder.metUnusedContainer = true
        return KeyedEncodingContainer(FieldTouchingContainer<NestedKey>(encoder: encoder))
    }
    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer { UnusedContainer(encoder: encoder) }
    func superEncoder() -> any Encoder { encoder }
    func superEncoder(forKey key: Key) -> any Encoder { encoder }
}

/// The unkeyed and single-value containers of ``FieldTouchingCodableEncoder``, which the model does not use:
/// asking for one marks the encoder, whose floor run then throws; any value given to it throws.
struct UnusedContainer: UnkeyedEncodingContainer, SingleValueEncodingContainer {
    let encoder: FieldTouchingCodableEncoder
    var codingPath: [any CodingKey] { [] }
    var count: Int { 0 }

    init(encoder: FieldTouchingCodableEncoder) {
        self.encoder = encoder
        encoder.metUnusedContainer = true
    }

    func encodeNil() throws { throw FloorError.notUsedByTheModel }
    func encode<T: Encodable>(_ value: T) throws { throw FloorError.notUsedByTheModel }
    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        KeyedEncodingContainer(FieldTouchingContainer<NestedKey>(encoder: encoder))
    }
    func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer { self }
    func superEncoder() -> any Encoder { encoder }
}
