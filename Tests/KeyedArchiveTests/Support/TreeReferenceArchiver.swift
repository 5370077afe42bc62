import Foundation
@testable import KeyedArchive

// The archiver as it was before it wrote binary property lists directly: it builds a `PropertyListValue`
// tree, which `BinaryPropertyListWriter` then writes. Kept, unchanged apart from its name, as the oracle
// the direct emitter of `KeyedArchiver` is compared with: both must give the same tree and the same bytes.
// One addition: `finishEncoding()` renumbers the objects depth-first (`depthFirst(objects:top:)`, written
// on the tree, independently of the emitter's renumbering), as `KeyedArchiver` now does. And `$top` follows
// `KeyedArchiver`'s rule: a scalar encoded on the archiver is inline there, except the root of
// `archivedData(withRootObject:)`, which is an object (`encodesRootObject`).
//
// Original documentation follows.

/// Writes values and object graphs as Apple's NSKeyedArchiver archives.
///
/// The corresponding Foundation class is `NSKeyedArchiver`. The output reads back in Foundation's
/// `NSKeyedUnarchiver` on Apple platforms and Linux:
/// - the envelope is `{"$archiver": "NSKeyedArchiver", "$version": 100000, "$top": {...}, "$objects": ["$null", ...]}`;
/// - `Bool`, integers, `Float` and `Double` fields are inline in their object, as `encodeBool`/`encodeInt64`/... write them;
/// - strings and `Data` are inline scalars in `$objects` referenced by UID (NSString / NSData);
/// - `Date`, `UUID`, `URL`, arrays, sets and dictionaries are written as `NSDate` (`NS.time`), `NSUUID`
///   (`NS.uuidbytes`), `NSURL` (`NS.base`, `NS.relative`), `NSArray`/`NSSet` (`NS.objects`) and
///   `NSDictionary` (`NS.keys`, `NS.objects`);
/// - each ``KeyedArchivable`` value is an object with a `$class` shared by all instances of its class;
/// - keys that start with `$` are escaped by adding another `$`.
///
/// **Identity.** A class instance referenced several times is written once (identity is the instance,
/// `ObjectIdentifier`, never `==`), so graphs with sharing and cycles round-trip. Equal but distinct
/// instances stay distinct. Structs have no identity: each encode writes a new object.
///
/// **Depth.** Encoding is iterative: an object gets its UID when first referenced and its fields are
/// written later from a work queue, so a 1,000,000-node linked list never deepens the stack.
/// (Nested Swift *values* such as arrays of arrays are written recursively; their depth is that of the
/// value the caller built.)
///
/// Use ``archivedData(withRootObject:format:)`` for one root, or create an archiver, ``encode(_:forKey:)``
/// several top-level values and call ``encodedData(format:)``.
final class TreeReferenceArchiver: ArchiveEncoder {
    private var objects: [PropertyListValue] = [.string("$null")]
    private var top = PropertyListDictionary()
    private var fieldKeys: [String] = []
    private var fieldValues: [PropertyListValue] = []
    private var currentUID: Int = -1  // -1: writing $top
    private var encodesRootObject = false  // true: a scalar written to $top becomes an object (the root)
    private var identities: [ObjectIdentifier: Int] = [:]
    private var retained: [AnyObject] = []
    private var queue: [(uid: Int, value: any KeyedArchivable)] = []
    private var queueHead = 0
    private var classUIDsByType: [ObjectIdentifier: Int] = [:]
    private var classUIDsByName: [String: Int] = [:]
    private var classNames: [ObjectIdentifier: String] = [:]
    private var capturing = false
    private var captured: PropertyListValue?
    private var pendingConditionals: [(owner: Int, key: String, object: AnyObject)] = []
    private var finished: PropertyListValue?

    /// Creates an empty archiver.
    init() {}

    // MARK: Class names

    /// Writes instances of `type` with the class name `name` instead of `type.archivedClassName`.
    ///
    /// The corresponding Foundation API is `NSKeyedArchiver.setClassName(_:for:)` (which has no effect on Linux).
    /// The `$classes` chain keeps the type's declared superclasses after `name`.
    func setClassName(_ name: String, for type: any KeyedArchivable.Type) {
        classNames[ObjectIdentifier(type)] = name
    }

    /// The class name set with ``setClassName(_:for:)`` for `type`, if any.
    func className(for type: any KeyedArchivable.Type) -> String? {
        classNames[ObjectIdentifier(type)]
    }

    // MARK: Output

    /// Finishes the archive and returns it as a property-list tree. Later calls return the same tree;
    /// encoding after this throws ``KeyedArchiveError/Code/invalidValue``.
    ///
    /// The corresponding Foundation API is `NSKeyedArchiver.finishEncoding()`.
    func finishEncoding() throws -> PropertyListValue {
        if let finished { return finished }
        try drain()
        for pending in pendingConditionals {
            guard let uid = identities[ObjectIdentifier(pending.object)] else { continue }
            if pending.owner < 0 {
                top[pending.key] = .uid(UID(UInt64(uid)))
            } else if case .dictionary(var dict) = objects[pending.owner] {
                objects[pending.owner] = .string("")  // release the array's reference before mutating
                dict[pending.key] = .uid(UID(UInt64(uid)))
                objects[pending.owner] = .dictionary(dict)
            }
        }
        pendingConditionals = []
        (objects, top) = Self.depthFirst(objects: objects, top: top)
        let archive = PropertyListValue.dictionary([
            "$version": .integer(100000),
            "$archiver": .string("NSKeyedArchiver"),
            "$top": .dictionary(top),
            "$objects": .array(objects),
        ])
        objects = []
        identities = [:]
        retained = []
        finished = archive
        isFinished = true
        return archive
    }

    /// The objects renumbered in the order a depth-first walk from `$top` meets their UIDs (a dictionary's
    /// values in order, an array's elements in order, an object's references before the next sibling's),
    /// objects nothing reaches last in their old order, and every UID rewritten.
    static func depthFirst(objects: [PropertyListValue], top: PropertyListDictionary)
        -> ([PropertyListValue], PropertyListDictionary)
    {
        var newUID = [Int](repeating: -1, count: objects.count)
        var order: [Int] = []
        if !objects.isEmpty {
            newUID[0] = 0
            order.append(0)
        }
        // The values still to visit, last first (so the stack is a reversed to-do list).
        var pending: [PropertyListValue] = top.values.reversed()
        while let value = pending.popLast() {
            switch value {
            case .uid(let uid):
                let old = Int(uid.value)
                guard old < objects.count, newUID[old] < 0 else { continue }
                newUID[old] = order.count
                order.append(old)
                pending.append(objects[old])
            case .dictionary(let dict): pending.append(contentsOf: dict.values.reversed())
            case .array(let items), .set(let items): pending.append(contentsOf: items.reversed())
            default: continue
            }
        }
        for old in objects.indices where newUID[old] < 0 {
            newUID[old] = order.count
            order.append(old)
        }
        func rewritten(_ value: PropertyListValue) -> PropertyListValue {
            switch value {
            case .uid(let uid) where uid.value < UInt64(objects.count): return .uid(UID(UInt64(newUID[Int(uid.value)])))
            case .dictionary(let dict):
                return .dictionary(PropertyListDictionary(distinctKeys: dict.keys, values: dict.values.map(rewritten)))
            case .array(let items): return .array(items.map(rewritten))
            case .set(let items): return .set(items.map(rewritten))
            default: return value
            }
        }
        return (order.map { rewritten(objects[$0]) },
                PropertyListDictionary(keys: top.keys, values: top.values.map(rewritten)))
    }

    /// Finishes the archive and returns its bytes.
    ///
    /// The corresponding Foundation API is `NSKeyedArchiver.encodedData`.
    /// - Parameter format: binary (default, what Foundation writes) or XML.
    /// - Throws: ``KeyedArchiveError`` when a value could not be archived.
    func encodedData(format: PropertyListFormat = .binary) throws -> Data {
        let archive = try finishEncoding()
        do {
            return try archive.propertyListData(format: format)
        } catch let error as PropertyListError {
            throw KeyedArchiveError(.invalidValue, "the archive cannot be written as \(format): \(error.message)",
                                    underlying: error)
        }
    }

    /// Archives `root` under the top-level key `"root"` and returns the archive's bytes.
    ///
    /// The corresponding Foundation API is `NSKeyedArchiver.archivedData(withRootObject:requiringSecureCoding:)`.
    /// - Parameters:
    ///   - root: a model object, or any ``ArchiveValue`` (a string, an array of models, ...).
    ///   - format: binary (default) or XML.
    /// - Throws: ``KeyedArchiveError`` when a value could not be archived.
    static func archivedData<T: ArchiveValue>(withRootObject root: T, format: PropertyListFormat = .binary) throws -> Data {
        let archiver = TreeReferenceArchiver()
        archiver.encodesRootObject = true
        try archiver.encode(root, forKey: "root")
        archiver.encodesRootObject = false
        return try archiver.encodedData(format: format)
    }

    /// Archives `root` under `"root"` and returns the archive as a property-list tree (no bytes).
    static func archivedPropertyList<T: ArchiveValue>(withRootObject root: T) throws -> PropertyListValue {
        let archiver = TreeReferenceArchiver()
        archiver.encodesRootObject = true
        try archiver.encode(root, forKey: "root")
        archiver.encodesRootObject = false
        return try archiver.finishEncoding()
    }

    // MARK: Internals

    @inline(__always)
    private func append(_ value: PropertyListValue) -> Int {
        objects.append(value)
        return objects.count - 1
    }

    @inline(__always)
    private func escaped(_ key: String) -> String {
        key.utf8.first == UInt8(ascii: "$") ? "$" + key : key
    }

    /// Takes the "encode as a collection element" request, if there is one.
    @inline(__always)
    private func takeCapture() -> Bool {
        if capturing {
            capturing = false
            return true
        }
        return false
    }

    private var isFinished = false
    private var builtinClassUIDs: [Int] = Array(repeating: -1, count: BuiltinClass.allCases.count)

    /// The Foundation classes the archiver writes itself, with cached class-dictionary UIDs.
    private enum BuiltinClass: Int, CaseIterable {
        case date, uuid, url, array, set, dictionary, orderedSet
        var chain: [String] {
            switch self {
            case .date: return ["NSDate", "NSObject"]
            case .uuid: return ["NSUUID", "NSObject"]
            case .url: return ["NSURL", "NSObject"]
            case .array: return ["NSArray", "NSObject"]
            case .orderedSet: return ["NSOrderedSet", "NSObject"]
            case .set: return ["NSSet", "NSObject"]
            case .dictionary: return ["NSDictionary", "NSObject"]
            }
        }
    }

    @inline(__always)
    private func classUID(_ builtin: BuiltinClass) -> Int {
        let cached = builtinClassUIDs[builtin.rawValue]
        if cached >= 0 { return cached }
        let chain = builtin.chain
        let uid = classUID(forBuiltin: chain[0], chain: chain)
        builtinClassUIDs[builtin.rawValue] = uid
        return uid
    }

    private func checkOpen() throws {
        if isFinished {
            throw KeyedArchiveError(.invalidValue, "encoding after finishEncoding()")
        }
    }

    /// Stores `value` as the field `key`, or as the captured element. Inline scalars become their own
    /// `$objects` entry when they are collection elements (NSNumber objects).
    @inline(__always)
    private func put(inline value: PropertyListValue, forKey key: String) {
        if takeCapture() {
            captured = .uid(UID(UInt64(append(value))))
        } else if currentUID < 0 && encodesRootObject {
            // Added with the same rule of `KeyedArchiver`: the root of `archivedData(withRootObject:)` is an object.
            setField(key, .uid(UID(UInt64(append(value)))))
        } else {
            setField(key, value)
        }
    }

    @inline(__always)
    private func put(reference uid: Int, asElement: Bool, forKey key: String) {
        let ref = PropertyListValue.uid(UID(UInt64(uid)))
        if asElement { captured = ref } else { setField(key, ref) }
    }

    @inline(__always)
    private func setField(_ key: String, _ value: PropertyListValue) {
        let key = escaped(key)
        if currentUID < 0 {
            top[key] = value
            return
        }
        // Plain scan for a repeated key (last one wins); comparing lengths first skips most string compares.
        let length = key.utf8.count
        var i = 0
        while i < fieldKeys.count {
            if fieldKeys[i].utf8.count == length && fieldKeys[i] == key {
                fieldValues[i] = value
                return
            }
            i += 1
        }
        fieldKeys.append(key)
        fieldValues.append(value)
    }

    /// A Foundation object: `$class` plus members (distinct keys).
    private func builtinObject(_ cls: BuiltinClass, _ key: String, _ value: PropertyListValue) -> PropertyListValue {
        .dictionary(PropertyListDictionary(distinctKeys: ["$class", key], values: [.uid(UID(UInt64(classUID(cls)))), value]))
    }

    private func builtinObject(_ cls: BuiltinClass, _ key1: String, _ value1: PropertyListValue,
                               _ key2: String, _ value2: PropertyListValue) -> PropertyListValue {
        .dictionary(PropertyListDictionary(distinctKeys: ["$class", key1, key2],
                                           values: [.uid(UID(UInt64(classUID(cls)))), value1, value2]))
    }

    /// The UID of `value` written as a collection element (a scalar becomes its own object).
    private func reference<T: ArchiveValue>(for value: T) throws -> PropertyListValue {
        capturing = true
        captured = nil
        try value.encode(to: self, forKey: "")
        if capturing {
            capturing = false
            throw KeyedArchiveError(.invalidValue, "\(T.self).encode(to:forKey:) wrote nothing; it must call exactly one encoder method")
        }
        guard let result = captured else {
            throw KeyedArchiveError(.invalidValue, "\(T.self).encode(to:forKey:) wrote nothing; it must call exactly one encoder method")
        }
        captured = nil
        return result
    }

    private func classUID(forBuiltin name: String, chain: [String]) -> Int {
        if let uid = classUIDsByName[name] { return uid }
        let uid = append(.dictionary(["$classname": .string(name), "$classes": .array(chain.map { .string($0) })]))
        classUIDsByName[name] = uid
        return uid
    }

    private func classUID(for type: any KeyedArchivable.Type) -> Int {
        let id = ObjectIdentifier(type)
        if let uid = classUIDsByType[id] { return uid }
        var chain = type.archivedClassChain
        let name: String
        if let mapped = classNames[id] {
            name = mapped
            if chain.isEmpty { chain = [mapped, "NSObject"] } else { chain[0] = mapped }
        } else {
            name = type.archivedClassName
            if chain.isEmpty { chain = [name, "NSObject"] }
        }
        let uid = classUID(forBuiltin: name, chain: chain)
        classUIDsByType[id] = uid
        return uid
    }

    /// Writes the fields of every queued object (iteratively: objects found on the way join the queue).
    private func drain() throws {
        let savedUID = currentUID
        defer { currentUID = savedUID }
        while queueHead < queue.count {
            let (uid, value) = queue[queueHead]
            queueHead += 1
            currentUID = uid
            let capacity = max(fieldKeys.count, 4)
            fieldKeys = ["$class"]
            fieldValues = [.uid(UID(UInt64(classUID(for: Swift.type(of: value)))))]
            fieldKeys.reserveCapacity(capacity)
            fieldValues.reserveCapacity(capacity)
            try value.encode(to: self)
            objects[uid] = .dictionary(PropertyListDictionary(distinctKeys: fieldKeys, values: fieldValues))
        }
        fieldKeys = []
        fieldValues = []
        queue.removeAll(keepingCapacity: false)
        queueHead = 0
    }

    private var classKinds: [ObjectIdentifier: Bool] = [:]
    private var lastKind: (ObjectIdentifier, Bool)?

    /// Whether `type` is a class (cached: a dynamic cast per object is costly).
    @inline(__always)
    private func isClass<T>(_ type: T.Type) -> Bool {
        let id = ObjectIdentifier(type)
        if let lastKind, lastKind.0 == id { return lastKind.1 }
        let kind: Bool
        if let known = classKinds[id] {
            kind = known
        } else {
            kind = type is AnyClass
            classKinds[id] = kind
        }
        lastKind = (id, kind)
        return kind
    }

    // MARK: ArchiveEncoder

    func encode(_ value: Bool, forKey key: String) throws {
        try checkOpen()
        put(inline: .bool(value), forKey: key)
    }

    func encodeInteger<T: FixedWidthInteger>(_ value: T, forKey key: String) throws {
        try checkOpen()
        // Fast path for the common widths (this generic requirement runs unspecialized through `any ArchiveEncoder`).
        if T.self == Int.self {
            put(inline: .integer(PropertyListInteger(Int64(unsafeBitCast(value, to: Int.self)))), forKey: key)
            return
        }
        guard let integer = PropertyListInteger(exactly: value) else {
            throw KeyedArchiveError(.invalidValue, "integer \(value) does not fit in 64 bits", keyPath: key)
        }
        put(inline: .integer(integer), forKey: key)
    }

    func encode(_ value: Float, forKey key: String) throws {
        try checkOpen()
        put(inline: .float(value), forKey: key)
    }

    func encode(_ value: Double, forKey key: String) throws {
        try checkOpen()
        put(inline: .real(value), forKey: key)
    }

    func encodeIntegerObject<T: FixedWidthInteger>(_ value: T, forKey key: String) throws {
        try checkOpen()
        guard let integer = PropertyListInteger(exactly: value) else {
            throw KeyedArchiveError(.invalidValue, "integer \(value) does not fit in 64 bits", keyPath: key)
        }
        let asElement = takeCapture()
        put(reference: append(.integer(integer)), asElement: asElement, forKey: key)
    }

    func encodeRealObject(_ value: Double, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        put(reference: append(.real(value)), asElement: asElement, forKey: key)
    }

    func encodeBoolObject(_ value: Bool, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        put(reference: append(.bool(value)), asElement: asElement, forKey: key)
    }

    func encode(_ value: String, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        put(reference: append(.string(value)), asElement: asElement, forKey: key)
    }

    func encode(_ value: Data, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        put(reference: append(.data(value)), asElement: asElement, forKey: key)
    }

    func encode(_ value: Date, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        let uid = append(builtinObject(.date, "NS.time", .real(value.timeIntervalSinceReferenceDate)))
        put(reference: uid, asElement: asElement, forKey: key)
    }

    func encode(_ value: UUID, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        let bytes = withUnsafeBytes(of: value.uuid) { Data($0) }
        let uid = append(builtinObject(.uuid, "NS.uuidbytes", .data(bytes)))
        put(reference: uid, asElement: asElement, forKey: key)
    }

    func encode(_ value: URL, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        put(reference: urlObject(value), asElement: asElement, forKey: key)
    }

    private func urlObject(_ url: URL) -> Int {
        let base = url.baseURL.map { urlObject($0) } ?? 0
        let relative = append(.string(url.relativeString))
        return append(builtinObject(.url, "NS.base", .uid(UID(UInt64(base))), "NS.relative", .uid(UID(UInt64(relative)))))
    }

    func encodeNil(forKey key: String) throws {
        try checkOpen()
        if takeCapture() {
            throw KeyedArchiveError(.invalidValue,
                                    "an archived array, set or dictionary cannot hold nil (NSArray cannot); use ArchiveNull",
                                    keyPath: key)
        }
        setField(key, .uid(UID(0)))
    }

    func encodeObject<T: KeyedArchivable>(_ object: T, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        let uid: Int
        if isClass(T.self) {
            // T is a concrete class type here, so the value is one object reference.
            let instance = unsafeBitCast(object, to: AnyObject.self)
            let id = ObjectIdentifier(instance)
            if let known = identities[id] {
                uid = known
            } else {
                uid = append(.string("$placeholder"))
                identities[id] = uid
                retained.append(instance)
                queue.append((uid, object))
            }
        } else {
            uid = append(.string("$placeholder"))
            queue.append((uid, object))
        }
        put(reference: uid, asElement: asElement, forKey: key)
        if currentUID < 0 && !asElement { try drain() }
    }

    func encodeConditionalObject<T: KeyedArchivable & AnyObject>(_ object: T?, forKey key: String) throws {
        try checkOpen()
        guard let object else {
            if capturing { capturing = false; captured = .uid(UID(0)) } else { setField(key, .uid(UID(0))) }
            return
        }
        if capturing {
            // As a collection element there is no field to patch later: encode it unconditionally.
            try encodeObject(object, forKey: key)
            return
        }
        if let known = identities[ObjectIdentifier(object)] {
            setField(key, .uid(UID(UInt64(known))))
        } else {
            setField(key, .uid(UID(0)))
            pendingConditionals.append((currentUID, escaped(key), object))
        }
    }

    func encodeArray<T: ArchiveValue>(_ elements: [T], forKey key: String) throws {
        try encodeList(elements, as: .array, forKey: key)
    }

    func encodeOrderedSet<T: ArchiveValue>(_ elements: [T], forKey key: String) throws {
        try encodeList(elements, as: .orderedSet, forKey: key)
    }

    private func encodeList<T: ArchiveValue>(_ elements: [T], as builtin: BuiltinClass, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        let uid = append(.string("$placeholder"))
        var refs: [PropertyListValue] = []
        refs.reserveCapacity(elements.count)
        for element in elements { refs.append(try reference(for: element)) }
        if builtin == .orderedSet {
            // Added with the same layout of `KeyedArchiver`: NS.object.<index> members, Apple's layout.
            objects[uid] = .dictionary(PropertyListDictionary(
                distinctKeys: ["$class"] + refs.indices.map { "NS.object.\($0)" },
                values: [.uid(UID(UInt64(classUID(builtin))))] + refs))
        } else {
            objects[uid] = builtinObject(builtin, "NS.objects", .array(refs))
        }
        put(reference: uid, asElement: asElement, forKey: key)
        if currentUID < 0 && !asElement { try drain() }
    }

    func encodeSet<T: ArchiveValue & Hashable>(_ elements: Set<T>, forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        let uid = append(.string("$placeholder"))
        var refs: [PropertyListValue] = []
        refs.reserveCapacity(elements.count)
        for element in Self.ascendingWhenComparable(Array(elements)) { refs.append(try reference(for: element)) }
        objects[uid] = builtinObject(.set, "NS.objects", .array(refs))
        put(reference: uid, asElement: asElement, forKey: key)
        if currentUID < 0 && !asElement { try drain() }
    }

    /// Added with the same method of `KeyedArchiver`: distinct elements, first kept, in the order given.
    func encodeSet<T: ArchiveValue & Hashable>(orderedElements elements: [T], forKey key: String) throws {
        var seen = Set<T>()
        try encodeList(elements.filter { seen.insert($0).inserted }, as: .set, forKey: key)
    }

    /// The archiver's rule for sets and dictionaries, written independently: elements (keys) of a
    /// `Comparable` type ascending (`Double`, `Float` and `Date` in the IEEE 754 total order, others with
    /// `<`), `FoundationValue`s that are all strings as strings, anything else in the collection's order.
    static func ascending<T, Key>(_ items: [T], by key: (T) -> Key) -> [T] {
        if Key.self == FoundationValue.self {
            let strings = items.map { item -> String? in
                if case .string(let s) = key(item) as? FoundationValue { s } else { nil }
            }
            guard strings.allSatisfy({ $0 != nil }) else { return items }
            return zip(items, strings).sorted { $0.1! < $1.1! }.map(\.0)
        }
        guard Key.self is any Comparable.Type else { return items }
        return items.sorted { a, b in
            let first: any Comparable = key(a) as! any Comparable
            return Self.isLess(first, key(b))
        }
    }

    static func ascendingWhenComparable<T>(_ items: [T]) -> [T] { ascending(items) { $0 } }

    private static func isLess<C: Comparable>(_ a: C, _ b: Any) -> Bool {
        let b = b as! C
        if let x = a as? Double, let y = b as? Double { return x.isTotallyOrdered(belowOrEqualTo: y) && !y.isTotallyOrdered(belowOrEqualTo: x) }
        if let x = a as? Float, let y = b as? Float { return x.isTotallyOrdered(belowOrEqualTo: y) && !y.isTotallyOrdered(belowOrEqualTo: x) }
        if let x = a as? Date, let y = b as? Date {
            return Self.isLess(x.timeIntervalSinceReferenceDate, y.timeIntervalSinceReferenceDate)
        }
        return a < b
    }

    func encodeDictionary<K: ArchiveValue & Hashable, V: ArchiveValue>(_ dictionary: [K: V], forKey key: String) throws {
        try checkOpen()
        let asElement = takeCapture()
        let uid = append(.string("$placeholder"))
        var keyRefs: [PropertyListValue] = []
        var valueRefs: [PropertyListValue] = []
        keyRefs.reserveCapacity(dictionary.count)
        valueRefs.reserveCapacity(dictionary.count)
        for (k, v) in Self.ascending(Array(dictionary), by: \.key) {
            keyRefs.append(try reference(for: k))
            valueRefs.append(try reference(for: v))
        }
        objects[uid] = builtinObject(.dictionary, "NS.keys", .array(keyRefs), "NS.objects", .array(valueRefs))
        put(reference: uid, asElement: asElement, forKey: key)
        if currentUID < 0 && !asElement { try drain() }
    }
}
