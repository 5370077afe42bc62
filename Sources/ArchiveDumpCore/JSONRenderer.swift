#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// Renders property lists and archived object graphs as compact JSON, one line, without recursion.
///
/// Mapping (the same for both modes): dictionary -> object (keys in stored order); array and set ->
/// array; string -> string; integer -> number with all its digits; real -> number with a fraction or
/// exponent, shortest round-trip form, `{"$real": "nan" | "inf" | "-inf"}` for the others; boolean ->
/// `true`/`false`; date -> `{"$date": "<ISO 8601 UTC>", "$time": <seconds since 2001-01-01>}`; data ->
/// `{"$data": "<base64>"}`; UID -> `{"$uid": n}`. A date too far out for a calendar date (beyond ±30,000
/// years, or not finite) has `"$date": null` and keeps its exact `"$time"`.
///
/// In the resolved mode each archived object is `{"$class": "Name", "$id": n, ...fields}` (collections
/// as `"$items"`, dictionaries as `"$entries"` or `"$keys"`/`"$values"`), an object met again is
/// `{"$ref": n}`, NSString/NSData/NSDate/NSUUID/NSURL objects are shown as their values
/// (`"$uuid"`, `"$url"`), and classes implemented by a value type as `{"$class": "Name", "$value": <its JSON>}`.
package struct JSONRenderer {
    /// Containers deeper than this are replaced by `{"$truncated": <child count>}`; `nil` for no limit.
    package var maxDepth: Int?

    /// A renderer with an optional depth limit.
    package init(maxDepth: Int? = nil) { self.maxDepth = maxDepth }

    /// How an object is interpreted: the raw model's resolved view with the package's catalogue of
    /// Foundation classes (tests substitute a catalogue with extra value types).
    var resolve: @Sendable (ArchivedObjectGraph, UID) -> ResolvedArchivedObject? = { $0.resolvedObject($1) }

    private struct Frame {
        var children: ChildList
        var next = 0
        let depth: Int
        let closer: String
        let leadingComma: Bool
        let leaving: UID?
    }

    /// Writes `value` as stored, UIDs as `{"$uid": n}`, followed by a newline.
    package func render(propertyList value: PropertyListValue, to out: DumpOutput) {
        var walk = Walk(renderer: self, graph: nil, out: out)
        walk.run(root: .plist(value), header: "", closer: "")
    }

    /// Writes a property list read container by container, as ``render(propertyList:to:)`` writes the decoded one.
    package func render(mapped plist: MappedPropertyList, to out: DumpOutput) {
        var walk = Walk(renderer: self, graph: nil, out: out)
        walk.run(root: .mapped(plist, plist.root), header: "", closer: "")
    }

    /// Writes the resolved object graph: `{"$archiver":…, "$version":…, "$top": {"root": {…}}}` and a newline.
    package func render(graph: ArchivedObjectGraph, to out: DumpOutput) {
        var walk = Walk(renderer: self, graph: graph, out: out)
        // A graph read leniently lists its damaged places (`"$damage"`); each is marked again where it is shown.
        let damage = graph.damage.isEmpty ? ""
            : ",\"$damage\":[" + graph.damage.map { ValueFormatting.jsonString(DamageMarks.text($0)) }.joined(separator: ",") + "]"
        let header = "{\"$archiver\":" + ValueFormatting.jsonString(graph.archiverName)
            + ",\"$version\":" + graph.version.description + damage + ",\"$top\":"
        walk.run(root: .archived(.dictionary(graph.top)), header: header, closer: "}")
    }

    private struct Walk {
        let renderer: JSONRenderer
        let graph: ArchivedObjectGraph?
        let out: DumpOutput
        var stack: [Frame] = []
        var shown: [Bool]
        var onPath: [Bool]

        init(renderer: JSONRenderer, graph: ArchivedObjectGraph?, out: DumpOutput) {
            self.renderer = renderer
            self.graph = graph
            self.out = out
            shown = Array(repeating: false, count: graph?.count ?? 0)
            onPath = shown
        }

        mutating func run(root: DumpNode, header: String, closer: String) {
            out.write(header)
            emit(root, depth: 0)
            while let top = stack.indices.last, !out.hasFailed {
                if stack[top].next < stack[top].children.count {
                    let i = stack[top].next
                    stack[top].next += 1
                    let (label, node) = stack[top].children.child(i)
                    if i > 0 || stack[top].leadingComma { out.write(",") }
                    switch label {
                    case .key(let k): out.writeJSONString(k); out.write(":")
                    case .archivedKey(let k): out.write(keyString(k)); out.write(":")
                    case .index, .none: break
                    }
                    emit(node, depth: stack[top].depth + 1)
                } else {
                    let frame = stack.removeLast()
                    out.write(frame.closer)
                    if let uid = frame.leaving { onPath[Int(uid.value)] = false }
                }
            }
            out.write(closer + "\n")
        }

        /// The JSON key for a dictionary key object (only called when it is an inline string).
        private func keyString(_ k: ArchivedValue) -> String {
            if case .string(let s)? = graph?.inlineValue(k) { return ValueFormatting.jsonString(s) }
            return "\"\""
        }

        private mutating func open(opener: String, children: ChildList, depth: Int, closer: String,
                                   leadingComma: Bool = false, leaving: UID? = nil) {
            if let maxDepth = renderer.maxDepth, depth >= maxDepth, children.count > 0 {
                out.write("{\"$truncated\":\(children.count)}")
                return
            }
            out.write(opener)
            if let uid = leaving { onPath[Int(uid.value)] = true }
            stack.append(Frame(children: children, depth: depth, closer: closer, leadingComma: leadingComma, leaving: leaving))
        }

        /// Writes a value after its key or comma (already written).
        private mutating func emit(_ node: DumpNode, depth: Int) {
            switch node {
            case .plist(let v):
                switch v {
                case .array(let a): open(opener: "[", children: .plistArray(a.elements), depth: depth, closer: "]")
                case .set(let a): open(opener: "[", children: .plistArray(a.elements), depth: depth, closer: "]")
                case .dictionary(let d):
                    open(opener: "{", children: .plistDictionary(d), depth: depth, closer: "}")
                case .string(let s): out.writeJSONString(s)
                default: out.write(ValueFormatting.jsonScalar(v))
                }
            case .archived(let a):
                switch a {
                case .null: out.write("null")
                case .value(let v): emit(.plist(v), depth: depth)
                case .array(let items), .set(let items):
                    open(opener: "[", children: .archivedArray(items), depth: depth, closer: "]")
                case .dictionary(let fields):
                    open(opener: "{", children: .fields(fields), depth: depth, closer: "}")
                case .reference(let uid): emitObject(uid, depth: depth)
                }
            case .mapped(let plist, let n):
                let shown = plist.shown(n)
                if let v = shown.value {
                    emit(.plist(v), depth: depth)
                } else if shown.kind == "dictionary" {
                    open(opener: "{", children: shown.children, depth: depth, closer: "}")
                } else {
                    open(opener: "[", children: shown.children, depth: depth, closer: "]")
                }
            }
        }

        private mutating func emitObject(_ uid: UID, depth: Int) {
            guard let graph, let object = renderer.resolve(graph, uid) else {
                let mark = graph.map { ",\"$damaged\":" + ValueFormatting.jsonString(DamageMarks.outOfRange(uid, in: $0)) } ?? ""
                out.write("{\"$uid\":\(uid.value)" + mark + "}")
                return
            }
            let index = Int(uid.value)
            if let mark = DamageMarks.object(uid, in: graph), let stored = graph.object(uid)?.storedValue {
                // A damaged entry: its error, then the entry as stored.
                open(opener: "{\"$damaged\":" + ValueFormatting.jsonString(mark) + ",\"$id\":\(uid.value)",
                     children: .fields([ArchivedField("$stored", .value(stored))]), depth: depth, closer: "}", leadingComma: true)
                return
            }
            var fields: [ArchivedField]
            switch object.kind {
            case .null: out.write("null"); return
            case .value(let v): emit(.plist(v), depth: depth); return
            case .classDefinition:
                if let stored = graph.object(uid)?.storedValue { emit(.plist(stored), depth: depth) }
                return
            case .string(let s): out.writeJSONString(s); return
            case .data(let d): out.write(ValueFormatting.jsonScalar(.data(d))); return
            case .date(let d): out.write(ValueFormatting.jsonDate(d)); return
            case .uuid(let u): out.write("{\"$uuid\":\"" + u.uuidString + "\"}"); return
            case .url(let relative, .null):
                out.write("{\"$url\":")
                out.writeJSONString(relative)
                out.write("}")
                return
            case .decoded(_, let description, let json):
                // A value type's own JSON (or its description as a string when it has none).
                out.write("{\"$class\":" + ValueFormatting.jsonString(object.archivedClass?.name ?? "") + ",\"$value\":")
                if let json { out.write(json) } else { out.writeJSONString(description) }
                out.write("}")
                return
            case .list(let items): fields = [ArchivedField("$items", .array(items))]
            case .map(let keys, let values):
                var entries: [ArchivedField] = []
                entries.reserveCapacity(keys.count)
                for (k, v) in zip(keys, values) {
                    guard case .string(let s)? = graph.inlineValue(k) else { break }
                    entries.append(ArchivedField(s, v))
                }
                if entries.count == keys.count {
                    fields = [ArchivedField("$entries", .dictionary(entries))]
                } else {
                    fields = [ArchivedField("$keys", .array(keys)), ArchivedField("$values", .array(values))]
                }
            case .object(let instance):
                fields = instance.fields
            case .url, .nsNull:
                fields = graph.object(uid)?.instance?.fields ?? []
            }
            if shown[index] || onPath[index] {
                out.write("{\"$ref\":\(uid.value)}")
                return
            }
            let name = object.archivedClass?.name ?? ""
            let head = "{\"$class\":" + ValueFormatting.jsonString(name) + ",\"$id\":\(uid.value)"
            if let maxDepth = renderer.maxDepth, depth >= maxDepth, !fields.isEmpty {
                out.write(head + ",\"$truncated\":\(fields.count)}")
                return
            }
            shown[index] = true
            // `$items`/`$entries` are one level down, like the fields of any other object.
            open(opener: head, children: .fields(fields), depth: depth, closer: "}",
                 leadingComma: true, leaving: uid)
        }
    }
}
