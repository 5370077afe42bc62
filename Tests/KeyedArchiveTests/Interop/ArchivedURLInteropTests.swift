import Foundation
import Testing
@testable import KeyedArchive

/// NSURL archives against Foundation on Linux (its NSKeyedArchiver and NSKeyedUnarchiver, in-process) and
/// GNUstep (the oracle): an empty `NS.relative` with an `NS.base`, which both write and read as the base,
/// and the relative strings every platform refuses alike (see `ArchivedURLResolution`).
@Suite struct ArchivedURLInteropTests {
    static let base = URL(string: "https://example.com/base/page?q=1#top")!

    /// A keyed archive (XML) of one NSURL whose `NS.relative` is `relative` and whose `NS.base` is nil, as
    /// Foundation writes an absolute NSURL: both readers take `CF$UID` dictionaries as UIDs.
    static func archive(relative: String) -> Data {
        let escaped = relative.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
        return Data("""
            <?xml version="1.0" encoding="UTF-8"?>
            <plist version="1.0"><dict>
            <key>$archiver</key><string>NSKeyedArchiver</string>
            <key>$objects</key><array>
            <string>$null</string>
            <dict><key>$class</key><dict><key>CF$UID</key><integer>3</integer></dict>
            <key>NS.base</key><dict><key>CF$UID</key><integer>0</integer></dict>
            <key>NS.relative</key><dict><key>CF$UID</key><integer>2</integer></dict></dict>
            <string>\(escaped)</string>
            <dict><key>$classes</key><array><string>NSURL</string><string>NSObject</string></array>
            <key>$classname</key><string>NSURL</string></dict>
            </array>
            <key>$top</key><dict><key>root</key><dict><key>CF$UID</key><integer>1</integer></dict></dict>
            <key>$version</key><integer>100000</integer>
            </dict></plist>
            """.utf8)
    }

    /// Foundation's NSKeyedArchiver output for `NSURL(string: "", relativeTo: base)`.
    static func foundationEmptyRelativeArchive() throws -> Data {
        let url = try #require(NSURL(string: "", relativeTo: base))
        return try NSKeyedArchiver.archivedData(withRootObject: url, requiringSecureCoding: true)
    }

    static func ours(_ archive: Data) throws -> URL {
        let value = try KeyedUnarchiver().decode(FoundationValue.self, from: archive)
        guard case .url(let url) = value else {
            Issue.record("not a URL: \(value)")
            throw KeyedArchiveError(.typeMismatch, "not a URL")
        }
        return url
    }

    static func foundation(_ archive: Data) throws -> NSURL? {
        try NSKeyedUnarchiver.unarchivedObject(ofClass: NSURL.self, from: archive)
    }

    /// The `NS.relative` string of `archive`'s root NSURL and of its `NS.base` (nil where there is none).
    static func relativeStrings(_ archive: Data) throws -> (relative: String?, baseRelative: String?) {
        let top = try PropertyListValue(propertyListData: archive)
        let objects = try #require(top.dictionaryValue?["$objects"]?.arrayValue)
        func object(_ uid: PropertyListValue?) -> PropertyListDictionary? {
            guard let index = uid?.uidValue.map({ Int($0.value) }), index > 0, index < objects.count else { return nil }
            return objects[index].dictionaryValue
        }
        func string(_ uid: PropertyListValue?) -> String? {
            guard let index = uid?.uidValue.map({ Int($0.value) }), index < objects.count else { return nil }
            return objects[index].stringValue
        }
        let root = try #require(object(top.dictionaryValue?["$top"]?.dictionaryValue?["root"]))
        return (string(root["NS.relative"]), object(root["NS.base"]).flatMap { string($0["NS.relative"]) })
    }

    @Test func foundationWritesEmptyRelativeWithBase() throws {
        let layout = try Self.relativeStrings(try Self.foundationEmptyRelativeArchive())
        #expect(layout.relative == "")
        #expect(layout.baseRelative == Self.base.absoluteString)
    }

    @Test func emptyRelativeWithBaseReadsAsTheBase() throws {
        let archive = try Self.foundationEmptyRelativeArchive()
        let theirs = try #require(try Self.foundation(archive))
        let url = try Self.ours(archive)
        #expect(theirs.relativeString == "")
        #expect(url.absoluteString == theirs.absoluteString)
        #expect(url.absoluteString == Self.base.absoluteString)
        // The Swift URL Foundation on Linux bridges that NSURL to.
        #expect(url == theirs as URL)
    }

    @Test func emptyRelativeWithBaseRoundTripsThroughFoundation() throws {
        let url = try Self.ours(try Self.foundationEmptyRelativeArchive())
        let ours = try KeyedArchiver.archivedData(withRootObject: FoundationValue.url(url))
        let theirs = try #require(try Self.foundation(ours))
        #expect(theirs.absoluteString == Self.base.absoluteString)
        #expect(try Self.ours(ours) == url)
    }

    @Test(.enabled(if: GNUstepOracle.isAvailable, "GNUstep not installed"))
    func emptyRelativeWithBaseFromGNUstep() throws {
        let archive = try GNUstepOracle.encode("emptyRelativeURL")
        let url = try Self.ours(archive)
        // GNUstep's own reading of its archive: relative "", the base, and the base's absolute string.
        let base = GNUstepOracle.Description.url(Self.base)
        #expect(try GNUstepOracle.decode(archive)
            == "{\"NSURL\":{\"relative\":\"\",\"base\":\(base),\"absolute\":\(GNUstepOracle.Description.quoted(Self.base.absoluteString))}}")
        #expect(url.absoluteString == Self.base.absoluteString)
        // Ours, archived again, reads in GNUstep as the same absolute URL.
        #expect(try GNUstepOracle.decode(KeyedArchiver.archivedData(withRootObject: FoundationValue.url(url))) == base)
    }

    /// Relative strings every reader takes: what an NSURL holds, which is what Apple's archivers write.
    @Test(arguments: ["https://example.com/a?b=c#d", "docs/page.html", "a%20b", "mailto:x@example.com", "?q", "#f"])
    func validRelativeStringReadsAsFoundationReadsIt(_ relative: String) throws {
        let archive = Self.archive(relative: relative)
        let theirs = try #require(try Self.foundation(archive))
        #expect(try Self.ours(archive).absoluteString == theirs.absoluteString)
    }

    /// Relative strings that need percent-encoding: Foundation on Linux's NSKeyedUnarchiver refuses them (its
    /// NSURL parser does, as macOS 13's does), so we refuse them on every platform rather than encode them
    /// where the platform's `URL(string:)` would (Linux, macOS 14 and later).
    @Test(arguments: [("a b", 1), ("caf\u{E9}", 3), ("100%", 3), ("%zz", 0), ("a<b>", 1)])
    func relativeStringNeedingEncodingIsRefusedAsFoundationRefusesIt(_ relative: String, _ offset: Int) throws {
        let archive = Self.archive(relative: relative)
        #expect(throws: (any Error).self) { try Self.foundation(archive) }
        let error = try #require(throws: KeyedArchiveError.self) { try Self.ours(archive) }
        #expect(error.message.contains("does not allow at UTF-8 offset \(offset)"))
    }

    /// A string of allowed characters that Foundation's NSURL (CoreFoundation's parser) holds but Swift's `URL`
    /// parser refuses on Linux (and macOS 14 and later): no `URL` holds it, so we refuse it and say so.
    @Test func relativeStringURLCannotHoldIsRefused() throws {
        let archive = Self.archive(relative: "http://[::1")
        #expect(try Self.foundation(archive)?.absoluteString == "http://[::1")
        #expect(URL(string: "http://[::1") == nil)
        let error = try #require(throws: KeyedArchiveError.self) { try Self.ours(archive) }
        #expect(error.message.contains("\"http://[::1\" is not a valid URL"))
    }

    /// Foundation reads an empty NSURL here; no `URL` holds an empty string, so we refuse it and say why.
    @Test func emptyRelativeWithoutBaseIsRefused() throws {
        let archive = Self.archive(relative: "")
        #expect(try Self.foundation(archive)?.relativeString == "")
        let error = try #require(throws: KeyedArchiveError.self) { try Self.ours(archive) }
        #expect(error.message.contains("is empty and NSURL.NS.base is nil"))
    }
}
