import Foundation
import Testing
@testable import KeyedArchive

// The reader's fast paths for dictionaries: a dictionary whose keys are short strings stored with the same
// bytes as an earlier dictionary's (Foundation's writer stores every dictionary's keys again) shares that
// dictionary's keys instead of decoding its own; anything else is decoded and checked as before. And the
// marker kinds, now decoded by a switch of their own.

@Suite struct BinaryReaderKeySetTests {
    @Test func keysStoredAgainWithTheSameBytesGiveTheSameKeysAndEachItsOwnValues() throws {
        let value = try BinaryPropertyListReader().read(bplist([
            [0xA3, 1, 2, 3],  // 0: array [obj 1, obj 2, obj 3]
            [0xD2, 4, 5, 10, 11],  // 1: dict {"id": 1, "name": 2}
            [0xD2, 6, 7, 12, 13],  // 2: dict {"id": 3, "name": 4}: the same key bytes, other objects
            [0xD2, 8, 9, 11, 10],  // 3: dict {"name": 2, "id": 1}: the same keys in the other order
            [0x52, 0x69, 0x64],  // 4: "id"
            [0x54, 0x6E, 0x61, 0x6D, 0x65],  // 5: "name"
            [0x52, 0x69, 0x64],  // 6: "id" again
            [0x54, 0x6E, 0x61, 0x6D, 0x65],  // 7: "name" again
            [0x54, 0x6E, 0x61, 0x6D, 0x65],  // 8: "name" a third time
            [0x52, 0x69, 0x64],  // 9: "id" a third time
            [0x10, 0x01],  // 10: 1
            [0x10, 0x02],  // 11: 2
            [0x10, 0x03],  // 12: 3
            [0x10, 0x04],  // 13: 4
        ]))
        let dictionaries = try #require(value.arrayValue).compactMap(\.dictionaryValue)
        #expect(dictionaries.map(\.keys) == [["id", "name"], ["id", "name"], ["name", "id"]])
        #expect(dictionaries.map(\.values) == [[1, 2], [3, 4], [2, 1]])
        #expect(dictionaries[1]["name"] == 4)
        #expect(dictionaries[2]["id"] == 1)
    }

    @Test func aKeyThatDiffersInOneByteOrInItsEncodingIsReadAsItself() throws {
        let value = try BinaryPropertyListReader().read(bplist([
            [0xA3, 1, 2, 3],  // 0: array [obj 1, obj 2, obj 3]
            [0xD2, 4, 5, 9, 9],  // 1: dict {"ab": 1, "cd": 1}
            [0xD2, 4, 6, 9, 9],  // 2: dict {"ab": 1, "ce": 1}: the second key differs in its last byte
            [0xD2, 7, 8, 9, 9],  // 3: dict {"ab", "cd"} stored as UTF-16: equal strings, other bytes
            [0x52, 0x61, 0x62],  // 4: "ab"
            [0x52, 0x63, 0x64],  // 5: "cd"
            [0x52, 0x63, 0x65],  // 6: "ce"
            [0x62, 0x00, 0x61, 0x00, 0x62],  // 7: "ab" (UTF-16)
            [0x62, 0x00, 0x63, 0x00, 0x64],  // 8: "cd" (UTF-16)
            [0x10, 0x01],  // 9: 1
        ]))
        let dictionaries = try #require(value.arrayValue).compactMap(\.dictionaryValue)
        #expect(dictionaries.map(\.keys) == [["ab", "cd"], ["ab", "ce"], ["ab", "cd"]])
        #expect(dictionaries[0] == dictionaries[2])
    }

    @Test func aRepeatedKeyStoredAgainIsStillFoundAndKeepsItsLastValue() throws {
        let value = try BinaryPropertyListReader().read(bplist([
            [0xA2, 1, 2],  // 0: array [obj 1, obj 2]
            [0xD2, 3, 4, 6, 7],  // 1: dict {"a": 1, "b": 2}
            [0xD2, 3, 5, 6, 7],  // 2: dict {"a": 1, "a": 2}: the second key is "a" stored again
            [0x51, 0x61],  // 3: "a"
            [0x51, 0x62],  // 4: "b"
            [0x51, 0x61],  // 5: "a" again
            [0x10, 0x01],  // 6: 1
            [0x10, 0x02],  // 7: 2
        ]))
        let dictionaries = try #require(value.arrayValue).compactMap(\.dictionaryValue)
        #expect(dictionaries[1].keys == ["a"])
        #expect(dictionaries[1]["a"] == 2)
    }

    @Test func aKeyThatIsNotAStringAfterAMatchingFirstKeyIsRejected() {
        let data = bplist([
            [0xA2, 1, 2],  // 0: array [obj 1, obj 2]
            [0xD2, 3, 4, 5, 5],  // 1: dict {"a": 1, "b": 1}
            [0xD2, 3, 5, 5, 5],  // 2: dict {"a": 1, 1: 1}: -- CORRUPTED second key is an integer
            [0x51, 0x61],  // 3: "a"
            [0x51, 0x62],  // 4: "b"
            [0x10, 0x01],  // 5: 1
        ])
        #expect(readError(data)?.code == .invalidKey)
    }

    @Test func aKeyReferencePastTheObjectCountAfterAMatchingFirstKeyIsRejected() {
        let data = bplist([
            [0xA2, 1, 2],  // 0: array [obj 1, obj 2]
            [0xD2, 3, 4, 5, 5],  // 1: dict {"a": 1, "b": 1}
            [0xD2, 3, 9, 5, 5],  // 2: dict {"a": 1, obj 9: 1}: -- CORRUPTED reference past the 6 objects
            [0x51, 0x61],  // 3: "a"
            [0x51, 0x62],  // 4: "b"
            [0x10, 0x01],  // 5: 1
        ])
        #expect(readError(data)?.code == .invalidReference)
    }

    @Test func aShortStringKeyAtTheEndOfTheObjectAreaIsComparedWithinIt() throws {
        // The last object is a key: its print reads 8 bytes, some past the object area (inside the file).
        let value = try BinaryPropertyListReader().read(bplist([
            [0xA2, 1, 2],  // 0: array [obj 1, obj 2]
            [0xD1, 3, 4],  // 1: dict {"k": 1}
            [0xD1, 5, 4],  // 2: dict {"k": 1}: its key is the file's last object
            [0x51, 0x6B],  // 3: "k"
            [0x10, 0x01],  // 4: 1
            [0x51, 0x6B],  // 5: "k" again, at the end of the object area
        ]))
        #expect(value == .array([["k": 1], ["k": 1]]))
    }

    @Test func dictionariesInManyKeyOrdersEachKeepTheirOwnOrderAndValues() throws {
        // As Foundation writes them: each dictionary stores its keys again, in an order of its own; here all
        // 6 orders of 3 keys, twice (more orders than the reader's earlier cache of 4 dictionaries held).
        let names = ["i", "n", "f"]  // (one-letter keys: the test file's offsets are 1 byte)
        let orders = [[0, 1, 2], [0, 2, 1], [1, 0, 2], [1, 2, 0], [2, 0, 1], [2, 1, 0]]
        let rounds = orders + orders
        // Objects: 0 the array, 1...12 the dictionaries, 13...15 the integers 1...3 (key j's value is j + 1),
        // then each dictionary's 3 key strings.
        var objects: [[UInt8]] = [[0xAC] + (1 ... 12).map { UInt8($0) }]
        for (d, order) in rounds.enumerated() {
            objects.append([0xD3] + (0 ..< 3).map { UInt8(16 + 3 * d + $0) } + order.map { UInt8(13 + $0) })
        }
        objects += [[0x10, 1], [0x10, 2], [0x10, 3]]
        for order in rounds {
            for k in order { objects.append([0x50 | UInt8(names[k].utf8.count)] + Array(names[k].utf8)) }
        }
        let value = try BinaryPropertyListReader().read(bplist(objects))
        let dictionaries = try #require(value.arrayValue).compactMap(\.dictionaryValue)
        #expect(dictionaries.map(\.keys) == rounds.map { $0.map { names[$0] } })
        #expect(dictionaries.map(\.values) == rounds.map { $0.map { PropertyListValue.integer(PropertyListInteger(Int64($0 + 1))) } })
        #expect(dictionaries.allSatisfy { $0["i"] == 1 && $0["n"] == 2 && $0["f"] == 3 })
    }

    @Test func aFailingValueInADictionaryWithKnownKeysIsReportedUnderItsKey() {
        let error = readError(bplist([
            [0xA2, 1, 2],  // 0: array [obj 1, obj 2]
            [0xD2, 3, 4, 5, 5],  // 1: dict {"a": 1, "b": 1}
            [0xD2, 3, 4, 5, 6],  // 2: dict {"a": 1, "b": obj 6}: the same keys -- CORRUPTED value is null (0x00)
            [0x51, 0x61],  // 3: "a"
            [0x51, 0x62],  // 4: "b"
            [0x10, 0x01],  // 5: 1
            [0x00],  // 6: null
        ]))
        #expect(error?.code == .invalidObject)
        #expect(error?.location.objectNumber == 6)
        #expect(error?.location.keyPath == "[1].b")
    }

    @Test func everyMarkerByteHasTheKindOfItsHighNibble() {
        for byte in 0 ... UInt8.max {
            #expect(BinaryPropertyListMarker(byte: byte) == BinaryPropertyListMarker(rawValue: byte >> 4))
        }
    }
}
