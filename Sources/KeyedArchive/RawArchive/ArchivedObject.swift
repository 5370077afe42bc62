#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One entry of a keyed archive's `$objects` array, seen without instantiating any type.
///
/// The raw model never creates user objects, so it is safe for untrusted, forensic or unknown archives:
/// unknown classes are kept as they are stored.
public struct ArchivedObject: Hashable, Sendable {
    /// The object's UID: its index in `$objects`.
    public var uid: UID
    /// What the entry holds.
    public var content: Content

    /// Creates an object with the given UID and content.
    public init(uid: UID, content: Content) {
        self.uid = uid
        self.content = content
    }

    /// What an entry of `$objects` holds.
    public enum Content: Hashable, Sendable {
        /// The `"$null"` string at index 0, which UID 0 refers to (nil).
        case null
        /// A value stored inline, without `$class`: a string, number, data, date or boolean written by
        /// NSString/NSNumber/NSData, or a container some other writer put there (kept intact).
        case value(PropertyListValue)
        /// A class description (`$classname`, `$classes`, `$classhints`) that instances point at.
        case classDefinition(ArchivedClass)
        /// An encoded object: a dictionary with `$class` and the coder's keys.
        case instance(ArchivedInstance)
    }

    /// The instance, if this entry is an encoded object.
    public var instance: ArchivedInstance? {
        if case .instance(let i) = content { return i }
        return nil
    }
}

/// An encoded object: its class and its keyed fields, in stored order.
public struct ArchivedInstance: Hashable, Sendable {
    /// Where `$class` points (the class definition's UID).
    public var classUID: UID
    /// The class as the archive names it: `$classname` and the `$classes` chain. Attacker-controlled.
    public var archivedClass: ArchivedClass
    /// The coder's keys and values in stored order, `$class` excluded. Keys are as stored: a coder key
    /// that starts with `$` appears escaped (`$$key`).
    public var fields: [ArchivedField]

    /// Creates an instance.
    ///
    /// - Parameters:
    ///   - classUID: the UID of the class definition object in the same graph.
    ///   - archivedClass: the class's name and chain (must agree with that definition when written).
    ///   - fields: the keyed fields, without `$class`.
    public init(classUID: UID, archivedClass: ArchivedClass, fields: [ArchivedField]) {
        self.classUID = classUID
        self.archivedClass = archivedClass
        self.fields = fields
    }

    /// The class name (`$classname`).
    public var className: String { archivedClass.name }

    /// The value stored under `key` (as stored, so `$`-keys escaped), or `nil` when absent.
    public subscript(key: String) -> ArchivedValue? {
        fields.first(where: { $0.key == key })?.value
    }
}

/// A keyed field: a key and its value.
public struct ArchivedField: Hashable, Sendable {
    /// The key, as stored.
    public var key: String
    /// The value.
    public var value: ArchivedValue

    /// Creates a field.
    public init(_ key: String, _ value: ArchivedValue) {
        self.key = key
        self.value = value
    }
}

/// A field value in the raw model: nil, a reference to another object, or a plain property-list value.
///
/// Containers that hold references (such as NSArray's `NS.objects`, an array of UIDs) are
/// ``array(_:)``, ``set(_:)`` or ``dictionary(_:)`` of archived values; any value without a UID inside
/// is ``value(_:)``.
public indirect enum ArchivedValue: Hashable, Sendable {
    /// `$null`: UID 0.
    case null
    /// A reference to the object with this UID (never 0).
    case reference(UID)
    /// A property-list value that contains no UID.
    case value(PropertyListValue)
    /// An array holding at least one reference.
    case array([ArchivedValue])
    /// A set holding at least one reference (binary format only).
    case set([ArchivedValue])
    /// A dictionary holding at least one reference, in stored order.
    case dictionary([ArchivedField])

    /// The referenced UID, if this is a reference.
    public var referenceUID: UID? {
        if case .reference(let u) = self { return u }
        return nil
    }

    /// Interprets a stored property-list value: UID 0 becomes ``null``, other UIDs ``reference(_:)``.
    ///
    /// Iterative, so any nesting depth is safe. A sub-tree that several containers share (a binary property
    /// list can share one object between containers, and the reader decodes it once) is interpreted once
    /// and shared in the result too, so a value of 40 containers with 2^40 paths is read in 40 steps.
    public init(_ stored: PropertyListValue) {
        switch stored {
        case .uid(let u): self = u.value == 0 ? .null : .reference(u)
        case .array, .set, .dictionary:
            var interpreter = ArchivedValueInterpreter()
            self = interpreter.interpret(stored)
        default: self = .value(stored)
        }
    }

    /// The value as it is stored: ``null`` is UID 0, references are UIDs.
    public var storedValue: PropertyListValue {
        switch self {
        case .null: return .uid(UID(0))
        case .reference(let u): return .uid(u)
        case .value(let v): return v
        case .array(let items): return .array(items.map(\.storedValue))
        case .set(let items): return .set(items.map(\.storedValue))
        case .dictionary(let fields):
            return .dictionary(PropertyListDictionary(fields.map { ($0.key, $0.value.storedValue) }))
        }
    }
}

/// Interprets stored containers as ``ArchivedValue``s without recursion, each distinct container once.
private struct ArchivedValueInterpreter {
    /// A container's storage identity (with its kind: an array and a set may share elements).
    private typealias Identity = ContainerStorageIdentity
    /// What each container already interpreted became (the root value keeps every storage alive).
    private var interpreted: [Identity: ArchivedValue] = [:]

    private static func identity(of container: PropertyListValue) -> Identity? { Identity(container) }

    mutating func interpret(_ root: PropertyListValue) -> ArchivedValue {
        enum Step {
            case enter(PropertyListValue)
            case finish(PropertyListValue, Identity)
        }
        var pending: [Step] = [.enter(root)]
        var results: [ArchivedValue] = []
        while let step = pending.popLast() {
            switch step {
            case .enter(let value):
                switch value {
                case .uid(let u):
                    results.append(u.value == 0 ? .null : .reference(u))
                case .array(let items), .set(let items):
                    guard let id = Self.identity(of: value) else { continue }
                    if let done = interpreted[id] { results.append(done); continue }
                    pending.append(.finish(value, id))
                    for item in items.reversed() { pending.append(.enter(item)) }
                case .dictionary(let d):
                    guard let id = Self.identity(of: value) else { continue }
                    if let done = interpreted[id] { results.append(done); continue }
                    pending.append(.finish(value, id))
                    for item in d.values.reversed() { pending.append(.enter(item)) }
                default:
                    results.append(.value(value))
                }
            case .finish(let value, let id):
                let count: Int
                switch value {
                case .array(let items), .set(let items): count = items.count
                case .dictionary(let d): count = d.count
                default: count = 0
                }
                let children = Array(results.suffix(count))
                results.removeLast(count)
                let holdsReference = children.contains { if case .value = $0 { false } else { true } }
                let result: ArchivedValue
                switch value {
                case .array where holdsReference: result = .array(children)
                case .set where holdsReference: result = .set(children)
                case .dictionary(let d) where holdsReference:
                    result = .dictionary(zip(d.keys, children).map { ArchivedField($0.0, $0.1) })
                default: result = .value(value)
                }
                interpreted[id] = result
                results.append(result)
            }
        }
        return results.last ?? .value(root)
    }
}
