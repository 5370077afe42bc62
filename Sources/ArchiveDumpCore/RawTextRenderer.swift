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
        let indent = Indentation()
        var stack: [DumpFrame] = []

        /// Writes `v` after its label (already written).
        func emit(_ v: PropertyListValue, _ depth: Int) {
            let opener: String, closer: String, children: ChildList, noun: String
            switch v {
            case .array(let a): (opener, closer, children, noun) = ("[", "]", .plistArray(a.elements), "items")
            case .set(let a): (opener, closer, children, noun) = ("{(", ")}", .plistArray(a.elements), "items")
            case .dictionary(let d): (opener, closer, children, noun) = ("{", "}", .plistDictionary(d), "entries")
            case .string(let s):
                out.writeQuoted(s)
                out.write("\n")
                return
            default:
                out.write(ValueFormatting.textScalar(v))
                out.write("\n")
                return
            }
            if children.count == 0 {
                out.write(opener + closer + "\n")
            } else if let maxDepth, depth >= maxDepth {
                out.write(opener + " ... \(children.count) \(noun) " + closer + "\n")
            } else {
                out.write(opener + "\n")
                stack.append(DumpFrame(children: children, depth: depth, closer: indent(depth) + closer + "\n", leaving: nil))
            }
        }

        emit(value, 0)
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
                if case .plist(let v) = node { emit(v, depth) }
            } else {
                out.write(stack.removeLast().closer)
            }
        }
    }
}
