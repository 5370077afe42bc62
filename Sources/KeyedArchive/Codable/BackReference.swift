#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A property of an ``ArchivableCodable`` class that refers back up its object graph (a parent, an owner, the
/// next object of a ring), read once the whole graph is built.
///
/// ```swift
/// final class Folder: ArchivableCodable {
///     var name: String
///     var children: [Folder] = []
///     @BackReference var parent: Folder?          // or @WeakBackReference for a weak reference
/// }
/// ```
///
/// A Codable initializer must return a value for every property before it finishes, but the parent is still
/// being decoded when its child is: a plain `var parent: Folder?` that closes a cycle cannot be read, and
/// ``KeyedArchiver`` refuses to archive it. A back-reference is read as
/// ``ArchiveDecoder/decodeObjectReference(of:forKey:assign:)`` reads it for a hand-written model: the property
/// is nil while the graph is being decoded and holds the object (the same instance) once
/// ``KeyedUnarchiver`` returns; if the unarchive fails, it never does. An object that only a back-reference
/// reaches and that is not decoded yet is decoded after the rest of the graph.
///
/// In the archive, the property is written as a plain reference to the object (`$null` for nil): the bytes
/// are those of `var parent: Folder?`. Only a keyed archive can hold a graph with back-references: any other
/// `Encoder` or `Decoder` (JSON, property lists) throws.
public typealias BackReference<Object: ArchivableCodable & AnyObject> = ArchivedBackReference<Object, StrongReferenceHolding>

/// A ``BackReference`` that does not keep the object alive (a `weak var parent`).
public typealias WeakBackReference<Object: ArchivableCodable & AnyObject> = ArchivedBackReference<Object, WeakReferenceHolding>

/// How an ``ArchivedBackReference`` holds its object: ``StrongReferenceHolding`` or ``WeakReferenceHolding``.
public protocol BackReferenceHolding {
    /// Whether the object is held weakly.
    static var isWeak: Bool { get }
}

/// Holds the object of a ``BackReference``, keeping it alive.
public enum StrongReferenceHolding: BackReferenceHolding {
    public static var isWeak: Bool { false }
}

/// Holds the object of a ``WeakBackReference`` without keeping it alive.
public enum WeakReferenceHolding: BackReferenceHolding {
    public static var isWeak: Bool { true }
}

/// The property wrapper behind ``BackReference`` and ``WeakBackReference``: write those.
@propertyWrapper
public struct ArchivedBackReference<Object: ArchivableCodable & AnyObject, Holding: BackReferenceHolding>: Codable {
    private var box: ReferenceBox<Object>

    /// The referenced object, or nil (for a weak reference, also once nothing else keeps it alive).
    public var wrappedValue: Object? {
        get { box.object }
        set { box = ReferenceBox(newValue, weak: Holding.isWeak) }
    }

    /// Refers to `wrappedValue`.
    public init(wrappedValue: Object?) {
        box = ReferenceBox(wrappedValue, weak: Holding.isWeak)
    }

    /// Reads the reference, delivered once the whole graph is decoded.
    /// - Throws: `DecodingError` when `decoder` is not a keyed archive's, or the stored object is not an `Object`.
    public init(from decoder: any Decoder) throws {
        let box = ReferenceBox<Object>(nil, weak: Holding.isWeak)
        try CodableArchiving.decodeBackReference(Object.self, from: decoder) { box.object = $0 }
        self.box = box
    }

    /// Writes a reference to the object (`$null` for nil).
    /// - Throws: `EncodingError` when `encoder` is not a keyed archive's.
    public func encode(to encoder: any Encoder) throws {
        try CodableArchiving.encodeBackReference(box.object, to: encoder)
    }
}

/// The storage of an ``ArchivedBackReference``: a reference type, so that the unarchiver can fill it in after
/// the model that holds the property has been initialized. A new value gets a new box, so a copy of the
/// property never changes with the original.
private final class ReferenceBox<Object: AnyObject> {
    private var strong: Object?
    private weak var weak: Object?
    private let isWeak: Bool

    init(_ object: Object?, weak isWeak: Bool) {
        self.isWeak = isWeak
        self.object = object
    }

    var object: Object? {
        get { isWeak ? weak : strong }
        set { if isWeak { weak = newValue } else { strong = newValue } }
    }
}

extension CodableArchiving {
    /// Reads the object reference that `decoder` (the field role of a keyed archive's Codable decoder) stands
    /// for, handing it to `assign` once the whole graph is built.
    static func decodeBackReference<Object: ArchivableCodable & AnyObject>(
        _ type: Object.Type, from decoder: any Decoder, assign: @escaping (Object?) -> Void) throws {
        guard let adapter = decoder as? ArchiveCodableDecoder, let key = adapter.key else {
            throw DecodingError.typeMismatch(Object.self, .init(codingPath: decoder.codingPath, debugDescription:
                "a back-reference to \(Object.self) is read only from a keyed archive (KeyedUnarchiver)"))
        }
        do {
            if let reader = adapter.archive.objectReading {
                try reader.decodeObjectReference(of: Object.self, forKey: key, decodingLater: true, assign: assign)
            } else {
                try adapter.archive.decodeObjectReference(of: Object.self, forKey: key, assign: assign)
            }
        } catch {
            throw decodingError(error, type: Object.self, key: nil, codingPath: adapter.codingPath)
        }
    }

    /// Writes `object` as a plain object reference through a keyed archive's Codable encoder.
    static func encodeBackReference<Object: ArchivableCodable & AnyObject>(_ object: Object?, to encoder: any Encoder) throws {
        guard encoder is ArchiveCodableEncoder else {
            throw EncodingError.invalidValue(object as Any, .init(codingPath: encoder.codingPath, debugDescription:
                "a back-reference to \(Object.self) is written only to a keyed archive (KeyedArchiver)"))
        }
        var container = encoder.singleValueContainer()
        // In a field, the write is recorded and made later on the archiver: mark it there as a back-reference,
        // which the check for cycles of plain references leaves out.
        if let single = container as? ArchiveSingleValueEncodingContainer, let recorder = single.sink as? ArchiveCallRecorder,
           let object {
            recorder.record(single.key) { sink, key, _ in
                guard let archiver = sink as? KeyedArchiver else { return try sink.encodeObject(object, forKey: key) }
                try archiver.writingBackReference { try archiver.encodeObject(object, forKey: key) }
            }
            return
        }
        try container.encode(object)
    }
}
