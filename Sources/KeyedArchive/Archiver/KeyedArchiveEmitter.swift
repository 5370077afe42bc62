#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Over 500 lines on purpose: the layout (renumbering, writing) reads the scalar pool, container table and
// reference runs the encoding half keeps private; a file apart would have to widen their access.

/// The objects of a keyed archive as ``KeyedArchiver`` produces them, kept compact, then laid out as `bplist00`.
///
/// The emitter builds no ``PropertyListValue`` tree (which ``BinaryPropertyListWriter`` would flatten, hash
/// and de-duplicate again) and writes exactly the bytes the writer writes for the tree of the same objects:
///
/// 1. **While encoding**, every scalar (string, number, data) is encoded once into `pool` and given a
///    scalar id; equal scalars share one id (the writer's byte-exact equality, through the shared
///    `BinaryPropertyListScalarPool`). A UID needs no table: its ref is its value with ``uidBit`` set.
///    Field keys are found through a cache, so they are not hashed per use either. Each container (an
///    object's dictionary, an `NS.objects` array, `$objects` itself) is a run of refs in one flat `refs`
///    buffer: a ref is a scalar id, a UID (``uidBit``) or a container id (``containerBit``).
/// 2. **``renumberDepthFirst(from:)``** gives the objects (UIDs) the order a depth-first reader meets
///    them, rewriting every UID ref.
/// 3. **``write(root:)``** feeds the containers to `BinaryPropertyListBuilder`, the layout
///    ``BinaryPropertyListWriter`` uses too (so the archive's bytes do not depend on which path made them):
///    it numbers the objects breadth-first from the root, taking each scalar's bytes from the pool (or
///    encoding each UID) on its first use, then writes the containers, the offset table and the trailer.
///
/// Neither step recurses, nothing is retained per scalar, and the only hashing is of scalars' bytes. The
/// pool, the output and the hash tables live in `LargeMemory` (huge pages where the system offers them).
struct KeyedArchiveEmitter {
    /// A scalar id, a UID with ``uidBit`` set, or a container id with ``containerBit`` set.
    typealias Ref = UInt32
    static let containerBit: Ref = 1 << 31
    static let uidBit: Ref = 1 << 30
    /// The number part of a ref; scalar ids, UIDs and container ids stay below it.
    static let limit = 1 << 30

    /// Every distinct scalar once, encoded; a scalar id is its id in the pool.
    private var pool = BinaryPropertyListScalarPool(capacity: 1 << 16, expectedCount: 1 << 12)
    private var poolIsAllocated = true
    /// Containers by id; `start < 0` until the container's refs are complete.
    private var containers: [Container] = []
    /// The refs of every container, one run per container (freed by ``discard()``; a buffer without the
    /// uniqueness check an `Array` makes on every append, in ``LargeMemory``).
    private var refs = BinaryPropertyListReferences(capacity: 1 << 12)
    /// `$objects`, by UID: the ref of each archived object.
    private var elements: [Ref] = []
    /// Set when 2^30 or more scalars, UIDs or containers were made (refs could not tell them apart).
    private(set) var tooLarge = false
    /// The number of UIDs, once `elements` has become the `$objects` container.
    private var elementCountAtEnd = 0
    /// The header bytes past the marker of every completed container (those of 15 or more entries).
    private var extendedHeaderBytes = 0

    private struct Container {
        var start: Int
        var count: Int
        var kind: BinaryPropertyListMarker
    }

    init() {
        pool.reserveCapacity(1 << 12)
    }

    /// Frees everything (the emitter cannot be used afterwards).
    mutating func discard() {
        if poolIsAllocated {
            pool.deallocate()
            poolIsAllocated = false
            refs.deallocate()
        }
        containers = []
    }

    // MARK: - Scalars

    /// The id of the scalar `encode` writes: an earlier identical scalar's id, or a new one.
    @inline(__always)
    private mutating func scalar(_ encode: (inout BinaryPropertyListOutput) -> Void) -> Ref {
        let id = pool.add(encode)
        if id >= Self.limit { tooLarge = true }
        return Ref(truncatingIfNeeded: id)
    }

    mutating func string(_ s: String) -> Ref { scalar { $0.appendString(s) } }
    mutating func integer(_ i: Int64) -> Ref { scalar { $0.appendInteger(i) } }
    mutating func integer(_ i: PropertyListInteger) -> Ref { scalar { $0.appendInteger(i) } }
    mutating func real(_ d: Double) -> Ref { scalar { $0.appendReal(d) } }
    mutating func float(_ f: Float) -> Ref { scalar { $0.appendFloat(f) } }
    mutating func bool(_ b: Bool) -> Ref { scalar { $0.appendBool(b) } }
    mutating func data(_ d: Data) -> Ref { scalar { $0.appendData(d) } }

    /// The ref of `UID(uid)`.
    @inline(__always)
    static func uid(_ uid: ArchiveObjectID) -> Ref { uidBit | Ref(truncatingIfNeeded: uid.rawValue) }

    // MARK: - Field keys

    /// A cached field key: its raw `String` bits and ids (`exact == .max` marks an empty slot).
    private struct CachedKey {
        var word0: UInt64 = 0
        var word1: UInt64 = 0
        var exact: Ref = .max
        var canonical: Ref = .max
    }

    /// Open-addressed cache from a key's raw `String` bits to its interned ids. Equal bits mean the same
    /// bytes (the same small-string contents, or the same storage object, which `cachedKeyStrings` keeps
    /// alive and therefore unchanged); different bits prove nothing, and take the slow path.
    private var keyCache = [CachedKey](repeating: CachedKey(), count: KeyedArchiveEmitter.keyCacheSize)
    private var cachedKeyStrings: [String] = []
    private static let keyCacheSize = 1024
    /// Escaped key -> the id of its first spelling among the keys the archiver takes for the same field:
    /// equal as Swift strings (canonical equivalence) and of the same UTF-8 length.
    private var canonicalKeys: [SameField: Ref] = [:]
    /// Escaped key -> the id of its first spelling among keys equal as Swift strings (for `$top`).
    private var canonicalTopKeys: [String: Ref] = [:]

    /// A key compared as the archiver compares an object's field keys.
    private struct SameField: Hashable {
        var key: String
        static func == (a: SameField, b: SameField) -> Bool { a.key.utf8.count == b.key.utf8.count && a.key == b.key }
        func hash(into hasher: inout Hasher) { hasher.combine(key) }
    }

    /// The ids of a field key, escaped (`$` prefixed with another `$`): `exact` is the key string's scalar
    /// id (its bytes as written); `canonical` is equal for keys that the archiver takes for the same field,
    /// so that a repeated key replaces the earlier value: equal as Swift strings and of the same UTF-8
    /// length, the rule the archiver has always applied.
    @inline(__always)
    mutating func fieldKey(_ key: String) -> (exact: Ref, canonical: Ref) {
        guard MemoryLayout<String>.size == 16 else { return fieldKeySlow(key, slot: -1, 0, 0) }
        let (w0, w1) = withUnsafeBytes(of: key) {
            ($0.load(fromByteOffset: 0, as: UInt64.self), $0.load(fromByteOffset: 8, as: UInt64.self))
        }
        let mask = Self.keyCacheSize - 1
        var slot = Int(truncatingIfNeeded: BinaryPropertyListScalarTable.mix(w0 ^ (w1 &* 0x9E37_79B9_7F4A_7C15))) & mask
        return keyCache.withUnsafeBufferPointer { cache in
            while true {
                let entry = cache[slot]
                if entry.exact == .max { return nil }
                if entry.word0 == w0 && entry.word1 == w1 { return (entry.exact, entry.canonical) }
                slot = (slot + 1) & mask
            }
        } ?? fieldKeySlow(key, slot: slot, w0, w1)
    }

    @inline(never)
    private mutating func fieldKeySlow(_ key: String, slot: Int, _ w0: UInt64, _ w1: UInt64) -> (exact: Ref, canonical: Ref) {
        let escaped = key.utf8.first == UInt8(ascii: "$") ? "$" + key : key
        let exact = string(escaped)
        let canonical: Ref
        if let known = canonicalKeys[SameField(key: escaped)] {
            canonical = known
        } else {
            canonicalKeys[SameField(key: escaped)] = exact
            canonical = exact
        }
        guard slot >= 0 else { return (exact, canonical) }
        if cachedKeyStrings.count >= Self.keyCacheSize / 2 {
            // Keys that are not literals (built anew for each object) could fill the cache: start again.
            for i in keyCache.indices { keyCache[i] = CachedKey() }
            cachedKeyStrings.removeAll(keepingCapacity: true)
            return (exact, canonical)
        }
        keyCache[slot] = CachedKey(word0: w0, word1: w1, exact: exact, canonical: canonical)
        cachedKeyStrings.append(key)
        return (exact, canonical)
    }

    /// The id shared by `$top` keys equal to this one as Swift strings (`$top` was a
    /// ``PropertyListDictionary``, which compares keys that way), for a key whose exact id is `exact`.
    mutating func topKeyClass(_ key: String, exact: Ref) -> Ref {
        let escaped = key.utf8.first == UInt8(ascii: "$") ? "$" + key : key
        if let known = canonicalTopKeys[escaped] { return known }
        canonicalTopKeys[escaped] = exact
        return exact
    }

    // MARK: - Objects and containers

    /// Adds an object to `$objects` and returns its UID.
    @inline(__always)
    mutating func appendElement(_ ref: Ref) -> ArchiveObjectID {
        elements.append(ref)
        if elements.count > Self.limit { tooLarge = true }
        return ArchiveObjectID(elements.count - 1)
    }

    /// A new container whose refs are given later with one of the `complete` methods (until then it is
    /// an empty array).
    @inline(__always)
    mutating func newContainer() -> ArchiveContainerID {
        containers.append(Container(start: -1, count: 0, kind: .array))
        if containers.count > Self.limit { tooLarge = true }
        return ArchiveContainerID(containers.count - 1)
    }

    /// Adds a container to `$objects` (its refs come later) and returns its UID and container id.
    @inline(__always)
    mutating func appendContainerElement() -> (uid: ArchiveObjectID, container: ArchiveContainerID) {
        let container = newContainer()
        return (appendElement(Self.ref(container: container)), container)
    }

    /// The ref of a container.
    @inline(__always)
    static func ref(container: ArchiveContainerID) -> Ref { containerBit | Ref(truncatingIfNeeded: container.rawValue) }

    /// Records the refs of a container being completed (and the bytes of a header longer than its marker).
    @inline(__always)
    private mutating func setContainer(_ container: ArchiveContainerID, _ c: Container) {
        containers[container.rawValue] = c
        if c.count >= Int(BinaryPropertyListMarker.extendedCount) {
            extendedHeaderBytes += BinaryPropertyListOutput.headerSize(c.count) - 1
        }
    }

    /// Completes a dictionary from parallel keys and values.
    mutating func completeDictionary(_ container: ArchiveContainerID, keys: [Ref], values: [Ref]) {
        setContainer(container, Container(start: refs.count, count: keys.count, kind: .dictionary))
        keys.withUnsafeBufferPointer { refs.append(contentsOf: $0) }
        values.withUnsafeBufferPointer { refs.append(contentsOf: $0) }
    }

    /// A field of the object being written: its key's exact and canonical ids (see ``fieldKey(_:)``) and its value.
    struct Field {
        var key: Ref
        var canonical: Ref
        var value: Ref
    }

    /// Completes a dictionary from the fields of an object (their keys, then their values).
    mutating func completeDictionary(_ container: ArchiveContainerID, fields: [Field]) {
        setContainer(container, Container(start: refs.count, count: fields.count, kind: .dictionary))
        let room = refs.appendRoom(2 * fields.count)
        fields.withUnsafeBufferPointer { fields in
            for i in fields.indices {
                room[i] = fields[i].key
                room[fields.count + i] = fields[i].value
            }
        }
    }

    /// Completes a dictionary of two entries.
    @inline(__always)
    mutating func completeDictionary(_ container: ArchiveContainerID, _ key1: Ref, _ value1: Ref, _ key2: Ref, _ value2: Ref) {
        setContainer(container, Container(start: refs.count, count: 2, kind: .dictionary))
        refs.append(key1)
        refs.append(key2)
        refs.append(value1)
        refs.append(value2)
    }

    /// Completes a dictionary of three entries.
    mutating func completeDictionary(_ container: ArchiveContainerID, _ key1: Ref, _ value1: Ref, _ key2: Ref, _ value2: Ref,
                                     _ key3: Ref, _ value3: Ref) {
        setContainer(container, Container(start: refs.count, count: 3, kind: .dictionary))
        refs.append(key1)
        refs.append(key2)
        refs.append(key3)
        refs.append(value1)
        refs.append(value2)
        refs.append(value3)
    }

    /// Completes an array from `elements[from...]`, every `stride`-th ref starting there.
    mutating func completeArray(_ container: ArchiveContainerID, _ source: [Ref], from start: Int, stride: Int = 1) {
        let count = (source.count - start + stride - 1) / stride
        setContainer(container, Container(start: refs.count, count: count, kind: .array))
        var i = start
        while i < source.count {
            refs.append(source[i])
            i += stride
        }
    }

    /// Replaces the value of entry `index` of a completed dictionary.
    mutating func setDictionaryValue(_ container: ArchiveContainerID, at index: Int, to value: Ref) {
        let c = containers[container.rawValue]
        guard c.start >= 0, c.kind == .dictionary, index < c.count else { return }
        refs[c.start + c.count + index] = value
    }

    /// Renumbers the objects (UIDs) in the order a depth-first reader meets them, starting from the refs of
    /// the container `top` (`$top`): each object is numbered when first referenced and its own references
    /// follow before its siblings', the order Apple's recursive archiver gives. The archiver numbers objects
    /// breadth-first (its work queue keeps the stack flat); an unarchiver decodes depth-first (an object's
    /// initializer needs its fields), so in this order it reads the archive front to back instead of
    /// jumping between regions. `$null` stays 0; objects nothing reaches keep their relative order at the end.
    ///
    /// The walk meets the objects in random order. What it needs of an object (its new number, its ref, the
    /// range of refs its container walks) sits in one ``RenumberSlot``, filled in object order before the
    /// walk, so meeting an object is one random load instead of three dependent ones (the new number, the
    /// ref, the container's record); and on entering a container, the slots of the objects it refers to are
    /// prefetched, then the refs of those not numbered yet, so that the misses of siblings overlap (see
    /// ``fetchSlots(_:_:_:_:)``). `inlineRangeLimit` (tests only) is the largest refs
    /// position a slot holds; beyond it the walk reads the container's record.
    mutating func renumberDepthFirst(from top: ArchiveContainerID, inlineRangeLimit: Int = Int(clamping: UInt32.max - 1)) {
        let count = elements.count
        guard count > 1 else { return }
        var slots = makeRenumberSlots(inlineRangeLimit: inlineRangeLimit)
        var order = [Ref](repeating: 0, count: count)
        let refBuffer = refs.buffer
        containers.withUnsafeBufferPointer { containers in
            slots.withUnsafeMutableBufferPointer { slots in
                order.withUnsafeMutableBufferPointer { order in
                    let refs = refBuffer
                    // The container being walked: its next ref and end. Those it interrupted wait in
                    // `frames` (touched only on entering and leaving a container, not per ref).
                    var frames: [(next: Int, end: Int)] = []
                    frames.reserveCapacity(64)
                    slots[0].newUID = 0
                    order[0] = slots[0].element
                    var numbered = 1
                    var (next, end) = Self.walk(containers[top.rawValue]) ?? (0, 0)
                    Self.fetchSlots(refs, next, end, slots)
                    while true {
                        if next == end {
                            guard let resumed = frames.popLast() else { break }
                            (next, end) = resumed
                            continue
                        }
                        let ref = refs[next]
                        next += 1
                        var entered: (next: Int, end: Int)?
                        if ref & Self.containerBit != 0 {
                            entered = Self.walk(containers[Int(ref & ~Self.containerBit)])
                        } else if ref & Self.uidBit != 0 {
                            let uid = Int(ref & ~Self.uidBit)
                            guard uid < count else { continue }
                            let slot = slots[uid]
                            guard slot.newUID == .max else { continue }
                            slots[uid].newUID = UInt32(numbered)
                            order[numbered] = slot.element
                            numbered += 1
                            if slot.end == RenumberSlot.readRecord {
                                entered = Self.walk(containers[Int(slot.element & ~Self.containerBit)])
                            } else if slot.next != slot.end {
                                entered = (Int(slot.next), Int(slot.end))
                            }
                        }
                        if let entered {
                            // The interrupted container resumes afterwards (unless it has nothing left).
                            if next != end { frames.append((next, end)) }
                            (next, end) = entered
                            Self.fetchSlots(refs, next, end, slots)
                        }
                    }
                    for uid in 0 ..< count where slots[uid].newUID == .max {
                        slots[uid].newUID = UInt32(numbered)
                        order[numbered] = slots[uid].element
                        numbered += 1
                    }
                }
            }
        }
        elements = order
        slots.withUnsafeBufferPointer { slots in
            let refs = self.refs.mutableBuffer
            for i in refs.indices where refs[i] & (Self.containerBit | Self.uidBit) == Self.uidBit {
                let uid = Int(refs[i] & ~Self.uidBit)
                if uid < count { refs[i] = Self.uidBit | slots[uid].newUID }
            }
        }
    }

    /// What ``renumberDepthFirst(from:inlineRangeLimit:)`` needs of one object, in 16 bytes: its new number
    /// (`.max` until it has one), its ref (its element in `$objects`), and, when the ref is a completed
    /// container, the refs its walk enters (`next ..< end`; equal when there is nothing to enter, and
    /// `end == readRecord` when the positions do not fit in 32 bits: the walk then reads the record).
    private struct RenumberSlot {
        var newUID: UInt32
        var element: Ref
        var next: UInt32
        var end: UInt32
        static let readRecord = UInt32.max
    }

    /// Every object's ``RenumberSlot``, filled in object order (the containers' records are then read in
    /// about the order they were made).
    private func makeRenumberSlots(inlineRangeLimit: Int) -> [RenumberSlot] {
        let limit = min(inlineRangeLimit, Int(clamping: RenumberSlot.readRecord - 1))
        return elements.withUnsafeBufferPointer { elements in
            containers.withUnsafeBufferPointer { containers in
                [RenumberSlot](unsafeUninitializedCapacity: elements.count) { slots, initialized in
                    for uid in elements.indices {
                        let element = elements[uid]
                        var slot = RenumberSlot(newUID: .max, element: element, next: 0, end: 0)
                        if element & Self.containerBit != 0, let (next, end) = Self.walk(containers[Int(element & ~Self.containerBit)]) {
                            if end <= limit {
                                slot.next = UInt32(next)
                                slot.end = UInt32(end)
                            } else {
                                slot.end = RenumberSlot.readRecord
                            }
                        }
                        slots.initializeElement(at: uid, to: slot)
                    }
                    initialized = elements.count
                }
            }
        }
    }

    /// Prefetches the slots of the objects that the refs `next ..< end` (a container just entered) refer to,
    /// the first 16 of them: the walk meets them one by one, each after the subtree of the one before.
    @inline(__always)
    private static func fetchSlots(_ refs: UnsafeBufferPointer<Ref>, _ next: Int, _ end: Int,
                                   _ slots: UnsafeMutableBufferPointer<RenumberSlot>) {
        guard let base = slots.baseAddress, next < end, end <= refs.count else { return }
        for i in next ..< min(end, next + 16) {
            let r = refs[i]
            let uid = Int(r & ~uidBit)
            // Only UIDs of objects (containers and scalars are not in `slots`), within bounds.
            if r & (containerBit | uidBit) == uidBit, uid < slots.count { prefetch(UnsafeRawPointer(base + uid)) }
        }
        // Then (the slots' lines arriving together) the refs of each one not numbered yet.
        for i in next ..< min(end, next + 16) {
            let r = refs[i]
            let uid = Int(r & ~uidBit)
            guard r & (containerBit | uidBit) == uidBit, uid < slots.count else { continue }
            let slot = slots[uid]
            guard slot.newUID == .max, slot.next < slot.end, slot.end != RenumberSlot.readRecord,
                  Int(slot.end) <= refs.count, let refBase = refs.baseAddress else { continue }
            prefetch(UnsafeRawPointer(refBase + Int(slot.next)))
            prefetch(UnsafeRawPointer(refBase + Int(slot.end) - 1))
        }
    }

    /// The refs of a completed container that can refer to objects, as a range of `refs` (a dictionary's
    /// keys are scalars: only its values can).
    @inline(__always)
    private static func walk(_ c: Container) -> (next: Int, end: Int)? {
        guard c.start >= 0 else { return nil }
        return c.kind == .dictionary ? (c.start + c.count, c.start + 2 * c.count) : (c.start, c.start + c.count)
    }

    /// Makes each object whose encoding failed (its container never completed) the string `"$placeholder"`, as
    /// the archiver left it in the tree. Called before ``renumberDepthFirst(from:)``, which enters neither an
    /// incomplete container nor a string, so the objects get the same numbers; while the objects are still in
    /// the order they were made, in about the order of their containers, so both are read front to back
    /// (after renumbering, each object's record would be a random read).
    mutating func replaceUnfinishedObjects() {
        var placeholder: Ref?
        for (uid, ref) in elements.enumerated() where ref & Self.containerBit != 0 {
            if containers[Int(ref & ~Self.containerBit)].start < 0 {
                if placeholder == nil { placeholder = string("$placeholder") }
                elements[uid] = placeholder ?? 0
            }
        }
    }

    /// The `$objects` array (after ``replaceUnfinishedObjects()``).
    mutating func objectsArray() -> ArchiveContainerID {
        let container = newContainer()
        setContainer(container, Container(start: refs.count, count: elements.count, kind: .array))
        elements.withUnsafeBufferPointer { refs.append(contentsOf: $0) }
        elementCountAtEnd = elements.count
        elements = []
        return container
    }

    // MARK: - Layout

    /// An upper bound of the size of the file ``write(root:)`` writes, close to it: the output buffer is
    /// allocated once at this size, and its unused tail is never touched (a generous bound cost fresh
    /// pages: memory the allocator could not take from what earlier archives freed).
    func outputBound() -> Int {
        // Every object the file can hold: each scalar, UID and container at most once.
        let objectBound = pool.count + elementCountAtEnd + containers.count
        let referenceSize = BinaryPropertyListOutput.cfByteCount(UInt64(objectBound))
        let uidSize = 1 + BinaryPropertyListOutput.cfByteCount(UInt64(max(elementCountAtEnd, 1) - 1))
        // Header, scalars (the pool holds each at most once), UIDs, containers' markers, longer headers and references.
        let tableOffsetBound = 8 + pool.output.count + uidSize * elementCountAtEnd + containers.count + extendedHeaderBytes
            + referenceSize * refs.count
        let offsetSize = BinaryPropertyListOutput.cfByteCount(UInt64(tableOffsetBound))
        return tableOffsetBound + offsetSize * objectBound + 32
    }

    /// Lays out every object reachable from the container `root` as a `bplist00` file.
    ///
    /// Objects are numbered breadth-first from the root (number 0), a dictionary's keys before its values,
    /// each scalar at its first use: the order ``BinaryPropertyListWriter`` gives the equivalent tree, so the
    /// bytes are the same.
    mutating func write(root: ArchiveContainerID) -> Data {
        let scalarCount = pool.count
        // No scalar is added from here on: the de-duplication table is freed before the output is allocated.
        pool.releaseTable()
        var builder = BinaryPropertyListBuilder<Int>(
            capacity: outputBound(), expectedScalarCount: 0,
            objectCount: scalarCount + elementCountAtEnd + containers.count, containerCount: containers.count,
            referenceCount: refs.count)
        // The object number of each scalar and UID once it has one (`.max` before).
        var numbers = [UInt32](repeating: .max, count: scalarCount)
        var uidNumbers = [UInt32](repeating: .max, count: elementCountAtEnd)
        _ = builder.container(root.rawValue)
        pool.appendEndPosition()
        do {  // `scalarStarts` shares the pool's positions only inside this block
            let scalarStarts = pool.positions
            let poolBase = UnsafeRawPointer(pool.output.base)
            // Where the tables start, for prefetch hints only (see ``WriteHints``): never read through.
            let hints = WriteHints(containers: containers, refs: refs.buffer, numbers: numbers, uidNumbers: uidNumbers,
                                   scalarStarts: scalarStarts, poolBase: poolBase)
            while let (id, number) = builder.nextContainer() {
                readAhead(builder, hints, numbers: numbers, scalarStarts: scalarStarts)
                let c = containers[id]
                let start = max(c.start, 0)
                let end = start + c.kind.referenceCount(entries: c.count)
                // A long container (`$objects`; more refs than an object's dictionary holds) also reads ahead
                // within itself: 16 refs ahead the numbers and starts, 8 ahead the bytes.
                let aheadEnd = end - start > 64 ? end - 16 : start
                // Indices, not a slice of `refs`: a slice would retain and release the array per container.
                for i in start ..< end {
                    if i < aheadEnd {
                        hints.fetchNumber(of: refs[i + 16])
                        hints.fetchBytes(of: refs[i + 8], numbers: numbers, scalarStarts: scalarStarts)
                    }
                    let r = refs[i]
                    if r & Self.containerBit != 0 {
                        builder.reference(builder.container(Int(r & ~Self.containerBit)))
                    } else if r & Self.uidBit != 0 {
                        let uid = Int(r & ~Self.uidBit)
                        if uidNumbers[uid] == .max {
                            uidNumbers[uid] = builder.uniqueScalar { $0.appendUID(UInt64(uid)) }.rawValue
                        }
                        builder.reference(BinaryPropertyListObjectNumber(rawValue: uidNumbers[uid]))
                    } else {
                        let scalar = Int(r)
                        if numbers[scalar] == .max {
                            let from = scalarStarts[scalar]
                            let bytes = UnsafeRawBufferPointer(start: poolBase + from, count: scalarStarts[scalar + 1] - from)
                            numbers[scalar] = builder.uniqueScalar { $0.append(bytes) }.rawValue
                        }
                        builder.reference(BinaryPropertyListObjectNumber(rawValue: numbers[scalar]))
                    }
                }
                builder.endContainer(c.kind, number: number, entries: c.count)
            }
        }
        pool.removeEndPosition()
        return builder.finish()
    }

    /// Read-ahead for ``write(root:)``, called as each container's turn comes: it prefetches, for containers a
    /// few turns ahead, what their turn will read (their record, their refs, the numbers and pool bytes of the
    /// scalars and UIDs they refer to), each stage for a nearer container than the one before, so that each
    /// stage's own loads (the record, the refs, a scalar's number and start) find what the stage before
    /// fetched. Without it, a container's turn waits for up to five misses one after another (record, refs,
    /// number, start, bytes: each needs the one before), at random places once an archive outgrows the
    /// caches. Prefetches, not loads: a load that misses holds up every instruction after it once the
    /// processor's window is full, where a prefetch lets the walk go on while the line comes.
    @inline(__always)
    private func readAhead(_ builder: BinaryPropertyListBuilder<Int>, _ hints: WriteHints, numbers: [UInt32], scalarStarts: [Int]) {
        // 8 turns ahead: the container's record.
        if let id = builder.pending(at: 7) { hints.fetchContainer(id) }
        // 4 ahead: the refs that can refer to objects (a dictionary's values).
        if let id = builder.pending(at: 3), let (next, end) = Self.walk(containers[id]) {
            hints.fetchRefs(next, end)
        }
        // 2 ahead: the number of each scalar and UID referred to, and the start of each scalar.
        if let id = builder.pending(at: 1), let (next, end) = Self.walk(containers[id]) {
            for i in next ..< min(end, next + 16) { hints.fetchNumber(of: refs[i]) }
        }
        // Next: the bytes of each scalar not written yet.
        if let id = builder.pending(at: 0), let (next, end) = Self.walk(containers[id]) {
            for i in next ..< min(end, next + 16) { hints.fetchBytes(of: refs[i], numbers: numbers, scalarStarts: scalarStarts) }
        }
    }

    /// Where ``write(root:)``'s tables start, to prefetch from: addresses only, never read through (a prefetch
    /// neither faults nor changes anything, so a hint to the wrong line would only cost time). `numbers` and
    /// `uidNumbers` are written in place during the walk (each is one array the walk owns, never reallocated),
    /// so their storage stays where it was when the hints were made.
    private struct WriteHints {
        let containers: UnsafeRawPointer?
        let containerCount: Int
        let refs: UnsafeBufferPointer<Ref>
        let numbers: UnsafeRawPointer?
        let numberCount: Int
        let uidNumbers: UnsafeRawPointer?
        let uidCount: Int
        let scalarStarts: UnsafeRawPointer?
        let poolBase: UnsafeRawPointer

        init(containers: [Container], refs: UnsafeBufferPointer<Ref>, numbers: [UInt32], uidNumbers: [UInt32],
             scalarStarts: [Int], poolBase: UnsafeRawPointer) {
            self.containers = containers.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
            containerCount = containers.count
            self.refs = refs
            self.numbers = numbers.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
            numberCount = numbers.count
            self.uidNumbers = uidNumbers.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
            uidCount = uidNumbers.count
            self.scalarStarts = scalarStarts.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
            self.poolBase = poolBase
        }

        /// The record of container `id`.
        @inline(__always)
        func fetchContainer(_ id: Int) {
            guard id < containerCount, let containers else { return }
            prefetch(containers + id * MemoryLayout<Container>.stride)
        }

        /// The refs `next ..< end` (their first and last line: an object's values span one or two).
        @inline(__always)
        func fetchRefs(_ next: Int, _ end: Int) {
            guard next < end, end <= refs.count, let base = refs.baseAddress else { return }
            prefetch(UnsafeRawPointer(base + next))
            prefetch(UnsafeRawPointer(base + end - 1))
        }

        /// The number of the scalar or UID `r` refers to, and a scalar's start.
        @inline(__always)
        func fetchNumber(of r: Ref) {
            if r & KeyedArchiveEmitter.containerBit != 0 { return }
            if r & KeyedArchiveEmitter.uidBit != 0 {
                let uid = Int(r & ~KeyedArchiveEmitter.uidBit)
                if uid < uidCount, let uidNumbers { prefetch(uidNumbers + 4 * uid) }
                return
            }
            guard Int(r) < numberCount, let numbers, let scalarStarts else { return }
            prefetch(numbers + 4 * Int(r))
            prefetch(scalarStarts + 8 * Int(r))
        }

        /// The first bytes of scalar `r` when it is not written yet (loads its number and start, which
        /// ``fetchNumber(of:)`` fetched a turn or two earlier).
        @inline(__always)
        func fetchBytes(of r: Ref, numbers: [UInt32], scalarStarts: [Int]) {
            guard r & (KeyedArchiveEmitter.containerBit | KeyedArchiveEmitter.uidBit) == 0, Int(r) < numbers.count,
                  numbers[Int(r)] == .max else { return }
            prefetch(poolBase + scalarStarts[Int(r)])
        }
    }

    // MARK: - Tree

    /// The property-list tree of the container `root`: what ``write(root:)`` writes, as values. Dictionaries
    /// keep their keys as the archiver gave them (`$top`'s are distinct as Swift strings, which its
    /// dictionary indexes by). Containers nest at most four deep (root, `$objects`, an object, its array).
    func tree(root: ArchiveContainerID) -> PropertyListValue {
        // `$top` is the root's third value ($version, $archiver, $top, $objects).
        let c = containers[root.rawValue]
        let top = c.count == 4 ? refs[c.start + c.count + 2] : 0
        return value(Self.ref(container: root), top: top)
    }

    private func value(_ ref: Ref, top: Ref) -> PropertyListValue {
        if ref & Self.uidBit != 0 { return .uid(UID(UInt64(ref & ~Self.uidBit))) }
        guard ref & Self.containerBit != 0 else { return scalar(Int(ref)) }
        let c = containers[Int(ref & ~Self.containerBit)]
        guard c.start >= 0 else { return .array([]) }
        if c.kind == .array {
            return .array(refs.buffer[c.start ..< c.start + c.count].map { value($0, top: top) })
        }
        let keys = refs.buffer[c.start ..< c.start + c.count].map { scalar(Int($0)).stringValue ?? "" }
        let values = refs.buffer[c.start + c.count ..< c.start + 2 * c.count].map { value($0, top: top) }
        return .dictionary(ref == top ? PropertyListDictionary(keys: keys, values: values)
                                      : PropertyListDictionary(distinctKeys: keys, values: values))
    }

    /// Decodes scalar `id` from the pool.
    private func scalar(_ id: Int) -> PropertyListValue {
        pool.value(of: id)
    }
}
