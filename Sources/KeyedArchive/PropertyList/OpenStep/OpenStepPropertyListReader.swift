#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads OpenStep ("old-style" ASCII) property lists and `.strings` files into a ``PropertyListValue``, as
/// CoreFoundation's parser (CFOldStylePList.c, which Foundation's `PropertyListSerialization` and the
/// toolchain's `plutil` use) reads them.
///
/// ```
/// // A comment, and /* another */
/// { name = "Café\U2615"; sizes = (1, 2, 3,); icon = <89504e47 0d0a1a0a>; flag; }
/// ```
///
/// - **Values.** Dictionaries `{ key = value; ... }` (every entry ends with `;`; `key;` means
///   `key = key;`; a repeated key keeps its first position and last value), arrays `( a, b, )` (a comma after
///   the last element is allowed), data `<0fbd 7780>` (hex digit pairs, whitespace between pairs), and
///   strings: quoted with `"` or `'`, or unquoted (letters, digits, `_ $ / : . -`). Numbers, booleans and
///   dates have no syntax of their own: `1`, `YES` and `2001-01-01` are strings, as Foundation reads them.
/// - **Escapes** in quoted strings: `\n \t \r \a \b \f \v`, `\"`, `\\`, `\U` with up to four hex digits (a
///   UTF-16 unit; write a surrogate pair as two), and one to three octal digits (a byte of the NeXTSTEP
///   character set). An unpaired surrogate becomes U+FFFD, as in the string Foundation returns.
/// - **`.strings` files.** A document that is a string followed by more text is read as the entries of a
///   dictionary without braces (`"key" = "value"; ...`), ending at the first character that starts no key;
///   a document of only whitespace and comments is an empty dictionary.
/// - **Faults CoreFoundation drops.** A value that fails to read where a value may be missing (an array
///   element, a dictionary key) is dropped, fault and all, when its container closes where the reading
///   stopped: `(a, ")` is `(a)`, `({ a = b )` is `()`, and a `.strings` file ends at an unterminated key.
/// - **Comments** `// to the end of the line` and `/* ... */` (an unterminated one runs to the end), and
///   whitespace (space, tab, line breaks, vertical tab, form feed, U+2028, U+2029), between any two tokens.
/// - **Encodings.** UTF-8, with or without a byte-order mark, which must be valid; UTF-16 with a byte-order
///   mark, either byte order. Text whose first or second byte is zero is refused (CoreFoundation guesses
///   UTF-16 without a byte-order mark there and drops the first two bytes); UTF-32 is not read.
/// - **Limits.** Containers nest at most ``PropertyListReadingOptions/maximumDepth`` deep (the root container
///   is depth 1) and at most ``PropertyListReadingOptions/maximumObjectCount`` values are read. Parsing is
///   iterative, so no input can exhaust the stack, and memory stays proportional to the input's size.
///
/// Foundation on Linux is the oracle for every rule: `OpenStepReaderTests` reads a table of inputs with
/// both and compares the values, and checks that each input this reader rejects Foundation rejects too.
/// Every fault is a ``PropertyListError`` with code ``PropertyListError/Code/invalidOpenStep`` (or
/// ``PropertyListError/Code/tooDeep``, ``PropertyListError/Code/limitExceeded``) whose location gives the
/// byte offset, the line and column (lines end at CR, LF or CR LF) and the key path.
///
/// Writing this format is not offered: Apple's `plutil` and `PropertyListSerialization` do not write it either.
///
/// The corresponding Foundation API is `PropertyListSerialization.propertyList(from:options:format:)`, which
/// reports the format `.openStep`.
public struct OpenStepPropertyListReader: Sendable {
    /// The limits applied while reading.
    public var options: PropertyListReadingOptions

    /// A reader with the given limits.
    ///
    /// - Parameter options: limits for untrusted input; the defaults suit most uses.
    public init(options: PropertyListReadingOptions = .init()) { self.options = options }

    /// Reads the root value of an OpenStep property list or `.strings` file.
    ///
    /// - Parameter data: the text, UTF-8 (optionally with a byte-order mark) or UTF-16 with a byte-order mark.
    /// - Returns: the root value: a string, data, array or dictionary.
    /// - Throws: ``PropertyListError`` naming what was wrong and where (byte offset, line, column, key path).
    public func read(_ data: Data) throws -> PropertyListValue {
        var scanner = OpenStepPropertyListScanner(text: try OpenStepText(data), options: options)
        return try scanner.scanDocument()
    }
}
