#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// AppKit's `NSColor` as archived: RGB, white, CMYK or a named (catalog) color, with the component and
/// color-space members newer macOS versions add.
///
/// The corresponding AppKit class is `NSColor` (not available on Linux: this type holds the archived
/// fields only). `$classes` `[NSColor, NSObject]`. `NSColorSpace` (an inline integer) says which form:
///
/// | `NSColorSpace` | ``Content`` | Members |
/// |---|---|---|
/// | 1 calibrated, 2 device | ``Content/rgb(red:green:blue:alpha:calibrated:)`` | `NSRGB`: inline data, ASCII `"r g b[ a]"` + NUL |
/// | 3 calibrated, 4 device | ``Content/white(white:alpha:calibrated:)`` | `NSWhite`: inline data, `"w[ a]"` + NUL |
/// | 5 | ``Content/cmyk(cyan:magenta:yellow:black:alpha:)`` | `NSCYMK` (sic): inline data, `"c m y k[ a]"` + NUL |
/// | 6 | ``Content/catalog(catalogName:colorName:fallback:)`` | `NSCatalogName`, `NSColorName`: UID → string; `NSColor`: UID → the fallback NSColor |
///
/// Since macOS 10.13 an RGB or white color may also carry ``components`` (`NSComponents`: inline data,
/// `"r g b a"` without NUL) and ``colorSpace`` (`NSCustomColorSpace`: UID → an `NSColorSpace` object with
/// `NSID`, an inline integer such as 7 for sRGB, or `NSICC`, inline ICC profile data).
///
/// Evidence: no Apple-written NSColor archive is in the corpus. The keys and forms rest on GNUstep's
/// keyed NSColor coding (gnustep-gui NSColor.m: `NSColorSpace`, `NSRGB`, `NSWhite`, `NSCYMK`,
/// `NSCatalogName`, `NSColorName`, `NSColor`) and on Terminal.app profile generators in public
/// repositories that reproduce Apple's archives (`NSRGB` with a trailing NUL; `NSComponents` and
/// `NSCustomColorSpace` → `NSColorSpace {NSID: 7}`). Pattern colors (`NSColorSpace` 10, an NSImage) are
/// not read. Numbers are written in Swift's shortest round-trip form; alpha is left out when it is 1.
public struct ArchivedColor: CataloguedValue {
    /// The color's form and components.
    public indirect enum Content: Hashable, Sendable, Codable {
        /// `NSColorSpace` 1 (calibrated, Generic RGB) or 2 (device RGB).
        case rgb(red: Double, green: Double, blue: Double, alpha: Double, calibrated: Bool)
        /// `NSColorSpace` 3 (calibrated) or 4 (device) white.
        case white(white: Double, alpha: Double, calibrated: Bool)
        /// `NSColorSpace` 5, device CMYK.
        case cmyk(cyan: Double, magenta: Double, yellow: Double, black: Double, alpha: Double)
        /// `NSColorSpace` 6, a named color of a color list, with the color to use when the list is missing.
        case catalog(catalogName: String, colorName: String, fallback: ArchivedColor?)
    }

    /// A color space as `NSCustomColorSpace` holds it: AppKit's id (`NSID`) or an ICC profile (`NSICC`).
    public struct ColorSpace: Hashable, Sendable, Codable {
        /// `NSID`: 7 is sRGB, 5 Display P3, 3 Generic RGB (AppKit's private numbering).
        public var id: Int?
        /// `NSICC`: the ICC profile's bytes.
        public var iccProfile: Data?
        /// A color space with the given id or profile.
        public init(id: Int? = nil, iccProfile: Data? = nil) {
            self.id = id
            self.iccProfile = iccProfile
        }
    }

    /// The color's form and components.
    public var content: Content
    /// `NSComponents`: the components in ``colorSpace`` (nil when absent).
    public var components: [Double]?
    /// `NSCustomColorSpace` (nil when absent).
    public var colorSpace: ColorSpace?

    /// A color of the given form, with the optional newer members.
    public init(_ content: Content, components: [Double]? = nil, colorSpace: ColorSpace? = nil) {
        self.content = content
        self.components = components
        self.colorSpace = colorSpace
    }

    public static var archivedClassName: String { "NSColor" }
    public static var foundationValueName: String { "color" }

    public init(from decoder: any ArchiveDecoder) throws {
        self = try namingClass(Self.archivedClassName) { try Self(reading: decoder) }
    }

    /// Reads `NSColorSpace` and the members of its form (see the table above).
    ///
    /// - Throws: ``KeyedArchiveError`` naming `NSColor` and the key when `NSColorSpace` is unknown, a member
    ///   is missing or of the wrong kind, or a component list is not numbers or has the wrong count.
    private init(reading decoder: any ArchiveDecoder) throws {
        let space = try decoder.decode(Int.self, forKey: "NSColorSpace")
        switch space {
        case 1, 2:
            let n = try Self.numbers(decoder, key: "NSRGB", counts: 3 ... 4)
            content = .rgb(red: n[0], green: n[1], blue: n[2], alpha: n.count > 3 ? n[3] : 1, calibrated: space == 1)
        case 3, 4:
            let n = try Self.numbers(decoder, key: "NSWhite", counts: 1 ... 2)
            content = .white(white: n[0], alpha: n.count > 1 ? n[1] : 1, calibrated: space == 3)
        case 5:
            let n = try Self.numbers(decoder, key: "NSCYMK", counts: 4 ... 5)
            content = .cmyk(cyan: n[0], magenta: n[1], yellow: n[2], black: n[3], alpha: n.count > 4 ? n[4] : 1)
        case 6:
            content = .catalog(catalogName: try decoder.decode(String.self, forKey: "NSCatalogName"),
                               colorName: try decoder.decode(String.self, forKey: "NSColorName"),
                               fallback: try decoder.decodeIfPresent(ArchivedColor.self, forKey: "NSColor"))
        default:
            throw foundationTypeError(decoder, className: Self.archivedClassName, key: "NSColorSpace",
                                      "unsupported color form \(space) (supported: 1-2 RGB, 3-4 white, 5 CMYK, 6 catalog)")
        }
        components = decoder.containsValue(forKey: "NSComponents")
            ? try Self.numbers(decoder, key: "NSComponents", counts: 1 ... 16) : nil
        colorSpace = try decoder.decodeIfPresent(ColorSpaceObject.self, forKey: "NSCustomColorSpace")?.space
    }

    /// Writes `NSColorSpace` and the members of the form, as Apple does.
    public func encode(to encoder: any ArchiveEncoder) throws {
        switch content {
        case .rgb(let r, let g, let b, let a, let calibrated):
            try encoder.encode(calibrated ? 1 : 2, forKey: "NSColorSpace")
            try encoder.encodeInline(Self.text([r, g, b], alpha: a, terminated: true), forKey: "NSRGB")
        case .white(let w, let a, let calibrated):
            try encoder.encode(calibrated ? 3 : 4, forKey: "NSColorSpace")
            try encoder.encodeInline(Self.text([w], alpha: a, terminated: true), forKey: "NSWhite")
        case .cmyk(let c, let m, let y, let k, let a):
            try encoder.encode(5, forKey: "NSColorSpace")
            try encoder.encodeInline(Self.text([c, m, y, k], alpha: a, terminated: true), forKey: "NSCYMK")
        case .catalog(let catalog, let name, let fallback):
            try encoder.encode(6, forKey: "NSColorSpace")
            try encoder.encode(catalog, forKey: "NSCatalogName")
            try encoder.encode(name, forKey: "NSColorName")
            if let fallback { try encoder.encodeObject(fallback, forKey: "NSColor") }
        }
        if let components { try encoder.encodeInline(Self.text(components, alpha: nil, terminated: false), forKey: "NSComponents") }
        if let colorSpace { try encoder.encodeObject(ColorSpaceObject(space: colorSpace), forKey: "NSCustomColorSpace") }
    }

    /// `NSColor rgb(1, 0.5, 0)`, `NSColor catalog System/textColor`.
    public var description: String {
        func f(_ d: Double) -> String { ArchivedSpecialValue.format(d) }
        switch content {
        case .rgb(let r, let g, let b, let a, let calibrated):
            return "NSColor \(calibrated ? "calibrated" : "device") rgb(\(f(r)), \(f(g)), \(f(b))\(a == 1 ? "" : ", \(f(a))"))"
        case .white(let w, let a, let calibrated):
            return "NSColor \(calibrated ? "calibrated" : "device") white(\(f(w))\(a == 1 ? "" : ", \(f(a))"))"
        case .cmyk(let c, let m, let y, let k, let a):
            return "NSColor cmyk(\(f(c)), \(f(m)), \(f(y)), \(f(k))\(a == 1 ? "" : ", \(f(a))"))"
        case .catalog(let catalog, let name, _):
            return "NSColor catalog \(catalog)/\(name)"
        }
    }

    // MARK: Component text

    /// `"0.5 1 0"` plus alpha when it is not 1, plus a NUL when `terminated`, as ASCII bytes.
    static func text(_ values: [Double], alpha: Double?, terminated: Bool) -> Data {
        var all = values
        if let alpha, alpha != 1 { all.append(alpha) }
        var s = all.map(ArchivedSpecialValue.format).joined(separator: " ")
        if terminated { s += "\0" }
        return Data(s.utf8)
    }

    /// The numbers of the component text under `key`: ASCII numbers separated by spaces, up to a NUL.
    static func numbers(_ decoder: any ArchiveDecoder, key: String, counts: ClosedRange<Int>) throws -> [Double] {
        let bytes = try decoder.decode(Data.self, forKey: key)
        let text = bytes.prefix { $0 != 0 }
        var result: [Double] = []
        for token in text.split(whereSeparator: { $0 == 0x20 || $0 == 0x0A || $0 == 0x09 }) {
            guard result.count < counts.upperBound, token.count <= 64,
                  token.allSatisfy({ $0 < 0x80 }), let d = Double(String(decoding: token, as: UTF8.self)) else {
                throw foundationTypeError(decoder, className: archivedClassName, key: key,
                                          "not a list of \(counts.lowerBound)-\(counts.upperBound) numbers (\(bytes.count) bytes)")
            }
            result.append(d)
        }
        guard counts.contains(result.count) else {
            throw foundationTypeError(decoder, className: archivedClassName, key: key,
                                      "\(result.count) numbers; expected \(counts.lowerBound)-\(counts.upperBound)")
        }
        return result
    }
}

/// `NSColorSpace` (the object `NSCustomColorSpace` points at): `NSID` and/or `NSICC`.
struct ColorSpaceObject: KeyedArchivable {
    static var archivedClassName: String { "NSColorSpace" }
    let space: ArchivedColor.ColorSpace
    init(space: ArchivedColor.ColorSpace) { self.space = space }
    init(from decoder: any ArchiveDecoder) throws {
        space = try namingClass(Self.archivedClassName) {
            ArchivedColor.ColorSpace(id: try decoder.decodeIfPresent(Int.self, forKey: "NSID"),
                                     iccProfile: try decoder.decodeIfPresent(Data.self, forKey: "NSICC"))
        }
    }
    func encode(to encoder: any ArchiveEncoder) throws {
        if let id = space.id { try encoder.encode(id, forKey: "NSID") }
        if let icc = space.iccProfile { try encoder.encodeInline(icc, forKey: "NSICC") }
    }
}
