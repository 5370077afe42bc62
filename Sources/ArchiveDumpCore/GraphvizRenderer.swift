#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// `--dot`: a ``ForensicDocument``'s object graph as Graphviz DOT.
///
/// Each object, array, dictionary and nested payload is a box whose label names its class (or kind) and
/// its number, then lists its scalar fields; fields that hold containers or objects are edges labelled with
/// the key. An object referred to again gets an edge from each referrer: a shared object (two edges or more
/// in) is drawn with a double border, and an edge back to an object still being drawn (a cycle) is dashed
/// and red. The drawing stops at ``maxObjects`` boxes or ``maxDepth`` levels, with a note saying what was cut.
package struct GraphvizRenderer {
    /// The most boxes drawn when the command line gives no `--max-objects`.
    package static let defaultMaxObjects = 500
    /// The deepest level drawn, or nil for no limit but ``maxObjects``.
    package var maxDepth: Int?
    /// The most boxes drawn.
    package var maxObjects: Int

    /// A renderer that draws at most `maxObjects` boxes, `maxDepth` levels deep.
    package init(maxDepth: Int?, maxObjects: Int) {
        self.maxDepth = maxDepth
        self.maxObjects = maxObjects
    }

    /// One box: its node name, label lines, and whether a reference or cycle reaches it.
    private struct Box {
        var title: String
        var lines: [String] = []
    }

    /// An edge from a box to the box of `target`, which may be drawn later (references are resolved at the end).
    private struct Edge {
        var from: Int
        var label: String
        var target: String
        var isReference: Bool
    }

    /// Writes the DOT text of `document` to `out`.
    package func render(_ document: ForensicDocument, to out: DumpOutput) {
        var boxes: [Box] = []
        var boxByPath: [String: Int] = [:]
        var ancestorsOf: [Int: Set<Int>] = [:]
        var edges: [Edge] = []
        var cutObjects = 0
        var cutByDepth = false
        // Depth first in stored order: (path, value, parent box, edge label, depth).
        var pending: [(ForensicPath, ForensicValue, Int?, String, Int)] = [(document.rootPath, document.root, nil, "", 0)]
        while let (path, value, parent, label, depth) = pending.popLast() {
            if case .reference(let reference) = value {
                if let parent { edges.append(Edge(from: parent, label: label, target: reference.target.description, isReference: true)) }
                continue
            }
            let title: String
            var children: [(String, ForensicPath, ForensicValue)] = []
            switch value {
            case .object(let object):
                title = object.storedID.isEmpty ? object.className : object.storedID + " " + object.className
                children = object.fields.map { ($0.key, path.appending(key: $0.key), $0.value) }
            case .dictionary(let entries):
                title = path == document.rootPath ? (path.lastKey ?? "dictionary") : "dictionary"
                children = entries.map { ($0.key, path.appending(key: $0.key), $0.value) }
            case .array(let items):
                title = "array"
                children = items.enumerated().map { ("[\($0.offset)]", path.appending(index: $0.offset), $0.element) }
            case .nested(let payload):
                title = payload.carrier.rawValue + " -> " + payload.format.rawValue
                    + (payload.byteOffset.map { " at byte \($0)" } ?? "") + (payload.error.map { "\nerror: " + $0 } ?? "")
                if let inner = payload.value {
                    let innerPath = payload.rootPath ?? payload.innerPath
                    children = [(innerPath.lastKey ?? "root", innerPath, inner)]
                }
            default:
                if let parent { boxes[parent].lines.append(label + ": " + ForensicTreeRenderer.scalarText(value)) }
                continue
            }
            if boxes.count >= maxObjects {
                cutObjects += 1
                continue
            }
            if let maxDepth, depth > maxDepth {
                cutByDepth = true
                cutObjects += 1
                continue
            }
            let index = boxes.count
            boxes.append(Box(title: title))
            boxByPath[path.description] = index
            ancestorsOf[index] = parent.map { (ancestorsOf[$0] ?? []).union([$0]) } ?? []
            if let parent { edges.append(Edge(from: parent, label: label, target: path.description, isReference: false)) }
            pending.append(contentsOf: children.reversed().map { ($0.1, $0.2, index, $0.0, depth + 1) })
        }

        var incoming = [Int](repeating: 0, count: boxes.count)
        for edge in edges { if let to = boxByPath[edge.target] { incoming[to] += 1 } }
        out.write("digraph archive {\n  node [shape=box, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n")
        for (index, box) in boxes.enumerated() where !out.hasFailed {
            let label = ([box.title] + box.lines).map { Self.escaped($0) + "\\l" }.joined()
            out.write("  n\(index) [label=\"" + label + "\"" + (incoming[index] > 1 ? ", peripheries=2" : "") + "];\n")
        }
        for edge in edges where !out.hasFailed {
            guard let to = boxByPath[edge.target] else { continue }
            let isCycle = edge.isReference && (to == edge.from || ancestorsOf[edge.from]?.contains(to) == true)
            let style = isCycle ? ", style=dashed, color=red" : edge.isReference ? ", style=dashed" : ""
            out.write("  n\(edge.from) -> n\(to) [label=\"" + Self.escaped(edge.label) + "\"" + style + "];\n")
        }
        if cutObjects > 0 {
            let reason = cutByDepth && boxes.count < maxObjects ? "deeper than \(maxDepth ?? 0) levels"
                : "after \(maxObjects) boxes" + (cutByDepth ? " and deeper than \(maxDepth ?? 0) levels" : "")
            out.write("  cut [shape=note, label=\"" + Self.escaped("\(cutObjects) more not drawn (cut \(reason))") + "\"];\n")
        }
        out.write("}\n")
    }

    /// `text` inside a DOT double-quoted string: backslashes and quotes escaped, control characters as `\u{..}`
    /// text, line breaks as `\l` (left-aligned), and long text shortened.
    static func escaped(_ text: String) -> String {
        var result = ""
        for (count, scalar) in text.unicodeScalars.enumerated() {
            if count == 200 {
                result += "..."
                break
            }
            switch scalar {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\l"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    result += "\\\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result
    }
}
