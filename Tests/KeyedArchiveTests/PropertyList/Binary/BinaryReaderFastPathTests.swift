import Foundation
import Testing
@testable import KeyedArchive

// The reader's per-object fast paths: short ASCII strings built straight in Swift's small-string form,
// the 1-byte extended count read in place, and the key prints of a dictionary compared with those kept
// for an earlier one. Each must give exactly what the general path gives, errors included.

@Suite struct BinaryReaderFastPathTests {
    /// A `bplist00` file around hand-written objects with 2-byte offsets and references (files past 255
    /// bytes); references inside the objects are written by the caller, 2 bytes each, big-endian.
    static func bplist16(_ objects: [[UInt8]]) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt8] = []
        for o in objects {
            offsets += [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)]
            bytes += o
        }
        let table = bytes.count
        bytes += offsets
        bytes += [0, 0, 0, 0, 0, 0, 2, 2]  // unused x5, sort version, offset size 2, reference size 2
        bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count)]  // object count
        bytes += [0, 0, 0, 0, 0, 0, 0, 0]  // top object
        bytes += [0, 0, 0, 0, 0, 0, UInt8(table >> 8), UInt8(table & 0xFF)]  // offset table offset
        return Data(bytes)
    }

    /// A 2-byte big-endian reference.
    static func ref(_ n: Int) -> [UInt8] { [UInt8(n >> 8), UInt8(n & 0xFF)] }

    @Test func smallStringsAreBuiltFromBitsOnSixtyFourBitPlatforms() {
        #expect(BinaryPropertyListScanner.smallStringBitsAgree == (MemoryLayout<Int>.size == 8))
    }

    @Test func asciiStringsOfEverySmallLengthReadAsTheSameStrings() throws {
        // Lengths 0...14 (the count in the marker) and 15 (the count after it), with bytes from the
        // whole ASCII range: letters, digits, spaces, punctuation, control bytes, DEL.
        let texts = (0 ... 15).map { length in
            String(decoding: (0 ..< length).map { i in UInt8((i * 37 + length * 11) % 128) }, as: UTF8.self)
        }
        // 0: an array of the 16 strings (count a 1-byte integer)
        var objects: [[UInt8]] = [[0xAF, 0x10, UInt8(texts.count)] + (1 ... texts.count).map(UInt8.init)]
        for text in texts {
            let count = text.utf8.count
            objects.append((count < 15 ? [0x50 | UInt8(count)] : [0x5F, 0x10, UInt8(count)]) + Array(text.utf8))
        }
        let value = try BinaryPropertyListReader().read(bplist(objects))
        let read = try #require(value.arrayValue).compactMap(\.stringValue)
        #expect(read == texts)
        for (string, text) in zip(read, texts) {
            #expect(Array(string.utf8) == Array(text.utf8))
            #expect(string.utf8.count == text.utf8.count)
            #expect(string.hashValue == text.hashValue)
            #expect(string + "!" == text + "!")
            #expect(Set([string, text]).count == 1)
        }
    }

    @Test func aShortStringOfUTF8BytesUnderTheAsciiMarkerIsDecodedAsUTF8() throws {
        let value = try BinaryPropertyListReader().read(bplist([
            [0xA1, 1],  // 0: array [obj 1]
            [0x53, 0x61, 0xC3, 0xA9],  // 1: "aé" (UTF-8 under the ASCII marker)
        ]))
        #expect(value == .array([.string("aé")]))
    }

    @Test func aShortStringThatIsNeitherAsciiNorUTF8IsRejectedAtItsByte() {
        let error = readError(bplist([
            [0xA1, 1],  // 0: array [obj 1]
            [0x53, 0x61, 0x62, 0xFF],  // 1: "ab" + 0xFF -- CORRUPTED: neither ASCII nor UTF-8
        ]))
        #expect(error?.code == .invalidString)
        #expect(error?.location.objectNumber == 1)
        #expect(error?.location.byteOffset == 8 + 2 + 3)  // header, the array, marker + "ab"
    }

    @Test func dataWithOneAndTwoByteExtendedCountsReadsWhole() throws {
        let fifteen = (0 ..< 15).map { UInt8($0 * 3) }
        let sixteen = (0 ..< 16).map { UInt8(255 - $0) }
        let value = try BinaryPropertyListReader().read(bplist([
            [0xA3, 1, 2, 3],  // 0: array [obj 1, obj 2, obj 3]
            [0x4F, 0x10, 15] + fifteen,  // 1: data, count 15 as a 1-byte integer
            [0x4F, 0x10, 16] + sixteen,  // 2: data, count 16 as a 1-byte integer
            [0x4F, 0x11, 0x00, 0x02, 0xAB, 0xCD],  // 3: data, count 2 as a 2-byte integer
        ]))
        #expect(value == .array([.data(Data(fifteen)), .data(Data(sixteen)), .data(Data([0xAB, 0xCD]))]))
    }

    @Test func aOneByteExtendedCountCutOffByTheOffsetTableIsTruncated() {
        let error = readError(bplist([
            [0xA1, 1],  // 0: array [obj 1]
            [0x4F, 0x10],  // 1: data, count a 1-byte integer -- CORRUPTED: the table starts where its byte would be
        ]))
        #expect(error?.code == .truncated)
        #expect(error?.location.objectNumber == 1)
        #expect(error?.location.byteOffset == 8 + 2 + 2)
    }

    @Test func anExtendedCountThatIsNotAnIntegerIsRejected() {
        let error = readError(bplist([
            [0xA1, 1],  // 0: array [obj 1]
            [0x4F, 0x50, 0x01, 0x02],  // 1: data -- CORRUPTED: its count is a string marker
        ]))
        #expect(error?.code == .invalidObject)
        #expect(error?.location.byteOffset == 8 + 2 + 1)
    }

    /// Two dictionaries of `keys` one-letter keys each, every key stored twice (once per dictionary), the
    /// second with its keys in reverse order; values are the integers 1...keys (the second reversed too,
    /// so each key keeps its value).
    static func twiceStoredDictionaries(keys: Int) -> Data {
        let letters = (0 ..< keys).map { UInt8(0x21 + $0) }  // "!", "\"", "#", ...
        let firstKeys = 3, secondKeys = 3 + keys, values = 3 + 2 * keys
        let header: [UInt8] = [0xDF, 0x10, UInt8(keys)]  // dictionary, count a 1-byte integer
        let order = Array(0 ..< keys)
        let reversed = Array(order.reversed())
        var objects: [[UInt8]] = [[0xA2] + ref(1) + ref(2)]  // 0: array [obj 1, obj 2]
        let first: [UInt8] = order.flatMap { ref(firstKeys + $0) } + order.flatMap { ref(values + $0) }
        let second: [UInt8] = reversed.flatMap { ref(secondKeys + $0) } + reversed.flatMap { ref(values + $0) }
        objects.append(header + first)  // 1: the first dictionary
        objects.append(header + second)  // 2: the same keys stored again, reversed
        objects += letters.map { [0x51, $0] }  // the first dictionary's keys
        objects += letters.map { [0x51, $0] }  // the second's, the same bytes
        objects += (0 ..< keys).map { [0x10, UInt8($0 + 1)] }  // values
        return bplist16(objects)
    }

    @Test(arguments: [BinaryPropertyListScanner.printedKeyLimit, BinaryPropertyListScanner.printedKeyLimit + 1])
    func dictionariesOfManyKeysStoredAgainKeepTheirOrderAndValues(keys: Int) throws {
        let value = try BinaryPropertyListReader().read(Self.twiceStoredDictionaries(keys: keys))
        let dictionaries = try #require(value.arrayValue).compactMap(\.dictionaryValue)
        let letters = (0 ..< keys).map { String(UnicodeScalar(UInt8(0x21 + $0))) }
        #expect(dictionaries.map(\.keys) == [letters, letters.reversed()])
        #expect(dictionaries[0] == dictionaries[1])
        for (i, letter) in letters.enumerated() {
            #expect(dictionaries[1][letter] == .integer(PropertyListInteger(Int64(i + 1))))
        }
    }

    @Test func uidsOfEveryWidthReadTheSameFromEveryReference() throws {
        // UIDs of 1-4 bytes below 2^31 are decoded by the reference count pass, others when referenced; each
        // is referenced from an array, twice, and from a dictionary.
        let value = try BinaryPropertyListReader().read(bplist([
            [0xAA, 1, 2, 3, 4, 5, 1, 2, 3, 4, 6],  // 0: array [obj 1...5, obj 1...4, obj 6]
            [0x80, 0x12],  // 1: UID 0x12
            [0x81, 0x12, 0x34],  // 2: UID 0x1234
            [0x82, 0x12, 0x34, 0x56],  // 3: UID 0x123456
            [0x83, 0x12, 0x34, 0x56, 0x78],  // 4: UID 0x12345678
            [0x82, 0xFF, 0xFF, 0xFF],  // 5: UID 0xFFFFFF, the largest of 3 bytes
            [0xD4, 7, 8, 9, 10, 1, 2, 3, 4],  // 6: dict {"a": obj 1, "b": obj 2, "c": obj 3, "d": obj 4}
            [0x51, 0x61], [0x51, 0x62], [0x51, 0x63], [0x51, 0x64],  // 7-10: "a", "b", "c", "d"
        ]))
        let uids: [PropertyListValue] = [.uid(UID(0x12)), .uid(UID(0x1234)), .uid(UID(0x12_3456)), .uid(UID(0x1234_5678))]
        let elements = try #require(value.arrayValue)
        #expect(Array(elements[0 ..< 5]) == uids + [.uid(UID(0xFF_FFFF))])
        #expect(Array(elements[5 ..< 9]) == uids)
        let dictionary = try #require(elements[9].dictionaryValue)
        #expect(dictionary.keys == ["a", "b", "c", "d"])
        #expect(dictionary.values == uids)
    }

    @Test func objectsBeforeAndAfterTheFirstUIDReadFromTheOffsetsThePassKept() throws {
        // From the file's first UID on, the reference count pass keeps every object's offset beside the
        // decoded UIDs (and fills in the objects before it); a reference then reads its object there.
        let long = "a long string!!"  // 15 bytes: an extended count, memoized when shared
        let value = try BinaryPropertyListReader().read(bplist([
            [0xA6, 1, 2, 3, 4, 5, 1],  // 0: array [obj 1...5, obj 1]
            [0x5F, 0x10, 0x0F] + Array(long.utf8),  // 1: the long string, referenced twice
            [0x10, 0x2A],  // 2: integer 42
            [0x80, 0x07],  // 3: UID 7, the file's first
            [0xA2, 6, 7],  // 4: array [obj 6, obj 7]
            [0x53, 0x78, 0x79, 0x7A],  // 5: "xyz"
            [0x23, 0x3F, 0xF8, 0, 0, 0, 0, 0, 0],  // 6: real 1.5
            [0x83, 0x00, 0x00, 0x01, 0x00],  // 7: UID 0x100 of 4 bytes
        ]))
        let elements = try #require(value.arrayValue)
        #expect(elements.count == 6)
        #expect(elements[0] == .string(long))
        #expect(elements[1] == .integer(PropertyListInteger(Int64(42))))
        #expect(elements[2] == .uid(UID(7)))
        #expect(elements[3].arrayValue.map(Array.init) == [.real(1.5), .uid(UID(0x100))])
        #expect(elements[4] == .string("xyz"))
        #expect(elements[5] == .string(long))
    }

    @Test func aUIDCutOffByTheOffsetTableIsTruncatedWhenReferenced() {
        let error = readError(bplist([
            [0xA2, 1, 2],  // 0: array [obj 1, obj 2]
            [0x80, 0x05],  // 1: UID 5
            [0x82, 0x01, 0x02],  // 2: UID of 3 bytes -- CORRUPTED: the offset table starts at its third byte
        ]))
        #expect(error?.code == .truncated)
        #expect(error?.location.objectNumber == 2)
        #expect(error?.location.keyPath == "[1]")
    }

    @Test func aUIDInADeepNestReadsTheSameAsNearTheRoot() throws {
        // 100 nested one-element arrays (past the recursive reader's 64 levels) around UID 0x0203.
        var objects: [[UInt8]] = (0 ..< 100).map { [0xA1, UInt8($0 + 1)] }
        objects.append([0x81, 0x02, 0x03])  // 100: UID 0x0203
        var value = try BinaryPropertyListReader().read(bplist(objects))
        for _ in 0 ..< 100 { value = try #require(value.arrayValue?.first) }
        #expect(value == .uid(UID(0x0203)))
    }

    @Test func aDictionaryWhoseKeysMatchAKeptOneInAllButTheLastKeyReadsItsOwnKeys() throws {
        // The kept prints differ from the third dictionary's only in the last key's last byte.
        let value = try BinaryPropertyListReader().read(bplist([
            [0xA3, 1, 2, 3],  // 0: array [obj 1, obj 2, obj 3]
            [0xD3, 4, 5, 6, 13, 13, 13],  // 1: dict {"id", "name", "flags"}
            [0xD3, 7, 8, 9, 13, 13, 13],  // 2: the same keys stored again
            [0xD3, 10, 11, 12, 13, 13, 13],  // 3: {"id", "name", "flagz"}
            [0x52, 0x69, 0x64], [0x54, 0x6E, 0x61, 0x6D, 0x65], [0x55, 0x66, 0x6C, 0x61, 0x67, 0x73],  // 4-6
            [0x52, 0x69, 0x64], [0x54, 0x6E, 0x61, 0x6D, 0x65], [0x55, 0x66, 0x6C, 0x61, 0x67, 0x73],  // 7-9
            [0x52, 0x69, 0x64], [0x54, 0x6E, 0x61, 0x6D, 0x65], [0x55, 0x66, 0x6C, 0x61, 0x67, 0x7A],  // 10-12
            [0x10, 0x01],  // 13: 1
        ]))
        let dictionaries = try #require(value.arrayValue).compactMap(\.dictionaryValue)
        #expect(dictionaries.map(\.keys) == [["id", "name", "flags"], ["id", "name", "flags"], ["id", "name", "flagz"]])
    }
}
