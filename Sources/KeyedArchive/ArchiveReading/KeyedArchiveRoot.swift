/// The root of an archive in the form a reader holds it, as ``KeyedArchiveRules/readEnvelope(_:report:)``
/// reads it: property-list object numbers over checked bytes (``ScannedArchiveRoot``) or a decoded tree
/// (``DecodedArchiveRoot``). A fault of the property list itself is thrown as a ``PropertyListError``.
protocol KeyedArchiveRoot {
    /// How a member of the root is held.
    associatedtype Member
    /// How a member that is a dictionary is read.
    associatedtype Dictionary
    /// How a member that is an array is read.
    associatedtype Array
    /// The root's kind ("array", "string"...) when it is not a dictionary; nil when it is one.
    func nonDictionaryKindName() throws -> String?
    /// The root's member stored under `key` (a repeated key's last value), or nil.
    func member(_ key: String) throws -> Member?
    /// A short name of what `member` is, for messages.
    func kindName(_ member: Member) throws -> String
    /// `member`'s value when it is a string.
    func string(_ member: Member) throws -> String?
    /// `member`'s value when it is an integer.
    func integer(_ member: Member) throws -> PropertyListInteger?
    /// `member` read as a dictionary, when it is one.
    func dictionary(_ member: Member) throws -> Dictionary?
    /// `member` read as an array, when it is one.
    func array(_ member: Member) throws -> Array?
    /// The number of elements of `array`.
    func count(of array: Array) -> Int
}

/// A decoded root (the lenient graph reads its envelope so).
struct DecodedArchiveRoot: KeyedArchiveRoot {
    let root: PropertyListValue

    func nonDictionaryKindName() -> String? {
        if case .dictionary = root { return nil }
        return root.kindName
    }

    func member(_ key: String) -> PropertyListValue? { root.dictionaryValue?[key] }

    func kindName(_ member: PropertyListValue) -> String { member.kindName }
    func string(_ member: PropertyListValue) -> String? { member.stringValue }
    func integer(_ member: PropertyListValue) -> PropertyListInteger? { member.integerValue }
    func dictionary(_ member: PropertyListValue) -> PropertyListDictionary? { member.dictionaryValue }
    func array(_ member: PropertyListValue) -> [PropertyListValue]? { member.arrayValue }
    func count(of array: [PropertyListValue]) -> Int { array.count }
}

/// The root of a binary property list, its members being object numbers, read through a scanner.
///
/// Each object is checked with ``BinaryPropertyListScanner/requireValidOffset(_:)`` before it is used, so
/// the scanner may be one that did not check its offset table when it was made (the lazy graph's).
struct ScannedArchiveRoot: KeyedArchiveRoot {
    let scanner: BinaryPropertyListScanner

    func nonDictionaryKindName() throws -> String? {
        let root = scanner.topObject
        try scanner.requireValidOffset(root)
        if let c = try scanner.container(root), c.kind == .dictionary { return nil }
        return try kindName(root)
    }

    func member(_ key: String) throws -> Int? {
        guard let fields = try scanner.archiveFields(scanner.topObject) else { return nil }
        var key = key
        guard let value = try key.withUTF8({ try scanner.archiveLookup(fields, utf8: $0) })?.value else { return nil }
        try scanner.requireValidOffset(value)
        return value
    }

    func kindName(_ member: Int) throws -> String { try scanner.archiveKindName(member) }

    func string(_ member: Int) throws -> String? {
        if case .string(let s)? = try scalar(member) { return s }
        return nil
    }

    func integer(_ member: Int) throws -> PropertyListInteger? {
        if case .integer(let i)? = try scalar(member) { return i }
        return nil
    }

    func dictionary(_ member: Int) throws -> ArchiveFields? { try scanner.archiveFields(member) }

    /// The array's element count and where its references start.
    func array(_ member: Int) throws -> (count: Int, start: Int)? {
        guard let c = try scanner.container(member), c.kind == .array else { return nil }
        return (c.count, c.start)
    }

    func count(of array: (count: Int, start: Int)) -> Int { array.count }

    /// `member`'s value when it is not a container.
    private func scalar(_ n: Int) throws -> PropertyListValue? {
        if try scanner.container(n) != nil { return nil }
        return try scanner.scalar(n, at: scanner.offset(of: n), marker: scanner.marker(of: n))
    }
}

extension BinaryPropertyListScanner {
    /// A short name of what object `n` is ("string", "dictionary", ...), for the archive readers' messages.
    func archiveKindName(_ n: Int) throws -> String {
        if let c = try container(n) {
            switch c.kind {
            case .array: return "array"
            case .dictionary: return "dictionary"
            default: return "set"
            }
        }
        return try scalar(n, at: offset(of: n), marker: marker(of: n)).kindName
    }

    /// The fields of dictionary `n`, or nil when `n` is not a dictionary.
    func archiveFields(_ n: Int) throws -> ArchiveFields? {
        guard let c = try container(n), c.kind == .dictionary else { return nil }
        return ArchiveFields(object: n, count: c.count, keys: c.start, values: c.start + c.count * refSize)
    }

    /// The last entry of `fields` whose key is `utf8` (a repeated key's last value wins, as in
    /// ``PropertyListDictionary``): its position, key object and value object; or nil. Each key object's
    /// offset is checked before it is read.
    func archiveLookup(_ fields: ArchiveFields, utf8: UnsafeBufferPointer<UInt8>) throws -> (index: Int, key: Int, value: Int)? {
        var i = fields.count - 1
        while i >= 0 {
            let keyObject = try reference(at: fields.keys + i * refSize, object: fields.object)
            try requireValidOffset(keyObject)
            switch try string(keyObject, equals: utf8) {
            case true?:
                return (i, keyObject, try reference(at: fields.values + i * refSize, object: fields.object))
            case false?:
                break
            case nil:
                throw PropertyListError(.invalidKey, "bplist: dictionary key is a \(try archiveKindName(keyObject)), not a string",
                                        at: .init(byteOffset: fields.keys + i * refSize, objectNumber: fields.object))
            }
            i -= 1
        }
        return nil
    }
}
