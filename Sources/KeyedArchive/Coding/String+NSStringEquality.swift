// NSString's equality for Swift strings.
//
// Swift's `String ==` is canonical equivalence: a precomposed "é" (U+00E9) equals "e" followed by a
// combining acute accent (U+0065 U+0301), and "Å" (U+00C5) equals the angstrom sign (U+212B). NSString's
// `-isEqual:` compares UTF-16 code units, so Apple's and GNUstep's sets and dictionaries hold such strings
// as distinct members and keys. ``FoundationValue`` and the archiver follow NSString here; these helpers
// are that rule. For a valid Swift string the UTF-8 bytes, the UTF-16 units and the Unicode scalars are
// one-to-one, so comparing UTF-8 bytes gives NSString's answer without any normalization.
extension String {
    /// Whether the two strings have the same Unicode scalars, as NSString's `-isEqual:` compares them
    /// (UTF-16 units), not canonical equivalence as `==` does.
    @inline(__always)
    func hasSameScalars(as other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        var a = self, b = other
        return a.withUTF8 { x in b.withUTF8 { y in x.elementsEqual(y) } }
    }

    /// Feeds the string's UTF-8 bytes and their count to `hasher`: equal for strings whose scalars are the
    /// same (``hasSameScalars(as:)``), whatever their canonical equivalence.
    @inline(__always)
    func hashScalars(into hasher: inout Hasher) {
        var s = self
        s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
        hasher.combine(utf8.count)
    }

    /// The message of a decode that meets `self` and `other`, canonically equivalent strings with different
    /// scalars, in `collection` (a class name or "dictionary"): both quoted with their scalars spelled out
    /// (`"é" (U+00E9)`), so that they look different.
    func equivalentKeysMessage(_ other: String, in collection: String) -> String {
        "the archived \(collection) holds both \(scalarsDescription) and \(other.scalarsDescription), distinct NSStrings "
            + "that Swift's String == finds equal (canonically equivalent); decode a FoundationValue to keep both"
    }

    /// The string quoted (its first 64 characters) and its first 16 scalars as `U+XXXX`.
    private var scalarsDescription: String {
        let shown = unicodeScalars.prefix(16).map { scalar -> String in
            let hex = String(scalar.value, radix: 16, uppercase: true)
            return "U+" + String(repeating: "0", count: Swift.max(0, 4 - hex.count)) + hex
        }
        return "\"\(prefix(64))\" (\(shown.joined(separator: " "))\(unicodeScalars.count > 16 ? " ..." : ""))"
    }
}

/// A value that stands for a string as a set member or dictionary key: a `String`, or a wrapper of one
/// (the Codable adapter's elements). The decoder asks for it only when two members or keys that Swift
/// finds equal meet, to tell apart the strings NSString keeps apart.
protocol ArchivedStringKey {
    /// The string this value stands for.
    var archivedString: String { get }
}

extension String: ArchivedStringKey {
    var archivedString: String { self }
}

/// A string that is `==` to another, and hashes equally, when their scalars are the same
/// (``Swift/String/hasSameScalars(as:)``): a key for telling strings apart as NSSet does.
struct ScalarString: Hashable {
    let string: String

    static func == (a: ScalarString, b: ScalarString) -> Bool { a.string.hasSameScalars(as: b.string) }

    func hash(into hasher: inout Hasher) { string.hashScalars(into: &hasher) }
}
