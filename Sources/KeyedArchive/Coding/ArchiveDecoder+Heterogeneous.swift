#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A number as it was stored: what kind of `NSNumber` the archive holds.
///
/// The corresponding Foundation API is `NSNumber.objCType` (`c`/`B` Boolean, `q` integer, `f` 4-byte real,
/// `d` 8-byte real). Read it with ``ArchiveDecoder/decodeNumber(forKey:)`` when the kind matters (a
/// setting that may be a Boolean or a count, a value written as `Float` by one version and `Double` by
/// another); read a plain `Int`/`Double`/`Bool` otherwise.
public enum ArchivedNumber: Hashable, Sendable {
    /// A Boolean (`encodeBool`, `NSNumber(value: true)`).
    case bool(Bool)
    /// An integer of up to 64 bits, signed or unsigned.
    case integer(PropertyListInteger)
    /// A 4-byte real (`encodeFloat`, `NSNumber(value: Float)`).
    case float(Float)
    /// An 8-byte real (`encodeDouble`, `NSNumber(value: Double)`).
    case double(Double)
}

/// Types whose archived class names are known without instantiating anything: the Swift values that
/// Foundation's value classes become. (``KeyedArchivable`` types answer with their archived names.)
protocol ArchiveStoredClassNaming {
    /// The archived classes a value of this type may be read from.
    static var storedClassNames: [String] { get }
}

extension String: ArchiveStoredClassNaming {
    static var storedClassNames: [String] { FoundationClassCatalogue.string.names }
}
extension Data: ArchiveStoredClassNaming {
    static var storedClassNames: [String] { FoundationClassCatalogue.data.names }
}
extension Date: ArchiveStoredClassNaming {
    static var storedClassNames: [String] { FoundationClassCatalogue.date.names }
}
extension UUID: ArchiveStoredClassNaming {
    static var storedClassNames: [String] { FoundationClassCatalogue.uuid.names }
}
extension URL: ArchiveStoredClassNaming {
    static var storedClassNames: [String] { FoundationClassCatalogue.url.names }
}
extension Array: ArchiveStoredClassNaming where Element: ArchiveValue {
    static var storedClassNames: [String] { KeyedArchiveClassNames.arrays }
}
extension Set: ArchiveStoredClassNaming where Element: ArchiveValue {
    static var storedClassNames: [String] { KeyedArchiveClassNames.sets }
}
extension Dictionary: ArchiveStoredClassNaming where Key: ArchiveValue, Value: ArchiveValue {
    static var storedClassNames: [String] { FoundationClassCatalogue.dictionary.names }
}
extension FoundationValue: ArchiveStoredClassNaming {
    static var storedClassNames: [String] { KeyedArchiveClassNames.foundationValues }
}

/// Class-name lists taken from the catalogue once.
enum KeyedArchiveClassNames {
    static let number = FoundationClassCatalogue.number.name
    static let arrays = FoundationClassCatalogue.array.names + FoundationClassCatalogue.orderedSet.names
    static let sets = FoundationClassCatalogue.set.names + FoundationClassCatalogue.orderedSet.names
    static let foundationValues: [String] = {
        typealias C = FoundationClassCatalogue
        return ([C.string, C.number, C.data, C.date, C.uuid, C.url, C.null, C.array, C.orderedSet, C.set, C.dictionary]
                + C.valueTypes).flatMap(\.names)
    }()

    /// The kinds of number a type reads without conversion.
    enum NumberKind { case bool, integer, real }

    /// The number kind `type` stands for, or nil when it is not a number type.
    static func numberKind(of type: any ArchiveValue.Type) -> NumberKind? {
        if type == Bool.self { return .bool }
        if type is any FixedWidthInteger.Type { return .integer }
        if type == Double.self || type == Float.self { return .real }
        return nil
    }

    /// Whether `type` may be read from an object of class `name`, by names alone (`keyedNames` gives a
    /// ``KeyedArchivable`` type's names).
    static func accepts(_ type: any ArchiveValue.Type, className name: String,
                        keyedNames: (any KeyedArchivable.Type) -> [String]) -> Bool {
        if let keyed = type as? any KeyedArchivable.Type { return keyedNames(keyed).contains(name) }
        if let named = type as? any ArchiveStoredClassNaming.Type { return named.storedClassNames.contains(name) }
        if numberKind(of: type) != nil { return name == number }
        return false
    }

    /// The type of `types` to read a value of class `name` with (for a number, the one matching `stored`
    /// best: Bool for a Boolean, an integer type for an integer, Double/Float for a real, then any number
    /// type), or nil when none may be.
    static func choose(_ types: [any ArchiveValue.Type], className name: String, stored: ArchivedNumber?,
                       keyedNames: (any KeyedArchivable.Type) -> [String]) -> (any ArchiveValue.Type)? {
        if name == number, let stored {
            let wanted: NumberKind
            switch stored {
            case .bool: wanted = .bool
            case .integer: wanted = .integer
            case .float, .double: wanted = .real
            }
            if let exact = types.first(where: { numberKind(of: $0) == wanted }) { return exact }
            if let foundation = types.first(where: { $0 == FoundationValue.self }) { return foundation }
            return types.first { numberKind(of: $0) != nil }
        }
        return types.first { accepts($0, className: name, keyedNames: keyedNames) }
    }
}

extension ArchiveDecoder {
    public func decodeValue(ofAnyOf types: [any ArchiveValue.Type], forKey key: String) throws -> any ArchiveValue {
        try heterogeneousValue(ofAnyOf: types, forKey: key) { ArchivedClassNameRules.acceptedNames(of: $0) }
    }

    public func storedClassName(forKey key: String) throws -> String? { nil }

    public func decodeNumber(forKey key: String) throws -> ArchivedNumber {
        throw KeyedArchiveError(.typeMismatch, "this decoder cannot tell what kind of number is stored", keyPath: path(key))
    }

    public func decodeArray(ofAnyOf types: [any ArchiveValue.Type], forKey key: String) throws -> [any ArchiveValue] {
        throw KeyedArchiveError(.typeMismatch, "this decoder cannot read heterogeneous arrays", keyPath: path(key))
    }

    public func decodeDictionary<K: ArchiveValue & Hashable>(keyType: K.Type, valuesOfAnyOf types: [any ArchiveValue.Type],
                                                             forKey key: String) throws -> [K: any ArchiveValue] {
        throw KeyedArchiveError(.typeMismatch, "this decoder cannot read heterogeneous dictionaries", keyPath: path(key))
    }

    /// ``decodeValue(ofAnyOf:forKey:)`` with `keyedNames` giving the names a model type answers to.
    func heterogeneousValue(ofAnyOf types: [any ArchiveValue.Type], forKey key: String,
                            keyedNames: (any KeyedArchivable.Type) -> [String]) throws -> any ArchiveValue {
        guard containsValue(forKey: key) else {
            throw KeyedArchiveError(.keyNotFound, "key \"\(key)\" not found", keyPath: path(key))
        }
        guard let name = try storedClassName(forKey: key) else {
            if try decodeNil(forKey: key) {
                throw KeyedArchiveError(.valueNotFound, "expected one of \(Self.describe(types)), found nil ($null)", keyPath: path(key))
            }
            throw KeyedArchiveError(.typeMismatch, "expected one of \(Self.describe(types)), found a value of no class",
                                    keyPath: path(key))
        }
        let stored = name == KeyedArchiveClassNames.number ? try decodeNumber(forKey: key) : nil
        guard let chosen = KeyedArchiveClassNames.choose(types, className: name, stored: stored, keyedNames: keyedNames) else {
            throw KeyedArchiveError(.classNotAllowed, "class \"\(name)\" is not allowed here; expected one of \(Self.describe(types))"
                                        + ArchivedClassNameRules.renamedClassHint(for: name),
                                    keyPath: path(key))
        }
        func decode<T: ArchiveValue>(_ type: T.Type) throws -> any ArchiveValue { try T.decode(from: self, forKey: key) }
        return try decode(chosen)
    }

    func path(_ key: String) -> String {
        key.isEmpty ? keyPath : (keyPath.isEmpty ? key : keyPath + "." + key)
    }

    static func describe(_ types: [any ArchiveValue.Type]) -> String {
        types.map { "\($0)" }.joined(separator: ", ")
    }
}
