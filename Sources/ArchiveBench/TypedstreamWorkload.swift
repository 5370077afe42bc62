import Foundation
import KeyedArchive

/// Reading typedstream (`NSArchiver`) data, issue #34's speed goal: thousands of attributedBody-sized blobs
/// (``AttributedBodySamples``), and one large file (an NSArray of messages), each read into
/// ``FoundationValue``s by ``TypedstreamUnarchiver``, beside ``KeyedUnarchiver`` reading the same values
/// archived by ``KeyedArchiver`` (the comparable keyed content: per byte and per object), in the same
/// process. pytypedstream reads the same files in processes of its own (``PytypedstreamPeer``).
///
/// "Objects" are each format's own: a typedstream's stored objects (``TypedstreamArchive/objects``), a keyed
/// archive's `$objects` entries (inline strings and numbers, class dictionaries and `$null` included).
struct TypedstreamWorkload: Workload {
    var blobCount = 5_000
    var largeCount = 20_000
    /// Where the first process writes the files pytypedstream reads; `nil` writes nothing.
    var outputDirectory: String?
    var name: String { "typedstream" }
    var summary: String {
        "\(blobCount.formatted()) attributedBody blobs and one NSArray of \(largeCount.formatted()) messages, typedstream vs the same values keyed"
    }

    func makeGroups() throws -> [BenchmarkGroup] {
        let blobs = try AttributedBodySamples.typedstreamBlobs(count: blobCount)
        let keyedBlobs = try AttributedBodySamples.keyedBlobs(count: blobCount)
        let large = try AttributedBodySamples.largeArchives(count: largeCount)
        let typedstream = TypedstreamUnarchiver()
        let keyed = KeyedUnarchiver()
        // Untimed checks: both formats give back the values they were made from.
        for index in [0, 5, 6, 7, 9, blobCount - 1] {
            let expected = FoundationValue.attributedString(try AttributedBodySamples.message(index))
            guard try typedstream.foundationValue(from: blobs[index]) == expected,
                  try keyed.decode(FoundationValue.self, from: keyedBlobs[index]) == expected else {
                throw BenchError("message \(index) does not read back as it was written")
            }
        }
        guard try typedstream.foundationValue(from: large.typedstream) == keyed.decode(FoundationValue.self, from: large.keyed) else {
            throw BenchError("the large typedstream and keyed archives read as different values")
        }
        let sizes: [(String, Int)] = [
            ("blobs", blobs.reduce(0) { $0 + $1.count }), ("keyed-blobs", keyedBlobs.reduce(0) { $0 + $1.count }),
            ("blobs-objects", try blobs.reduce(0) { $0 + (try TypedstreamArchive(data: $1).objects.count) }),
            ("keyed-blobs-objects", try keyedBlobs.reduce(0) { $0 + (try Self.keyedObjectCount($1)) }),
            ("large", large.typedstream.count), ("keyed-large", large.keyed.count),
            ("large-objects", try TypedstreamArchive(data: large.typedstream).objects.count),
            ("keyed-large-objects", try Self.keyedObjectCount(large.keyed)),
        ]
        for (key, value) in sizes { print("@size \(resultPrefix).\(key) \(value)") }
        if let outputDirectory {
            try AttributedBodySamples.hexLines(blobs).write(to: URL(fileURLWithPath: "\(outputDirectory)/\(PytypedstreamPeer.blobsFile)"))
            try large.typedstream.write(to: URL(fileURLWithPath: "\(outputDirectory)/\(PytypedstreamPeer.largeFile)"))
        }
        let n = blobCount.formatted()
        return [
            BenchmarkGroup("read \(n) attributedBody blobs into FoundationValues (typedstream \(sizes[0].1.formatted()) bytes, keyed \(sizes[1].1.formatted()))", [
                Operation("KeyedArchive TypedstreamUnarchiver", id: "blobs") {
                    keep(try blobs.map { try typedstream.foundationValue(from: $0) }).count
                },
                Operation("KeyedArchive KeyedUnarchiver, same values keyed", id: "keyed-blobs", growthOf: ("blobs", "the typedstream blobs")) {
                    keep(try keyedBlobs.map { try keyed.decode(FoundationValue.self, from: $0) }).count
                },
            ]),
            BenchmarkGroup("read an NSArray of \(largeCount.formatted()) messages (typedstream \(large.typedstream.count.formatted()) bytes, keyed \(large.keyed.count.formatted()))", [
                Operation("KeyedArchive TypedstreamUnarchiver", id: "large") {
                    keep(try typedstream.foundationValue(from: large.typedstream)).count ?? 0
                },
                Operation("KeyedArchive KeyedUnarchiver, same values keyed", id: "keyed-large", growthOf: ("large", "the typedstream file")) {
                    keep(try keyed.decode(FoundationValue.self, from: large.keyed)).count ?? 0
                },
            ]),
        ]
    }

    /// The entries of a keyed archive's `$objects`.
    static func keyedObjectCount(_ archive: Data) throws -> Int {
        guard let objects = try BinaryPropertyListReader().read(archive).dictionaryValue?["$objects"]?.arrayValue else {
            throw BenchError("a keyed archive without $objects")
        }
        return objects.count
    }
}
