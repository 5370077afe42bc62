import Foundation
import Testing
@testable import KeyedArchive

/// Data values read from bytes the caller owns, or that `FileReader` mapped, share those bytes (issue #18,
/// zero-copy data): the reader and the unarchiver return slices of the input, which keep its storage
/// alive, copy themselves when mutated, and never dangle.
@Suite struct ZeroCopyDataTests {
    /// Whether `value`'s bytes lie inside `input`'s (shared storage, not a copy).
    func shares(_ value: Data, _ input: Data) -> Bool {
        let inner = value.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        return input.withUnsafeBytes { raw in
            let start = UInt(bitPattern: raw.baseAddress)
            return inner >= start && inner + UInt(value.count) <= start + UInt(raw.count)
        }
    }

    static let blob = Data((0 ..< 4096).map { (i: Int) in UInt8(truncatingIfNeeded: i &* 7 &+ 3) })

    /// A model holding a data field, archived as a keyed archive.
    struct Holder: KeyedArchivable {
        static var archivedClassName: String { "ZeroCopyHolder" }
        var bytes: Data
        init(bytes: Data) { self.bytes = bytes }
        init(from decoder: any ArchiveDecoder) throws { bytes = try decoder.decode(Data.self, forKey: "bytes") }
        func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(bytes, forKey: "bytes") }
    }

    @Test func binaryReaderReturnsDataThatSharesTheInput() throws {
        let input = BinaryPropertyListWriter().write(.array([.data(Self.blob), .string("x")]))
        let value = try BinaryPropertyListReader().read(input)
        guard case .array(let items) = value, case .data(let d) = items.first else {
            Issue.record("expected [data, string], read \(value)")
            return
        }
        #expect(d == Self.blob)
        #expect(shares(d, input))
    }

    @Test func dataReadFromASlicedInputIsTheRightBytes() throws {
        // The input itself is a slice with a non-zero start: offsets are taken from its startIndex.
        let padded = Data(repeating: 0xEE, count: 100) + BinaryPropertyListWriter().write(.data(Self.blob))
        let input = padded[100...]
        let value = try PropertyListValue(propertyListData: input)
        #expect(value == .data(Self.blob))
        if case .data(let d) = value { #expect(shares(d, input)) }
    }

    @Test func dataOutlivesTheInputAndMutatingItLeavesTheInputAlone() throws {
        var input: Data? = BinaryPropertyListWriter().write(.data(Self.blob))
        let copyOfInput = input.map { Data($0) }
        guard case .data(var d) = try BinaryPropertyListReader().read(input ?? Data()) else {
            Issue.record("expected data")
            return
        }
        input = nil  // the value alone keeps the storage now
        #expect(d == Self.blob)
        let first = d.startIndex
        d[first] = d[first] &+ 1  // copy-on-write or in place in storage nobody else sees
        #expect(d.count == Self.blob.count)
        #expect(d[first] == Self.blob[0] &+ 1)
        #expect(d.dropFirst() == Self.blob.dropFirst())

        // With the input alive, mutating the value copies it first: the input keeps its bytes.
        let again = try #require(copyOfInput)
        guard case .data(var e) = try BinaryPropertyListReader().read(again) else {
            Issue.record("expected data")
            return
        }
        e[e.startIndex] = 0
        #expect(try BinaryPropertyListReader().read(again) == .data(Self.blob))
    }

    @Test func unarchiverDecodesDataSharingABinaryArchive() throws {
        let archive = try KeyedArchiver.archivedData(withRootObject: Holder(bytes: Self.blob))
        let back = try KeyedUnarchiver().decode(Holder.self, from: archive)
        #expect(back.bytes == Self.blob)
        #expect(shares(back.bytes, archive))
    }

    @Test func unarchiverDecodesDataOfAnXMLArchiveIntoItsOwnBytes() throws {
        let archive = try KeyedArchiver.archivedData(withRootObject: Holder(bytes: Self.blob), format: .xml)
        let back = try KeyedUnarchiver().decode(Holder.self, from: archive)
        #expect(back.bytes == Self.blob)
        #expect(!shares(back.bytes, archive))
    }

    #if DEBUG
    @Test func dataUnarchivedFromAMappedFileKeepsTheMappingUntilItIsGone() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("holder.archive")
        let big = Data((0 ..< (2 << 20)).map { (i: Int) in UInt8(truncatingIfNeeded: i &* 13) })
        try FileTestSupport.create(path, try KeyedArchiver.archivedData(withRootObject: Holder(bytes: big)))
        let log = HookLog()
        var hooks = SystemCallHooks()
        hooks.mappingFacts = { _ in nil }  // map on every platform, whatever the scratch volume's facts
        hooks.mmap = { fd, length in
            log.append("mmap")
            return SystemCalls.realMmap(fd, length)
        }
        hooks.munmap = { pointer, length in
            log.append("munmap")
            return SystemCalls.realMunmap(pointer, length)
        }
        try SystemCallHooks.$current.withValue(hooks) {
            do {
                var holder = try { () throws -> Holder in
                    let data = try FileReader().read(atPath: path)
                    let holder = try KeyedUnarchiver().decode(Holder.self, from: data)
                    #expect(shares(holder.bytes, data))
                    return holder
                }()
                // The file's Data is gone; the decoded value alone keeps the mapping.
                #expect(log.log == ["mmap"])
                #expect(holder.bytes == big)
                // Writing to it changes this process's copy, never the file (the mapping is private).
                holder.bytes[holder.bytes.startIndex] = big[0] &+ 1
                #expect(holder.bytes.first == big[0] &+ 1)
            }
            #expect(log.log == ["mmap", "munmap"])
        }
        let onDisk = try KeyedUnarchiver().decode(Holder.self, from: try FileReader(options: .init(mapping: .never)).read(atPath: path))
        #expect(onDisk.bytes == big)
    }

    @Test func aMappedFilesDataCanBeMutatedWithoutChangingTheFile() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("mapped")
        let bytes = FileTestSupport.pseudoRandomBytes(count: 2 << 20, seed: 18)
        try FileTestSupport.create(path, bytes)
        var data = try FileReader().read(atPath: path)  // mapped: 2 MiB is above the 1 MiB threshold
        data[0] = bytes[0] &+ 1  // the only reference: Data writes in place, to the private mapping
        #expect(data[0] == bytes[0] &+ 1)
        #expect(FileTestSupport.contents(path) == bytes)
    }
    #endif
}
