#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A typedstream (`NSArchiver`) archive as it is stored: every class with its version, every object with
/// its values in order, each value with its type encoding, so that nothing in the file is lost.
///
/// Foundation has no corresponding API: `NSUnarchiver` instantiates the classes. This is the untyped view,
/// like ``ArchivedObjectGraph`` for keyed archives; ``TypedstreamUnarchiver`` reads Foundation's classes
/// from it as ``FoundationValue``s.
///
/// The format: a header (`04 0B`, then `streamtyped` for little-endian data or `typedstream` for
/// big-endian, then the system version, 1000 since Mac OS X), then groups of values, each group led by its
/// Objective-C type encoding string (`"@"`, `"iI"`, `"{_NSPoint=ff}"`). An object (`@`) stored for the first
/// time is its class chain (class name, version, then its superclass's, down to `NSObject`), then the
/// groups its `encodeWithCoder:` wrote, then an end marker; later occurrences are references to it. The
/// model keeps objects and classes in tables in the order the stream stores them (``objects``,
/// ``classes``): a value ``TypedstreamValue/object(_:)`` is the place an object is stored,
/// ``TypedstreamValue/objectReference(_:)`` a later reference to it, so the model is flat and has no
/// recursion however deeply the objects nest.
///
/// ``init(data:limits:)`` reads one; ``encodedData()`` writes one. Writing what was read gives the same
/// bytes for archives Apple's writer made (shared strings, C strings and classes are written once and then
/// referred to, integers and reals in their shortest form, as Apple does).
public struct TypedstreamArchive: Hashable, Sendable {
    /// The byte order of multi-byte integers and reals.
    public enum ByteOrder: Hashable, Sendable {
        /// `streamtyped`: written on a little-endian machine (Intel, Apple silicon).
        case littleEndian
        /// `typedstream`: written on a big-endian machine (PowerPC, 68k).
        case bigEndian
    }

    /// The byte order the header names.
    public var byteOrder: ByteOrder
    /// The system version after the signature: 1000 for every Mac OS X and macOS archive.
    public var systemVersion: Int
    /// Every class stored in the stream, in stream order.
    public var classes: [TypedstreamClass]
    /// Every object stored in the stream, in the order their storing began (an object is numbered before
    /// the objects it contains).
    public var objects: [TypedstreamObject]
    /// The top-level groups of values (usually one group holding the root object).
    public var groups: [TypedstreamGroup]

    /// An archive of `groups`, with the tables their values point into.
    ///
    /// - Parameters:
    ///   - byteOrder: the byte order to write (Apple's machines today write ``ByteOrder/littleEndian``).
    ///   - systemVersion: the system version to write (1000, as every Mac OS X and macOS version writes).
    ///   - classes: the classes that objects and ``TypedstreamValue/class(_:)`` values name by index.
    ///   - objects: the objects that ``TypedstreamValue/object(_:)`` values store, by index.
    ///   - groups: the top-level groups.
    public init(byteOrder: ByteOrder = .littleEndian, systemVersion: Int = 1000, classes: [TypedstreamClass] = [],
                objects: [TypedstreamObject] = [], groups: [TypedstreamGroup] = []) {
        self.byteOrder = byteOrder
        self.systemVersion = systemVersion
        self.classes = classes
        self.objects = objects
        self.groups = groups
    }

    /// The class chain of the class at `index`: the class, its superclass, ..., the root class (usually
    /// `NSObject`); empty when `index` is out of range. A chain that loops (only a model built by hand can
    /// have one) stops before the first class it repeats.
    public func classChain(ofClassAt index: Int) -> [TypedstreamClass] {
        var chain: [TypedstreamClass] = []
        var seen = Set<Int>()
        var next: Int? = index
        while let current = next, classes.indices.contains(current), seen.insert(current).inserted {
            chain.append(classes[current])
            next = classes[current].superclass
        }
        return chain
    }

    /// The class name of the object at `index`, or nil when `index` or its class index is out of range.
    public func className(ofObjectAt index: Int) -> String? {
        guard objects.indices.contains(index), classes.indices.contains(objects[index].classIndex) else { return nil }
        return classes[objects[index].classIndex].name
    }
}

/// A class as a typedstream stores it: its name, the version its `+version` reported when it was archived
/// (how old code told which fields a stream holds), and its superclass.
public struct TypedstreamClass: Hashable, Sendable {
    /// The class name (`NSMutableString`).
    public var name: String
    /// The class version the stream records (`NSString` 1, `NSObject` 0, `NSFont` 21 or 30...).
    public var version: Int
    /// The index of the superclass in ``TypedstreamArchive/classes``, or nil for a root class.
    public var superclass: Int?

    /// A class named `name`, at `version`, whose superclass is the class at index `superclass`.
    public init(name: String, version: Int, superclass: Int?) {
        self.name = name
        self.version = version
        self.superclass = superclass
    }
}

/// An object as a typedstream stores it: its class and the groups of values its `encodeWithCoder:` wrote.
public struct TypedstreamObject: Hashable, Sendable {
    /// The index of its class in ``TypedstreamArchive/classes``.
    public var classIndex: Int
    /// The groups of values, in stream order.
    public var groups: [TypedstreamGroup]

    /// An object of the class at `classIndex` holding `groups`.
    public init(classIndex: Int, groups: [TypedstreamGroup]) {
        self.classIndex = classIndex
        self.groups = groups
    }
}

/// Values written by one `encodeValuesOfObjCTypes:` (or `encodeValueOfObjCType:at:`) call: a type encoding
/// string and one value per type in it.
public struct TypedstreamGroup: Hashable, Sendable {
    /// The Objective-C type encoding string, such as `"@"`, `"iI"` or `"{_NSPoint=ff}"`.
    public var encoding: String
    /// One value per type of ``encoding``, in order.
    public var values: [TypedstreamValue]

    /// A group of `values` of the types `encoding` lists.
    public init(encoding: String, values: [TypedstreamValue]) {
        self.encoding = encoding
        self.values = values
    }
}

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
