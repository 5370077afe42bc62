import Foundation
import Testing
@testable import KeyedArchive

/// The reader rejects what CoreFoundation's binary reader (`CFBinaryPList.c`) rejects, and with
/// ``PropertyListReadingOptions/isLenient`` reads what it can of the files CF refuses for a harmless reason.
@Suite struct BinaryReaderStrictTests {
    static let lenient: PropertyListReadingOptions = {
        var options = PropertyListReadingOptions()
        options.isLenient = true
        return options
    }()

    /// The error `read` throws for `bytes`, failing the test if it returns a value.
    private func strictError(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> PropertyListError? {
        do {
            let value = try BinaryPropertyListReader().read(Data(bytes))
            Issue.record("read as \(value), expected an error", sourceLocation: sourceLocation)
            return nil
        } catch let error as PropertyListError {
            return error
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
            return nil
        }
    }

    private func lenientValue(_ bytes: [UInt8]) throws -> PropertyListValue {
        try BinaryPropertyListReader(options: Self.lenient).read(Data(bytes))
    }

    // MARK: - Trailer

    @Test func strayBytesBetweenTheTableAndTheTrailerAreRejected() throws {
        let bytes: [UInt8] = Array("bplist00".utf8) + [  // bplist00
            0x10, 0x01,  // object 0 at 8: int 1
            0x08,  // offset table at 10: object 0 at 8
            0xEE,  // a byte the trailer does not account for -- CORRUPTED
            0, 0, 0, 0, 0, 0, 1, 1,  // trailer at 12: unused, sort version, offset size 1, reference size 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 10,  // offset table at 10
        ]
        #expect(throws: PropertyListError.self) { try BinaryPropertyListReader().read(Data(bytes)) }
        let error = strictError(bytes)
        #expect(error?.code == .invalidTrailer)
        #expect(error?.location.byteOffset == 12 + 8)
        #expect(error?.message.contains("ends at 11, 1 bytes before the trailer at 12") == true)
        #expect(try lenientValue(bytes) == 1)
    }

    @Test func offsetTableWithMoreEntriesThanTheCountIsRejected() throws {
        let bytes: [UInt8] = Array("bplist00".utf8) + [  // bplist00
            0x10, 0x01,  // object 0 at 8: int 1
            0x10, 0x02,  // object 1 at 10: int 2
            0x08, 0x0A,  // offset table at 12: two entries
            0, 0, 0, 0, 0, 0, 1, 1,  // trailer at 14: unused, sort version, offset size 1, reference size 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object -- CORRUPTED: the table has 2
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 12,  // offset table at 12
        ]
        let error = strictError(bytes)
        #expect(error?.code == .invalidTrailer)
        #expect(error?.message.contains("object count does not match the table") == true)
        #expect(try lenientValue(bytes) == 1)
    }

    @Test func offsetTableWithFewerEntriesThanTheCountIsRejectedInBothModes() throws {
        let bytes: [UInt8] = Array("bplist00".utf8) + [  // bplist00
            0x10, 0x01,  // object 0 at 8: int 1
            0x08,  // offset table at 10: one entry
            0, 0, 0, 0, 0, 0, 1, 1,  // trailer at 11: unused, sort version, offset size 1, reference size 1
            0, 0, 0, 0, 0, 0, 0, 2,  // 2 objects -- CORRUPTED: the second entry would be the trailer
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 10,  // offset table at 10
        ]
        #expect(strictError(bytes)?.code == .invalidTrailer)
        #expect(readError(Data(bytes), options: Self.lenient)?.code == .invalidTrailer)
    }

    @Test func tableOffsetBelowNineIsRejected() {
        let bytes: [UInt8] = Array("bplist00".utf8) + [  // bplist00
            0x08,  // offset table at 8: object 0 at 8 (the table itself); no object area
            0, 0, 0, 0, 0, 0, 1, 1,  // trailer: unused, sort version, offset size 1, reference size 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 8,  // offset table at 8 -- CORRUPTED: below 9
        ]
        let error = strictError(bytes)
        #expect(error?.code == .invalidTrailer)
        #expect(error?.location.byteOffset == 9 + 24)
        #expect(readError(Data(bytes), options: Self.lenient)?.code == .invalidTrailer)
    }

    @Test func offsetSizeThatCannotReachTheTableIsRejected() throws {
        let bytes: [UInt8] = Array("bplist00".utf8)  // bplist00
            + [0x4F, 0x11, 0x01, 0x00] + [UInt8](repeating: 0xAB, count: 256)  // object 0 at 8: 256 bytes of data
            + [0x08]  // offset table at 268: object 0 at 8
            + [0, 0, 0, 0, 0, 0, 1, 1]  // trailer: offset size 1 -- CORRUPTED: 1 byte cannot say 268
            + [0, 0, 0, 0, 0, 0, 0, 1]  // 1 object
            + [0, 0, 0, 0, 0, 0, 0, 0]  // top object 0
            + [0, 0, 0, 0, 0, 0, 0x01, 0x0C]  // offset table at 268
        let error = strictError(bytes)
        #expect(error?.code == .invalidTrailer)
        #expect(error?.location.byteOffset == bytes.count - 32 + 6)
        #expect(error?.message.contains("offset size 1 cannot reach the offset table at 268") == true)
        #expect(try lenientValue(bytes) == .data(Data(repeating: 0xAB, count: 256)))
    }

    @Test func referenceSizeThatCannotAddressEveryObjectIsRejected() throws {
        // 256 objects, all `true`, with 2-byte offsets and 1-byte references: reference 256 cannot exist.
        var bytes: [UInt8] = Array("bplist00".utf8)  // bplist00
        bytes += [UInt8](repeating: 0x09, count: 256)  // objects 0...255 at 8...263: true
        for i in 0 ..< 256 { bytes += [UInt8((8 + i) >> 8), UInt8((8 + i) & 0xFF)] }  // offset table at 264
        bytes += [0, 0, 0, 0, 0, 0, 2, 1]  // trailer: offset size 2, reference size 1 -- CORRUPTED for 256 objects
        bytes += [0, 0, 0, 0, 0, 0, 0x01, 0x00]  // 256 objects
        bytes += [0, 0, 0, 0, 0, 0, 0, 0]  // top object 0
        bytes += [0, 0, 0, 0, 0, 0, 0x01, 0x08]  // offset table at 264
        let error = strictError(bytes)
        #expect(error?.code == .invalidTrailer)
        #expect(error?.location.byteOffset == bytes.count - 32 + 7)
        #expect(error?.message.contains("reference size 1 cannot address 256 objects") == true)
        #expect(try lenientValue(bytes) == true)
    }

    @Test func offsetSizeAboveEightIsRejectedUnlessLenient() throws {
        let bytes: [UInt8] = Array("bplist00".utf8) + [  // bplist00
            0x10, 0x01,  // object 0 at 8: int 1
            0, 0, 0, 0, 0, 0, 0, 0, 0x08,  // offset table at 10: one 9-byte entry
            0, 0, 0, 0, 0, 0, 9, 1,  // trailer: offset size 9 -- CORRUPTED (CF keeps the low 8 bytes; so does lenient)
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 10,  // offset table at 10
        ]
        #expect(strictError(bytes)?.code == .invalidTrailer)
        #expect(try lenientValue(bytes) == 1)
    }

    @Test func referenceSizeAboveEightIsRejectedUnlessLenient() throws {
        let bytes: [UInt8] = Array("bplist00".utf8) + [  // bplist00
            0xA1, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0x01,  // object 0 at 8: array of one 9-byte reference, to object 1
            0x10, 0x07,  // object 1 at 18: int 7
            8, 18,  // offset table at 20
            0, 0, 0, 0, 0, 0, 1, 9,  // trailer: reference size 9 -- CORRUPTED (CF keeps the low 8 bytes; so does lenient)
            0, 0, 0, 0, 0, 0, 0, 2,  // 2 objects
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 20,  // offset table at 20
        ]
        let error = strictError(bytes)
        #expect(error?.code == .invalidTrailer)
        #expect(error?.location.byteOffset == 22 + 7)
        #expect(try lenientValue(bytes) == [7])
    }

    @Test func unreferencedOffsetTableEntryInTheHeaderIsRejectedUnlessLenient() throws {
        let bytes: [UInt8] = Array("bplist00".utf8) + [  // bplist00
            0x10, 0x01,  // object 0 at 8: int 1
            8, 3,  // offset table at 10: object 1 at 3 -- CORRUPTED (inside the header; no reference leads to it)
            0, 0, 0, 0, 0, 0, 1, 1,  // trailer: offset size 1, reference size 1
            0, 0, 0, 0, 0, 0, 0, 2,  // 2 objects
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 10,  // offset table at 10
        ]
        let error = strictError(bytes)
        #expect(error?.code == .invalidReference)
        #expect(error?.location.byteOffset == 11)
        #expect(try lenientValue(bytes) == 1)
    }

    @Test func offsetTableEntryAtOrPastTheTableIsRejected() {
        let bytes: [UInt8] = Array("bplist00".utf8) + [  // bplist00
            0xA1, 0x01,  // object 0 at 8: array [object 1]
            0x10, 0x01,  // object 1 at 10: int 1
            0x08, 0x0C,  // offset table at 12: 8, 12 -- CORRUPTED: object 1 "at" the table
            0, 0, 0, 0, 0, 0, 1, 1,  // trailer: unused, sort version, offset size 1, reference size 1
            0, 0, 0, 0, 0, 0, 0, 2,  // 2 objects
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 12,  // offset table at 12
        ]
        let error = strictError(bytes)
        #expect(error?.code == .invalidReference)
        #expect(error?.location.objectNumber == 1)
        #expect(error?.location.byteOffset == 13)
    }

    @Test func magicMustBeBplist0AndAnyByte() throws {
        var bytes: [UInt8] = Array("bplist0".utf8) + [0xFF] + [  // bplist0 + any byte: accepted, as CF does
            0x10, 0x07,  // object 0 at 8: int 7
            0x08,  // offset table at 10
            0, 0, 0, 0, 0, 0, 1, 1,  // trailer: unused, sort version, offset size 1, reference size 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 10,  // offset table at 10
        ]
        #expect(try BinaryPropertyListReader().read(Data(bytes)) == 7)
        bytes[6] = UInt8(ascii: "2")  // bplist2? -- CORRUPTED
        let error = strictError(bytes)
        #expect(error?.code == .unknownFormat)
        #expect(error?.location.byteOffset == 6)
    }

    // MARK: - Objects

    /// Every marker byte in the rows CF does not decode: 0x0_ other than the booleans, 0x7_, 0x9_, 0xB_,
    /// 0xE_, 0xF_. Each is object 0, followed by zero bytes so that no length check fires first.
    static let markersCoreFoundationDoesNotDecode: [UInt8] =
        (0x00 ... 0x0F).filter { $0 != 0x08 && $0 != 0x09 }
        + Array(0x70 ... 0x7F) + Array(0x90 ... 0x9F) + Array(0xB0 ... 0xBF) + Array(0xE0 ... 0xEF) + Array(0xF0 ... 0xFF)

    @Test(arguments: markersCoreFoundationDoesNotDecode)
    func markerCoreFoundationDoesNotDecodeIsRejected(marker: UInt8) {
        let data = bplist([
            [marker] + [UInt8](repeating: 0, count: 40),  // 0: the marker -- CORRUPTED, then zero padding
        ])
        let error = readError(data)
        #expect(error?.code == .invalidObject)
        #expect(error?.location.objectNumber == 0)
        #expect(error?.location.byteOffset == 8)
        let hex = String(marker, radix: 16, uppercase: true)
        #expect(error?.message.contains("0x" + (hex.count == 1 ? "0" + hex : hex)) == true, "\(error?.message ?? "")")
    }

    @Test func utf8StringMarkerIsReadOnlyWhenLenient() throws {
        let data = bplist([
            [0xA1, 1],  // 0: array [object 1]
            [0x72, 0xC3, 0xA9],  // 1: UTF-8 string "é" (0x7n) -- not decoded by CF
        ])
        let error = readError(data)
        #expect(error?.code == .invalidObject)
        #expect(error?.location.objectNumber == 1)
        #expect(error?.location.keyPath == "[0]")
        #expect(error?.message.contains("UTF-8 string") == true)
        #expect(try BinaryPropertyListReader(options: Self.lenient).read(data) == ["é"])
    }

    @Test func uidAboveUInt32MaxIsRejected() throws {
        let data = bplist([
            [0x84, 0x01, 0x00, 0x00, 0x00, 0x00],  // 0: 5-byte UID 4294967296 -- CORRUPTED: above UInt32.max
        ])
        let error = readError(data)
        #expect(error?.code == .invalidObject)
        #expect(error?.location.byteOffset == 8)
        #expect(error?.message.contains("UID 4294967296 is larger than UInt32.max") == true)
        #expect(try BinaryPropertyListReader(options: Self.lenient).read(data) == .uid(UID(4_294_967_296)))
    }

    @Test func uidOfUInt32MaxIsAccepted() throws {
        let data = bplist([
            [0x83, 0xFF, 0xFF, 0xFF, 0xFF],  // 0: 4-byte UID 4294967295
        ])
        #expect(try BinaryPropertyListReader().read(data) == .uid(UID(UInt64(UInt32.max))))
    }

    @Test func uidsOfNineToSixteenBytesAreReadAsCFReadsThem() throws {
        let value = try BinaryPropertyListReader().read(bplist([
            [0xA2, 1, 2],  // 0: array [object 1, object 2]
            [0x88, 0, 0, 0, 0, 0, 0, 0, 0, 0x07],  // 1: 9-byte UID 7
            [0x8F] + [UInt8](repeating: 0, count: 15) + [0x2A],  // 2: 16-byte UID 42
        ]))
        #expect(value == [.uid(UID(7)), .uid(UID(42))])
        // CF keeps the low 8 bytes of a 16-byte UID; ours refuses a value it would have to cut, and lenient
        // keeps the low 8 bytes as CF does.
        let cut = bplist([
            [0x8F, 0x01] + [UInt8](repeating: 0, count: 14) + [0x2A],  // 0: 16-byte UID 2^120 + 42 -- CORRUPTED
        ])
        #expect(readError(cut)?.code == .invalidObject)
        #expect(try BinaryPropertyListReader(options: Self.lenient).read(cut) == .uid(UID(42)))
    }

    @Test func uidWrittenAboveUInt32MaxReadsBackOnlyWhenLenient() throws {
        let value: PropertyListValue = [.uid(UID(UInt64.max))]
        let data = BinaryPropertyListWriter().write(value)
        #expect(readError(data)?.code == .invalidObject)
        #expect(try BinaryPropertyListReader(options: Self.lenient).read(data) == value)
    }

    // MARK: - Archives read through the same reader

    /// A keyed archive whose `$top.root` is a UID above UInt32.max.
    static let archiveWithHugeUID: Data = BinaryPropertyListWriter().write([
        "$version": 100000,
        "$archiver": "NSKeyedArchiver",
        "$top": ["root": .uid(UID(1 << 32 | 1))],
        "$objects": ["$null", "hello"],
    ])

    @Test func keyedUnarchiverRejectsAUIDAboveUInt32Max() throws {
        do {
            let value = try KeyedUnarchiver().decode(String.self, from: Self.archiveWithHugeUID)
            Issue.record("decoded \(value)")
        } catch let error as KeyedArchiveError {
            #expect(error.code == .invalidPropertyList, "\(error)")
            #expect("\(error)".contains("UInt32.max"), "\(error)")
        }
    }

    @Test func archivedObjectGraphRejectsAUIDAboveUInt32Max() throws {
        do {
            _ = try ArchivedObjectGraph(data: Self.archiveWithHugeUID)
            Issue.record("read an archive whose root UID is above UInt32.max")
        } catch let error as KeyedArchiveError {
            #expect(error.code == .invalidPropertyList)
            let underlying = try #require(error.underlying)
            #expect(underlying.code == .invalidObject)
            #expect(underlying.message.contains("UInt32.max"))
        }
        // Lenient, the property list reads; the archive is still wrong (object 4294967297 does not exist).
        do {
            _ = try ArchivedObjectGraph(data: Self.archiveWithHugeUID, options: Self.lenient)
            Issue.record("read an archive whose root UID names no object")
        } catch let error as KeyedArchiveError {
            #expect(error.code != .invalidPropertyList, "\(error)")
        }
    }
}
