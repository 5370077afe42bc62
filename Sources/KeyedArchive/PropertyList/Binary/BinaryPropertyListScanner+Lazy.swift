#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// What a reader that keeps a file open and reads one object's sub-tree at a time needs (the lazily opened
// archive graph, `archive-dump`): the checked trailer kept apart from the bytes, so the scanner can be set
// up again over the same bytes in each access without checking the offset table again; a sub-tree decoder
// that needs no per-file state; and a check of everything a whole-file read would check, without building
// the tree.
extension BinaryPropertyListScanner {
    /// The trailer's facts, as checked by the initializer: enough to set up a scanner over the same bytes
    /// again without checking them again (see ``init(checked:layout:source:)``).
    struct Layout: Sendable, Hashable {
        let offsetSize: Int
        let refSize: Int
        let objectCount: Int
        let topObject: Int
        let tableOffset: Int
        let maximumDepth: Int
        let isLenient: Bool
    }

    /// This scanner's checked trailer.
    var layout: Layout {
        Layout(offsetSize: offsetSize, refSize: refSize, objectCount: objectCount, topObject: topObject,
               tableOffset: tableOffset, maximumDepth: maximumDepth, isLenient: isLenient)
    }

    /// A scanner over bytes that a scanner with `layout` has already checked (the same bytes, unchanged:
    /// the caller keeps them immutable, for example as a `let` `Data`). No reference counts: it serves the
    /// on-demand functions and ``subtree(_:depth:uidLimit:)``, not `value(_:depth:)`.
    init(checked raw: UnsafeRawBufferPointer, layout: Layout, source: Data?) throws {
        guard let base = raw.baseAddress, raw.count > layout.tableOffset else {
            throw PropertyListError(.truncated, "bplist: the bytes changed since they were checked", at: .init(byteOffset: 0))
        }
        self.base = base
        self.size = raw.count
        self.offsetSize = layout.offsetSize
        self.refSize = layout.refSize
        self.objectCount = layout.objectCount
        self.topObject = layout.topObject
        self.tableOffset = layout.tableOffset
        self.maximumDepth = layout.maximumDepth
        self.isLenient = layout.isLenient
        self.source = source
    }

    /// Throws unless the offset-table entry of object `n` (below ``objectCount``) points into the object
    /// area, as the initializer checks every entry: what a scanner made with `checkingOffsets: false`
    /// must call before it uses object `n`.
    @inline(__always)
    func requireValidOffset(_ n: Int) throws {
        let offset = Self.loadBigEndian(base + tableOffset + n * offsetSize, width: offsetSize)
        guard offset >= UInt64(Self.headerSize), offset < UInt64(tableOffset) else {
            throw PropertyListError(.invalidReference, "bplist: offset-table entry \(offset) is outside the object area 8..<\(tableOffset)",
                                    at: .init(byteOffset: tableOffset + n * offsetSize, objectNumber: n))
        }
    }

    /// A UID at or above the limit given to ``subtree(_:depth:uidLimit:)``, with where it was found.
    struct UIDOutOfRange: Error {
        let value: UInt64
        let keyPath: String
    }

    /// Decodes object `root`, which sits `depth` containers below the file's root, and everything below it.
    ///
    /// Needs no per-file state (and checks each object's offset-table entry before it reads the object,
    /// so the scanner may skip checking the table), so its cost is the sub-tree's, not the file's: a container the sub-tree
    /// shares is decoded once (memoized by object number for this call), a container on the current path
    /// met again is a cycle, nesting is checked against ``PropertyListReadingOptions/maximumDepth`` as a
    /// whole-file read checks it, and the walk keeps its path on the heap (any depth is safe). Faults are
    /// the whole-file reader's, with the key path below `root`.
    /// - Parameter uidLimit: a UID at or above it throws ``UIDOutOfRange`` (with its key path).
    func subtree(_ root: Int, depth: Int, uidLimit: UInt64 = .max) throws -> PropertyListValue {
        var done: [Int: PropertyListValue] = [:]
        var onPath = Set<Int>()
        var stack: [Frame] = []
        var n = root
        do {
            descend: while true {
                var v: PropertyListValue
                if !done.isEmpty, let known = done[n] {
                    v = known
                } else {
                    try requireValidOffset(n)
                    let offset = offset(of: n)
                    let marker = base.load(fromByteOffset: offset, as: UInt8.self)
                    if let kind = BinaryPropertyListMarker(byte: marker), kind.isContainer {
                        if let top = stack.indices.last, stack[top].kind == .dictionary, stack[top].key == nil {
                            try Self.containerKeyError(kind, stack[top].start + stack[top].i * refSize, stack[top].n)
                        }
                        // The root's own frame is never reached again but through a cycle: kept out of the
                        // set and the memo, so the common one-container entry allocates neither.
                        if n == root ? !stack.isEmpty : onPath.contains(n) { try cycleError(n) }
                        guard let c = try container(n) else { try unknownMarker(marker, offset, n) }
                        guard depth + stack.count < maximumDepth else { try tooDeep(n, offset) }
                        var frame = Frame(n: n, kind: c.kind, count: c.count, start: c.start)
                        if c.count > 0 {
                            // Bounded: the count's references fit in the file.
                            frame.elements.reserveCapacity(c.count)
                            if c.kind == .dictionary { frame.keys.reserveCapacity(c.count) }
                            stack.append(frame)
                            if n != root { onPath.insert(n) }
                            n = try reference(at: c.start, object: n)
                            continue descend
                        }
                        v = Self.closed(frame)
                        if !stack.isEmpty { done[n] = v }
                    } else {
                        v = try scalar(n, at: offset, marker: marker)
                        if case .uid(let u) = v, u.value >= uidLimit {
                            throw UIDOutOfRange(value: u.value, keyPath: Self.keyPath(stack))
                        }
                    }
                }
                // Hand v to the open containers, closing each one that is complete.
                while let last = stack.indices.last {
                    if stack[last].kind == .dictionary, stack[last].key == nil {
                        guard case .string(let k) = v else {
                            try Self.keyError(v, stack[last].start + stack[last].i * refSize, stack[last].n)
                        }
                        stack[last].key = k
                        n = try reference(at: stack[last].start + (stack[last].count + stack[last].i) * refSize, object: stack[last].n)
                        continue descend
                    }
                    if let k = stack[last].key { stack[last].keys.append(k) }
                    stack[last].key = nil
                    stack[last].elements.append(v)
                    stack[last].i += 1
                    if stack[last].i < stack[last].count {
                        n = try reference(at: stack[last].start + stack[last].i * refSize, object: stack[last].n)
                        continue descend
                    }
                    let frame = stack.removeLast()
                    v = Self.closed(frame)
                    if !stack.isEmpty {
                        onPath.remove(frame.n)
                        done[frame.n] = v
                    }
                }
                return v
            }
        } catch var error as PropertyListError {
            error.location.keyPath = Self.join(Self.keyPath(stack), error.location.keyPath)
            throw error
        }
    }

    /// The value of a complete container.
    private static func closed(_ frame: Frame) -> PropertyListValue {
        switch frame.kind {
        case .array: return .array(frame.elements)
        case .dictionary: return makeDictionary(frame.keys, frame.elements)
        default: return .set(frame.elements)
        }
    }

    /// The key path of the open containers: `[i]` for an element, the key (or `<key i>` while the key
    /// itself is read) for a dictionary entry.
    private static func keyPath(_ stack: [Frame]) -> String {
        var path = ""
        for frame in stack {
            let part = frame.kind == .dictionary ? frame.key ?? "<key \(frame.i)>" : "[\(frame.i)]"
            path = path.isEmpty ? part : join(path, part)
        }
        return path
    }

    /// What ``checkedShape()`` found: the values a full read would hold counted as the outputs show
    /// them (a shared container once per reference), and the most containers on one path from the root.
    struct Shape {
        let expandedCount: Int
        let height: Int
    }

    /// Checks, without building the tree, that reading the whole property list from the root succeeds:
    /// every object the root reaches decodes, every dictionary key is a string, no container contains
    /// itself, and no path nests deeper than the limit. Stricter than or equal to a whole-file read (the
    /// depth is checked on the longest path, not the first one met), so a `nil` result means only "not
    /// shown here": the caller reads the file the usual way to find the fault.
    ///
    /// Needs a scanner that checked every offset-table entry (the default). Memory: 9 bytes per object of
    /// the file, freed on return.
    /// - Returns: the shape, or nil when a whole-file read might fail (or the expanded count passes
    ///   `UInt32.max - 1`: the caller's whole read then counts it exactly).
    func checkedShape() -> Shape? {
        var state = [UInt8](repeating: 0, count: objectCount)  // 0 new, 1 on the path, 2 done
        // Saturating at UInt32.max, which counts as over any budget (a whole read then finds out).
        var expanded = [UInt32](repeating: 0, count: objectCount)
        var height = [UInt32](repeating: 0, count: objectCount)
        // Open containers: object, kind, count, where its references start, next element.
        var stack: [(n: Int, isDictionary: Bool, count: Int, start: Int, i: Int)] = []
        var n = topObject
        descend: while true {
            switch state[n] {
            case 1: return nil
            case 2: break
            default:
                let offset = offset(of: n)
                let marker = base.load(fromByteOffset: offset, as: UInt8.self)
                guard let kind = BinaryPropertyListMarker(byte: marker) else { return nil }
                if kind.isContainer {
                    // Deeper than the limit on this path already: a whole read fails (and the stack stays bounded).
                    guard stack.count < maximumDepth, let c = try? container(n) else { return nil }
                    state[n] = 1
                    stack.append((n, kind == .dictionary, c.count, c.start, 0))
                    expanded[n] = UInt32(clamping: 1 + (kind == .dictionary ? c.count : 0))
                    height[n] = 1
                } else {
                    guard (try? scalar(n, at: offset, marker: marker)) != nil else { return nil }
                    state[n] = 2
                    expanded[n] = 1
                }
            }
            // Visit the next child of the innermost open container, or close it.
            while let last = stack.indices.last {
                let frame = stack[last]
                if state[n] == 2, n != frame.n {
                    let (sum, overflow) = expanded[frame.n].addingReportingOverflow(expanded[n])
                    expanded[frame.n] = overflow ? .max : sum
                    height[frame.n] = max(height[frame.n], height[n] + 1)
                }
                let count = frame.isDictionary ? 2 * frame.count : frame.count
                if frame.i < count {
                    stack[last].i += 1
                    guard let child = try? reference(at: frame.start + frame.i * refSize, object: frame.n) else { return nil }
                    if frame.isDictionary, frame.i < frame.count {
                        // A key: a string, counted with its dictionary, never a container.
                        let keyOffset = offset(of: child)
                        let marker = base.load(fromByteOffset: keyOffset, as: UInt8.self)
                        guard (try? stringLength(child)) != nil,
                              (try? scalar(child, at: keyOffset, marker: marker)) != nil else { return nil }
                        n = frame.n
                        continue
                    }
                    n = child
                    continue descend
                }
                stack.removeLast()
                state[frame.n] = 2
                n = frame.n
                if stack.isEmpty { break }
            }
            guard Int(height[topObject]) <= maximumDepth, expanded[topObject] < .max else { return nil }
            return Shape(expandedCount: Int(expanded[topObject]), height: Int(height[topObject]))
        }
    }
}
