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
/// - Containers are never merged (as CoreFoundation), so the structure read back is the structure written.
/// - Integers use the fewest bytes: 1, 2, 4 or 8 for non-negative values, 8 for negative ones (the format's
///   8-byte integers are signed), 16 for values above `Int64.max`. UIDs use 1...8 bytes.
/// - Strings are ASCII (`0x5n`) when every character is below U+0080, otherwise UTF-16 big-endian (`0x6n`).
/// - `.float` is written as a 4-byte real, `.real` as 8 bytes; sets use the set marker `0xCn`.
/// - Offset-table entries and object references use the fewest bytes (any of 1...8) that CoreFoundation
///   accepts: references are `n` bytes when the object count is below 2^(8n), offsets when the offset
///   table's position is below 2^(8n).
/// - Output is deterministic: objects are numbered breadth-first from the root (number 0), dictionary keys
///   before values, in stored order; the same value always gives the same bytes.
///
/// How: scalars are encoded straight into the output buffer as they are met, and de-duplicated by their
/// encoded bytes (which are equal exactly when the values are equal in the sense above), so no value is
/// retained or hashed twice; containers are written after them, once the reference width is known. The
/// buffer becomes the returned `Data` without a copy. The writer works without recursion, so arbitrarily
/// deep values cannot overflow the stack. The encodings and the layout are shared with ``KeyedArchiver``,
/// which emits its archives directly (`BinaryPropertyListOutput`, `BinaryPropertyListScalarTable`).
public struct BinaryPropertyListWriter: Sendable {
    /// A writer.
    public init() {}

    /// The smallest valid `bplist00` encoding of `value`.
    ///
    /// The corresponding Foundation API is `PropertyListSerialization.data(fromPropertyList:format:options:)`.
    /// - Parameter value: the root value; any ``PropertyListValue`` can be written.
    /// - Returns: the complete file, header to trailer.
    public func write(_ value: PropertyListValue) -> Data {
        var encoder = BinaryPropertyListEncoder()
        encoder.flatten(value)
        return encoder.finish()
    }
}

/// Encodes one file: scalars first (as met, de-duplicated), then containers, the offset table and the trailer.
private struct BinaryPropertyListEncoder {
    var out = BinaryPropertyListOutput(capacity: 4096)
    /// Byte offset of each object, by object number; -1 for a container not yet written.
    var offsets: [Int] = []
    /// Containers in object-number order, with their references in `refs`.
    var containers: [BinaryPropertyListContainer] = []
    /// References of all containers; a dictionary's keys come before its values.
    var refs: [Int] = []
    /// Containers whose contents are not yet numbered (breadth-first order).
    var queue: [(PropertyListValue, Int)] = []
    /// The scalars written so far, by their bytes.
    var table = BinaryPropertyListScalarTable()

    init() {
        out.append(contentsOf: "bplist00")
    }

    /// Numbers every object reachable from `root`, breadth-first (root = 0), writing scalars as they come.
    mutating func flatten(_ root: PropertyListValue) {
        _ = add(root)
        var head = 0
        while head < queue.count {
            let (value, number) = queue[head]
            head += 1
            let start = refs.count
            switch value {
            case .array(let elements):
                for e in elements { refs.append(add(e)) }
                containers.append(.init(marker: 0xA0, start: start, count: elements.count, number: number))
            case .set(let elements):
                for e in elements { refs.append(add(e)) }
                containers.append(.init(marker: 0xC0, start: start, count: elements.count, number: number))
            case .dictionary(let d):
                for k in d.keys { refs.append(addString(k)) }
                for v in d.values { refs.append(add(v)) }
                containers.append(.init(marker: 0xD0, start: start, count: d.count, number: number))
            default:
                break  // only containers are queued
            }
        }
        queue = []
        table = BinaryPropertyListScalarTable(expectedCount: 0)
    }

    /// The object number of `value`: a new number for a container (queued), a shared one for a scalar.
    mutating func add(_ value: PropertyListValue) -> Int {
        let start = out.count
        switch value {
        case .array, .set, .dictionary:
            let number = offsets.count
            offsets.append(-1)
            queue.append((value, number))
            return number
        case .string(let s):
            return addString(s)
        case .integer(let i): out.appendInteger(i)
        case .real(let d): out.appendReal(d)
        case .float(let f): out.appendFloat(f)
        case .date(let d): out.appendDate(d)
        case .bool(let b): out.appendBool(b)
        case .data(let d): out.appendData(d)
        case .uid(let u): out.appendUID(u.value)
        }
        return commitScalar(from: start)
    }

    /// The object number of a string: ASCII (`0x5n`) if every byte is below 0x80, else UTF-16BE (`0x6n`).
    mutating func addString(_ s: String) -> Int {
        let start = out.count
        out.appendString(s)
        return commitScalar(from: start)
    }

    /// The scalar just encoded at `start ..< out.count`: an earlier identical object's number (and the
    /// new bytes are dropped), or a new number.
    mutating func commitScalar(from start: Int) -> Int {
        let probe = table.find(out.base, start: start, length: out.count - start, positions: offsets)
        if probe.existing >= 0 {
            out.count = start
            return probe.existing
        }
        let number = offsets.count
        offsets.append(start)
        table.insert(number, at: probe)
        return number
    }

    /// Writes the containers, the offset table and the trailer, and hands the buffer over as `Data`.
    mutating func finish() -> Data {
        out.appendContainersAndTrailer(containers, refs: refs, offsets: &offsets)
        return out.takeData()
    }
}
