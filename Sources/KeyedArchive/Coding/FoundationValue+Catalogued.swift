// A constructor and an accessor named for each catalogued value type the package ships:
// `FoundationValue.color(c)` builds `.catalogued(c)` and `value.color` reads it back (nil for any other
// value). A type added to the catalogue needs no entry here: `FoundationValue.catalogued(as:)` reads any.

extension FoundationValue {
    /// The catalogued value, if this is ``catalogued(_:)`` holding a `T`.
    ///
    /// ```swift
    /// if let indexes = value.catalogued(as: ArchivedIndexSet.self) { print(indexes.count) }
    /// ```
    @inlinable
    public func catalogued<T: CataloguedValue>(as type: T.Type) -> T? {
        if case .catalogued(let value) = self { return value as? T }
        return nil
    }

    /// An NSValue: a range, point, size, rect or edge insets, or a number or C array of numbers of an Objective-C type: ``catalogued(_:)`` holding `value`.
    @inlinable
    public static func specialValue(_ value: ArchivedSpecialValue) -> FoundationValue { .catalogued(value) }

    /// The ``ArchivedSpecialValue``, if this is ``catalogued(_:)`` holding one.
    @inlinable
    public var specialValue: ArchivedSpecialValue? { catalogued(as: ArchivedSpecialValue.self) }

    /// An NSIndexSet or NSMutableIndexSet: ``catalogued(_:)`` holding `value`.
    @inlinable
    public static func indexSet(_ value: ArchivedIndexSet) -> FoundationValue { .catalogued(value) }

    /// The ``ArchivedIndexSet``, if this is ``catalogued(_:)`` holding one.
    @inlinable
    public var indexSet: ArchivedIndexSet? { catalogued(as: ArchivedIndexSet.self) }

    /// An NSIndexPath: ``catalogued(_:)`` holding `value`.
    @inlinable
    public static func indexPath(_ value: ArchivedIndexPath) -> FoundationValue { .catalogued(value) }

    /// The ``ArchivedIndexPath``, if this is ``catalogued(_:)`` holding one.
    @inlinable
    public var indexPath: ArchivedIndexPath? { catalogued(as: ArchivedIndexPath.self) }

    /// An NSCountedSet: ``catalogued(_:)`` holding `value`.
    @inlinable
    public static func countedSet(_ value: ArchivedCountedSet) -> FoundationValue { .catalogued(value) }

    /// The ``ArchivedCountedSet``, if this is ``catalogued(_:)`` holding one.
    @inlinable
    public var countedSet: ArchivedCountedSet? { catalogued(as: ArchivedCountedSet.self) }

    /// An NSMeasurement: ``catalogued(_:)`` holding `value`.
    @inlinable
    public static func measurement(_ value: ArchivedMeasurement) -> FoundationValue { .catalogued(value) }

    /// The ``ArchivedMeasurement``, if this is ``catalogued(_:)`` holding one.
    @inlinable
    public var measurement: ArchivedMeasurement? { catalogued(as: ArchivedMeasurement.self) }

    /// An NSTimeZone: ``catalogued(_:)`` holding `value`.
    @inlinable
    public static func timeZone(_ value: ArchivedTimeZone) -> FoundationValue { .catalogued(value) }

    /// The ``ArchivedTimeZone``, if this is ``catalogued(_:)`` holding one.
    @inlinable
    public var timeZone: ArchivedTimeZone? { catalogued(as: ArchivedTimeZone.self) }

    /// An NSLocale: ``catalogued(_:)`` holding `value`.
    @inlinable
    public static func locale(_ value: ArchivedLocale) -> FoundationValue { .catalogued(value) }

    /// The ``ArchivedLocale``, if this is ``catalogued(_:)`` holding one.
    @inlinable
    public var locale: ArchivedLocale? { catalogued(as: ArchivedLocale.self) }

    /// An NSISO8601DateFormatter's settings: ``catalogued(_:)`` holding `value`.
    @inlinable
    public static func iso8601DateFormatter(_ value: ArchivedISO8601DateFormatter) -> FoundationValue { .catalogued(value) }

    /// The ``ArchivedISO8601DateFormatter``, if this is ``catalogued(_:)`` holding one.
    @inlinable
    public var iso8601DateFormatter: ArchivedISO8601DateFormatter? { catalogued(as: ArchivedISO8601DateFormatter.self) }

    /// An NSAttributedString or NSMutableAttributedString: ``catalogued(_:)`` holding `value`.
    @inlinable
    public static func attributedString(_ value: ArchivedAttributedString) -> FoundationValue { .catalogued(value) }

    /// The ``ArchivedAttributedString``, if this is ``catalogued(_:)`` holding one.
    @inlinable
    public var attributedString: ArchivedAttributedString? { catalogued(as: ArchivedAttributedString.self) }

    /// An AppKit NSColor: ``catalogued(_:)`` holding `value`.
    @inlinable
    public static func color(_ value: ArchivedColor) -> FoundationValue { .catalogued(value) }

    /// The ``ArchivedColor``, if this is ``catalogued(_:)`` holding one.
    @inlinable
    public var color: ArchivedColor? { catalogued(as: ArchivedColor.self) }

    /// An AppKit NSFont: ``catalogued(_:)`` holding `value`.
    @inlinable
    public static func font(_ value: ArchivedFont) -> FoundationValue { .catalogued(value) }

    /// The ``ArchivedFont``, if this is ``catalogued(_:)`` holding one.
    @inlinable
    public var font: ArchivedFont? { catalogued(as: ArchivedFont.self) }
}
