#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Foundation's `NSValue` holding a range, point, size, rect or edge insets (the "special" values Apple's
/// archiver writes with an `NS.special` tag), or, read only, a number or C array of numbers of an Objective-C
/// type (``ObjCValue``).
///
/// The corresponding Foundation class is `NSValue` (`NSValue(range:)`, `NSValue(point:)`, ...).
///
/// | `NS.special` | Content | Members | Evidence |
/// |---|---|---|---|
/// | 4 | ``Content/range(location:length:)`` | `NS.rangeval.location`, `NS.rangeval.length`: UID → NSNumber | Darwin RangeTest and NSTextCheckingResult-*.archive fixtures |
/// | 1 | ``Content/point(x:y:)`` | `NS.pointval`: UID → string `"{x, y}"` | NSSpecialValue.swift in swift-corelibs-foundation (flag table, string form) |
/// | 2 | ``Content/size(width:height:)`` | `NS.sizeval`: UID → string `"{w, h}"` | the same |
/// | 3 | ``Content/rect(x:y:width:height:)`` | `NS.rectval`: UID → string `"{{x, y}, {w, h}}"` | Darwin RectTest fixture |
/// | 12 | ``Content/edgeInsets(top:left:bottom:right:)`` | `NS.edgeval.top/left/bottom/right`: inline reals | Darwin EdgeInsetsTest fixture |
///
/// The geometry strings are written as Apple's `NSStringFromRect` writes them, except that numbers use
/// Swift's shortest round-trip form (`0.30000000000000004`) where Apple rounds to 15 significant digits
/// (`0.3`); integral numbers are written without a fraction (`400`), as Apple writes them. Reading accepts
/// either.
///
/// An NSValue without `NS.special` is read as ``Content/objCValue(_:)`` when `$0` names a number type or a
/// C array of one (`"i"`, `"[3i]"`), as in the Darwin ConcreteValueTest fixture (see ``ObjCValue``); any
/// other Objective-C type (structs, pointers, objects) is rejected with ``KeyedArchiveError/Code/dataCorrupted``.
public struct ArchivedSpecialValue: CataloguedValue {
    /// What the value holds.
    public enum Content: Hashable, Sendable, Codable {
        /// An `NSRange` (`NS.special` 4).
        case range(location: Int, length: Int)
        /// An `NSPoint` / `CGPoint` (`NS.special` 1).
        case point(x: Double, y: Double)
        /// An `NSSize` / `CGSize` (`NS.special` 2).
        case size(width: Double, height: Double)
        /// An `NSRect` / `CGRect` (`NS.special` 3).
        case rect(x: Double, y: Double, width: Double, height: Double)
        /// An `NSEdgeInsets` (`NS.special` 12).
        case edgeInsets(top: Double, left: Double, bottom: Double, right: Double)
        /// A number or C array of numbers of an Objective-C type (`NSValue(bytes:objCType:)`), written with no
        /// `NS.special`: read only.
        case objCValue(ObjCValue)

        /// Names ``objCValue(_:)``'s payload `value` in the Codable form (rather than `_0`).
        private enum ObjCValueCodingKeys: String, CodingKey {
            case _0 = "value"
        }

        /// The `NS.special` tag Apple writes for this kind of content; 0 for ``objCValue(_:)``, which has none.
        public var specialTag: Int {
            switch self {
            case .objCValue: return 0
            case .point: return 1
            case .size: return 2
            case .rect: return 3
            case .range: return 4
            case .edgeInsets: return 12
            }
        }
    }

    /// What the value holds.
    public var content: Content

    /// A value holding `content`.
    public init(_ content: Content) { self.content = content }

    /// An `NSValue(range:)` with the given location and length.
    public init(range: Range<Int>) { content = .range(location: range.lowerBound, length: range.count) }

    /// The range, when the value holds one.
    public var range: Range<Int>? {
        guard case .range(let location, let length) = content, length >= 0,
              location <= Int.max - length else { return nil }
        return location ..< location + length
    }

    public static var archivedClassName: String { "NSValue" }
    public static var foundationValueName: String { "specialValue" }

    /// Reads the members of `NS.special`'s kind (see the table above).
    ///
    /// - Throws: ``KeyedArchiveError`` naming `NSValue` and the key when `NS.special` is absent or unknown,
    ///   a member is missing or of the wrong kind, or a geometry string does not parse.
    public init(from decoder: any ArchiveDecoder) throws {
        self = try namingClass(Self.archivedClassName) { try Self(reading: decoder) }
    }

    private init(reading decoder: any ArchiveDecoder) throws {
        let className = Self.archivedClassName
        guard decoder.containsValue(forKey: "NS.special") else {
            if let reader = decoder.objectReading, try reader.hasValue(reservedKey: "$0") {
                content = .objCValue(try ObjCValue(reading: decoder))
                return
            }
            throw foundationTypeError(decoder, className: className, key: "NS.special",
                                      "absent, and no $0 type encoding: neither a special NSValue (range, point, size, rect, "
                                        + "edge insets) nor one of an Objective-C type")
        }
        let tag = try decoder.decode(Int.self, forKey: "NS.special")
        switch tag {
        case 4:
            content = .range(location: try decoder.decode(Int.self, forKey: "NS.rangeval.location"),
                             length: try decoder.decode(Int.self, forKey: "NS.rangeval.length"))
        case 1:
            let n = try Self.numbers(decoder, key: "NS.pointval", count: 2)
            content = .point(x: n[0], y: n[1])
        case 2:
            let n = try Self.numbers(decoder, key: "NS.sizeval", count: 2)
            content = .size(width: n[0], height: n[1])
        case 3:
            let n = try Self.numbers(decoder, key: "NS.rectval", count: 4)
            content = .rect(x: n[0], y: n[1], width: n[2], height: n[3])
        case 12:
            content = .edgeInsets(top: try decoder.decode(Double.self, forKey: "NS.edgeval.top"),
                                  left: try decoder.decode(Double.self, forKey: "NS.edgeval.left"),
                                  bottom: try decoder.decode(Double.self, forKey: "NS.edgeval.bottom"),
                                  right: try decoder.decode(Double.self, forKey: "NS.edgeval.right"))
        default:
            throw foundationTypeError(decoder, className: className, key: "NS.special",
                                      "unsupported special value kind \(tag) (supported: 1 point, 2 size, 3 rect, 4 range, 12 edge insets)")
        }
    }

    /// Writes `NS.special` and the members of its kind, as Apple does (range members as NSNumber objects).
    /// - Throws: ``KeyedArchiveError/Code/invalidValue`` for ``Content/objCValue(_:)``, which is read only.
    public func encode(to encoder: any ArchiveEncoder) throws {
        if case .objCValue(let value) = content {
            throw KeyedArchiveError(.invalidValue, "NSValue of Objective-C type \"\(value.typeEncoding)\" cannot be written "
                                    + "(the $0/$1 layout is read only)", className: Self.archivedClassName)
        }
        try encoder.encode(content.specialTag, forKey: "NS.special")
        switch content {
        case .range(let location, let length):
            try encoder.encodeIntegerObject(location, forKey: "NS.rangeval.location")
            try encoder.encodeIntegerObject(length, forKey: "NS.rangeval.length")
        case .point(let x, let y):
            try encoder.encode("{\(Self.format(x)), \(Self.format(y))}", forKey: "NS.pointval")
        case .size(let w, let h):
            try encoder.encode("{\(Self.format(w)), \(Self.format(h))}", forKey: "NS.sizeval")
        case .rect(let x, let y, let w, let h):
            try encoder.encode("{{\(Self.format(x)), \(Self.format(y))}, {\(Self.format(w)), \(Self.format(h))}}",
                               forKey: "NS.rectval")
        case .edgeInsets(let top, let left, let bottom, let right):
            try encoder.encode(top, forKey: "NS.edgeval.top")
            try encoder.encode(left, forKey: "NS.edgeval.left")
            try encoder.encode(bottom, forKey: "NS.edgeval.bottom")
            try encoder.encode(right, forKey: "NS.edgeval.right")
        case .objCValue:
            break  // thrown above
        }
    }

    /// `NSValue range {2, 5}`, `NSValue rect {{0, 0}, {10, 20}}`, `NSValue [3i] {1, 2, 3}`, `NSValue d 2.5`, ...
    public var description: String {
        switch content {
        case .range(let l, let n): return "NSValue range {\(l), \(n)}"
        case .point(let x, let y): return "NSValue point {\(Self.format(x)), \(Self.format(y))}"
        case .size(let w, let h): return "NSValue size {\(Self.format(w)), \(Self.format(h))}"
        case .rect(let x, let y, let w, let h):
            return "NSValue rect {{\(Self.format(x)), \(Self.format(y))}, {\(Self.format(w)), \(Self.format(h))}}"
        case .edgeInsets(let t, let l, let b, let r):
            return "NSValue edge insets {\(Self.format(t)), \(Self.format(l)), \(Self.format(b)), \(Self.format(r))}"
        case .objCValue(let v):
            let numbers = v.elements.map { n -> String in
                switch n {
                case .integer(let i): return String(i)
                case .unsignedInteger(let u): return String(u)
                case .real(let d): return "\(d)"
                case .bool(let b): return b ? "true" : "false"
                }
            }
            let shown = numbers.count > 16 ? numbers.prefix(16).joined(separator: ", ") + ", ... (\(numbers.count))" : numbers.joined(separator: ", ")
            return v.typeEncoding.hasPrefix("[") ? "NSValue \(v.typeEncoding) {\(shown)}" : "NSValue \(v.typeEncoding) \(shown)"
        }
    }

    // MARK: Geometry strings

    /// A number as the geometry strings hold it: integral values without a fraction.
    static func format(_ d: Double) -> String {
        if d.isFinite, d.rounded() == d, abs(d) < 1e15 { return String(Int64(d)) }
        return "\(d)"
    }

    /// The `count` numbers of the geometry string under `key` (`"{{400, 300}, {200, 300}}"`); braces and
    /// spaces are separators, numbers are what Swift's `Double(_:)` reads.
    static func numbers(_ decoder: any ArchiveDecoder, key: String, count: Int) throws -> [Double] {
        let text = try decoder.decode(String.self, forKey: key)
        var result: [Double] = []
        var token = ""
        func flush() throws {
            guard !token.isEmpty else { return }
            guard result.count < count, let d = Double(token) else {
                throw foundationTypeError(decoder, className: archivedClassName, key: key,
                                          "\"\(text.prefix(80))\" is not a geometry string of \(count) numbers")
            }
            result.append(d)
            token = ""
        }
        for ch in text.unicodeScalars.prefix(1000) {
            switch ch {
            case "{", "}", ",", " ": try flush()
            default: token.unicodeScalars.append(ch)
            }
        }
        try flush()
        guard result.count == count, text.unicodeScalars.count <= 1000 else {
            throw foundationTypeError(decoder, className: archivedClassName, key: key,
                                      "\"\(text.prefix(80))\" is not a geometry string of \(count) numbers")
        }
        return result
    }
}
