// The coding path of a `DecodingError` thrown by a Codable decode.
//
// Each Codable object (an `ArchivableCodable` model, a nested Codable value stored as an object, an element
// of an archived collection of Codable values) decodes with a fresh `ArchiveCodableDecoder` whose coding path
// starts empty; between two such objects the archive's own machinery (arrays, sets, dictionaries of models)
// reads elements that have no Codable path. So a `DecodingError` leaving a Codable object gets, once, the
// archive path of that object in front (array indices as integer keys), starting with `ArchiveTopCodingKey`;
// errors that already start with it pass through every outer object unchanged, and `KeyedUnarchiver` removes
// that first key, so that the path a user sees starts at the decoded top-level value. This work happens only
// when a decode fails.

/// The first key of a coding path that starts at the archive's top-level key (`root`).
struct ArchiveTopCodingKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension CodableArchiving {
    /// Runs the `init(from:)` of the Codable object `decoder` reads, giving a `DecodingError` it throws the
    /// object's archive path in front of its coding path.
    @inline(__always)
    static func decodingObject<R>(_ decoder: any ArchiveDecoder, _ body: () throws -> R) throws -> R {
        do { return try body() } catch let error as DecodingError {
            throw anchored(error, at: decoder)
        }
    }

    @inline(never)
    static func anchored(_ error: DecodingError, at decoder: any ArchiveDecoder) -> DecodingError {
        guard !isAnchored(error), let keys = decoder.objectReading?.codingPathFromTop() else { return error }
        return error.withCodingPath { keys + $0 }
    }

    /// What ``CodableDecodedElement`` throws when reading its element of type `type` (a string, or a class
    /// read by its ``ArchiveValue`` conformance) from `decoder` fails with `error`: the error as
    /// ``decode(_:from:forKey:codingPath:)`` converts it for an empty coding path, then, as a `DecodingError`,
    /// with the element's archive path in front (``decodingObject(_:_:)``). `decoder` must still be at the element.
    @inline(never)
    static func elementDecodingError(_ error: any Error, type: Any.Type, at decoder: any ArchiveDecoder) -> any Error {
        let converted = decodingError(error, type: type, key: nil, codingPath: [])
        guard let decodingError = converted as? DecodingError else { return converted }
        return anchored(decodingError, at: decoder)
    }

    /// Whether `error`'s coding path starts at the archive's top-level key.
    static func isAnchored(_ error: DecodingError) -> Bool {
        error.context.codingPath.first is ArchiveTopCodingKey
    }

    /// `error` with its coding path relative to the top-level value: what ``KeyedUnarchiver`` throws.
    static func relativeToTop(_ error: DecodingError) -> DecodingError {
        isAnchored(error) ? error.withCodingPath { Array($0.dropFirst()) } : error
    }
}

/// An integer dictionary key in a coding path: its value as string and integer (`JSONDecoder`'s dictionary keys).
struct DictionaryEntryCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?
    init(_ value: Int) {
        stringValue = String(value)
        intValue = value
    }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.init(intValue) }
}

extension DecodingError {
    /// The context of any case.
    var context: Context {
        switch self {
        case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c): return c
        @unknown default: return Context(codingPath: [], debugDescription: "\(self)")
        }
    }

    /// The same error with its coding path changed by `transform`.
    func withCodingPath(_ transform: ([any CodingKey]) -> [any CodingKey]) -> DecodingError {
        func context(_ c: Context) -> Context {
            .init(codingPath: transform(c.codingPath), debugDescription: c.debugDescription, underlyingError: c.underlyingError)
        }
        switch self {
        case .typeMismatch(let t, let c): return .typeMismatch(t, context(c))
        case .valueNotFound(let t, let c): return .valueNotFound(t, context(c))
        case .keyNotFound(let k, let c): return .keyNotFound(k, context(c))
        case .dataCorrupted(let c): return .dataCorrupted(context(c))
        @unknown default: return self
        }
    }
}

extension CodableArchiving {
    /// The error a top-level decode of `type` throws for `error`: a `DecodingError` with its path relative to
    /// the top-level value, and, when `type` is ``ArchivableCodable``, a ``KeyedArchiveError`` (a wrong class
    /// at the root, a damaged archive) as a `DecodingError` too, so that a Codable decode throws one type.
    @inline(never)
    static func topLevelDecodingError(_ error: any Error, type: Any.Type) -> any Error {
        if let decodingError = error as? DecodingError { return relativeToTop(decodingError) }
        guard holdsCodableModels(type) else { return error }
        return decodingError(error, type: type, key: nil, codingPath: [])
    }

    /// Reads the top-level value under `key` as `T`: a collection of Codable models (``holdsCodableModels(_:)``)
    /// by the Codable rules, as such a field of a model is read, so that it throws `DecodingError` with the
    /// element's place as its coding path (`1`, `"ace"`); anything else as an ``ArchiveValue``.
    static func decodeTopLevel<T: ArchiveValue>(_ type: T.Type, from decoder: any ArchiveDecoder, forKey key: String) throws -> T {
        guard !(T.self is any ArchivableCodable.Type), holdsCodableModels(T.self), let decodable = T.self as? any Decodable.Type else {
            return try decoder.decode(T.self, forKey: key)
        }
        func read<D: Decodable>(_ type: D.Type) throws -> T {
            guard let value = try decode(D.self, from: decoder, forKey: key, codingPath: []) as? T else {
                throw KeyedArchiveError(.typeMismatch, "\(D.self) is not \(T.self)", keyPath: key)
            }
            return value
        }
        return try read(decodable)
    }

    /// Whether `type` is an ``ArchivableCodable`` model or an array, set, dictionary or optional of them, at any
    /// depth (`[Card]`, `[String: [Card]]`): the top-level types whose decode throws `DecodingError`.
    static func holdsCodableModels(_ type: Any.Type) -> Bool {
        if type is any ArchivableCodable.Type { return true }
        guard let collection = type as? any ArchiveValueCollection.Type else { return false }
        return collection.valueTypes.contains(where: holdsCodableModels)
    }
}

/// An ``ArchiveValue`` that holds values of other ``ArchiveValue`` types: arrays, sets, dictionaries, optionals.
protocol ArchiveValueCollection {
    /// The types of the values held (a dictionary's key and value types).
    static var valueTypes: [Any.Type] { get }
}

extension Array: ArchiveValueCollection where Element: ArchiveValue {
    static var valueTypes: [Any.Type] { [Element.self] }
}

extension Set: ArchiveValueCollection where Element: ArchiveValue {
    static var valueTypes: [Any.Type] { [Element.self] }
}

extension Dictionary: ArchiveValueCollection where Key: ArchiveValue, Value: ArchiveValue {
    static var valueTypes: [Any.Type] { [Key.self, Value.self] }
}

extension Optional: ArchiveValueCollection where Wrapped: ArchiveValue {
    static var valueTypes: [Any.Type] { [Wrapped.self] }
}
