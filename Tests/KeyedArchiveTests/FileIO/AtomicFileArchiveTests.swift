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

/// `KeyedArchiver.archiveRootObject(_:toFile:)` and `KeyedUnarchiver.unarchivedObject(ofClass:fromFile:)`.
@Suite struct AtomicFileArchiveTests {
    @Test(arguments: PropertyListFormat.allCases)
    func archiveFileRoundTripsEveryField(format: PropertyListFormat) throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("model.archive")
        var original = EveryField()
        original.string = "saved to \(format)"
        try KeyedArchiver.archiveRootObject(original, toFile: path, format: format)
        #expect(PropertyListValue.detectFormat(of: try #require(FileTestSupport.contents(path))) == format)
        // The file holds exactly what archivedData produces.
        #expect(FileTestSupport.contents(path) == (try KeyedArchiver.archivedData(withRootObject: original, format: format)))

        let decoded = try KeyedUnarchiver.unarchivedObject(ofClass: EveryField.self, fromFile: path)
        #expect(decoded == original)
        let viaURL = try KeyedUnarchiver.unarchivedObject(ofClass: EveryField.self, contentsOf: URL(fileURLWithPath: path))
        #expect(viaURL == original)
        let viaClasses = try KeyedUnarchiver.unarchivedObject(ofClasses: [EveryField.self], fromFile: path)
        #expect(viaClasses as? EveryField == original)
        #expect(dir.names() == ["model.archive"])
    }

    @Test func urlArchiveReplacesAtomically() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let url = URL(fileURLWithPath: dir.file("notes.archive"))
        try KeyedArchiver.archiveRootObject(["first"], to: url)
        try FileTestSupport.create(url.path, try #require(FileTestSupport.contents(url.path)), mode: 0o600)
        try KeyedArchiver.archiveRootObject(["second", "third"], to: url)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: [String].self, contentsOf: url) == ["second", "third"])
        #expect(FileTestSupport.permissions(url.path) == 0o600)
        #expect(dir.names() == ["notes.archive"])
    }

    @Test func failedSaveKeepsThePreviousArchive() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let path = dir.file("model.archive")
        try KeyedArchiver.archiveRootObject(["old"], toFile: path)
        let error = SystemCallHooks.$current.withValue(InjectedFault.write.hooks(failingWith: ENOSPC)) { () -> (any Error)? in
            do {
                try KeyedArchiver.archiveRootObject([String](repeating: "new", count: 10_000), toFile: path)
                return nil
            } catch {
                return error
            }
        }
        let fileError = try #require(error as? FileIOError)
        #expect(fileError.errno == ENOSPC)
        #expect(fileError.step == .write)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: [String].self, fromFile: path) == ["old"])
        #expect(dir.names() == ["model.archive"])
    }

    @Test func missingFileIsAFileErrorAndGarbageIsAnArchiveError() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        do {
            _ = try KeyedUnarchiver.unarchivedObject(ofClass: EveryField.self, fromFile: dir.file("absent"))
            Issue.record("a missing file was unarchived")
        } catch let error as FileIOError {
            #expect(error.errno == ENOENT)
            #expect(error.path == dir.file("absent"))
        }
        try FileTestSupport.create(dir.file("garbage"), Data("not an archive".utf8))
        #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(ofClass: EveryField.self, fromFile: dir.file("garbage"))
        }
    }

    @Test func foundationReadsOurArchiveFileAndWeReadItsFile() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        // Ours -> Foundation.
        let ours = dir.file("ours.archive")
        try KeyedArchiver.archiveRootObject(["alpha", "beta"], toFile: ours)
        let data = try Data(contentsOf: URL(fileURLWithPath: ours))
        let decoded = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSArray.self, NSString.self], from: data)
        #expect((decoded as? [String]) == ["alpha", "beta"])
        // Foundation -> ours.
        let theirs = URL(fileURLWithPath: dir.file("theirs.archive"))
        let archived = try NSKeyedArchiver.archivedData(withRootObject: ["gamma", "delta"] as NSArray, requiringSecureCoding: true)
        try archived.write(to: theirs, options: .atomic)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: [String].self, contentsOf: theirs) == ["gamma", "delta"])
    }
}
