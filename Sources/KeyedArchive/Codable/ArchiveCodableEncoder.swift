#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A Swift `Encoder` that writes a value's Codable encoding through an ``ArchiveEncoder``.
///
/// Two roles:
/// - **object**: the fields of an ``ArchivableCodable`` object (or of a nested Codable value written as an
///   object). A keyed container writes straight to the archiver, with the same typed calls a hand-written
///   `encode(to:)` makes; a single-value container writes under ``ArchivableCodableKeys/value``; an unkeyed
///   container writes an NSArray under ``ArchivableCodableKeys/elements``.
/// - **field**: one value (a field, a collection element, a nested container or a super encoder) whose form
///   is known only once its `encode(to:)` asks for a container; what it writes is recorded and written when
///   it is complete (``finish(_:to:forKey:isElement:)`` / ``flush(to:forKey:isElement:)``).
final class ArchiveCodableEncoder: Encoder {
    let codingPath: [any CodingKey]
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Object role: the archiver writing the object, and the writes left for the end (nested containers).
    private let objectSink: (any ArchiveEncoder)?
    /// Object role: `objectSink` when it is the ``KeyedArchiver`` (always, but for a model written into a
    /// recorder): the keyed container's fields are written to it without an existential copy per field.
    private let archiver: KeyedArchiver?
    private var deferred: [(key: String, replay: ArchiveCallRecorder.Replay)] = []

    /// Field role: what the value asked for.
    private var fields: ArchiveCallRecorder?
    private var elements: ArchiveCallRecorder?
    private var single: ArchiveCallRecorder?

    /// Object role, for the encoder an archiver reuses for every Codable object it writes
    /// (``KeyedArchiver/reusableCodableObjectEncoder()``): whether an object is being written with it, and the
    /// keyed containers handed out last (a few coding-key types: a class's and its superclass's), for the next
    /// objects with the same coding keys. They refer to this encoder: the archiver drops them with it
    /// (``forgetKeyedContainers()``).
    var isWritingObject = false
    private let keepsKeyedContainers: Bool
    private var keyedContainers: [(key: ObjectIdentifier, kept: AnyObject)] = []
    /// The entry of `keyedContainers` replaced next once it holds `keptKeyedContainerLimit` entries.
    private var nextReplacedContainer = 0
    private static let keptKeyedContainerLimit = 4

    /// An encoder for the fields of the object `archive` is writing.
    init(object archive: any ArchiveEncoder, codingPath: [any CodingKey]) {
        self.objectSink = archive
        self.archiver = archive as? KeyedArchiver
        self.codingPath = codingPath
        self.keepsKeyedContainers = false
    }

    /// An encoder for the fields of the objects `archiver` writes, one after the other (see
    /// ``isWritingObject``): it keeps its keyed containers from one object to the next.
    init(reusedBy archiver: KeyedArchiver) {
        self.objectSink = archiver
        self.archiver = archiver
        self.codingPath = []
        self.keepsKeyedContainers = true
    }

    /// An encoder for one value, recorded until it is complete.
    init(fieldAt codingPath: [any CodingKey]) {
        self.objectSink = nil
        self.archiver = nil
        self.codingPath = codingPath
        self.keepsKeyedContainers = false
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        if keepsKeyedContainers {
            // The container holds nothing but this encoder: the one made for an earlier object serves.
            let id = ObjectIdentifier(Key.self)
            for (key, kept) in keyedContainers where key == id {
                return unsafeDowncast(kept, to: KeptKeyedContainer<Key>.self).container  // made below for `Key`
            }
            let container = KeyedEncodingContainer(ArchiveKeyedEncodingContainer<Key>(owner: self))
            let entry = (id, KeptKeyedContainer(container) as AnyObject)
            if keyedContainers.count < Self.keptKeyedContainerLimit {
                keyedContainers.append(entry)
            } else {
                keyedContainers[nextReplacedContainer] = entry
                nextReplacedContainer = (nextReplacedContainer + 1) % Self.keptKeyedContainerLimit
            }
            return container
        }
        if objectSink == nil && fields == nil { fields = ArchiveCallRecorder() }
        return KeyedEncodingContainer(ArchiveKeyedEncodingContainer<Key>(owner: self))
    }

    /// Drops the kept keyed containers, which refer to this encoder.
    func forgetKeyedContainers() {
        keyedContainers = []
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if let recorder = elements { return ArchiveUnkeyedEncodingContainer(recorder: recorder, codingPath: codingPath) }
        let recorder = ArchiveCallRecorder()
        elements = recorder
        if objectSink != nil {
            deferred.append((ArchivableCodableKeys.elements, { sink, key, _ in try sink.encodeArray(recorder.elements, forKey: key) }))
        }
        return ArchiveUnkeyedEncodingContainer(recorder: recorder, codingPath: codingPath)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        if let objectSink {
            return ArchiveSingleValueEncodingContainer(sink: objectSink, key: ArchivableCodableKeys.value, isElement: false,
                                                       codingPath: codingPath)
        }
        let recorder = single ?? ArchiveCallRecorder()
        single = recorder
        return ArchiveSingleValueEncodingContainer(sink: recorder, key: "", isElement: false, codingPath: codingPath)
    }

    /// Where a keyed container writes: the archiver (object role) or the recorded fields (field role).
    var keyedSink: any ArchiveEncoder {
        if let objectSink { return objectSink }
        if let fields { return fields }
        let recorder = ArchiveCallRecorder()
        fields = recorder
        return recorder
    }

    // Writes for the keyed container, here so that the archiver (a `let` of this class) is used without a
    // retain and release per field: it is reached by optional chaining (`archiver?.write...`), which borrows
    // it, where `if let archiver` would copy it. The coding key comes as its name and, for errors only, the
    // key itself.

    /// Writes `value` under `name` with its ``ArchiveValue`` conformance, the call a hand-written model makes.
    @inline(__always)
    func encodeField<V: ArchiveValue>(_ value: V, _ name: String, _ key: @autoclosure () -> any CodingKey) throws {
        do {
            if archiver != nil { try archiver?.writeField(value, forKey: name) } else { try value.encode(to: keyedSink, forKey: name) }
        } catch {
            throw CodableArchiving.encodingError(error, value: value, codingPath: codingPath + [key()])
        }
    }

    /// Writes a Codable `value` under `name` by the Codable rules (``CodableArchiving/encode(_:to:forKey:isElement:codingPath:)``).
    @inline(__always)
    func encodeCodableField<T: Encodable>(_ value: T, _ name: String, _ key: @autoclosure () -> any CodingKey) throws {
        do {
            if archiver != nil {
                try archiver?.writeCodableField(value, forKey: name, codingPath: codingPath + [key()])
            } else {
                try CodableArchiving.encode(value, to: keyedSink, forKey: name, isElement: false, codingPath: codingPath + [key()])
            }
        } catch {
            throw CodableArchiving.encodingError(error, value: value, codingPath: codingPath + [key()])
        }
    }

    /// Registers a write to make when this value is complete (a nested container, a super encoder).
    func later(_ key: String, _ replay: @escaping ArchiveCallRecorder.Replay) {
        if objectSink != nil {
            deferred.append((key, replay))
        } else {
            let recorder = fields ?? ArchiveCallRecorder()
            fields = recorder
            recorder.record(key, replay)
        }
    }

    /// Object role: writes what was left for the end.
    func finishObject() throws {
        guard !deferred.isEmpty, let objectSink else { return }
        let writes = deferred
        deferred = []
        for write in writes { try write.replay(objectSink, write.key, false) }
    }

    /// Object role, for a reused adapter: ends the object, forgetting its unkeyed container and what it left
    /// unwritten (when it threw), so that the next object starts empty.
    private func clearObject() {
        isWritingObject = false
        if !deferred.isEmpty { deferred = [] }
        elements = nil
    }

    /// Writes `value`'s Codable representation as the fields of the object `encoder` is writing (what
    /// ``ArchivableCodable``'s `encode(to:)` does).
    static func encodeObject<T: Encodable>(_ value: T, to encoder: any ArchiveEncoder) throws {
        let archiver = encoder as? KeyedArchiver
        archiver?.markCodableObject()
        guard let adapter = archiver?.reusableCodableObjectEncoder() else {
            let adapter = ArchiveCodableEncoder(object: encoder, codingPath: [])
            try value.encode(to: adapter)
            try adapter.finishObject()
            return
        }
        adapter.isWritingObject = true
        defer { adapter.clearObject() }
        try value.encode(to: adapter)
        try adapter.finishObject()
    }

    /// Field role, for a value of type `T`: a keyed value becomes an object of class `T` (see
    /// ``CodableEncodedObject``); anything else is written as ``flush(to:forKey:isElement:)`` writes it.
    func finish<T: Encodable>(_ type: T.Type, to sink: any ArchiveEncoder, forKey key: String, isElement: Bool) throws {
        if elements == nil && single == nil {
            try sink.encodeObject(CodableEncodedObject<T>(fields: fields ?? ArchiveCallRecorder()), forKey: key)
        } else {
            try flush(to: sink, forKey: key, isElement: isElement)
        }
    }

    /// Field role, for a value without a type (a nested container, a super encoder): keyed as an
    /// NSDictionary, unkeyed as an NSArray, a single value as itself; nothing at all as an empty NSDictionary.
    func flush(to sink: any ArchiveEncoder, forKey key: String, isElement: Bool) throws {
        if let elements {
            try sink.encodeArray(elements.elements, forKey: key)
        } else if let single {
            guard single.calls.count == 1 else {
                throw EncodingError.invalidValue(key, .init(codingPath: codingPath, debugDescription:
                    "a single-value container must encode exactly one value; it encoded \(single.calls.count)"))
            }
            try single.calls[0].replay(sink, key, isElement)
        } else {
            try sink.encodeDictionary((fields ?? ArchiveCallRecorder()).dictionary, forKey: key)
        }
    }
}

extension KeyedArchiver {
    /// Writes one field of the Codable object being written (``ArchiveCodableEncoder/encodeField(_:_:_:)``).
    @inline(__always)
    fileprivate func writeField<V: ArchiveValue>(_ value: V, forKey key: String) throws {
        try value.encode(to: self, forKey: key)
    }

    /// Writes one Codable field of the Codable object being written (``ArchiveCodableEncoder/encodeCodableField(_:_:_:)``):
    /// the plain values with direct calls of the archiver's methods.
    @inline(__always)
    fileprivate func writeCodableField<T: Encodable>(_ value: T, forKey key: String, codingPath: @autoclosure () -> [any CodingKey]) throws {
        if try CodableArchiving.encodePlainValue(value, to: self, forKey: key) { return }
        try CodableArchiving.encode(value, to: self, forKey: key, isElement: false, codingPath: codingPath())
    }
}

/// A keyed container kept by an ``ArchiveCodableEncoder`` for the next object with the same coding keys.
private final class KeptKeyedContainer<Key: CodingKey> {
    let container: KeyedEncodingContainer<Key>
    init(_ container: KeyedEncodingContainer<Key>) { self.container = container }
}

/// The fixed keys under which an archived object keeps a Codable value that is not keyed.
public enum ArchivableCodableKeys {
    /// The key of a single-value container's value (an enum's raw value, a wrapper's wrapped value).
    public static let value = "value"
    /// The key of an unkeyed container's NSArray.
    public static let elements = "elements"
}

// MARK: - Writing one value

enum CodableArchiving {
    /// Writes a Codable value under `key` with exactly one call of `sink`.
    ///
    /// Values the hand-written coding knows (``ArchiveValue``: scalars, strings, data, dates, UUIDs, URLs,
    /// models) are written exactly as hand-written code writes them; arrays, sets and dictionaries as
    /// NSArray, NSSet and NSDictionary of their elements (nil elements as NSNull); any other Codable value
    /// by its own `encode(to:)`.
    static func encode<T: Encodable>(_ value: T, to sink: any ArchiveEncoder, forKey key: String, isElement: Bool,
                                     codingPath: @autoclosure () -> [any CodingKey]) throws {
        if try encodePlainValue(value, to: sink, forKey: key) { return }
        let kind = CodableEncodingKind.cache.kind(of: T.self) { CodableEncodingKind(T.self) }
        if isElement, let optional = kind.optional, optional.isCodableNil(value) {
            try sink.encodeObject(ArchiveNull(), forKey: key)
            return
        }
        if let element = kind.instanceArrayElement {
            try element.encodeCodableInstanceArray(value, to: sink, forKey: key)
            return
        }
        if let collection = kind.collection {
            try collection.encodeCodableCollection(value, to: sink, forKey: key)
            return
        }
        if let archivable = kind.archiveValue {
            try archivable.encodeCodableValue(value, to: sink, forKey: key)
            return
        }
        if let measurement = kind.measurement {
            try measurement.encode(value, to: sink, forKey: key)
            return
        }
        if kind.isClass {
            throw EncodingError.invalidValue(value, .init(codingPath: codingPath(), debugDescription:
                "class \(T.self) must adopt ArchivableCodable to be archived (a class instance is archived once, with its identity)"))
        }
        let encoder = ArchiveCodableEncoder(fieldAt: codingPath())
        try value.encode(to: encoder)
        try encoder.finish(T.self, to: sink, forKey: key, isElement: isElement)
    }

    /// Writes `value` when it is one of the plain values a model's fields hold most (found by a metadata
    /// compare, no cache look-up), as ``encode(_:to:forKey:isElement:codingPath:)`` writes it; false for any
    /// other value. Inlined, so that for the archiver as `sink` the calls are direct.
    @inline(__always)
    static func encodePlainValue<T: Encodable, Sink: ArchiveEncoder>(_ value: T, to sink: Sink, forKey key: String) throws -> Bool {
        if T.self == Date.self {
            try sink.encode(unsafeBitCast(value, to: Date.self), forKey: key)
        } else if T.self == Data.self {
            try sink.encode(unsafeBitCast(value, to: Data.self), forKey: key)
        } else if T.self == String.self {
            try sink.encode(unsafeBitCast(value, to: String.self), forKey: key)
        } else if T.self == UUID.self {
            try sink.encode(unsafeBitCast(value, to: UUID.self), forKey: key)
        } else if T.self == URL.self {
            try sink.encode(unsafeBitCast(value, to: URL.self), forKey: key)
        } else if T.self == [String].self {
            // Handed to the encoder as it is (as `encodeArchiveCollection` does).
            try sink.encodeArray(unsafeBitCast(value, to: [String].self), forKey: key)
        } else {
            return false
        }
        return true
    }

    /// The error a Codable user expects for a failed write, carrying the archive's error.
    static func encodingError(_ error: any Error, value: Any, codingPath: [any CodingKey]) -> any Error {
        guard let archiveError = error as? KeyedArchiveError else { return error }
        return EncodingError.invalidValue(value, .init(codingPath: codingPath, debugDescription: archiveError.description,
                                                      underlyingError: archiveError))
    }
}

/// An `Optional`, seen through an existential: whether it is nil.
protocol ArchiveOptionalMarker {
    var isArchiveNil: Bool { get }
}

extension Optional: ArchiveOptionalMarker {
    var isArchiveNil: Bool { self == nil }
}
