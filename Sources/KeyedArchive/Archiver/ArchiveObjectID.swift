/// An entry of the archive's `$objects` while the archiver builds it: the number a UID in the archive
/// holds (0 is `$null`). Not a binary property list's object number (`BinaryPropertyListObjectNumber`),
/// nor a container of the emitter (``ArchiveContainerID``).
struct ArchiveObjectID: Hashable, Comparable {
    /// The index in `$objects`.
    var rawValue: Int

    @inline(__always)
    init(_ rawValue: Int) { self.rawValue = rawValue }

    /// `$null`, index 0: what a nil reference points at.
    static let null = ArchiveObjectID(0)

    @inline(__always)
    static func < (a: ArchiveObjectID, b: ArchiveObjectID) -> Bool { a.rawValue < b.rawValue }
}

/// A container ``KeyedArchiveEmitter`` builds (an object's dictionary, an `NS.objects` array, `$top`,
/// `$objects`, the envelope): its index in the emitter's container table. An object's container and its
/// ``ArchiveObjectID`` are different numbers.
struct ArchiveContainerID: Hashable {
    /// The index in the emitter's container table.
    var rawValue: Int

    @inline(__always)
    init(_ rawValue: Int) { self.rawValue = rawValue }
}
