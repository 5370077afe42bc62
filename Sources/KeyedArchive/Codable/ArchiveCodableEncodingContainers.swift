// The encoding containers ``ArchiveCodableEncoder`` hands out, and the coding key it makes for an index.

/// One stored reference (the encoder): the standard library's container box copies the container for
/// every call, and each stored reference costs a retain and a release. Fields are written by the encoder's
/// `encodeField`/`encodeCodableField`.
struct ArchiveKeyedEncodingContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let owner: ArchiveCodableEncoder
    private var sink: any ArchiveEncoder { owner.keyedSink }
    var codingPath: [any CodingKey] { owner.codingPath }

    @inline(__always)
    private func put<V: ArchiveValue>(_ value: V, _ key: Key) throws {
        try owner.encodeField(value, key.stringValue, key)
    }

    mutating func encodeNil(forKey key: Key) throws {
        do { try sink.encodeNil(forKey: key.stringValue) } catch {
            throw CodableArchiving.encodingError(error, value: Optional<Int>.none as Any, codingPath: codingPath + [key])
        }
    }
    mutating func encode(_ value: Bool, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: String, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Double, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Float, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try put(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try put(value, key) }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try owner.encodeCodableField(value, key.stringValue, key)
    }

    // Optionals: nil is written as `$null`, as `NSCoder.encode(nil, forKey:)` and hand-written models write it,
    // so every instance of a type has the same keys.
    mutating func encodeIfPresent(_ value: Bool?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: String?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Double?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Float?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int8?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int16?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int32?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: Int64?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt8?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt16?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt32?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent(_ value: UInt64?, forKey key: Key) throws { try optional(value, key) }
    mutating func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    @inline(__always)
    private mutating func optional<V: ArchiveValue>(_ value: V?, _ key: Key) throws {
        if let value { try put(value, key) } else { try encodeNil(forKey: key) }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key)
        -> KeyedEncodingContainer<NestedKey>
    {
        nested(key).container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        nested(key).unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder {
        nested(ArchiveCodingKey(stringValue: "super"))
    }

    mutating func superEncoder(forKey key: Key) -> any Encoder {
        nested(key)
    }

    /// A value under `key` written when the enclosing value is complete.
    private func nested(_ key: any CodingKey) -> ArchiveCodableEncoder {
        let encoder = ArchiveCodableEncoder(fieldAt: codingPath + [key])
        let path = codingPath + [key]
        owner.later(key.stringValue) { sink, name, isElement in
            do { try encoder.flush(to: sink, forKey: name, isElement: isElement) } catch {
                throw CodableArchiving.encodingError(error, value: name, codingPath: path)
            }
        }
        return encoder
    }
}

struct ArchiveUnkeyedEncodingContainer: UnkeyedEncodingContainer {
    let recorder: ArchiveCallRecorder
    let codingPath: [any CodingKey]
    var count: Int { recorder.calls.count }

    private var nextKey: ArchiveCodingKey { ArchiveCodingKey(intValue: count) }

    mutating func encodeNil() throws { try recorder.encodeNil(forKey: "") }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let key = nextKey
        do { try CodableArchiving.encode(value, to: recorder, forKey: "", isElement: true, codingPath: codingPath + [key]) } catch {
            throw CodableArchiving.encodingError(error, value: value, codingPath: codingPath + [key])
        }
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        nested().container(keyedBy: keyType)
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        nested().unkeyedContainer()
    }

    mutating func superEncoder() -> any Encoder { nested() }

    private func nested() -> ArchiveCodableEncoder {
        let path = codingPath + [nextKey]
        let encoder = ArchiveCodableEncoder(fieldAt: path)
        recorder.record("") { sink, name, isElement in
            do { try encoder.flush(to: sink, forKey: name, isElement: isElement) } catch {
                throw CodableArchiving.encodingError(error, value: name, codingPath: path)
            }
        }
        return encoder
    }
}

struct ArchiveSingleValueEncodingContainer: SingleValueEncodingContainer {
    let sink: any ArchiveEncoder
    let key: String
    let isElement: Bool
    let codingPath: [any CodingKey]

    mutating func encodeNil() throws {
        do {
            if isElement { try sink.encodeObject(ArchiveNull(), forKey: key) } else { try sink.encodeNil(forKey: key) }
        } catch {
            throw CodableArchiving.encodingError(error, value: Optional<Int>.none as Any, codingPath: codingPath)
        }
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        do { try CodableArchiving.encode(value, to: sink, forKey: key, isElement: isElement, codingPath: codingPath) } catch {
            throw CodableArchiving.encodingError(error, value: value, codingPath: codingPath)
        }
    }
}

/// A coding key made from a string or an index.
struct ArchiveCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }
    init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}
