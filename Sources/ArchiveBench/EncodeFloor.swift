import Foundation
import KeyedArchive

/// The floor of the work an archive of ``ArchiverWorkload``'s graph does that is the model's own: each
/// person's `encode(to:)` called once, in the root array's order, with an encoder that keeps nothing
/// (``FieldTouchingEncoder``). What the model's code does there (reading its fields, copying its friends out
/// of their array, which retains and releases each friend) every archiver pays, whatever it does with the
/// values; the floor leaves out everything about the archive (identities, the work queue, the layout, the
/// bytes). The encoder still touches the first byte of each string and data value, because any archiver has
/// to read those bytes to write them. The report sets the archive's growth beyond this floor beside its
/// plain growth (issue #18's goal 1).
struct EncodeFloor {
    let people: [BenchPerson]

    /// Calls every person's `encode(to:)` once; returns a value made from everything the encoder was given,
    /// so that none of it can be left out.
    func run() throws -> Int {
        let encoder = FieldTouchingEncoder()
        for person in people { try person.encode(to: encoder) }
        return encoder.sink
    }
}

/// An ``ArchiveEncoder`` that keeps nothing: each value given to it is folded into ``sink`` (a string's or
/// data value's first byte and count, a number's bits; an object, a collection: a count), so the caller's work cannot be optimised
/// away. Objects are not followed: ``EncodeFloor`` calls each person itself.
final class FieldTouchingEncoder: ArchiveEncoder {
    private(set) var sink = 0

    private func fold(_ value: Int) { sink = sink &* 31 &+ value }

    func encode(_ value: Bool, forKey key: String) throws { fold(value ? 1 : 0) }
    func encodeInteger<T: FixedWidthInteger>(_ value: T, forKey key: String) throws { fold(Int(truncatingIfNeeded: value)) }
    func encode(_ value: Float, forKey key: String) throws { fold(Int(value.bitPattern)) }
    func encode(_ value: Double, forKey key: String) throws { fold(Int(bitPattern: UInt(value.bitPattern))) }
    func encode(_ value: String, forKey key: String) throws {
        var value = value
        fold(value.withUTF8 { Int($0.first ?? 0) &+ $0.count })
    }
    func encode(_ value: Data, forKey key: String) throws { fold(Int(value.first ?? 0) &+ value.count) }
    func encode(_ value: Date, forKey key: String) throws {
        fold(Int(bitPattern: UInt(value.timeIntervalSinceReferenceDate.bitPattern)))
    }
    func encode(_ value: UUID, forKey key: String) throws { fold(value.hashValue) }
    func encode(_ value: URL, forKey key: String) throws { fold(value.hashValue) }
    func encodeNil(forKey key: String) throws { fold(0) }
    func encodeObject<T: KeyedArchivable>(_ object: T, forKey key: String) throws {
        fold(1)
    }
    func encodeConditionalObject<T: KeyedArchivable & AnyObject>(_ object: T?, forKey key: String) throws {
        fold(object == nil ? 0 : 1)
    }
    func encodeArray<T: ArchiveValue>(_ elements: [T], forKey key: String) throws { fold(elements.count) }
    func encodeSet<T: ArchiveValue & Hashable>(_ elements: Set<T>, forKey key: String) throws { fold(elements.count) }
    func encodeDictionary<K: ArchiveValue & Hashable, V: ArchiveValue>(_ dictionary: [K: V], forKey key: String) throws {
        fold(dictionary.count)
    }
}
