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

/// `PropertyListValue.write(to:format:options:)` and `write(toFile:format:options:)`.
@Suite struct AtomicFilePropertyListTests {
    static let sample: PropertyListValue = .dictionary([
        "name": .string("Ada"),
        "age": .integer(36),
        "tags": .array([.string("math"), .string("engines")]),
        "photo": .data(Data([0, 1, 2, 0xFF])),
    ])

    @Test(arguments: PropertyListFormat.allCases)
    func fileHoldsExactlyTheEncodedBytes(format: PropertyListFormat) throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("sample.plist")
        let encoded: Data
        do {
            encoded = try Self.sample.propertyListData(format: format)
        } catch {
            // The encoder cannot do it (yet): the write must fail the same way and create nothing.
            #expect(throws: PropertyListError.self) { try Self.sample.write(toFile: path, format: format) }
            #expect(dir.names() == [])
            return
        }
        try Self.sample.write(toFile: path, format: format)
        #expect(FileTestSupport.contents(path) == encoded)
        try Self.sample.write(to: URL(fileURLWithPath: dir.file("url.plist")), format: format)
        #expect(FileTestSupport.contents(dir.file("url.plist")) == encoded)
    }

    @Test func unrepresentableValueWritesNothingAndKeepsTheOldFile() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("sample.plist")
        let old = Data("old".utf8)
        try FileTestSupport.create(path, old)
        // XML has no sets.
        let value: PropertyListValue = .set([.string("a")])
        #expect(throws: PropertyListError.self) { try value.write(toFile: path, format: .xml) }
        #expect(FileTestSupport.contents(path) == old)
        #expect(dir.names() == ["sample.plist"])
    }

    @Test func optionsArePassedToTheWriter() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("sample.plist")
        let old = Data("old".utf8)
        try FileTestSupport.create(path, old)
        do {
            try Self.sample.write(toFile: path, format: .binary, options: .withoutOverwriting)
            Issue.record("an existing file was overwritten")
        } catch let error as FileIOError {
            #expect(error.errno == EEXIST)
        }
        #expect(FileTestSupport.contents(path) == old)
    }
}
