import Foundation
import KeyedArchive

/// Messages-app `attributedBody` values shaped like the real ones (the iMessage samples of the shared
/// corpus: an NSAttributedString whose runs carry `__kIM...AttributeName` keys), made deterministically so
/// that the benchmark needs no corpus: plain text with its message part, text with a writing direction,
/// attachments (an object-replacement character, a transfer GUID, a file name, the media size as reals),
/// links with a data-detector result (a keyed archive in an NSData, as 15 of the samples carry), text styles
/// over several runs, and mentions. Texts mix ASCII, accented letters and emoji (ranges count UTF-16 units).
enum AttributedBodySamples {
    static let words = ["the", "meeting", "tomorrow", "ok", "sounds", "good", "café", "naïve", "see", "you", "at", "lunch",
                        "😀", "👍🏽", "thanks", "running", "late", "can't", "wait", "dinner", "home", "photo", "weekend", "plan"]

    /// The `index`-th message (the same value for the same index in every process).
    static func message(_ index: Int) throws -> ArchivedAttributedString {
        var random = SampleSequence(seed: UInt64(index))
        let text = sentence(&random, words: 3 + Int(random.next() % 25))
        let part: FoundationValue = .integer(0)
        let direction: FoundationValue = .integer(-1)
        switch index % 10 {
        case 0, 1, 2, 3:
            return ArchivedAttributedString(string: text, attributes: ["__kIMMessagePartAttributeName": part])
        case 4:
            return ArchivedAttributedString(string: text, attributes: ["__kIMBaseWritingDirectionAttributeName": direction,
                                                                       "__kIMMessagePartAttributeName": part])
        case 5:
            let replacement = "\u{FFFC}"
            return try ArchivedAttributedString(string: replacement + text, runs: [
                .init(range: 0 ..< 1, attributes: [
                    "__kIMFileTransferGUIDAttributeName": .string("at_0_\(uuid(&random))"),
                    "__kIMFilenameAttributeName": .string("Messages Image(\(random.next() % 1_000_000_000)).png"),
                    "__kIMInlineMediaWidthAttributeName": .real(Double(random.next() % 2000)),
                    "__kIMInlineMediaHeightAttributeName": .real(Double(random.next() % 2000)),
                    "__kIMBaseWritingDirectionAttributeName": direction, "__kIMMessagePartAttributeName": part,
                ]),
                .init(range: 1 ..< 1 + text.utf16.count, attributes: ["__kIMBaseWritingDirectionAttributeName": direction,
                                                                      "__kIMMessagePartAttributeName": .integer(1)]),
            ])
        case 6:
            let url = "https://example.com/\(random.next() % 100_000)/status/\(random.next())"
            guard let link = URL(string: url) else { throw BenchError("unreadable generated URL \(url)") }
            let detected = try KeyedArchiver.archivedData(withRootObject: FoundationValue.dictionary([
                .string("type"): .string("Link"), .string("value"): .string(url),
                .string("range"): .array([.integer(0), .integer(PropertyListInteger(Int64(url.utf16.count)))]),
            ]))
            return ArchivedAttributedString(string: url, attributes: [
                "__kIMLinkAttributeName": .url(link), "__kIMDataDetectedAttributeName": .data(detected),
                "__kIMBaseWritingDirectionAttributeName": direction, "__kIMMessagePartAttributeName": part,
            ])
        case 7, 8:
            let second = sentence(&random, words: 2 + Int(random.next() % 4)), third = sentence(&random, words: 3)
            let a = text.utf16.count, b = a + 1 + second.utf16.count, c = b + 1 + third.utf16.count
            return try ArchivedAttributedString(string: "\(text) \(second) \(third)", runs: [
                .init(range: 0 ..< a + 1, attributes: ["__kIMMessagePartAttributeName": part]),
                .init(range: a + 1 ..< b, attributes: ["__kIMMessagePartAttributeName": part, "__kIMTextBoldAttributeName": .integer(1),
                                                       "__kIMTextUnderlineAttributeName": .integer(1)]),
                .init(range: b ..< c, attributes: ["__kIMMessagePartAttributeName": part, "__kIMTextEffectAttributeName": .integer(10)]),
            ])
        default:
            let name = "Alex", rest = " " + text
            return try ArchivedAttributedString(string: name + rest, runs: [
                .init(range: 0 ..< name.utf16.count, attributes: ["__kIMMentionConfirmedMention": .string("+1555\(1_000_000 + random.next() % 8_999_999)"),
                                                                  "__kIMMessagePartAttributeName": part]),
                .init(range: name.utf16.count ..< (name + rest).utf16.count, attributes: ["__kIMMessagePartAttributeName": part]),
            ])
        }
    }

    /// `count` messages' typedstream blobs, as the Messages app stores them (one archive per message).
    static func typedstreamBlobs(count: Int) throws -> [Data] {
        try (0 ..< count).map { try TypedstreamArchiver().archivedData(withRootValue: .attributedString(message($0))) }
    }

    /// The same messages as keyed archives (`NSKeyedArchiver` of each NSAttributedString).
    static func keyedBlobs(count: Int) throws -> [Data] {
        try (0 ..< count).map { try KeyedArchiver.archivedData(withRootObject: FoundationValue.attributedString(message($0))) }
    }

    /// One archive of an NSArray of `count` messages, in each format.
    static func largeArchives(count: Int) throws -> (typedstream: Data, keyed: Data) {
        let root = FoundationValue.array(try (0 ..< count).map { .attributedString(try message($0)) })
        return (try TypedstreamArchiver().archivedData(withRootValue: root), try KeyedArchiver.archivedData(withRootObject: root))
    }

    /// Blobs as `sqlite3 chat.db "select hex(attributedBody) from message"` prints them: one line of
    /// upper-case hex per blob.
    static func hexLines(_ blobs: [Data]) -> Data {
        let digits = Array("0123456789ABCDEF".utf8)
        var text = [UInt8]()
        text.reserveCapacity(blobs.reduce(0) { $0 + 2 * $1.count + 1 })
        for blob in blobs {
            for byte in blob {
                text.append(digits[Int(byte >> 4)])
                text.append(digits[Int(byte & 0xF)])
            }
            text.append(UInt8(ascii: "\n"))
        }
        return Data(text)
    }

    private static func sentence(_ random: inout SampleSequence, words count: Int) -> String {
        (0 ..< count).map { _ in words[Int(random.next() % UInt64(words.count))] }.joined(separator: " ")
    }

    private static func uuid(_ random: inout SampleSequence) -> String {
        let hex = String(format: "%016llX%016llX", random.next(), random.next())
        let c = Array(hex)
        return [c[0 ..< 8], c[8 ..< 12], c[12 ..< 16], c[16 ..< 20], c[20 ..< 32]].map { String($0) }.joined(separator: "-")
    }
}

/// A deterministic sequence (Knuth's MMIX linear congruential generator, its high bits), so that every
/// process makes the same samples.
struct SampleSequence {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return state >> 16
    }
}
