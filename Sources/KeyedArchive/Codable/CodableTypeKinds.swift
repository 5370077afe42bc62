#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// What the Codable adapter needs to know about a type to write or read it (which of its own protocols
/// the type conforms to), found once per type and thread by dynamic casts and then looked up.
///
/// A dynamic cast to a protocol existential costs far more than a table lookup, and the adapter asks for
/// every field of every object.
/// Each thread keeps its own table (no lock on the way), with the last type looked up in front.
final class CodableTypeKinds<Kind>: @unchecked Sendable {
    /// One thread's table.
    private final class Table {
        var last: (id: ObjectIdentifier, kind: Kind)?
        var kinds: [ObjectIdentifier: Kind] = [:]
    }

    /// Written once in `init`; the tables it names belong to their threads.
    private let key: pthread_key_t

    init() {
        var key = pthread_key_t()
        #if canImport(Darwin)
        pthread_key_create(&key) { Unmanaged<AnyObject>.fromOpaque($0).release() }
        #else
        pthread_key_create(&key) { if let table = $0 { Unmanaged<AnyObject>.fromOpaque(table).release() } }
        #endif
        self.key = key
    }

    /// The kind of `type`, made by `make` the first time this thread asks.
    @inline(__always)
    func kind(of type: Any.Type, _ make: () -> Kind) -> Kind {
        let id = ObjectIdentifier(type)
        guard let pointer = pthread_getspecific(key) else {
            let table = Table()
            pthread_setspecific(key, Unmanaged.passRetained(table as AnyObject).toOpaque())
            return Self.look(up: id, in: table, make)
        }
        // The table is used without a retain: the thread's slot holds it (passRetained above) until the
        // thread ends, and this thread is running this call.
        return Unmanaged<Table>.fromOpaque(pointer)._withUnsafeGuaranteedRef { table in
            if let last = table.last, last.id == id { return last.kind }
            return Self.look(up: id, in: table, make)
        }
    }

    /// The kind of the type `id` names in `table` (made by `make` if the table has none), remembered as the last.
    private static func look(up id: ObjectIdentifier, in table: Table, _ make: () -> Kind) -> Kind {
        let kind: Kind
        if let known = table.kinds[id] {
            kind = known
        } else {
            kind = make()
            table.kinds[id] = kind
        }
        table.last = (id, kind)
        return kind
    }
}

/// How a value of an `Encodable` type is written (see ``CodableArchiving/encode(_:to:forKey:isElement:codingPath:)``).
///
/// A class, so that a look-up hands out one reference rather than a copy of every field.
final class CodableEncodingKind {
    let optional: (any ArchiveOptionalMarker.Type)?
    let collection: (any ArchiveEncodableCollection.Type)?
    let archiveValue: (any ArchiveValue.Type)?
    let isClass: Bool
    /// For `Measurement` of a Foundation unit, how it is written as an NSMeasurement.
    let measurement: MeasurementArchiving?

    /// For an array whose elements are class instances written by their ``ArchiveValue`` conformance, that
    /// element type: such an array is handed to the encoder as an array of it.
    let instanceArrayElement: (any ArchiveValue.Type)?

    init<T>(_ type: T.Type) {
        optional = T.self as? any ArchiveOptionalMarker.Type
        collection = T.self as? any ArchiveEncodableCollection.Type
        archiveValue = T.self as? any ArchiveValue.Type
        isClass = T.self is AnyClass
        measurement = optional == nil && collection == nil && archiveValue == nil ? MeasurementArchiving(T.self) : nil
        instanceArrayElement = (T.self as? any ArchiveEncodableInstanceArray.Type)?.instanceElement
    }

    /// The type's ``ArchiveValue`` conformance when it is a class that is neither an optional nor a collection:
    /// such an instance is written by that conformance (``CodableArchiving/encode(_:to:forKey:isElement:codingPath:)``).
    var instanceValue: (any ArchiveValue.Type)? { isClass && optional == nil && collection == nil ? archiveValue : nil }

    static let cache = CodableTypeKinds<CodableEncodingKind>()
}

/// How a value of a `Decodable` type is read.
///
/// A class, so that a look-up hands out one reference rather than a copy of every field.
final class CodableDecodingKind {
    let optional: (any ArchiveOptionalDecodable.Type)?
    let collection: (any ArchiveDecodableCollection.Type)?
    let archiveValue: (any ArchiveValue.Type)?
    let isClass: Bool
    /// For `Measurement` of a Foundation unit, how it is read from an NSMeasurement.
    let measurement: MeasurementArchiving?
    /// For an array whose elements are class instances read by their ``ArchiveValue`` conformance, how the
    /// unarchiver's decoder reads it without a wrapper per element.
    let instanceArray: CodableInstanceArrayReading?

    init<T>(_ type: T.Type) {
        optional = T.self as? any ArchiveOptionalDecodable.Type
        collection = T.self as? any ArchiveDecodableCollection.Type
        archiveValue = T.self as? any ArchiveValue.Type
        isClass = T.self is AnyClass
        measurement = optional == nil && collection == nil && archiveValue == nil ? MeasurementArchiving(T.self) : nil
        instanceArray = (T.self as? any ArchiveDecodableInstanceArray.Type)?.instanceArrayReading
    }

    /// The type's ``ArchiveValue`` conformance when it is a class that is neither an optional nor a collection:
    /// such an instance is read by that conformance (``CodableArchiving/decode(_:from:forKey:codingPath:)``).
    var instanceValue: (any ArchiveValue.Type)? { isClass && optional == nil && collection == nil ? archiveValue : nil }

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
