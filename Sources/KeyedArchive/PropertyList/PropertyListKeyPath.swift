#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A path from the root of a property list to one of its values: dictionary keys and array indices.
///
/// Written in `plutil`'s syntax, components are separated by dots, an array index is a decimal number, and
/// a dot that belongs to a key is escaped with a backslash: `list.2.name` is the `name` of the third
/// element of `list`; `com\.apple\.dock.tilesize` is the `tilesize` of the key `com.apple.dock`. No other
/// character is special (a backslash before anything but a dot is itself), as in Apple's `plutil`.
///
/// A component applied to a dictionary is always a key, even when it looks like a number; applied to an
/// array (or a set, in stored order) it must be a decimal index.
///
/// The corresponding Foundation API is the key path argument of `plutil -extract`, `-insert`, `-replace`
/// and `-remove`.
public struct PropertyListKeyPath: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The components, from the root: keys, or array indices written as decimal numbers.
    public var components: [String]

    /// A key path of `components`, taken literally (no escapes).
    /// - Parameter components: keys and indices from the root; dots in them are part of the key.
    public init(components: [String]) {
        self.components = components
    }

    /// Parses a key path written in `plutil`'s syntax: components split at each dot not preceded by a
    /// backslash, `\.` standing for a dot inside a component.
    ///
    /// Every string is a key path: `""` is one empty component, `"a..b"` has an empty middle component.
    /// - Parameter text: the key path as a user types it.
    public init(_ text: String) {
        var components: [String] = []
        var current = ""
        var pendingBackslash = false
        for character in text {
            if pendingBackslash {
                pendingBackslash = false
                if character == "." {
                    current.append(".")
                    continue
                }
                current.append("\\")
            }
            switch character {
            case "\\": pendingBackslash = true
            case ".":
                components.append(current)
                current = ""
            default: current.append(character)
            }
        }
        if pendingBackslash { current.append("\\") }
        components.append(current)
        self.components = components
    }

    /// Parses a key path in `plutil`'s syntax; see ``init(_:)``.
    public init(stringLiteral value: String) {
        self.init(value)
    }

    /// The key path in `plutil`'s syntax: components joined by dots, each dot inside a component escaped
    /// as `\.`. Parsing it with ``init(_:)`` gives this key path back, unless a component before the last
    /// ends with a backslash (which `plutil`'s syntax cannot say).
    public var description: String {
        components.map { $0.replacing(".", with: "\\.") }.joined(separator: ".")
    }

    /// The key path of the first `count` components, in `plutil`'s syntax (`"the root"` for none): where
    /// a fault was found, for error messages.
    func prefixDescription(_ count: Int) -> String {
        count == 0 ? "the root" : "'\(PropertyListKeyPath(components: Array(components.prefix(count))))'"
    }
}
