/// The outer structure of an NSKeyedArchiver archive, validated once, with checked object access.
///
/// ```
/// { "$archiver": "NSKeyedArchiver", "$version": 100000,
///   "$top": { "root": UID(1), ... }, "$objects": [ "$null", ... ] }
/// ```
/// Both the typed unarchiver and the raw archive model stand on this; neither re-parses the envelope.
struct KeyedArchiveEnvelope: Sendable {
    /// The `$archiver` string (Apple writes "NSKeyedArchiver").
    let archiverName: String
    /// The `$version` integer (Apple writes 100000).
    let version: PropertyListInteger
    /// The `$top` dictionary: top-level key -> value (a UID for an object, inline for a scalar encoded
    /// straight into the archiver).
    let top: PropertyListDictionary
    /// The `$objects` array; index 0 is `$null`.
    let objects: [PropertyListValue]

    /// Takes apart the envelope of `root`.
    ///
    /// The validity rules are ``KeyedArchiveValidation``'s (which names the evidence each follows), checked
    /// on the archive's bytes before this runs (rule 1's shape again here, for ``MappedArchive``, which
    /// then checks `$archiver`, `$version` and rules 2-4 for `$top`); the shape checks keep an unchecked
    /// caller from trapping.
    init(_ root: PropertyListValue) throws {
        guard case .dictionary(let dict) = root else {
            throw KeyedArchiveError(.invalidArchive, "the root of a keyed archive must be a dictionary, found \(root.kindName)")
        }
        guard let archiver = dict["$archiver"] else {
            throw KeyedArchiveError(.invalidArchive, "$archiver is missing: this is a property list, not a keyed archive")
        }
        guard case .string(let archiverName) = archiver else {
            throw KeyedArchiveError(.invalidArchive, "$archiver must be a string, found \(archiver.kindName)")
        }
        let version: PropertyListInteger
        switch dict["$version"] {
        case .integer(let v)?: version = v
        case nil: throw KeyedArchiveError(.invalidArchive, "$version is missing")
        case let other?: throw KeyedArchiveError(.invalidArchive, "$version must be an integer, found \(other.kindName)")
        }
        guard let topValue = dict["$top"] else {
            throw KeyedArchiveError(.invalidArchive, "$top is missing")
        }
        guard case .dictionary(let top) = topValue else {
            throw KeyedArchiveError(.invalidArchive, "$top must be a dictionary, found \(topValue.kindName)")
        }
        guard let objectsValue = dict["$objects"] else {
            throw KeyedArchiveError(.invalidArchive, "$objects is missing")
        }
        guard case .array(let objects) = objectsValue else {
            throw KeyedArchiveError(.invalidArchive, "$objects must be an array, found \(objectsValue.kindName)")
        }
        guard !objects.isEmpty else {
            throw KeyedArchiveError(.invalidArchive, "$objects is empty: index 0 must hold \"$null\"")
        }
        self.archiverName = archiverName
        self.version = version
        self.top = top
        self.objects = objects.elements
    }

    /// Whether `data` looks like a keyed archive (a dictionary with `$archiver` and `$objects`).
    static func isKeyedArchive(_ root: PropertyListValue) -> Bool {
        guard case .dictionary(let d) = root else { return false }
        return d["$archiver"] != nil && d["$objects"] != nil
    }

    /// Throws unless `uid` indexes `$objects`.
    func checkInRange(_ uid: UID, keyPath: String?) throws {
        guard uid.value < UInt64(objects.count) else {
            throw KeyedArchiveError(.invalidReference,
                                    "UID \(uid.value) is out of range: $objects has \(objects.count) entries",
                                    keyPath: keyPath, objectUID: uid.value)
        }
    }

    /// The object at `uid`, range-checked.
    func object(_ uid: UID, keyPath: String?) throws -> PropertyListValue {
        try checkInRange(uid, keyPath: keyPath)
        return objects[Int(uid.value)]
    }
}
