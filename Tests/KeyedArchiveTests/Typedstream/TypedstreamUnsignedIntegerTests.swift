import Foundation
import Testing
@testable import KeyedArchive

/// Unsigned integers whose type's top bit is set are written as Apple writes them, their type's bit pattern
/// after the tag of its width (`81 90 9f` for an unsigned short 0x9F90 in a little-endian stream: Apple's
/// old nibs hold such `[8S]` arrays), not widened to the next form (`82 90 9f 00 00`); and read back as the
/// same unsigned values.
@Suite struct TypedstreamUnsignedIntegerTests {
    /// A stream holding one top-level group: an array `encoding` (`[8S]`) of `values`.
    private static func archive(_ encoding: String, _ values: [UInt64], _ byteOrder: TypedstreamArchive.ByteOrder) -> TypedstreamArchive {
        TypedstreamArchive(byteOrder: byteOrder,
                           groups: [TypedstreamGroup(encoding: encoding, values: [.array(values.map { .unsignedInteger($0) })])])
    }

    /// The stream's header and the group's type encoding (a new shared string), before the values.
    private static func prefix(_ encoding: String, _ byteOrder: TypedstreamArchive.ByteOrder) -> [UInt8] {
        let littleEndian = byteOrder == .littleEndian
        return [0x04, 0x0B] + Array((littleEndian ? "streamtyped" : "typedstream").utf8)
            + (littleEndian ? [0x81, 0xE8, 0x03] : [0x81, 0x03, 0xE8])  // system version 1000
            + [0x84, UInt8(encoding.utf8.count)] + Array(encoding.utf8)
    }

    @Test(arguments: [TypedstreamArchive.ByteOrder.littleEndian, .bigEndian])
    func unsignedShortsOf0x8000AndUpAreTheir16Bits(byteOrder: TypedstreamArchive.ByteOrder) throws {
        let values: [UInt64] = [0, 127, 128, 0x7FFF, 0x8000, 0x9F90, 0xFFFE, 0xFFFF]
        let archive = Self.archive("[8S]", values, byteOrder)
        let data = try archive.encodedData()
        let littleEndian: [UInt8] = [
            0x00, 0x7F,          // 0, 127: one byte
            0x81, 0x80, 0x00,    // 128: tag 0x81, 2 bytes
            0x81, 0xFF, 0x7F,    // 0x7FFF
            0x81, 0x00, 0x80,    // 0x8000: the 16 bits, not 82 + 4 bytes
            0x81, 0x90, 0x9F,    // 0x9F90
            0x81, 0xFE, 0xFF,    // 0xFFFE
            0x81, 0xFF, 0xFF,    // 0xFFFF
        ]
        let expected = byteOrder == .littleEndian ? littleEndian : Self.swappedPairs(littleEndian)
        #expect(Array(data) == Self.prefix("[8S]", byteOrder) + expected)
        #expect(try TypedstreamArchive(data: data) == archive)
    }

    @Test(arguments: ["I", "L"], [TypedstreamArchive.ByteOrder.littleEndian, .bigEndian])
    func unsignedIntsOf0x80000000AndUpAreTheir32Bits(type: String, byteOrder: TypedstreamArchive.ByteOrder) throws {
        let values: [UInt64] = [0x9F90, 0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFF]
        let encoding = "[4\(type)]"
        let archive = Self.archive(encoding, values, byteOrder)
        let data = try archive.encodedData()
        let littleEndian: [[UInt8]] = [
            [0x82, 0x90, 0x9F, 0x00, 0x00],  // 0x9F90: positive as a 32-bit int, so 4 bytes
            [0x82, 0xFF, 0xFF, 0xFF, 0x7F],
            [0x82, 0x00, 0x00, 0x00, 0x80],  // 0x80000000: the 32 bits, not 87 + 8 bytes
            [0x82, 0xFF, 0xFF, 0xFF, 0xFF],
        ]
        let expected = littleEndian.flatMap { byteOrder == .littleEndian ? $0 : [$0[0]] + $0[1...].reversed() }
        #expect(Array(data) == Self.prefix(encoding, byteOrder) + expected)
        #expect(try TypedstreamArchive(data: data) == archive)
    }

    /// pytypedstream reads the unsigned values we write as the values in the model.
    @Test(.requiresPytypedstream)
    func pytypedstreamReadsTheUnsignedValues() throws {
        for archive in [Self.archive("[8S]", [0x7FFF, 0x8000, 0x9F90, 0xFFFF, 5, 200, 0, 0x1234], .littleEndian),
                        Self.archive("[3I]", [0x8000, 0x8000_0000, 0xFFFF_FFFF], .bigEndian)] {
            let reading = try PytypedstreamOracle.read(bytes: archive.encodedData())
            #expect(reading.readError == nil)
            #expect(reading.events.map(TypedstreamEvents.normalized) == TypedstreamEvents.events(of: archive))
        }
    }

    /// Each 3-byte form `81 lo hi` as `81 hi lo`.
    private static func swappedPairs(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x81 { out += [0x81, bytes[i + 2], bytes[i + 1]]; i += 3 } else { out.append(bytes[i]); i += 1 }
        }
        return out
    }
}
