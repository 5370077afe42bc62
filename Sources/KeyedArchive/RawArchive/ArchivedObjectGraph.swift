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
/// references, or to inline values that a program encoded straight into the archiver (`encodeBool`,
/// `encodeInteger`...: compiled nibs store `IB.systemFontUpdateVersion` so). Unknown classes are kept exactly as stored; nothing is looked up in a class registry.
///
/// Loading validates the whole archive once, in a single pass that does not recurse on object depth, so
/// archives with million-deep chains and cycles load. The rules are those of the typed unarchiver, checked
/// by the same code with the same errors (`$archiver` "NSKeyedArchiver", `$version` 100000, `$objects[0]`
/// "$null", every UID in `$top` and `$objects` in range, every `$class` a valid class description, no container
/// inside itself). Objects are then read on demand with ``object(_:)``.
///
/// Writing the graph back with ``archivedData(format:)`` gives an archive that loads to an equal graph.
public struct ArchivedObjectGraph: Hashable, Sendable {
    /// The `$archiver` string (Apple writes `"NSKeyedArchiver"`).
    public let archiverName: String
    /// The `$version` integer (Apple writes 100000).
    public let version: PropertyListInteger
    /// `$top`: the top-level keys in stored order, each a reference or an inline value.
    public let top: [ArchivedField]
    /// `$objects`, as stored and validated (decoded, or read from the bytes on demand).
    let storage: ArchivedObjectStorage
    /// The class of every class description an instance points at, by its UID (found while validating).
    let classes: [UInt64: ArchivedClass]
    /// The places that break the archive's rules, each with the error the strict reader reports for it, in
    /// a graph read with ``init(lenient:options:)``; always empty otherwise.
    public let damage: [KeyedArchiveError]

    /// Graphs are equal when `$archiver`, `$version`, `$top`, every entry of `$objects` and the damage
    /// found (none, for a strictly read graph) are equal.
    public static func == (lhs: ArchivedObjectGraph, rhs: ArchivedObjectGraph) -> Bool {
        lhs.archiverName == rhs.archiverName && lhs.version == rhs.version && lhs.top == rhs.top
            && lhs.storage == rhs.storage && lhs.damage == rhs.damage
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(archiverName)
        hasher.combine(version)
        hasher.combine(top)
        hasher.combine(storage)
    }

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
        self.init(decoded: try KeyedArchiveReader.decodedArchive(data, options: options))
    }

    /// Reads a keyed archive from `data`, whose property list `root` the caller has already read with
    /// default options (it is not read again); checked as ``init(data:options:)`` checks it.
    /// - Throws: ``KeyedArchiveError`` as ``init(data:options:)`` throws it.
    package init(data: Data, parsedRoot root: PropertyListValue) throws {
        self.init(decoded: try KeyedArchiveReader.decodedArchive(data, parsedRoot: root, options: .init()))
    }

    /// Interprets an already-read property list as a keyed archive.
    ///
    /// The archive is checked by the same rules, with the same errors, as bytes (``KeyedUnarchiver`` and
    /// ``init(data:options:)``): see the rules in <doc:SecureUnarchiving> (`ArchiveReading/KeyedArchiveRules.swift`).
    /// - Parameter propertyList: the root of the archive: `{$archiver, $version, $top, $objects}`.
    /// - Throws: ``KeyedArchiveError`` naming the first fault, with object UID and key path.
    public init(propertyList: PropertyListValue) throws {
        self.init(decoded: try KeyedArchiveReader.decodedArchive(propertyList))
    }

    private init(decoded archive: KeyedArchiveReader.DecodedArchive) {
        self.init(archiverName: archive.archiverName, version: archive.version, top: archive.top,
                  objects: archive.objects, classes: archive.classes, damage: [])
    }

    init(archiverName: String, version: PropertyListInteger, top: PropertyListDictionary, objects: [PropertyListValue],
         classes: [UInt64: ArchivedClass], damage: [KeyedArchiveError]) {
        var fields: [ArchivedField] = []
        fields.reserveCapacity(top.count)
        for (key, value) in top {
            fields.append(ArchivedField(key, ArchivedValue(value)))
        }
        self.classes = classes
        self.archiverName = archiverName
        self.version = version
        self.top = fields
        self.storage = ArchivedObjectStorage(objects)
        self.damage = damage
    }

    /// A graph whose entries are read from `archive`'s bytes on demand (checked in full by the caller).
    init(mapped archive: MappedArchive, classes: [UInt64: ArchivedClass]) {
        self.classes = classes
        self.archiverName = archive.archiverName
        self.version = archive.version
        self.top = archive.top.map { ArchivedField($0.key, ArchivedValue($0.value)) }
        self.storage = ArchivedObjectStorage(mapped: archive)
        self.damage = []
    }

    /// Builds a graph from objects, for writing an archive by hand.
    ///
    /// - Parameters:
    ///   - archiverName: the `$archiver` string.
    ///   - version: the `$version` integer.
    ///   - top: the top-level keys and their values (usually `root` -> a reference; scalars encoded straight
    ///     into the archiver are inline values).
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
        try self.init(propertyList: .dictionary(envelopeDict))
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
        return ArchivedObject(uid: uid, content: content(of: storage[index], at: index))
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
              case .uid(let classUID)? = d["$class"] else { return nil }
        return classes[classUID.value]?.name
    }

    /// How many instances of each class the graph holds, by class name.
    public func instanceCounts() -> [String: Int] {
        var counts: [String: Int] = [:]
        for i in storage.indices {
            if let name = className(of: UID(UInt64(i))) { counts[name, default: 0] += 1 }
        }
        return counts
    }

    func content(of stored: PropertyListValue, at index: Int) -> ArchivedObject.Content {
        Self.content(of: stored, at: index) { classes[$0] }
    }

    /// Entry `index` as the raw model shows it; `classNamed` gives the checked class of a `$class` UID.
    static func content(of stored: PropertyListValue, at index: Int, classNamed: (UInt64) -> ArchivedClass?) -> ArchivedObject.Content {
        if index == 0, case .string("$null") = stored { return .null }
        guard case .dictionary(let dict) = stored else { return .value(stored) }
        if let classPosition = dict.position(of: "$class"), case .uid(let classUID) = dict.values[classPosition],
           let archivedClass = classNamed(classUID.value) {
            var fields: [ArchivedField] = []
            fields.reserveCapacity(dict.count - 1)
            let keys = dict.keys, values = dict.values
            for j in keys.indices where j != classPosition {
                fields.append(ArchivedField(keys[j], ArchivedValue(values[j])))
            }
            return .instance(ArchivedInstance(classUID: classUID, archivedClass: archivedClass, fields: fields))
        }
        if dict["$class"] == nil, let definition = Self.classDefinition(dict, uid: UID(UInt64(index))) {
            return .classDefinition(definition)
        }
        return .value(stored)
    }

    /// A class description, if `dict` is exactly one: `$classname` string, optional `$classes` and
    /// `$classhints` arrays of strings, nothing else.
    static func classDefinition(_ dict: PropertyListDictionary, uid: UID) -> ArchivedClass? {
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
        return ArchivedClass(name: name, chain: classes ?? [], hints: hints, uid: uid)
    }

    // MARK: - Writing

    /// The archive as a property list: `{$version, $archiver, $top, $objects}`.
    public var propertyList: PropertyListValue {
        .dictionary([
            "$version": .integer(version),
            "$archiver": .string(archiverName),
            "$top": .dictionary(PropertyListDictionary(top.map { ($0.key, $0.value.storedValue) })),
            "$objects": .array(Array(storage)),
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
            if !d.chain.isEmpty { dict["$classes"] = .array(d.chain.map(PropertyListValue.string)) }
            if let hints = d.hints { dict["$classhints"] = .array(hints.map(PropertyListValue.string)) }
            return .dictionary(dict)
        case .instance(let instance):
            var dict = PropertyListDictionary(instance.fields.map { ($0.key, $0.value.storedValue) })
            dict["$class"] = .uid(instance.classUID)
            return .dictionary(dict)
        }
    }
}
