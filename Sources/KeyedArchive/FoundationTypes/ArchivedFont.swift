#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// AppKit's `NSFont` as archived: a PostScript name, a point size and AppKit's font flags.
///
/// The corresponding AppKit class is `NSFont` (not available on Linux: this type holds the archived
/// fields only).
///
/// Layout (`$classes` `[NSFont, NSObject]`), as in the NSFont archive Apple ships in Terminal.app's
/// "Basic" profile (quoted in public repositories that build Terminal profiles) and GNUstep's keyed
/// NSFont coding:
/// - `NSName`: UID → string, the PostScript name (`"SFMonoTerminal-Regular"`);
/// - `NSSize`: inline real, the point size;
/// - `NSfFlags`: inline integer, AppKit's private font flags (16 in Apple's sample); kept as read, written
///   only when present.
public struct ArchivedFont: CataloguedValue {
    /// The font's PostScript name (`NSName`).
    public var name: String
    /// The point size (`NSSize`).
    public var size: Double
    /// AppKit's font flags (`NSfFlags`), or nil when absent.
    public var flags: Int?

    /// A font named `name` at `size` points.
    public init(name: String, size: Double, flags: Int? = nil) {
        self.name = name
        self.size = size
        self.flags = flags
    }

    public static var archivedClassName: String { "NSFont" }
    public static var foundationValueName: String { "font" }

    public init(from decoder: any ArchiveDecoder) throws {
        self = try namingClass(Self.archivedClassName) { try Self(reading: decoder) }
    }

    /// Reads `NSName`, `NSSize` and `NSfFlags`.
    ///
    /// - Throws: ``KeyedArchiveError`` naming `NSFont` and the key when `NSName` or `NSSize` is missing or
    ///   of the wrong kind, or the size is negative or not finite.
    private init(reading decoder: any ArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "NSName")
        size = try decoder.decode(Double.self, forKey: "NSSize")
        guard size.isFinite, size >= 0 else {
            throw foundationTypeError(decoder, className: Self.archivedClassName, key: "NSSize", "size \(size) is negative or not finite")
        }
        flags = try decoder.decodeIfPresent(Int.self, forKey: "NSfFlags")
    }

    /// Writes `NSName` (a string object), `NSSize` (inline) and `NSfFlags` (inline, when set), as Apple does.
    public func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(name, forKey: "NSName")
        try encoder.encode(size, forKey: "NSSize")
        if let flags { try encoder.encode(flags, forKey: "NSfFlags") }
    }

    /// `NSFont Helvetica 12.0`.
    public var description: String { "NSFont \(name) \(size)" }
}
