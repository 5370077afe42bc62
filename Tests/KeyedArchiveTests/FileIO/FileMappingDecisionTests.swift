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

// The file-system decisions that differ on Apple platforms, as pure functions of what the system reports,
// so that Linux runs them too: whether to map a file (Foundation's `.mappedIfSafe` rule), and which
// `F_FULLFSYNC` failures fall back to `fsync`.

@Suite struct FileMappingDecisionTests {
    /// A file Foundation would map: class C (the default for most app files), local, fixed, uncompressed.
    static let safe = FileMappingFacts(protectionClass: 3, isLocalVolume: true, isRemovableVolume: false,
                                       isCompressed: false, isDataless: false)

    @Test func aLocalFixedUncompressedFileOfAnyClassButAIsMapped() {
        for protectionClass: Int32 in [0, 2, 3, 4, 6, 7] {
            var facts = Self.safe
            facts.protectionClass = protectionClass
            #expect(facts.isSafeToMap, "class \(protectionClass)")
        }
    }

    /// `safe` with one fact changed, and why that makes mapping unsafe.
    static func unsafe(_ reason: String, _ change: (inout FileMappingFacts) -> Void) -> (String, FileMappingFacts) {
        var facts = safe
        change(&facts)
        return (reason, facts)
    }

    static let unsafeFiles = [
        unsafe("protection class A (no key while the device is locked)") { $0.protectionClass = 1 },
        unsafe("protection class unknown (F_GETPROTECTIONCLASS failed)") { $0.protectionClass = nil },
        unsafe("a negative protection class") { $0.protectionClass = -1 },
        unsafe("a network volume (no MNT_LOCAL)") { $0.isLocalVolume = false },
        unsafe("volume unknown (fstatfs failed)") { $0.isLocalVolume = nil },
        unsafe("a removable volume (MNT_REMOVABLE)") { $0.isRemovableVolume = true },
        unsafe("a compressed file (UF_COMPRESSED)") { $0.isCompressed = true },
        unsafe("a dataless file (SF_DATALESS)") { $0.isDataless = true },
    ]

    @Test(arguments: unsafeFiles)
    func anUnsafeFileIsRead(reason: String, facts: FileMappingFacts) {
        #expect(!facts.isSafeToMap, "\(reason)")
        #expect(Self.safe.isSafeToMap)
    }

    #if DEBUG
    /// Reads a 2 MiB file with the file-system facts `facts` and returns the data and the mmap calls made.
    func read(facts: FileMappingFacts?) throws -> (Data, Data, Int) {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let bytes = FileTestSupport.pseudoRandomBytes(count: 2 << 20, seed: 31)
        try FileTestSupport.create(dir.file("big"), bytes)
        let log = HookLog()
        var hooks = SystemCallHooks()
        hooks.mappingFacts = { _ in facts }
        hooks.mmap = { fd, length in
            log.count("mmap")
            return SystemCalls.realMmap(fd, length)
        }
        let data = try SystemCallHooks.$current.withValue(hooks) { try FileReader().read(atPath: dir.file("big")) }
        return (data, bytes, log.value("mmap"))
    }

    @Test func theReaderMapsOnlyWhatIsSafeAndReadsTheRest() throws {
        let (mapped, expected, maps) = try read(facts: Self.safe)
        #expect(maps == 1)
        #expect(mapped == expected)
        var classA = Self.safe
        classA.protectionClass = FileMappingFacts.protectionClassA
        let (read, expectedRead, noMaps) = try read(facts: classA)
        #expect(noMaps == 0)
        #expect(read == expectedRead)
    }
    #endif

    @Test func fullFsyncFallsBackToFsyncOnlyWhereItIsUnsupported() {
        #expect(SystemCalls.fullFsyncIsUnsupported(ENOTSUP))
        #expect(SystemCalls.fullFsyncIsUnsupported(ENOTTY))
        for code in [EIO, EBADF, EINTR, ENOSPC, EDQUOT, EROFS, EINVAL] {
            #expect(!SystemCalls.fullFsyncIsUnsupported(code), "errno \(code) must be reported")
        }
    }
}
