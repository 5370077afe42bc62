import Foundation
import Testing
@testable import KeyedArchive

enum DTheme: String, ArchiveDefaultValue { case light, dark; static var archiveDefault: DTheme { .light } }
enum DDefaultFontSize: ArchiveDefaultProvider { static var archiveDefault: Double { 12 } }

/// Version 1 of a note, and version 2 with fields added; both have the same archived class name.
struct DNoteV1: ArchivableCodable, Equatable {
    static var archivedClassName: String { "DNote" }
    var title: String
}

struct DNoteV2: ArchivableCodable, Equatable {
    static var archivedClassName: String { "DNote" }
    var title: String
    @DefaultWhenMissing var tags: [String]
    @DefaultWhenMissing var pinned: Bool
    @DefaultWhenMissing var views: Int
    @DefaultWhenMissing var subtitle: String?
    @DefaultWhenMissing var theme: DTheme
    @DefaultWhenMissing var ratings: [String: Int]
    @DefaultFrom<DDefaultFontSize> var fontSize: Double
}

/// The same fields without wrappers: the bytes a wrapper must not change.
struct DNotePlain: ArchivableCodable, Equatable {
    static var archivedClassName: String { "DNote" }
    var title: String
    var tags: [String]
    var pinned: Bool
    var views: Int
    var subtitle: String?
    var theme: DTheme
    var ratings: [String: Int]
    var fontSize: Double
}

@Suite struct DefaultWhenMissingTests {
    @Test func oldArchiveReadsIntoTheNewModelWithDefaults() throws {
        let old = try KeyedArchiver.archivedData(withRootObject: DNoteV1(title: "old"))
        // Without the wrapper, the added fields are missing keys.
        #expect(throws: DecodingError.self) { try KeyedUnarchiver.unarchivedObject(ofClass: DNotePlain.self, from: old) }
        let note = try KeyedUnarchiver.unarchivedObject(ofClass: DNoteV2.self, from: old)
        #expect(note.title == "old")
        #expect(note.tags == [])
        #expect(note.pinned == false)
        #expect(note.views == 0)
        #expect(note.subtitle == nil)
        #expect(note.theme == .light)
        #expect(note.ratings == [:])
        #expect(note.fontSize == 12)
    }

    @Test func newModelRoundTripsEveryField() throws {
        let note = DNoteV2(title: "new", tags: ["a", "b"], pinned: true, views: 7, subtitle: "sub", theme: .dark,
                           ratings: ["x": 3], fontSize: 17.5)
        let back = try KeyedUnarchiver.unarchivedObject(ofClass: DNoteV2.self, from: KeyedArchiver.archivedData(withRootObject: note))
        #expect(back == note)
        var nilSubtitle = note
        nilSubtitle.subtitle = nil
        let backNil = try KeyedUnarchiver.unarchivedObject(ofClass: DNoteV2.self,
                                                           from: KeyedArchiver.archivedData(withRootObject: nilSubtitle))
        #expect(backNil == nilSubtitle)
    }

    @Test func wrapperWritesTheSameBytesAsThePlainFields() throws {
        let wrapped = DNoteV2(title: "t", tags: ["a"], pinned: true, views: 2, subtitle: nil, theme: .dark, ratings: ["k": 1], fontSize: 3)
        let plain = DNotePlain(title: "t", tags: ["a"], pinned: true, views: 2, subtitle: nil, theme: .dark, ratings: ["k": 1], fontSize: 3)
        #expect(try KeyedArchiver.archivedData(withRootObject: wrapped) == KeyedArchiver.archivedData(withRootObject: plain))
    }

    @Test func presentValueOfTheWrongTypeStillThrows() throws {
        let xml = String(decoding: try KeyedArchiver.archivedData(withRootObject: DNoteV2(title: "t", views: 2), format: .xml),
                         as: UTF8.self)
        // The title string moved under "views", an Int.
        let data = Data(xml.replacingOccurrences(of: "<key>views</key>", with: "<key>viewsOld</key>")
            .replacingOccurrences(of: "<key>title</key>", with: "<key>views</key>").utf8)
        #expect(throws: DecodingError.self) { try KeyedUnarchiver.unarchivedObject(ofClass: DNoteV2.self, from: data) }
    }

    @Test func worksWithJSONDecoderToo() throws {
        let note = try JSONDecoder().decode(DNoteV2.self, from: Data(#"{"title":"json","views":4}"#.utf8))
        #expect(note.title == "json")
        #expect(note.views == 4)
        #expect(note.tags == [])
        #expect(note.fontSize == 12)
        let back = try JSONDecoder().decode(DNoteV2.self, from: JSONEncoder().encode(note))
        #expect(back == note)
    }
}

extension DNoteV2 {
    init(title: String, tags: [String] = [], pinned: Bool = false, views: Int = 0, subtitle: String? = nil,
         theme: DTheme = .light, ratings: [String: Int] = [:], fontSize: Double = 12) {
        self.title = title
        self.tags = tags
        self.pinned = pinned
        self.views = views
        self.subtitle = subtitle
        self.theme = theme
        self.ratings = ratings
        self.fontSize = fontSize
    }
}

/// A ledger entry before and after a `Decimal` amount was added.
struct DLedgerEntryV1: ArchivableCodable { static var archivedClassName: String { "DLedgerEntry" }; var memo: String }
struct DLedgerEntryV2: ArchivableCodable {
    static var archivedClassName: String { "DLedgerEntry" }
    var memo: String
    @DefaultWhenMissing var amount: Decimal = 0
}

@Suite struct DefaultWhenMissingDecimalTests {
    @Test func anAddedDecimalFieldReadsZeroFromAnOldArchiveAndKeepsItsValueOtherwise() throws {
        let old = try KeyedArchiver.archivedData(withRootObject: DLedgerEntryV1(memo: "coffee"))
        let read = try KeyedUnarchiver.unarchivedObject(ofClass: DLedgerEntryV2.self, from: old)
        #expect(read.memo == "coffee")
        #expect(read.amount == 0)
        let amount = try #require(Decimal(string: "12.34"))
        let new = try KeyedArchiver.archivedData(withRootObject: DLedgerEntryV2(memo: "tea", amount: amount))
        let back = try KeyedUnarchiver.unarchivedObject(ofClass: DLedgerEntryV2.self, from: new)
        #expect(back.memo == "tea")
        #expect(back.amount == amount)
    }
}
