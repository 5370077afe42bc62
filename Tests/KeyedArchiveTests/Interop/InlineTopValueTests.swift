import Foundation
import Testing
@testable import KeyedArchive
import KeyedArchiveTestSupport

/// `$top` is the archiver's own top-level container: scalars a program encodes straight into the archiver
/// are inline there, objects are UIDs. Apple's compiled nibs (corpus/inline-top), Foundation on Linux and
/// GNUstep all write such archives; every reader opens them, and the top-level decoder reads each key with
/// the typed calls.
@Suite struct InlineTopValueTests {
    /// The Swift side of ``SystemFieldsZoneID``.
    struct ZoneID: KeyedArchivable, Equatable {
        static var archivedClassName: String { SystemFieldsZoneID.archivedName }
        var zoneName: String
        var ownerName: String
        init(zoneName: String, ownerName: String) {
            self.zoneName = zoneName
            self.ownerName = ownerName
        }
        init(from decoder: any ArchiveDecoder) throws {
            zoneName = try decoder.decode(String.self, forKey: "ZoneName")
            ownerName = try decoder.decode(String.self, forKey: "OwnerName")
        }
        func encode(to encoder: any ArchiveEncoder) throws {
            try encoder.encode(zoneName, forKey: "ZoneName")
            try encoder.encode(ownerName, forKey: "OwnerName")
        }
    }

    /// Opens `data` in every reader of the raw model and checks they agree on `$top`; returns it.
    @discardableResult
    func topInEveryReader(_ data: Data, sourceLocation: SourceLocation = #_sourceLocation) throws -> [ArchivedField] {
        let eager = try ArchivedObjectGraph(data: data)
        let onDemand = try ArchivedObjectGraph(onDemand: data)
        let lazy = try LazyArchivedObjectGraph(data: data)
        #expect(onDemand == eager, sourceLocation: sourceLocation)
        #expect(lazy.top == eager.top, sourceLocation: sourceLocation)
        #expect(try lazy.loadGraph() == eager, sourceLocation: sourceLocation)
        for uid in eager.uids {
            #expect(try lazy.object(uid) == eager.object(uid), sourceLocation: sourceLocation)
        }
        return eager.top
    }

    @Test(.requiresCorpus) func compiledNibsWithAnInlineTopIntegerOpenEverywhere() throws {
        let files = Corpus.files().filter { $0.hasPrefix("inline-top/") }
        #expect(files.count == 20)
        for file in files {
            let data = try Corpus.data(file)
            let top = try topInEveryReader(data)
            #expect(top.first { $0.key == "IB.systemFontUpdateVersion" }?.value == .value(.integer(1)), "\(file)")
            let objectData = try #require(top.first { $0.key == "IB.objectdata" }?.value.referenceUID, "\(file)")
            #expect(try ArchivedObjectGraph(data: data).className(of: objectData) == "NSIBObjectData", "\(file)")
            let version = try KeyedUnarchiver().withTopLevelDecoder(data) {
                try $0.decode(Int.self, forKey: "IB.systemFontUpdateVersion")
            }
            #expect(version == 1, "\(file)")
        }
    }

    /// `$top` as stored.
    func storedTop(_ data: Data) throws -> PropertyListDictionary {
        guard case .dictionary(let root) = try PropertyListValue(propertyListData: data),
              case .dictionary(let top)? = root["$top"] else { throw KeyedArchiveError(.invalidArchive, "no $top") }
        return top
    }

    /// Reads every key of a system-fields archive with the typed top-level calls.
    func expectSystemFields(_ data: Data, zone expectedZone: (any ArchiveDecoder) throws -> Void) throws {
        typealias S = SystemFieldsArchive
        try KeyedUnarchiver().withTopLevelDecoder(data) { top in
            #expect(try top.decode(Bool.self, forKey: "isZoneWide") == S.isZoneWide)
            #expect(try top.decode(Bool.self, forKey: "wasCached") == S.wasCached)
            #expect(try top.decode(Int64.self, forKey: "changeTag") == S.changeTag)
            #expect(try top.decode(Int32.self, forKey: "version") == S.version)
            #expect(try top.decode(Double.self, forKey: "ratio") == S.ratio)
            #expect(try top.decode(Data.self, forKey: "etag") == Data(S.etag))
            #expect(try top.decode(String.self, forKey: "RecordName") == S.recordName)
            #expect(try top.decode(Date.self, forKey: "ModificationDate") == S.modificationDate)
            #expect(top.containsValue(forKey: "isZoneWide"))
            #expect(!top.containsValue(forKey: "absent"))
            try expectedZone(top)
        }
        let top = try topInEveryReader(data)
        for field in top {
            if S.inlineKeys.contains(field.key) {
                guard case .value = field.value else { Issue.record("\(field.key) is not inline: \(field.value)"); continue }
            } else {
                #expect(field.value.referenceUID != nil, "\(field.key)")
            }
        }
        #expect(Set(top.map(\.key)) == S.inlineKeys.union(S.objectKeys))
    }

    @Test func foundationSystemFieldsReadBackKeyByKey() throws {
        let data = SystemFieldsArchive.foundation()
        // Foundation on Linux writes the scalars inline in $top, as Apple's archiver does.
        let top = try storedTop(data)
        #expect(top["isZoneWide"] == .bool(true))
        #expect(top["changeTag"] == .integer(PropertyListInteger(SystemFieldsArchive.changeTag)))
        try expectSystemFields(data) { top in
            let zone = try top.decodeObject(of: ZoneID.self, forKey: "ZoneID")
            #expect(zone.zoneName == SystemFieldsArchive.zone.zoneName)
            #expect(zone.ownerName == SystemFieldsArchive.zone.ownerName)
        }
    }

    @Test(.enabled(if: GNUstepOracle.isAvailable, "GNUstep not installed (apt-get install gobjc libgnustep-base-dev gnustep-base-runtime)"))
    func gnustepSystemFieldsReadBackKeyByKey() throws {
        let data = try GNUstepOracle.encodeSystemFields()
        #expect(try storedTop(data)["wasCached"] == .bool(false))
        try expectSystemFields(data) { top in
            let zone = try top.decodeObject(of: GNUstepTestModel.self, forKey: "ZoneID")
            #expect(zone.title == "zone")
            #expect(zone.count == 3)
            #expect(zone.items == [.string("a")])
        }
    }

    @Test func foundationWritesAnInlineArrayOfUIDsInTopAndItIsAccepted() throws {
        // NSArray.encode(with:) called on the archiver itself writes NS.objects, an inline array of UIDs, into $top.
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        NSArray(array: ["x", "y"]).encode(with: archiver)
        archiver.finishEncoding()
        let data = archiver.encodedData
        let top = try topInEveryReader(data)
        let list = try #require(top.first { $0.key == "NS.objects" }?.value)
        guard case .array(let items) = list else { Issue.record("NS.objects is \(list)"); return }
        #expect(items.count == 2)
        #expect(items.allSatisfy { $0.referenceUID != nil })
    }

    @Test func anObjectDecodedFromAnInlineTopValueIsAnErrorNamingTheKey() throws {
        let archive = ArchiveFixture.archive(top: ["root": 42, "name": .uid(UID(1))], ["$null", "hello"])
        let data = BinaryPropertyListWriter().write(archive)
        // The archive itself is valid: the inline integer is read as an integer.
        #expect(try KeyedUnarchiver().decode(Int.self, forKey: "root", from: data) == 42)
        _ = try ArchivedObjectGraph(data: data)
        // Asked for as an object, it is an error that names the key.
        let error = try #require(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver().withTopLevelDecoder(data) { try $0.decodeObject(of: ZoneID.self, forKey: "root") }
        }
        #expect(error.keyPath == "root")
        #expect(error.code == .typeMismatch)
        #expect(error.message == "expected a reference to ZoneID (\(ZoneID.archivedClassName)), found an inline integer")
        let model = try #require(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver().decodeObject(ofTypes: [ZoneID.self], from: data)
        }
        #expect(model.keyPath == "root")
        #expect(model.message == error.message)
    }

    @Test func aUIDOutOfRangeInsideAnInlineTopContainerIsRejectedOnEveryPath() throws {
        let archive = ArchiveFixture.archive(top: ["NS.objects": [.uid(UID(1)), .uid(UID(9))]], ["$null", "hello"])
        let data = BinaryPropertyListWriter().write(archive)
        var errors: [KeyedArchiveError] = []
        for read in [{ _ = try ArchivedObjectGraph(data: data) }, { _ = try LazyArchivedObjectGraph(data: data) },
                     { _ = try KeyedUnarchiver().withTopLevelDecoder(data) { _ in 0 } }] {
            errors.append(try #require(throws: KeyedArchiveError.self, performing: read))
        }
        for error in errors {
            #expect(error.code == .invalidReference)
            #expect(error.message == "UID 9 is out of range: $objects has 2 entries")
            #expect(error.keyPath == "$top.NS.objects[1]")
            #expect(error.objectUID == nil)
        }
    }
}
