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

    /// The hash of the `count` key references at `start` (inside the object area) by what each key is:
    /// its ``keyPrint(of:)``, or nil when a reference is not below the object count (decoding it throws).
    /// Keys that are the same strings stored with the same bytes (Foundation's writer stores every
    /// dictionary's keys again), or the same objects (an archive's writer shares them), hash alike.
    ///
    /// - Parameter words: where to keep each key's print too (two words per key, `2 * count` of them), if given.
    @inline(__always)
    func keySetHash(at start: Int, count: Int, keeping words: UnsafeMutableBufferPointer<UInt64>? = nil) -> UInt64? {
        var h = UInt64(truncatingIfNeeded: count) &* 0x9E37_79B9_7F4A_7C15
        var p = start
        for i in 0 ..< count {
            let r = Self.loadBigEndian(beforeTrailer: base + p, width: refSize)
            guard r < UInt64(objectCount) else { return nil }
            let (low, high) = keyPrint(of: Int(r))
            if let words {
                words[2 &* i] = low
                words[2 &* i &+ 1] = high
            }
            h = (h ^ low) &* 0xBF58_476D_1CE4_E5B9
            h = (h ^ high ^ (h >> 31)) &* 0x94D0_49BB_1331_11EB
            p += refSize
        }
        return h
    }

    /// The most keys a dictionary may have for its key prints to be kept on the stack while it is looked
    /// up (see ``TreeState/keySetPrints``); larger ones are looked up by the hash alone.
    static let printedKeyLimit = 32

    /// The hash of the `count` key references at `start` (inside the object area) themselves: dictionaries
    /// whose keys are the same objects (an archive's writer shares them) hash alike, without a look at
    /// the keys (the cheaper look-up, tried first).
    @inline(__always)
    func keyReferenceHash(at start: Int, count: Int) -> UInt64 {
        var h = UInt64(truncatingIfNeeded: count) &* 0xBF58_476D_1CE4_E5B9
        var p = start
        for _ in 0 ..< count {
            h = (h ^ Self.loadBigEndian(beforeTrailer: base + p, width: refSize)) &* 0x9E37_79B9_7F4A_7C15
            p += refSize
        }
        return h ^ (h >> 29)
    }

    /// The first of the two slots in ``TreeState/keySets`` where a dictionary whose keys have `hash` is kept
    /// (two-way: dictionaries of two key orders whose hashes share a slot do not keep replacing each other).
    @inline(__always)
    static func keySetSlot(_ hash: UInt64, slots: Int) -> Int { Int(truncatingIfNeeded: hash >> 40) & (slots - 2) }

    /// How many slots ``TreeState/keySets`` has for a file of `objectCount` objects: a power of two from 16
    /// (a small file allocates little) to 4,096 (a file of many dictionaries keeps a few hundred key orders
    /// with few of them sharing a pair of slots).
    static func keySetSlots(objectCount: Int) -> Int {
        var slots = 16
        while slots < 4096, slots * 64 < objectCount { slots *= 2 }
        return slots
    }

    /// A dictionary read before whose keys are the same strings as the `count` key references at `start`
    /// (so all distinct), found by their `hash` (``keySetHash(at:count:keeping:)`` or ``keyReferenceHash(at:count:)``),
    /// or nil. Only what is inside the object area is compared; keys that do not match are decoded (and
    /// checked) the ordinary way.
    ///
    /// - Parameter printed: the prints of these keys (``keySetHash(at:count:keeping:)``), compared with those
    ///   kept for the slot when it has them (equal prints are equal keys: see ``sameKeys(_:_:count:)``).
    @inline(__always)
    func keySet(_ hash: UInt64, at start: Int, count: Int, _ tree: borrowing TreeState,
                printed: UnsafeMutableBufferPointer<UInt64>? = nil) -> PropertyListDictionary? {
        guard !tree.keySets.isEmpty else { return nil }
        let first = Self.keySetSlot(hash, slots: tree.keySets.count)
        for slot in first ... first + 1 {
            guard tree.keySetHashes[slot] == hash, let d = tree.keySets[slot], d.count == count else { continue }
            if let printed, tree.keySetPrints[slot].count == printed.count {
                if Self.samePrints(printed, tree.keySetPrints[slot]) { return d }
            } else if sameKeys(start, tree.keySetStarts[slot], count: count) {
                return d
            }
        }
        return nil
    }

    /// Whether `printed` holds the same words as `kept` (of the same count).
    @inline(__always)
    static func samePrints(_ printed: UnsafeMutableBufferPointer<UInt64>, _ kept: [UInt64]) -> Bool {
        kept.withUnsafeBufferPointer { kept in
            var differ: UInt64 = 0
            for i in 0 ..< Swift.min(kept.count, printed.count) { differ |= kept[i] ^ printed[i] }
            return differ == 0
        }
    }

    /// A dictionary read before with the same keys as the `count` (1 or more) key references at `start`,
    /// by ``keySet(_:at:count:_:printed:)``, first by the references themselves, then by the keys'
    /// prints; or nil with what ``rememberKeySet(_:at:hash:prints:_:)`` needs to keep this one's keys.
    @inline(__always)
    func findKeySet(at start: Int, count: Int, _ tree: borrowing TreeState)
        -> (template: PropertyListDictionary?, miss: KeySetMiss?) {
        let references = keyReferenceHash(at: start, count: count)
        if let d = keySet(references, at: start, count: count, tree) { return (d, nil) }
        guard count <= Self.printedKeyLimit else {
            let prints = keySetHash(at: start, count: count)
            if let d = prints.flatMap({ keySet($0, at: start, count: count, tree) }) { return (d, nil) }
            return (nil, KeySetMiss(references: references, prints: prints, words: []))
        }
        return withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 2 * count) { words in
            guard let prints = keySetHash(at: start, count: count, keeping: words) else {
                return (nil, KeySetMiss(references: references, prints: nil, words: []))
            }
            if let d = keySet(prints, at: start, count: count, tree, printed: words) { return (d, nil) }
            return (nil, KeySetMiss(references: references, prints: prints, words: Array(words)))
        }
    }

    /// What a dictionary whose key set was not found keeps for ``rememberKeySet(_:at:hash:prints:_:)``.
    struct KeySetMiss {
        var references: UInt64
        var prints: UInt64?
        /// The keys' prints, two words per key (empty past ``printedKeyLimit`` keys).
        var words: [UInt64]
    }

    /// What names key object `r` (below the object count): for an ASCII string of up to 14 bytes or a
    /// UTF-16 string of up to 7 units whose bytes lie in the object area, its marker and bytes (the
    /// marker in the low byte of `low`, zero past its end), which decode to one string whatever object
    /// holds them; for any other object `(0, r)`, the object itself (no string's print has a zero `low`).
    @inline(__always)
    func keyPrint(of r: Int) -> (low: UInt64, high: UInt64) {
        let offset = offset(of: r)
        let length = Self.printLength(base.load(fromByteOffset: offset, as: UInt8.self))
        guard length > 0, offset + length <= tableOffset else { return (0, UInt64(r)) }
        // Bounds: `offset` is inside the object area, which the 32-byte trailer follows, so the 16 bytes at
        // `offset` are inside the buffer; the bytes past the string's end (length <= 15) are masked off.
        let low = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        let high = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset + 8, as: UInt64.self))
        return (low & Self.byteMask(length), high & Self.byteMask(length - 8))
    }

    /// The length with its marker of a string object that ``keyPrint(of:)`` holds whole (an ASCII string
    /// of up to 14 bytes, a UTF-16 string of up to 7 units), or 0.
    @inline(__always)
    static func printLength(_ marker: UInt8) -> Int {
        let units = Int(BinaryPropertyListMarker.nibble(marker))
        switch marker >> 4 {
        case BinaryPropertyListMarker.asciiString.rawValue where units != Int(BinaryPropertyListMarker.extendedCount):
            return 1 + units
        case BinaryPropertyListMarker.utf16String.rawValue where units <= 7: return 1 + 2 * units
        default: return 0
        }
    }

    /// A mask of the low `bytes` bytes of a word (none when `bytes <= 0`, all when `bytes >= 8`).
    @inline(__always)
    static func byteMask(_ bytes: Int) -> UInt64 {
        bytes <= 0 ? 0 : UInt64.max &>> UInt64(truncatingIfNeeded: 64 &- 8 &* Swift.min(bytes, 8))
    }

    /// Whether the `count` key references at `a` name the same strings as those at `b`, a dictionary
    /// whose keys were read (its references are valid and its keys are strings): the same objects, or
    /// strings with the same ``keyPrint(of:)``.
    @inline(__always)
    func sameKeys(_ a: Int, _ b: Int, count: Int) -> Bool {
        for i in 0 ..< count {
            let ra = Self.loadBigEndian(beforeTrailer: base + a + i * refSize, width: refSize)
            let rb = Self.loadBigEndian(beforeTrailer: base + b + i * refSize, width: refSize)
            if ra == rb { continue }
            guard ra < UInt64(objectCount), samePrint(Int(ra), as: Int(rb)) else { return false }
        }
        return true
    }

    /// Whether key object `x` (below the object count) has the same whole ``keyPrint(of:)`` as `y`, a key
    /// read before: the same marker and bytes, compared in place.
    @inline(__always)
    func samePrint(_ x: Int, as y: Int) -> Bool {
        let ox = offset(of: x), oy = offset(of: y)
        let marker = base.load(fromByteOffset: ox, as: UInt8.self)
        guard marker == base.load(fromByteOffset: oy, as: UInt8.self) else { return false }
        let length = Self.printLength(marker)
        guard length > 0, ox + length <= tableOffset else { return false }
        // Bounds: both offsets are inside the object area, which the 32-byte trailer follows (as in keyPrint).
        let lowX = base.loadUnaligned(fromByteOffset: ox, as: UInt64.self)
        let lowY = base.loadUnaligned(fromByteOffset: oy, as: UInt64.self)
        if length <= 8 { return UInt64(littleEndian: lowX ^ lowY) & Self.byteMask(length) == 0 }
        guard lowX == lowY else { return false }
        let highX = base.loadUnaligned(fromByteOffset: ox + 8, as: UInt64.self)
        let highY = base.loadUnaligned(fromByteOffset: oy + 8, as: UInt64.self)
        return UInt64(littleEndian: highX ^ highY) & Self.byteMask(length - 8) == 0
    }

    /// Keeps `d`, whose key references are at `start` and hash to `hash`, for ``keySet(_:at:count:_:)``
    /// (in place of the dictionary in its slot).
    func rememberKeySet(_ d: PropertyListDictionary, at start: Int, hash: UInt64, prints: [UInt64], _ tree: inout TreeState) {
        if tree.keySets.isEmpty {
            let slots = Self.keySetSlots(objectCount: objectCount)
            tree.keySets = Array(repeating: nil, count: slots)
            tree.keySetStarts = Array(repeating: 0, count: slots)
            tree.keySetHashes = Array(repeating: 0, count: slots)
            tree.keySetPrints = Array(repeating: [], count: slots)
        }
        // The newer of the two slots' dictionaries moves to the second.
        let slot = Self.keySetSlot(hash, slots: tree.keySets.count)
        tree.keySets[slot + 1] = tree.keySets[slot]
        tree.keySetStarts[slot + 1] = tree.keySetStarts[slot]
        tree.keySetHashes[slot + 1] = tree.keySetHashes[slot]
        tree.keySetPrints.swapAt(slot, slot + 1)
        tree.keySets[slot] = d
        tree.keySetStarts[slot] = start
        tree.keySetHashes[slot] = hash
        tree.keySetPrints[slot] = prints
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
