/// The value type of a Foundation class in the package's catalogue that is not a property-list kind
/// (NSValue, NSIndexSet, NSColor, ...): what ``FoundationValue/catalogued(_:)`` holds.
///
/// ``ArchivedSpecialValue``, ``ArchivedIndexSet``, ``ArchivedIndexPath``, ``ArchivedCountedSet``,
/// ``ArchivedMeasurement``, ``ArchivedTimeZone``, ``ArchivedLocale``, ``ArchivedISO8601DateFormatter``,
/// ``ArchivedAttributedString``, ``ArchivedColor`` and ``ArchivedFont`` conform. The unarchiver produces a
/// ``FoundationValue/catalogued(_:)`` value only for the classes of the catalogue, each read by its type
/// alone; a value of another conforming type can be built and archived, and is written as that type's class.
///
/// A conforming type reads and writes its class (``KeyedArchivable``), compares and hashes by value, has a
/// Codable form (archive-dump's JSON) and a one-line description. ``FoundationValue``'s `==` and hash use
/// the type's own, except for the two types that hold other values, ``ArchivedCountedSet`` and
/// ``ArchivedAttributedString``, whose values it walks on its own stack so that any depth compares.
public protocol CataloguedValue: KeyedArchivable, Hashable, Sendable, Codable, CustomStringConvertible {
    /// The name of this kind of value in ``FoundationValue``'s Codable form and in error messages:
    /// `"color"` for ``ArchivedColor``, the name of its accessor (``FoundationValue/color``).
    static var foundationValueName: String { get }
}

extension CataloguedValue {
    /// Whether `other` is a value of this type equal to this one.
    func isEqual(to other: any CataloguedValue) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}
