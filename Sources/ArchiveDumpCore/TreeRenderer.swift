#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// Renders a keyed archive as an indented tree of its objects, with Foundation classes shown as values,
/// or a plain property list as a tree of values.
///
/// ```
/// keyed archive: $archiver "NSKeyedArchiver", $version 100000, 9 entries in $objects
/// root: #1 Note
///   title: #2 "Shopping"
///   items: #3 NSArray (2 items)
///     [0]: #4 "milk"
///     [1]: #5 "eggs"
///   created: #6 NSDate 2024-05-01T10:00:00Z
///   parent: nil
///   owner: #1 Note (cycle: back to line 2)
/// ```
/// UIDs are `#n`. An object with children is expanded where it is first met; met again it is
/// `(repeated: see line L)`, or `(cycle: back to line L)` when it encloses the place it is met.
/// Never recurses: a million-deep chain prints with a bounded stack (and bounded indentation).
package struct TreeRenderer {
    /// Objects and containers at this depth or deeper are not expanded; `nil` for no limit.
    package var maxDepth: Int?

    /// A renderer with an optional depth limit.
    package init(maxDepth: Int? = nil) { self.maxDepth = maxDepth }

    /// How an object is interpreted: the raw model's resolved view with the package's catalogue of
    /// Foundation classes (tests substitute a catalogue with extra value types).
    var resolve: @Sendable (ArchivedObjectGraph, UID) -> ResolvedArchivedObject? = { $0.resolvedObject($1) }

    /// Writes the object tree of `graph`, starting from each `$top` key in stored order.
    package func render(graph: ArchivedObjectGraph, to out: DumpOutput) {
        out.write("keyed archive: $archiver \(ValueFormatting.quoted(graph.archiverName)), $version \(graph.version),"
                  + " \(graph.count) entries in $objects\n")
        // A graph read leniently lists its damaged places first; each is marked again where it is shown.
        for error in graph.damage {
            out.write("damaged: " + DamageMarks.text(error) + "\n")
        }
        var walk = Walk(renderer: self, graph: graph, out: out)
        walk.run(rootFrame: DumpFrame(children: .fields(graph.top), depth: -1, closer: "", leaving: nil))
    }

    /// Writes a plain property list as a tree of values.
    package func render(propertyList value: PropertyListValue, to out: DumpOutput) {
        var walk = Walk(renderer: self, graph: nil, out: out)
        walk.emit(.plist(value), depth: 0)
        walk.run(rootFrame: nil)
    }

    private struct Walk {
        let renderer: TreeRenderer
        let graph: ArchivedObjectGraph?
        let out: DumpOutput
        let indent = Indentation()
        var stack: [DumpFrame] = []
        /// For each UID, the line where it was expanded (0: not yet).
        var shownAtLine: [Int]
        var onPath: [Bool]
        /// Lines left for attributed strings' runs and attributes, which are decoded values (an attribute
        /// object shared by many runs is shown at each): 4 per object of the archive plus 4096.
        var attributeLines: Int

        init(renderer: TreeRenderer, graph: ArchivedObjectGraph?, out: DumpOutput) {
            attributeLines = ArchiveDumpCommand.nodeBudget(inputByteCount: graph?.count ?? 0)
            self.renderer = renderer
            self.graph = graph
            self.out = out
            shownAtLine = Array(repeating: 0, count: graph?.count ?? 0)
            onPath = Array(repeating: false, count: graph?.count ?? 0)
        }

        mutating func run(rootFrame: DumpFrame?) {
            if let rootFrame { stack.append(rootFrame) }
            while let top = stack.indices.last, !out.hasFailed {
                if stack[top].next < stack[top].children.count {
                    let i = stack[top].next
                    stack[top].next += 1
                    let depth = stack[top].depth + 1
                    let (label, node) = stack[top].children.child(i)
                    out.write(indent(depth))
                    switch label {
                    case .index(let n): out.write("[" + String(n) + "]: ")
                    case .key(let k): out.write(ValueFormatting.bareKey(k)); out.write(": ")
                    case .archivedKey(let k): out.write(keyText(k)); out.write(": ")
                    case .none: break
                    }
                    emit(node, depth: depth)
                } else {
                    let frame = stack.removeLast()
                    if let uid = frame.leaving { onPath[Int(uid.value)] = false }
                }
            }
        }

        /// A dictionary key object: its inline value, or `#n Class` when it is an object.
        private func keyText(_ k: ArchivedValue) -> String {
            switch k {
            case .null: return "nil"
            case .reference(let uid):
                if let v = graph?.inlineValue(k) { return ValueFormatting.textScalar(v) }
                guard let graph, let resolved = renderer.resolve(graph, uid) else { return "#\(uid.value)" }
                switch resolved.kind {
                case .string(let s): return ValueFormatting.quoted(s)
                default: return "#\(uid.value) " + ValueFormatting.printable(resolved.archivedClass?.name ?? "")
                }
            case .value(let v): return ValueFormatting.textScalar(v)
            default: return "(container)"
            }
        }

        /// Writes `head` and opens `children` below it (or stops at the depth limit).
        private mutating func open(_ head: String, _ children: ChildList, _ depth: Int, leaving: UID? = nil) {
            if children.count == 0 {
                out.write(head + "\n")
                return
            }
            if let maxDepth = renderer.maxDepth, depth >= maxDepth {
                out.write(head + " ...\n")
                return
            }
            out.write(head + "\n")
            if let uid = leaving {
                shownAtLine[Int(uid.value)] = out.linesWritten
                onPath[Int(uid.value)] = true
            }
            stack.append(DumpFrame(children: children, depth: depth, closer: "", leaving: leaving))
        }

        /// Writes a value after its indentation and label (already written).
        mutating func emit(_ node: DumpNode, depth: Int) {
            switch node {
            case .plist(let v):
                switch v {
                case .array(let a): open("array " + ValueTreeWriter.count(a.count, "item"), .plistArray(a.elements), depth)
                case .set(let a): open("set " + ValueTreeWriter.count(a.count, "item"), .plistArray(a.elements), depth)
                case .dictionary(let d): open("dictionary " + ValueTreeWriter.count(d.count, "entry"), .plistDictionary(d), depth)
                case .string(let s): out.writeQuoted(s); out.write("\n")
                default: out.write(ValueFormatting.textScalar(v)); out.write("\n")
                }
            case .archived(let a):
                switch a {
                case .null: out.write("nil\n")
                case .value(let v): emit(.plist(v), depth: depth)
                case .array(let items): open("array " + ValueTreeWriter.count(items.count, "item"), .archivedArray(items), depth)
                case .set(let items): open("set " + ValueTreeWriter.count(items.count, "item"), .archivedArray(items), depth)
                case .dictionary(let f): open("dictionary " + ValueTreeWriter.count(f.count, "entry"), .fields(f), depth)
                case .reference(let uid): emitObject(uid, depth: depth)
                }
            case .mapped:
                break  // the tree is drawn from decoded values or the object graph
            }
        }

        /// Writes the attributed string at `uid` after `head`: its text and run count, then each run's range,
        /// text and attributes below it (within the lines left in ``attributeLines``).
        private mutating func emitAttributedString(_ uid: UID, head: String, in graph: ArchivedObjectGraph, depth: Int) {
            guard let text = try? KeyedUnarchiver().decodeObject(at: uid, ofType: ArchivedAttributedString.self, in: graph)
                as? ArchivedAttributedString else {
                out.write(head + "(does not decode as an attributed string)\n")
                return
            }
            let value = FoundationValue.attributedString(text)
            let runs = ValueTreeWriter.children(of: value)
            if runs.isEmpty || renderer.maxDepth.map({ depth >= $0 }) == true {
                out.write(head + ValueTreeWriter.head(of: value) + (runs.isEmpty ? "\n" : " ...\n"))
                return
            }
            out.write(head + ValueTreeWriter.head(of: value) + "\n")
            var writer = ValueTreeWriter(out: out, maxDepth: renderer.maxDepth, archive: nil, lineLimit: attributeLines)
            writer.write(runs, depth: depth + 1)
            attributeLines = writer.remainingLines
        }

        private mutating func emitObject(_ uid: UID, depth: Int) {
            guard let graph, let object = renderer.resolve(graph, uid) else {
                let reason = graph.map { "damaged: " + DamageMarks.outOfRange(uid, in: $0) } ?? "out of range"
                out.write("#" + String(uid.value) + " (" + reason + ")\n")
                return
            }
            let id = "#" + String(uid.value) + (DamageMarks.object(uid, in: graph).map { " [damaged: " + $0 + "]" } ?? "")
            // Class names come from the archive: shown as they are only when printable.
            let name = object.archivedClass.map { ValueFormatting.printable($0.name) } ?? ""
            let head: String
            let children: ChildList
            switch object.kind {
            case .null: out.write("nil\n"); return
            case .value(let v):
                out.write(id + " ")
                emit(.plist(v), depth: depth)
                return
            case .classDefinition(let d):
                let chain = d.chain.isEmpty ? "" : " (" + d.chain.map(ValueFormatting.printable).joined(separator: ", ") + ")"
                out.write(id + " class " + ValueFormatting.printable(d.name) + chain + "\n")
                return
            case .string(let s):
                out.write(id + " " + name + " ")
                out.writeQuoted(s)
                out.write("\n")
                return
            case .data(let d): out.write(id + " \(name) " + ValueFormatting.textData(d) + "\n"); return
            case .date(let d): out.write(id + " \(name) " + ValueFormatting.textDate(d) + "\n"); return
            case .uuid(let u): out.write(id + " \(name) " + u.uuidString + "\n"); return
            case .url(let relative, .null): out.write(id + " \(name) " + ValueFormatting.printable(relative) + "\n"); return
            case .url(let relative, let base):
                head = "\(name) " + ValueFormatting.printable(relative) + " relative to"
                children = .fields([ArchivedField("base", base)])
            case .nsNull: out.write(id + " \(name)\n"); return
            case .decoded(let typeName, _, _) where typeName == "\(ArchivedAttributedString.self)":
                emitAttributedString(uid, head: id + " \(name) ", in: graph, depth: depth)
                return
            case .decoded(_, let description, _):
                out.write(id + " \(name) " + ValueFormatting.printable(ValueFormatting.decodedValueText(description, className: name)) + "\n")
                return
            case .list(let items):
                head = "\(name) " + ValueTreeWriter.count(items.count, "item")
                children = .archivedArray(items)
            case .map(let keys, let values):
                head = "\(name) " + ValueTreeWriter.count(keys.count, "entry")
                children = .pairs(keys: keys, values: values)
            case .object(let instance):
                head = name
                children = .fields(instance.fields)
            }
            let index = Int(uid.value)
            if children.count > 0 {
                if onPath[index] {
                    out.write(id + " \(head) (cycle: back to line \(shownAtLine[index]))\n")
                    return
                }
                if shownAtLine[index] != 0 {
                    out.write(id + " \(head) (repeated: see line \(shownAtLine[index]))\n")
                    return
                }
            }
            open(id + " " + head, children, depth, leaving: uid)
        }
    }
}
