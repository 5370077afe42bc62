/// The regions of a test file that README.md or a DocC article shows word for word: lines between
/// `// NAME: begin` and `// NAME: end` (each marker alone on its line, after any indentation), so a test can
/// compare the document's Swift blocks with the code it compiles and runs.
public enum ExampleRegions {
    /// Every region marked `name` in `file`, in file order, each as its lines (markers left out).
    ///
    /// - Parameters:
    ///   - name: the marker's name, such as `"README 1"`.
    ///   - file: the test file's text.
    /// - Returns: the regions' lines, as written (indented).
    public static func regions(named name: String, in file: String) -> [[Substring]] {
        var regions: [[Substring]] = []
        var current: [Substring]?
        for line in file.split(separator: "\n", omittingEmptySubsequences: false) {
            let trimmed = line.drop(while: { $0 == " " })
            if trimmed == "// \(name): begin" { current = [] }
            else if trimmed == "// \(name): end", let region = current { regions.append(region); current = nil }
            else if current != nil { current?.append(line) }
        }
        return regions
    }

    /// `lines` without the indentation they share, joined by line breaks (empty lines stay empty).
    ///
    /// - Parameter lines: a region's lines.
    /// - Returns: the region as the document shows it.
    public static func dedent(_ lines: [Substring]) -> String {
        let indent = lines.filter { !$0.isEmpty }.map { $0.prefix(while: { $0 == " " }).count }.min() ?? 0
        return lines.map { $0.isEmpty ? "" : String($0.dropFirst(indent)) }.joined(separator: "\n")
    }

    /// The Swift blocks of `readme` after its first line `heading`, in order, each without its fences.
    ///
    /// - Parameters:
    ///   - heading: a heading's text, such as `"## A model type"`.
    ///   - readme: README.md's text.
    /// - Returns: the blocks' code; empty when `heading` is missing.
    public static func swiftBlocks(after heading: String, in readme: String) -> [String] {
        guard let section = readme.range(of: "\n" + heading + "\n") else { return [] }
        var rest = readme[section.upperBound...]
        var blocks: [String] = []
        while let open = rest.range(of: "```swift\n"), let close = rest[open.upperBound...].range(of: "\n```") {
            blocks.append(String(rest[open.upperBound..<close.lowerBound]))
            rest = rest[close.upperBound...]
        }
        return blocks
    }
}
