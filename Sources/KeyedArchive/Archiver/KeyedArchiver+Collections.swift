#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// KeyedArchiver's ArchiveEncoder methods for arrays, ordered sets, sets and dictionaries, and the
// iterative writing of nested FoundationValue collections.
extension KeyedArchiver {
    /// Encodes each element as its own object and returns where their UID refs start in `elementRefs`.
    private func appendElementRefs<S: Sequence>(_ elements: S) throws -> Int where S.Element: ArchiveValue {
        let base = s.elementRefs.count
        if isClass(S.Element.self), MemoryLayout<S.Element>.size == MemoryLayout<UInt>.size,
           try elements.withContiguousStorageIfAvailable({ try appendInstanceRefs($0) }) != nil {
            return base
        }
        for element in elements { s.elementRefs.append(KeyedArchiveEmitter.uid(try reference(for: element))) }
        return base
    }

    /// How many elements ahead ``appendInstanceRefs(_:)`` prefetches an instance: far enough for its lines
    /// to arrive from memory while the elements before it are encoded.
    private static let instancePrefetchDistance = 8

    /// ``appendElementRefs(_:)`` for class instances held in contiguous storage (an array of a model class):
    /// each element is encoded as usual (``reference(for:)``, whose argument copy still retains and releases
    /// it), and the instance `instancePrefetchDistance` elements ahead, its address read in place, is
    /// prefetched: its identity slot, which the lookup reads, and its header, which those retains and
    /// queueing it update. A prefetch changes nothing.
    private func appendInstanceRefs<T: ArchiveValue>(_ elements: UnsafeBufferPointer<T>) throws {
        guard let first = elements.baseAddress else { return }
        // The caller checked that `T` is a class: an element is one word, the instance's address.
        let words = UnsafeRawPointer(first)
        let count = elements.count
        var i = 0
        while i < count {
            let ahead = i &+ Self.instancePrefetchDistance
            if ahead < count {  // bounds check for the read below
                let address = words.load(fromByteOffset: ahead &* MemoryLayout<T>.stride, as: UInt.self)
                s.identities.prefetchSlot(for: address)
                if let header = UnsafeRawPointer(bitPattern: address) { prefetchForWriting(header) }
            }
            s.elementRefs.append(KeyedArchiveEmitter.uid(try reference(for: elements[i])))
            i += 1
        }
    }

    public func encodeArray<T: ArchiveValue>(_ elements: [T], forKey key: String) throws {
        // This generic runs unspecialized (reached through `any ArchiveEncoder`): an array of strings or of
        // class instances, the common arrays, is walked as an array of a concrete type or through its
        // buffer, which looks up no generic conformance per element. The bytes are the general path's.
        if T.self == String.self {
            let strings = unsafeBitCast(elements, to: [String].self)  // T is String
            try encodeList(as: .array, forKey: key) {
                for string in strings {
                    // What `encode(_:forKey:)` writes for a string element.
                    s.elementRefs.append(KeyedArchiveEmitter.uid(s.emitter.appendElement(s.emitter.string(string))))
                }
            }
        } else if isClass(T.self) {
            try encodeList(as: .array, forKey: key) {
                try elements.withUnsafeBufferPointer { try appendInstanceRefs($0) }
            }
        } else {
            try encodeList(elements, as: .array, forKey: key)
        }
    }

    /// Writes `elements` in order as an `NSOrderedSet` (`NS.object.0`, `NS.object.1`, ...: one UID member per
    /// element, as Apple writes it). The corresponding Foundation API is
    /// `NSCoder.encode(_:forKey:)` with an `NSOrderedSet`.
    public func encodeOrderedSet<T: ArchiveValue>(_ elements: [T], forKey key: String) throws {
        try encodeList(elements, as: .orderedSet, forKey: key)
    }

    /// An `NSArray`, `NSOrderedSet` or `NSSet` of `elements`, in their order.
    private func encodeList<S: Sequence>(_ elements: S, as builtin: BuiltinClass, forKey key: String) throws
        where S.Element: ArchiveValue
    {
        try checkOpen()
        let asElement = takeCapture()
        // Nested Foundation values (arrays of arrays of ...) are written with an explicit stack, so no depth
        // overflows the thread's stack; the objects and their order are those of the recursive path.
        if S.Element.self == FoundationValue.self, let values = elements as? [FoundationValue] {
            let uid = try encodeFoundationLists(values, as: builtin)
            put(reference: uid, asElement: asElement, forKey: key)
            if s.currentContainer == nil && !asElement { try drain() }
            return
        }
        try writeList(as: builtin, asElement: asElement, forKey: key) { _ = try appendElementRefs(elements) }
    }

    /// An `NSArray`, `NSOrderedSet` or `NSSet` whose element refs `appendRefs` appends to `elementRefs`, in order.
    private func encodeList(as builtin: BuiltinClass, forKey key: String, _ appendRefs: () throws -> Void) throws {
        try checkOpen()
        try writeList(as: builtin, asElement: takeCapture(), forKey: key, appendRefs)
    }

    /// Takes the list's UID, appends its element refs (`appendRefs`), completes it and puts its reference
    /// under `key` (or as the captured element).
    private func writeList(as builtin: BuiltinClass, asElement: Bool, forKey key: String, _ appendRefs: () throws -> Void) throws {
        let (uid, object) = s.emitter.appendContainerElement()
        let base = s.elementRefs.count
        defer { s.elementRefs.removeLast(s.elementRefs.count - base) }
        try appendRefs()
        try completeList(uid: uid, object: object, base: base, as: builtin)
        put(reference: uid, asElement: asElement, forKey: key)
        if s.currentContainer == nil && !asElement { try drain() }
    }

    /// Writes an `NSArray`/`NSSet`/`NSOrderedSet`/`NSDictionary` of Foundation values whose nested arrays,
    /// ordered sets, sets and dictionaries are written iteratively (one frame per open collection, on the
    /// heap); returns the collection's UID. For `.dictionary`, `root` holds keys and values interleaved.
    ///
    /// Each collection takes its UID before its elements and writes its reference arrays after them, exactly
    /// as ``encodeList(_:as:forKey:)`` and ``encodeDictionary(_:forKey:)`` do when they recurse, so the bytes
    /// are the same.
    private func encodeFoundationLists(_ root: [FoundationValue], as builtin: BuiltinClass) throws -> ArchiveObjectID {
        struct Frame {
            var elements: [FoundationValue]
            var next: Int
            let builtin: BuiltinClass
            let uid: ArchiveObjectID
            let object: ArchiveContainerID
            let base: Int
        }
        let outerBase = s.elementRefs.count
        defer { s.elementRefs.removeLast(s.elementRefs.count - outerBase) }
        let (rootUID, rootObject) = s.emitter.appendContainerElement()
        var frames = [Frame(elements: root, next: 0, builtin: builtin, uid: rootUID, object: rootObject, base: outerBase)]
        while true {
            let top = frames.count - 1
            if frames[top].next < frames[top].elements.count {
                let element = frames[top].elements[frames[top].next]
                frames[top].next += 1
                if let (items, nested) = Self.nestedCollection(element) {
                    let (uid, object) = s.emitter.appendContainerElement()
                    frames.append(Frame(elements: items, next: 0, builtin: nested, uid: uid, object: object,
                                        base: s.elementRefs.count))
                } else {
                    s.elementRefs.append(KeyedArchiveEmitter.uid(try reference(for: element)))
                }
                continue
            }
            let frame = frames.removeLast()
            if frame.builtin == .dictionary {
                completeDictionary(object: frame.object, base: frame.base)
            } else {
                try completeList(uid: frame.uid, object: frame.object, base: frame.base, as: frame.builtin)
            }
            s.elementRefs.removeLast(s.elementRefs.count - frame.base)
            guard !frames.isEmpty else { return frame.uid }
            s.elementRefs.append(KeyedArchiveEmitter.uid(frame.uid))
        }
    }

    /// The elements a nested Foundation collection is written from, in the order the recursive path writes
    /// them, and its class: a set's distinct elements, a dictionary's keys and values interleaved (ascending
    /// by key when the keys are ordered, as ``encodeDictionary(_:forKey:)`` writes them); `nil` for any
    /// other value.
    private static func nestedCollection(_ value: FoundationValue) -> ([FoundationValue], BuiltinClass)? {
        switch value {
        case .array(let items): return (items.elements, .array)
        case .orderedSet(let items): return (items.elements, .orderedSet)
        case .set(let items): return (distinctElements(items.elements), .set)
        case .dictionary(let d): return (interleavedEntries(d.dictionary), .dictionary)
        default: return nil
        }
    }

    /// The distinct elements of `items`, in order (what ``encodeSet(orderedElements:forKey:)`` writes).
    /// Strings are distinct as NSSet's members are, by their scalars: canonically equivalent strings that
    /// differ in their scalars are both kept (``FoundationValue``'s `==` compares its strings so too).
    private static func distinctElements<T: Hashable>(_ items: [T]) -> [T] {
        guard items.count > 1 else { return items }
        if T.self == String.self, let strings = items as? [String] {
            var seen = Set<ScalarString>(minimumCapacity: strings.count)
            if let kept = strings.filter({ seen.insert(ScalarString(string: $0)).inserted }) as? [T] { return kept }
        }
        var seen = Set<T>(minimumCapacity: items.count)
        return items.filter { seen.insert($0).inserted }
    }

    /// Keys and values interleaved, in the order ``encodeDictionary(_:forKey:)`` writes them.
    private static func interleavedEntries(_ d: [FoundationValue: FoundationValue]) -> [FoundationValue] {
        var out: [FoundationValue] = []
        out.reserveCapacity(d.count * 2)
        if let entries = CanonicalOrder.orderedEntries(of: d) {
            for (k, v) in entries { out.append(k); out.append(v) }
        } else {
            for (k, v) in d { out.append(k); out.append(v) }
        }
        return out
    }

    /// Completes dictionary object `object` from the key and value refs interleaved at `base...` of
    /// `elementRefs`: an `NS.keys` array and an `NS.objects` array.
    private func completeDictionary(object: ArchiveContainerID, base: Int) {
        let keys = s.emitter.newContainer()
        s.emitter.completeArray(keys, s.elementRefs, from: base, stride: 2)
        let values = s.emitter.newContainer()
        s.emitter.completeArray(values, s.elementRefs, from: base + 1, stride: 2)
        s.emitter.completeDictionary(object, classKey, classRef(.dictionary), keysKey, KeyedArchiveEmitter.ref(container: keys),
                                   dictionaryObjectsKey, KeyedArchiveEmitter.ref(container: values))
    }

    /// Completes list object `object` from the element refs at `base...` of `elementRefs`.
    @inline(__always)
    private func completeList(uid: ArchiveObjectID, object: ArchiveContainerID, base: Int, as builtin: BuiltinClass) throws {
        if builtin == .orderedSet {
            // Apple's layout: one member per element, `NS.object.<index>` = UID.
            let count = s.elementRefs.count - base
            while s.elementKeys.count < count { s.elementKeys.append(s.emitter.string(MemberKeys.orderedSetPrefix + String(s.elementKeys.count))) }
            var keys = [classKey]
            keys.append(contentsOf: s.elementKeys[0 ..< count])
            var values = [classRef(builtin)]
            values.append(contentsOf: s.elementRefs[base...])
            s.emitter.completeDictionary(object, keys: keys, values: values)
            return
        }
        let array = s.emitter.newContainer()
        s.emitter.completeArray(array, s.elementRefs, from: base)
        s.emitter.completeDictionary(object, classKey, classRef(builtin), objectsKey, KeyedArchiveEmitter.ref(container: array))
    }

    /// Writes `elements` as an `NSSet` (`NS.objects`): in ascending order when `T` is `Comparable` (so that
    /// the same set gives the same bytes; see the type's notes on output), otherwise in the set's own order.
    public func encodeSet<T: ArchiveValue & Hashable>(_ elements: Set<T>, forKey key: String) throws {
        if let ordered = CanonicalOrder.orderedElements(of: elements) {
            try encodeList(ordered, as: .set, forKey: key)
        } else {
            try encodeList(elements, as: .set, forKey: key)
        }
    }

    /// Writes the distinct elements of `elements` in the order given as an `NSSet` (`NS.objects`).
    public func encodeSet<T: ArchiveValue & Hashable>(orderedElements elements: [T], forKey key: String) throws {
        try encodeList(Self.distinctElements(elements), as: .set, forKey: key)
    }

    /// Writes `dictionary` as an `NSDictionary` (`NS.keys`, `NS.objects`): ascending by key when `K` is
    /// `Comparable` (so that the same dictionary gives the same bytes; see the type's notes on output),
    /// otherwise in the dictionary's own order.
    public func encodeDictionary<K: ArchiveValue & Hashable, V: ArchiveValue>(_ dictionary: [K: V], forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        // Nested Foundation values are written with an explicit stack, as in `encodeList(_:as:forKey:)`.
        if K.self == FoundationValue.self, V.self == FoundationValue.self {
            // The same dictionary, not a cast copy: a copy could iterate in another order.
            let values = unsafeBitCast(dictionary, to: [FoundationValue: FoundationValue].self)
            let uid = try encodeFoundationLists(Self.interleavedEntries(values), as: .dictionary)
            put(reference: uid, asElement: asElement, forKey: key)
            if s.currentContainer == nil && !asElement { try drain() }
            return
        }
        let (uid, object) = s.emitter.appendContainerElement()
        let base = s.elementRefs.count
        defer { s.elementRefs.removeLast(s.elementRefs.count - base) }
        // Keys and values interleaved; split into the two arrays below.
        func append(_ k: K, _ v: V) throws {
            s.elementRefs.append(KeyedArchiveEmitter.uid(try reference(for: k)))
            s.elementRefs.append(KeyedArchiveEmitter.uid(try reference(for: v)))
        }
        if let entries = CanonicalOrder.orderedEntries(of: dictionary) {
            for (k, v) in entries { try append(k, v) }
        } else {
            for (k, v) in dictionary { try append(k, v) }
        }
        completeDictionary(object: object, base: base)
        put(reference: uid, asElement: asElement, forKey: key)
        if s.currentContainer == nil && !asElement { try drain() }
    }
}
