#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An ``ArchiveEncoder`` that records the calls made to it, to replay them later on the real archiver.
///
/// The Codable adapter needs it where Swift's `Encoder` protocol gives no end signal: the fields of a
/// nested Codable value, the elements of an unkeyed container and nested containers are only complete
/// when the value's `encode(to:)` returns, and are then written as an object, an NSArray or an NSDictionary.
final class ArchiveCallRecorder: ArchiveEncoder {
    /// Writes one recorded value: to an encoder, under a key, as a collection element or a field.
    typealias Replay = (_ encoder: any ArchiveEncoder, _ key: String, _ isElement: Bool) throws -> Void

    private(set) var calls: [(key: String, replay: Replay)] = []

    func record(_ key: String, _ replay: @escaping Replay) {
        calls.append((key, replay))
    }

    /// Records a call that is written the same way as a field and as an element.
    private func put(_ key: String, _ write: @escaping (any ArchiveEncoder, String) throws -> Void) {
        calls.append((key, { encoder, key, _ in try write(encoder, key) }))
    }

    /// Replays every call as a field of the object `encoder` is writing.
    func replayFields(to encoder: any ArchiveEncoder) throws {
        for call in calls { try call.replay(encoder, call.key, false) }
    }

    /// The recorded values as elements, in order.
    var elements: [RecordedArchiveValue] { calls.map { RecordedArchiveValue(replay: $0.replay) } }

    /// The recorded values as a dictionary keyed by their keys (the last value of a key wins).
    var dictionary: [String: RecordedArchiveValue] {
        var result: [String: RecordedArchiveValue] = [:]
        for call in calls { result[call.key] = RecordedArchiveValue(replay: call.replay) }
        return result
    }

    func encode(_ value: Bool, forKey key: String) throws { put(key) { try $0.encode(value, forKey: $1) } }
    func encodeInteger<T: FixedWidthInteger>(_ value: T, forKey key: String) throws {
        put(key) { try $0.encodeInteger(value, forKey: $1) }
    }
    func encode(_ value: Float, forKey key: String) throws { put(key) { try $0.encode(value, forKey: $1) } }
    func encode(_ value: Double, forKey key: String) throws { put(key) { try $0.encode(value, forKey: $1) } }
    func encode(_ value: String, forKey key: String) throws { put(key) { try $0.encode(value, forKey: $1) } }
    func encode(_ value: Data, forKey key: String) throws { put(key) { try $0.encode(value, forKey: $1) } }
    func encode(_ value: Date, forKey key: String) throws { put(key) { try $0.encode(value, forKey: $1) } }
    func encode(_ value: UUID, forKey key: String) throws { put(key) { try $0.encode(value, forKey: $1) } }
    func encode(_ value: URL, forKey key: String) throws { put(key) { try $0.encode(value, forKey: $1) } }
    func encodeNil(forKey key: String) throws {
        // NSArray and NSDictionary cannot hold nil: an element is written as NSNull, as Foundation does.
        record(key) { encoder, key, isElement in
            if isElement { try encoder.encodeObject(ArchiveNull(), forKey: key) } else { try encoder.encodeNil(forKey: key) }
        }
    }
    func encodeIntegerObject<T: FixedWidthInteger>(_ value: T, forKey key: String) throws {
        put(key) { try $0.encodeIntegerObject(value, forKey: $1) }
    }
    func encodeRealObject(_ value: Double, forKey key: String) throws { put(key) { try $0.encodeRealObject(value, forKey: $1) } }
    func encodeObject<T: KeyedArchivable>(_ object: T, forKey key: String) throws {
        put(key) { try $0.encodeObject(object, forKey: $1) }
    }
    func encodeConditionalObject<T: KeyedArchivable & AnyObject>(_ object: T?, forKey key: String) throws {
        put(key) { try $0.encodeConditionalObject(object, forKey: $1) }
    }
    func encodeArray<T: ArchiveValue>(_ elements: [T], forKey key: String) throws {
        put(key) { try $0.encodeArray(elements, forKey: $1) }
    }
    func encodeSet<T: ArchiveValue & Hashable>(_ elements: Set<T>, forKey key: String) throws {
        put(key) { try $0.encodeSet(elements, forKey: $1) }
    }
    func encodeDictionary<K: ArchiveValue & Hashable, V: ArchiveValue>(_ dictionary: [K: V], forKey key: String) throws {
        put(key) { try $0.encodeDictionary(dictionary, forKey: $1) }
    }
    func encodeOrderedSet<T: ArchiveValue>(_ elements: [T], forKey key: String) throws {
        put(key) { try $0.encodeOrderedSet(elements, forKey: $1) }
    }
    func encodeSet<T: ArchiveValue & Hashable>(orderedElements elements: [T], forKey key: String) throws {
        put(key) { try $0.encodeSet(orderedElements: elements, forKey: $1) }
    }
}

/// One recorded value written as an element of an NSArray or NSDictionary (encoding only).
struct RecordedArchiveValue: ArchiveValue {
    let replay: ArchiveCallRecorder.Replay

    func encode(to encoder: any ArchiveEncoder, forKey key: String) throws {
        try replay(encoder, key, true)
    }

    static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> RecordedArchiveValue {
        throw KeyedArchiveError(.invalidValue, "a recorded value is only written, never read", keyPath: decoder.keyPath)
    }
}
