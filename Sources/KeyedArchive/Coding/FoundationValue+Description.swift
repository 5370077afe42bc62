#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// FoundationValue's description, written without recursion: a value decoded from an untrusted archive can
// nest a million levels deep (the unarchiver decodes that deep when its limits allow), and Swift's default
// description of an enum reflects one call per level.

extension FoundationValue: CustomStringConvertible {
    /// A one-line rendering in Swift literal style: `["name": "x", "items": [1, 2.5, true, null]]`.
    ///
    /// NSNull is `null`; an ordered set `orderedSet[...]`, a set `set[...]` (stored order); data
    /// `Data(<n> bytes)`; a date `Date(<seconds since 2001>)`; a UUID `UUID(<uuidString>)`; a URL
    /// `URL("<absoluteString>")`; strings are quoted and escaped as Swift writes them; a catalogued value is
    /// its own description (`NSValue range {2, 5}`). Dictionary entries are in the dictionary's (unspecified)
    /// order. `String(reflecting:)` gives the same text.
    ///
    /// Iterative: values of any depth are described without exhausting the call stack, in time and space
    /// proportional to the text written.
    public var description: String {
        var out = ""
        // What is still to be written, last first: a value, or a piece of punctuation.
        var pending: [DescriptionItem] = [.value(self)]
        while let item = pending.popLast() {
            switch item {
            case .text(let text):
                out += text
            case .value(let value):
                switch value {
                case .array(let a): Self.push(a, opening: "[", onto: &pending, out: &out)
                case .orderedSet(let a): Self.push(a, opening: "orderedSet[", onto: &pending, out: &out)
                case .set(let a): Self.push(a, opening: "set[", onto: &pending, out: &out)
                case .dictionary(let d):
                    guard !d.isEmpty else {
                        out += "[:]"
                        continue
                    }
                    out += "["
                    pending.append(.text("]"))
                    // Pushed in reverse, so the first entry is written first: key, ": ", value, ", ", ...
                    var entries: [DescriptionItem] = []
                    entries.reserveCapacity(4 * d.count)
                    for (key, element) in d {
                        if !entries.isEmpty { entries.append(.text(", ")) }
                        entries.append(.value(key))
                        entries.append(.text(": "))
                        entries.append(.value(element))
                    }
                    pending.append(contentsOf: entries.reversed())
                default:
                    out += value.leafDescription
                }
            }
        }
        return out
    }

    /// A value or a piece of punctuation still to be written by ``description``.
    private enum DescriptionItem {
        case value(FoundationValue)
        case text(String)
    }

    /// Writes a list's opening bracket and pushes its elements, separators and closing bracket.
    private static func push(_ list: FoundationValueArray, opening: String, onto pending: inout [DescriptionItem],
                             out: inout String) {
        out += opening
        pending.append(.text("]"))
        for (i, element) in list.enumerated().reversed() {
            pending.append(.value(element))
            if i > 0 { pending.append(.text(", ")) }
        }
    }

    /// The description of a value that is not an array, ordered set, set or dictionary.
    private var leafDescription: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .integer(let i): return i.description
        case .real(let d): return "\(d)"
        case .string(let s): return String(reflecting: s)
        case .data(let d): return "Data(\(d.count) bytes)"
        case .date(let d): return "Date(\(d.timeIntervalSinceReferenceDate))"
        case .uuid(let u): return "UUID(\(u.uuidString))"
        case .url(let u): return "URL(\(String(reflecting: u.absoluteString)))"
        case .array, .orderedSet, .set, .dictionary: return ""  // written by `description`'s loop
        case .catalogued(let value): return value.description
        }
    }
}
