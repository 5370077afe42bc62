import Foundation
import KeyedArchive

/// 100,000 small dictionaries (int, string, bool, double, 16-byte data) in one array: read and written by
/// this package, by `PropertyListSerialization` and by `PropertyListDecoder`/`PropertyListEncoder`.
struct SmallDictionariesWorkload: Workload {
    var count = 100_000
    /// Where to write Foundation's bytes (`small-dictionaries.bplist`) for libplist; `nil` writes nothing.
    var outputDirectory: String?
    var name: String { "small-dictionaries" }
    /// Foundation's operations take 0.4-2.4 s each: one run per process (the processes give the spread).
    private let peerRuns = (timed: 1, warmups: 0)
    var summary: String { "an array of \(count.formatted()) dictionaries {id: int, name: string, flag: bool, score: double, blob: 16-byte data}" }

    struct Item: Codable {
        var id: Int
        var name: String
        var flag: Bool
        var score: Double
        var blob: Data
    }

    func makeGroups() throws -> [BenchmarkGroup] {
        let items = (0 ..< count).map { i in
            Item(id: i, name: "item \(i)", flag: i % 2 == 0, score: Double(i) * 0.5,
                 blob: Data((0 ..< 16).map { UInt8(truncatingIfNeeded: i &+ $0) }))
        }
        let value = PropertyListValue.array(items.map { item in
            .dictionary([
                "id": .integer(PropertyListInteger(Int64(item.id))),
                "name": .string(item.name),
                "flag": .bool(item.flag),
                "score": .real(item.score),
                "blob": .data(item.blob),
            ])
        })
        let foundationTree: [Any] = items.map { item in
            ["id": item.id, "name": item.name, "flag": item.flag, "score": item.score, "blob": item.blob] as [String: Any]
        }
        // Every reader gets the same bytes: Foundation's own binary encoding.
        let foundationBytes = try PropertyListSerialization.data(fromPropertyList: foundationTree, format: .binary, options: 0)
        let ourBytes = BinaryPropertyListWriter().write(value)
        guard try BinaryPropertyListReader().read(foundationBytes) == value else {
            throw BenchError("our reader disagrees with Foundation's bytes")
        }
        if let outputDirectory { try foundationBytes.write(to: URL(fileURLWithPath: "\(outputDirectory)/small-dictionaries.bplist")) }
        print("  file sizes: ours \(ourBytes.count.formatted()) bytes, Foundation \(foundationBytes.count.formatted()) bytes")

        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        return [
            BenchmarkGroup("read (Foundation's \(foundationBytes.count.formatted())-byte file)", [
                Operation("KeyedArchive BinaryPropertyListReader", id: "read") {
                    keep(try BinaryPropertyListReader().read(foundationBytes)).arrayValue?.count ?? 0
                },
                Operation("Foundation PropertyListSerialization", id: "serialization-read", runs: peerRuns) {
                    (keep(try PropertyListSerialization.propertyList(from: foundationBytes, options: [], format: nil)) as? [Any])?.count ?? 0
                },
                Operation("Foundation PropertyListDecoder", id: "decoder-read", runs: peerRuns) {
                    keep(try PropertyListDecoder().decode([Item].self, from: foundationBytes)).count
                },
            ]),
            BenchmarkGroup("write", [
                Operation("KeyedArchive BinaryPropertyListWriter", id: "write") { keep(BinaryPropertyListWriter().write(value)).count },
                Operation("Foundation PropertyListSerialization", id: "serialization-write", runs: peerRuns) {
                    keep(try PropertyListSerialization.data(fromPropertyList: foundationTree, format: .binary, options: 0)).count
                },
                Operation("Foundation PropertyListEncoder", id: "encoder-write", runs: peerRuns) { keep(try encoder.encode(items)).count },
            ]),
        ]
    }
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
