extension KeyedArchiver {
    /// What an archiver is told before it writes: the output format and the class names it writes for
    /// types. A `Sendable` value: keep one in a `static let` and create archivers from it in any task
    /// (an archiver itself holds one archive's state and stays in the task that writes it).
    ///
    /// The corresponding Foundation API is the `outputFormat` property and `setClassName(_:for:)` of
    /// `NSKeyedArchiver`.
    ///
    /// ```swift
    /// static let archiving: KeyedArchiver.Configuration = {
    ///     var configuration = KeyedArchiver.Configuration(outputFormat: .xml)
    ///     configuration.setClassName("Note", for: Note.self)
    ///     return configuration
    /// }()
    /// let data = try KeyedArchiver.archivedData(withRootObject: note, configuration: archiving)
    /// ```
    public struct Configuration: Sendable, Hashable {
        /// The format ``KeyedArchiver/encodedData(format:)`` writes when none is given. Default: binary,
        /// what Foundation writes.
        public var outputFormat: PropertyListFormat
        /// The class names set with ``setClassName(_:for:)``, by type.
        var classNames: [ObjectIdentifier: String] = [:]

        /// Creates a configuration that writes `outputFormat` and each type's own class name.
        /// - Parameter outputFormat: binary (default) or XML.
        public init(outputFormat: PropertyListFormat = .binary) {
            self.outputFormat = outputFormat
        }

        /// Writes instances of `type` with the class name `name` instead of `type.archivedClassName`.
        ///
        /// The corresponding Foundation API is `NSKeyedArchiver.setClassName(_:for:)`. The `$classes` chain
        /// keeps the type's declared superclasses after `name`.
        public mutating func setClassName(_ name: String, for type: any KeyedArchivable.Type) {
            classNames[ObjectIdentifier(type)] = name
        }

        /// The class name set with ``setClassName(_:for:)`` for `type`, if any.
        public func className(for type: any KeyedArchivable.Type) -> String? {
            classNames[ObjectIdentifier(type)]
        }
    }
}
