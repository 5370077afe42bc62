#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// The `--nested` tree: a ``ForensicDocument`` as indented `key: value` lines, each nested payload as a line
/// that says what carries it, where it starts and its path, with its decoded root below it.
///
/// ```
/// keyed archive, nested payloads decoded
/// $top:
///   root: #1 Message
///     body: data -> typedstream, 120 bytes at byte 431 in #1 Message
///       path: $top.root.body -> data -> typedstream -> NSAttributedString
///       NSAttributedString: #0 NSAttributedString
///         string: "Hi"
/// ```
package struct ForensicTreeRenderer {
    /// Containers deeper than this are summarized, not expanded; nil for no limit.
    package var maxDepth: Int?

    /// A renderer that expands containers down to `maxDepth` levels.
    package init(maxDepth: Int?) {
        self.maxDepth = maxDepth
    }

    /// Writes `document` to `out`.
    package func render(_ document: ForensicDocument, to out: DumpOutput) {
        out.write(document.format.rawValue + ", nested payloads decoded\n")
        for damage in document.damage { out.write("damage: " + ValueFormatting.sanitizedLine(damage) + "\n") }
        write(ValueFormatting.bareKey(document.rootPath.lastKey ?? "$root"), document.root, depth: 0, to: out)
    }

    /// Writes `value` under `label` (a key as `bareKey` shows it, or `[i]`) and, when it expands, its children.
    private func write(_ label: String, _ value: ForensicValue, depth: Int, to out: DumpOutput) {
        guard !out.hasFailed else { return }
        let indent = String(repeating: "  ", count: depth)
        let head = indent + label + ": "
        let expands = maxDepth.map { depth < $0 } ?? true
        switch value {
        case .array(let items):
            out.write(head + ValueTreeWriter.count(items.count, "item") + "\n")
            guard expands else { return }
            for (i, item) in items.enumerated() { write("[\(i)]", item, depth: depth + 1, to: out) }
        case .dictionary(let entries):
            out.write(head + ValueTreeWriter.count(entries.count, "entry") + "\n")
            guard expands else { return }
            for entry in entries { write(ValueFormatting.bareKey(entry.key), entry.value, depth: depth + 1, to: out) }
        case .object(let object):
            out.write(head + object.storedID + " " + ValueFormatting.printable(object.className) + "\n")
            guard expands else { return }
            for field in object.fields { write(ValueFormatting.bareKey(field.key), field.value, depth: depth + 1, to: out) }
        case .reference(let reference):
            out.write(head + reference.storedID + (reference.className.map { " " + ValueFormatting.printable($0) } ?? "")
                      + " (shown at " + ValueFormatting.printable(reference.target.description) + ")\n")
        case .nested(let payload):
            let place = payload.byteOffset.map { "at byte \($0)" } ?? "not stored verbatim"
            out.write(head + payload.carrier.rawValue + " -> " + payload.format.rawValue + ", \(payload.storedBytes.count) bytes " + place
                      + (payload.containingObject.map { " in " + ValueFormatting.printable($0) } ?? "") + "\n")
            out.write(indent + "  path: " + ValueFormatting.printable((payload.rootPath ?? payload.innerPath).description) + "\n")
            if let error = payload.error { out.write(indent + "  error: " + ValueFormatting.sanitizedLine(error) + "\n") }
            for damage in payload.damage { out.write(indent + "  damage: " + ValueFormatting.sanitizedLine(damage) + "\n") }
            if let inner = payload.value, expands {
                write(ValueFormatting.bareKey(payload.rootPath?.lastKey ?? "$root"), inner, depth: depth + 1, to: out)
            }
        default:
            out.write(head + Self.scalarText(value) + "\n")
        }
    }

    /// A scalar as one line of text.
    package static func scalarText(_ value: ForensicValue) -> String {
        switch value {
        case .null: return "nil"
        case .bool(let b): return b ? "true" : "false"
        case .integer(let i): return i.description
        case .real(let d): return ValueFormatting.textReal(d)
        case .string(let s): return ValueFormatting.quoted(s)
        case .data(let d): return ValueFormatting.textData(d)
        case .date(let d): return ValueFormatting.textDate(d)
        case .uid(let u): return "UID(\(u.value))"
        default: return ""
        }
    }
}
