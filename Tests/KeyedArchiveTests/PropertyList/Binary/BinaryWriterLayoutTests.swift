import Foundation
import Testing
@testable import KeyedArchive

// BinaryPropertyListWriter's layout against a plain reference: the writer's fast paths (UIDs found by
// value, read-ahead) must give byte for byte the file the reference gives.

/// The documented layout written the simple way: objects numbered breadth-first from the root (a
/// dictionary's keys before its values), each distinct scalar once (compared by its encoded bytes, in a
/// Swift dictionary), scalars in number order, then containers in number order, the offset table and the
/// trailer. It shares only the encoding of single objects with the writer (`BinaryPropertyListOutput`),
/// which other tests pin byte by byte.
private enum ReferenceLayout {
    private enum Object {
        case scalar([UInt8])
        case container(BinaryPropertyListMarker, count: Int, references: [Int])
    }

    static func write(_ root: PropertyListValue) -> [UInt8] {
        var objects: [Object?] = []
        var scalarNumbers: [[UInt8]: Int] = [:]
        var queue: [(PropertyListValue, Int)] = []
        var head = 0
        func number(_ value: PropertyListValue) -> Int {
            switch value {
            case .array, .set, .dictionary:
                objects.append(nil)
                queue.append((value, objects.count - 1))
                return objects.count - 1
            default:
                let bytes = encoded(value)
                if let known = scalarNumbers[bytes] { return known }
                objects.append(.scalar(bytes))
                scalarNumbers[bytes] = objects.count - 1
                return objects.count - 1
            }
        }
        _ = number(root)  // 0
        while head < queue.count {
            let (value, n) = queue[head]
            head += 1
            switch value {
            case .array(let elements):
                objects[n] = .container(.array, count: elements.count, references: elements.map(number))
            case .set(let elements):
                objects[n] = .container(.set, count: elements.count, references: elements.map(number))
            case .dictionary(let d):
                let keys = d.keys.map { number(.string($0)) }
                objects[n] = .container(.dictionary, count: d.count, references: keys + d.values.map(number))
            default:
                break
            }
        }
        let refSize = BinaryPropertyListOutput.cfByteCount(UInt64(objects.count))
        var bytes = Array("bplist00".utf8)
        var offsets = [Int](repeating: 0, count: objects.count)
        for (i, object) in objects.enumerated() {
            if case .scalar(let encoded)? = object { offsets[i] = bytes.count; bytes += encoded }
        }
        for (i, object) in objects.enumerated() {
            guard case .container(let kind, let count, let references)? = object else { continue }
            offsets[i] = bytes.count
            var header = BinaryPropertyListOutput(capacity: 16)
            header.appendHeader(kind, count: count)
            bytes += UnsafeRawBufferPointer(start: header.base, count: header.count)
            header.deallocate()
            for r in references { bytes += bigEndian(UInt64(r), refSize) }
        }
        let tableOffset = bytes.count
        let offsetSize = BinaryPropertyListOutput.cfByteCount(UInt64(tableOffset))
        for o in offsets { bytes += bigEndian(UInt64(o), offsetSize) }
        bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)]
        bytes += bigEndian(UInt64(objects.count), 8) + bigEndian(0, 8) + bigEndian(UInt64(tableOffset), 8)
        return bytes
    }

    private static func encoded(_ value: PropertyListValue) -> [UInt8] {
        var out = BinaryPropertyListOutput(capacity: 64)
        switch value {
        case .string(let s): out.appendString(s)
        case .integer(let i): out.appendInteger(i)
        case .real(let d): out.appendReal(d)
        case .float(let f): out.appendFloat(f)
        case .date(let d): out.appendDate(d)
        case .bool(let b): out.appendBool(b)
        case .data(let d): out.appendData(d)
        case .uid(let u): out.appendUID(u.value)
        case .array, .set, .dictionary: break
        }
        let bytes = Array(UnsafeRawBufferPointer(start: out.base, count: out.count))
        out.deallocate()
        return bytes
    }

    private static func bigEndian(_ value: UInt64, _ width: Int) -> [UInt8] {
        (0 ..< width).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * (width - 1 - $0))) }
    }
}

@Suite struct BinaryWriterLayoutTests {
    private func expectReferenceLayout(_ value: PropertyListValue, _ comment: Comment? = nil) {
        let written = Array(BinaryPropertyListWriter().write(value))
        let reference = ReferenceLayout.write(value)
        #expect(written == reference, comment)
    }

    @Test func randomValuesGiveTheReferenceBytes() {
        var g = SeededGenerator(seed: 0x1A40)
        let random = RandomPropertyList(maximumDepth: 5, maximumCount: 12)
        for i in 0 ..< 200 {
            expectReferenceLayout(random.value(&g), "random value \(i)")
        }
    }

    /// A keyed archive's shape, large: `$objects` of model dictionaries whose UIDs point back into it,
    /// with repeated and random references, as the benchmark's archives.
    @Test func archiveShapedTreeGivesTheReferenceBytes() {
        var g = SeededGenerator(seed: 0xA2C4)
        let count = 3_000
        var objects: [PropertyListValue] = ["$null", ["$classname": "Model", "$classes": ["Model", "NSObject"]]]
        for i in 0 ..< count {
            let base = objects.count
            let model: PropertyListValue = .dictionary([
                "$class": .uid(UID(1)),
                "name": .uid(UID(UInt64(base + 1))),
                "index": .integer(PropertyListInteger(Int64(i))),
                "age": .integer(PropertyListInteger(Int64(i % 90))),
                "score": .real(Double(i) * 0.37),
                "tag": .uid(UID(UInt64(base + 2))),
                "friend0": .uid(UID(UInt64(2 + 3 * Int.random(in: 0 ..< count, using: &g)))),
                "friend1": .uid(UID(UInt64(2 + 3 * Int.random(in: 0 ..< count, using: &g)))),
                "none": .uid(UID(0)),
            ])
            objects += [model, .string("Person \(i)"), .string("tag \(i % 7)")]
        }
        let root: PropertyListValue = [
            "$version": 100_000, "$archiver": "NSKeyedArchiver", "$top": ["root": .uid(UID(2))], "$objects": .array(objects),
        ]
        expectReferenceLayout(root)
    }

    /// UIDs far beyond the objects numbered so far are found by hashing, nearer ones by value; a value
    /// met first far away and later within reach keeps its one object.
    @Test func uidsFarAndNearKeepOneObjectEach() throws {
        let strings: [PropertyListValue] = (0 ..< 20_000).map { .string("s\($0)") }
        let uids: [PropertyListValue] = [20_000, 30_000, 20_000, 1 << 31, 7, 1 << 31, UInt64(UInt32.max), 7, 30_000, UInt64(UInt32.max)]
            .map { .uid(UID($0)) }
        // 20,000 is beyond reach at first (2 objects numbered); after the strings, 30,000 is within reach,
        // and the table then covers 20,000 too.
        let value: PropertyListValue = .array([uids[0]] + strings + Array(uids[1...]))
        expectReferenceLayout(value)
        let back = try BinaryPropertyListReader().read(BinaryPropertyListWriter().write(value))
        #expect(back == value)
        // Written once each: the root, 20,000 strings, and the five distinct UIDs.
        let bytes = BinaryPropertyListWriter().write(value)
        let objectCount = bytes.suffix(24).prefix(8).reduce(0) { $0 << 8 | Int($1) }
        #expect(objectCount == 1 + 20_000 + 5)
    }
}
