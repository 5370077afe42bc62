#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// Shows a typedstream (`NSArchiver`) archive in each of `archive-dump`'s modes.
///
/// ```
/// typedstream: "streamtyped" (little-endian), system version 1000, 4 classes, 3 objects, 1 top-level group
/// [0] @: #0 NSMutableAttributedString v0 "Hi" (1 run)
///   run [0]: 0..<2 "Hi"
///     __kIMMessagePartAttributeName: 0
/// ```
/// Top-level groups are `[k] encoding: value`; objects are `#index Class vVersion`, shown as their Foundation
/// value when ``TypedstreamUnarchiver`` gives one, else as their stored groups below them.
package struct TypedstreamRenderer {
    /// The archive read from the input.
    package let archive: TypedstreamArchive
    /// The most lines (and JSON values) an output may hold.
    package let budget: Int
    /// Objects and containers at this depth or deeper are not expanded; `nil` for no limit.
    package var maxDepth: Int?

    /// Renders `archive`, whose input had a budget of `budget` values.
    package init(archive: TypedstreamArchive, budget: Int, maxDepth: Int?) {
        self.archive = archive
        self.budget = budget
        self.maxDepth = maxDepth
    }

    /// Whether `data` starts as a typedstream does: `04 0B` and `streamtyped` (little-endian writer) or
    /// `typedstream` (big-endian writer).
    package static func isTypedstream(_ data: Data) -> Bool {
        PayloadFormat.isTypedstream(data)
    }

    /// The first line: the format, byte order, system version and how much the archive holds.
    package var headerLine: String {
        let signature = archive.byteOrder == .littleEndian ? "\"streamtyped\" (little-endian)" : "\"typedstream\" (big-endian)"
        return "typedstream: \(signature), system version \(archive.systemVersion), "
            + ValueTreeWriter.count(archive.classes.count, "class").dropFirst().dropLast() + ", "
            + ValueTreeWriter.count(archive.objects.count, "object").dropFirst().dropLast() + ", "
            + ValueTreeWriter.count(archive.groups.count, "top-level group").dropFirst().dropLast() + "\n"
    }

    /// Writes the tree: each top-level group, objects expanded where first met.
    package func renderTree(to out: DumpOutput) {
        out.write(headerLine)
        let finder = TypedstreamFoundationValueFinder(archive: archive, unarchiver: TypedstreamUnarchiver())
        var writer = ValueTreeWriter(out: out, maxDepth: maxDepth, archive: archive, lineLimit: budget)
        writer.foundationValue = { finder.value(ofObjectAt: $0) }
        writer.write(ValueTreeWriter.groupItems(archive.groups), depth: 0)
    }

    /// Writes the archive as stored: its classes, each object's groups, then the top-level groups; objects
    /// are named where they are stored, never expanded.
    package func renderRaw(to out: DumpOutput) {
        out.write(headerLine)
        out.write("classes:\n")
        for (index, entry) in archive.classes.enumerated() where !out.hasFailed {
            out.write("  [\(index)] " + ValueFormatting.printable(entry.name) + " v\(entry.version)"
                      + (entry.superclass.map { " superclass [\($0)]" } ?? "") + "\n")
        }
        var writer = ValueTreeWriter(out: out, maxDepth: maxDepth, archive: archive, showsRawObjects: true, lineLimit: budget)
        out.write("objects:\n")
        let objects: [(label: String, node: ValueTreeNode)] = archive.objects.enumerated().map { index, object in
            ("", .heading("#\(index) " + ValueFormatting.printable(archive.className(ofObjectAt: index) ?? "(no class)"),
                          ValueTreeWriter.groupItems(object.groups)))
        }
        writer.write(objects, depth: 1)
        out.write("top-level groups:\n")
        writer.write(ValueTreeWriter.groupItems(archive.groups), depth: 1)
    }

    /// The archived classes and how many objects of each, most first.
    package func classCounts() -> [(name: String, count: Int)] {
        var counts: [String: Int] = [:]
        for index in archive.objects.indices {
            counts[archive.className(ofObjectAt: index) ?? "(no class)", default: 0] += 1
        }
        return counts.map { ($0.key, $0.value) }.sorted { a, b in a.count != b.count ? a.count > b.count : a.name < b.name }
    }

    /// Writes JSON: `{"$typedstream": …, "$values": […]}` with every top-level value as Foundation JSON when
    /// all of them have a Foundation value and `asStored` is false, else the stored model (`"$classes"`,
    /// `"$objects"`, `"$groups"`).
    ///
    /// - Returns: an error message when the Foundation values, shown in full, hold more than ``budget`` values.
    package func renderJSON(asStored: Bool, to out: DumpOutput) -> String? {
        let head = "{\"$typedstream\":" + ValueFormatting.jsonString(archive.byteOrder == .littleEndian ? "little-endian" : "big-endian")
            + ",\"$systemVersion\":\(archive.systemVersion)"
        var json = JSONText(maxDepth: maxDepth, remaining: budget)
        if !asStored, let values = try? TypedstreamUnarchiver().foundationValues(of: archive.groups.flatMap(\.values), in: archive) {
            json.text = head + ",\"$values\":["
            for (i, value) in values.enumerated() {
                if i > 0 { json.text += "," }
                json.append(value, depth: 0)
            }
            json.text += "]}"
        } else {
            json.text = head + ",\"$classes\":["
            for (i, entry) in archive.classes.enumerated() {
                json.text += (i > 0 ? "," : "") + "{\"name\":" + ValueFormatting.jsonString(entry.name) + ",\"version\":\(entry.version)"
                    + ",\"superclass\":" + (entry.superclass.map(String.init) ?? "null") + "}"
            }
            json.text += "],\"$objects\":["
            for (i, object) in archive.objects.enumerated() {
                json.text += (i > 0 ? "," : "") + "{\"$class\":\(object.classIndex),\"$groups\":"
                json.append(object.groups)
                json.text += "}"
            }
            json.text += "],\"$groups\":"
            json.append(archive.groups)
            json.text += "}"
        }
        if json.remaining < 0 {
            return "the archive's values, shown in full, are more than \(budget) (archive-dump's limit: 4 per input byte + "
                + "\(ArchiveDumpCommand.nodeBudgetConstant)); nothing was shown"
        }
        out.write(json.text + "\n")
        return nil
    }
}

/// JSON text of typedstream and Foundation values, in ``JSONRenderer``'s mapping; stops adding values once
/// `remaining` is spent (it goes negative).
private struct JSONText {
    let maxDepth: Int?
    let maximumValues: Int
    var remaining: Int
    var text = ""

    init(maxDepth: Int?, remaining: Int) {
        self.maxDepth = maxDepth
        maximumValues = remaining
        self.remaining = remaining
    }

    /// Nesting past this is shown as `{"$truncated": n}` (the values are recursed into).
    static let deepestNesting = 256

    /// Spends one value; false (and `remaining` negative) once the values or the text's bytes (64 per
    /// value allowed) are spent.
    private mutating func spend() -> Bool {
        remaining -= 1
        if remaining >= 0, text.utf8.count / 64 > maximumValues { remaining = -1 }
        return remaining >= 0
    }

    private func truncates(_ depth: Int) -> Bool {
        depth >= min(maxDepth ?? Self.deepestNesting, Self.deepestNesting)
    }

    mutating func append(_ value: FoundationValue, depth: Int) {
        guard spend() else { return }
        switch value {
        case .null: text += "null"
        case .bool(let b): text += b ? "true" : "false"
        case .integer(let i): text += i.description
        case .real(let d): text += ValueFormatting.jsonReal(d)
        case .string(let s): text += ValueFormatting.jsonString(s)
        case .data(let d): text += "{\"$data\":\"" + d.base64EncodedString() + "\"}"
        case .date(let d): text += ValueFormatting.jsonDate(d)
        case .uuid(let u): text += "{\"$uuid\":\"" + u.uuidString + "\"}"
        case .url(let u): text += "{\"$url\":" + ValueFormatting.jsonString(u.absoluteString) + "}"
        case .array(let items), .set(let items), .orderedSet(let items):
            if truncates(depth), !items.isEmpty { text += "{\"$truncated\":\(items.count)}"; return }
            text += "["
            for (i, item) in items.enumerated() where remaining >= 0 {
                if i > 0 { text += "," }
                append(item, depth: depth + 1)
            }
            text += "]"
        case .dictionary(let d):
            if truncates(depth), d.count > 0 { text += "{\"$truncated\":\(d.count)}"; return }
            // Entries in the order of their keys' JSON, so the output does not depend on hashing.
            var entries: [(key: String, value: FoundationValue)] = []
            for (key, item) in d where remaining >= 0 {
                var keyText = JSONText(maxDepth: maxDepth, remaining: remaining)
                keyText.append(key, depth: depth + 1)
                remaining = keyText.remaining
                entries.append((keyText.text, item))
            }
            text += "{\"$entries\":["
            for (i, entry) in entries.sorted(by: { $0.key < $1.key }).enumerated() where remaining >= 0 {
                text += (i > 0 ? "," : "") + "[" + entry.key + ","
                append(entry.value, depth: depth + 1)
                text += "]"
            }
            text += "]}"
        case .catalogued(let attributed as ArchivedAttributedString):
            if truncates(depth) { text += "{\"$truncated\":\(attributed.runs.count)}"; return }
            text += "{\"$class\":\"NSAttributedString\",\"string\":" + ValueFormatting.jsonString(attributed.string) + ",\"runs\":["
            for (i, run) in attributed.runs.enumerated() where remaining >= 0 {
                text += (i > 0 ? "," : "") + "{\"location\":\(run.range.lowerBound),\"length\":\(run.range.count),\"attributes\":{"
                for (k, (key, item)) in run.attributes.sorted(by: { $0.key < $1.key }).enumerated() where remaining >= 0 {
                    text += (k > 0 ? "," : "") + ValueFormatting.jsonString(key) + ":"
                    append(item, depth: depth + 2)
                }
                text += "}}"
            }
            text += "]}"
        case .catalogued(let other):
            text += "{\"$class\":" + ValueFormatting.jsonString(type(of: other).archivedClassName)
                + ",\"$description\":" + ValueFormatting.jsonString(String(describing: other)) + "}"
        }
    }

    mutating func append(_ groups: [TypedstreamGroup]) {
        text += "["
        for (i, group) in groups.enumerated() where remaining >= 0 {
            text += (i > 0 ? "," : "") + "{\"$encoding\":" + ValueFormatting.jsonString(group.encoding) + ",\"$values\":["
            for (k, value) in group.values.enumerated() where remaining >= 0 {
                if k > 0 { text += "," }
                append(value, depth: 0)
            }
            text += "]}"
        }
        text += "]"
    }

    mutating func append(_ value: TypedstreamValue, depth: Int) {
        guard spend() else { return }
        switch value {
        case .integer(let i): text += String(i)
        case .unsignedInteger(let u): text += String(u)
        case .bool(let b): text += b ? "true" : "false"
        case .float(let f): text += ValueFormatting.jsonReal(Double(f))
        case .double(let d): text += ValueFormatting.jsonReal(d)
        case .cString(let bytes): text += Self.bytesJSON("$cString", bytes)
        case .atom(let bytes): text += Self.bytesJSON("$atom", bytes)
        case .selector(let bytes): text += Self.bytesJSON("$selector", bytes)
        case .bytes(let bytes): text += bytes.map { "{\"$data\":\"" + $0.base64EncodedString() + "\"}" } ?? "null"
        case .class(let index): text += "{\"$classRef\":" + (index.map(String.init) ?? "null") + "}"
        case .object(let index): text += "{\"$object\":\(index)}"
        case .objectReference(let index): text += "{\"$ref\":\(index)}"
        case .nilObject: text += "null"
        case .byteArray(let data): text += "{\"$data\":\"" + data.base64EncodedString() + "\"}"
        case .ignored: text += "{\"$ignored\":true}"
        case .array(let items), .structure(let items):
            let key = if case .array = value { "$array" } else { "$struct" }
            if truncates(depth) { text += "{\"$truncated\":\(items.count)}"; return }
            text += "{\"\(key)\":["
            for (i, item) in items.enumerated() where remaining >= 0 {
                if i > 0 { text += "," }
                append(item, depth: depth + 1)
            }
            text += "]}"
        }
    }

    /// `{"<key>": "<UTF-8 text>"}`, or `{"<key>": {"$data": "<base64>"}}` when the bytes are not UTF-8; `null` for none.
    private static func bytesJSON(_ key: String, _ bytes: Data?) -> String {
        guard let bytes else { return "null" }
        if let s = validatedUTF8String(bytes) { return "{\"\(key)\":" + ValueFormatting.jsonString(s) + "}" }
        return "{\"\(key)\":{\"$data\":\"" + bytes.base64EncodedString() + "\"}}"
    }
}
