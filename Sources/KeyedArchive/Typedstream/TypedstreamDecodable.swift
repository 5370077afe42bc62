/// A type read from a typedstream in the order its class wrote its values: what an old class's non-keyed
/// `initWithCoder:` did with `NSUnarchiver`.
///
/// The corresponding Foundation API is `NSCoding`'s `init(coder:)` with a non-keyed coder
/// (`allowsKeyedCoding == false`). Register the type with ``TypedstreamUnarchiver/setClass(_:forClassName:)``
/// for other names (a renamed class); ``TypedstreamUnarchiver/decode(_:from:)`` reads a root of this type.
/// ``TypedstreamEncodable`` is the writing half.
///
/// ```swift
/// struct Point: TypedstreamDecodable {
///     static let typedstreamClassName = "MyPoint"
///     var x: Double, y: Double
///     init(from decoder: TypedstreamDecoder) throws {
///         let values = try decoder.decodeValues(ofObjCTypes: "dd")   // encodeValuesOfObjCTypes("dd", &x, &y)
///         guard case .double(let x) = values[0], case .double(let y) = values[1] else { throw ... }
///         (self.x, self.y) = (x, y)
///     }
/// }
/// ```
///
/// A conformance cannot be isolated to a global actor: the unarchiver may call `init(from:)` on a thread of
/// its own, sized for the archive's nesting (as ``KeyedUnarchiver`` does).
public protocol TypedstreamDecodable: _ArchiveValueMetatype {
    /// The class name the archive stores for this type (`"MyPoint"`).
    static var typedstreamClassName: String { get }

    /// Reads the values the class's `encodeWithCoder:` wrote, in the same order.
    ///
    /// - Parameter decoder: the object's values, read in order.
    /// - Throws: any error; the unarchiver reports it as a ``TypedstreamError`` naming the object.
    init(from decoder: TypedstreamDecoder) throws
}
