import KeyedArchive

/// Renders a property list as stored, in the layout of `plutil -p`, with UIDs as `UID(n)`.
///
/// ```
/// {
///   "$archiver" => "NSKeyedArchiver"
///   "$objects" => [
///     0 => "$null"
///     1 => {
///       "$class" => UID(2)
/// ```
/// Strings are quoted with control characters escaped; dates are ISO 8601 UTC; data is
/// `{length = n, bytes = 0x…}`; sets are `{( … )}`. Never recurses, whatever the depth.
package struct RawTextRenderer {
    /// Containers at this depth or deeper are summarised (`[ ... 3 items ]`); `nil` for no limit.
    package var maxDepth: Int?

    /// A renderer with an optional depth limit.
    package init(maxDepth: Int? = nil) { self.maxDepth = maxDepth }

    /// Writes `value` and a final newline.
    package func render(_ value: PropertyListValue, to out: DumpOutput) {
        render(.plist(value), to: out)
    }

    /// Writes a property list read container by container, as ``render(_:to:)`` writes the decoded one.
    package func render(mapped plist: MappedPropertyList, to out: DumpOutput) {
        render(.mapped(plist, plist.root), to: out)
    }

    private func render(_ root: DumpNode, to out: DumpOutput) {
        let indent = Indentation()
        var stack: [DumpFrame] = []

        /// Writes `node` after its label (already written).
        func emit(_ node: DumpNode, _ depth: Int) {
            let v: PropertyListValue
            switch node {
            case .plist(let value): v = value
            case .mapped(let plist, let n):
                let shown = plist.shown(n)
                if let value = shown.value {
                    v = value
                } else {
                    let sets = shown.kind == "set", dictionary = shown.kind == "dictionary"
                    open(dictionary ? "{" : sets ? "{(" : "[", dictionary ? "}" : sets ? ")}" : "]", shown.children,
                         dictionary ? "entries" : "items", depth)
                    return
                }
            case .archived: return
            }
            switch v {
            case .array(let a): open("[", "]", .plistArray(a.elements), "items", depth)
            case .set(let a): open("{(", ")}", .plistArray(a.elements), "items", depth)
            case .dictionary(let d): open("{", "}", .plistDictionary(d), "entries", depth)
            case .string(let s):
                out.writeQuoted(s)
                out.write("\n")
                return
            default:
                out.write(ValueFormatting.textScalar(v))
                out.write("\n")
            }
        }

        func open(_ opener: String, _ closer: String, _ children: ChildList, _ noun: String, _ depth: Int) {
            if children.count == 0 {
                out.write(opener + closer + "\n")
            } else if let maxDepth, depth >= maxDepth {
                out.write(opener + " ... \(children.count) \(noun) " + closer + "\n")
            } else {
                out.write(opener + "\n")
                stack.append(DumpFrame(children: children, depth: depth, closer: indent(depth) + closer + "\n", leaving: nil))
            }
        }

        emit(root, 0)
        while let top = stack.indices.last, !out.hasFailed {
            if stack[top].next < stack[top].children.count {
                let i = stack[top].next
                stack[top].next += 1
                let depth = stack[top].depth + 1
                let (label, node) = stack[top].children.child(i)
                out.write(indent(depth))
                switch label {
                case .index(let n): out.write(String(n)); out.write(" => ")
                case .key(let k): out.writeQuoted(k); out.write(" => ")
                case .archivedKey, .none: break
                }
                emit(node, depth)
            } else {
                out.write(stack.removeLast().closer)
            }
        }
    }
}
