import Foundation
import Testing
@testable import KeyedArchive

/// Reads the Objective-C date formatters of the fixtures just far enough to get at their time zone and locale.
final class DateFormatterProbe: KeyedArchivable {
    static var archivedClassName: String { "NSDateIntervalFormatter" }
    static var legacyClassNames: [String] { ["NSISO8601DateFormatter"] }
    let timeZone: ArchivedTimeZone
    let locale: ArchivedLocale?
    let calendar: CalendarProbe?
    init(from decoder: any ArchiveDecoder) throws {
        timeZone = try decoder.decode(ArchivedTimeZone.self, forKey: "NS.timeZone")
        locale = try decoder.decodeIfPresent(ArchivedLocale.self, forKey: "NS.locale")
        calendar = try decoder.decodeIfPresent(CalendarProbe.self, forKey: "NS.calendar")
    }
    func encode(to encoder: any ArchiveEncoder) throws {}
}

/// The NSCalendar inside the DateIntervalFormatter fixtures: it holds a time zone and a locale too.
final class CalendarProbe: KeyedArchivable {
    static var archivedClassName: String { "NSCalendar" }
    let timeZone: ArchivedTimeZone
    let locale: ArchivedLocale
    init(from decoder: any ArchiveDecoder) throws {
        timeZone = try decoder.decode(ArchivedTimeZone.self, forKey: "NS.timezone")
        locale = try decoder.decode(ArchivedLocale.self, forKey: "NS.locale")
    }
    func encode(to encoder: any ArchiveEncoder) throws {}
}

@Suite struct ArchivedTimeZoneTests {
    static let formatterFixtures = ["DateIntervalFormatter-Default.archive", "DateIntervalFormatter-ValuesSetWithTemplate.archive",
                                    "DateIntervalFormatter-ValuesSetWithoutTemplate.archive", "ISO8601DateFormatter-Default.archive",
                                    "ISO8601DateFormatter-OptionsSet.archive"]

    @Test(.enabled(if: FoundationFixtures.available))
    func darwinFormatterFixturesHoldTimeZones() throws {
        for name in Self.formatterFixtures {
            let data = try FoundationFixtures.data(name)
            let probe = try KeyedUnarchiver.unarchivedObject(ofClass: DateFormatterProbe.self, from: data)
            // The expected bytes, taken from the archive's tree without the decoder.
            let expectedData: Data? = {
                if case .data(let d)? = try? ArchiveStructure.value(data, path: ["NS.timeZone", "NS.data", "NS.data"]) { return d }
                return nil
            }()
            if name.hasPrefix("DateIntervalFormatter-ValuesSet") {
                // A fixed-offset zone: no TZif data ($null).
                #expect(probe.timeZone == ArchivedTimeZone(identifier: "GMT+0100", tzifData: nil), "\(name)")
                #expect(expectedData == nil)
            } else {
                #expect(probe.timeZone.identifier == "GMT", "\(name)")
                #expect(probe.timeZone.tzifData == expectedData, "\(name)")
                #expect(probe.timeZone.tzifData?.prefix(4) == Data("TZif".utf8), "\(name)")
            }
            if let calendar = probe.calendar {
                var calendarData: Data?
                if case .data(let d)? = try ArchiveStructure.value(data, path: ["NS.calendar", "NS.timezone", "NS.data", "NS.data"]) { calendarData = d }
                #expect(calendar.timeZone.identifier == "GMT", "\(name)")
                #expect(calendar.timeZone.tzifData == calendarData, "\(name)")
                #expect(calendarData?.count ?? 0 > 40, "\(name)")
            }
        }
    }

    @Test(.enabled(if: FoundationFixtures.available))
    func ourTimeZonesHaveTheFixturesStructure() throws {
        for name in Self.formatterFixtures {
            let data = try FoundationFixtures.data(name)
            let zone = try KeyedUnarchiver.unarchivedObject(ofClass: DateFormatterProbe.self, from: data).timeZone
            let ours = try KeyedArchiver.archivedData(withRootObject: zone)
            #expect(try ArchiveStructure.differences(expected: data, actual: ours, expectedPath: ["NS.timeZone"]) == [], "\(name)")
        }
    }

    @Test func timeZonesRoundTrip() throws {
        for zone in [ArchivedTimeZone(identifier: "Europe/Paris", tzifData: Data("TZif2 and more".utf8)),
                     ArchivedTimeZone(identifier: "GMT+0100"), ArchivedTimeZone(identifier: "")] {
            let back = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedTimeZone.self, from: KeyedArchiver.archivedData(withRootObject: zone))
            #expect(back.identifier == zone.identifier)
            #expect(back.tzifData == zone.tzifData)
            #expect(try JSONDecoder().decode(ArchivedTimeZone.self, from: JSONEncoder().encode(zone)) == zone)
        }
        #expect(ArchivedTimeZone(TimeZone(identifier: "Asia/Tokyo")!).timeZone?.identifier == "Asia/Tokyo")
        #expect(ArchivedTimeZone(identifier: "GMT").description == "NSTimeZone GMT")
    }

    @Test func foundationAndWeReadEachOthersTimeZones() throws {
        for name in ["Europe/Paris", "GMT", "America/New_York"] {
            let zone = try #require(NSTimeZone(name: name))
            let theirs = try NSKeyedArchiver.archivedData(withRootObject: zone, requiringSecureCoding: true)
            let read = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedTimeZone.self, from: theirs)
            #expect(read.identifier == name)
            #expect(read.timeZone?.identifier == name)
            // Ours, with and without the rules, reads back in Foundation as the same zone.
            for ours in [read, ArchivedTimeZone(identifier: name)] {
                let data = try KeyedArchiver.archivedData(withRootObject: ours)
                let decoded = try NSKeyedUnarchiver.unarchivedObject(ofClass: NSTimeZone.self, from: data)
                #expect(decoded?.name == name)
            }
        }
    }

    @Test func malformedTimeZonesThrowNamingClassAndKey() throws {
        let cls = HandMadeArchive.classDict(["NSTimeZone", "NSObject"])
        func read(_ fields: PropertyListDictionary) throws -> (code: String, className: String?, keyPath: String?)? {
            let data = try HandMadeArchive.binary([.dictionary(fields.merging(["$class": HandMadeArchive.uid(2)])), cls, "GMT", 7])
            return errorSummary { _ = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedTimeZone.self, from: data) }
        }
        let noName = try read(["NS.data": HandMadeArchive.uid(0)])
        #expect(noName?.code == "keyNotFound" && noName?.className == "NSTimeZone" && noName?.keyPath == "root.NS.name")
        let nameNumber = try read(["NS.name": HandMadeArchive.uid(4), "NS.data": HandMadeArchive.uid(0)])
        #expect(nameNumber?.code == "typeMismatch" && nameNumber?.className == "NSTimeZone" && nameNumber?.keyPath == "root.NS.name")
        let dataString = try read(["NS.name": HandMadeArchive.uid(3), "NS.data": HandMadeArchive.uid(3)])
        #expect(dataString?.code == "typeMismatch" && dataString?.className == "NSTimeZone" && dataString?.keyPath == "root.NS.data")
    }
}

@Suite struct ArchivedLocaleTests {
    @Test(.enabled(if: FoundationFixtures.available))
    func darwinFormatterFixturesHoldLocales() throws {
        let expected = ["DateIntervalFormatter-Default.archive": "", "DateIntervalFormatter-ValuesSetWithTemplate.archive": "ja-JP",
                        "DateIntervalFormatter-ValuesSetWithoutTemplate.archive": "ja-JP"]
        for (name, identifier) in expected {
            let probe = try KeyedUnarchiver.unarchivedObject(ofClass: DateFormatterProbe.self, from: FoundationFixtures.data(name))
            #expect(probe.locale == ArchivedLocale(identifier: identifier), "\(name)")
            #expect(probe.calendar?.locale == ArchivedLocale(identifier: identifier), "\(name)")
            let ours = try KeyedArchiver.archivedData(withRootObject: ArchivedLocale(identifier: identifier))
            #expect(try ArchiveStructure.differences(expected: FoundationFixtures.data(name), actual: ours, expectedPath: ["NS.locale"]) == [],
                    "\(name)")
        }
    }

    @Test func localesRoundTrip() throws {
        for identifier in ["", "en_US", "ja-JP", "sr-Latn-RS@calendar=gregorian"] {
            let locale = ArchivedLocale(identifier: identifier)
            let back = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedLocale.self, from: KeyedArchiver.archivedData(withRootObject: locale))
            #expect(back.identifier == identifier)
            #expect(try JSONDecoder().decode(ArchivedLocale.self, from: JSONEncoder().encode(locale)) == locale)
        }
        #expect(ArchivedLocale(Locale(identifier: "fr_FR")).locale.identifier == "fr_FR")
        #expect(ArchivedLocale(identifier: "ja-JP").description == "NSLocale ja-JP")
    }

    @Test func foundationAndWeReadEachOthersLocales() throws {
        for identifier in ["en_US", "ja_JP", "fr_CA"] {
            let theirs = try NSKeyedArchiver.archivedData(withRootObject: NSLocale(localeIdentifier: identifier), requiringSecureCoding: true)
            #expect(try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedLocale.self, from: theirs).identifier == identifier)
            let ours = try KeyedArchiver.archivedData(withRootObject: ArchivedLocale(identifier: identifier))
            #expect(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSLocale.self, from: ours)?.object(forKey: .identifier) as? String == identifier)
        }
    }

    @Test func malformedLocalesThrowNamingClassAndKey() throws {
        let cls = HandMadeArchive.classDict(["NSLocale", "NSObject"])
        for (fields, code) in [(["NS.identifier": 5] as PropertyListDictionary, "typeMismatch"), ([:], "keyNotFound"),
                               (["NS.identifier": HandMadeArchive.uid(0)], "valueNotFound")] {
            let data = try HandMadeArchive.binary([.dictionary(fields.merging(["$class": HandMadeArchive.uid(2)])), cls])
            let e = errorSummary { _ = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedLocale.self, from: data) }
            #expect(e?.code == code && e?.className == "NSLocale" && e?.keyPath == "root.NS.identifier", "\(fields)")
        }
    }
}
