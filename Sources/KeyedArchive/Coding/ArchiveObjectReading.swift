/// What the readers that work only with the unarchiver's decoder read beyond ``ArchiveDecoder``: the
/// Codable adapter (an object's stored keys, the kind of a stored value before it is read, collections
/// element by element, back-references decoded after the graph, the decoding stack, the key path as coding
/// keys), NSValue's Objective-C-type layout (the reserved keys `$0`, `$1`, ...) and the allow-list's check of
/// a nested Codable object (the unarchiver's registry and module moves).
///
/// The public protocol leaves these out on purpose: they expose how a keyed archive stores a value, which a
/// test double or wrapper of ``ArchiveDecoder`` has no way to answer. Only `ArchiveObjectDecoder` conforms,
/// and ``ArchiveDecoder/objectReading`` is the one place that finds it; the public protocol's documentation
/// ("Conforming types") says what each reader does with another decoder.
protocol ArchiveObjectReading: ArchiveDecoder {
    /// The keys a model can read from this object, in stored order (reserved keys left out, `$$name` unescaped).
    func storedKeys() throws -> [String]
    /// What is stored under `key`, without decoding it.
    func storedValueKind(forKey key: String) throws -> ArchiveStoredValueKind
    /// Opens the array or set (`dictionary` false) or the dictionary under `key` for reading element by element.
    func openCollection(forKey key: String, dictionary: Bool) throws -> ArchiveCollectionCursor
    /// Reads a back-reference as ``ArchiveDecoder/decodeObjectReference(of:forKey:assign:)`` does; with
    /// `decodingLater`, an object nobody has started is decoded only once the rest of the graph is.
    func decodeObjectReference<T: KeyedArchivable & AnyObject>(of type: T.Type, forKey key: String, decodingLater: Bool,
                                                               assign: @escaping (T?) -> Void) throws
    /// Whether a value is stored under the reserved key `name` (`$0`), which ``ArchiveDecoder`` reads never reach.
    func hasValue(reservedKey name: String) throws -> Bool
    /// The scalar stored under the reserved key `name`, or nil when there is none.
    func scalarValue(reservedKey name: String, expected: String) throws -> PropertyListValue?
    /// The object of type `T` stored under the reserved key `name`.
    func object<T: KeyedArchivable>(of type: T.Type, reservedKey name: String) throws -> T
    /// Runs `body`, code outside the unarchiver that recurses up to `levels` deep, on a stack that holds them.
    func withStack<R>(forLevels levels: Int, _ body: () throws -> R) throws -> R
    /// The coding keys from the archive's top-level key to the value being decoded, or nil when the path
    /// does not start at a top-level key.
    func codingPathFromTop() -> [any CodingKey]?
    /// Whether an object of class `name` may be decoded as `type` here: one of its names, or a name the
    /// unarchiver's registry or module moves map to it.
    func acceptsObject(named name: String, as type: any KeyedArchivable.Type) -> Bool
}

extension ArchiveDecoder {
    /// This decoder as an ``ArchiveObjectReading`` when it is the unarchiver's, nil for any other conforming
    /// type: a check of the instance's class (the unarchiver's decoder is a final class), not a look-up of a
    /// protocol conformance, as the readers that call it may ask once per field.
    @inline(__always)
    var objectReading: (any ArchiveObjectReading)? { self as? ArchiveObjectDecoder }
}
