#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Any keyed archive as a graph of archived objects, without instantiating a single type.
///
/// This is the explicit path for trusted, forensic or unknown data: every entry of `$objects` becomes an
/// ``ArchivedObject`` (an encoded instance with its class and keyed fields, a class description, an inline
/// string/number/data value, or `$null`), and `$top` maps top-level keys (usually just `root`) to
/// references. Unknown classes are kept exactly as stored; nothing is looked up in a class registry.
///
/// Loading validates the whole archive once, in a single pass that does not recurse on object depth, so
/// archives with million-deep chains and cycles load: every UID must be in range and every `$class` must
/// point at a valid class description. Objects are then read on demand with ``object(_:)``.
///
/// Writing the graph back with ``archivedData(format:)`` gives an archive that loads to an equal graph.
public struct ArchivedObjectGraph: Hashable, Sendable {
    /// The `$archiver` string (Apple writes `"NSKeyedArchiver"`).
    public let archiverName: String
    /// The `$version` integer (Apple writes 100000).
    public let version: PropertyListInteger
    /// `$top`: the top-level keys in stored order, each usually a reference.
    public let top: [ArchivedField]
    /// `$objects`, as stored and validated.
    let storage: [PropertyListValue]

    /// The number of entries in `$objects` (including `$null` and class descriptions).
    public var count: Int { storage.count }

    /// All UIDs of the graph, `0 ..< count`.
    public var uids: some Collection<UID> & Sendable { (0..<UInt64(storage.count)).lazy.map(UID.init) }

    /// Reads a keyed archive from binary or XML property-list bytes.
    ///
    /// - Parameters:
    ///   - data: the bytes of a property list whose root is a keyed archive.
    ///   - options: limits for the property-list reader.
    /// - Throws: ``KeyedArchiveError``: ``KeyedArchiveError/Code/invalidPropertyList`` (with the
    ///   underlying ``PropertyListError``) when the bytes are not a property list, otherwise the first fault
    ///   found in the archive with its object UID and key path.
    public init(data: Data, options: PropertyListReadingOptions = .init()) throws {
        let root: PropertyListValue
        do {
            root = try PropertyListValue(propertyListData: data, options: options)
        } catch let error as PropertyListError {
            throw KeyedArchiveError(.invalidPropertyList, error.description, underlying: error)
        }
        try self.init(propertyList: root)
    }

    /// Interprets an already-read property list as a keyed archive.
    ///
    /// - Parameter propertyList: the root of the archive: `{$archiver, $version, $top, $objects}`.
    /// - Throws: ``KeyedArchiveError`` naming the first fault, with object UID and key path.
    public init(propertyList: PropertyListValue) throws {
        let envelope = try KeyedArchiveEnvelope(propertyList)
        try self.init(envelope: envelope)
    }

    init(envelope: KeyedArchiveEnvelope) throws {
        var top: [ArchivedField] = []
        top.reserveCapacity(envelope.top.count)
        for (key, value) in envelope.top {
            top.append(ArchivedField(key, ArchivedValue(value)))
        }
        try Self.validate(top: envelope.top, objects: envelope.objects, envelope: envelope)
        self.archiverName = envelope.archiverName
        self.version = envelope.version
        self.top = top
        self.storage = envelope.objects
    }

    /// Builds a graph from objects, for writing an archive by hand.
    ///
    /// - Parameters:
    ///   - archiverName: the `$archiver` string.
    ///   - version: the `$version` integer.
    ///   - top: the top-level keys and their values (usually `root` -> a reference).
    ///   - objects: the entries of `$objects`; the object at position `i` must have UID `i`, and the first
    ///     is usually ``ArchivedObject/Content/null``.
    /// - Throws: ``KeyedArchiveError`` when a UID does not match its position, a reference is out of
    ///   range, or an instance's class does not match the class description it points at.
    public init(archiverName: String = "NSKeyedArchiver", version: PropertyListInteger = 100000,
                top: [ArchivedField], objects: [ArchivedObject]) throws {
        var stored: [PropertyListValue] = []
        stored.reserveCapacity(objects.count)
        for (i, object) in objects.enumerated() {
            guard object.uid.value == UInt64(i) else {
                throw KeyedArchiveError(.invalidReference, "object at position \(i) has UID \(object.uid.value)",
                                        objectUID: UInt64(i))
            }
            stored.append(object.storedValue)
        }
        let envelopeDict: PropertyListDictionary = [
            "$version": .integer(version),
            "$archiver": .string(archiverName),
            "$top": .dictionary(PropertyListDictionary(top.map { ($0.key, $0.value.storedValue) })),
            "$objects": .array(stored),
        ]
        let envelope = try KeyedArchiveEnvelope(.dictionary(envelopeDict))
        try self.init(envelope: envelope)
        // An instance's stated class must be the one its $class UID describes.
        for object in objects {
            guard case .instance(let instance) = object.content else { continue }
            guard let loaded = self.object(object.uid)?.instance, loaded.archivedClass == instance.archivedClass else {
                throw KeyedArchiveError(.invalidClass,
                                        "class \(instance.className) does not match the class description at UID \(instance.classUID.value)",
                                        objectUID: object.uid.value, className: instance.className)
            }
        }
    }

    // MARK: - Reading objects

    /// The object with this UID, or `nil` when the UID is out of range.
    public func object(_ uid: UID) -> ArchivedObject? {
        guard uid.value < UInt64(storage.count) else { return nil }
        let index = Int(uid.value)
        return ArchivedObject(uid: uid, content: Self.content(of: storage[index], at: index, in: storage))
    }

    /// The object with this UID, or `nil` when the UID is out of range.
    public subscript(uid: UID) -> ArchivedObject? { object(uid) }

    /// Every object, in UID order. Allocates them all; prefer ``object(_:)`` for large graphs.
    public var objects: [ArchivedObject] { uids.compactMap { object($0) } }

    /// The reference stored under `$top[key]` (`root` by default), or `nil` if absent or not a reference.
    public func topReference(_ key: String = "root") -> UID? {
        top.first(where: { $0.key == key })?.value.referenceUID
    }

    /// The class name of the instance with this UID, or `nil` when it is not an instance.
    public func className(of uid: UID) -> String? {
        guard uid.value < UInt64(storage.count), case .dictionary(let d) = storage[Int(uid.value)],
              case .uid(let classUID)? = d["$class"], classUID.value < UInt64(storage.count),
              case .dictionary(let classDict) = storage[Int(classUID.value)],
              case .string(let name)? = classDict["$classname"] else { return nil }
        return name
    }

    /// How many instances of each class the graph holds, by class name.
    public func instanceCounts() -> [String: Int] {
        var counts: [String: Int] = [:]
        for i in storage.indices {
            if let name = className(of: UID(UInt64(i))) { counts[name, default: 0] += 1 }
        }
        return counts
    }

    static func content(of stored: PropertyListValue, at index: Int, in storage: [PropertyListValue]) -> ArchivedObject.Content {
        if index == 0, case .string("$null") = stored { return .null }
        guard case .dictionary(let dict) = stored else { return .value(stored) }
        if case .uid(let classUID)? = dict["$class"], classUID.value < UInt64(storage.count),
           case .dictionary(let classDict) = storage[Int(classUID.value)],
           let archivedClass = instanceClass(classDict, uid: classUID) {
            var fields: [ArchivedField] = []
            fields.reserveCapacity(dict.count - 1)
            for (key, value) in dict where key != "$class" {
                fields.append(ArchivedField(key, ArchivedValue(value)))
            }
            return .instance(ArchivedInstance(classUID: classUID, archivedClass: archivedClass, fields: fields))
        }
        if dict["$class"] == nil, let definition = classDefinition(dict) {
            return .classDefinition(definition)
        }
        return .value(stored)
    }

    /// The class an instance's `$class` points at, read as leniently as ``KeyedArchiveEnvelope`` validates it:
    /// a `$classname` string and, if present, a `$classes` array of strings.
    static func instanceClass(_ classDict: PropertyListDictionary, uid: UID) -> ArchivedClass? {
        guard case .string(let name)? = classDict["$classname"] else { return nil }
        var chain: [String] = []
        if let classes = classDict["$classes"] {
            guard case .array(let items) = classes else { return nil }
            chain.reserveCapacity(items.count)
            for item in items {
                guard case .string(let s) = item else { return nil }
                chain.append(s)
            }
        }
        return ArchivedClass(name: name, chain: chain, uid: uid)
    }

    /// A class description, if `dict` is exactly one: `$classname` string, optional `$classes` and
    /// `$classhints` arrays of strings, nothing else.
    static func classDefinition(_ dict: PropertyListDictionary) -> ArchivedClassDefinition? {
        guard case .string(let name)? = dict["$classname"] else { return nil }
        var known = 1
        func strings(_ key: String) -> [String]?? {
            guard let v = dict[key] else { return .some(nil) }
            guard case .array(let items) = v else { return nil }
            var out: [String] = []
            out.reserveCapacity(items.count)
            for item in items {
                guard case .string(let s) = item else { return nil }
                out.append(s)
            }
            known += 1
            return .some(out)
        }
        guard let classes = strings("$classes"), let hints = strings("$classhints"), known == dict.count else {
            return nil
        }
        return ArchivedClassDefinition(name: name, classes: classes, hints: hints)
    }

    // MARK: - Validation

    /// One pass over `$objects`: every UID in range, every `$class` valid. Iterative on nesting.
    static func validate(top: PropertyListDictionary, objects: [PropertyListValue], envelope: KeyedArchiveEnvelope) throws {
        let count = UInt64(objects.count)
        for (key, value) in top {
            try checkUIDs(in: value, keyPath: "$top.\(key)", objectUID: nil, className: nil, count: count)
        }
        // Class descriptions are shared: each is checked once, then found by its UID.
        var classNames: [UInt64: String] = [:]
        for i in objects.indices {
            let uid = UID(UInt64(i))
            switch objects[i] {
            case .dictionary(let dict):
                guard let classPosition = dict.position(of: "$class") else {
                    try checkUIDs(in: objects[i], keyPath: "", objectUID: uid.value, className: nil, count: count)
                    continue
                }
                let className: String
                if case .uid(let classUID) = dict.values[classPosition], let known = classNames[classUID.value] {
                    className = known
                } else {
                    let archivedClass = try envelope.archivedClass(ofObject: dict, uid: uid, keyPath: "$class")
                    classNames[archivedClass.uid.value] = archivedClass.name
                    className = archivedClass.name
                }
                let values = dict.values
                for j in values.indices where j != classPosition {
                    switch values[j] {
                    case .uid(let u) where u.value < count: continue
                    case .string, .integer, .real, .float, .bool, .date, .data: continue
                    default:
                        try checkUIDs(in: values[j], keyPath: dict.keys[j], objectUID: uid.value, className: className, count: count)
                    }
                }
            case .array, .set:
                try checkUIDs(in: objects[i], keyPath: "", objectUID: uid.value, className: nil, count: count)
            case .uid(let u):
                // A bare UID as an entry of $objects: no writer does this, but it is well-formed if in range.
                try checkUIDs(in: .uid(u), keyPath: "", objectUID: uid.value, className: nil, count: count)
            default:
                continue
            }
        }
    }

    /// Throws on the first UID in `value` that is not below `count`. Builds the key path only on failure.
    static func checkUIDs(in value: PropertyListValue, keyPath: String, objectUID: UInt64?, className: String?,
                          count: UInt64) throws {
        switch value {
        case .uid(let u):
            guard u.value < count else {
                throw KeyedArchiveError(.invalidReference, "UID \(u.value) is out of range: $objects has \(count) entries",
                                        keyPath: keyPath, objectUID: objectUID, className: className)
            }
            return
        case .array, .set, .dictionary: break
        default: return
        }
        // Containers: explicit stack of (value, path).
        var pending: [(PropertyListValue, String)] = [(value, keyPath)]
        while let (v, path) = pending.popLast() {
            switch v {
            case .uid(let u):
                guard u.value < count else {
                    throw KeyedArchiveError(.invalidReference,
                                            "UID \(u.value) is out of range: $objects has \(count) entries",
                                            keyPath: path, objectUID: objectUID, className: className)
                }
            case .array(let items), .set(let items):
                for (j, item) in items.enumerated() {
                    switch item {
                    case .uid(let u) where u.value < count: continue
                    case .string, .integer, .real, .float, .bool, .date, .data: continue
                    default: pending.append((item, "\(path)[\(j)]"))
                    }
                }
            case .dictionary(let d):
                for (k, item) in d {
                    switch item {
                    case .uid(let u) where u.value < count: continue
                    case .string, .integer, .real, .float, .bool, .date, .data: continue
                    default: pending.append((item, path.isEmpty ? k : "\(path).\(k)"))
                    }
                }
            default:
                continue
            }
        }
    }

    // MARK: - Writing

    /// The archive as a property list: `{$version, $archiver, $top, $objects}`.
    public var propertyList: PropertyListValue {
        .dictionary([
            "$version": .integer(version),
            "$archiver": .string(archiverName),
            "$top": .dictionary(PropertyListDictionary(top.map { ($0.key, $0.value.storedValue) })),
            "$objects": .array(storage),
        ])
    }

    /// Writes the graph back as a keyed archive.
    ///
    /// Reading the result with ``init(data:options:)`` gives a graph equal to this one.
    /// - Parameter format: binary (the default) or XML.
    /// - Returns: the property-list bytes.
    /// - Throws: ``PropertyListError`` when the format cannot represent a value (XML has no sets).
    public func archivedData(format: PropertyListFormat = .binary) throws -> Data {
        try propertyList.propertyListData(format: format)
    }
}

extension ArchivedObject {
    /// The entry as it is stored in `$objects`.
    public var storedValue: PropertyListValue {
        switch content {
        case .null:
            return .string("$null")
        case .value(let v):
            return v
        case .classDefinition(let d):
            var dict: PropertyListDictionary = ["$classname": .string(d.name)]
            if let classes = d.classes { dict["$classes"] = .array(classes.map(PropertyListValue.string)) }
            if let hints = d.hints { dict["$classhints"] = .array(hints.map(PropertyListValue.string)) }
            return .dictionary(dict)
        case .instance(let instance):
            var dict = PropertyListDictionary(instance.fields.map { ($0.key, $0.value.storedValue) })
            dict["$class"] = .uid(instance.classUID)
            return .dictionary(dict)
        }
    }
}
