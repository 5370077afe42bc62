#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A binary property list checked in full without building its tree, whose containers are then read
/// one at a time: what `archive-dump --raw` walks instead of the decoded tree (memory: the bytes and,
/// while checking, 9 bytes per object).
package final class MappedPropertyList: Sendable {
    /// One object: a non-container value, or a container with the object numbers of its children.
    package enum Node {
        case value(PropertyListValue)
        case array([Int])
        case set([Int])
        /// Keys as a whole read keeps them (a repeated key once, its last value), values parallel.
        case dictionary(keys: [String], values: [Int])
    }

    private let data: Data
    private let layout: BinaryPropertyListScanner.Layout
    /// The root's object number.
    package let root: Int

    /// The property list in `data` when it is binary, a whole read (with default options) would accept
    /// it, and it shows at most `expandedValueBudget` values (a shared container counted per reference);
    /// nil otherwise (read it the usual way then, to get the fault).
    package init?(_ data: Data, expandedValueBudget: Int) {
        guard PropertyListValue.detectFormat(of: data) == .binary else { return nil }
        let checked: (BinaryPropertyListScanner.Layout, BinaryPropertyListScanner.Shape?)? = try? data.withUnsafeBytes { raw in
            let scanner = try BinaryPropertyListScanner(raw, options: .init())
            return (scanner.layout, scanner.checkedShape())
        }
        guard let (layout, shape) = checked, let shape, shape.expandedCount <= expandedValueBudget else { return nil }
        self.data = data
        self.layout = layout
        self.root = layout.topObject
    }

    /// Object `n` (the root or a child of a node read before). Checked in full already, so it cannot
    /// fail; an empty dictionary stands for a fault only if the bytes changed.
    package func node(_ n: Int) -> Node {
        let node = try? data.withUnsafeBytes { raw -> Node in
            let scanner = try BinaryPropertyListScanner(checked: raw, layout: layout, source: data)
            guard let c = try scanner.container(n) else {
                return .value(try scanner.scalar(n, at: scanner.offset(of: n), marker: scanner.marker(of: n)))
            }
            let refSize = scanner.refSize
            if c.kind != .dictionary {
                let items = try (0 ..< c.count).map { try scanner.reference(at: c.start + $0 * refSize, object: n) }
                return c.kind == .array ? .array(items) : .set(items)
            }
            var keys: [String] = [], values: [PropertyListValue] = []
            keys.reserveCapacity(c.count)
            values.reserveCapacity(c.count)
            for i in 0 ..< c.count {
                let k = try scanner.reference(at: c.start + i * refSize, object: n)
                guard case .string(let key) = try scanner.scalar(k, at: scanner.offset(of: k), marker: scanner.marker(of: k)) else {
                    return .dictionary(keys: [], values: [])
                }
                keys.append(key)
                values.append(.integer(PropertyListInteger(Int64(try scanner.reference(at: c.start + (c.count + i) * refSize, object: n)))))
            }
            // Built as a whole read builds it, so repeated keys collapse the same way; values carry object numbers.
            guard case .dictionary(let d) = BinaryPropertyListScanner.makeDictionary(keys, values) else { return .dictionary(keys: [], values: []) }
            return .dictionary(keys: d.keys, values: d.values.map { if case .integer(let i) = $0 { Int(i.int64Value ?? 0) } else { 0 } })
        }
        return node ?? .dictionary(keys: [], values: [])
    }
}
