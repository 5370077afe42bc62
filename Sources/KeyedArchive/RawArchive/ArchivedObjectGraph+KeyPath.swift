#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The value an ``ArchiveKeyPath`` names in an ``ArchivedObjectGraph``: what is stored there, and, for a
/// reference, the object it refers to and that object's class.
public struct ArchivedKeyPathValue: Hashable, Sendable {
    /// The path that was resolved.
    public var keyPath: ArchiveKeyPath
    /// The value as it is stored at the path: a UID (a reference, or `$null` as UID 0) or an inline value.
    public var storedValue: PropertyListValue
    /// The object a path through the graph reaches: the object the stored UID refers to; nil for an inline
    /// value, for `$null` and for a raw path (which follows no UID).
    public var object: ArchivedObject?
    /// The class name of that object when it is an instance (`"NSDictionary"`, `"Note"`).
    public var className: String?
    /// The type, in `plutil -type`'s words: `dictionary`, `array`, `string`, `integer`, `float`, `bool`,
    /// `date`, `data`; and, for what only archives hold, `uid` (a raw path's UID), `null` (`$null` or an
    /// NSNull) and `object` (an instance of any other class, named by ``className``). A Foundation object is
    /// named by what it holds: an NSMutableString is a `string`, an NSSet or NSOrderedSet an `array`, an
    /// NSDate a `date`.
    public var typeName: String
    /// The value as a node of the graph, to read it further (`node["title"]?.string`).
    public var node: ArchivedNode
}

/// Where the last component of a key path leads, in an `ArchiveWorkingCopy`.
struct ArchivePlace {
    enum Kind {
        /// A key of a dictionary: an instance's field, a `$top` key, a key of a plain dictionary.
        case entry(ArchiveWorkingCopy.Owner, [ArchiveWorkingCopy.Step], key: String)
        /// An element of an array or set: `NS.objects` of a list object, or a plain array.
        case element(ArchiveWorkingCopy.Owner, [ArchiveWorkingCopy.Step], index: Int)
        /// `NS.object.<index>` of an ordered set stored one member per element.
        case orderedSetMember(object: Int, index: Int)
        /// An entry of an NSDictionary object: its position in `NS.keys`/`NS.objects`, nil when absent.
        case dictionaryEntry(object: Int, key: String, position: Int?)
        /// A whole stored value a raw path names (`$objects.3`, `$top`): it can be replaced only.
        case whole(ArchiveWorkingCopy.Owner)
    }

    var kind: Kind
    /// The path up to and including the last component.
    var keyPath: ArchiveKeyPath
    /// Whether the path was raw (no UID followed, values stored as given).
    var isRaw: Bool

    /// Where the value at this place is stored, if it exists.
    func location(in copy: ArchiveWorkingCopy) -> (ArchiveWorkingCopy.Owner, [ArchiveWorkingCopy.Step])? {
        switch kind {
        case .entry(let owner, let path, let key): return (owner, path + [.key(key)])
        case .element(let owner, let path, let index): return (owner, path + [.index(index)])
        case .orderedSetMember(let object, let index):
            return (.object(object), [.key(FoundationClassCatalogue.elementPerIndexPrefix + String(index))])
        case .dictionaryEntry(let object, _, let position):
            return position.map { (.object(object), [.key(FoundationClassCatalogue.elementArrayKey), .index($0)]) }
        case .whole(let owner): return (owner, [])
        }
    }

    /// The stored value at this place, or nil when it names nothing yet.
    func storedValue(in copy: ArchiveWorkingCopy) -> PropertyListValue? {
        location(in: copy).flatMap { copy.value(at: $0.0, $0.1) }
    }
}

extension ArchiveWorkingCopy {
    /// Resolves every component of `keyPath` but the last to a stored value, and the last to a place.
    ///
    /// - Throws: ``KeyedArchiveError`` ``KeyedArchiveError/Code/keyPathNotFound`` naming the path up to the
    ///   step that found nothing (a missing key, an index out of range, a nil reference, a step into a scalar).
    func place(of keyPath: ArchiveKeyPath) throws -> ArchivePlace {
        let components = keyPath.components
        guard components.count <= ArchiveKeyPath.maximumComponentCount else {
            throw KeyedArchiveError(.limitExceeded, "the key path has \(components.count) components, more than "
                                    + "\(ArchiveKeyPath.maximumComponentCount)", keyPath: keyPath.description)
        }
        guard let first = components.first else {
            throw KeyedArchiveError(.keyPathNotFound, "the key path is empty", keyPath: "")
        }
        var current: ArchivePlace
        if keyPath.isRaw {
            switch first {
            case "$": current = ArchivePlace(kind: .whole(.root), keyPath: keyPath.prefix(1), isRaw: true)
            case "$top": current = ArchivePlace(kind: .whole(.top), keyPath: keyPath.prefix(1), isRaw: true)
            case "$objects":
                guard components.count > 1 else {
                    current = ArchivePlace(kind: .entry(.root, [], key: first), keyPath: keyPath.prefix(1), isRaw: true)
                    break
                }
                guard let index = ArchiveKeyPath.index(components[1]), index < objects.count else {
                    throw KeyedArchiveError(.keyPathNotFound, "$objects has \(objects.count) entries; no entry \(components[1])",
                                            keyPath: keyPath.prefix(2).description)
                }
                current = ArchivePlace(kind: .whole(.object(index)), keyPath: keyPath.prefix(2), isRaw: true)
                if components.count == 2 { return current }
                return try resolve(from: current, keyPath, startingAt: 2)
            default: current = ArchivePlace(kind: .entry(.root, [], key: first), keyPath: keyPath.prefix(1), isRaw: true)
            }
        } else {
            return try resolve(from: ArchivePlace(kind: .whole(.top), keyPath: keyPath.prefix(0), isRaw: false), keyPath, startingAt: 0)
        }
        return try resolve(from: current, keyPath, startingAt: 1)
    }

    /// Resolves the components from `first` on, one step per component (a key that holds a dot is one
    /// component only when its dot is escaped, as in plutil).
    private func resolve(from start: ArchivePlace, _ keyPath: ArchiveKeyPath, startingAt first: Int) throws -> ArchivePlace {
        let components = keyPath.components
        var current = start
        for i in first ..< max(first, components.count) {
            guard let (owner, path) = current.location(in: self), let stored = value(at: owner, path) else {
                throw KeyedArchiveError(.keyPathNotFound, "no value here", keyPath: current.keyPath.description)
            }
            current = try step(into: stored, at: owner, path, components[i], keyPath: keyPath.prefix(i + 1), isRaw: current.isRaw)
        }
        return current
    }

    /// The place `component` names inside `stored` (kept at `owner`/`path`): for a graph path, a UID is followed.
    private func step(into stored: PropertyListValue, at owner: Owner, _ path: [Step], _ component: String,
                      keyPath: ArchiveKeyPath, isRaw: Bool) throws -> ArchivePlace {
        func place(_ kind: ArchivePlace.Kind) -> ArchivePlace { ArchivePlace(kind: kind, keyPath: keyPath, isRaw: isRaw) }
        func index(count: Int) throws -> Int {
            guard let i = ArchiveKeyPath.index(component) else {
                throw KeyedArchiveError(.keyPathNotFound, "\(component) is not an index of a list of \(count) elements",
                                        keyPath: keyPath.description)
            }
            return i
        }
        if !isRaw, case .uid(let uid) = stored {
            guard uid.value > 0, uid.value < UInt64(objects.count) else {
                throw KeyedArchiveError(.keyPathNotFound, "the value before \(component) is nil ($null)", keyPath: keyPath.description)
            }
            let objectIndex = Int(uid.value)
            let object = objects[objectIndex]
            if let className = className(ofObject: objectIndex), case .dictionary(let fields) = object {
                let family = FoundationClassCatalogue.standard.entry(named: className)?.family
                switch family {
                case .dictionary?:
                    let keys = fields[FoundationClassCatalogue.standard.dictionaryKeysKey]?.arrayValue ?? []
                    let position = keys.firstIndex { keyString($0) == component }
                    return place(.dictionaryEntry(object: objectIndex, key: component, position: position))
                case .array?, .set?, .orderedSet?:
                    if case .array(let items)? = fields[FoundationClassCatalogue.elementArrayKey] {
                        return place(.element(.object(objectIndex), [.key(FoundationClassCatalogue.elementArrayKey)],
                                              index: try index(count: items.count)))
                    }
                    let members = fields.keys.filter { $0.hasPrefix(FoundationClassCatalogue.elementPerIndexPrefix) }.count
                    let isOrderedSet: Bool
                    if case .orderedSet? = family { isOrderedSet = true } else { isOrderedSet = false }
                    if members > 0 || isOrderedSet {
                        return place(.orderedSetMember(object: objectIndex, index: try index(count: members)))
                    }
                    return place(.element(.object(objectIndex), [.key(FoundationClassCatalogue.elementArrayKey)],
                                          index: try index(count: 0)))
                default:
                    guard component != "$class" else {
                        throw KeyedArchiveError(.keyPathNotFound, "$class is the object's class, not a field (use a raw path: "
                                                + "$objects.\(objectIndex).$class)", keyPath: keyPath.description,
                                                objectUID: uid.value, className: className)
                    }
                    return place(.entry(.object(objectIndex), [], key: Self.storedFieldKey(component, in: fields)))
                }
            }
            switch object {
            case .dictionary(let d) where d["$classname"] != nil && d["$class"] == nil:
                throw KeyedArchiveError(.keyPathNotFound, "the value before \(component) is a class description",
                                        keyPath: keyPath.description, objectUID: uid.value)
            case .dictionary: return place(.entry(.object(objectIndex), [], key: component))
            case .array(let items), .set(let items):
                return place(.element(.object(objectIndex), [], index: try index(count: items.count)))
            default:
                throw KeyedArchiveError(.keyPathNotFound, "the value before \(component) is a \(object.kindName), which has no members",
                                        keyPath: keyPath.description, objectUID: uid.value)
            }
        }
        switch stored {
        case .dictionary: return place(.entry(owner, path, key: component))
        case .array(let items), .set(let items): return place(.element(owner, path, index: try index(count: items.count)))
        default:
            throw KeyedArchiveError(.keyPathNotFound, "the value before \(component) is a \(stored.kindName), which has no members",
                                    keyPath: keyPath.description)
        }
    }

    /// The key a field `component` is stored under in `fields`: as given, or escaped (`$$key`) when only the
    /// escaped form is there or the component starts with `$` (the archiver escapes such coder keys).
    static func storedFieldKey(_ component: String, in fields: PropertyListDictionary) -> String {
        if fields[component] != nil { return component }
        return component.hasPrefix("$") ? "$" + component : component
    }

    /// The type name of a stored value (``ArchivedKeyPathValue/typeName``); a UID is followed unless `raw`.
    func typeName(of stored: PropertyListValue, raw: Bool) -> String {
        guard case .uid(let uid) = stored, !raw else { return Self.plainTypeName(stored) }
        guard uid.value > 0, uid.value < UInt64(objects.count) else { return "null" }
        let index = Int(uid.value)
        guard let className = className(ofObject: index) else { return Self.plainTypeName(objects[index]) }
        switch FoundationClassCatalogue.standard.entry(named: className)?.family {
        case .string?: return "string"
        case .data?: return "data"
        case .date?: return "date"
        case .null?: return "null"
        case .array?, .set?, .orderedSet?: return "array"
        case .dictionary?: return "dictionary"
        default: return "object"
        }
    }

    static func plainTypeName(_ value: PropertyListValue) -> String {
        switch value {
        case .string: return "string"
        case .integer: return "integer"
        case .real, .float: return "float"
        case .bool: return "bool"
        case .date: return "date"
        case .data: return "data"
        case .array, .set: return "array"
        case .dictionary: return "dictionary"
        case .uid: return "uid"
        }
    }
}

extension FoundationClassCatalogue {
    /// The key of an NSDictionary's keys array (`NS.keys`).
    var dictionaryKeysKey: String { entry(named: "NSDictionary")?.key(.keys) ?? "NS.keys" }
}

extension ArchivedObjectGraph {
    /// The value at `keyPath`: what is stored there, the object it refers to and that object's class.
    ///
    /// A path not starting with `$` starts at a key of `$top` and follows UIDs (see ``ArchiveKeyPath``):
    /// `root.contacts.0.name` is the `name` field of the first element of the `contacts` entry of the root
    /// dictionary. A path starting with `$` reads the archive's property list as it is stored.
    /// - Parameter keyPath: the path (`"root.items.3.title"`, `"$objects.3"`).
    /// - Returns: the stored value, its object and class, and its type.
    /// - Throws: ``KeyedArchiveError`` with code ``KeyedArchiveError/Code/keyPathNotFound`` and the path up
    ///   to the step that found nothing in ``KeyedArchiveError/keyPath``.
    public func value(at keyPath: ArchiveKeyPath) throws -> ArchivedKeyPathValue {
        let copy = ArchiveWorkingCopy(self)
        let place = try copy.place(of: keyPath)
        guard let stored = place.storedValue(in: copy) else {
            throw KeyedArchiveError(.keyPathNotFound, "no value at \(keyPath.components.last ?? "")", keyPath: keyPath.description)
        }
        var object: ArchivedObject?
        var className: String?
        if !place.isRaw, case .uid(let uid) = stored, uid.value > 0 {
            object = self.object(uid)
            className = self.className(of: uid)
        }
        return ArchivedKeyPathValue(keyPath: keyPath, storedValue: stored, object: object, className: className,
                                    typeName: copy.typeName(of: stored, raw: place.isRaw),
                                    node: ArchivedNode(ArchivedValue(stored), in: self))
    }
}
