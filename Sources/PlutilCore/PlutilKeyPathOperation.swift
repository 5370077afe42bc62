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

/// Key paths into keyed archives: a key path that does not start with `$` is resolved from `$top` through
/// UIDs (`root.contacts.0.name`: dictionary keys through `NS.keys`, array elements through `NS.objects`,
/// object fields by key) with the library's ``ArchivedObjectGraph`` key-path API, and an edit re-writes the
/// archive losslessly (``ArchivedObjectGraph/replacingValue(at:with:)`` and its siblings). The key path is
/// parsed once, as plutil parses it (``PropertyListKeyPath``); ``ArchiveKeyPath`` takes its components.
enum ArchiveKeyPathResolution {
    /// Whether `keyPath` is meant for the archive's object graph: its first component does not start with `$`.
    static func followsObjectGraph(_ keyPath: PropertyListKeyPath) -> Bool {
        !(keyPath.components.first?.hasPrefix("$") ?? true)
    }

    /// The most values an extracted subtree may expand to: objects shared by several holders are copied
    /// into each, so a small archive could otherwise ask for an exponential amount of output.
    static let extractedValueLimit = 1_000_000
    /// The deepest an extracted subtree may nest.
    static let extractedDepthLimit = 512

    /// Performs `operation` at `keyPath`, resolved through the archive's UIDs, on the archive `root`.
    ///
    /// For ``PlutilKeyPathOperation/get`` the value is returned as a plain property-list value (see
    /// ``plainValue(of:)``); an edit replaces `root` with the re-written archive.
    /// - Throws: ``PlutilFailure`` naming the key path (the library's `keyPathNotFound` and `valueExists`
    ///   messages, or what cannot be represented); `root` is unchanged then.
    static func perform(_ operation: PlutilKeyPathOperation, at keyPath: PropertyListKeyPath,
                        inArchive root: inout PropertyListValue) throws(PlutilFailure) -> PropertyListValue? {
        let path = ArchiveKeyPath(keyPath)
        let graph = try failure(keyPath) { try ArchivedObjectGraph(propertyList: root) }
        let edited: ArchivedObjectGraph
        switch operation {
        case .get:
            return try plainValue(of: try value(at: keyPath, in: graph))
        case .insert(let value):
            edited = try failure(keyPath) { try graph.insertingValue(value, at: path) }
        case .append(let value):
            edited = try failure(keyPath) {
                do {
                    return try graph.appendingValue(value, to: path)
                } catch let error as KeyedArchiveError where error.code == .keyPathNotFound && error.keyPath == path.description {
                    // plutil inserts the value when the key is not there yet (an error if the holder is a list).
                    return try graph.insertingValue(value, at: path)
                }
            }
        case .replace(let value):
            edited = try failure(keyPath) { try graph.replacingValue(at: path, with: value) }
        case .remove:
            edited = try failure(keyPath) { try graph.removingValue(at: path) }
        }
        root = edited.propertyList
        return nil
    }

    /// The value at `keyPath` in `graph`, with its type name (`-type`, `-expect`).
    /// - Throws: ``PlutilFailure`` naming the key path.
    static func value(at keyPath: PropertyListKeyPath, in graph: ArchivedObjectGraph) throws(PlutilFailure) -> ArchivedKeyPathValue {
        try failure(keyPath) { try graph.value(at: ArchiveKeyPath(keyPath)) }
    }

    /// The value found, as a plain property-list value: an NSArray, NSSet or NSOrderedSet as an array, an
    /// NSDictionary with string keys as a dictionary, an NSString, NSNumber, NSDate or NSData as itself,
    /// members resolved through their UIDs in turn.
    /// - Throws: ``PlutilFailure`` naming the key path and what has no property-list form: nil (`$null`),
    ///   NSNull, an instance of any other class (named), a dictionary key that is not a string, a cycle, or
    ///   more than ``extractedValueLimit`` values.
    static func plainValue(of found: ArchivedKeyPathValue) throws(PlutilFailure) -> PropertyListValue {
        var converter = PlainValueConverter(graph: found.node.graph, keyPath: found.keyPath)
        return try converter.convert(found.node.value, depth: 0)
    }

    /// Runs `body`, turning the library's errors into plutil's message for `keyPath`.
    private static func failure<T>(_ keyPath: PropertyListKeyPath, _ body: () throws -> T) throws(PlutilFailure) -> T {
        do {
            return try body()
        } catch let error as KeyedArchiveError {
            throw PlutilFailure("key path '\(keyPath)': \(error.message)"
                                + (error.keyPath.map { $0 != keyPath.description ? " (at '\($0)')" : "" } ?? ""))
        } catch let error as PropertyListError {
            throw PlutilFailure("key path '\(keyPath)': \(error.message)")
        } catch {
            throw PlutilFailure("key path '\(keyPath)': \(error)")
        }
    }
}

/// Turns an archived value and what it refers to into a plain property-list value, for `-extract`.
private struct PlainValueConverter {
    let graph: ArchivedObjectGraph
    let keyPath: ArchiveKeyPath
    /// The objects being converted, from the extracted value down: one met again is a cycle.
    private var inProgress: Set<UInt64> = []
    private var converted = 0

    init(graph: ArchivedObjectGraph, keyPath: ArchiveKeyPath) {
        self.graph = graph
        self.keyPath = keyPath
    }

    private func refusal(_ what: String) -> PlutilFailure {
        PlutilFailure("key path '\(keyPath)': \(what) has no property-list form; a key path starting with $ "
                      + "($objects.N) shows the archive as stored")
    }

    mutating func convert(_ value: ArchivedValue, depth: Int) throws(PlutilFailure) -> PropertyListValue {
        converted += 1
        guard converted <= ArchiveKeyPathResolution.extractedValueLimit else {
            throw refusal("a value that expands to more than \(ArchiveKeyPathResolution.extractedValueLimit) values")
        }
        guard depth <= ArchiveKeyPathResolution.extractedDepthLimit else {
            throw refusal("a value nested deeper than \(ArchiveKeyPathResolution.extractedDepthLimit) levels")
        }
        switch value {
        case .null: throw refusal("nil ($null)")
        case .value(let plain): return plain
        case .array(let items), .set(let items): return .array(try convert(items, depth: depth))
        case .dictionary(let fields):
            var entries = PropertyListDictionary()
            for field in fields { entries[field.key] = try convert(field.value, depth: depth + 1) }
            return .dictionary(entries)
        case .reference(let uid):
            guard inProgress.insert(uid.value).inserted else { throw refusal("a cycle through object #\(uid.value)") }
            defer { inProgress.remove(uid.value) }
            return try convert(object: uid, depth: depth)
        }
    }

    private mutating func convert(_ items: [ArchivedValue], depth: Int) throws(PlutilFailure) -> [PropertyListValue] {
        var out: [PropertyListValue] = []
        for item in items { out.append(try convert(item, depth: depth + 1)) }
        return out
    }

    private mutating func convert(object uid: UID, depth: Int) throws(PlutilFailure) -> PropertyListValue {
        guard let resolved = graph.resolvedObject(uid) else { throw refusal("a reference to no object (#\(uid.value))") }
        let className = resolved.archivedClass?.name
        switch resolved.kind {
        case .null, .nsNull: throw refusal(className.map { "an \($0)" } ?? "nil ($null)")
        case .value(let plain):
            if case .uid = plain { throw refusal("a UID stored as an object (#\(uid.value))") }
            return try convert(ArchivedValue(plain), depth: depth)
        case .string(let string): return .string(string)
        case .data(let data): return .data(data)
        case .date(let date): return .date(date)
        case .list(let items): return .array(try convert(items, depth: depth))
        case .map(let keys, let values):
            var entries = PropertyListDictionary()
            for (key, value) in zip(keys, values) {
                guard case .string(let name) = try convert(key, depth: depth + 1) else {
                    throw refusal("an \(className ?? "NSDictionary") (#\(uid.value)) with a key that is not a string")
                }
                entries[name] = try convert(value, depth: depth + 1)
            }
            return .dictionary(entries)
        case .classDefinition: throw refusal("a class description (#\(uid.value))")
        case .uuid, .url, .decoded, .object:
            throw refusal("an instance of \(className ?? "an unnamed class") (#\(uid.value))")
        }
    }
}
