#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ArchivedObjectGraph {
    /// Reads what can be read of a damaged keyed archive, for forensic work: every place that breaks the
    /// archive's rules is recorded in ``damage`` with the error the strict reader would report for it, and
    /// the rest is shown.
    ///
    /// What a damaged place becomes:
    /// - a wrong or missing `$archiver` or `$version`: the value found (an empty name, version 0 when missing);
    /// - a `$top` or `$objects` of the wrong type: empty;
    /// - an entry whose `$class` is missing, not a UID, out of range or not a valid class description: the
    ///   entry as stored (``ArchivedObject/Content/value(_:)``);
    /// - a UID past the end of `$objects` (dangling, or a truncated `$objects`): the reference as stored,
    ///   for which ``object(_:)`` is nil;
    /// - `$objects[0]` that is not `"$null"`: the entry as stored.
    ///
    /// The property list is read with ``PropertyListReadingOptions/isLenient`` set, so a file that only
    /// CoreFoundation's stricter rules reject is read too. An archive that breaks no rule gives the graph
    /// ``init(data:options:)`` gives, with no damage. The strict initializers stay the default: nothing is
    /// read leniently unless asked for.
    ///
    /// The corresponding Foundation API is none: `NSKeyedUnarchiver` refuses a damaged archive.
    /// - Parameters:
    ///   - data: the bytes of a binary or XML property list.
    ///   - options: limits for the property-list reader (``PropertyListReadingOptions/isLenient`` is set).
    /// - Throws: ``KeyedArchiveError``: ``KeyedArchiveError/Code/invalidPropertyList`` when the bytes cannot be
    ///   read as a property list at all, ``KeyedArchiveError/Code/invalidArchive`` when its root is not a
    ///   dictionary with any of `$archiver`, `$top` or `$objects`.
    public init(lenient data: Data, options: PropertyListReadingOptions = .init()) throws {
        var lenientOptions = options
        lenientOptions.isLenient = true
        try self.init(lenientPropertyList: KeyedArchiveReader.readPropertyList(data, options: lenientOptions))
    }

    /// Interprets an already-read property list as a keyed archive, leniently (see ``init(lenient:options:)``).
    /// - Parameter root: the root of the archive.
    /// - Throws: ``KeyedArchiveError/Code/invalidArchive`` when `root` is not a dictionary with any of
    ///   `$archiver`, `$top` or `$objects`.
    public init(lenientPropertyList root: PropertyListValue) throws {
        guard case .dictionary(let envelope) = root,
              envelope["$archiver"] != nil || envelope["$top"] != nil || envelope["$objects"] != nil else {
            throw KeyedArchiveError(.invalidArchive, "not a keyed archive: the root is a \(root.kindName) without $archiver, $top or $objects")
        }
        // Rule 1 as the strict readers check it, each fault recorded; a member of the wrong type reads as empty.
        var damage: [KeyedArchiveError] = []
        let members = try KeyedArchiveRules.readEnvelope(DecodedArchiveRoot(root: root)) { damage.append($0) }
        let archiverName = members.archiverName, version = members.version
        let top = members.top ?? [:]
        let objects = members.objects ?? []
        if let first = objects.first, let fault = KeyedArchiveRules.nullEntryFault(first) { damage.append(fault) }

        // Rules 3 and 4 in $top, then rules 4 and 5 for each entry.
        damage += KeyedArchiveRules.uidsOutOfRange(in: .dictionary(top), prefix: "$top.", objectCount: objects.count)
        var classes: [UInt64: ArchivedClass] = [:]
        for (index, stored) in objects.enumerated() {
            var className: String?
            if case .dictionary(let dict) = stored, let classRef = dict["$class"] {
                do {
                    let archivedClass = try KeyedArchiveRules.checkedClass(classRef, uid: UInt64(index), objectCount: objects.count) {
                        objects[$0]
                    }
                    classes[archivedClass.uid.value] = archivedClass
                    className = archivedClass.name
                } catch let error as KeyedArchiveError {
                    damage.append(error)
                }
            }
            damage += KeyedArchiveRules.uidsOutOfRange(in: stored, prefix: "", objectCount: objects.count,
                                                       objectUID: UInt64(index), className: className)
        }
        self.init(archiverName: archiverName, version: version, top: top, objects: objects, classes: classes, damage: damage)
    }

    /// The damaged places recorded for the object with this UID (its `$class`, `$objects[0]`, UIDs out of
    /// range inside it); empty for a strictly read graph.
    public func damage(of uid: UID) -> [KeyedArchiveError] {
        damage.filter { $0.objectUID == uid.value }
    }
}
