#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// Something ``ValueTreeWriter`` shows on one line, with what opens below it.
enum ValueTreeNode {
    /// A typedstream value as stored (an object is expanded unless the writer shows the archive raw).
    case stored(TypedstreamValue)
    /// A typedstream group of several values (`{ii}`, `@i`).
    case storedGroup(TypedstreamGroup)
    /// A Foundation value: scalars on the line, containers and attributed strings below it.
    case foundation(FoundationValue)
    /// A line of its own with lines below it (an object's groups as `--raw` lists them).
    case heading(String, [(label: String, node: ValueTreeNode)])
    /// One run of an attributed string: its UTF-16 range and text, its attributes below it.
    case run(range: Range<Int>, text: String, attributes: [String: FoundationValue])
}

/// Writes typedstream values and Foundation values as the indented tree of `archive-dump`, without recursion.
///
/// Objects of a typedstream archive are `#index Class vVersion`, expanded where first met (as their
/// Foundation value when ``foundationValue`` gives one, else as their stored groups); met again they are
/// `(repeated: see line L)`, or `(cycle: back to line L)` when they enclose the place they are met. The
/// number of lines is capped by ``remainingLines``: the tree stops with a note once it is spent, so values
/// shared many times over (a Foundation value repeats what it references) cannot make the output unbounded.
struct ValueTreeWriter {
    let out: DumpOutput
    /// Objects and containers at this depth or deeper are not expanded; `nil` for no limit.
    let maxDepth: Int?
    /// The archive whose objects `.stored` values refer to.
    let archive: TypedstreamArchive?
    /// Whether objects are shown as stored: a `.object` value is only named, never expanded.
    let showsRawObjects: Bool
    /// The Foundation value of object `index`, or nil when it has none (a class outside Foundation's).
    var foundationValue: (Int) -> FoundationValue? = { _ in nil }
    /// Lines still allowed.
    var remainingLines: Int
    /// Bytes still allowed (a long string shown again at each reference counts each time).
    var remainingBytes: Int
    private let indent = Indentation()
    private var stack: [Frame] = []
    /// For each object, the line where it was expanded (0: not yet).
    private var shownAtLine: [Int]
    /// For each object, whether it is being expanded (it encloses the line being written).
    private var onPath: [Bool]

    private struct Frame {
        var items: [(label: String, node: ValueTreeNode)]
        var next = 0
        let depth: Int
        let leaving: Int?
    }

    init(out: DumpOutput, maxDepth: Int?, archive: TypedstreamArchive?, showsRawObjects: Bool = false, lineLimit: Int) {
        self.out = out
        self.maxDepth = maxDepth
        self.archive = archive
        self.showsRawObjects = showsRawObjects
        remainingLines = lineLimit
        remainingBytes = lineLimit.multipliedReportingOverflow(by: 64).overflow ? Int.max : lineLimit * 64
        shownAtLine = Array(repeating: 0, count: archive?.objects.count ?? 0)
        onPath = Array(repeating: false, count: archive?.objects.count ?? 0)
    }

    /// Writes `items`, each on a line at `depth` after its label, with everything below them.
    mutating func write(_ items: [(label: String, node: ValueTreeNode)], depth: Int) {
        stack.append(Frame(items: items, depth: depth, leaving: nil))
        while let top = stack.indices.last, !out.hasFailed {
            guard stack[top].next < stack[top].items.count else {
                if let index = stack.removeLast().leaving { onPath[index] = false }
                continue
            }
            let (label, node) = stack[top].items[stack[top].next]
            stack[top].next += 1
            let depth = stack[top].depth
            guard remainingLines > 0, remainingBytes > 0 else {
                out.write(indent(depth) + "... (archive-dump shows at most 4 lines and 256 bytes per input byte, plus a constant; "
                          + "the rest is left out)\n")
                stack.removeAll()
                break
            }
            remainingLines -= 1
            let before = out.bytesWritten
            out.write(indent(depth) + label)
            emit(node, depth: depth)
            remainingBytes -= out.bytesWritten - before
        }
    }

    /// The children of a Foundation value's line: its elements, entries or runs (none for a scalar).
    static func children(of value: FoundationValue) -> [(label: String, node: ValueTreeNode)] {
        switch value {
        case .array(let items), .set(let items), .orderedSet(let items):
            return items.enumerated().map { ("[\($0.offset)]: ", .foundation($0.element)) }
        case .dictionary(let d):
            return d.map { (key, value) in (keyText(key) + ": ", .foundation(value)) }
                .sorted { $0.label < $1.label }
        case .catalogued(let text as ArchivedAttributedString):
            let units = Array(text.string.utf16)
            return text.runs.enumerated().map { i, run in
                let slice = units[max(0, min(run.range.lowerBound, units.count)) ..< max(0, min(run.range.upperBound, units.count))]
                return ("run [\(i)]: ", .run(range: run.range, text: String(decoding: slice, as: UTF16.self), attributes: run.attributes))
            }
        default:
            return []
        }
    }

    /// A Foundation value's line (after its label): the value itself, or what opens below it.
    static func head(of value: FoundationValue) -> String {
        switch value {
        case .null: return "NSNull"
        case .bool(let b): return b ? "true" : "false"
        case .integer(let i): return i.description
        case .real(let d): return ValueFormatting.textReal(d)
        case .string(let s): return ValueFormatting.quoted(s)
        case .data(let d): return ValueFormatting.textData(d)
        case .date(let d): return ValueFormatting.textDate(d)
        case .uuid(let u): return u.uuidString
        case .url(let u): return ValueFormatting.printable(u.absoluteString)
        case .array(let items): return "array " + count(items.count, "item")
        case .orderedSet(let items): return "ordered set " + count(items.count, "item")
        case .set(let items): return "set " + count(items.count, "item")
        case .dictionary(let d): return "dictionary " + count(d.count, "entry")
        case .catalogued(let text as ArchivedAttributedString):
            return ValueFormatting.quoted(text.string) + " " + count(text.runs.count, "run")
        case .catalogued(let value): return ValueFormatting.printable(String(describing: value))
        }
    }

    /// A dictionary key: a string quoted, anything else as its line.
    private static func keyText(_ key: FoundationValue) -> String {
        if case .string(let s) = key { return ValueFormatting.quoted(s) }
        return head(of: key)
    }

    /// `(n noun)`, the noun in the plural unless n is 1: `(1 item)`, `(3 entries)`, `(2 classes)`.
    static func count(_ n: Int, _ noun: String) -> String {
        "(\(n) " + (n == 1 ? noun : noun == "entry" ? "entries" : noun.hasSuffix("s") ? noun + "es" : noun + "s") + ")"
    }

    /// `Class vVersion` of object `index`, or `(out of range)`.
    private func objectName(_ index: Int) -> String {
        guard let archive, let name = archive.className(ofObjectAt: index) else { return "(out of range)" }
        return ValueFormatting.printable(name) + " v\(archive.classes[archive.objects[index].classIndex].version)"
    }

    /// Writes `head` and opens `items` below it (or stops at the depth limit).
    private mutating func open(_ head: String, _ items: [(label: String, node: ValueTreeNode)], depth: Int, object: Int? = nil) {
        if items.isEmpty {
            out.write(head + "\n")
            return
        }
        if let maxDepth, depth + 1 > maxDepth {
            out.write(head + " ...\n")
            return
        }
        out.write(head + "\n")
        if let object {
            shownAtLine[object] = out.linesWritten
            onPath[object] = true
        }
        stack.append(Frame(items: items, depth: depth + 1, leaving: object))
    }

    private mutating func emit(_ node: ValueTreeNode, depth: Int) {
        switch node {
        case .foundation(let value):
            open(Self.head(of: value), Self.children(of: value), depth: depth)
        case .run(let range, let text, let attributes):
            let items = attributes.sorted { $0.key < $1.key }.map { (ValueFormatting.bareKey($0.key) + ": ", ValueTreeNode.foundation($0.value)) }
            open("\(range.lowerBound)..<\(range.upperBound) " + ValueFormatting.quoted(text), items, depth: depth)
        case .heading(let head, let items):
            open(head, items, depth: depth)
        case .storedGroup(let group):
            open("group " + Self.count(group.values.count, "value"), group.values.enumerated().map { ("[\($0.offset)]: ", .stored($0.element)) },
                 depth: depth)
        case .stored(let value):
            emitStored(value, depth: depth)
        }
    }

    private mutating func emitStored(_ value: TypedstreamValue, depth: Int) {
        switch value {
        case .integer(let i): out.write(String(i) + "\n")
        case .unsignedInteger(let u): out.write(String(u) + "\n")
        case .bool(let b): out.write((b ? "true" : "false") + "\n")
        case .float(let f): out.write((f.isFinite ? f.description : ValueFormatting.textReal(Double(f))) + "\n")
        case .double(let d): out.write(ValueFormatting.textReal(d) + "\n")
        case .cString(let bytes): out.write(Self.text(bytes) + "\n")
        case .atom(let bytes): out.write("atom " + Self.text(bytes) + "\n")
        case .selector(let bytes): out.write("selector " + Self.text(bytes) + "\n")
        case .bytes(let bytes): out.write(bytes.map(ValueFormatting.textData) ?? "nil")
            out.write("\n")
        case .class(let index):
            guard let index else { out.write("class nil\n"); return }
            let named = archive.flatMap { $0.classes.indices.contains(index) ? $0.classes[index] : nil }
            out.write("class " + (named.map { ValueFormatting.printable($0.name) + " v\($0.version)" } ?? "#\(index) (out of range)") + "\n")
        case .nilObject: out.write("nil\n")
        case .array(let items):
            open("C array " + Self.count(items.count, "item"), items.enumerated().map { ("[\($0.offset)]: ", .stored($0.element)) }, depth: depth)
        case .structure(let fields):
            open("struct " + Self.count(fields.count, "field"), fields.enumerated().map { ("[\($0.offset)]: ", .stored($0.element)) }, depth: depth)
        case .byteArray(let data): out.write(ValueFormatting.textData(data) + "\n")
        case .ignored: out.write("(not stored)\n")
        case .object(let index), .objectReference(let index):
            emitObject(index, depth: depth)
        }
    }

    private mutating func emitObject(_ index: Int, depth: Int) {
        let id = "#\(index) " + objectName(index)
        guard let archive, archive.objects.indices.contains(index) else { out.write(id + "\n"); return }
        if showsRawObjects { out.write(id + "\n"); return }
        let items: [(label: String, node: ValueTreeNode)]
        var head = id
        if let value = foundationValue(index) {
            items = Self.children(of: value)
            // A catalogued value's description starts with its class name, already on the line.
            head += " " + ValueFormatting.decodedValueText(Self.head(of: value), className: archive.className(ofObjectAt: index) ?? "")
        } else {
            items = Self.groupItems(archive.objects[index].groups)
            let chain = archive.classChain(ofClassAt: archive.objects[index].classIndex).dropFirst()
            if !chain.isEmpty {
                head += " (" + chain.map { ValueFormatting.printable($0.name) + " v\($0.version)" }.joined(separator: ", ") + ")"
            }
        }
        if !items.isEmpty, shownAtLine[index] != 0 {
            let how = onPath[index] ? "cycle: back to line" : "repeated: see line"
            out.write(id + " (\(how) \(shownAtLine[index]))\n")
            return
        }
        open(head, items, depth: depth, object: index)
    }

    /// A list of groups as lines: `[k] encoding: value`, or the group below its line when it holds several.
    static func groupItems(_ groups: [TypedstreamGroup]) -> [(label: String, node: ValueTreeNode)] {
        groups.enumerated().map { k, group in
            let label = "[\(k)] " + ValueFormatting.printable(group.encoding) + ": "
            return group.values.count == 1 ? (label, .stored(group.values[0])) : (label, .storedGroup(group))
        }
    }

    /// C string bytes: quoted text when they are UTF-8, else as data; `nil` for a null pointer.
    static func text(_ bytes: Data?) -> String {
        guard let bytes else { return "nil" }
        if let s = validatedUTF8String(bytes) { return ValueFormatting.quoted(s) }
        return ValueFormatting.textData(bytes)
    }
}
