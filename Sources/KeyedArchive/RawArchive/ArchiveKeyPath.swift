/// A path to a value in a keyed archive, as `plutil` writes key paths: components separated by dots.
///
/// Two kinds of path, told apart by their first component:
/// - **Through the object graph** (the first component does not start with `$`): the first component is a
///   key of `$top` (`root`, or `IB\.objectdata` in a compiled nib), and each further component steps into the
///   value found so far, following UIDs: a key of an `NSDictionary` (matched against its `NS.keys` strings),
///   an index of an `NSArray`, `NSSet` or `NSOrderedSet` (its `NS.objects` or `NS.object.<i>` members), a
///   field of any other object (its key as the object's coder wrote it), or a key or index of a plain
///   dictionary or array stored inline. `root.contacts.0.name`.
/// - **Raw** (the first component starts with `$`): the archive's own property list, no UID followed:
///   `$objects.3.name`, `$top.root`, `$archiver`.
///
/// The syntax is plutil's, parsed by ``PropertyListKeyPath``: a dot inside a component is written `\.`, and no
/// other character is special (swift-corelibs-foundation's plutil splits key paths the same way). A key that
/// holds a dot must be escaped (`IB\.objectdata`): a missing key is never retried joined with the components
/// after it, as plutil does not retry it.
public struct ArchiveKeyPath: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The components, unescaped.
    public var components: [String]

    /// The most components a path may have: a bound on the work one path asks for.
    public static let maximumComponentCount = 4096

    /// A path from its components, taken as they are (no escapes).
    /// - Parameter components: keys and indices from `$top` (or, for a raw path, from the archive's root).
    public init(components: [String]) {
        self.components = components
    }

    /// The path with the components of a property list key path.
    /// - Parameter keyPath: a key path in plutil's syntax, already parsed.
    public init(_ keyPath: PropertyListKeyPath) {
        self.components = keyPath.components
    }

    /// Parses a dotted key path (`root.items.0.title`) exactly as ``PropertyListKeyPath/init(_:)`` does:
    /// `\.` is a dot inside a component; every string gives at least one component (`""` is one empty key,
    /// `"a."` is `["a", ""]`).
    /// - Parameter string: the key path as a user types it.
    public init(_ string: String) {
        self.components = PropertyListKeyPath(string).components
    }

    /// Parses a dotted key path in plutil's syntax, as the initializer from a string does.
    public init(stringLiteral value: String) { self.init(value) }

    /// Whether the path addresses the raw property list (its first component starts with `$`).
    public var isRaw: Bool { components.first?.hasPrefix("$") ?? false }

    /// The path as it is written, in plutil's syntax (see ``PropertyListKeyPath/description``).
    public var description: String {
        PropertyListKeyPath(components: components).description
    }

    /// The first `count` components, as a path (for error messages that name where a step failed).
    func prefix(_ count: Int) -> ArchiveKeyPath {
        ArchiveKeyPath(components: Array(components.prefix(count)))
    }

    /// The component as a list index, if it is one: decimal digits only, no sign, within `Int`.
    static func index(_ component: String) -> Int? {
        guard !component.isEmpty, component.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int(component)
    }
}

extension KeyedArchiveError.Code {
    /// A key path names nothing: a missing key, an index out of range, or a step into a value that is not a
    /// container. The error's ``KeyedArchiveError/keyPath`` is the path up to the failing step.
    public static let keyPathNotFound = KeyedArchiveError.Code("keyPathNotFound")
    /// An insertion names a key that already holds a value (plutil's `-insert` refuses it too).
    public static let valueExists = KeyedArchiveError.Code("valueExists")
}
