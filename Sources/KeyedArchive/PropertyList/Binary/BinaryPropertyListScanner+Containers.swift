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
        let offset = offset(of: n)
        let marker = base.load(fromByteOffset: offset, as: UInt8.self)
        // Cheaper to decode again than to look up (and never on the path, never exponential).
        if Self.decodesWithoutAllocating(marker) { return try scalar(n, at: offset, marker: marker) }
        let st = tree.state[n]
        if st & Self.onPath != 0 { try cycleError(n) }
        if st & Self.memoized != 0 { return tree.memo[Int(tree.slots[n])] }
        switch marker >> 4 {
        case BinaryPropertyListMarker.dictionary.rawValue: return try dictionary(n, at: offset, marker: marker, depth: depth, &tree)
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
        let (count, start) = try countAndStart(BinaryPropertyListMarker.nibble(marker), at: offset, object: n)
        if kind == .dictionary {
            let (twice, overflow) = count.multipliedReportingOverflow(by: 2)
            try requireElements(overflow ? Int.max : twice, of: refSize, at: start, object: n, "dictionary reference")
        } else {
            try requireElements(count, of: refSize, at: start, object: n, kind == .array ? "array" : "set")
        }
        guard depth < maximumDepth else { try tooDeep(n, offset) }
        tree.state[n] |= Self.onPath
        var frame = Frame(n: n, kind: kind, count: count, start: start)
        frame.elements.reserveCapacity(count)  // bounded: count * refSize bytes fit in the file
        if kind == .dictionary { frame.keys.reserveCapacity(count) }
        return frame
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

    /// The index in `keySets` of a recent dictionary whose keys are the same strings as the `count` key
    /// references at `start` (so all distinct), or nil: the same key objects (an archive's writer shares
    /// them), or short string objects stored with the same bytes (Foundation's writer stores every
    /// dictionary's keys again). Only what is inside the object area is compared; a reference or key that
    /// does not match is decoded (and checked) the ordinary way.
    ///
    /// Most dictionaries match none (Foundation's writer stores each dictionary's keys in its own order),
    /// so each candidate is first checked by its first key's ``keyPrint(at:)``, one compare.
    @inline(__always)
    func keySet(at start: Int, count: Int, _ tree: borrowing TreeState) -> Int? {
        guard !tree.keySetCounts.isEmpty else { return nil }
        let first = Self.loadBigEndian(base + start, width: refSize)
        guard first < UInt64(objectCount) else { return nil }
        let print = keyPrint(at: offset(of: Int(first)))
        for j in tree.keySetCounts.indices
        where tree.keySetCounts[j] == count && tree.keySetPrints[j] == print && sameKeys(start, tree.keySetStarts[j], count: count) {
            return j
        }
        return nil
    }

    /// The marker and first bytes of a short string object at `offset` (at most 8 bytes, none past its
    /// end), or 0 for any other object: equal strings stored with the same bytes have equal prints.
    @inline(__always)
    func keyPrint(at offset: Int) -> UInt64 {
        let marker = base.load(fromByteOffset: offset, as: UInt8.self)
        let units = Int(BinaryPropertyListMarker.nibble(marker))
        let length: Int
        switch marker >> 4 {
        case BinaryPropertyListMarker.asciiString.rawValue: length = 1 + units
        case BinaryPropertyListMarker.utf16String.rawValue: length = 1 + 2 * units
        default: return 0
        }
        // Bounds: `offset` is inside the object area, which the 32-byte trailer follows, so the 8 bytes
        // at `offset` are inside the buffer; the bytes past the string's end are masked off.
        let word = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        return length >= 8 ? word : word & (UInt64(1) << (8 * length) &- 1)
    }

    /// Whether the `count` key references at `a` name the same strings as those at `b`, a dictionary
    /// whose keys were read (its references are valid and its keys are strings).
    @inline(__always)
    func sameKeys(_ a: Int, _ b: Int, count: Int) -> Bool {
        for i in 0 ..< count {
            let ra = Self.loadBigEndian(base + a + i * refSize, width: refSize)
            let rb = Self.loadBigEndian(base + b + i * refSize, width: refSize)
            if ra == rb { continue }
            guard ra < UInt64(objectCount), sameShortString(Int(ra), as: Int(rb)) else { return false }
        }
        return true
    }

    /// Whether object `x` is an ASCII or UTF-16 string of at most 14 units stored with the same marker
    /// and bytes as `y`, a string already decoded (so its bytes are inside the object area; `x`'s are
    /// checked here). Equal bytes decode to equal strings.
    @inline(__always)
    func sameShortString(_ x: Int, as y: Int) -> Bool {
        let ox = offset(of: x), oy = offset(of: y)
        let marker = base.load(fromByteOffset: ox, as: UInt8.self)
        guard marker == base.load(fromByteOffset: oy, as: UInt8.self) else { return false }
        let units = Int(BinaryPropertyListMarker.nibble(marker))
        guard units != Int(BinaryPropertyListMarker.extendedCount) else { return false }
        let length: Int
        switch marker >> 4 {
        case BinaryPropertyListMarker.asciiString.rawValue: length = units
        case BinaryPropertyListMarker.utf16String.rawValue: length = 2 * units
        default: return false
        }
        // Bounds: x's marker and bytes must end inside the object area (ox < tableOffset, length <= 28).
        guard ox + 1 + length <= tableOffset else { return false }
        for i in 1 ... length + 1 where base.load(fromByteOffset: ox + i, as: UInt8.self) != base.load(fromByteOffset: oy + i, as: UInt8.self) {
            return false
        }
        return true
    }

    /// Remembers `d`, whose key references are at `start`, for ``keySet(at:count:)`` (the last 4).
    func rememberKeySet(_ d: PropertyListDictionary, at start: Int, _ tree: inout TreeState) {
        // The first key reference was valid: the dictionary's keys were read.
        let print = keyPrint(at: offset(of: Int(Self.loadBigEndian(base + start, width: refSize))))
        if tree.keySets.count < 4 {
            tree.keySets.append(d)
            tree.keySetStarts.append(start)
            tree.keySetCounts.append(d.count)
            tree.keySetPrints.append(print)
        } else {
            tree.keySets[tree.nextKeySet] = d
            tree.keySetStarts[tree.nextKeySet] = start
            tree.keySetCounts[tree.nextKeySet] = d.count
            tree.keySetPrints[tree.nextKeySet] = print
            tree.nextKeySet = (tree.nextKeySet + 1) & 3
        }
    }

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
        // Dictionaries whose keys are the same objects as a recent one's share its keys (and index).
        // (A copy: decoding the values below may replace the cache's entries.)
        let template = count > 0 ? keySet(at: start, count: count, tree).map { tree.keySets[$0] } : nil
        var keys: [String] = []
        var values: [PropertyListValue] = []
        if template == nil { keys.reserveCapacity(count) }  // bounded: 2 * count * refSize bytes fit in the file
        values.reserveCapacity(count)
        let valuesStart = start + count * refSize
        var i = 0
        var key: String?
        do {
            if let template {
                // The keys were read (as distinct strings) for that dictionary: only the values are new.
                let known = template.keys
                while i < count {
                    key = known[i]
                    let vr = try reference(at: valuesStart + i * refSize, object: n)
                    values.append(try value(vr, depth: depth + 1, &tree))
                    i += 1
                }
            } else {
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
            try Self.rethrow(error, key: key, index: i)
        }
        let v: PropertyListValue
        if let template {
            v = .dictionary(PropertyListDictionary(keysOf: template, values: values))
        } else {
            v = Self.makeDictionary(keys, values)
            if count > 0, case .dictionary(let d) = v, d.count == count { rememberKeySet(d, at: start, &tree) }
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
