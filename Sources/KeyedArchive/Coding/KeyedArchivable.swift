#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// MARK: - The model protocol

/// A type that can be written to and read from a keyed archive, field by field, as an object with a class.
///
/// Classes and structs both adopt it. The corresponding Foundation protocol is `NSSecureCoding`:
/// ``init(from:)`` plays `init?(coder:)` and ``encode(to:)`` plays `encode(with:)`.
///
/// ```swift
/// final class Note: KeyedArchivable {
///     var title: String
///     var tags: [String]
///     init(from decoder: any ArchiveDecoder) throws {
///         title = try decoder.decode(String.self, forKey: "title")
///         tags = try decoder.decode([String].self, forKey: "tags")
///     }
///     func encode(to encoder: any ArchiveEncoder) throws {
///         try encoder.encode(title, forKey: "title")
///         try encoder.encode(tags, forKey: "tags")
///     }
/// }
/// ```
///
/// The archive stores the object as a dictionary of its fields plus a `$class` reference to
/// `{"$classname": archivedClassName, "$classes": archivedClassChain}`.
///
/// Class hierarchies: declare the static properties as `class var` in the base class so that subclasses
/// can override them; the archiver asks the dynamic type of each instance.
public protocol KeyedArchivable: ArchiveValue, ArchiveNamed {
    /// The name written as `$classname`. Default: the name Apple's archiver gives a Swift class,
    /// `"Module.TypeName"` for a top-level type (`String(reflecting:)` of the type) and the Objective-C runtime
    /// name for a nested class (`"_TtCC6Module5Outer5Inner"`), which Apple's unarchiver looks up. A generic
    /// type keeps `String(reflecting:)` (`"Module.Box<Swift.Int>"`), which Apple's archiver has no stable
    /// form of. Override to match an Objective-C or older Swift name.
    ///
    /// A private, fileprivate or local type must override it: its reflected name holds a memory address
    /// that changes on every launch, and ``KeyedArchiver`` refuses to write it
    /// (``KeyedArchiveError/Code/invalidValue``).
    static var archivedClassName: String { get }
    /// The `$classes` chain: the class and its superclasses. Default: `[archivedClassName, "NSObject"]`.
    /// Only written, never trusted when reading.
    static var archivedClassChain: [String] { get }
    /// Other `$classname`s this type is read from (renamed or moved types). Default: none. A nested class
    /// is also read from its `"Module.Outer.Inner"` name, which earlier versions wrote by default.
    static var legacyClassNames: [String] { get }

    /// Creates an instance from the fields of one archived object.
    ///
    /// Throw (any error; ``KeyedArchiveError`` with ``KeyedArchiveError/Code/dataCorrupted`` is usual)
    /// when the fields make no sense; the unarchiver then fails as a whole.
    init(from decoder: any ArchiveDecoder) throws
    /// Writes this instance's fields.
    func encode(to encoder: any ArchiveEncoder) throws
}

extension KeyedArchivable {
    public static var archivedClassChain: [String] { [archivedClassName, "NSObject"] }

    @inlinable
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws {
        try encoder.encodeObject(self, forKey: key)
    }
    @inlinable
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Self {
        try decoder.decodeObject(of: Self.self, forKey: key)
    }
}

// MARK: - Names

/// A type that says which `$classname` it is archived under and which older names it is read from:
/// every ``KeyedArchivable`` model (hand-written or ``ArchivableCodable``), and a plain `Codable` value
/// stored inside an ``ArchivableCodable`` model, which adopts it to be renamed or moved without
/// breaking the archives already written.
///
/// ```swift
/// struct Article: Codable, ArchiveNamed {   // was `Publication`
///     static var legacyClassNames: [String] { ["Models.Publication"] }
///     var title: String
/// }
/// ```
///
/// The unarchiver accepts an object whose `$classname` is one of these names only where this type is
/// asked for; ``KeyedUnarchiver/setClass(_:forClassName:)-(T.Type,_)`` and ``KeyedUnarchiver/mapModule(_:to:)`` add
/// names from the reading side. The corresponding Foundation API is `NSKeyedUnarchiver.setClass(_:forClassName:)`
/// and, for writing, `NSKeyedArchiver.setClassName(_:for:)`.
public protocol ArchiveNamed {
    /// The name written as `$classname`. Default: the name Apple's archiver gives a Swift class,
    /// `"Module.TypeName"` for a top-level type (`String(reflecting:)` of the type) and the Objective-C runtime
    /// name for a nested class (`"_TtCC6Module5Outer5Inner"`), which Apple's unarchiver looks up. A struct,
    /// an enum or a generic type keeps `String(reflecting:)` (`"Module.Outer.Inner"`, `"Module.Box<Swift.Int>"`).
    /// Override to match an Objective-C or older Swift name.
    ///
    /// A private, fileprivate or local type must override it: its reflected name holds a memory address
    /// that changes on every launch, and ``KeyedArchiver`` refuses to write it
    /// (``KeyedArchiveError/Code/invalidValue``).
    static var archivedClassName: String { get }
    /// Other `$classname`s this type is read from (renamed or moved types). Default: none. A nested class
    /// is also read from its `"Module.Outer.Inner"` name, which earlier versions wrote by default.
    static var legacyClassNames: [String] { get }
}

extension ArchiveNamed {
    public static var archivedClassName: String { ArchivedClassNameRules.defaultName(of: Self.self) }
    public static var legacyClassNames: [String] { [] }
}

// MARK: - Values

#if compiler(>=6.2)
/// What ``ArchiveValue`` refines so that `any ArchiveValue.Type` and `any KeyedArchivable.Type` are
/// `Sendable`: `SendableMetatype`, which Swift 6.2 introduced.
public typealias _ArchiveValueMetatype = SendableMetatype
#else
/// Nothing: compilers before Swift 6.2 treat every metatype as `Sendable`.
public protocol _ArchiveValueMetatype {}
#endif

/// A value that can be stored under a key or as an element of an archived array, set or dictionary:
/// `Bool`, every integer type, `Float`, `Double`, `String`, `Data`, `Date`, `UUID`, `URL`,
/// ``ArchiveNull``, optionals, arrays, sets and dictionaries of values, and every ``KeyedArchivable`` type.
///
/// A conforming type encodes itself by calling exactly **one** typed method of the encoder with the
/// given key, and decodes itself with the matching typed method of the decoder. Coders implement
/// collection elements this way too: to encode an element they call `element.encode(to:forKey:)` with a
/// key of their choosing and capture what that one call wrote.
///
/// ## Concurrency
/// A conformance cannot be isolated to a global actor (the protocol refines `SendableMetatype`): the
/// unarchiver may call ``decode(from:forKey:)`` and ``KeyedArchivable/init(from:)`` on a thread of its own
/// (see ``KeyedUnarchiver``, Depth), and the types registered with a ``KeyedUnarchiver`` are kept in a
/// `Sendable` value that any task may use. A `@MainActor` class conforms with `nonisolated` coding methods.
public protocol ArchiveValue: _ArchiveValueMetatype {
    /// Writes this value under `key` with exactly one call of a typed `encoder` method.
    func encode(to encoder: any ArchiveEncoder, forKey key: String) throws
    /// Reads a value of this type stored under `key`.
    static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Self
}
