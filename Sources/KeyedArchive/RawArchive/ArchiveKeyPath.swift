/// A path to a value in a keyed archive, as `plutil` writes key paths: components separated by dots.
///
/// Two kinds of path, told apart by their first component:
/// - **Through the object graph** (the first component does not start with `$`): the first component is a
///   key of `$top` (`root`, or `IB.objectdata` in a compiled nib), and each further component steps into the
///   value found so far, following UIDs: a key of an `NSDictionary` (matched against its `NS.keys` strings),
///   an index of an `NSArray`, `NSSet` or `NSOrderedSet` (its `NS.objects` or `NS.object.<i>` members), a
///   field of any other object (its key as the object's coder wrote it), or a key or index of a plain
///   dictionary or array stored inline. `root.contacts.0.name`.
/// - **Raw** (the first component starts with `$`): the archive's own property list, no UID followed:
///   `$objects.3.name`, `$top.root`, `$archiver`.
///
/// A dot inside a component is written `\.` and a backslash `\\` (Apple's plutil has no way to name a key
/// that contains a dot; this is the package's extension). The empty string is the empty path: the whole
/// `$top` (or, as `$`, the whole property list).
public struct ArchiveKeyPath: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The components, unescaped.
    public var components: [String]

    /// The most components a path may have: a bound on the work one path asks for.
    public static let maximumComponentCount = 4096

    /// A path from its components, taken as they are (no escapes).
    public init(components: [String]) {
        self.components = components
    }

    /// Parses a dotted key path (`root.items.0.title`); `\.` is a dot inside a component, `\\` a backslash.
    ///
    /// The empty string gives the empty path. Any other string gives at least one component (`"a."` is
    /// `["a", ""]`: a trailing dot names the empty key, as plutil reads it).
    public init(_ string: String) {
        guard !string.isEmpty else {
            self.components = []
            return
        }
        var components: [String] = []
        var current = ""
        var escaped = false
        for character in string {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "." {
                components.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        if escaped { current.append("\\") }
        components.append(current)
        self.components = components
    }

    public init(stringLiteral value: String) { self.init(value) }

    /// Whether the path addresses the raw property list (its first component starts with `$`).
    public var isRaw: Bool { components.first?.hasPrefix("$") ?? false }

    /// The path as it is written: components joined by dots, dots and backslashes inside them escaped.
    public var description: String {
        components.map { component in
            var out = ""
            for character in component {
                if character == "." || character == "\\" { out.append("\\") }
                out.append(character)
            }
            return out
        }.joined(separator: ".")
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
