#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One object's values, written in order: the coder a ``TypedstreamEncodable`` type writes itself to.
///
/// The corresponding Foundation API is `NSArchiver` as an `NSCoder` (`encodeValues(ofObjCTypes:)`,
/// `encode(_:)` of an object, `encodeValue(ofObjCType:at:)`). Each call writes one group, as one
/// `encodeValuesOfObjCTypes:` (or `encodeObject:`, `encodeValueOfObjCType:at:`) call does; each matches a
/// ``TypedstreamDecoder`` call that reads it back: ``encodeValues(_:ofObjCTypes:)`` and
/// ``TypedstreamDecoder/decodeValues(ofObjCTypes:)``, ``encodeInteger(_:ofObjCType:)`` and
/// ``TypedstreamDecoder/decodeInteger()``, ``encodeDouble(_:)`` or ``encodeFloat(_:)`` and
/// ``TypedstreamDecoder/decodeDouble()``, ``encodeFoundationValue(_:)`` and
/// ``TypedstreamDecoder/decodeFoundationValue()``, ``encodeString(_:)`` and ``TypedstreamDecoder/decodeString()``,
/// ``encodeObject(_:)`` and ``TypedstreamDecoder/decodeObject(of:)``.
public final class TypedstreamEncoder {
    private let session: TypedstreamEncodingSession
    private let depth: Int
    /// The groups written so far.
    private(set) var groups: [TypedstreamGroup] = []

    init(session: TypedstreamEncodingSession, depth: Int, className: String) {
        self.session = session
        self.depth = depth
        self.className = className
    }

    /// The class name of the object being written, as its type names it (before
    /// ``TypedstreamArchiver/setClassName(_:forClassName:)`` renames it in the archive).
    public let className: String

    /// Writes one group: `values`, of the types `types` lists.
    ///
    /// The corresponding Foundation API is `NSCoder.encodeValues(ofObjCTypes:)` (and
    /// `encodeValue(ofObjCType:at:)` for one value). Values are as ``TypedstreamDecoder/decodeValues(ofObjCTypes:)``
    /// returns them: ``TypedstreamValue/integer(_:)`` for `c s i l q`, ``TypedstreamValue/unsignedInteger(_:)``
    /// for `C S I L Q`, ``TypedstreamValue/structure(_:)`` for a struct, ``TypedstreamValue/byteArray(_:)`` for
    /// `[Nc]` and `[NC]`, ``TypedstreamValue/array(_:)`` for other arrays. Objects are written with
    /// ``encodeObject(_:)`` or ``encodeFoundationValue(_:)``; here an `@` takes only
    /// ``TypedstreamValue/nilObject`` and a `#` only `.class(nil)`.
    ///
    /// - Parameters:
    ///   - values: one value per type.
    ///   - types: the Objective-C type encoding string (`"ii"`, `"{_NSPoint=ff}"`, `"[4c]"`).
    /// - Throws: ``TypedstreamError/Code/invalidArchive`` when `types` does not parse, or a value is not of
    ///   its type or does not fit it (`300` as a `c`).
    public func encodeValues(_ values: [TypedstreamValue], ofObjCTypes types: String) throws(TypedstreamError) {
        let parsed: [TypedstreamTypeEncoding]
        do {
            parsed = try TypedstreamTypeEncoding.parseList(Array(types.utf8))
        } catch {
            throw invalid("type encoding \(types.debugDescription): \(error.message)")
        }
        guard parsed.count == values.count else {
            throw invalid("type encoding \(types.debugDescription) has \(parsed.count) types, but \(values.count) values are given")
        }
        for (index, (type, value)) in zip(parsed, values).enumerated() {
            if let fault = Self.fault(writing: value, as: type) {
                throw invalid("value \(index + 1) of type \(types.debugDescription): \(fault)")
            }
        }
        groups.append(TypedstreamGroup(encoding: types, values: values))
    }

    /// Writes one integer as a group of the one type `type`.
    ///
    /// The corresponding Foundation API is `NSCoder.encodeValue(ofObjCType:at:)` with an integer type.
    ///
    /// - Parameters:
    ///   - value: the integer.
    ///   - type: `"c"`, `"s"`, `"i"`, `"l"` or `"q"` (signed, 1, 2, 4, 4 and 8 bytes), or `"C"`, `"S"`, `"I"`,
    ///     `"L"` or `"Q"` (unsigned). Default `"i"`, an `int`, as old classes wrote most integers.
    /// - Throws: ``TypedstreamError/Code/invalidArchive`` when `type` is not an integer type or `value` does
    ///   not fit it.
    public func encodeInteger(_ value: Int, ofObjCType type: String = "i") throws(TypedstreamError) {
        guard type.utf8.count == 1, let code = type.utf8.first, "cCsSiIlLqQ".utf8.contains(code) else {
            throw invalid("\(type.debugDescription) is not an integer type (c C s S i I l L q Q)")
        }
        let stored: TypedstreamValue
        if "csilq".utf8.contains(code) {
            stored = .integer(Int64(value))
        } else {
            guard let unsigned = UInt64(exactly: value) else { throw invalid("\(value) is negative for unsigned type \(type.debugDescription)") }
            stored = .unsignedInteger(unsigned)
        }
        try encodeValues([stored], ofObjCTypes: type)
    }

    /// Writes one 64-bit real as a group of type `d`.
    ///
    /// The corresponding Foundation API is `NSCoder.encodeValue(ofObjCType:at:)` with `d`.
    ///
    /// - Parameter value: the real.
    /// - Throws: nothing in practice; typed for symmetry with the other calls.
    public func encodeDouble(_ value: Double) throws(TypedstreamError) {
        try encodeValues([.double(value)], ofObjCTypes: "d")
    }

    /// Writes one 32-bit real as a group of type `f` (``TypedstreamDecoder/decodeDouble()`` reads it back
    /// widened).
    ///
    /// The corresponding Foundation API is `NSCoder.encodeValue(ofObjCType:at:)` with `f`.
    ///
    /// - Parameter value: the real.
    /// - Throws: nothing in practice; typed for symmetry with the other calls.
    public func encodeFloat(_ value: Float) throws(TypedstreamError) {
        try encodeValues([.float(value)], ofObjCTypes: "f")
    }

    /// Writes one object of a Foundation class (see ``TypedstreamArchiver/archivedData(withRootValue:)``),
    /// as a group of type `@`; ``FoundationValue/null`` is written as an `NSNull`.
    ///
    /// The corresponding Foundation API is `NSCoder.encode(_:)` of an `NSString`, `NSNumber`, `NSArray`, ...
    ///
    /// - Parameter value: the value.
    /// - Throws: ``TypedstreamError``: a value with no typedstream form (see
    ///   ``TypedstreamArchiver/archivedData(withRootValue:)``), or nesting deeper than the archiver's
    ///   ``TypedstreamArchiver/maximumDepth``.
    public func encodeFoundationValue(_ value: FoundationValue) throws(TypedstreamError) {
        groups.append(TypedstreamGroup(encoding: "@", values: [try session.foundationValue(value, depth: depth)]))
    }

    /// Writes one NSString, or `nil`, as a group of type `@`.
    ///
    /// The corresponding Foundation API is `NSCoder.encode(_:)` of an `NSString`.
    ///
    /// - Parameter value: the string, or nil.
    /// - Throws: ``TypedstreamError/Code/limitExceeded`` when objects nest deeper than the archiver's
    ///   ``TypedstreamArchiver/maximumDepth``.
    public func encodeString(_ value: String?) throws(TypedstreamError) {
        guard let value else {
            groups.append(TypedstreamGroup(encoding: "@", values: [.nilObject]))
            return
        }
        try encodeFoundationValue(.string(value))
    }

    /// Writes one object of your own type, or `nil`, as a group of type `@`: its class chain (with
    /// versions, renamed by ``TypedstreamArchiver/setClassName(_:forClassName:)``), then the values its
    /// ``TypedstreamEncodable/encode(to:)`` writes. An instance of a class written before is written as a
    /// reference to it, as `NSArchiver` does; a struct is written each time.
    ///
    /// The corresponding Foundation API is `NSCoder.encode(_:)`.
    ///
    /// - Parameter object: the object, or nil.
    /// - Throws: ``TypedstreamError``: objects nest deeper than the archiver's
    ///   ``TypedstreamArchiver/maximumDepth``, the type's class chain is empty, does not start with its
    ///   class name, or disagrees with a chain written before (another version or superclass for the same
    ///   class), or its `encode(to:)` threw (its error is in the message).
    public func encodeObject<T: TypedstreamEncodable>(_ object: T?) throws(TypedstreamError) {
        guard let object else {
            groups.append(TypedstreamGroup(encoding: "@", values: [.nilObject]))
            return
        }
        groups.append(TypedstreamGroup(encoding: "@", values: [try session.object(object, depth: depth)]))
    }

    private func invalid(_ message: String) -> TypedstreamError {
        TypedstreamError(.invalidArchive, message, className: className)
    }

    /// Why `value` cannot be written as `type` through this encoder, or nil when it can. Recurses along
    /// `type`, whose nesting the parser bounds.
    static func fault(writing value: TypedstreamValue, as type: TypedstreamTypeEncoding) -> String? {
        switch (type, value) {
        case (.scalar(let code), _):
            return scalarFault(value, code)
        case (.array(let count, .scalar(let code)), .byteArray(let bytes)) where code == UInt8(ascii: "c") || code == UInt8(ascii: "C"):
            return bytes.count == count ? nil : "\(bytes.count) bytes for an array of \(count)"
        case (.array(let count, let element), .array(let elements)):
            if case .scalar(let code) = element, code == UInt8(ascii: "c") || code == UInt8(ascii: "C") {
                return "an array of bytes is given as .byteArray"
            }
            guard elements.count == count else { return "\(elements.count) elements for an array of \(count)" }
            return elements.lazy.compactMap { fault(writing: $0, as: element) }.first
        case (.structure(let fields), .structure(let values)):
            guard fields.count == values.count else { return "\(values.count) fields for a struct of \(fields.count)" }
            return zip(values, fields).lazy.compactMap { fault(writing: $0, as: $1) }.first
        default:
            return "\(value) is not of type \(type.text)"
        }
    }

    private static func scalarFault(_ value: TypedstreamValue, _ code: UInt8) -> String? {
        let type = describeByte(code)
        switch (code, value) {
        case (UInt8(ascii: "c"), .integer(let v)): return Int8(exactly: v) == nil ? "\(v) does not fit type \(type)" : nil
        case (UInt8(ascii: "s"), .integer(let v)): return Int16(exactly: v) == nil ? "\(v) does not fit type \(type)" : nil
        case (UInt8(ascii: "i"), .integer(let v)), (UInt8(ascii: "l"), .integer(let v)):
            return Int32(exactly: v) == nil ? "\(v) does not fit type \(type)" : nil
        case (UInt8(ascii: "q"), .integer): return nil
        case (UInt8(ascii: "C"), .unsignedInteger(let v)): return UInt8(exactly: v) == nil ? "\(v) does not fit type \(type)" : nil
        case (UInt8(ascii: "S"), .unsignedInteger(let v)): return UInt16(exactly: v) == nil ? "\(v) does not fit type \(type)" : nil
        case (UInt8(ascii: "I"), .unsignedInteger(let v)), (UInt8(ascii: "L"), .unsignedInteger(let v)):
            return UInt32(exactly: v) == nil ? "\(v) does not fit type \(type)" : nil
        case (UInt8(ascii: "Q"), .unsignedInteger), (UInt8(ascii: "B"), .bool), (UInt8(ascii: "f"), .float),
             (UInt8(ascii: "d"), .double), (UInt8(ascii: "*"), .cString), (UInt8(ascii: "%"), .atom),
             (UInt8(ascii: ":"), .selector), (UInt8(ascii: "+"), .bytes), (UInt8(ascii: "#"), .class(nil)),
             (UInt8(ascii: "@"), .nilObject), (UInt8(ascii: "!"), .ignored):
            return nil
        case (UInt8(ascii: "@"), _):
            return "objects are written with encodeObject(_:) or encodeFoundationValue(_:)"
        default:
            return "\(value) is not of type \(type)"
        }
    }
}
