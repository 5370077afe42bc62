// The archive readers (the whole-archive check, the unarchiver) read `$objects` by the same ids the
// archiver numbers them with (``ArchiveObjectID``): the number a UID holds, 0 being `$null`. Where the
// unarchiver's engine (``DecodedObjectTable``) is handed both an id and a property-list object, the
// object is a ``PropertyListObjectNumber``, so that the two numbers cannot be swapped.
extension ArchiveObjectID {
    /// The entry a UID names (the caller has checked it against `$objects`' count).
    @inline(__always)
    init(reference: UInt64) { self.init(Int(truncatingIfNeeded: reference)) }

    /// The id as error messages and ``KeyedArchiveError/objectUID`` give it.
    @inline(__always)
    var objectUID: UInt64 { UInt64(truncatingIfNeeded: rawValue) }
}

/// The number of an object in a binary property list being read: its index in the offset table and what
/// an object reference holds (the values an ``ArchiveObjectDecoder`` reads are such numbers). Not an
/// ``ArchiveObjectID``: a UID object is one property-list object, and the id it holds is another number.
///
/// The write side's ``BinaryPropertyListObjectNumber`` is the same number in 32 bits (a file this package
/// writes has fewer than 2^32 objects); a file being read is only checked against its own object count, so
/// this one holds an `Int`. Every number comes from a checked reference, and the tables that index by it
/// still compare it with their counts.
struct PropertyListObjectNumber: Hashable {
    /// The index in the offset table.
    var index: Int

    @inline(__always)
    init(_ index: Int) { self.index = index }
}
