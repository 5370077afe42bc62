// The archive readers (the whole-archive check, the unarchiver) read `$objects` by the same ids the
// archiver numbers them with (``ArchiveObjectID``): the number a UID holds, 0 being `$null`. A
// property-list object number (what a reference inside the binary property list holds) stays a plain
// `Int` here, checked against the scanner's object count.
extension ArchiveObjectID {
    /// The entry a UID names (the caller has checked it against `$objects`' count).
    @inline(__always)
    init(reference: UInt64) { self.init(Int(truncatingIfNeeded: reference)) }

    /// The id as error messages and ``KeyedArchiveError/objectUID`` give it.
    @inline(__always)
    var objectUID: UInt64 { UInt64(truncatingIfNeeded: rawValue) }
}
