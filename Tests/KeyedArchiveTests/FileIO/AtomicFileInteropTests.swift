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

/// The writer and reader against Foundation's own file API, in-process.
@Suite struct AtomicFileInteropTests {
    @Test(arguments: [0, 1, 4096, 1 << 20, (3 << 20) + 17])
    func foundationReadsWhatWeWriteAndWeReadWhatItWrites(size: Int) throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let bytes = FileTestSupport.pseudoRandomBytes(count: size, seed: UInt64(size) + 1)

        let ours = URL(fileURLWithPath: dir.file("ours"))
        try bytes.writeAtomically(to: ours)
        #expect(try Data(contentsOf: ours) == bytes)

        let theirs = URL(fileURLWithPath: dir.file("theirs"))
        try bytes.write(to: theirs, options: .atomic)
        #expect(try FileReader().read(at: theirs) == bytes)
        #expect(try FileReader(options: .init(mappingThreshold: 0)).read(at: theirs) == bytes)
    }

    /// Documents where this writer differs from Foundation: it keeps a 0600 file 0600 and updates a
    /// symbolic link's target. Foundation's behaviour is printed, not asserted (it differs by platform).
    @Test func differencesFromFoundationAreAsDocumented() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        for writer in ["ours", "Foundation"] {
            let real = dir.file("\(writer)-real")
            let link = dir.file("\(writer)-link")
            try FileTestSupport.create(real, Data("old".utf8), mode: 0o600)
            try #require(symlink("\(writer)-real", link) == 0)
            if writer == "ours" {
                try Data("new".utf8).writeAtomically(toPath: link)
            } else {
                try Data("new".utf8).write(to: URL(fileURLWithPath: link), options: .atomic)
            }
            let linkKept = FileTestSupport.status(link)?.isSymbolicLink == true
            let targetUpdated = FileTestSupport.contents(real) == Data("new".utf8)
            let mode = FileTestSupport.permissions(linkKept ? real : link).map { String($0, radix: 8) } ?? "?"
            print("\(writer): symbolic link kept: \(linkKept), its target updated: \(targetUpdated), mode of the written file: \(mode)")
            if writer == "ours" {
                #expect(linkKept)
                #expect(targetUpdated)
                #expect(mode == "600")
            }
        }
    }
}
