// Reading and editing a property list by key path, as `plutil -extract`, `-insert`, `-replace` and
// `-remove` do. Every walk is iterative, so a key path of any length is safe.

extension PropertyListError.Code {
    /// A key path names a dictionary key or an array index that is not there.
    public static let keyPathNotFound = PropertyListError.Code("keyPathNotFound")
    /// A key path goes into a value that is not a container, or names an array element with something that
    /// is not an index.
    public static let keyPathMismatch = PropertyListError.Code("keyPathMismatch")
    /// An insertion names a place where a value already is.
    public static let valueExists = PropertyListError.Code("valueExists")
}

extension PropertyListValue {
    /// The value at `keyPath`: dictionary keys and array indices followed from this value.
    ///
    /// An empty key path (no components) gives this value. A set is indexed like an array, in stored order.
    ///
    /// The corresponding Foundation API is `plutil -extract` (and `NSObject.value(forKeyPath:)` for
    /// dictionaries).
    /// - Parameter keyPath: the path, such as `"list.2.name"` (see ``PropertyListKeyPath``).
    /// - Returns: the value found there.
    /// - Throws: ``PropertyListError`` with code ``PropertyListError/Code/keyPathNotFound`` (a missing key,
    ///   an index out of range) or ``PropertyListError/Code/keyPathMismatch`` (a component that is not an
    ///   index of an array, a step into a value that is no container); the message names the key path and
    ///   the component where the walk stopped.
    public func value(at keyPath: PropertyListKeyPath) throws -> PropertyListValue {
        var current = self
        for depth in keyPath.components.indices {
            current = try current.child(keyPath, depth: depth)
        }
        return current
    }

    /// Replaces the value at `keyPath` with `newValue`; a missing dictionary key is added, an index equal to
    /// the array's count appends.
    ///
    /// An empty key path replaces this whole value. The containers on the way must exist.
    ///
    /// The corresponding Foundation API is `plutil -replace`.
    /// - Parameters:
    ///   - keyPath: where the value goes.
    ///   - newValue: the value to store.
    /// - Throws: ``PropertyListError`` (``PropertyListError/Code/keyPathNotFound``,
    ///   ``PropertyListError/Code/keyPathMismatch``) naming the key path and the component that failed;
    ///   this value is unchanged then.
    public mutating func replaceValue(at keyPath: PropertyListKeyPath, with newValue: PropertyListValue) throws {
        try modifyContainer(of: keyPath) { container, last in
            try container.store(newValue, at: last, in: keyPath, replacing: true)
        } root: { root in
            root = newValue
        }
    }

    /// Inserts `newValue` at `keyPath`: as a new dictionary key, or into an array before the element at the
    /// index (an index equal to the count appends).
    ///
    /// The corresponding Foundation API is `plutil -insert`.
    /// - Parameters:
    ///   - newValue: the value to insert.
    ///   - keyPath: where it goes; its last component is the new key or the index.
    /// - Throws: ``PropertyListError`` with code ``PropertyListError/Code/valueExists`` when the dictionary
    ///   already has the key (or the key path is empty), ``PropertyListError/Code/keyPathNotFound`` or
    ///   ``PropertyListError/Code/keyPathMismatch`` as ``value(at:)`` does; this value is unchanged then.
    public mutating func insertValue(_ newValue: PropertyListValue, at keyPath: PropertyListKeyPath) throws {
        try modifyContainer(of: keyPath) { container, last in
            try container.store(newValue, at: last, in: keyPath, replacing: false)
        } root: { root in
            throw PropertyListError(.valueExists, "the root already holds a value (\(root.kindName))",
                                    at: .init(keyPath: keyPath.description))
        }
    }

    /// Appends `newValue` to the array at `keyPath`.
    ///
    /// The corresponding Foundation API is `plutil -insert keypath -type value -append`.
    /// - Parameters:
    ///   - newValue: the element to append.
    ///   - keyPath: the array's key path (empty for this value itself).
    /// - Throws: ``PropertyListError`` with code ``PropertyListError/Code/keyPathMismatch`` when the value
    ///   there is not an array, or as ``value(at:)`` does; this value is unchanged then.
    public mutating func appendValue(_ newValue: PropertyListValue, toArrayAt keyPath: PropertyListKeyPath) throws {
        func append(to target: inout PropertyListValue) throws {
            guard case .array(var elements) = target else {
                throw PropertyListError(.keyPathMismatch, "the value there is \(target.kindWithArticle), not an array to append to",
                                        at: .init(keyPath: keyPath.description))
            }
            target = .dictionary([:])  // lets `elements` be the only reference to its storage
            elements.append(newValue)
            target = .array(elements)
        }
        try modifyContainer(of: keyPath) { container, last in
            var target = try container.child(keyPath, depth: keyPath.components.count - 1)
            try append(to: &target)
            try container.store(target, at: last, in: keyPath, replacing: true)
        } root: { root in
            try append(to: &root)
        }
    }

    /// Removes the value at `keyPath` and returns it: a dictionary entry, or an array element (the later
    /// elements move down).
    ///
    /// The corresponding Foundation API is `plutil -remove`.
    /// - Parameter keyPath: the value to remove; it must not be empty.
    /// - Returns: the removed value.
    /// - Throws: ``PropertyListError`` (``PropertyListError/Code/keyPathNotFound``,
    ///   ``PropertyListError/Code/keyPathMismatch``) naming the key path and the component that failed;
    ///   this value is unchanged then.
    @discardableResult
    public mutating func removeValue(at keyPath: PropertyListKeyPath) throws -> PropertyListValue {
        var removed: PropertyListValue = .dictionary([:])
        try modifyContainer(of: keyPath) { container, last in
            removed = try container.child(keyPath, depth: keyPath.components.count - 1)
            switch container {
            case .dictionary(var entries):
                container = .dictionary([:])
                entries[last] = nil
                container = .dictionary(entries)
            case .array(var elements), .set(var elements):
                let isSet = container.isSetValue
                container = .dictionary([:])
                let index = try Self.index(last, of: elements.count, keyPath, depth: keyPath.components.count - 1, allowingEnd: false)
                elements.replaceSubrange(index..<index + 1, with: EmptyCollection())
                container = isSet ? .set(elements) : .array(elements)
            default:
                break  // `child` above has thrown for anything else
            }
        } root: { _ in
            throw PropertyListError(.keyPathNotFound, "an empty key path names the root, which cannot be removed",
                                    at: .init(keyPath: keyPath.description))
        }
        return removed
    }

    // MARK: - The walk

    /// Runs `body` on the container that holds the last component of `keyPath` (with that component), or
    /// `root` on this value when the key path is empty, and stores the changed containers back on the way up.
    /// Nothing changes when either throws.
    private mutating func modifyContainer(of keyPath: PropertyListKeyPath,
                                          _ body: (inout PropertyListValue, String) throws -> Void,
                                          root: (inout PropertyListValue) throws -> Void) throws {
        let components = keyPath.components
        guard let last = components.last else {
            var copy = self
            try root(&copy)
            self = copy
            return
        }
        // chain[i] is the value at the first i components; the last entry is the container to change.
        var chain: [PropertyListValue] = [self]
        chain.reserveCapacity(components.count)
        for depth in 0..<(components.count - 1) {
            chain.append(try chain[depth].child(keyPath, depth: depth))
        }
        var changed = chain.removeLast()
        try body(&changed, last)
        for depth in stride(from: components.count - 2, through: 0, by: -1) {
            var parent = chain.removeLast()
            try parent.store(changed, at: components[depth], in: keyPath, replacing: true)
            changed = parent
        }
        self = changed
    }

    /// The child of this value named by component `depth` of `keyPath`.
    fileprivate func child(_ keyPath: PropertyListKeyPath, depth: Int) throws -> PropertyListValue {
        let component = keyPath.components[depth]
        switch self {
        case .dictionary(let entries):
            guard let found = entries[component] else {
                throw PropertyListError(.keyPathNotFound, "no key '\(component)' in the dictionary at \(keyPath.prefixDescription(depth))",
                                        at: .init(keyPath: keyPath.description))
            }
            return found
        case .array(let elements), .set(let elements):
            return elements[try Self.index(component, of: elements.count, keyPath, depth: depth, allowingEnd: false)]
        default:
            throw PropertyListError(.keyPathMismatch,
                                    "the value at \(keyPath.prefixDescription(depth)) is \(kindWithArticle), which has no key or index '\(component)'",
                                    at: .init(keyPath: keyPath.description))
        }
    }

    /// Stores `newValue` in this container under `component`: in a dictionary, a new key or (when
    /// `replacing`) any key; in an array, over the element at the index (`replacing`) or before it, an
    /// index equal to the count appending.
    private mutating func store(_ newValue: PropertyListValue, at component: String, in keyPath: PropertyListKeyPath,
                                replacing: Bool) throws {
        let depth = keyPath.components.count - 1
        switch self {
        case .dictionary(var entries):
            if !replacing, let existing = entries[component] {
                throw PropertyListError(.valueExists,
                                        "the dictionary at \(keyPath.prefixDescription(depth)) already has the key '\(component)' (\(existing.kindWithArticle))",
                                        at: .init(keyPath: keyPath.description))
            }
            self = .dictionary([:])  // lets `entries` be the only reference to its storage
            entries[component] = newValue
            self = .dictionary(entries)
        case .array(var elements), .set(var elements):
            let isSet = isSetValue
            let index = try Self.index(component, of: elements.count, keyPath, depth: depth, allowingEnd: true)
            self = .dictionary([:])
            if replacing, index < elements.count {
                elements.replaceSubrange(index..<index + 1, with: CollectionOfOne(newValue))
            } else {
                elements.replaceSubrange(index..<index, with: CollectionOfOne(newValue))
            }
            self = isSet ? .set(elements) : .array(elements)
        default:
            throw PropertyListError(.keyPathMismatch,
                                    "the value at \(keyPath.prefixDescription(depth)) is \(kindWithArticle), which has no key or index '\(component)'",
                                    at: .init(keyPath: keyPath.description))
        }
    }

    /// Component `depth` of `keyPath` read as an index of an array of `count` elements (`count` itself too
    /// when `allowingEnd`).
    private static func index(_ component: String, of count: Int, _ keyPath: PropertyListKeyPath, depth: Int,
                              allowingEnd: Bool) throws -> Int {
        guard !component.isEmpty, component.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            throw PropertyListError(.keyPathMismatch,
                                    "'\(component)' is not an index of the array at \(keyPath.prefixDescription(depth)) (\(count) elements)",
                                    at: .init(keyPath: keyPath.description))
        }
        guard let index = Int(component), index < count || (allowingEnd && index == count) else {
            throw PropertyListError(.keyPathNotFound,
                                    "index \(component) is out of range for the array at \(keyPath.prefixDescription(depth)) (\(count) elements)",
                                    at: .init(keyPath: keyPath.description))
        }
        return index
    }

    private var isSetValue: Bool {
        if case .set = self { return true }
        return false
    }

    /// The kind with an article, for messages: `"a string"`, `"an array"`.
    var kindWithArticle: String {
        let name = kindName
        return (name.first.map { "aeiou".contains($0) } ?? false ? "an " : "a ") + name
    }
}
