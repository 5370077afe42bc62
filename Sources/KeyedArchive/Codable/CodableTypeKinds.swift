#if canImport(Darwin)
import os
#else
import Synchronization
#endif

/// What the Codable adapter needs to know about a type to write or read it (which of its own protocols
/// the type conforms to), found once per type by dynamic casts and then looked up.
///
/// Dynamic casts to protocol existentials cost far more than a lookup (they took a fifth of the time
/// archiving the benchmark's Codable graph took), and the adapter asks for every field of every object.
final class CodableTypeKinds<Kind: Sendable>: Sendable {
    #if canImport(Darwin)
    private let storage = OSAllocatedUnfairLock<[ObjectIdentifier: Kind]>(initialState: [:])
    #else
    private let storage = Mutex<[ObjectIdentifier: Kind]>([:])
    #endif

    /// The kind of `type`, made by `make` the first time.
    @inline(__always)
    func kind(of type: Any.Type, _ make: () -> Kind) -> Kind {
        let id = ObjectIdentifier(type)
        if let known = storage.withLock({ $0[id] }) { return known }
        let kind = make()
        storage.withLock { $0[id] = kind }
        return kind
    }
}

/// How a value of an `Encodable` type is written (see ``CodableArchiving/encode(_:to:forKey:isElement:codingPath:)``).
/// (Metatypes are immutable: sharing them between threads is safe.)
struct CodableEncodingKind: @unchecked Sendable {
    var optional: (any ArchiveOptionalMarker.Type)?
    var collection: (any ArchiveEncodableCollection.Type)?
    var archiveValue: (any ArchiveValue.Type)?
    var isClass: Bool

    init<T>(_ type: T.Type) {
        optional = T.self as? any ArchiveOptionalMarker.Type
        collection = T.self as? any ArchiveEncodableCollection.Type
        archiveValue = T.self as? any ArchiveValue.Type
        isClass = T.self is AnyClass
    }

    static let cache = CodableTypeKinds<CodableEncodingKind>()
}

/// How a value of a `Decodable` type is read.
/// (Metatypes are immutable: sharing them between threads is safe.)
struct CodableDecodingKind: @unchecked Sendable {
    var optional: (any ArchiveOptionalDecodable.Type)?
    var collection: (any ArchiveDecodableCollection.Type)?
    var archiveValue: (any ArchiveValue.Type)?
    var isClass: Bool

    init<T>(_ type: T.Type) {
        optional = T.self as? any ArchiveOptionalDecodable.Type
        collection = T.self as? any ArchiveDecodableCollection.Type
        archiveValue = T.self as? any ArchiveValue.Type
        isClass = T.self is AnyClass
    }

    static let cache = CodableTypeKinds<CodableDecodingKind>()
}

// The helpers below are called on a metatype found for exactly `U` (so `Self` is `U`): they reinterpret a
// `U` as `Self` (and back) in place of a dynamic cast.

extension ArchiveValue {
    static func encodeCodableValue<U>(_ value: U, to sink: any ArchiveEncoder, forKey key: String) throws {
        try withUnsafePointer(to: value) { try $0.withMemoryRebound(to: Self.self, capacity: 1) { try $0.pointee.encode(to: sink, forKey: key) } }
    }

    static func decodeCodableValue<U>(_ type: U.Type, from decoder: any ArchiveDecoder, forKey key: String) throws -> U {
        let value = try decode(from: decoder, forKey: key)
        return withUnsafePointer(to: value) { $0.withMemoryRebound(to: U.self, capacity: 1) { $0.pointee } }
    }
}

extension ArchiveEncodableCollection {
    static func encodeCodableCollection<U>(_ value: U, to sink: any ArchiveEncoder, forKey key: String) throws {
        try withUnsafePointer(to: value) {
            try $0.withMemoryRebound(to: Self.self, capacity: 1) { try $0.pointee.encodeArchiveCollection(to: sink, forKey: key, codingPath: []) }
        }
    }
}

extension ArchiveDecodableCollection {
    static func decodeCodableCollection<U>(_ type: U.Type, from decoder: any ArchiveDecoder, forKey key: String) throws -> U {
        let value = try decodeArchiveCollection(from: decoder, forKey: key)
        return withUnsafePointer(to: value) { $0.withMemoryRebound(to: U.self, capacity: 1) { $0.pointee } }
    }
}

extension ArchiveOptionalMarker {
    static func isCodableNil<U>(_ value: U) -> Bool {
        withUnsafePointer(to: value) { $0.withMemoryRebound(to: Self.self, capacity: 1) { $0.pointee.isArchiveNil } }
    }
}

extension ArchiveOptionalDecodable {
    static func decodeCodableOptional<U>(_ type: U.Type, from archive: any ArchiveDecoder, forKey key: String,
                                         codingPath: [any CodingKey]) throws -> U {
        let value = try decodeArchiveOptional(from: archive, forKey: key, codingPath: codingPath)
        return withUnsafePointer(to: value) { $0.withMemoryRebound(to: U.self, capacity: 1) { $0.pointee } }
    }
}
