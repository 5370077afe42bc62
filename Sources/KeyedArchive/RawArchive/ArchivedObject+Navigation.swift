#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A value of an ``ArchivedObjectGraph`` together with the graph, so that its references can be followed:
/// the raw model's counterpart of ``FoundationValue``'s navigation.
///
/// ```swift
/// let graph = try ArchivedObjectGraph(data: data)
/// let title = graph["root"]?["items"]?[3]?["title"]?.string
/// ```
///
/// Each step follows at most one reference and interprets the object it reaches by its `$classname` alone,
/// with the layouts of the package's catalogue (as ``ArchivedObjectGraph/resolvedObject(_:)`` does, without
/// decoding the value-type classes): nothing is instantiated, so navigating an untrusted archive is safe,
/// and a step that finds nothing (a missing key, an index out of range, a dangling reference, a field of
/// another shape) is nil rather than an error. A cycle is only followed as far as the caller steps.
public struct ArchivedNode: Hashable, Sendable {
    /// The graph the value belongs to.
    public let graph: ArchivedObjectGraph
    /// The value: a reference, nil, or a plain or container value stored in a field.
    public let value: ArchivedValue

    /// The node of `value`, a value stored in `graph`.
    public init(_ value: ArchivedValue, in graph: ArchivedObjectGraph) {
        self.graph = graph
        self.value = value
    }

    /// The UID the value refers to, if it is a reference.
    public var uid: UID? { value.referenceUID }

    /// The object the value refers to, if it is a reference to an object of the graph.
    public var object: ArchivedObject? { uid.flatMap { graph.object($0) } }

    /// The class name of the instance the value refers to (`"NSArray"`, `"Note"`), if any.
    public var className: String? { uid.flatMap { graph.className(of: $0) } }

    /// Whether the value is nil (`$null`, UID 0) or refers to an NSNull.
    public var isNull: Bool {
        if case .null = target { return true }
        return false
    }

    /// The field `key` of the instance the value refers to (as stored: `$`-keys escaped), or the value for
    /// the string key `key` of an NSDictionary or of a plain dictionary; nil when there is none.
    public subscript(key: String) -> ArchivedNode? {
        switch target {
        case .instance(let instance): return instance[key].map { ArchivedNode($0, in: graph) }
        case .fields(let fields): return fields.first(where: { $0.key == key }).map { ArchivedNode($0.value, in: graph) }
        case .map(let keys, let values):
            guard let index = keys.firstIndex(where: { ArchivedNode($0, in: graph).string == key }) else { return nil }
            return ArchivedNode(values[index], in: graph)
        case .plain(.dictionary(let entries)): return entries[key].map { ArchivedNode(ArchivedValue($0), in: graph) }
        default: return nil
        }
    }

    /// The element at `index` of an NSArray, NSSet or NSOrderedSet (stored order) or of a plain array or
    /// set; nil when `index` is out of range or the value is not a list (never a trap).
    public subscript(index: Int) -> ArchivedNode? {
        guard index >= 0 else { return nil }
        switch target {
        case .list(let items): return index < items.count ? ArchivedNode(items[index], in: graph) : nil
        case .plain(.array(let items)), .plain(.set(let items)):
            return index < items.count ? ArchivedNode(ArchivedValue(items[index]), in: graph) : nil
        default: return nil
        }
    }

    /// The number of elements of a list or of entries of a dictionary; nil for any other value.
    public var count: Int? {
        switch target {
        case .list(let items): return items.count
        case .map(let keys, _): return keys.count
        case .plain(.array(let items)), .plain(.set(let items)): return items.count
        case .plain(.dictionary(let entries)): return entries.count
        default: return nil
        }
    }

    /// The string: an inline string, or an NSString or NSMutableString object.
    public var string: String? { plain?.stringValue }

    /// The integer, if the value is an integer (an inline NSNumber).
    public var integer: PropertyListInteger? { plain?.integerValue }

    /// The integer converted to `type`, if the value is an integer that fits in `type` exactly (never
    /// truncated).
    public func integer<T: FixedWidthInteger>(as type: T.Type) -> T? { integer?.exactly(type) }

    /// The integer as `Int`, if the value is an integer that fits.
    public var int: Int? { integer(as: Int.self) }

    /// The number as `Double`: a real, or an integer that converts to `Double` exactly.
    public var double: Double? {
        switch plain {
        case .real(let value)?: return value
        case .float(let value)?: return Double(value)
        case .integer(let value)?: return value.int64Value.flatMap { Double(exactly: $0) } ?? value.uint64Value.flatMap { Double(exactly: $0) }
        default: return nil
        }
    }

    /// The Boolean, if the value is one (an inline NSNumber Boolean).
    public var bool: Bool? {
        if case .bool(let value)? = plain { return value }
        return nil
    }

    /// The bytes: inline data, or an NSData or NSMutableData object.
    public var data: Data? {
        if case .data(let value)? = plain { return value }
        return nil
    }

    /// The date: an inline date, or an NSDate object.
    public var date: Date? {
        if case .date(let value)? = plain { return value }
        return nil
    }

    /// The UUID of an NSUUID object.
    public var uuid: UUID? {
        if case .uuid(let value) = target { return value }
        return nil
    }

    /// What the value stands for, one reference followed.
    private enum Target {
        /// Nil or NSNull.
        case null
        /// A string, number, data or date (inline, or an NSString, NSData or NSDate object), or a plain container.
        case plain(PropertyListValue)
        /// A list of values: a container holding references, or an NSArray, NSSet or NSOrderedSet.
        case list([ArchivedValue])
        /// A dictionary holding references, as stored.
        case fields([ArchivedField])
        /// An NSDictionary: keys and values, parallel.
        case map(keys: [ArchivedValue], values: [ArchivedValue])
        /// An NSUUID.
        case uuid(UUID)
        /// Any other instance, by its fields.
        case instance(ArchivedInstance)
        /// A dangling reference or a class description.
        case nothing
    }

    /// ``Target`` of ``value``: a reference is followed; an instance of a catalogued property-list class is
    /// interpreted (``ArchivedObjectGraph/resolvedObject(_:)``); an instance of a catalogued value-type class
    /// or of any other class is kept as its fields, not decoded.
    private var target: Target {
        switch value {
        case .null: return .null
        case .value(let plain): return .plain(plain)
        case .array(let items), .set(let items): return .list(items)
        case .dictionary(let fields): return .fields(fields)
        case .reference(let uid):
            guard let object = graph.object(uid) else { return .nothing }
            switch object.content {
            case .null: return .null
            case .value(let plain): return .plain(plain)
            case .classDefinition: return .nothing
            case .instance(let instance):
                guard let entry = FoundationClassCatalogue.standard.entry(named: instance.className) else { return .instance(instance) }
                if case .archivable = entry.family { return .instance(instance) }
                switch graph.resolvedObject(uid)?.kind {
                case .string(let s)?: return .plain(.string(s))
                case .data(let d)?: return .plain(.data(d))
                case .date(let d)?: return .plain(.date(d))
                case .uuid(let u)?: return .uuid(u)
                case .nsNull?: return .null
                case .list(let items)?: return .list(items)
                case .map(let keys, let values)?: return .map(keys: keys, values: values)
                default: return .instance(instance)
                }
            }
        }
    }

    /// The plain value the node stands for (a scalar or a container without references), if any.
    private var plain: PropertyListValue? {
        if case .plain(let value) = target { return value }
        return nil
    }
}

extension ArchivedObjectGraph {
    /// The node of the top-level value stored under `key` (`"root"` for what `archivedData(withRootObject:)`
    /// wrote), or nil when `$top` has no such key. Start of a navigation: `graph["root"]?["title"]?.string`.
    public subscript(key: String) -> ArchivedNode? {
        top.first(where: { $0.key == key }).map { ArchivedNode($0.value, in: self) }
    }

    /// The node of a reference to the object `uid`.
    public func node(_ uid: UID) -> ArchivedNode {
        ArchivedNode(uid.value == 0 ? .null : .reference(uid), in: self)
    }
}
