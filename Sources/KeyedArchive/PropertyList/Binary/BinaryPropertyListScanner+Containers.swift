#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Decoding a whole tree: the container walk (recursive near the root, iterative below), cycles, sharing
// and key paths. Scalars are in BinaryPropertyListScanner+Scalars.swift.
extension BinaryPropertyListScanner {
    // MARK: - Objects

    /// Decodes object `n` at nesting `depth` (number of containers above it).
    ///
    /// The common path: this function, `array` and `dictionary` recurse (fast, with small stack frames)
    /// down to ``recursionLimit`` levels; below that a sub-tree is decoded by ``deepValue(_:depth:_:)``,
    /// which keeps its path on the heap, so no depth the options allow can exhaust the call stack.
    @inline(never)
    func value(_ n: Int, depth: Int, _ tree: inout TreeState) throws -> PropertyListValue {
        if depth >= Self.recursionLimit { return try deepValue(n, depth: depth, &tree) }
        // A UID the reference count pass decoded, or the object's offset (see `TreeState.inline`).
        var offset = 0
        if n < tree.inline.count {
            let packed = tree.inline[n]
            if packed & Self.inlineUID != 0 { return .uid(UID(UInt64(packed & ~Self.inlineUID))) }
            offset = Int(packed)
        }
        if offset == 0 { offset = self.offset(of: n) }
        let marker = base.load(fromByteOffset: offset, as: UInt8.self)
        // Cheaper to decode again than to look up (and never on the path, never exponential).
        if Self.decodesWithoutAllocating(marker) { return try scalar(n, at: offset, marker: marker) }
        let st = tree.state[n]
        if st & Self.onPath != 0 { try cycleError(n) }
        if st & Self.memoized != 0 { return tree.memo[Int(tree.slots[n])] }
        switch marker >> 4 {
        case BinaryPropertyListMarker.dictionary.rawValue: return try dictionary(n, at: offset, marker: marker, depth: depth, &tree)
        // CF __CFBinaryPlistCreateObjectFiltered has no case for 0xB_ (ordered set; nor does Foundation on Linux).
        case BinaryPropertyListMarker.orderedSet.rawValue where !isLenient: try unsupportedMarker(marker, offset, n)
        case BinaryPropertyListMarker.array.rawValue ... BinaryPropertyListMarker.set.rawValue:
            return try array(n, at: offset, marker: marker, depth: depth, &tree)
        default:
            let v = try scalar(n, at: offset, marker: marker)
            memoize(n, v, &tree)
            return v
        }
    }

    /// A container being decoded: its references, and what has been decoded of its elements so far.
    struct Frame {
        /// Object number of the container.
        var n: Int
        /// Array, ordered set, set or dictionary.
        var kind: BinaryPropertyListMarker
        var count: Int
        /// Where its references start (a dictionary: `count` keys, then `count` values).
        var start: Int
        /// The element (or entry) being read.
        var i = 0
        /// Dictionary: whether entry `i`'s key has been read (into `key`) and its value is next.
        var key: String?
        var elements: [PropertyListValue] = []
        var keys: [String] = []
    }

    /// Decodes object `root`, `depth` containers below the root, and everything below it.
    ///
    /// Iterative: the containers on the current path are an explicit stack of ``Frame``s, so nesting as
    /// deep as ``PropertyListReadingOptions/maximumDepth`` allows (a million levels and more) costs heap,
    /// not call stack. A shared sub-tree is decoded once (memoized); a container on the current path that
    /// is reached again is a cycle. A fault is thrown with the key path of the frames above it.
    @inline(never)
    func deepValue(_ root: Int, depth: Int, _ tree: inout TreeState) throws -> PropertyListValue {
        // The innermost open container is `top` (a local, for speed); the ones above it are on `stack`.
        var stack: [Frame] = []
        var top = Frame(n: 0, kind: .array, count: 0, start: 0)
        var open = 0  // containers open: stack.count + 1, or 0 when `top` is unused
        do {
            var n = root
            descend: while true {
                // Visit object n, a child of `top` (or the root).
                var v: PropertyListValue
                let st = tree.state[n]
                if st & Self.onPath != 0 { try cycleError(n) }
                if st & Self.memoized != 0 {
                    v = tree.memo[Int(tree.slots[n])]
                } else {
                    let offset = offset(of: n)
                    let marker = base.load(fromByteOffset: offset, as: UInt8.self)
                    if let kind = BinaryPropertyListMarker(byte: marker), kind.isContainer {
                        // A dictionary key must be a string: a container key is refused before it is read.
                        if open > 0, top.kind == .dictionary, top.key == nil {
                            try Self.containerKeyError(kind, top.start + top.i * refSize, top.n)
                        }
                        var frame = try self.open(n, at: offset, marker: marker, kind: kind, depth: depth + open, &tree)
                        if frame.count > 0 {
                            if open > 0 {
                                swap(&frame, &top)
                                stack.append(frame)
                            } else {
                                top = frame
                            }
                            open += 1
                            n = try nextReference(&top)
                            continue descend
                        }
                        v = close(frame, &tree)
                    } else {
                        v = try scalar(n, at: offset, marker: marker)
                        memoize(n, v, &tree)
                    }
                }
                // Hand v to the open containers, closing each one that is complete.
                while open > 0 {
                    if top.kind == .dictionary {
                        if let key = top.key {
                            top.keys.append(key)
                            top.elements.append(v)
                            top.key = nil
                            top.i += 1
                        } else {
                            guard case .string(let k) = v else {
                                try Self.keyError(v, top.start + top.i * refSize, top.n)
                            }
                            top.key = k
                            n = try nextReference(&top)
                            continue descend
                        }
                    } else {
                        top.elements.append(v)
                        top.i += 1
                    }
                    if top.i < top.count {
                        n = try nextReference(&top)
                        continue descend
                    }
                    var finished = stack.popLast() ?? Frame(n: 0, kind: .array, count: 0, start: 0)
                    swap(&finished, &top)
                    open -= 1
                    v = close(consume finished, &tree)
                }
                return v
            }
        } catch var error as PropertyListError {
            if open > 0 { stack.append(top) }
            // The key path, innermost frame first: `[i]` for an element, the key (or `<key i>` while the
            // key itself was being read) for a dictionary entry.
            var path = error.location.keyPath
            for frame in stack.reversed() {
                if frame.kind == .dictionary {
                    path = Self.join(frame.key ?? "<key \(frame.i)>", path)
                } else {
                    path = Self.join("[\(frame.i)]", path)
                }
            }
            error.location.keyPath = path
            Self.dismantle(&stack)
            throw error
        } catch {
            if open > 0 { stack.append(top) }
            Self.dismantle(&stack)
            throw error
        }
    }

    /// Empties `stack`, freeing what its frames hold without recursion (a finished sub-tree may be deep).
    @inline(never)
    static func dismantle(_ stack: inout [Frame]) {
        var values: [PropertyListValue] = []
        for i in stack.indices {
            values.append(contentsOf: stack[i].elements)
            stack[i].elements = []
        }
        stack = []
        PropertyListValue.dismantle(all: &values)
    }

    /// The object the top frame reads next: element `i`, or for a dictionary key `i` or value `i`.
    @inline(__always)
    func nextReference(_ frame: inout Frame) throws -> Int {
        var p = frame.start + frame.i * refSize
        if frame.kind == .dictionary, frame.key != nil { p += frame.count * refSize }
        return try reference(at: p, object: frame.n)
    }

    /// Checks container `n` (marker at `offset`) at nesting `depth` and marks it on the current path.
    @inline(__always)
    func open(_ n: Int, at offset: Int, marker: UInt8, kind: BinaryPropertyListMarker, depth: Int, _ tree: inout TreeState) throws -> Frame {
        if kind == .orderedSet, !isLenient { try unsupportedMarker(marker, offset, n) }
        let (count, start) = try checkedContainer(marker, at: offset, object: n)
        guard depth < maximumDepth else { try tooDeep(n, offset) }
        tree.state[n] |= Self.onPath
        var frame = Frame(n: n, kind: kind, count: count, start: start)
        frame.elements.reserveCapacity(count)  // bounded: count * refSize bytes fit in the file
        if kind == .dictionary { frame.keys.reserveCapacity(count) }
        return frame
    }

    /// The entry count of container `n` (marker `marker` at `offset`) and where its references start, checked
    /// as decoding it checks them (CF __CFBinaryPlistCreateObjectFiltered: the count, and every reference,
    /// overflow-checked, inside the object area).
    @inline(__always)
    func checkedContainer(_ marker: UInt8, at offset: Int, object n: Int) throws -> (count: Int, start: Int) {
        let (count, start) = try countAndStart(BinaryPropertyListMarker.nibble(marker), at: offset, object: n)
        switch BinaryPropertyListMarker(byte: marker) {
        case .dictionary?:
            let (twice, overflow) = count.multipliedReportingOverflow(by: 2)
            try requireElements(overflow ? Int.max : twice, of: refSize, at: start, object: n, "dictionary reference")
        case .array?: try requireElements(count, of: refSize, at: start, object: n, "array")
        default: try requireElements(count, of: refSize, at: start, object: n, "set")
        }
        return (count, start)
    }

    /// The value of a complete container; takes it off the current path and memoizes it when shared.
    @inline(__always)
    func close(_ frame: consuming Frame, _ tree: inout TreeState) -> PropertyListValue {
        let v: PropertyListValue
        switch frame.kind {
        case .array: v = .array(frame.elements)
        case .dictionary: v = Self.makeDictionary(frame.keys, frame.elements)
        default: v = .set(frame.elements)
        }
        tree.state[frame.n] &= ~Self.onPath
        memoize(frame.n, v, &tree)
        return v
    }

    /// Keeps decoded object `n` for its next reference when it is shared.
    @inline(__always)
    func memoize(_ n: Int, _ v: PropertyListValue, _ tree: inout TreeState) {
        let st = tree.state[n]
        if st & 3 >= Self.shared, tree.memo.count < Self.slotLimit {
            if tree.slots.isEmpty { tree.slots = Array(repeating: 0, count: objectCount) }
            tree.slots[n] = UInt32(tree.memo.count)
            tree.memo.append(v)
            tree.state[n] = st | Self.memoized
        }
    }

    /// Whether an object with `marker` decodes without allocating (booleans, numbers, dates, UIDs, ASCII
    /// strings of up to 14 bytes, which Swift keeps inline): such objects are decoded at every reference
    /// instead of being memoized.
    @inline(__always)
    static func decodesWithoutAllocating(_ marker: UInt8) -> Bool {
        switch marker >> 4 {
        case 0x0, 0x1, 0x2, 0x3, 0x8: return true
        case 0x5: return marker & 0x0F != BinaryPropertyListMarker.extendedCount
        default: return false
        }
    }

    /// CF __CFBinaryPlistCreateObjectFiltered keeps the offsets on the current path and fails on one met
    /// again (Foundation on Linux agrees; plistlib builds a self-containing list).
    @inline(never)
    func cycleError(_ n: Int) throws -> Never {
        throw PropertyListError(.cycle, "bplist: container contains itself (object \(n) is its own ancestor)",
                          at: .init(byteOffset: offset(of: n), objectNumber: n))
    }

    /// Decodes an array (0xAn), ordered set (0xBn) or set (0xCn), marked on the current path while its
    /// elements are read.
    @inline(never)
    func array(_ n: Int, at offset: Int, marker: UInt8, depth: Int, _ tree: inout TreeState) throws -> PropertyListValue {
        let isArray = BinaryPropertyListMarker(byte: marker) == .array
        let (count, start) = try countAndStart(BinaryPropertyListMarker.nibble(marker), at: offset, object: n)
        try requireElements(count, of: refSize, at: start, object: n, isArray ? "array" : "set")
        guard depth < maximumDepth else { try tooDeep(n, offset) }
        tree.state[n] |= Self.onPath
        var elements: [PropertyListValue] = []
        elements.reserveCapacity(count)  // bounded: count * refSize bytes fit in the file
        var p = start
        var i = 0
        do {
            while i < count {
                let r = try reference(at: p, object: n)
                elements.append(try value(r, depth: depth + 1, &tree))
                p += refSize
                i += 1
            }
        } catch {
            PropertyListValue.dismantle(all: &elements)  // a finished element may be deep
            try Self.rethrow(error, index: i)
        }
        let v: PropertyListValue = isArray ? .array(elements) : .set(elements)
        tree.state[n] &= ~Self.onPath
        memoize(n, v, &tree)
        return v
    }

    /// Decodes a dictionary (0xDn), marked on the current path while its keys and values are read.
    @inline(never)
    func dictionary(_ n: Int, at offset: Int, marker: UInt8, depth: Int, _ tree: inout TreeState) throws -> PropertyListValue {
        let (count, start) = try countAndStart(BinaryPropertyListMarker.nibble(marker), at: offset, object: n)
        let (twice, overflow) = count.multipliedReportingOverflow(by: 2)
        try requireElements(overflow ? Int.max : twice, of: refSize, at: start, object: n, "dictionary reference")
        guard depth < maximumDepth else { try tooDeep(n, offset) }
        tree.state[n] |= Self.onPath
        // Dictionaries whose keys are the same objects or strings as an earlier one's share its keys (and index).
        // (A copy: decoding the values below may replace the cache's entries.)
        // (Both hashes of a dictionary whose keys are read are kept: the same key objects or the same strings.)
        var miss: KeySetMiss?
        var template: PropertyListDictionary?
        if count > 0 { (template, miss) = findKeySet(at: start, count: count, tree) }
        var keys: [String] = []
        var values: [PropertyListValue] = []
        let valuesStart = start + count * refSize
        var i = 0
        var key: String?
        do {
            if template != nil {
                // The keys were read (as distinct strings) for that dictionary: only the values are new.
                // (The key of a value that fails is taken from the template below, not copied here per entry.)
                values.reserveCapacity(count)  // bounded: 2 * count * refSize bytes fit in the file
                while i < count {
                    let vr = try reference(at: valuesStart + i * refSize, object: n)
                    values.append(try value(vr, depth: depth + 1, &tree))
                    i += 1
                }
            } else {
                keys.reserveCapacity(count)  // bounded: 2 * count * refSize bytes fit in the file
                values.reserveCapacity(count)
                while i < count {
                    key = nil
                    let kp = start + i * refSize
                    let kr = try reference(at: kp, object: n)
                    let keyValue = try value(kr, depth: depth + 1, &tree)
                    guard case .string(let k) = keyValue else {
                        let kind = keyValue.kindName
                        PropertyListValue.dismantle(consume keyValue)  // a container key may be deep
                        try Self.keyKindError(kind, kp, n)
                    }
                    key = k
                    let vr = try reference(at: valuesStart + i * refSize, object: n)
                    values.append(try value(vr, depth: depth + 1, &tree))
                    keys.append(k)
                    i += 1
                }
            }
        } catch {
            PropertyListValue.dismantle(all: &values)  // a finished value may be deep
            if let known = template?.keys, i < known.count { key = known[i] }
            try Self.rethrow(error, key: key, index: i)
        }
        let v: PropertyListValue
        if let template {
            v = .dictionary(PropertyListDictionary(keysOf: template, values: values))
        } else {
            v = Self.makeDictionary(keys, values)
            if let miss, case .dictionary(let d) = v, d.count == count {
                if let prints = miss.prints { rememberKeySet(d, at: start, hash: prints, prints: miss.words, &tree) }
                rememberKeySet(d, at: start, hash: miss.references, prints: miss.words, &tree)
            }
        }
        tree.state[n] &= ~Self.onPath
        memoize(n, v, &tree)
        return v
    }

    @inline(never)
    static func makeDictionary(_ keys: [String], _ values: [PropertyListValue]) -> PropertyListValue {
        .dictionary(PropertyListDictionary(keys: keys, values: values))
    }

    @inline(never)
    static func containerKeyError(_ kind: BinaryPropertyListMarker, _ p: Int, _ n: Int) throws -> Never {
        throw PropertyListError(.invalidKey, "bplist: dictionary key is a \(kind.containerName), not a string",
                          at: .init(byteOffset: p, objectNumber: n))
    }

    /// A dictionary key that is not a string: Foundation on Linux and CF take any non-collection key, but
    /// the value model keys dictionaries by string and Apple's writers refuse other keys
    /// (PropertyListSerialization cannot write `[1: "a"]`).
    @inline(never)
    static func keyKindError(_ kind: String, _ p: Int, _ n: Int) throws -> Never {
        throw PropertyListError(.invalidKey, "bplist: dictionary key is a \(kind), not a string",
                          at: .init(byteOffset: p, objectNumber: n))
    }

    @inline(never)
    static func keyError(_ key: PropertyListValue, _ p: Int, _ n: Int) throws -> Never {
        throw PropertyListError(.invalidKey, "bplist: dictionary key is a \(key.kindName), not a string",
                          at: .init(byteOffset: p, objectNumber: n))
    }

    /// The caller's limit (``PropertyListReadingOptions/maximumDepth``), as CF's depth limit (512 on macOS
    /// and Linux, 128 on iOS).
    @inline(never)
    func tooDeep(_ n: Int, _ offset: Int) throws -> Never {
        throw PropertyListError(.tooDeep, "bplist: containers nested deeper than the limit of \(maximumDepth)",
                          at: .init(byteOffset: offset, objectNumber: n))
    }

    // MARK: - Key paths

    /// Throws `error` with `[index]` put in front of its key path.
    @inline(never)
    static func rethrow(_ error: any Error, index: Int) throws -> Never {
        guard var error = error as? PropertyListError else { throw error }
        error.location.keyPath = join("[\(index)]", error.location.keyPath)
        throw error
    }

    /// Throws `error` with the dictionary key (or `<key i>` while the key itself was being read) in front
    /// of its key path.
    @inline(never)
    static func rethrow(_ error: any Error, key: String?, index: Int) throws -> Never {
        guard var error = error as? PropertyListError else { throw error }
        error.location.keyPath = join(key ?? "<key \(index)>", error.location.keyPath)
        throw error
    }

    /// `outer` followed by `inner` (`"[3]"` + `"NS.keys"` = `"[3].NS.keys"`).
    static func join(_ outer: String, _ inner: String?) -> String {
        guard let inner, !inner.isEmpty else { return outer }
        return inner.hasPrefix("[") ? outer + inner : outer + "." + inner
    }
}
