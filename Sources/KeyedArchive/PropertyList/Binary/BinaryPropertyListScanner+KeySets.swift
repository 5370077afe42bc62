#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Sharing the keys of dictionaries with the same key set while decoding a whole tree: the key-set hash,
// the key prints and the table of key sets met (BinaryPropertyListScanner+Containers.swift walks the tree).
extension BinaryPropertyListScanner {
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
}
