import Foundation
import Testing
@testable import KeyedArchive

@Suite struct ArchivedISO8601DateFormatterTests {
    static let fixtures = [("ISO8601DateFormatter-Default.archive", 1907), ("ISO8601DateFormatter-OptionsSet.archive", 1366)]

    /// The TZif bytes of the fixture's time zone, read from the archive's tree without the decoder.
    static func tzif(_ data: Data) throws -> Data? {
        if case .data(let d)? = try ArchiveStructure.value(data, path: ["NS.timeZone", "NS.data", "NS.data"]) { return d }
        return nil
    }

    @Test(.enabled(if: FoundationFixtures.available, "needs ../shared/corpus"))
    func applesArchivesReadIntoTheIntendedValue() throws {
        for (name, options) in Self.fixtures {
            let data = try FoundationFixtures.data(name)
            let formatter = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedISO8601DateFormatter.self, from: data)
            let tzif = try Self.tzif(data)
            #expect(tzif?.prefix(4) == Data("TZif".utf8), "\(name)")
            #expect(formatter == ArchivedISO8601DateFormatter(formatOptions: options,
                                                               timeZone: ArchivedTimeZone(identifier: "GMT", tzifData: tzif)), "\(name)")
        }
    }

    @Test(.enabled(if: FoundationFixtures.available, "needs ../shared/corpus"))
    func reArchivedTheyHaveApplesStructure() throws {
        for (name, _) in Self.fixtures {
            let fixture = try FoundationFixtures.data(name)
            let formatter = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedISO8601DateFormatter.self, from: fixture)
            let ours = try KeyedArchiver.archivedData(withRootObject: formatter)
            #expect(try ArchiveStructure.differences(expected: fixture, actual: ours) == [], "\(name)")
        }
    }

    @Test(.enabled(if: FoundationFixtures.available, "needs ../shared/corpus"))
    func theRawModelShowsTheFixtureAsTheValue() throws {
        for (name, options) in Self.fixtures {
            let graph = try ArchivedObjectGraph(data: FoundationFixtures.data(name))
            let resolved = graph.topReference().flatMap(graph.resolvedObject)
            guard case .decoded(_, let description, let json)? = resolved?.kind else {
                Issue.record("\(name): not shown as a value: \(String(describing: resolved?.kind))")
                continue
            }
            #expect(description == "NSISO8601DateFormatter options \(options) GMT", "\(name)")
            #expect(json?.contains("\"formatOptions\":\(options)") == true, "\(name)")
        }
    }

    @Test func aRoundTripKeepsEveryField() throws {
        for formatter in [ArchivedISO8601DateFormatter(),
                          ArchivedISO8601DateFormatter(formatOptions: 1366,
                                                       timeZone: ArchivedTimeZone(identifier: "Europe/Paris", tzifData: Data("TZif2".utf8))),
                          ArchivedISO8601DateFormatter(formatOptions: 0, timeZone: nil)] {
            let back = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedISO8601DateFormatter.self,
                                                            from: KeyedArchiver.archivedData(withRootObject: formatter))
            #expect(back.formatOptions == formatter.formatOptions)
            #expect(back.timeZone == formatter.timeZone)
            let json = try JSONDecoder().decode(ArchivedISO8601DateFormatter.self, from: JSONEncoder().encode(formatter))
            #expect(json == formatter)
        }
    }

    @Test func foundationAndWeReadEachOthersFormatters() throws {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate, .withDashSeparatorInDate]
        formatter.timeZone = TimeZone(identifier: "Europe/Paris")
        let theirs = try NSKeyedArchiver.archivedData(withRootObject: formatter, requiringSecureCoding: true)
        let read = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedISO8601DateFormatter.self, from: theirs)
        #expect(read.formatOptions == Int(formatter.formatOptions.rawValue))
        #expect(read.timeZone?.identifier == "Europe/Paris")
        let ours = try KeyedArchiver.archivedData(withRootObject: ArchivedISO8601DateFormatter(formatOptions: 1366,
                                                                                               timeZone: ArchivedTimeZone(identifier: "Asia/Tokyo")))
        let decoded = try NSKeyedUnarchiver.unarchivedObject(ofClass: ISO8601DateFormatter.self, from: ours)
        #expect(decoded?.formatOptions.rawValue == 1366)
        #expect(decoded?.timeZone?.identifier == "Asia/Tokyo")
    }

    @Test func malformedMembersAreErrorsThatNameTheClassAndTheKey() throws {
        let cls = HandMadeArchive.classDict(["NSISO8601DateFormatter", "NSFormatter", "NSObject"])
        let cases: [([PropertyListValue], String)] = [
            ([.dictionary(["$class": HandMadeArchive.uid(3), "NS.formatOptions": HandMadeArchive.uid(2)]), "text", cls], "NS.formatOptions"),
            ([.dictionary(["$class": HandMadeArchive.uid(2)]), cls], "NS.formatOptions"),
            ([.dictionary(["$class": HandMadeArchive.uid(2), "NS.formatOptions": -1]), cls], "NS.formatOptions"),
            ([.dictionary(["$class": HandMadeArchive.uid(3), "NS.formatOptions": 1907, "NS.timeZone": HandMadeArchive.uid(2)]), "GMT", cls],
             "NS.timeZone"),
        ]
        for (objects, key) in cases {
            let data = try HandMadeArchive.binary(objects)
            let summary = errorSummary {
                _ = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedISO8601DateFormatter.self, from: data)
            }
            #expect(summary?.className == "NSISO8601DateFormatter", "\(key)")
            #expect(summary?.keyPath?.hasSuffix(key) == true, "\(key): \(String(describing: summary))")
        }
    }
}
