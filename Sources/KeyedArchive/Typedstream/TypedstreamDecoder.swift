#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One object's values, read in the order they were written: the coder a ``TypedstreamDecodable`` type
/// reads itself from.
///
/// The corresponding Foundation API is `NSUnarchiver` as an `NSCoder` (`decodeValues(ofObjCTypes:)`,
/// `decodeObject()`, `version(forClassName:)`). Each call reads the next group the class wrote with one
/// `encodeValuesOfObjCTypes:` (or `encodeObject:`, `encodeValueOfObjCType:at:`) call, and its type encoding
/// must be the one asked for, as `NSUnarchiver` requires.
public final class TypedstreamDecoder {
    private let session: TypedstreamDecodingSession
    private var fields: TypedstreamFields
    private let depth: Int

    init(session: TypedstreamDecodingSession, objectIndex: Int, depth: Int) {
        self.session = session
        fields = TypedstreamFields(archive: session.archive, objectIndex: objectIndex)
        self.depth = depth
    }

    /// The class name the archive stores for this object.
    public var className: String { fields.className }

    /// Whether every value of the object has been read.
    public var isAtEnd: Bool { fields.isAtEnd }

    /// The version the archive records for the class named `name` (how old code told which fields an
    /// archive holds), or nil when no class of that name is in the archive. A class renamed since is found by
    /// its type's name too: the archive's class whose name is registered with
    /// ``TypedstreamUnarchiver/setClass(_:forClassName:)`` for a type whose
    /// ``TypedstreamDecodable/typedstreamClassName`` is `name`.
    ///
    /// The corresponding Foundation API is `NSCoder.version(forClassName:)`.
    ///
    /// - Parameter name: a class name, such as this object's class or one of its superclasses.
    /// - Returns: the stored version, or nil.
    public func version(forClassName name: String) -> Int? {
        let classes = session.archive.classes
        if let stored = classes.first(where: { $0.name == name }) { return stored.version }
        for (archivedName, type) in session.registry where type.typedstreamClassName == name {
            if let stored = classes.first(where: { $0.name == archivedName }) { return stored.version }
        }
        return nil
    }

    /// The next group's values, whose type encoding must be `types`.
    ///
    /// The corresponding Foundation API is `NSCoder.decodeValues(ofObjCTypes:)`.
    ///
    /// - Parameter types: the Objective-C type encoding string the class wrote (`"ii"`, `"{_NSPoint=ff}"`).
    /// - Returns: one value per type.
    /// - Throws: ``TypedstreamError/Code/dataCorrupted`` when no group is left or the next has other types.
    public func decodeValues(ofObjCTypes types: String) throws(TypedstreamError) -> [TypedstreamValue] {
        try fields.nextGroup(types)
    }

    /// The next group's one integer (`c s i l q` or `C S I L Q`).
    ///
    /// The corresponding Foundation API is `NSCoder.decodeValue(ofObjCType:at:size:)` with an integer type.
    ///
    /// - Returns: the integer.
    /// - Throws: ``TypedstreamError/Code/dataCorrupted`` when the next group is not one integer or it does not
    ///   fit in `Int`.
    public func decodeInteger() throws(TypedstreamError) -> Int {
        let value = try fields.nextGroup(ofOneTypeIn: "cCsSiIlLqQ")
        switch value {
        case .integer(let v): if let i = Int(exactly: v) { return i }
        case .unsignedInteger(let v): if let i = Int(exactly: v) { return i }
        default: break
        }
        throw fields.corrupted("integer \(value) does not fit in Int")
    }

    /// The next group's one real (`f` or `d`).
    ///
    /// The corresponding Foundation API is `NSCoder.decodeValue(ofObjCType:at:size:)` with `f` or `d`.
    ///
    /// - Returns: the real, widened to `Double`.
    /// - Throws: ``TypedstreamError/Code/dataCorrupted`` when the next group is not one real.
    public func decodeDouble() throws(TypedstreamError) -> Double {
        switch try fields.nextGroup(ofOneTypeIn: "fd") {
        case .float(let f): return Double(f)
        case .double(let d): return d
        case let other: throw fields.corrupted("\(other) is not a real")
        }
    }

    /// The next group's one object, of a Foundation class (see ``TypedstreamUnarchiver``); `nil` reads as
    /// ``FoundationValue/null``.
    ///
    /// The corresponding Foundation API is `NSCoder.decodeObject()`.
    ///
    /// - Returns: the object's value.
    /// - Throws: ``TypedstreamError``: the next group is not one object, or its class is not one of
    ///   Foundation's value classes (unless ``TypedstreamUnarchiver/keepsUnknownObjects`` is set: then it is an
    ///   ``ArchivedTypedstreamObject``).
    public func decodeFoundationValue() throws(TypedstreamError) -> FoundationValue {
        try session.foundationValue(of: try fields.nextGroup(ofOneTypeIn: "@"), depth: depth)
    }

    /// The next group's one object, an NSString or NSMutableString (or nil).
    ///
    /// The corresponding Foundation API is `NSCoder.decodeObject()` returning an `NSString`.
    ///
    /// - Returns: the string, or nil for `nil`.
    /// - Throws: ``TypedstreamError/Code/dataCorrupted`` when the object is not a string.
    public func decodeString() throws(TypedstreamError) -> String? {
        let value = try decodeFoundationValue()
        if value == .null { return nil }
        guard case .string(let string) = value else { throw fields.corrupted("\(value) is not a string") }
        return string
    }

    /// The next group's one object, read as `type` (or nil for `nil`). Only `type` is instantiated: the stored
    /// class must be `type`'s ``TypedstreamDecodable/typedstreamClassName`` or a name registered for it with
    /// ``TypedstreamUnarchiver/setClass(_:forClassName:)``. An object referenced again is read again.
    ///
    /// The corresponding Foundation API is `NSCoder.decodeObject()`.
    ///
    /// - Parameter type: the type to read.
    /// - Returns: the value, or nil for `nil`.
    /// - Throws: ``TypedstreamError``: the next group is not one object, its class is not allowed here, the
    ///   object contains itself, nesting is deeper than the limits, or `type`'s `init(from:)` threw.
    public func decodeObject<T: TypedstreamDecodable>(of type: T.Type) throws(TypedstreamError) -> T? {
        try session.object(of: type, from: try fields.nextGroup(ofOneTypeIn: "@"), depth: depth)
    }

    func finish() throws(TypedstreamError) { try fields.expectEnd() }
}
