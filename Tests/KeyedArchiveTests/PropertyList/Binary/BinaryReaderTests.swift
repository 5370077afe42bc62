import Foundation
import Testing
@testable import KeyedArchive

/// Builds a `bplist00` file around hand-written objects: header, the objects in order, a 1-byte offset
/// table and a trailer (offset size 1, reference size `refSize`, top object `top`).
func bplist(_ objects: [[UInt8]], refSize: UInt8 = 1, top: UInt8 = 0) -> Data {
    var bytes = Array("bplist00".utf8)
    var offsets: [UInt8] = []
    for o in objects {
        offsets.append(UInt8(bytes.count))
        bytes += o
    }
    let table = UInt8(bytes.count)
    bytes += offsets
    bytes += [0, 0, 0, 0, 0, 0, 1, refSize]  // unused x5, sort version, offset size 1, reference size
    bytes += [0, 0, 0, 0, 0, 0, 0, UInt8(objects.count)]  // object count
    bytes += [0, 0, 0, 0, 0, 0, 0, top]  // top object
    bytes += [0, 0, 0, 0, 0, 0, 0, table]  // offset table offset
    return Data(bytes)
}

/// The error code `read` throws for `data`, or `nil` if it returns a value.
func readError(_ data: Data, options: PropertyListReadingOptions = .init()) -> PropertyListError? {
    do {
        _ = try BinaryPropertyListReader(options: options).read(data)
        return nil
    } catch {
        return error as? PropertyListError
    }
}

@Suite struct BinaryReaderValidTests {
    @Test func everyScalarMarkerDecodes() throws {
        let value = try BinaryPropertyListReader().read(bplist([
            [0xAF, 0x10, 0x0E, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14],  // 0: array, extended count 14
            [0x08],  // 1: false
            [0x09],  // 2: true
            [0x10, 0xFF],  // 3: int 255
            [0x11, 0x01, 0x00],  // 4: int 256
            [0x12, 0xFF, 0xFF, 0xFF, 0xFF],  // 5: int 4294967295 (4-byte ints are unsigned)
            [0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE],  // 6: int -2 (8-byte ints are signed)
            [0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],  // 7: 16-byte UInt64.max
            [0x22, 0x3F, 0xC0, 0x00, 0x00],  // 8: 4-byte real 1.5
            [0x23, 0x40, 0x04, 0, 0, 0, 0, 0, 0],  // 9: 8-byte real 2.5
            [0x33, 0x40, 0x59, 0, 0, 0, 0, 0, 0],  // 10: date 100.0 s after 2001
            [0x42, 0xDE, 0xAD],  // 11: data DE AD
            [0x61, 0x00, 0xE9],  // 12: UTF-16 "é"
            [0x5F, 0x10, 0x01, 0x61],  // 13: ASCII "a", count as an extended length
            [0x82, 0x01, 0x00, 0x00],  // 14: 3-byte UID 65536
        ]))
        #expect(value == .array([
            false, true, 255, 256, .integer(PropertyListInteger(Int64(4_294_967_295))), -2,
            .integer(PropertyListInteger(UInt64.max)), .float(1.5), .real(2.5),
            .date(Date(timeIntervalSinceReferenceDate: 100)), .data(Data([0xDE, 0xAD])), "é", "a", .uid(UID(65536)),
        ]))
    }

    @Test func negativeSixteenByteIntegerIsSignExtended() throws {
        let value = try BinaryPropertyListReader().read(bplist([
            [0x14] + [UInt8](repeating: 0xFF, count: 15) + [0xFB],  // 0: 16-byte two's complement -5
        ]))
        #expect(value == -5)
    }

    @Test func orderedSetIsReadAsASetOnlyWhenLenient() throws {
        let data = bplist([
            [0xA2, 1, 2],  // 0: array [1, 2]
            [0xB1, 3],  // 1: ordset {3} -- a marker CF does not decode
            [0xC1, 3],  // 2: set {3}
            [0x10, 0x07],  // 3: int 7
        ])
        let strict = readError(data)
        #expect(strict?.code == .invalidObject)
        #expect(strict?.location.objectNumber == 1)
        #expect(strict?.location.byteOffset == 11)
        #expect(strict?.location.keyPath == "[0]")
        var lenient = PropertyListReadingOptions()
        lenient.isLenient = true
        #expect(try BinaryPropertyListReader(options: lenient).read(data) == [.set([7]), .set([7])])
    }

    @Test func threeByteOffsetTableAndReferencesAreRead() throws {
        var bytes = Array("bplist00".utf8)
        bytes += [0xA1, 0x00, 0x00, 0x01]  // object 0 at 8: array, one 3-byte reference to object 1
        bytes += [0x10, 0x2A]  // object 1 at 12: int 42
        bytes += [0x00, 0x00, 0x08, 0x00, 0x00, 0x0C]  // offset table at 14: 3-byte entries 8, 12
        bytes += [0, 0, 0, 0, 0, 0, 3, 3]  // trailer: offset size 3, reference size 3
        bytes += [0, 0, 0, 0, 0, 0, 0, 2]  // 2 objects
        bytes += [0, 0, 0, 0, 0, 0, 0, 0]  // top object 0
        bytes += [0, 0, 0, 0, 0, 0, 0, 14]  // offset table at 14
        #expect(try BinaryPropertyListReader().read(Data(bytes)) == [42])
    }

    @Test func sharedSubtreeIsNotACycle() throws {
        let value = try BinaryPropertyListReader().read(bplist([
            [0xA2, 1, 1],  // 0: array [obj 1, obj 1]
            [0xA1, 2],  // 1: array [obj 2]
            [0x50],  // 2: ""
        ]))
        #expect(value == [[""], [""]])
    }

    @Test func sharedSubtreesDoNotTakeExponentialTime() throws {
        // 60 levels: object i is [i+1, i+1]; object 60 is the integer 1. Unshared, that is 2^60 leaves.
        var objects: [[UInt8]] = (0 ..< 60).map { i in [0xA2, UInt8(i + 1), UInt8(i + 1)] }
        objects.append([0x10, 0x01])
        let clock = ContinuousClock()
        var value: PropertyListValue = .bool(false)
        let elapsed = try clock.measure { value = try BinaryPropertyListReader().read(bplist(objects)) }
        #expect(elapsed < .seconds(2))
        var level = 0
        while case .array(let a) = value, a.count == 2 {
            value = a[1]
            level += 1
        }
        #expect(level == 60)
        #expect(value == 1)
    }

    @Test func nestingUpToTheLimitIsAccepted() throws {
        var value: PropertyListValue = 1
        for _ in 0 ..< 512 { value = [value] }
        #expect(try BinaryPropertyListReader().read(BinaryPropertyListWriter().write(value)) == value)
    }

    @Test func repeatedKeyKeepsFirstPositionAndLastValue() throws {
        let value = try BinaryPropertyListReader().read(bplist([
            [0xD3, 1, 2, 1, 3, 4, 5],  // 0: dict {obj 1: obj 3, obj 2: obj 4, obj 1: obj 5}
            [0x51, 0x61],  // 1: "a"
            [0x51, 0x62],  // 2: "b"
            [0x10, 0x01],  // 3: 1
            [0x10, 0x02],  // 4: 2
            [0x10, 0x03],  // 5: 3
        ]))
        let d = try #require(value.dictionaryValue)
        #expect(d.keys == ["a", "b"])
        #expect(d["a"] == 3)
        #expect(d["b"] == 2)
    }

    @Test func repeatedKeyInALargeDictionaryKeepsFirstPositionAndLastValue() throws {
        // 14 entries (above the dictionary's index threshold); key "k0" appears at positions 0 and 13.
        var objects: [[UInt8]] = [[0xDF, 0x10, 0x0E] + (1 ... 13).map { UInt8($0) } + [1] + (14 ... 27).map { UInt8($0) }]
        for i in 0 ..< 13 { objects.append([0x52, 0x6B, UInt8(ascii: "a") + UInt8(i)]) }  // 1...13: "ka" ... "km"
        for i in 0 ..< 14 { objects.append([0x10, UInt8(i)]) }  // 14...27: 0 ... 13
        let d = try #require(try BinaryPropertyListReader().read(bplist(objects)).dictionaryValue)
        #expect(d.count == 13)
        #expect(d.keys.first == "ka")
        #expect(d["ka"] == 13)
        #expect(d["kb"] == 1)
    }

    @Test func dictionariesWithTheSameKeyObjectsReadTheirOwnValues() throws {
        // 30 dictionaries of 14 entries (above the index threshold) whose keys are the same 14 objects.
        let keys = (0 ..< 14).map { "key\($0)" }
        let original = PropertyListValue.array((0 ..< 30).map { i in
            .dictionary(PropertyListDictionary(keys.enumerated().map { (j, k) in (k, PropertyListValue.integer(PropertyListInteger(Int64(100 * i + j)))) }))
        })
        let back = try BinaryPropertyListReader().read(BinaryPropertyListWriter().write(original))
        #expect(back == original)
        let dictionaries = try #require(back.arrayValue)
        #expect(dictionaries.count == 30)
        for (i, d) in dictionaries.enumerated() {
            #expect(d.dictionaryValue?.keys == keys)
            #expect(d.dictionaryValue?["key13"] == .integer(PropertyListInteger(Int64(100 * i + 13))))
        }
    }

    @Test func dictionaryWithRepeatedKeysAfterOneWithTheSameKeyObjectsKeepsItsOwnEntries() throws {
        let value = try BinaryPropertyListReader().read(bplist([
            [0xA2, 1, 2],  // 0: array [obj 1, obj 2]
            [0xD3, 3, 4, 3, 5, 6, 7],  // 1: dict {obj 3: obj 5, obj 4: obj 6, obj 3: obj 7}
            [0xD3, 3, 4, 3, 7, 6, 5],  // 2: dict {obj 3: obj 7, obj 4: obj 6, obj 3: obj 5}
            [0x51, 0x61],  // 3: "a"
            [0x51, 0x62],  // 4: "b"
            [0x10, 0x01],  // 5: 1
            [0x10, 0x02],  // 6: 2
            [0x10, 0x03],  // 7: 3
        ]))
        let dictionaries = try #require(value.arrayValue)
        #expect(dictionaries[0].dictionaryValue?.keys == ["a", "b"])
        #expect(dictionaries[0].dictionaryValue?["a"] == 3)
        #expect(dictionaries[1].dictionaryValue?.keys == ["a", "b"])
        #expect(dictionaries[1].dictionaryValue?["a"] == 1)
    }

    @Test func valuesWithManyOtherKeySetsDoNotMixUpTheKeysOfTheDictionaryHoldingThem() throws {
        // The second dictionary's keys are the first one's; its value holds dictionaries of 6 other key sets.
        var inner: PropertyListValue = 1
        for k in ["g", "f", "e", "d", "c", "b"] { inner = .dictionary([k: inner, k + "2": 2]) }
        let original = PropertyListValue.array([.dictionary(["a": 1, "z": 2]), .dictionary(["a": inner, "z": 3])])
        let back = try BinaryPropertyListReader().read(BinaryPropertyListWriter().write(original))
        #expect(back == original)
        #expect(back.arrayValue?[1].dictionaryValue?["z"] == 3)
        #expect(back.arrayValue?[1].dictionaryValue?["a"]?.dictionaryValue?.keys == ["b", "b2"])
    }

    @Test func headerBplist01IsAccepted() throws {
        var data = bplist([[0x10, 0x01]])  // 0: int 1
        data[7] = UInt8(ascii: "1")  // "bplist01", which CF also reads
        #expect(try BinaryPropertyListReader().read(data) == 1)
    }
}

@Suite struct BinaryReaderMalformedTests {
    @Test func tooShortFileIsRejected() {
        let bytes: [UInt8] = Array("bplist00".utf8) + [0x10, 0x01, 0x08]  // header, int 1, table, no trailer
        #expect(readError(Data(bytes))?.code == .truncated)
        #expect(readError(Data("bplis".utf8))?.code == .truncated)
    }

    @Test func unknownVersionIsRejected() {
        var data = bplist([[0x10, 0x01]])  // 0: int 1
        data[6] = UInt8(ascii: "1")  // "bplist10" -- CORRUPTED: a format this reader does not know
        #expect(readError(data)?.code == .unknownFormat)
    }

    @Test func offsetSizeZeroIsRejected() {
        let bytes: [UInt8] = Array("bplist00".utf8) + [
            0x10, 0x01,  // object 0: int 1
            0x08,  // offset table
            0, 0, 0, 0, 0, 0,  // trailer: unused, sort version
            0, 1,  // offset size 0 -- CORRUPTED, reference size 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top 0
            0, 0, 0, 0, 0, 0, 0, 10,  // table at 10
        ]
        let error = readError(Data(bytes))
        #expect(error?.code == .invalidTrailer)
        #expect(error?.location.byteOffset == bytes.count - 32 + 6)
    }

    @Test func referenceSizeNineIsRejected() {
        let bytes: [UInt8] = Array("bplist00".utf8) + [
            0x10, 0x01,  // object 0: int 1
            0x08,  // offset table
            0, 0, 0, 0, 0, 0,  // trailer: unused, sort version
            1, 9,  // offset size 1, reference size 9 -- CORRUPTED
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top 0
            0, 0, 0, 0, 0, 0, 0, 10,  // table at 10
        ]
        #expect(readError(Data(bytes))?.code == .invalidTrailer)
    }

    @Test func zeroObjectsIsRejected() {
        let bytes: [UInt8] = Array("bplist00".utf8) + [
            0x10, 0x01,  // object 0: int 1
            0x08,  // offset table
            0, 0, 0, 0, 0, 0, 1, 1,  // trailer: unused, sort version, sizes 1 and 1
            0, 0, 0, 0, 0, 0, 0, 0,  // 0 objects -- CORRUPTED
            0, 0, 0, 0, 0, 0, 0, 0,  // top 0
            0, 0, 0, 0, 0, 0, 0, 10,  // table at 10
        ]
        #expect(readError(Data(bytes))?.code == .invalidTrailer)
    }

    @Test func topObjectPastTheCountIsRejected() {
        let bytes: [UInt8] = Array("bplist00".utf8) + [
            0x10, 0x01,  // object 0: int 1
            0x08,  // offset table
            0, 0, 0, 0, 0, 0, 1, 1,  // trailer: unused, sort version, sizes 1 and 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 1,  // top 1 -- CORRUPTED: only object 0 exists
            0, 0, 0, 0, 0, 0, 0, 10,  // table at 10
        ]
        #expect(readError(Data(bytes))?.code == .invalidTrailer)
    }

    @Test func tableOffsetInsideTheTrailerIsRejected() {
        let bytes: [UInt8] = Array("bplist00".utf8) + [
            0x10, 0x01,  // object 0: int 1
            0x08,  // offset table
            0, 0, 0, 0, 0, 0, 1, 1,  // trailer: unused, sort version, sizes 1 and 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top 0
            0, 0, 0, 0, 0, 0, 0, 20,  // table at 20 -- CORRUPTED: that is inside the trailer
        ]
        #expect(readError(Data(bytes))?.code == .invalidTrailer)
    }

    @Test func countThatOverflowsTheTableIsRejected() {
        let bytes: [UInt8] = Array("bplist00".utf8) + [
            0x10, 0x01,  // object 0: int 1
            0x08,  // offset table
            0, 0, 0, 0, 0, 0, 8, 1,  // trailer: unused, sort version, offset size 8, reference size 1
            0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // 2^56-1 objects -- CORRUPTED (x 8 bytes overflows)
            0, 0, 0, 0, 0, 0, 0, 0,  // top 0
            0, 0, 0, 0, 0, 0, 0, 10,  // table at 10
        ]
        #expect(readError(Data(bytes))?.code == .limitExceeded)  // above maximumObjectCount
        var options = PropertyListReadingOptions()
        options.maximumObjectCount = .max
        #expect(readError(Data(bytes), options: options)?.code == .invalidTrailer)
    }

    @Test func offsetOutsideTheObjectAreaIsRejected() {
        let bytes: [UInt8] = Array("bplist00".utf8) + [
            0x10, 0x01,  // object 0: int 1
            0x0A,  // offset table: object 0 at 10 -- CORRUPTED: that is the table itself
            0, 0, 0, 0, 0, 0, 1, 1,  // trailer: unused, sort version, sizes 1 and 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top 0
            0, 0, 0, 0, 0, 0, 0, 10,  // table at 10
        ]
        let error = readError(Data(bytes))
        #expect(error?.code == .invalidReference)
        #expect(error?.location.objectNumber == 0)
        #expect(error?.location.byteOffset == 10)
    }

    @Test func offsetInsideTheHeaderIsRejected() {
        let bytes: [UInt8] = Array("bplist00".utf8) + [
            0x10, 0x01,  // object 0: int 1
            0x03,  // offset table: object 0 at 3 -- CORRUPTED: inside "bplist00"
            0, 0, 0, 0, 0, 0, 1, 1,  // trailer: unused, sort version, sizes 1 and 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top 0
            0, 0, 0, 0, 0, 0, 0, 10,  // table at 10
        ]
        #expect(readError(Data(bytes))?.code == .invalidReference)
    }

    @Test func referencePastTheObjectCountIsRejected() {
        let error = readError(bplist([
            [0xA1, 0x05],  // 0: array [obj 5] -- CORRUPTED: only 2 objects
            [0x10, 0x01],  // 1: int 1
        ]))
        #expect(error?.code == .invalidReference)
        #expect(error?.location.objectNumber == 0)
        #expect(error?.location.byteOffset == 9)
    }

    @Test(arguments: [
        [UInt8]([0x15, 0, 0]),  // int of 32 bytes -- not in the format
        [0x20, 0x00],  // 1-byte real -- not in the format
        [0x21, 0x00, 0x00],  // 2-byte real
        [0x30, 0x00],  // date marker other than 0x33
        [0x88, 1, 0, 0, 0, 0, 0, 0, 0, 0],  // 9-byte UID 2^64: above UInt64.max (and UInt32.max)
        [0x90],  // unused marker 0x9n
        [0xE0],  // unused marker 0xEn
        [0x0C],  // unused marker in the 0x0n row (URL in CF's notes, never written)
        [0x00],  // null: no value in this model
        [0x0F],  // fill: padding, not a value
        [0x14, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],  // 16-byte int 2^64: above UInt64.max
        [0x14, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0, 0, 0, 0, 0, 0, 1],  // below Int64.min
        [0x4F, 0x14, 0, 0],  // data whose extended length is a 16-byte int
        [0x4F, 0x42, 0, 0],  // data whose extended length is data
    ])
    func markersAndWidthsTheFormatLacksAreRejected(object: [UInt8]) {
        #expect(readError(bplist([object]))?.code == .invalidObject)
    }

    @Test func negativeExtendedLengthIsRejected() {
        let error = readError(bplist([
            [0x4F, 0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],  // 0: data, length -1 -- CORRUPTED
        ]))
        #expect(error?.code == .invalidObject)
    }

    @Test func objectRunningPastTheObjectAreaIsRejected() {
        #expect(readError(bplist([
            [0x13, 0x00, 0x00],  // 0: 8-byte int with only 2 bytes before the offset table -- CORRUPTED
        ]))?.code == .truncated)
        #expect(readError(bplist([
            [0x23, 0x00],  // 0: 8-byte real with 1 byte -- CORRUPTED
        ]))?.code == .truncated)
    }

    @Test func countLargerThanTheFileIsRejected() {
        let array = readError(bplist([
            [0xAF, 0x12, 0x00, 0x0F, 0x42, 0x40, 1],  // 0: array claiming 1,000,000 references -- CORRUPTED
            [0x09],  // 1: true
        ]))
        #expect(array?.code == .limitExceeded)
        let dictionary = readError(bplist([
            [0xDF, 0x13, 0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 1, 1],  // 0: dict, count Int64.max -- CORRUPTED
            [0x50],  // 1: ""
        ]))
        #expect(dictionary?.code == .limitExceeded)
        let string = readError(bplist([
            [0x6F, 0x12, 0x40, 0x00, 0x00, 0x00],  // 0: UTF-16 string of 2^30 units -- CORRUPTED
        ]))
        #expect(string?.code == .limitExceeded)
    }

    @Test func arrayContainingItselfIsACycle() {
        let error = readError(bplist([
            [0xA2, 1, 0],  // 0: array [obj 1, obj 0] -- CORRUPTED: contains itself
            [0x10, 0x01],  // 1: int 1
        ]))
        #expect(error?.code == .cycle)
        #expect(error?.location.objectNumber == 0)
        #expect(error?.location.keyPath == "[1]")
    }

    @Test func containersContainingEachOtherAreACycle() {
        let error = readError(bplist([
            [0xD1, 2, 1],  // 0: dict {obj 2: obj 1}
            [0xA1, 3],  // 1: array [obj 3]
            [0x51, 0x6B],  // 2: "k"
            [0xC1, 0],  // 3: set {obj 0} -- CORRUPTED: back to the root
        ]))
        #expect(error?.code == .cycle)
        #expect(error?.location.keyPath == "k[0][0]")
    }

    @Test func nestingDeeperThanTheLimitIsRejected() {
        var value: PropertyListValue = 1
        for _ in 0 ..< 513 { value = [value] }
        let data = BinaryPropertyListWriter().write(value)
        #expect(readError(data)?.code == .tooDeep)
        var options = PropertyListReadingOptions()
        options.maximumDepth = 3
        let shallow = readError(bplist([
            [0xA1, 1],  // 0: [obj 1]
            [0xA1, 2],  // 1: [obj 2]
            [0xA1, 3],  // 2: [obj 3]
            [0xA0],  // 3: [] -- the fourth level, one too many for maximumDepth 3
        ]), options: options)
        #expect(shallow?.code == .tooDeep)
        #expect(shallow?.location.objectNumber == 3)
    }

    @Test func unpairedSurrogatesAreRejected() {
        let high = readError(bplist([
            [0x62, 0xD8, 0x3D, 0x00, 0x41],  // 0: UTF-16 D83D 0041 -- CORRUPTED: high surrogate then "A"
        ]))
        #expect(high?.code == .invalidString)
        #expect(high?.location.byteOffset == 9)
        let low = readError(bplist([
            [0x61, 0xDE, 0x00],  // 0: UTF-16 DE00 -- CORRUPTED: lone low surrogate
        ]))
        #expect(low?.code == .invalidString)
        let trailing = readError(bplist([
            [0x62, 0x00, 0x41, 0xD8, 0x3D],  // 0: UTF-16 0041 D83D -- CORRUPTED: high surrogate at the end
        ]))
        #expect(trailing?.code == .invalidString)
    }

    @Test func nonUTF8BytesInAnASCIIStringAreRejected() {
        let error = readError(bplist([
            [0x53, 0x61, 0xFF, 0x62],  // 0: ASCII "a", 0xFF, "b" -- CORRUPTED: 0xFF is neither ASCII nor UTF-8
        ]))
        #expect(error?.code == .invalidString)
        #expect(error?.location.byteOffset == 10)
        var lenient = PropertyListReadingOptions()
        lenient.isLenient = true
        #expect(readError(bplist([
            [0x72, 0xC3, 0x28],  // 0: UTF-8 string C3 28 -- CORRUPTED: bad continuation byte
        ]), options: lenient)?.code == .invalidString)
    }

    @Test func nonStringKeysAreRejected() {
        let uidKey = readError(bplist([
            [0xD1, 1, 2],  // 0: dict {obj 1: obj 2}
            [0x80, 0x01],  // 1: UID 1 -- CORRUPTED: a key must be a string
            [0x09],  // 2: true
        ]))
        #expect(uidKey?.code == .invalidKey)
        #expect(uidKey?.location.byteOffset == 9)
        let intKey = readError(bplist([
            [0xD1, 1, 1],  // 0: dict {obj 1: obj 1}
            [0x10, 0x05],  // 1: int 5 -- CORRUPTED: a key must be a string
        ]))
        #expect(intKey?.code == .invalidKey)
    }

    @Test func errorsNameTheKeyPath() {
        let error = readError(bplist([
            [0xD1, 1, 2],  // 0: dict {obj 1: obj 2}
            [0x55, 0x69, 0x74, 0x65, 0x6D, 0x73],  // 1: "items"
            [0xA2, 3, 4],  // 2: [obj 3, obj 4]
            [0x10, 0x01],  // 3: int 1
            [0x21, 0x00, 0x00],  // 4: 2-byte real -- CORRUPTED
        ]))
        #expect(error?.code == .invalidObject)
        #expect(error?.location.keyPath == "items[1]")
        #expect(error?.location.objectNumber == 4)
        #expect(error?.description.contains("object 4") == true)
    }

    @Test func everyTruncationOfAValidFileFailsCleanly() throws {
        let data = BinaryPropertyListWriter().write(SampleValues.everyKind)
        for length in 0 ..< data.count {
            #expect(readError(data.prefix(length)) != nil, "prefix of \(length) bytes")
        }
    }

    @Test func randomCorruptionsNeverCrash() throws {
        var g = SeededGenerator(seed: 2024)
        let seeds: [Data] = [
            BinaryPropertyListWriter().write(SampleValues.everyKind),
            BinaryPropertyListWriter().write(.array((0 ..< 300).map { .string("s\($0)") })),
        ]
        var outcomes = (values: 0, errors: 0)
        for _ in 0 ..< 3000 {
            var bytes = [UInt8](seeds[Int.random(in: 0 ..< seeds.count, using: &g)])
            for _ in 0 ..< Int.random(in: 1...4, using: &g) {
                // Bias towards the trailer and offset table, where one byte changes the most.
                let index = Bool.random(using: &g)
                    ? Int.random(in: max(0, bytes.count - 64) ..< bytes.count, using: &g)
                    : Int.random(in: 0 ..< bytes.count, using: &g)
                bytes[index] = UInt8.random(in: 0...255, using: &g)
            }
            do {
                _ = try BinaryPropertyListReader().read(Data(bytes))
                outcomes.values += 1
            } catch is PropertyListError {
                outcomes.errors += 1
            }
        }
        #expect(outcomes.values + outcomes.errors == 3000)
        #expect(outcomes.errors > 0)
    }
}
