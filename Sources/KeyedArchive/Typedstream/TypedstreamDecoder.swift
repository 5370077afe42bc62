#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A type read from a typedstream in the order its class wrote its values: what an old class's non-keyed
/// `initWithCoder:` did with `NSUnarchiver`.
///
/// The corresponding Foundation API is `NSCoding`'s `init(coder:)` with a non-keyed coder
/// (`allowsKeyedCoding == false`). Register the type with ``TypedstreamUnarchiver/setClass(_:forClassName:)``
/// for other names (a renamed class); ``TypedstreamUnarchiver/decode(_:from:)`` reads a root of this type.
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
    /// archive holds), or nil when no class of that name is in the archive.
    ///
    /// The corresponding Foundation API is `NSCoder.version(forClassName:)`.
    ///
    /// - Parameter name: a class name, such as this object's class or one of its superclasses.
    /// - Returns: the stored version, or nil.
    public func version(forClassName name: String) -> Int? {
        session.archive.classes.first { $0.name == name }?.version
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
    ///   Foundation's value classes.
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

/// The state of one ``TypedstreamUnarchiver/decode(_:from:)``: the archive, the registry, the Foundation
/// values made so far, and the objects being decoded (to refuse an object that contains itself).
final class TypedstreamDecodingSession {
    let archive: TypedstreamArchive
    let registry: [String: any TypedstreamDecodable.Type]
    let maximumDepth: Int
    private var foundationValues: TypedstreamFoundationValues
    private var inProgress = Set<Int>()

    init(archive: TypedstreamArchive, registry: [String: any TypedstreamDecodable.Type], maximumDepth: Int) {
        self.archive = archive
        self.registry = registry
        self.maximumDepth = maximumDepth
        foundationValues = TypedstreamFoundationValues(archive: archive, maximumDepth: maximumDepth)
    }

    func foundationValue(of value: TypedstreamValue, depth: Int) throws(TypedstreamError) -> FoundationValue {
        try foundationValues.value(value, depth: depth)
    }

    func object<T: TypedstreamDecodable>(of type: T.Type, from value: TypedstreamValue, depth: Int) throws(TypedstreamError) -> T? {
        let index: Int
        switch value {
        case .nilObject: return nil
        case .object(let i), .objectReference(let i): index = i
        default: throw TypedstreamError(.dataCorrupted, "\(value) is not an object where a \(T.typedstreamClassName) is read")
        }
        let name = archive.className(ofObjectAt: index) ?? "?"
        guard name == T.typedstreamClassName || registry[name].map({ $0 == type }) == true else {
            throw TypedstreamError(.dataCorrupted, "class \(name) is not allowed here; allowed: \(T.typedstreamClassName)",
                                   objectIndex: index, className: name)
        }
        guard depth < maximumDepth else {
            throw TypedstreamError(.limitExceeded, "objects nest deeper than limits.maximumDepth (\(maximumDepth))", objectIndex: index, className: name)
        }
        guard inProgress.insert(index).inserted else {
            throw TypedstreamError(.dataCorrupted, "the object contains itself", objectIndex: index, className: name)
        }
        defer { inProgress.remove(index) }
        let decoder = TypedstreamDecoder(session: self, objectIndex: index, depth: depth + 1)
        let result: T
        do {
            result = try T(from: decoder)
        } catch let error as TypedstreamError {
            throw error
        } catch {
            throw TypedstreamError(.dataCorrupted, "\(T.self).init(from:) threw: \(error)", objectIndex: index, className: name)
        }
        try decoder.finish()
        return result
    }
}

extension TypedstreamFields {
    /// The next group, which must hold one value of one of the type characters `types`.
    mutating func nextGroup(ofOneTypeIn types: String) throws(TypedstreamError) -> TypedstreamValue {
        guard !isAtEnd else { throw corrupted("no value is left where one of type \(types.debugDescription) is read") }
        let encoding = nextEncoding ?? ""
        guard encoding.count == 1, types.contains(encoding) else {
            throw corrupted("the next group has type \(encoding.debugDescription) where one of \(types.debugDescription) is read")
        }
        return try nextGroup(encoding)[0]
    }
}

extension TypedstreamUnarchiver {
    /// Reads names registered with ``setClass(_:forClassName:)`` as `type`.
    ///
    /// The corresponding Foundation API is `NSUnarchiver.decodeClassName(_:asClassName:)`: for classes renamed
    /// since the archive was written. A registration allows `type` only where `type` is asked for.
    ///
    /// - Parameters:
    ///   - type: the type to read such objects as.
    ///   - name: the class name found in archives.
    public mutating func setClass(_ type: any TypedstreamDecodable.Type, forClassName name: String) {
        registry[name] = type
    }

    /// Reads the archive's root object as `type`: the first top-level group's only value, of class `type`'s
    /// ``TypedstreamDecodable/typedstreamClassName`` or a name registered for it.
    ///
    /// The corresponding Foundation API is `NSUnarchiver.unarchiveObject(with:)`.
    ///
    /// - Parameters:
    ///   - type: the root's type; the objects it reads name their own types.
    ///   - data: the typedstream bytes.
    /// - Returns: the root.
    /// - Throws: ``TypedstreamError``: the bytes do not read, the root is not one object of an allowed class,
    ///   a value is not of the type asked for, an object contains itself, a limit is exceeded, or an
    ///   `init(from:)` threw (its error is in the message).
    public func decode<T: TypedstreamDecodable>(_ type: T.Type, from data: Data) throws(TypedstreamError) -> T {
        let archive = try TypedstreamArchive(data: data, limits: limits)
        guard let first = archive.groups.first, first.encoding == "@", first.values.count == 1 else {
            throw TypedstreamError(.dataCorrupted, "the first top-level group is \(archive.groups.first?.encoding.debugDescription ?? "missing"); expected one object")
        }
        let session = TypedstreamDecodingSession(archive: archive, registry: registry, maximumDepth: limits.maximumDepth)
        let root = try onSizedThread(for: archive) { () throws(TypedstreamError) in try session.object(of: type, from: first.values[0], depth: 0) }
        guard let root else { throw TypedstreamError(.dataCorrupted, "the root object is nil") }
        return root
    }
}
