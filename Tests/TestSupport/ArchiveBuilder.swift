import KeyedArchive

/// Builds keyed archives by hand, as property-list values, the way NSKeyedArchiver lays them out.
public struct ArchiveBuilder {
    public private(set) var objects: [PropertyListValue] = ["$null"]
    private var classUIDs: [String: UInt64] = [:]

    /// An empty archive: `$objects` holds only `$null`.
    public init() {}

    /// Appends an entry to `$objects` and returns a UID value referring to it.
    public mutating func add(_ value: PropertyListValue) -> PropertyListValue {
        objects.append(value)
        return .uid(UID(UInt64(objects.count - 1)))
    }

    /// Reserves an entry (for cycles); fill it with `set`.
    public mutating func reserve() -> PropertyListValue { add("placeholder") }

    /// Replaces the entry a UID value refers to.
    public mutating func set(_ ref: PropertyListValue, _ value: PropertyListValue) {
        guard case .uid(let u) = ref else { return }
        objects[Int(u.value)] = value
    }

    /// The shared class description for `name`, added on first use.
    public mutating func classRef(_ name: String, _ superclasses: [String] = ["NSObject"]) -> PropertyListValue {
        if let u = classUIDs[name] { return .uid(UID(u)) }
        let ref = add(.dictionary(["$classname": .string(name),
                                   "$classes": .array(([name] + superclasses).map(PropertyListValue.string))]))
        classUIDs[name] = UInt64(objects.count - 1)
        return ref
    }

    /// An object dictionary: the fields in order, then `$class`.
    public mutating func instance(_ className: String, _ superclasses: [String] = ["NSObject"],
                           _ fields: [(String, PropertyListValue)]) -> PropertyListValue {
        var dict = PropertyListDictionary(fields)
        dict["$class"] = classRef(className, superclasses)
        return .dictionary(dict)
    }

    /// Adds an object and returns its UID value.
    public mutating func object(_ className: String, _ superclasses: [String] = ["NSObject"],
                         _ fields: [(String, PropertyListValue)]) -> PropertyListValue {
        let value = instance(className, superclasses, fields)
        return add(value)
    }

    /// The archive with `$top = {root: root}`, keys in Apple's binary order.
    public func archive(root: PropertyListValue) -> PropertyListValue {
        archive(top: ["root": root])
    }

    public func archive(top: PropertyListDictionary) -> PropertyListValue {
        .dictionary([
            "$version": 100000,
            "$archiver": "NSKeyedArchiver",
            "$top": .dictionary(top),
            "$objects": .array(objects),
        ])
    }
}

extension PropertyListValue {
    /// A UID value.
    public static func ref(_ n: UInt64) -> PropertyListValue { .uid(UID(n)) }
}
