import ArchiveDumpCore
import Foundation
import KeyedArchive
import Testing

/// A few hundred bytes whose containers share sub-trees (each level's array refers to the next level's
/// twice, 40 levels) stand for 2^40 values: every output of archive-dump must finish at once, with a
/// clear error naming the limit.
@Suite struct SharedSubtreeBombTests {
    /// Objects of a hand-made binary property list with one-byte references.
    enum Object {
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
        case ascii(String)
        case integer(UInt32)
        case uid(UInt8)
    }

    /// `bplist00`, the objects, a table of 2-byte offsets, and the trailer (offset size 2, ref size 1).
    static func encode(_ objects: [Object], top: Int = 0) -> Data {
        var out: [UInt8] = Array("bplist00".utf8)
        var offsets: [Int] = []
        func count(_ high: UInt8, _ n: Int) -> [UInt8] {
            n < 15 ? [high | UInt8(n)] : [high | 0xF, 0x10, UInt8(n)]
        }
        for object in objects {
            offsets.append(out.count)
            switch object {
            case .array(let refs): out += count(0xA0, refs.count) + refs.map(UInt8.init)
            case .dictionary(let keys, let values): out += count(0xD0, keys.count) + keys.map(UInt8.init) + values.map(UInt8.init)
            case .ascii(let s): out += count(0x50, s.utf8.count) + Array(s.utf8)
            case .integer(let v): out += [0x12] + withUnsafeBytes(of: v.bigEndian, Array.init)
            case .uid(let v): out += [0x80, v]
            }
        }
        let tableOffset = out.count
        for offset in offsets { out += [UInt8(offset >> 8), UInt8(offset & 0xFF)] }
        out += [0, 0, 0, 0, 0, 0, 2, 1]
        out += withUnsafeBytes(of: UInt64(objects.count).bigEndian, Array.init)
        out += withUnsafeBytes(of: UInt64(top).bigEndian, Array.init)
        out += withUnsafeBytes(of: UInt64(tableOffset).bigEndian, Array.init)
        return Data(out)
    }

    /// 40 arrays starting at object `first`, array k = [array k+1, array k+1], the last = [1].
    static func levels(from first: Int) -> [Object] {
        (0 ..< 40).map { .array([first + $0 + 1, first + $0 + 1]) } + [.array([first + 41]), .integer(1)]
    }

    /// A plain property list that is the bomb.
    static let plainBomb = encode(levels(from: 0))

    /// A keyed archive whose object #1 (class Thing) holds the bomb in field `v`.
    static let archiveBomb: Data = {
        let head: [Object] = [
            .dictionary(keys: [1, 2, 3, 4], values: [5, 6, 7, 8]),        // 0: the envelope
            .ascii("$archiver"), .ascii("$version"), .ascii("$top"), .ascii("$objects"),
            .ascii("NSKeyedArchiver"), .integer(100000),                    // 5, 6
            .dictionary(keys: [9], values: [10]),                           // 7: $top = {root: UID 1}
            .array([11, 12, 13]),                                           // 8: $objects
            .ascii("root"), .uid(1), .ascii("$null"),                       // 9, 10, 11
            .dictionary(keys: [14, 15], values: [16, 21]),                  // 12: {$class: UID 2, v: bomb}
            .dictionary(keys: [17, 18], values: [19, 20]),                  // 13: the class Thing
            .ascii("$class"), .ascii("v"), .uid(2),                         // 14, 15, 16
            .ascii("$classname"), .ascii("$classes"), .ascii("Thing"),      // 17, 18, 19
            .array([19]),                                                   // 20
        ]
        return encode(head + levels(from: 21))
    }()

    func run(_ arguments: [String], input: Data) -> (status: Int32, output: String, errors: String) {
        let out = DumpOutputCollector(), err = DumpOutputCollector()
        let status = ArchiveDumpCommand.run(arguments: arguments + ["-"], input: { input }, output: out.output,
                                            errors: err.output, outputIsTerminal: false)
        return (status, out.text, err.text)
    }

    static let modes: [[String]] = [[], ["--raw"], ["--json"], ["--raw", "--json"], ["--xml"], ["--binary"], ["--validate"], ["--classes"]]

    @Test(arguments: modes) func plainBombStopsAtTheLimit(_ mode: [String]) throws {
        #expect(Self.plainBomb.count < 300)
        let start = ContinuousClock.now
        let result = run(mode, input: Self.plainBomb)
        #expect(ContinuousClock.now - start < .seconds(1))
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(result.errors.contains("shares containers"))
        #expect(result.errors.contains("limit: 4 per input byte + 4096"))
    }

    @Test(arguments: modes) func archiveBombStopsAtTheLimit(_ mode: [String]) throws {
        let start = ContinuousClock.now
        let result = run(mode, input: Self.archiveBomb)
        #expect(ContinuousClock.now - start < .seconds(1))
        #expect(result.status == 1)
        #expect(result.output.isEmpty)
        #expect(result.errors.contains("shares containers"))
    }

    @Test func theArchiveBombIsAValidArchiveAndItsGraphLoadsAtOnce() throws {
        // The library's reader and validation visit each shared container once.
        let start = ContinuousClock.now
        let graph = try ArchivedObjectGraph(data: Self.archiveBomb)
        #expect(graph.count == 3)
        #expect(graph.className(of: UID(1)) == "Thing")
        #expect(graph.instanceCounts() == ["Thing": 1])
        #expect(ContinuousClock.now - start < .seconds(1))
    }

    @Test func sharingBelowTheLimitIsShownInFull() throws {
        // 6 levels: 2^6 leaves, well under the budget of a 100-byte file.
        let small = Self.encode((0 ..< 6).map { .array([$0 + 1, $0 + 1]) } + [.integer(7)])
        let result = run(["--raw", "--json"], input: small)
        #expect(result.status == 0)
        #expect(result.output.components(separatedBy: "7").count - 1 == 64)
    }
}
