import Foundation
import Testing
@testable import KeyedArchive

// The one bplist layout (BinaryPropertyListBuilder) that BinaryPropertyListWriter and KeyedArchiver's
// emitter both feed, and the format's marker names (BinaryPropertyListMarker).

@Suite struct BinaryPropertyListBuilderTests {
    /// `["a", "a", true]` laid out by hand: header, scalars in first-use order ("a" once), the array
    /// after them, the offset table, the trailer.
    private let expected: [UInt8] = Array("bplist00".utf8) + [
        0x51, 0x61,              // object 1 at 8: ASCII "a"
        0x09,                    // object 2 at 10: true
        0xA3, 0x01, 0x01, 0x02,  // object 0 at 11: array of 3, references 1-byte wide
        0x0B, 0x08, 0x0A,        // offset table at 15: objects 0, 1, 2
        0, 0, 0, 0, 0, 0,        // trailer: unused, sort version
        0x01, 0x01,              // offset size, reference size
        0, 0, 0, 0, 0, 0, 0, 3,  // object count
        0, 0, 0, 0, 0, 0, 0, 0,  // top object
        0, 0, 0, 0, 0, 0, 0, 15, // offset-table offset
    ]

    @Test func writerLaysOutTheExpectedBytes() {
        let bytes = BinaryPropertyListWriter().write(.array(["a", "a", true]))
        #expect(Array(bytes) == expected)
    }

    @Test func pendingContainersAreSeenAheadInTheOrderTheyAreFilledIn() {
        var builder = BinaryPropertyListBuilder<Int>(capacity: 16)
        _ = builder.container(10)
        #expect(builder.pending(at: 0) == 10 && builder.pending(at: 1) == nil)
        var filled: [Int] = []
        var seenAhead: [[Int?]] = []
        while let (pending, number) = builder.nextContainer() {
            filled.append(pending)
            if pending == 10 {  // the root refers to three containers, queued behind it
                for child in [11, 12, 13] { builder.reference(builder.container(child)) }
            }
            seenAhead.append((0 ..< 4).map { builder.pending(at: $0) })
            builder.endContainer(.array, number: number, entries: pending == 10 ? 3 : 0)
        }
        #expect(filled == [10, 11, 12, 13])
        #expect(seenAhead == [[11, 12, 13, nil], [12, 13, nil, nil], [13, nil, nil, nil], [nil, nil, nil, nil]])
        _ = builder.finish()
    }

    @Test func builderFedDirectlyLaysOutTheSameBytesAsTheWriter() throws {
        var builder = BinaryPropertyListBuilder<Int>(capacity: 16)
        let root = builder.container(7)
        #expect(root.index == 0)
        var filled: [Int] = []
        while let (pending, number) = builder.nextContainer() {
            filled.append(pending)
            let a = builder.scalar { $0.appendString("a") }
            let again = builder.scalar { $0.appendString("a") }
            #expect(again == a)  // a scalar is written once
            builder.reference(a)
            builder.reference(again)
            builder.reference(builder.uniqueScalar { $0.appendBool(true) })
            builder.endContainer(.array, number: number, entries: 3)
        }
        #expect(filled == [7])
        let bytes = builder.finish()
        #expect(Array(bytes) == expected)
        #expect(try BinaryPropertyListReader().read(bytes) == .array(["a", "a", true]))
    }

    @Test func containersAreNumberedBreadthFirstKeysBeforeValues() throws {
        // {"k": [1], "l": {"m": 2}}: root 0, then "k" 1, "l" 2, the array 3, the dictionary 4, then their contents.
        var builder = BinaryPropertyListBuilder<String>(capacity: 16)
        _ = builder.container("root")
        var order: [(String, UInt32)] = []
        while let (pending, number) = builder.nextContainer() {
            order.append((pending, number.rawValue))
            switch pending {
            case "root":
                builder.reference(builder.scalar { $0.appendString("k") })
                builder.reference(builder.scalar { $0.appendString("l") })
                builder.reference(builder.container("array"))
                builder.reference(builder.container("dictionary"))
                builder.endContainer(.dictionary, number: number, entries: 2)
            case "array":
                builder.reference(builder.scalar { $0.appendInteger(Int64(1)) })
                builder.endContainer(.array, number: number, entries: 1)
            default:
                builder.reference(builder.scalar { $0.appendString("m") })
                builder.reference(builder.scalar { $0.appendInteger(Int64(2)) })
                builder.endContainer(.dictionary, number: number, entries: 1)
            }
        }
        #expect(order.map(\.0) == ["root", "array", "dictionary"])
        #expect(order.map(\.1) == [0, 3, 4])
        let bytes = builder.finish()
        let value: PropertyListValue = ["k": [1], "l": ["m": 2]]
        #expect(bytes == BinaryPropertyListWriter().write(value))
        #expect(try BinaryPropertyListReader().read(bytes) == value)
    }

    @Test func uniqueScalarsAreNotShared() throws {
        var builder = BinaryPropertyListBuilder<Int>(capacity: 16)
        _ = builder.container(0)
        while let (_, number) = builder.nextContainer() {
            let first = builder.uniqueScalar { $0.appendInteger(Int64(5)) }
            let second = builder.uniqueScalar { $0.appendInteger(Int64(5)) }
            #expect(first != second)
            builder.reference(first)
            builder.reference(second)
            builder.endContainer(.set, number: number, entries: 2)
        }
        let bytes = builder.finish()
        // Three objects in the trailer: the set and two copies of 5.
        #expect(bytes.suffix(24).prefix(8) == Data([0, 0, 0, 0, 0, 0, 0, 3]))
        #expect(try BinaryPropertyListReader().read(bytes) == .set([5, 5]))
    }

    @Test func referencesWidenAt256Objects() throws {
        // 255 distinct integers and the array: 256 objects need 2-byte references; 255 objects need 1.
        for (count, width) in [(254, UInt8(1)), (255, UInt8(2))] {
            let value = PropertyListValue.array((0 ..< count).map { .integer(PropertyListInteger(Int64($0))) })
            let bytes = BinaryPropertyListWriter().write(value)
            #expect(bytes[bytes.count - 25] == width, "\(count + 1) objects")
            #expect(try BinaryPropertyListReader().read(bytes) == value)
        }
    }

    @Test func markersNameTheHighNibble() {
        #expect(BinaryPropertyListMarker(byte: 0x09) == .singleton)
        #expect(BinaryPropertyListMarker(byte: 0x13) == .integer)
        #expect(BinaryPropertyListMarker(byte: 0x33) == .date)
        #expect(BinaryPropertyListMarker(byte: 0x5F) == .asciiString)
        #expect(BinaryPropertyListMarker(byte: 0x80) == .uid)
        #expect(BinaryPropertyListMarker(byte: 0xDF) == .dictionary)
        for unused: UInt8 in [0x90, 0xE0, 0xFF] { #expect(BinaryPropertyListMarker(byte: unused) == nil) }
        #expect(BinaryPropertyListMarker.dictionary.byte(nibble: 0xF) == 0xDF)
        #expect(BinaryPropertyListMarker.nibble(0xA7) == 7)
        let containers: [BinaryPropertyListMarker] = [.array, .orderedSet, .set, .dictionary]
        let scalars: [BinaryPropertyListMarker] = [.singleton, .integer, .real, .date, .data, .asciiString, .utf16String, .utf8String, .uid]
        #expect(containers.filter(\.isContainer).count == containers.count)
        #expect(scalars.filter(\.isContainer).isEmpty)
        #expect(BinaryPropertyListMarker.dictionary.referenceCount(entries: 3) == 6)
        #expect(BinaryPropertyListMarker.set.referenceCount(entries: 3) == 3)
    }
}
