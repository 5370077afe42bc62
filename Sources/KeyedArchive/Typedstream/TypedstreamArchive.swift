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
