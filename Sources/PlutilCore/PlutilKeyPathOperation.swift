import KeyedArchive

/// What `-extract`, `-type`, `-insert`, `-replace` and `-remove` do at a key path.
enum PlutilKeyPathOperation: Equatable {
    /// `-extract`, `-type`: read the value.
    case get
    /// `-insert`: a new dictionary key or array element.
    case insert(PropertyListValue)
    /// `-insert ... -append`: append to the array at the key path (insert it when the dictionary lacks the key).
    case append(PropertyListValue)
    /// `-replace`.
    case replace(PropertyListValue)
    /// `-remove`.
    case remove

    /// Performs the operation on `document`; returns the value read (for ``get``).
    ///
    /// A key path into a keyed archive that does not start with `$` goes to ``ArchiveKeyPathResolution``
    /// (the seam where key paths through UIDs plug in); any other key path addresses the property list as
    /// stored, with the library's ``PropertyListValue`` key-path API.
    /// - Throws: ``PlutilFailure`` naming the key path and what was wrong; the document is unchanged then.
    func perform(on document: inout PlutilDocument, at keyPath: PropertyListKeyPath) throws(PlutilFailure) -> PropertyListValue? {
        if document.isKeyedArchive, ArchiveKeyPathResolution.followsObjectGraph(keyPath) {
            return try ArchiveKeyPathResolution.perform(self, at: keyPath, inArchive: &document.root)
        }
        do {
            return try perform(on: &document.root, at: keyPath)
        } catch let error as PropertyListError {
            throw PlutilFailure("key path '\(keyPath)': \(error.message)")
        } catch {
            throw PlutilFailure("\(error)")
        }
    }

    /// Performs the operation on a plain property list.
    private func perform(on root: inout PropertyListValue, at keyPath: PropertyListKeyPath) throws -> PropertyListValue? {
        switch self {
        case .get:
            return try root.value(at: keyPath)
        case .insert(let value):
            try root.insertValue(value, at: keyPath)
        case .append(let value):
            do {
                try root.appendValue(value, toArrayAt: keyPath)
            } catch let error as PropertyListError where error.code == .keyPathNotFound {
                // plutil inserts the value when the key is not there yet (and the container is a dictionary).
                var parent = keyPath
                parent.components.removeLast()
                guard case .dictionary? = try? root.value(at: parent) else { throw error }
                try root.insertValue(value, at: keyPath)
            }
        case .replace(let value):
            try root.replaceValue(at: keyPath, with: value)
        case .remove:
            try root.removeValue(at: keyPath)
        }
        return nil
    }
}

/// **The seam for key paths into keyed archives.** A key path that does not start with `$` is meant to be
/// resolved from `$top` through UIDs (`root.contacts.0.name`: dictionary keys through `NS.keys`, array
/// elements through `NS.objects`, object fields by key), for every operation, with the archive re-written
/// losslessly after an edit. That resolution is not built yet: it plugs in here, in ``perform(_:at:inArchive:)``,
/// and nowhere else. Until then such a key path is refused with a message saying how to address the archive
/// as stored (`$top.root`, `$objects.3.NS.keys.0`), which works like any property list key path.
enum ArchiveKeyPathResolution {
    /// Whether `keyPath` is meant for the archive's object graph: its first component does not start with `$`.
    static func followsObjectGraph(_ keyPath: PropertyListKeyPath) -> Bool {
        !(keyPath.components.first?.hasPrefix("$") ?? true)
    }

    /// Performs `operation` at `keyPath`, resolved through the archive's UIDs, on the archive `root`.
    /// - Throws: ``PlutilFailure``: not supported yet; `root` is unchanged.
    static func perform(_ operation: PlutilKeyPathOperation, at keyPath: PropertyListKeyPath,
                        inArchive root: inout PropertyListValue) throws(PlutilFailure) -> PropertyListValue? {
        throw PlutilFailure("key path '\(keyPath)': this is a keyed archive, and key paths through its objects are not "
                            + "supported yet; a key path starting with $ addresses the archive as stored "
                            + "($top.root, $objects.1)")
    }
}
