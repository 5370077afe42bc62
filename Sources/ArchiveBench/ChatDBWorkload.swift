import Foundation
import KeyedArchive

/// A chat.db-sized job, issue #36's speed goal: 100,000 attributedBody blobs as
/// `sqlite3 chat.db "select hex(attributedBody) from message"` prints them (one hex line each), each line
/// decoded, read by ``TypedstreamUnarchiver`` and its text and every attribute of every run extracted, on
/// all cores. A blob that does not read is recorded with its error and the job goes on, as a tool does.
///
/// Its figures are wall-clock (`@time chatdb.extract.wall`): CPU time adds up the cores.
struct ChatDBWorkload: Workload {
    var count = 100_000
    var name: String { "chatdb" }
    var summary: String {
        "\(count.formatted()) attributedBody blobs as hex lines: text and attributes extracted on \(ProcessInfo.processInfo.activeProcessorCount) cores"
    }

    func makeGroups() throws -> [BenchmarkGroup] {
        let lines = AttributedBodySamples.hexLines(try AttributedBodySamples.typedstreamBlobs(count: count))
        let cores = ProcessInfo.processInfo.activeProcessorCount
        print("@size \(resultPrefix).blobs \(count)")
        print("@size \(resultPrefix).hex-bytes \(lines.count)")
        print("@size \(resultPrefix).cores \(cores)")
        // Untimed check: every line read, and the texts are the messages'.
        let messages = ChatExtraction.extract(hexLines: lines, threads: cores)
        guard messages.count == count, messages.allSatisfy({ $0.error == nil }),
              try [0, 6, count - 1].allSatisfy({ messages[$0].text == (try AttributedBodySamples.message($0)).string }) else {
            throw BenchError("the extracted messages differ from the generated ones")
        }
        let n = count.formatted()
        var allCores = Operation("KeyedArchive, \(cores) threads", id: "extract", runs: (3, 1)) {
            keep(ChatExtraction.extract(hexLines: lines, threads: cores)).count
        }
        allCores.reportsWallClock = true
        var oneCore = Operation("KeyedArchive, 1 thread", id: "extract-one-thread", growthOf: ("extract", "\(cores) threads (CPU time)"),
                                runs: (3, 1)) {
            keep(ChatExtraction.extract(hexLines: lines, threads: 1)).count
        }
        oneCore.reportsWallClock = true
        return [BenchmarkGroup("extract text and attributes from \(n) hex lines (\(lines.count.formatted()) bytes)", [allCores, oneCore])]
    }
}

/// One message extracted from a blob: its text and each run's attributes, or why it did not read.
struct ChatMessage {
    struct Attribute {
        /// The run's range, in UTF-16 units.
        var range: Range<Int>
        var name: String
        var value: FoundationValue
    }

    /// The blob's line, from 1.
    var line: Int
    var text = ""
    var attributes: [Attribute] = []
    var error: String?
}

/// The extraction a chat.db tool does: hex lines to messages, on `threads` threads.
enum ChatExtraction {
    /// Every line of `hexLines` as a message, in order, the lines shared among `threads` threads in chunks.
    static func extract(hexLines: Data, threads: Int) -> [ChatMessage] {
        let lineRanges = hexLines.withUnsafeBytes { bytes in
            var ranges: [Range<Int>] = []
            var start = 0
            for (offset, byte) in bytes.enumerated() where byte == UInt8(ascii: "\n") {
                if offset > start { ranges.append(start ..< offset) }
                start = offset + 1
            }
            if start < bytes.count { ranges.append(start ..< bytes.count) }
            return ranges
        }
        let chunkCount = threads == 1 ? 1 : min(lineRanges.count, threads * 16)
        guard chunkCount > 0 else { return [] }
        let results = ChunkResults(count: chunkCount)
        let unarchiver = TypedstreamUnarchiver()
        DispatchQueue.concurrentPerform(iterations: chunkCount) { chunk in
            let lower = lineRanges.count * chunk / chunkCount, upper = lineRanges.count * (chunk + 1) / chunkCount
            results.set(chunk, hexLines.withUnsafeBytes { bytes in
                (lower ..< upper).map { index in
                    message(line: index + 1, hex: UnsafeRawBufferPointer(rebasing: bytes[lineRanges[index]]), unarchiver: unarchiver)
                }
            })
        }
        return results.all
    }

    static func message(line: Int, hex: UnsafeRawBufferPointer, unarchiver: TypedstreamUnarchiver) -> ChatMessage {
        var message = ChatMessage(line: line)
        do {
            let value = try unarchiver.foundationValue(from: try decodeHex(hex))
            guard let attributed = value.attributedString else {
                message.error = "the root is not an NSAttributedString"
                return message
            }
            message.text = attributed.string
            for run in attributed.runs {
                for (name, value) in run.attributes { message.attributes.append(.init(range: run.range, name: name, value: value)) }
            }
        } catch {
            message.error = "\(error)"
        }
        return message
    }

    /// The bytes of a line of hex digits (either case).
    static func decodeHex(_ hex: UnsafeRawBufferPointer) throws -> Data {
        guard hex.count % 2 == 0 else { throw BenchError("an odd number of hex digits (\(hex.count))") }
        var bytes = [UInt8](repeating: 0, count: hex.count / 2)
        for index in bytes.indices {
            guard let high = digit(hex[2 * index]), let low = digit(hex[2 * index + 1]) else {
                throw BenchError("a character that is not a hex digit at column \(2 * index + 1)")
            }
            bytes[index] = high << 4 | low
        }
        return Data(bytes)
    }

    private static func digit(_ c: UInt8) -> UInt8? {
        switch c {
        case UInt8(ascii: "0") ... UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "A") ... UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        case UInt8(ascii: "a") ... UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        default: return nil
        }
    }
}

/// The chunks' messages, written from several threads: each chunk's slot by one thread only, all of them
/// read once every thread has finished (`DispatchQueue.concurrentPerform` returns then).
final class ChunkResults: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<[ChatMessage]>
    private let count: Int

    init(count: Int) {
        self.count = count
        slots = .allocate(capacity: count)
        slots.initialize(repeating: [], count: count)
    }

    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }

    func set(_ chunk: Int, _ messages: [ChatMessage]) { slots[chunk] = messages }

    var all: [ChatMessage] { (0 ..< count).flatMap { slots[$0] } }
}
