#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A binary keyed archive whose envelope has been checked, read one `$objects` entry at a time.
///
/// It keeps the bytes (a `let` `Data`, often a mapping made by ``FileReader``) and the checked trailer;
/// every access sets a scanner up over the bytes again (no pointer outlives a `withUnsafeBytes` call) and
/// decodes only the entry asked for and what that entry contains, never the objects it refers to. Data
/// values are slices of the bytes (zero-copy), so they keep the mapping alive after the archive is gone.
///
/// Opening checks the header, the trailer and the envelope (rules 1-3 of ``KeyedArchiveValidation``);
/// each offset-table entry is checked when its object is first used, and rules 4-6 per entry when it is
/// read, so opening costs the same for any size of file.
final class MappedArchive: Sendable {
    /// The archive's bytes; never mutated, so the scanner's view of them stays valid in each access.
    let data: Data
    let layout: BinaryPropertyListScanner.Layout
    /// Where `$objects`' references start.
    let objectsStart: Int
    /// The number of entries in `$objects`.
    let count: Int
    let archiverName: String
    let version: PropertyListInteger
    let top: PropertyListDictionary

    /// Opens `data`, a binary property list, as a keyed archive.
    /// - Throws: ``KeyedArchiveError`` as ``ArchivedObjectGraph/init(data:options:)`` throws it for a broken
    ///   property-list structure or envelope (``KeyedArchiveError/Code/invalidPropertyList``,
    ///   ``KeyedArchiveError/Code/invalidArchive``, ``KeyedArchiveError/Code/invalidReference``).
    init(binary data: Data, options: PropertyListReadingOptions) throws {
        self.data = data
        let (layout, objects, root) = try Self.wrapping {
            try data.withUnsafeBytes { raw in
                // The offset table is not checked as a whole: each entry is checked when its object is read.
                let scanner = try BinaryPropertyListScanner(raw, options: options, checkingOffsets: false)
                try scanner.requireValidOffset(scanner.topObject)
                return (scanner.layout, try Self.objectsArray(scanner), try Self.envelopeWithoutObjects(scanner))
            }
        }
        let envelope = try KeyedArchiveEnvelope(root)
        try KeyedArchiveValidation.checkArchiver(envelope.archiverName)
        try KeyedArchiveValidation.checkVersion(envelope.version)
        self.layout = layout
        self.objectsStart = objects?.start ?? 0
        self.count = objects?.count ?? 0
        self.archiverName = envelope.archiverName
        self.version = envelope.version
        self.top = envelope.top
        // Rule 2: $objects[0] is "$null"; rules 3 and 4: every UID in $top is in range.
        let first = try storedValue(0)
        guard case .string("$null") = first else {
            throw KeyedArchiveError(.invalidArchive, "$objects[0] must be the string \"$null\", found \(first.kindName) "
                                        + UnarchivingSession.preview(first), objectUID: 0)
        }
        if let error = KeyedArchiveValidation.uidsOutOfRange(in: .dictionary(top), prefix: "$top.", objectCount: count, limit: 1).first {
            throw error
        }
    }

    /// Runs `body`, turning a property-list fault into a keyed-archive error.
    static func wrapping<R>(_ body: () throws -> R) throws -> R {
        do {
            return try body()
        } catch let error as PropertyListError {
            throw KeyedArchiveError(.invalidPropertyList, "not a readable property list: \(error.message)", underlying: error)
        }
    }

    /// `$objects` of the root dictionary when it is an array: its count and where its references start.
    private static func objectsArray(_ scanner: BinaryPropertyListScanner) throws -> (count: Int, start: Int)? {
        guard let n = try member("$objects", of: scanner.topObject, scanner) else { return nil }
        try scanner.requireValidOffset(n)
        guard let c = try scanner.container(n), c.kind == .array else { return nil }
        return (c.count, c.start)
    }

    /// The root with every member decoded but `$objects`, which (when it is a non-empty array) stands as a
    /// one-element array, so that ``KeyedArchiveEnvelope`` checks the shape without the whole list.
    private static func envelopeWithoutObjects(_ scanner: BinaryPropertyListScanner) throws -> PropertyListValue {
        let root = scanner.topObject
        guard let c = try scanner.container(root), c.kind == .dictionary else {
            // Not a dictionary: only its kind is reported, so an empty container of that kind stands for it.
            switch try scanner.container(root)?.kind {
            case .array?: return .array([])
            case .set?, .orderedSet?: return .set([])
            default: return try scanner.subtree(root, depth: 0)
            }
        }
        var keys: [String] = [], values: [PropertyListValue] = []
        for i in 0 ..< c.count {
            let keyAt = c.start + i * scanner.refSize
            let keyObject = try scanner.reference(at: keyAt, object: root)
            try scanner.requireValidOffset(keyObject)
            if let kind = scanner.kind(of: keyObject), kind.isContainer {
                try BinaryPropertyListScanner.containerKeyError(kind, keyAt, root)
            }
            let keyValue = try scanner.subtree(keyObject, depth: 1)
            guard case .string(let key) = keyValue else { try BinaryPropertyListScanner.keyError(keyValue, keyAt, root) }
            guard ["$archiver", "$version", "$top", "$objects"].contains(key) else { continue }
            let n = try scanner.reference(at: c.start + (c.count + i) * scanner.refSize, object: root)
            try scanner.requireValidOffset(n)
            if key == "$objects", let list = try scanner.container(n), list.kind == .array, list.count > 0 {
                values.append(.array([.string("$null")]))
            } else {
                values.append(try scanner.subtree(n, depth: 1))
            }
            keys.append(key)
        }
        return .dictionary(PropertyListDictionary(keys: keys, values: values))
    }

    /// The object stored under `key` in dictionary `n` (the last entry with that key), or nil.
    private static func member(_ key: String, of n: Int, _ scanner: BinaryPropertyListScanner) throws -> Int? {
        guard let c = try scanner.container(n), c.kind == .dictionary else { return nil }
        var key = key
        return try key.withUTF8 { utf8 in
            for i in (0 ..< c.count).reversed() {
                let k = try scanner.reference(at: c.start + i * scanner.refSize, object: n)
                try scanner.requireValidOffset(k)
                if try scanner.string(k, equals: utf8) == true {
                    return try scanner.reference(at: c.start + (c.count + i) * scanner.refSize, object: n)
                }
            }
            return nil
        }
    }

    /// Runs `body` with a scanner over the bytes (valid only inside `body`).
    func withScanner<R>(_ body: (BinaryPropertyListScanner) throws -> R) throws -> R {
        try data.withUnsafeBytes { raw in try body(BinaryPropertyListScanner(checked: raw, layout: layout, source: data)) }
    }

    /// `$objects[index]` (`index` below ``count``) as stored, with every UID inside checked to be in range.
    /// - Throws: ``KeyedArchiveError``: ``KeyedArchiveError/Code/invalidPropertyList`` (with the
    ///   underlying ``PropertyListError``) or ``KeyedArchiveError/Code/invalidReference``, with the object UID.
    func storedValue(_ index: Int) throws -> PropertyListValue {
        do {
            return try Self.wrapping {
                try withScanner { scanner in
                    let n = try scanner.reference(at: objectsStart + index * scanner.refSize, object: scanner.topObject)
                    // The root dictionary and $objects are above the entry.
                    return try scanner.subtree(n, depth: 2, uidLimit: UInt64(count))
                }
            }
        } catch let error as BinaryPropertyListScanner.UIDOutOfRange {
            if error.keyPath == "$class" {
                // The entry's own class reference: a class fault, as the whole archive's check reports it.
                throw KeyedArchiveError(.invalidClass, "$class UID \(error.value) is out of range: $objects has \(count) entries",
                                        keyPath: "$class", objectUID: UInt64(index))
            }
            throw outOfRange(error.value, keyPath: error.keyPath, uid: UInt64(index))
        } catch var error as KeyedArchiveError {
            if error.objectUID == nil { error.objectUID = UInt64(index) }
            throw error
        }
    }

    private func outOfRange(_ value: UInt64, keyPath: String, uid: UInt64?) -> KeyedArchiveError {
        KeyedArchiveError(.invalidReference, "UID \(value) is out of range: $objects has \(count) entries",
                          keyPath: keyPath, objectUID: uid)
    }

    /// The entry with UID `index` as the raw model shows it, its `$class` (if any) checked as the whole
    /// archive's check does (rule 5).
    func content(_ index: Int) throws -> ArchivedObject.Content {
        let stored = try storedValue(index)
        guard case .dictionary(let dict) = stored, let classRef = dict["$class"] else {
            return ArchivedObjectGraph.content(of: stored, at: index) { _ in nil }
        }
        let archivedClass = try self.archivedClass(classRef, uid: UInt64(index))
        return ArchivedObjectGraph.content(of: stored, at: index) { $0 == archivedClass.uid.value ? archivedClass : nil }
    }

    /// `value` as an array of strings, or nil when it is anything else.
    private static func strings(_ value: PropertyListValue?) -> [String]? {
        guard case .array(let items)? = value else { return nil }
        let strings = items.compactMap { if case .string(let s) = $0 { s } else { nil } }
        return strings.count == items.count ? strings : nil
    }

    /// The class that `$class` value `classRef` of entry `uid` names (rule 5 of ``KeyedArchiveValidation``).
    func archivedClass(_ classRef: PropertyListValue, uid: UInt64) throws -> ArchivedClass {
        try Self.checkedClass(classRef, uid: uid, objectCount: count) { try storedValue($0) }
    }

    /// The class that `$class` value `classRef` of entry `uid` names, checked by rule 5 of
    /// ``KeyedArchiveValidation`` with its messages, in an archive of `objectCount` entries read by `entry`.
    static func checkedClass(_ classRef: PropertyListValue, uid: UInt64, objectCount: Int,
                             entry: (Int) throws -> PropertyListValue) throws -> ArchivedClass {
        func invalid(_ message: String) -> KeyedArchiveError {
            KeyedArchiveError(.invalidClass, message, keyPath: "$class", objectUID: uid)
        }
        guard case .uid(let classUID) = classRef else { throw invalid("$class must be a UID, found \(classRef.kindName)") }
        guard classUID.value < UInt64(objectCount) else {
            throw invalid("$class UID \(classUID.value) is out of range: $objects has \(objectCount) entries")
        }
        let stored = try entry(Int(classUID.value))
        guard case .dictionary(let dict) = stored else {
            throw invalid("$class points at object #\(classUID.value), a \(stored.kindName), not a class dictionary")
        }
        guard let nameValue = dict["$classname"] else { throw invalid("class dictionary #\(classUID.value) has no $classname") }
        guard case .string(let name) = nameValue else {
            throw invalid("$classname of class dictionary #\(classUID.value) must be a string, found \(nameValue.kindName)")
        }
        // `$classes` and `$classhints` are informational (no reader acts on them): malformed ones are ignored,
        // as the whole archive's check ignores them.
        return ArchivedClass(name: name, chain: strings(dict["$classes"]) ?? [], hints: strings(dict["$classhints"]), uid: classUID)
    }
}
