#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// JSON text of a ``ForensicValue`` tree, for `--nested --json` and the batch, timeline and diff outputs.
///
/// Scalars as ``JSONRenderer`` writes them (`{"$data": base64}`, `{"$date": ISO 8601, "$time": seconds}`);
/// arrays as arrays; dictionaries as objects; an object as `{"$class": name, "$id": "#5", fields...}`; an
/// object met again as `{"$ref": "#5", "$class": name, "$path": where it is shown}`; a nested payload as
/// `{"$nested": {"format", "carrier", "path", "root", "object", "key", "offset", "length", "damage"?, "value" or "error"}}`.
/// A key that starts with `$` gets another `$`, as the keyed archiver escapes it, so keys never clash with
/// these markers.
package enum ForensicJSON {
    /// `value` as JSON text.
    package static func text(_ value: ForensicValue) -> String {
        var text = ""
        append(value, to: &text)
        return text
    }

    /// Appends `value` as JSON to `text`.
    package static func append(_ value: ForensicValue, to text: inout String) {
        switch value {
        case .null: text += "null"
        case .bool(let b): text += b ? "true" : "false"
        case .integer(let i): text += i.description
        case .real(let d): text += ValueFormatting.jsonReal(d)
        case .string(let s): text += ValueFormatting.jsonString(s)
        case .data(let d): text += "{\"$data\":\"" + d.base64EncodedString() + "\"}"
        case .date(let d): text += ValueFormatting.jsonDate(d)
        case .uid(let u): text += "{\"$uid\":\(u.value)}"
        case .array(let items):
            text += "["
            for (i, item) in items.enumerated() {
                if i > 0 { text += "," }
                append(item, to: &text)
            }
            text += "]"
        case .dictionary(let entries):
            text += "{"
            appendFields(entries, to: &text, first: true)
            text += "}"
        case .object(let object):
            text += "{\"$class\":" + ValueFormatting.jsonString(object.className) + ",\"$id\":" + ValueFormatting.jsonString(object.storedID)
            appendFields(object.fields, to: &text, first: false)
            text += "}"
        case .reference(let reference):
            text += "{\"$ref\":" + ValueFormatting.jsonString(reference.storedID)
            if let className = reference.className { text += ",\"$class\":" + ValueFormatting.jsonString(className) }
            text += ",\"$path\":" + ValueFormatting.jsonString(reference.target.description) + "}"
        case .nested(let payload):
            text += "{\"$nested\":" + payloadHeader(payload)
            if let inner = payload.value {
                text += ",\"value\":"
                append(inner, to: &text)
            }
            if let error = payload.error { text += ",\"error\":" + ValueFormatting.jsonString(error) }
            text += "}}"
        }
    }

    /// Where a nested payload is, as the start of a JSON object (without its closing brace): its format, how
    /// it is carried, the path of the value carrying it (`path`) and of its own root (`root`), the enclosing
    /// object and key,
    /// and the carrier's byte offset (null when not stored verbatim) and length.
    package static func payloadHeader(_ payload: NestedPayload) -> String {
        "{\"format\":" + ValueFormatting.jsonString(payload.format.name)
            + ",\"carrier\":" + ValueFormatting.jsonString(payload.carrier.rawValue)
            + ",\"path\":" + ValueFormatting.jsonString(payload.path.description)
            + ",\"root\":" + ValueFormatting.jsonString((payload.rootPath ?? payload.innerPath).description)
            + ",\"object\":" + (payload.containingObject.map(ValueFormatting.jsonString) ?? "null")
            + ",\"key\":" + (payload.key.map(ValueFormatting.jsonString) ?? "null")
            + ",\"offset\":" + (payload.byteOffset.map(String.init) ?? "null")
            + ",\"length\":\(payload.storedBytes.count)" + damageMember(payload.damage)
    }

    /// `,"damage":[messages]` when `damage` is not empty, else nothing.
    package static func damageMember(_ damage: [String]) -> String {
        damage.isEmpty ? "" : ",\"damage\":[" + damage.map(ValueFormatting.jsonString).joined(separator: ",") + "]"
    }

    /// Appends `entries` as members of a JSON object (`$`-keys escaped), after a comma unless `first`.
    private static func appendFields(_ entries: [ForensicEntry], to text: inout String, first: Bool) {
        for (i, entry) in entries.enumerated() {
            if i > 0 || !first { text += "," }
            text += ValueFormatting.jsonString(entry.key.hasPrefix("$") ? "$" + entry.key : entry.key) + ":"
            append(entry.value, to: &text)
        }
    }
}
