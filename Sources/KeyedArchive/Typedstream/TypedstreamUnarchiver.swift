#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads typedstream (`NSArchiver`) archives, such as the Messages app's `attributedBody` column, into the
/// values the keyed side uses (``FoundationValue``), instantiating nothing but Foundation's value classes.
///
/// The corresponding Foundation API is `NSUnarchiver` (macOS only; Foundation on Linux has none). The name
/// pairs it with ``KeyedUnarchiver``: same limits, same values, the other archive family.
///
/// | Class (and its mutable form) | Stored as | Read as |
/// |---|---|---|
/// | NSString | `+` its UTF-8 | `.string` |
/// | NSNumber | `*` its type, then the value | `.integer` (`c s i l q C S I L Q`; BOOL is `c` too), `.real` (`f d`), `.bool` (`B`) |
/// | NSData | `i` length, `[Nc]` bytes | `.data` |
/// | NSDate | `d` seconds since 2001 | `.date` |
/// | NSURL | `c` relative?, [`@` base URL], `@` string | `.url` |
/// | NSArray, NSSet | `i` (`I`) count, then each `@` | `.array`, `.set` |
/// | NSDictionary | `i` count, then `@` key, `@` value | `.dictionary` |
/// | NSValue | `*` its type, then the value | `.specialValue` (ranges, points, sizes, rects, edge insets, numbers and C arrays of them; a `[Nc]` or `[NC]` array's bytes are its numbers) |
/// | NSNull | nothing | ``FoundationValue/null`` |
/// | NSColor | `c` kind, then `f` components (or two NSStrings and a fallback NSColor) | `.color` |
/// | NSFont | an old-style binary property list name, `f` size, four `c` flags | `.font` |
/// | NSAttributedString | `@` NSString, then per run `iI` (attribute dictionary number, length) and, when the number is new, `@` the dictionary | `.attributedString` |
///
/// Any other class stays in the raw model (``TypedstreamArchive``): reading it as a value throws, naming it,
/// unless ``keepsUnknownObjects`` is set.
public struct TypedstreamUnarchiver: Sendable {
    /// The limits applied to the archive: objects, values, bytes, and the depth of nesting (stored objects
    /// inside objects while reading, and references followed while making values).
    public var limits = KeyedUnarchiver.Limits()
    /// Whether an object of a class with no Foundation value (an old nib's `NSIBObjectData`, an app's own
    /// class) is read as an ``ArchivedTypedstreamObject``, its place in the raw model, instead of failing the
    /// read. Default false: such a class is an error naming it. Nothing is instantiated either way.
    public var keepsUnknownObjects = false
    /// Class name to the type read for it (``setClass(_:forClassName:)``).
    var registry: [String: any TypedstreamDecodable.Type] = [:]

    /// An unarchiver with the default limits.
    public init() {}

    /// The archive's single root value: the first top-level group's only value (an attributedBody's
    /// NSAttributedString, an NSArchiver file's root object).
    ///
    /// The corresponding Foundation API is `NSUnarchiver.unarchiveObject(with:)`.
    ///
    /// - Parameter data: the typedstream bytes.
    /// - Returns: the root as a ``FoundationValue``.
    /// - Throws: ``TypedstreamError``: the bytes do not read (see ``TypedstreamArchive/init(data:limits:)``), the
    ///   first group holds no value or several, or a class is not one of the table's or is not stored as it
    ///   writes itself.
    public func foundationValue(from data: Data) throws(TypedstreamError) -> FoundationValue {
        if let values = TypedstreamStreamSource.foundationValues(from: data, limits: limits, rootOnly: true) { return values[0] }
        return try rootValueThroughRawModel(from: data)
    }

    /// ``foundationValue(from:)`` through the raw model: the whole ``TypedstreamArchive`` read first (what
    /// gives every error its byte offset), then its root made a ``FoundationValue``.
    func rootValueThroughRawModel(from data: Data) throws(TypedstreamError) -> FoundationValue {
        let archive = try TypedstreamArchive(data: data, limits: limits)
        guard let first = archive.groups.first, first.values.count == 1 else {
            throw TypedstreamError(.dataCorrupted, "the first top-level group holds \(archive.groups.first?.values.count ?? 0) values; expected one root")
        }
        return try foundationValues(of: [first.values[0]], in: archive)[0]
    }

    /// Every top-level value of the archive, in order (a color list's `.clr` file is an integer, then pairs
    /// of names and colors).
    ///
    /// - Parameter data: the typedstream bytes.
    /// - Returns: one ``FoundationValue`` per top-level value.
    /// - Throws: ``TypedstreamError`` as ``foundationValue(from:)`` does.
    public func foundationValues(from data: Data) throws(TypedstreamError) -> [FoundationValue] {
        if let values = TypedstreamStreamSource.foundationValues(from: data, limits: limits, rootOnly: false) { return values }
        return try valuesThroughRawModel(from: data)
    }

    /// ``foundationValues(from:)`` through the raw model.
    func valuesThroughRawModel(from data: Data) throws(TypedstreamError) -> [FoundationValue] {
        let archive = try TypedstreamArchive(data: data, limits: limits)
        return try foundationValues(of: archive.groups.flatMap(\.values), in: archive)
    }

    /// The Foundation values of `values`, which belong to `archive` (a top-level group's values, or an
    /// object's: `.object(index)` reads the object at `index`).
    ///
    /// - Parameters:
    ///   - values: values of `archive`.
    ///   - archive: the archive they come from.
    /// - Returns: one ``FoundationValue`` per value.
    /// - Throws: ``TypedstreamError``: a class outside the table, a class not stored as it writes itself, an
    ///   object that contains itself, nesting deeper than ``limits``, a value with no Foundation form (a
    ///   selector, a class, a C array).
    public func foundationValues(of values: [TypedstreamValue], in archive: TypedstreamArchive) throws(TypedstreamError) -> [FoundationValue] {
        var maker = TypedstreamFoundationValues(source: TypedstreamArchiveSource(archive: archive), maximumDepth: limits.maximumDepth, keepsUnknownObjects: keepsUnknownObjects)
        return try onSizedThread(for: archive) { () throws(TypedstreamError) in
            try values.map { value throws(TypedstreamError) in try maker.value(value, depth: 0) }
        }
    }

    /// Runs `body`, which recurses once per object reached through another (at most every object, at most
    /// ``limits``' depth), on a stack that holds that.
    func onSizedThread<R>(for archive: TypedstreamArchive, _ body: () throws(TypedstreamError) -> R) throws(TypedstreamError) -> R {
        try runTypedstreamWork(levels: min(archive.objects.count, limits.maximumDepth) + 1, body)
    }
}

/// Runs `body`, whose recursion goes at most `levels` levels deep, where it is called when any stack holds
/// that many, else on a thread whose stack is sized for them (``runOnThread(levels:bytesPerLevel:_:)``).
func runTypedstreamWork<R>(levels: Int, _ body: () throws(TypedstreamError) -> R) throws(TypedstreamError) -> R {
    if levels <= levelsEveryStackHolds { return try body() }
    let result: Result<R, TypedstreamError>
    do {
        result = try runOnThread(levels: levels, bytesPerLevel: KeyedUnarchiver.defaultStackBytesPerLevel) {
            Result { () throws(TypedstreamError) in try body() }
        }
    } catch {
        throw TypedstreamError(.limitExceeded, "\(error)")
    }
    return try result.get()
}
