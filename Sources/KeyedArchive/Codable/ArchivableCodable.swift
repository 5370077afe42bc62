#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A `Codable` type archived as an object of a keyed archive with no hand-written coding: declare the
/// conformance, and ``KeyedArchiver`` and ``KeyedUnarchiver`` run the type's Codable implementation
/// (synthesized or your own) through an `Encoder`/`Decoder` adapter over the archive coder.
///
/// ```swift
/// final class Note: ArchivableCodable {
///     var title: String
///     var tags: [String]
///     var created: Date
///     @BackReference var parent: Note?   // a reference back up the graph, delivered once it is built
/// }
/// let data = try KeyedArchiver.archivedData(withRootObject: note)
/// let back = try KeyedUnarchiver.unarchivedObject(ofClass: Note.self, from: data)
/// ```
///
/// **What the archive holds.** Each value is an object with a `$class` (``KeyedArchivable/archivedClassName``,
/// default `"Module.TypeName"`; override it, ``KeyedArchivable/legacyClassNames`` and
/// ``KeyedArchivable/archivedClassChain`` as for any model) and its fields under its coding keys:
/// - `Bool`, integers, `Float`, `Double`, `String`, `Data`, `Date`, `UUID`, `URL` and other ``ArchiveValue``s
///   (including ``KeyedArchivable`` models) with the same typed calls a hand-written `encode(to:)` makes, so
///   the bytes are those of the equivalent hand-written model;
/// - optionals: nil as `$null` (also for `encodeIfPresent`, so every instance has the same keys); an absent
///   key and `$null` both read as nil;
/// - arrays, sets and dictionaries as NSArray, NSSet and NSDictionary; dictionary keys keep their type
///   (`[Int: String]` has NSNumber keys, as `NSDictionary` would; `PropertyListEncoder` would write strings);
///   nil elements as NSNull; reading a `Set<String>`, a `[String: V]` or a nested keyed container from an
///   archived set or dictionary that holds two strings only canonical equivalence makes equal ("\u{E9}" and
///   "e\u{301}", distinct NSStrings) throws naming both (``KeyedArchiveError/Code/equivalentKeys``, or
///   `DecodingError.dataCorrupted` for a keyed container);
/// - `Decimal`, `Locale`, `TimeZone`, `DateInterval`, `Calendar`, `DateComponents` and `Measurement` (of `Unit`,
///   `Dimension` or one of Foundation's unit classes) as NSDecimalNumber, NSLocale, NSTimeZone, NSDateInterval,
///   NSCalendar, NSDateComponents and NSMeasurement, as Apple's archiver writes them; `URLComponents`, which no
///   Foundation class archives, as an object of its Codable fields named `Foundation.URLComponents` (see
///   <doc:ChangingYourModels>);
/// - any other Codable value (a struct, an enum with associated values) as a nested object whose class name
///   is `String(reflecting:)` of its type (with `FoundationEssentials.` spelled `Foundation.`, the same on
///   every platform) or, for a type that adopts ``ArchiveNamed``, its ``ArchiveNamed/archivedClassName``
///   (also read from its ``ArchiveNamed/legacyClassNames``), holding its keyed fields; a value that encodes itself with a
///   single-value container (an enum with a raw value, a wrapper) as that value itself, with no object; one
///   that uses an unkeyed container as an NSArray;
/// - nested keyed containers (enum associated values, `superEncoder`) as NSDictionary with string keys,
///   nested unkeyed containers as NSArray.
///
/// At the object level (this type itself), a single-value container stores its value under
/// ``ArchivableCodableKeys/value`` and an unkeyed container stores an NSArray under
/// ``ArchivableCodableKeys/elements``.
///
/// **Classes.** A class instance is archived once however often it is referenced and comes back as one
/// instance. A class used inside a Codable value must itself adopt `ArchivableCodable` (a plain `Codable`
/// class there throws `EncodingError.invalidValue` / `DecodingError.typeMismatch`): that is what gives it an
/// identity. A Codable initializer cannot receive an object that is still being decoded, so a reference back
/// up the graph (a parent, an owner, a ring) is declared ``BackReference`` (or ``WeakBackReference``): the
/// unarchiver delivers it once the graph is built, keeping identity. Archiving refuses, with an
/// `EncodingError` naming the property, a graph whose plain references between Codable objects form a cycle,
/// since it could not be decoded (hand-written models between them are not checked: they may read their
/// references with ``ArchiveDecoder/decodeObjectReference(of:forKey:assign:)``). A field added in a later
/// version reads old archives with ``DefaultWhenMissing`` or ``DefaultFrom``.
/// For a non-final class, declare `required init(from decoder: any Decoder)` as usual.
///
/// **Security.** Decoding instantiates only the types the requested type's own structure names: models by
/// their archived names (as ``KeyedUnarchiver`` checks every model), nested Codable values by their type
/// names, all checked before any initializer runs; ``KeyedUnarchiver/Limits`` apply.
///
/// **Errors** are `EncodingError`/`DecodingError`, as from `JSONDecoder`, at every depth: decoding an
/// `ArchivableCodable` type with ``KeyedUnarchiver`` throws `DecodingError` also for a wrong class at the root
/// or a damaged archive. The `codingPath` starts at the decoded value and has array elements as integer keys
/// (`books`, `0`, `title`); the element's position is given for a dictionary's entry too. `debugDescription`
/// is a short summary, and `underlyingError` is the ``KeyedArchiveError`` that says what was wrong and where in
/// the archive (key path `root.books[0].title`, object UID, class). The expected type is the type as written
/// (`CPoint`, not its coding keys).
///
/// A type that implements ``KeyedArchivable/init(from:)`` and ``KeyedArchivable/encode(to:)`` itself keeps
/// its hand-written coding.
public protocol ArchivableCodable: KeyedArchivable, Codable {}

extension ArchivableCodable {
    /// Reads this value's Codable representation from the fields of one archived object.
    public init(from decoder: any ArchiveDecoder) throws {
        let adapter = ArchiveCodableDecoder(object: decoder, codingPath: [])
        defer { adapter.close() }
        self = try CodableArchiving.decodingObject(decoder) { try Self(from: adapter) }
    }

    /// Writes this value's Codable representation as the fields of one archived object.
    public func encode(to encoder: any ArchiveEncoder) throws {
        try ArchiveCodableEncoder.encodeObject(self, to: encoder)
    }
}
