#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Lays out one `bplist00` file: the only place that numbers objects and writes containers, the offset
/// table and the trailer. ``BinaryPropertyListWriter`` feeds it a ``PropertyListValue`` tree and
/// ``KeyedArchiveEmitter`` an archive's objects, so both give the same bytes for the same objects.
///
/// The layout, which makes the output deterministic:
/// - Objects are numbered breadth-first from the root (number 0): the feeder takes the containers in the
///   order ``nextContainer()`` returns them and gives each one's references in order (a dictionary's keys
///   before its values); a scalar is numbered where it is first referenced, a container where it is
///   referenced (``container(_:)``) and its contents when its turn comes.
/// - Scalars are written as they are numbered, each distinct one once (``scalar(_:)``; or
///   ``uniqueScalar(_:)`` when the feeder has already de-duplicated them); containers follow all scalars,
///   once the reference width is known.
/// - References are 1, 2, 4 or 8 bytes, the fewest that hold the object count; offset-table entries the
///   fewest of those that hold the table's own position (CoreFoundation's choice:
///   ``BinaryPropertyListOutput/cfByteCount(_:)``); then the 32-byte trailer.
///
/// `Pending` is what the feeder needs to fill a container in when its turn comes (a value, an id).
struct BinaryPropertyListBuilder<Pending> {
    typealias ObjectNumber = BinaryPropertyListObjectNumber

    /// The file so far (header and scalars); an object's number is its id in the pool, and a container
    /// holds a reserved id whose position is set when it is written.
    private var objects: BinaryPropertyListScalarPool
    /// Containers in the order they were filled in (object-number order), with references in `references`.
    private var containers: [Container] = []
    /// The references of all containers, one after another (freed by ``finish()``).
    private var references: BinaryPropertyListReferences
    /// Containers numbered but not yet filled in, breadth-first; `head` is the next.
    private var queue: [(Pending, ObjectNumber)] = []
    private var head = 0
    /// The numbers of the UIDs given to ``uid(_:)``, by value.
    private var uids = BinaryPropertyListUIDTable()

    /// An array, set or dictionary to write: where its references start in `references` (a dictionary's
    /// `count` keys, then its `count` values).
    private struct Container {
        var kind: BinaryPropertyListMarker
        var start: Int
        var count: Int
        var number: ObjectNumber
    }

    /// A builder with room for `capacity` bytes before its buffer grows.
    ///
    /// - Parameters:
    ///   - expectedScalarCount: distinct scalars given to ``scalar(_:)`` before its table first grows.
    ///   - objectCount, containerCount, referenceCount: the sizes to reserve, when known.
    init(capacity: Int, expectedScalarCount: Int = 128, objectCount: Int = 0, containerCount: Int = 0, referenceCount: Int = 0) {
        objects = BinaryPropertyListScalarPool(capacity: capacity, expectedCount: expectedScalarCount, prefix: "bplist00")
        objects.reserveCapacity(objectCount)
        containers.reserveCapacity(containerCount)
        queue.reserveCapacity(containerCount)
        references = BinaryPropertyListReferences(capacity: referenceCount)
    }

    // MARK: - Numbering

    /// The number of a container referenced here; `pending` comes back from ``nextContainer()`` in turn.
    @inline(__always)
    mutating func container(_ pending: Pending) -> ObjectNumber {
        let number = ObjectNumber(objects.reserveID())
        queue.append((pending, number))
        return number
    }

    /// The next container to fill in (its references, then ``endContainer(_:number:entries:)``), breadth-first;
    /// nil when every container has been filled in.
    @inline(__always)
    mutating func nextContainer() -> (Pending, ObjectNumber)? {
        guard head < queue.count else {
            queue = []
            head = 0
            return nil
        }
        head += 1
        return queue[head - 1]
    }

    /// What ``nextContainer()`` will return `offset` calls from now (0: the next), if that container is
    /// already numbered: for a feeder that reads ahead. The queue is not changed.
    @inline(__always)
    func pending(at offset: Int) -> Pending? {
        head + offset < queue.count ? queue[head + offset].0 : nil
    }

    /// The number of the scalar `encode` writes: a new one, or an earlier identical scalar's (written once).
    @inline(__always)
    mutating func scalar(_ encode: (inout BinaryPropertyListOutput) -> Void) -> ObjectNumber {
        ObjectNumber(objects.add(encode))
    }

    /// The number of the UID `value`: the one `scalar { $0.appendUID(value) }` gives, found by value rather
    /// than by hashing its bytes (see ``BinaryPropertyListUIDTable``). A feeder gives every UID this way or
    /// every UID through ``scalar(_:)``.
    @inline(__always)
    mutating func uid(_ value: UInt64) -> ObjectNumber {
        if value < UInt64(uids.capacity) {
            let recorded = uids.recorded(Int(value))
            if recorded != 0 { return ObjectNumber(rawValue: recorded - 1) }
        }
        return newUID(value)
    }

    /// ``uid(_:)`` for a value not found in the table: a UID numbered now, or one the scalar table holds.
    private mutating func newUID(_ value: UInt64) -> ObjectNumber {
        // The table covers values below twice the objects numbered so far (a keyed archive's UIDs index its
        // `$objects`, all numbered before the first object's contents); a larger one goes to the scalar table.
        guard uids.cover(value, bound: 2 * objects.count + 4096) else {
            uids.hasOverflow = true
            return ObjectNumber(objects.add { $0.appendUID(value) })
        }
        let number = uids.hasOverflow ? objects.add { $0.appendUID(value) } : objects.addUnique { $0.appendUID(value) }
        uids.record(Int(value), number: number)
        return ObjectNumber(number)
    }

    /// The number of a scalar that the feeder knows is distinct from every other it gives.
    @inline(__always)
    mutating func uniqueScalar(_ encode: (inout BinaryPropertyListOutput) -> Void) -> ObjectNumber {
        ObjectNumber(objects.addUnique(encode))
    }

    // MARK: - Containers

    /// Adds a reference to the container being filled in.
    @inline(__always)
    mutating func reference(_ number: ObjectNumber) {
        references.append(number.rawValue)
    }

    /// Completes the container `number` from the references given since the previous one: `entries`
    /// elements (a dictionary: `entries` keys, then `entries` values).
    @inline(__always)
    mutating func endContainer(_ kind: BinaryPropertyListMarker, number: ObjectNumber, entries count: Int) {
        let start = references.count - kind.referenceCount(entries: count)
        containers.append(Container(kind: kind, start: start, count: count, number: number))
    }

    // MARK: - File

    /// Writes the containers, the offset table and the trailer, and hands the buffer over as `Data`.
    mutating func finish() -> Data {
        objects.releaseTable()
        uids = BinaryPropertyListUIDTable()
        let objectCount = objects.count
        let refSize = BinaryPropertyListOutput.cfByteCount(UInt64(objectCount))
        var containerBytes = references.count * refSize
        for c in containers { containerBytes += BinaryPropertyListOutput.headerSize(c.count) }
        let containers = self.containers
        let references = self.references.buffer
        self.containers = []
        objects.withOutput { out, positions in
            out.reserve(containerBytes)
            for c in containers {
                positions[c.number.index] = out.count
                out.appendHeader(c.kind, count: c.count)
                let n = c.kind.referenceCount(entries: c.count)
                out.appendBigEndian(UnsafeBufferPointer(rebasing: references[c.start ..< c.start + n]), width: refSize)
            }
            let tableOffset = out.count
            let offsetSize = BinaryPropertyListOutput.cfByteCount(UInt64(tableOffset))
            out.reserve(objectCount * offsetSize + 32)
            positions.withUnsafeBufferPointer { out.appendBigEndian($0, width: offsetSize) }
            // Trailer: 5 unused bytes, sort version 0, sizes, object count, top object (0), table offset.
            out.appendBigEndian(0, width: 6)
            out.append(UInt8(offsetSize))
            out.append(UInt8(refSize))
            out.appendBigEndian(UInt64(objectCount), width: 8)
            out.appendBigEndian(0, width: 8)
            out.appendBigEndian(UInt64(tableOffset), width: 8)
        }
        self.references.deallocate()
        return objects.takeData()
    }
}
