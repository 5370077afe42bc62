/// A type written to a typedstream in the order its values are encoded: what an old class's non-keyed
/// `encodeWithCoder:` did with `NSArchiver`.
///
/// The corresponding Foundation API is `NSCoding`'s `encode(with:)` with a non-keyed coder
/// (`allowsKeyedCoding == false`). ``TypedstreamArchiver/archivedData(withRootObject:)`` writes a root of this
/// type; ``TypedstreamDecodable`` is the reading half, and a type adopting both (``TypedstreamCodable``) reads
/// back what it wrote when its `init(from:)` makes the matching decode calls in the same order.
///
/// ```swift
/// struct Point: TypedstreamEncodable {
///     static let typedstreamClassName = "MyPoint"
///     static let typedstreamClassVersion = 2
///     var x: Double, y: Double
///     func encode(to encoder: TypedstreamEncoder) throws {
///         try encoder.encodeValues([.double(x), .double(y)], ofObjCTypes: "dd")   // encodeValuesOfObjCTypes("dd", &x, &y)
///     }
/// }
/// ```
///
/// Class hierarchies: declare ``typedstreamClassName``, ``typedstreamClassVersion`` and
/// ``typedstreamClassChain`` as `class var` in the base class, override them in each subclass (the chain as
/// the subclass's entry followed by `super.typedstreamClassChain`), and call `super.encode(to:)` first in the
/// subclass's `encode(to:)`, as an Objective-C subclass calls `[super encodeWithCoder:]`. The archiver asks
/// the dynamic type of each instance, so each class's chain names its own class and version literally
/// (`typedstreamClassName` read in the base class's chain would be the subclass's name).
///
/// A conformance cannot be isolated to a global actor: the archiver may call `encode(to:)` on a thread of its
/// own, sized for the nesting of the objects.
public protocol TypedstreamEncodable: _ArchiveValueMetatype {
    /// The class name the archive stores for this type (`"MyPoint"`).
    static var typedstreamClassName: String { get }

    /// The version written for this class, what its `+version` returned (old code read it back with
    /// `versionForClassName:` to tell which fields an archive holds). Default: 0.
    static var typedstreamClassVersion: Int { get }

    /// The class chain written: this class, then its superclasses, down to the root class, each with its
    /// version. Its first entry must be ``typedstreamClassName``. Default: this class at
    /// ``typedstreamClassVersion``, then `NSObject` at version 0.
    static var typedstreamClassChain: [TypedstreamClassVersion] { get }

    /// Writes this value's fields, in the order its `init(from:)` reads them.
    ///
    /// - Parameter encoder: the object's values, written in order.
    /// - Throws: any error; the archiver reports it as a ``TypedstreamError`` naming the class.
    func encode(to encoder: TypedstreamEncoder) throws
}

extension TypedstreamEncodable {
    public static var typedstreamClassVersion: Int { 0 }

    public static var typedstreamClassChain: [TypedstreamClassVersion] {
        [TypedstreamClassVersion(name: typedstreamClassName, version: typedstreamClassVersion),
         TypedstreamClassVersion(name: "NSObject", version: 0)]
    }
}

/// A type that reads itself from and writes itself to a typedstream, positionally.
public typealias TypedstreamCodable = TypedstreamDecodable & TypedstreamEncodable

/// A class name and the version a typedstream records for it: one entry of a class chain written by
/// ``TypedstreamEncodable/typedstreamClassChain``.
public struct TypedstreamClassVersion: Hashable, Sendable {
    /// The class name (`"NSObject"`).
    public var name: String
    /// The class version (`+version`).
    public var version: Int

    /// The class named `name` at `version`.
    public init(name: String, version: Int) {
        self.name = name
        self.version = version
    }
}
