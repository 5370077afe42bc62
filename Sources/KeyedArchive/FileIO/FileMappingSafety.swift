/// What the system says about an open file and its volume, and whether mapping the file is safe there: the
/// rule of Foundation's `Data.ReadingOptions.mappedIfSafe` on Apple platforms.
///
/// A page of a mapped file is read when it is first touched. If the file cannot be read then, the process
/// gets `SIGBUS` and dies: after the device locks (a file of data protection class A has no key while
/// locked), when a network or removable volume goes away, or when decompressing a file needs another
/// process. Foundation on Apple platforms (swift-foundation's `shouldMapFileDescriptor`, built as
/// `FOUNDATION_FRAMEWORK`) maps only when `fcntl(F_GETPROTECTIONCLASS)` succeeds, `fstatfs` says the volume
/// is local (`MNT_LOCAL`) and not removable (`MNT_REMOVABLE`), and the file's compression is of a kind the
/// kernel decompresses itself. This rule is stricter in two ways, each never less safe: a file of class A
/// (which has no key while the device is locked) is read, whatever Foundation's own test of the class
/// decides, and any compressed (`UF_COMPRESSED`) or dataless (`SF_DATALESS`, contents fetched on demand)
/// file is read, since Foundation's finer check of the compression kind is a private call.
///
/// The facts are gathered by ``SystemCalls/mappingFacts(_:)`` on Darwin; the decision is a pure function
/// of them, so it is the same code, and tested, on every platform. Elsewhere (Linux) a regular file is
/// mapped as before: ``FileReader``'s notes give the caveat.
struct FileMappingFacts: Sendable, Equatable {
    /// `fcntl(F_GETPROTECTIONCLASS)`: the file's data protection class, or nil when the call failed.
    var protectionClass: Int32?
    /// Whether the volume is local (`MNT_LOCAL`), or nil when `fstatfs` failed.
    var isLocalVolume: Bool?
    /// Whether the volume is removable (`MNT_REMOVABLE`).
    var isRemovableVolume: Bool
    /// Whether the file is compressed (`UF_COMPRESSED` in `st_flags`).
    var isCompressed: Bool
    /// Whether the file's contents are not on the volume yet (`SF_DATALESS` in `st_flags`).
    var isDataless: Bool

    /// Data protection class A (`PROTECTION_CLASS_A` in xnu's sys/content_protection.h, a header the SDK
    /// does not ship): unreadable while the device is locked.
    static let protectionClassA: Int32 = 1

    /// Whether the file may be mapped: a known protection class other than A, on a local, non-removable
    /// volume, neither compressed nor dataless.
    var isSafeToMap: Bool {
        guard let protectionClass, protectionClass >= 0, protectionClass != Self.protectionClassA else { return false }
        guard isLocalVolume == true, !isRemovableVolume else { return false }
        return !isCompressed && !isDataless
    }
}
