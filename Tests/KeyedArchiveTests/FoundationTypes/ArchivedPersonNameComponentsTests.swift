import Foundation
import Testing
@testable import KeyedArchive

@Suite struct ArchivedPersonNameComponentsTests {
    static let full = ArchivedPersonNameComponents(namePrefix: "Dr.", givenName: "Ada", middleName: "Augusta", familyName: "Lovelace",
                                                   nameSuffix: "Jr.", nickname: "Addy",
                                                   phoneticRepresentation: ArchivedPersonNameComponents(givenName: "エイダ", familyName: "ラブレス"))

    static func expectSameParts(_ ours: ArchivedPersonNameComponents, _ theirs: PersonNameComponents, _ comment: Comment? = nil) {
        #expect(ours.namePrefix == theirs.namePrefix, comment)
        #expect(ours.givenName == theirs.givenName, comment)
        #expect(ours.middleName == theirs.middleName, comment)
        #expect(ours.familyName == theirs.familyName, comment)
        #expect(ours.nameSuffix == theirs.nameSuffix, comment)
        #expect(ours.nickname == theirs.nickname, comment)
    }

    static func foundationValue(_ ours: ArchivedPersonNameComponents) -> PersonNameComponents {
        var c = PersonNameComponents()
        c.namePrefix = ours.namePrefix; c.givenName = ours.givenName; c.middleName = ours.middleName
        c.familyName = ours.familyName; c.nameSuffix = ours.nameSuffix; c.nickname = ours.nickname
        return c
    }

    @Test func personNameComponentsRoundTrip() throws {
        for value in [Self.full, ArchivedPersonNameComponents(), ArchivedPersonNameComponents(familyName: "")] {
            let back = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedPersonNameComponents.self,
                                                            from: KeyedArchiver.archivedData(withRootObject: value))
            #expect(back.namePrefix == value.namePrefix && back.givenName == value.givenName && back.middleName == value.middleName)
            #expect(back.familyName == value.familyName && back.nameSuffix == value.nameSuffix && back.nickname == value.nickname)
            #expect(back.phoneticRepresentation == value.phoneticRepresentation)
            #expect(back == value)
            #expect(try JSONDecoder().decode(ArchivedPersonNameComponents.self, from: JSONEncoder().encode(value)) == value)
        }
        #expect(Self.full.description == "NSPersonNameComponents Dr. Ada Augusta Lovelace Jr. (Addy)")
        #expect(ArchivedPersonNameComponents().description == "NSPersonNameComponents")
    }

    @Test func foundationAndWeReadEachOthersPersonNameComponents() throws {
        let values = [ArchivedPersonNameComponents(namePrefix: "Dr.", givenName: "Ada", middleName: "Augusta", familyName: "Lovelace",
                                                   nameSuffix: "Jr.", nickname: "Addy"),
                      ArchivedPersonNameComponents(givenName: "Grace"), ArchivedPersonNameComponents()]
        for value in values {
            let theirs = try NSKeyedArchiver.archivedData(withRootObject: Self.foundationValue(value) as NSPersonNameComponents,
                                                          requiringSecureCoding: true)
            let read = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedPersonNameComponents.self, from: theirs)
            #expect(read == value, "\(value)")
            let ours = try KeyedArchiver.archivedData(withRootObject: value)
            // The same keys, each a UID to a string or to $null, as Foundation on Linux writes them.
            #expect(try ArchiveStructure.differences(expected: PropertyListValue(propertyListData: theirs),
                                                     actual: PropertyListValue(propertyListData: ours)) == [], "\(value)")
            let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSPersonNameComponents.self, from: ours))
            Self.expectSameParts(value, decoded as PersonNameComponents, "\(value)")
        }
        // An archive with a phonetic representation still reads in Foundation on Linux, which neither writes
        // nor reads NS.phoneticRepresentation (swift-corelibs-foundation as of this toolchain).
        let ours = try KeyedArchiver.archivedData(withRootObject: Self.full)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSPersonNameComponents.self, NSString.self], from: ours)
                                   as? NSPersonNameComponents)
        Self.expectSameParts(Self.full, decoded as PersonNameComponents)
        #expect((decoded as PersonNameComponents).phoneticRepresentation == nil)
    }

    @Test func missingKeysAndNullPartsReadAsNil() throws {
        let cls = HandMadeArchive.classDict(["NSPersonNameComponents", "NSObject"])
        let onlyGiven = try HandMadeArchive.binary([.dictionary(["$class": HandMadeArchive.uid(2), "NS.givenName": HandMadeArchive.uid(3),
                                                                 "NS.familyName": HandMadeArchive.uid(0)]), cls, "Ada"])
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedPersonNameComponents.self, from: onlyGiven)
                == ArchivedPersonNameComponents(givenName: "Ada"))
    }

    @Test func personNameComponentsReadAsFoundationValue() throws {
        let value = try KeyedUnarchiver().decode(FoundationValue.self, from: KeyedArchiver.archivedData(withRootObject: Self.full))
        #expect(value == .catalogued(Self.full))
        #expect(value.catalogued(as: ArchivedPersonNameComponents.self) == Self.full)
    }

    @Test func malformedPersonNameComponentsThrowNamingClassAndKey() throws {
        let cls = HandMadeArchive.classDict(["NSPersonNameComponents", "NSObject"])
        for key in ArchivedPersonNameComponents.partKeys {
            let data = try HandMadeArchive.binary([.dictionary(["$class": HandMadeArchive.uid(2), key: 5]), cls])
            let e = errorSummary { _ = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedPersonNameComponents.self, from: data) }
            #expect(e?.code == "typeMismatch" && e?.className == "NSPersonNameComponents" && e?.keyPath == "root.\(key)", "\(key): \(String(describing: e))")
        }
        // The phonetic representation must be name components, not any other class.
        let locale = try HandMadeArchive.binary([
            .dictionary(["$class": HandMadeArchive.uid(2), "NS.phoneticRepresentation": HandMadeArchive.uid(3)]), cls,
            .dictionary(["$class": HandMadeArchive.uid(4), "NS.identifier": HandMadeArchive.uid(5)]),
            HandMadeArchive.classDict(["NSLocale", "NSObject"]), "fr_FR",
        ])
        let e = errorSummary { _ = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedPersonNameComponents.self, from: locale) }
        #expect(e?.code == "classNotAllowed" && e?.keyPath == "root.NS.phoneticRepresentation", "\(String(describing: e))")
    }
}
