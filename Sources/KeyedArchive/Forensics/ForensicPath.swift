/// Where a value is: the keys and indices from the top of its archive or property list, and each hop into
/// a payload nested in a data value or a string.
///
/// Written as `$top.root.parts[2] -> data -> typedstream -> NSAttributedString.string`: keys joined by
/// dots (a key that is not a plain name is written as a JSON string in brackets, `["a key"]`), indices in
/// brackets, and each hop as `-> <carrier> -> <format> -> `.
public struct ForensicPath: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// One step of a path.
    public enum Component: Hashable, Sendable {
        /// A key: of `$top`, of an object's fields, of a dictionary, or the root's name.
        case key(String)
        /// An index into an array or set.
        case index(Int)
        /// A hop into the payload that the value here carries (`carrier` is `data`, `string`, `base64
        /// string` or `hex string`), decoded as `format`.
        case payload(carrier: String, format: PayloadFormat)
    }

    /// The steps, outermost first.
    public var components: [Component]

    /// A path of these steps.
    public init(_ components: [Component]) {
        self.components = components
    }

    /// This path with `component` added at the end.
    public func appending(_ component: Component) -> ForensicPath {
        ForensicPath(components + [component])
    }

    /// This path with the key `key` added at the end.
    public func appending(key: String) -> ForensicPath { appending(.key(key)) }

    /// This path with the index `index` added at the end.
    public func appending(index: Int) -> ForensicPath { appending(.index(index)) }

    /// How many hops into nested payloads the path takes.
    public var nestingDepth: Int {
        components.reduce(0) { count, component in
            if case .payload = component { return count + 1 }
            return count
        }
    }

    /// The last key of the path, if its last step is a key.
    public var lastKey: String? {
        if case .key(let key) = components.last { return key }
        return nil
    }

    /// The path as text, such as `$top.root.parts[2] -> data -> typedstream -> NSAttributedString.string`.
    public var description: String {
        var text = ""
        var startsName = true
        for component in components {
            switch component {
            case .key(let key):
                if Self.isPlainName(key) {
                    text += (startsName ? "" : ".") + key
                } else {
                    text += "[" + Self.quoted(key) + "]"
                }
                startsName = false
            case .index(let index):
                text += "[\(index)]"
                startsName = false
            case .payload(let carrier, let format):
                text += " -> \(carrier) -> \(format.name) -> "
                startsName = true
            }
        }
        return text
    }

    /// Paths ordered by their text.
    public static func < (lhs: ForensicPath, rhs: ForensicPath) -> Bool {
        lhs.description < rhs.description
    }

    /// Whether `key` is written bare: ASCII letters, digits and `$ _ : -`, not empty.
    private static func isPlainName(_ key: String) -> Bool {
        !key.isEmpty && key.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x24 || byte == 0x5F || byte == 0x3A || byte == 0x2D
        }
    }

    /// `key` as a JSON string: quotes, backslashes and control characters escaped.
    private static func quoted(_ key: String) -> String {
        var text = "\""
        for scalar in key.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                    let hex = String(scalar.value, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    text.unicodeScalars.append(scalar)
                }
            }
        }
        return text + "\""
    }
}
