#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes Apple's binary property-list format (`bplist00`), as small as the format allows.
///
/// The corresponding Foundation API is `PropertyListSerialization.data(fromPropertyList:format:options:)`
/// with `.binary`.
///
/// What the writer does:
/// - Each distinct scalar (string, integer, real, boolean, date, data, UID) is written once and shared by
///   every reference to it. "Distinct" is exact: `.real(1.0)`, `.float(1.0)`, `.integer(1)` and `.bool(true)`
///   are four objects, reals and dates compare by bit pattern, and strings compare by their exact Unicode
///   scalars (a precomposed and a decomposed "é" stay two strings, although Swift's `==` calls them equal).
/// - Containers are not merged by equality: CoreFoundation's writer uniques only strings, numbers, dates and
///   data, so two equal arrays are two objects. A container that the value holds in several places (Swift
///   arrays and dictionaries are values, so copies share their storage) is written in each place for the
///   first 100,000 containers (the allowance of the library's expansion budget), the layout Foundation gives its
///   bridged copies; past them, a container whose storage was already numbered is referred to by that
///   number, as CoreFoundation refers every reference to one object to its first copy. So a value that
///   shares sub-trees heavily (40 levels, each holding the next twice: 2^40 paths) is written in time and
///   space proportional to its distinct containers, and reads back equal to the value written.
/// - Integers use the fewest bytes: 1, 2, 4 or 8 for non-negative values, 8 for negative ones (the format's
///   8-byte integers are signed), 16 for values above `Int64.max`.
/// - Strings are ASCII (`0x5n`) when every character is below U+0080, otherwise UTF-16 big-endian (`0x6n`).
/// - `.float` is written as a 4-byte real, `.real` as 8 bytes; sets use the set marker `0xCn`.
/// - Offset-table entries, object references and UIDs are 1, 2, 4 or 8 bytes wide, as CoreFoundation's
///   writer makes them: references the fewest of these that hold the object count, offsets the fewest
///   that hold the offset table's position, a UID the fewest that hold its value.
/// - Output is deterministic: objects are numbered breadth-first from the root (number 0), dictionary keys
///   before values, in stored order; the same value always gives the same bytes.
///
/// How: the writer feeds the value to `BinaryPropertyListBuilder`, the layout it shares with
/// ``KeyedArchiver``: scalars are encoded straight into the output buffer as they are met, and
/// de-duplicated by their encoded bytes (which are equal exactly when the values are equal in the sense
/// above), so no value is retained or hashed twice (UIDs, dense in a keyed archive, are found by value instead,
/// in `BinaryPropertyListUIDTable`); containers are written after them, once the reference
/// width is known. The buffer becomes the returned `Data` without a copy. The writer works without
/// recursion, so arbitrarily deep values cannot overflow the stack.
public struct BinaryPropertyListWriter: Sendable {
    /// A writer.
    public init() {}

    /// The smallest valid `bplist00` encoding of `value`.
    ///
    /// The corresponding Foundation API is `PropertyListSerialization.data(fromPropertyList:format:options:)`.
    /// - Parameter value: the root value; any ``PropertyListValue`` can be written.
    /// - Returns: the complete file, header to trailer.
    public func write(_ value: PropertyListValue) -> Data {
        var builder = BinaryPropertyListBuilder<Pending>(capacity: 4096)
        var numbering = ContainerNumbering()
        // The queue holds containers unretained (see `Pending`): `value` owns them all until `write` returns.
        withExtendedLifetime(value) {
            _ = Self.add(value, to: &builder, numbering: &numbering)
            while let (pending, number) = builder.nextContainer() {
                switch pending.kind {
                case .array, .set:
                    let count = Unmanaged<ArrayBox>.fromOpaque(pending.box)._withUnsafeGuaranteedRef { box in
                        box.storage.withUnsafeBufferPointer { elements in
                            for i in elements.indices { builder.reference(Self.add(at: i, of: elements, to: &builder, numbering: &numbering)) }
                            return elements.count
                        }
                    }
                    builder.endContainer(pending.kind == .array ? .array : .set, number: number, entries: count)
                case .dictionary:
                    let count = Unmanaged<DictionaryBox>.fromOpaque(pending.box)._withUnsafeGuaranteedRef { box in
                        box.storage.keys.withUnsafeBufferPointer { keys in
                            for k in keys { builder.reference(builder.scalar { $0.appendString(k) }) }
                        }
                        return box.storage.values.withUnsafeBufferPointer { values in
                            for i in values.indices { builder.reference(Self.add(at: i, of: values, to: &builder, numbering: &numbering)) }
                            return values.count
                        }
                    }
                    builder.endContainer(.dictionary, number: number, entries: count)
                }
            }
        }
        return builder.finish()
    }

    private typealias ArrayBox = DeepTeardownBox<[PropertyListValue]>
    private typealias DictionaryBox = DeepTeardownBox<PropertyListDictionary.Entries>

    /// A container queued in the builder: its storage box, not retained. Retaining it when queued and
    /// releasing it when the queue is freed touched every container's box twice more, long after it had
    /// left the cache; the tree given to `write` owns every box for the whole write.
    private struct Pending: Hashable {
        enum Kind: UInt8 { case array, set, dictionary }
        var box: UnsafeMutableRawPointer
        var kind: Kind
    }

    /// Numbers the containers referenced: each reference gets a new number for the first
    /// ``PropertyListExpansionBudget/allowance`` containers, then a container already numbered since
    /// (the same storage, the same kind) keeps its number. Every write of a value without such sharing
    /// stays below the allowance or pays one hash per container beyond it; the number of containers
    /// written is at most the allowance plus the distinct containers.
    private struct ContainerNumbering {
        private var numbered = 0
        private var numbers: [Pending: BinaryPropertyListObjectNumber] = [:]

        @inline(__always)
        mutating func number(_ pending: Pending, in builder: inout BinaryPropertyListBuilder<Pending>)
            -> BinaryPropertyListObjectNumber {
            numbered += 1
            guard numbered > PropertyListExpansionBudget.allowance else { return builder.container(pending) }
            return numberOnce(pending, in: &builder)
        }

        private mutating func numberOnce(_ pending: Pending, in builder: inout BinaryPropertyListBuilder<Pending>)
            -> BinaryPropertyListObjectNumber {
            if let number = numbers[pending] { return number }
            let number = builder.container(pending)
            numbers[pending] = number
            return number
        }
    }

    /// The object number of `values[index]` (``add(_:to:)``).
    ///
    /// A container's box is read out of the element by ``containerPending(_:)``, which does nothing else, so
    /// the optimizer drops the element copy's retain and release. Copied for the whole of `add(_:to:)` (as
    /// `for e in elements` did), each container's box was retained when numbered: an atomic write to a line
    /// that, at 200,000 archived models, is out of the cache then and again when the container's turn comes
    /// (and an atomic operation waits for the loads before it). The release build's loop over an array's
    /// elements calls `swift_retain` from 2 places instead of 5.
    @inline(__always)
    private static func add(at index: Int, of values: UnsafeBufferPointer<PropertyListValue>,
                            to builder: inout BinaryPropertyListBuilder<Pending>,
                            numbering: inout ContainerNumbering) -> BinaryPropertyListObjectNumber {
        if let pending = containerPending(values[index]) { return numbering.number(pending, in: &builder) }
        return add(values[index], to: &builder, numbering: &numbering)
    }

    /// `value`'s box, unretained, if it is a container.
    @inline(__always)
    private static func containerPending(_ value: PropertyListValue) -> Pending? {
        switch value {
        case .array(let a): return Pending(box: Unmanaged.passUnretained(a.box).toOpaque(), kind: .array)
        case .set(let a): return Pending(box: Unmanaged.passUnretained(a.box).toOpaque(), kind: .set)
        case .dictionary(let d): return Pending(box: Unmanaged.passUnretained(d.storage).toOpaque(), kind: .dictionary)
        default: return nil
        }
    }

    /// The object number of `value`: a new number for a container (filled in when its turn comes), a
    /// shared one for a scalar.
    @inline(__always)
    private static func add(_ value: PropertyListValue, to builder: inout BinaryPropertyListBuilder<Pending>,
                            numbering: inout ContainerNumbering) -> BinaryPropertyListObjectNumber {
        switch value {
        case .array(let a):
            return numbering.number(Pending(box: Unmanaged.passUnretained(a.box).toOpaque(), kind: .array), in: &builder)
        case .set(let a):
            return numbering.number(Pending(box: Unmanaged.passUnretained(a.box).toOpaque(), kind: .set), in: &builder)
        case .dictionary(let d):
            return numbering.number(Pending(box: Unmanaged.passUnretained(d.storage).toOpaque(), kind: .dictionary),
                                    in: &builder)
        case .string(let s): return builder.scalar { $0.appendString(s) }
        case .integer(let i): return builder.scalar { $0.appendInteger(i) }
        case .real(let d): return builder.scalar { $0.appendReal(d) }
        case .float(let f): return builder.scalar { $0.appendFloat(f) }
        case .date(let d): return builder.scalar { $0.appendDate(d) }
        case .bool(let b): return builder.scalar { $0.appendBool(b) }
        case .data(let d): return builder.scalar { $0.appendData(d) }
        case .uid(let u): return builder.uid(u.value)
        }
    }
}
