import Foundation
import Testing
@testable import KeyedArchive

/// A Codable model with FNote's archived name and keys (see InteropTests.swift): no hand-written coding.
final class CodableNote: ArchivableCodable {
    static var archivedClassName: String { "KeyedArchiveTests.FNote" }
    var title: String, count: Int, score: Double, ratio: Float, flag: Bool
    var created: Date, id: UUID, link: URL
    var tags: [String], counts: [String: Int], members: Set<String>, blob: Data
    var children: [CodableNote]

    init(matching f: FNote) {
        title = f.title; count = f.count; score = f.score; ratio = f.ratio; flag = f.flag
        created = f.created; id = f.id; link = f.link; tags = f.tags; counts = f.counts; members = f.members
        blob = f.blob; children = f.children.map(CodableNote.init(matching:))
    }

    /// Every field compared with Foundation's object, recursively.
    func differences(from f: FNote) -> [String] {
        var diffs: [String] = []
        func check<T: Equatable>(_ name: String, _ a: T, _ b: T) { if a != b { diffs.append("\(name): \(a) vs \(b)") } }
        check("title", title, f.title); check("count", count, f.count); check("score", score, f.score)
        check("ratio", ratio, f.ratio); check("flag", flag, f.flag); check("created", created, f.created)
        check("id", id, f.id); check("link", link.absoluteString, f.link.absoluteString); check("tags", tags, f.tags)
        check("counts", counts, f.counts); check("members", members, f.members); check("blob", blob, f.blob)
        check("children.count", children.count, f.children.count)
        for (a, b) in zip(children, f.children) { diffs += a.differences(from: b) }
        return diffs
    }
}

/// What Apple's overlay does for `encodeEncodable`/`decodeDecodable`, done by hand with corelibs Foundation
/// (which lacks those calls): the value as PropertyListEncoder's top-level objects, encoded as objects.
final class FSettingsHolder: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    var settings: EncodableSubtreeTests.Settings?
    init(settings: EncodableSubtreeTests.Settings?) { self.settings = settings }

    func encode(with coder: NSCoder) {
        guard let settings, let data = try? PropertyListEncoder().encode(settings),
              let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) else { return }
        coder.encode(plist, forKey: "settings")
    }

    init?(coder: NSCoder) {
        let classes: [AnyClass] = [NSArray.self, NSData.self, NSDate.self, NSDictionary.self, NSNumber.self, NSString.self]
        if let plist = coder.decodeObject(of: classes, forKey: "settings"),
           let data = try? PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0) {
            settings = try? PropertyListDecoder().decode(EncodableSubtreeTests.Settings.self, from: data)
        }
    }
}

/// Our side of FSettingsHolder.
final class SettingsHolder: KeyedArchivable {
    static var archivedClassName: String { "KeyedArchiveTests.FSettingsHolder" }
    var settings: EncodableSubtreeTests.Settings?
    init(settings: EncodableSubtreeTests.Settings?) { self.settings = settings }
    init(from decoder: any ArchiveDecoder) throws {
        settings = try decoder.decodeDecodable(EncodableSubtreeTests.Settings.self, forKey: "settings")
    }
    func encode(to encoder: any ArchiveEncoder) throws {
        if let settings { try encoder.encodeEncodable(settings, forKey: "settings") }
    }
}

@Suite struct CodableInteropTests {
    @Test
    func foundationReadsOurArchiveOfACodableModel() throws {
        let original = InteropTests.sample()
        let data = try KeyedArchiver.archivedData(withRootObject: CodableNote(matching: original))
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: FNote.self, from: data))
        #expect(CodableNote(matching: decoded).differences(from: original) == [])
        #expect(decoded.children.count == 2)
    }

    @Test
    func codableModelReadsFoundationsArchive() throws {
        let original = InteropTests.sample()
        let data = try NSKeyedArchiver.archivedData(withRootObject: original, requiringSecureCoding: true)
        let note = try KeyedUnarchiver.unarchivedObject(ofClass: CodableNote.self, from: data)
        #expect(note.differences(from: original) == [])
    }

    @Test
    func encodableSubtreesReadBothWays() throws {
        let sample = EncodableSubtreeTests.sample
        let ours = try KeyedArchiver.archivedData(withRootObject: SettingsHolder(settings: sample))
        let theirsBack = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: FSettingsHolder.self, from: ours))
        #expect(theirsBack.settings == sample)

        let theirs = try NSKeyedArchiver.archivedData(withRootObject: FSettingsHolder(settings: sample), requiringSecureCoding: true)
        let oursBack = try KeyedUnarchiver.unarchivedObject(ofClass: SettingsHolder.self, from: theirs)
        #expect(oursBack.settings == sample)
    }
}
