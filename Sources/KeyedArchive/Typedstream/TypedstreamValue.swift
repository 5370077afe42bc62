#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One value of a typedstream, of the type its group's encoding gives.
///
/// Integers keep their signedness (the type says it); reals keep their width; byte strings stay bytes
/// (a typedstream gives them no encoding).
public indirect enum TypedstreamValue: Hashable, Sendable {
    /// `c s i l q`: a signed integer (`c` is stored as one byte, the others in the shortest form).
    case integer(Int64)
    /// `C S I L Q`: an unsigned integer.
    case unsignedInteger(UInt64)
    /// `B`: a C99 `bool`, one byte.
    case bool(Bool)
    /// `f`: a 32-bit real.
    case float(Float)
    /// `d`: a 64-bit real.
    case double(Double)
    /// `*`: a C string (nil for `NULL`); stored once, then referred to.
    case cString(Data?)
    /// `%`: an atom, a uniqued C string (nil for `NULL`).
    case atom(Data?)
    /// `:`: a selector's name (nil for a `NULL` selector).
    case selector(Data?)
    /// `+`: bytes with a length (nil when none were stored). NSString's content is its UTF-8 here.
    case bytes(Data?)
    /// `#`: a class, by index in ``TypedstreamArchive/classes`` (nil for `Nil`).
    case `class`(Int?)
    /// `@`: the object stored here, by index in ``TypedstreamArchive/objects``.
    case object(Int)
    /// `@`: a reference to an object stored earlier (or being stored: an object that contains itself).
    case objectReference(Int)
    /// `@`: `nil`.
    case nilObject
    /// `[N type]`: a C array (of anything but `c` and `C`).
    case array([TypedstreamValue])
    /// `[N c]` or `[N C]`: a C array of bytes (NSData's content).
    case byteArray(Data)
    /// `{name=types}`: a C struct's fields, in order.
    case structure([TypedstreamValue])
    /// `!`: an `int`-sized field that is not archived (nothing is stored).
    case ignored
}
