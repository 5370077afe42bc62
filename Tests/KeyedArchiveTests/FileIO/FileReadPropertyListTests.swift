import Foundation
import Testing
@testable import KeyedArchive
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `PropertyListValue(contentsOf:)` and `PropertyListValue(contentsOfFile:)`.
@Suite struct FileReadPropertyListTests {
    /// The smallest binary property list: the single value `true`.
    static let binaryTrue: [UInt8] = [
        0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
        0x09,                                            // object 0 at byte 8: true
        0x08,                                            // offset table at byte 9: object 0 is at byte 8
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00,              // trailer: 6 unused bytes
        0x01,                                            // trailer: offset size 1
        0x01,                                            // trailer: object reference size 1
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,  // trailer: 1 object
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // trailer: top object 0
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09,  // trailer: offset table at byte 9
    ]

    /// What decoding gives, as a comparable string (the value, or the error's description).
    static func outcome(_ body: () throws -> PropertyListValue) -> String {
        do { return "value \(try body())" } catch { return "error \(error)" }
    }

    @Test(arguments: [
        binaryTrue,
        Array("<?xml version=\"1.0\"?><plist version=\"1.0\"><string>hi</string></plist>".utf8),
        Array("definitely not a property list".utf8),
        [],
    ])
    func fileDecodesExactlyLikeItsBytes(bytes: [UInt8]) throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("value.plist")
        try FileTestSupport.create(path, Data(bytes))
        let fromBytes = Self.outcome { try PropertyListValue(propertyListData: Data(bytes)) }
        #expect(Self.outcome { try PropertyListValue(contentsOfFile: path) } == fromBytes)
        #expect(Self.outcome { try PropertyListValue(contentsOf: URL(fileURLWithPath: path)) } == fromBytes)
    }

    @Test func largeFileIsDecodedFromTheMapping() throws {
        // A file past the mapping threshold goes through mmap; the decoder sees the same bytes.
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("padded.plist")
        var bytes = Data(Self.binaryTrue)
        bytes.append(Data(count: 2 << 20))   // unreferenced padding
        try FileTestSupport.create(path, bytes)
        let fromBytes = Self.outcome { try PropertyListValue(propertyListData: bytes) }
        #expect(Self.outcome { try PropertyListValue(contentsOfFile: path, fileOptions: .init(mappingThreshold: 1024)) } == fromBytes)
    }

    @Test func missingFileIsAFileError() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("missing.plist")
        #expect(throws: FileIOError.self) { try PropertyListValue(contentsOfFile: path) }
        do {
            _ = try PropertyListValue(contentsOf: URL(fileURLWithPath: path))
            Issue.record("reading a missing file succeeded")
        } catch let error as FileIOError {
            #expect(error.errno == ENOENT)
            #expect(error.path == path)
        }
    }

    @Test func notAPropertyListIsAPropertyListError() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("text.plist")
        try FileTestSupport.create(path, Data("%PDF-1.4".utf8))  // "hello" would be an OpenStep string
        do {
            _ = try PropertyListValue(contentsOfFile: path)
            Issue.record("text decoded as a property list")
        } catch let error as PropertyListError {
            #expect(error.code == .unknownFormat)
        }
    }

    @Test func readingLimitsApply() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("value.plist")
        try FileTestSupport.create(path, Data(Self.binaryTrue))
        do {
            _ = try PropertyListValue(contentsOfFile: path, fileOptions: .init(maximumSize: 10))
            Issue.record("a file above the size limit was read")
        } catch let error as FileIOError {
            #expect(error.errno == EFBIG)
        }
    }
}
