import Foundation
import Testing
@testable import KeyedArchive
import KeyedArchiveTestSupport

/// `$top` is the archiver's own container: a scalar encoded straight on the archiver (`encode(true, forKey:)`,
/// integers, reals, `encodeInline` bytes) is inline there and an object is a UID, as Foundation on Linux and
/// GNUstep write them, so that `decodeBool(forKey:)`, `decodeInteger(forKey:)`... read it. The root of
/// `archivedData(withRootObject:)` stays an object, as Apple's `encodeObject(_:forKey:)` writes it.
@Suite struct TopLevelScalarArchivingTests {
    typealias Fields = SystemFieldsArchive
    typealias Description = GNUstepOracle.Description

    /// The calls `SystemFieldsArchive.foundation()` makes on Foundation's archiver, made on ours, with
    /// `zone` under `ZoneID`.
    static func systemFields(zone: some KeyedArchivable) throws -> KeyedArchiver {
        let archiver = KeyedArchiver()
        try archiver.encode(Fields.isZoneWide, forKey: "isZoneWide")
        try archiver.encode(Fields.wasCached, forKey: "wasCached")
        try archiver.encode(Fields.changeTag, forKey: "changeTag")
        try archiver.encode(Fields.version, forKey: "version")
        try archiver.encode(Fields.ratio, forKey: "ratio")
        try archiver.encodeInline(Data(Fields.etag), forKey: "etag")
        try archiver.encode(Fields.recordName, forKey: "RecordName")
        try archiver.encode(Fields.modificationDate, forKey: "ModificationDate")
        try archiver.encodeObject(zone, forKey: "ZoneID")
        return archiver
    }

    /// The zone ID under the class name Foundation on Linux writes for ``SystemFieldsZoneID``.
    static let zone = InlineTopValueTests.ZoneID(zoneName: Fields.zone.zoneName, ownerName: Fields.zone.ownerName)

    /// The zone ID as GNUstep's `encode-top` mode writes it (a `KATestModel`).
    static func gnustepZone() -> GNUstepTestModel {
        GNUstepTestModel(title: "zone", count: 3, ratio: 0.5, flag: true, items: [.string("a")])
    }

    static func top(_ archive: PropertyListValue) throws -> PropertyListDictionary {
        try #require(archive.dictionaryValue?["$top"]?.dictionaryValue)
    }

    /// Checks that `actual`'s `$top` is stored as `expected`'s: the same keys, each inline on both sides with
    /// the same value or a UID on both sides to objects of the same structure (``ArchiveStructure``).
    static func expectSameTop(expected: PropertyListValue, actual: PropertyListValue,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(ArchiveStructure.differences(expected: expected, actual: actual) == [], sourceLocation: sourceLocation)
        let (expectedTop, actualTop) = (try top(expected), try top(actual))
        #expect(Set(actualTop.keys) == Set(expectedTop.keys), sourceLocation: sourceLocation)
        for (key, value) in expectedTop {
            if case .uid = value { continue }
            #expect(actualTop[key] == value, "$top.\(key)", sourceLocation: sourceLocation)
        }
    }

    @Test func systemFieldsTopIsStoredAsFoundationStoresIt() throws {
        let ours = try Self.systemFields(zone: Self.zone).encodedPropertyList()
        let foundation = try PropertyListValue(propertyListData: Fields.foundation())
        try Self.expectSameTop(expected: foundation, actual: ours)
        let top = try Self.top(ours)
        #expect(top["isZoneWide"] == .bool(true))
        #expect(top["changeTag"] == .integer(PropertyListInteger(Fields.changeTag)))
        #expect(top["etag"] == .data(Data(Fields.etag)))
    }

    @Test func eachTypedScalarCallIsInlineAndEachObjectCallAUIDAsInFoundation() throws {
        let theirs = NSKeyedArchiver(requiringSecureCoding: true)
        theirs.encode(true, forKey: "bool")
        theirs.encode(-5, forKey: "int")
        theirs.encode(Int32.min, forKey: "int32")
        theirs.encode(Int64.max, forKey: "int64")
        theirs.encode(Float(1.5), forKey: "float")
        theirs.encode(3.5, forKey: "double")
        [UInt8(0), 0xFF].withUnsafeBufferPointer { theirs.encodeBytes($0.baseAddress, length: $0.count, forKey: "bytes") }
        theirs.encode(NSNumber(value: 42), forKey: "integerObject")
        theirs.encode(NSNumber(value: true), forKey: "boolObject")
        theirs.encode(NSNumber(value: 0.5), forKey: "realObject")
        theirs.encode("s" as NSString, forKey: "string")
        theirs.encode(Data([1, 2]) as NSData, forKey: "data")
        theirs.finishEncoding()

        let ours = KeyedArchiver()
        try ours.encode(true, forKey: "bool")
        try ours.encode(-5, forKey: "int")
        try ours.encode(Int32.min, forKey: "int32")
        try ours.encode(Int64.max, forKey: "int64")
        try ours.encode(Float(1.5), forKey: "float")
        try ours.encode(3.5, forKey: "double")
        try ours.encodeInline(Data([0, 0xFF]), forKey: "bytes")
        try ours.encodeIntegerObject(42, forKey: "integerObject")
        try ours.encodeBoolObject(true, forKey: "boolObject")
        try ours.encodeRealObject(0.5, forKey: "realObject")
        try ours.encode("s", forKey: "string")
        try ours.encode(Data([1, 2]), forKey: "data")

        let foundation = try PropertyListValue(propertyListData: theirs.encodedData)
        let tree = try ours.encodedPropertyList()
        try Self.expectSameTop(expected: foundation, actual: tree)
        let top = try Self.top(foundation)
        for key in ["bool", "int", "int32", "int64", "float", "double", "bytes"] {
            if case .uid? = top[key] { Issue.record("Foundation wrote $top.\(key) as a UID") }
        }
        for key in ["integerObject", "boolObject", "realObject", "string", "data"] {
            guard case .uid? = top[key] else { Issue.record("Foundation wrote $top.\(key) inline"); continue }
        }
        // The objects referenced have Foundation's values too.
        let objects = try #require(tree.dictionaryValue?["$objects"]?.arrayValue)
        func object(_ key: String) throws -> PropertyListValue? {
            guard case .uid(let uid)? = try Self.top(tree)[key] else { return nil }
            return objects.indices.contains(Int(uid.value)) ? objects[Int(uid.value)] : nil
        }
        #expect(try object("integerObject") == .integer(42))
        #expect(try object("boolObject") == .bool(true))
        #expect(try object("realObject") == .real(0.5))
    }

    @Test func everyIntegerWidthOnTheArchiverIsInlineAndReadsBack() throws {
        func expectInlineAndReadBack<T: FixedWidthInteger & ArchiveValue>(_ value: T) throws {
            let archiver = KeyedArchiver()
            try archiver.encode(value, forKey: "n")
            let stored = try Self.top(archiver.encodedPropertyList())["n"]
            #expect(stored == PropertyListInteger(exactly: value).map(PropertyListValue.integer), "\(T.self)")
            #expect(try KeyedUnarchiver().decode(T.self, forKey: "n", from: archiver.encodedData()) == value, "\(T.self)")
        }
        try expectInlineAndReadBack(Int8.min)
        try expectInlineAndReadBack(Int16.max)
        try expectInlineAndReadBack(UInt8.max)
        try expectInlineAndReadBack(UInt16.max)
        try expectInlineAndReadBack(UInt32.max)
        try expectInlineAndReadBack(UInt64.max)
        try expectInlineAndReadBack(UInt(7))
    }

    @Test func ourSystemFieldsReadBackKeyByKeyInEveryReader() throws {
        for format in [PropertyListFormat.binary, .xml] {
            let data = try Self.systemFields(zone: Self.zone).encodedData(format: format)
            try InlineTopValueTests().expectSystemFields(data) { top throws in
                #expect(try top.decodeObject(of: InlineTopValueTests.ZoneID.self, forKey: "ZoneID") == Self.zone)
            }
        }
    }

    @Test func foundationReadsOurTopLevelScalarsWithTheTypedCalls() throws {
        for format in [PropertyListFormat.binary, .xml] {
            let data = try Self.systemFields(zone: Self.zone).encodedData(format: format)
            let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
            unarchiver.requiresSecureCoding = false
            #expect(unarchiver.decodeBool(forKey: "isZoneWide") == Fields.isZoneWide, "\(format)")
            #expect(unarchiver.decodeBool(forKey: "wasCached") == Fields.wasCached, "\(format)")
            #expect(unarchiver.decodeInt64(forKey: "changeTag") == Fields.changeTag, "\(format)")
            #expect(unarchiver.decodeInteger(forKey: "changeTag") == Int(Fields.changeTag), "\(format)")
            #expect(unarchiver.decodeInt32(forKey: "version") == Fields.version, "\(format)")
            #expect(unarchiver.decodeDouble(forKey: "ratio") == Fields.ratio, "\(format)")
            // encodeBytes' reader (corelibs names it withDecodedUnsafeBufferPointer; Darwin's decodeBytes(forKey:returnedLength:)).
            let etag = unarchiver.withDecodedUnsafeBufferPointer(forKey: "etag") { $0.map(Array.init) }
            #expect(etag == Fields.etag, "\(format)")
            #expect(unarchiver.decodeObject(forKey: "RecordName") as? String == Fields.recordName, "\(format)")
            #expect(unarchiver.decodeObject(forKey: "ModificationDate") as? Date == Fields.modificationDate, "\(format)")
            let zone = unarchiver.decodeObject(forKey: "ZoneID") as? SystemFieldsZoneID
            #expect(zone?.zoneName == Fields.zone.zoneName, "\(format)")
            #expect(zone?.ownerName == Fields.zone.ownerName, "\(format)")
            unarchiver.finishDecoding()
        }
    }

    @Test(.enabled(if: GNUstepOracle.isAvailable, "GNUstep not installed (apt-get install gobjc libgnustep-base-dev gnustep-base-runtime)"))
    func gnustepReadsOurTopLevelScalarsWithTheTypedCalls() throws {
        let expected = [
            "isZoneWide=1", "wasCached=0", "changeTag=\(Fields.changeTag)", "version=\(Fields.version)",
            "ratio=\(Description.real(Fields.ratio))", "etag=0001fe",
            "RecordName=\(Description.string(Fields.recordName))",
            "ModificationDate=\(Description.date(Fields.modificationDate))",
            "ZoneID=" + Description.model(id: 1, title: "zone", count: 3, ratio: 0.5, flag: true, child: nil,
                                          items: Description.array([Description.string("a")])),
        ]
        // GNUstep's own archive of the same calls reads back so: the oracle's reading mode is sound.
        #expect(try GNUstepOracle.decodeSystemFields(GNUstepOracle.encodeSystemFields()) == expected)
        for format in [PropertyListFormat.binary, .xml] {
            let ours = try Self.systemFields(zone: Self.gnustepZone()).encodedData(format: format)
            #expect(try GNUstepOracle.decodeSystemFields(ours) == expected, "\(format)")
        }
    }

    @Test func topLevelTypedReadsAcceptTheUIDFormToo() throws {
        // The UID form: what the `...Object` calls write, and what earlier versions of this archiver wrote
        // for every scalar on the archiver.
        let archiver = KeyedArchiver()
        try archiver.encodeBoolObject(true, forKey: "flag")
        try archiver.encodeIntegerObject(Int64(-9), forKey: "count")
        try archiver.encodeRealObject(0.25, forKey: "ratio")
        let top = try Self.top(archiver.encodedPropertyList())
        for key in ["flag", "count", "ratio"] {
            guard case .uid? = top[key] else { Issue.record("$top.\(key) is \(String(describing: top[key]))"); continue }
        }
        let data = try archiver.encodedData()
        try KeyedUnarchiver().withTopLevelDecoder(data) { top throws in
            #expect(try top.decode(Bool.self, forKey: "flag") == true)
            #expect(try top.decode(Int64.self, forKey: "count") == -9)
            #expect(try top.decode(Int.self, forKey: "count") == -9)
            #expect(try top.decode(Double.self, forKey: "ratio") == 0.25)
        }
        #expect(try KeyedUnarchiver().decode(Bool.self, forKey: "flag", from: data) == true)
    }

    @Test func aScalarRootIsAnObjectAndTheTopLevelAfterItInline() throws {
        // archivedData(withRootObject:) writes its root as an object; an optional root that is nil is UID 0.
        let root = try Self.top(KeyedArchiver.archivedPropertyList(withRootObject: 42))
        guard case .uid(let uid)? = root["root"] else { Issue.record("root is \(String(describing: root["root"]))"); return }
        #expect(uid.value != 0)
        let configured = try PropertyListValue(propertyListData: KeyedArchiver.archivedData(
            withRootObject: true, configuration: KeyedArchiver.Configuration(outputFormat: .xml)))
        guard case .uid? = try Self.top(configured)["root"] else { Issue.record("configured root is not a UID"); return }
        let none = try Self.top(KeyedArchiver.archivedPropertyList(withRootObject: Int?.none))
        #expect(none["root"] == .uid(UID(0)))
        // Encoding a root leaves the archiver writing later scalars inline.
        let archiver = KeyedArchiver()
        try archiver.encodeRootObject(7, forKey: "root")
        try archiver.encode(8, forKey: "next")
        let top = try Self.top(archiver.encodedPropertyList())
        guard case .uid? = top["root"] else { Issue.record("root is \(String(describing: top["root"]))"); return }
        #expect(top["next"] == .integer(8))
    }
}
