/// The validity rules of a keyed archive and their errors, written once for every reader.
///
/// Every reader of keyed archives stands on these rules, so an archive is valid for one exactly when it is
/// valid for the others, with the same error: the typed unarchiver (bytes, or an already parsed
/// ``PropertyListValue`` written as binary first), ``ArchivedObjectGraph`` (and so
/// `archive-dump --validate`), ``LazyArchivedObjectGraph`` (object by object), and the lenient graph
/// (which records each broken rule instead of throwing).
///
/// The rules, each with the evidence it follows (a rule without evidence from a real writer, a real reader
/// or a real file is not checked):
/// 1. The root is a dictionary with `$archiver` (the string `"NSKeyedArchiver"`), `$version` (the integer
///    100000), `$top` (a dictionary with string keys) and `$objects` (an array). corelibs' unarchiver
///    (`NSKeyedUnarchiver._readPropertyList`) refuses any other archiver name or version and a `$top` or
///    `$objects` of another type ("The data may be corrupt"); every archive in the corpus has these.
/// 2. `$objects[0]` is the string `"$null"` (UID 0 means nil): Apple's, corelibs' and GNUstep's archivers
///    all write it there, and GNUstep's unarchiver maps index 0 to nil without reading it.
/// 3. `$top` is the archiver's own top-level container and follows the rules of an object's fields
///    (rules 4 and 6): whatever a program encodes straight into the archiver lands there as inside an
///    object. Objects are UIDs; `encodeBool`, `encodeInteger`, `encodeDouble` and `encodeBytes` values are
///    inline (Apple's compiled nibs store `IB.systemFontUpdateVersion` inline beside `IB.objectdata`,
///    corpus/inline-top; Foundation on Linux and GNUstep write `encode(true, forKey:)` on the archiver
///    inline), and so is the inline array of UIDs `NSArray.encode(with:)` writes when called on the
///    archiver itself (Foundation on Linux). Only a value *decoded as an object* must be a UID: the
///    decoder says so for the key it was asked for, as corelibs' (`"is not a reference"`) and GNUstep's
///    (`decodeObjectForKey:` raises) unarchivers do.
/// 4. Every UID anywhere in `$top` and `$objects` is below the number of entries of `$objects`: corelibs'
///    unarchiver fails on such a UID ("Invalid object reference") when it reads it; the whole-archive
///    check reports it before any object is built, wherever it is.
/// 5. Every entry of `$objects` that is a dictionary with `$class`: `$class` is a UID naming a class
///    dictionary, whose `$classname` is a string. GNUstep's unarchiver reads `$class` as a UID
///    (`objectForKey: @"CF$UID"`, which raises on anything else); corelibs' refuses a class reference
///    that does not lead to a class dictionary ("is not decodable") and a class dictionary without a
///    string `$classname` ("Invalid class"). `$classes` and `$classhints` are informational: corelibs' and
///    GNUstep's unarchivers only hand `$classes` to the delegate (corelibs casts it with `as? [String]`,
///    ignoring anything else) and no reader acts on hints, so a malformed one is ignored (the raw model
///    then shows no chain), never an error.
/// 6. No container contains itself (at the property-list level, through property-list references):
///    CoreFoundation's binary reader (`CFBinaryPList.c`) refuses a container on its own path.
///
/// Rule 1 is ``readEnvelope(_:report:)``, over any form of the root. The whole archive is checked by
/// ``KeyedArchiveValidation`` (rules 2-6 in one walk over the bytes); ``MappedArchive`` checks rules 2-4
/// for `$top` when it opens and rules 4-6 per entry when it reads one; both report through the errors
/// below.
enum KeyedArchiveRules {
    /// The `$archiver` string every valid archive has.
    static let archiverName = "NSKeyedArchiver"
    /// The `$version` integer every valid archive has.
    static let version: Int64 = 100000

    // MARK: Rule 1: the envelope

    /// Rule 1 for `$archiver`.
    static func checkArchiver(_ name: String) throws {
        guard name == archiverName else {
            throw KeyedArchiveError(.invalidArchive, "$archiver must be \"\(archiverName)\", found "
                                        + preview(.string(name)) + " (other archivers' formats are not read)")
        }
    }

    /// Rule 1 for `$version`.
    static func checkVersion(_ found: PropertyListInteger) throws {
        guard found == PropertyListInteger(version) else {
            throw KeyedArchiveError(.invalidArchive, "$version must be \(version), found \(found)")
        }
    }

    /// What rule 1 found in the envelope: the members that have the right type (nil for one that is
    /// missing or of another type, which `report` was told of).
    struct Envelope<Root: KeyedArchiveRoot> {
        /// `$archiver`, or "" when it is missing or not a string.
        var archiverName = ""
        /// `$version`, or 0 when it is missing or not an integer.
        var version = PropertyListInteger(0)
        /// `$top`, when it is a dictionary.
        var top: Root.Dictionary?
        /// `$objects`, when it is an array (it may be empty: `report` was told so).
        var objects: Root.Array?
    }

    /// Rule 1 on `root`, its first fault thrown: the envelope of an archive that keeps it.
    static func checkedEnvelope<Root: KeyedArchiveRoot>(_ root: Root) throws
        -> (archiverName: String, version: PropertyListInteger, top: Root.Dictionary, objects: Root.Array)
    {
        let envelope = try readEnvelope(root) { throw $0 }
        guard let top = envelope.top, let objects = envelope.objects else {
            // readEnvelope has thrown the fault of a missing or mistyped member.
            throw KeyedArchiveError(.invalidArchive, "the envelope lacks $top or $objects")
        }
        return (envelope.archiverName, envelope.version, top, objects)
    }

    /// Checks rule 1 (and that `$objects` is not empty, for rule 2) on `root`, in a fixed order, handing
    /// each fault to `report`: a strict reader throws it (so the first fault is the error), the lenient
    /// graph records it and reads on.
    static func readEnvelope<Root: KeyedArchiveRoot>(_ root: Root, report: (KeyedArchiveError) throws -> Void)
        throws -> Envelope<Root>
    {
        var envelope = Envelope<Root>()
        if let kind = try root.nonDictionaryKindName() {
            try report(KeyedArchiveError(.invalidArchive, "the root of a keyed archive must be a dictionary, found \(kind)"))
            return envelope
        }
        /// The member under `key` and what `read` makes of it; nil, the fault reported, when it is missing
        /// or `read` refuses it (it is not `kind`).
        func member<Value>(_ key: String, _ kind: String, missing: String? = nil,
                           _ read: (Root.Member) throws -> Value?) throws -> (Root.Member, Value)? {
            guard let found = try root.member(key) else {
                try report(KeyedArchiveError(.invalidArchive, missing ?? "\(key) is missing"))
                return nil
            }
            guard let value = try read(found) else {
                try report(KeyedArchiveError(.invalidArchive, "\(key) must be \(kind), found \(try root.kindName(found))"))
                return nil
            }
            return (found, value)
        }

        if let (_, name) = try member("$archiver", "a string", missing: "$archiver is missing: this is a property list, not a keyed archive",
                                      root.string) {
            envelope.archiverName = name
            do { try checkArchiver(name) } catch let error as KeyedArchiveError { try report(error) }
        }
        if let (_, number) = try member("$version", "an integer", root.integer) {
            envelope.version = number
            do { try checkVersion(number) } catch let error as KeyedArchiveError { try report(error) }
        }
        if let (_, top) = try member("$top", "a dictionary", root.dictionary) {
            envelope.top = top
        }
        if let (_, objects) = try member("$objects", "an array", root.array) {
            envelope.objects = objects
            if root.count(of: objects) == 0 { try report(KeyedArchiveError(.invalidArchive, "$objects is empty: index 0 must hold \"$null\"")) }
        }
        return envelope
    }

    /// Rule 1 for `$top`'s keys.
    static func topKeyNotAString(found kind: String) -> KeyedArchiveError {
        KeyedArchiveError(.invalidArchive, "$top keys must be strings, found \(kind)")
    }

    // MARK: Rule 2: `$null`

    /// Rule 2 broken: `$objects[0]` is what `found` describes (see ``found(kindName:scalar:)``).
    static func nullEntryFault(found: String) -> KeyedArchiveError {
        KeyedArchiveError(.invalidArchive, "$objects[0] must be the string \"$null\", found \(found)", objectUID: 0)
    }

    /// Rule 2 for a decoded `$objects[0]`, or nil when it keeps it.
    static func nullEntryFault(_ first: PropertyListValue) -> KeyedArchiveError? {
        if case .string("$null") = first { return nil }
        switch first {
        case .array, .set, .dictionary, .uid: return nullEntryFault(found: found(kindName: first.kindName, scalar: nil))
        default: return nullEntryFault(found: found(kindName: first.kindName, scalar: first))
        }
    }

    // MARK: Rule 4: UIDs in range

    /// Rule 4 broken: UID `value` found at `keyPath` of entry `objectUID` (nil: in `$top`).
    static func uidOutOfRange(_ value: UInt64, objectCount: Int, keyPath: String?, objectUID: UInt64?,
                              className: String? = nil) -> KeyedArchiveError {
        KeyedArchiveError(.invalidReference, "UID \(value) is out of range: $objects has \(objectCount) entries",
                          keyPath: keyPath, objectUID: objectUID, className: className)
    }

    /// Rule 4 for an already decoded value (the lazy graph's `$top`, the lenient graph's entries): the UIDs
    /// inside `value` that are not below `objectCount`, at most `limit`, each with its key path as the
    /// whole archive's check renders it (after `prefix`). An entry's own `$class` is not looked at (rule 5
    /// reports it). Iterative, so any nesting is safe.
    static func uidsOutOfRange(in value: PropertyListValue, prefix: String, objectCount: Int, objectUID: UInt64? = nil,
                               className: String? = nil, limit: Int = .max) -> [KeyedArchiveError] {
        var found: [KeyedArchiveError] = []
        var pending: [(value: PropertyListValue, path: String)] = [(value, "")]
        var isRoot = true
        while let (value, path) = pending.popLast(), found.count < limit {
            switch value {
            case .uid(let uid) where uid.value >= UInt64(objectCount):
                found.append(uidOutOfRange(uid.value, objectCount: objectCount, keyPath: prefix + path,
                                           objectUID: objectUID, className: className))
            case .array(let items), .set(let items):
                pending.append(contentsOf: items.indices.reversed().map { (items[$0], path + "[\($0)]") })
            case .dictionary(let dict):
                let skipsClass = isRoot && objectUID != nil
                pending.append(contentsOf: dict.reversed().filter { !(skipsClass && $0.key == "$class") }.map {
                    ($0.value, path.isEmpty ? $0.key : path + "." + $0.key)
                })
            default:
                break
            }
            isRoot = false
        }
        return found
    }

    // MARK: Rule 5: classes

    /// A way rule 5 can be broken by an entry's `$class`.
    enum ClassFault {
        /// `$class` is not a UID; `found` is its kind.
        case notAUID(found: String)
        /// `$class` is a UID past the end of `$objects`.
        case outOfRange(UInt64, objectCount: Int)
        /// `$class` names an entry that is not a dictionary; `found` is its kind.
        case notAClassDictionary(UInt64, found: String)
        /// The class dictionary has no `$classname`.
        case noClassName(UInt64)
        /// The class dictionary's `$classname` is not a string; `found` is its kind.
        case classNameNotAString(UInt64, found: String)

        /// The error for this fault in entry `objectUID`.
        func error(objectUID: UInt64) -> KeyedArchiveError {
            let message: String
            switch self {
            case .notAUID(let found):
                message = "$class must be a UID, found \(found)"
            case .outOfRange(let uid, let objectCount):
                message = "$class UID \(uid) is out of range: $objects has \(objectCount) entries"
            case .notAClassDictionary(let uid, let found):
                message = "$class points at object #\(uid), a \(found), not a class dictionary"
            case .noClassName(let uid):
                message = "class dictionary #\(uid) has no $classname"
            case .classNameNotAString(let uid, let found):
                message = "$classname of class dictionary #\(uid) must be a string, found \(found)"
            }
            return KeyedArchiveError(.invalidClass, message, keyPath: "$class", objectUID: objectUID)
        }
    }

    /// The class that the decoded `$class` value `classRef` of entry `uid` names, checked by rule 5, in an
    /// archive of `objectCount` entries read by `entry`.
    static func checkedClass(_ classRef: PropertyListValue, uid: UInt64, objectCount: Int,
                             entry: (Int) throws -> PropertyListValue) throws -> ArchivedClass {
        guard case .uid(let classUID) = classRef else {
            throw ClassFault.notAUID(found: classRef.kindName).error(objectUID: uid)
        }
        guard classUID.value < UInt64(objectCount) else {
            throw ClassFault.outOfRange(classUID.value, objectCount: objectCount).error(objectUID: uid)
        }
        let stored = try entry(Int(classUID.value))
        guard case .dictionary(let dict) = stored else {
            throw ClassFault.notAClassDictionary(classUID.value, found: stored.kindName).error(objectUID: uid)
        }
        guard let nameValue = dict["$classname"] else { throw ClassFault.noClassName(classUID.value).error(objectUID: uid) }
        guard case .string(let name) = nameValue else {
            throw ClassFault.classNameNotAString(classUID.value, found: nameValue.kindName).error(objectUID: uid)
        }
        return ArchivedClass(name: name, chain: strings(dict["$classes"]) ?? [], hints: strings(dict["$classhints"]), uid: classUID)
    }

    /// A decoded `$classes` or `$classhints` as strings, or nil when it is not an array of strings (rule 5:
    /// informational, so a malformed one is ignored).
    private static func strings(_ value: PropertyListValue?) -> [String]? {
        guard case .array(let items)? = value else { return nil }
        let strings = items.compactMap { if case .string(let s) = $0 { s } else { nil } }
        return strings.count == items.count ? strings : nil
    }

    // MARK: Messages

    /// What a message says was found: the kind, and a scalar's value after it.
    static func found(kindName: String, scalar: PropertyListValue?) -> String {
        scalar.map { "\(kindName) \(preview($0))" } ?? kindName
    }

    /// A short preview of a scalar for messages (empty for others).
    static func preview(_ value: PropertyListValue) -> String {
        switch value {
        case .string(let s): return s.count > 40 ? "\"\(s.prefix(40))...\"" : "\"\(s)\""
        case .integer(let i): return i.description
        case .real(let d): return "\(d)"
        case .float(let f): return "\(f)"
        case .bool(let b): return "\(b)"
        default: return ""
        }
    }
}
