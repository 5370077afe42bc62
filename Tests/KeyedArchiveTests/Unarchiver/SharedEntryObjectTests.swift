import Foundation
import Testing
@testable import KeyedArchive
import KeyedArchiveTestSupport

/// An `$objects` entry whose property-list object is also written inline inside an earlier entry (a binary
/// file can share one object between both places; Apple's archiver never does, the dump fuzzer's
/// differential check between the eager and the lazy graph found it). The entry is still an object
/// dictionary: its `$class` is checked and recorded like any other entry's, by every reader.
@Suite struct SharedEntryObjectTests {
    /// A 204-byte archive, laid out by hand (1-byte references and offsets):
    /// `$objects` = [`$null`, {`$class`: UID 3, `inner`: <object 13>}, <object 13>, class "Thing"], where
    /// object 13 is {`$class`: `entryTwoClass`}: entry 2 and, inline, entry 1's `inner`.
    static func archive(entryTwoClass: UInt8) -> Data {
        typealias P = HandWrittenBinaryPropertyList
        let string = P.ascii, array = P.array, dict = P.dict
        return P.file([
            dict([1, 2, 3, 4], [5, 6, 7, 8]),                     // 0: the envelope
            string("$archiver"), string("$version"), string("$top"), string("$objects"),  // 1-4
            P.keyedArchiver,                                      // 5
            [0x12, 0x00, 0x01, 0x86, 0xA0],                       // 6: 100000
            dict([9], [10]),                                      // 7: $top = {root: UID 1}
            array([11, 12, 13, 14]),                              // 8: $objects
            string("root"),                                       // 9
            P.uid(1),                                             // 10: UID 1
            string("$null"),                                      // 11: entry 0
            dict([16, 17], [15, 13]),                             // 12: entry 1 {$class: UID 3, inner: object 13}
            dict([16], [entryTwoClass]),                          // 13: entry 2 {$class: ...}, shared
            dict([18, 19], [20, 21]),                             // 14: entry 3, the class description
            P.uid(3),                                             // 15: UID 3
            string("$class"), string("inner"), string("$classname"), string("$classes"),  // 16-19
            string("Thing"),                                      // 20
            array([20]),                                          // 21: ["Thing"]
        ])
    }

    @Test func theSharedEntryIsAnInstanceForTheEagerTheOnDemandAndTheLazyGraph() throws {
        let data = Self.archive(entryTwoClass: 15)  // $class UID 3, "Thing"
        #expect(data.count == 204)
        let eager = try ArchivedObjectGraph(data: data)
        #expect(eager.object(UID(2))?.instance?.className == "Thing")
        #expect(eager.object(UID(1))?.instance?.className == "Thing")
        #expect(try ArchivedObjectGraph(onDemand: data) == eager)
        let lazy = try LazyArchivedObjectGraph(data: data)
        for uid in eager.uids {
            #expect(try lazy.object(uid) == eager.object(uid), "entry \(uid)")
        }
    }

    @Test func aBadClassOnTheSharedEntryIsRejectedByEveryReader() throws {
        let data = Self.archive(entryTwoClass: 10)  // $class UID 1: entry 1, not a class description
        for (reader, read) in [
            ("eager", { _ = try ArchivedObjectGraph(data: data) }),
            ("on demand", { _ = try ArchivedObjectGraph(onDemand: data) }),
            ("lazy, entry 2", { _ = try LazyArchivedObjectGraph(data: data).object(UID(2)) }),
        ] as [(String, () throws -> Void)] {
            let error = #expect(throws: KeyedArchiveError.self, "\(reader)") { try read() }
            #expect(error?.code == .invalidClass, "\(reader): \(String(describing: error))")
            #expect(error?.objectUID == 2, "\(reader): \(String(describing: error))")
        }
    }
}
