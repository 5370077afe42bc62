import Foundation
import KeyedArchive
import Testing

/// A configured unarchiver and an archiver configuration are values that tasks share.
@Suite struct SharedCoderConfigurationTests {
    /// A Sendable model, read under the name an earlier version wrote.
    struct Entry: KeyedArchivable, Hashable, Sendable {
        static var archivedClassName: String { "Entry" }
        var title: String
        var values: [Int]

        init(title: String, values: [Int]) {
            self.title = title
            self.values = values
        }

        init(from decoder: any ArchiveDecoder) throws {
            title = try decoder.decode(String.self, forKey: "title")
            values = try decoder.decode([Int].self, forKey: "values")
        }

        func encode(to encoder: any ArchiveEncoder) throws {
            try encoder.encode(title, forKey: "title")
            try encoder.encode(values, forKey: "values")
        }
    }

    static let unarchiver: KeyedUnarchiver = {
        var unarchiver = KeyedUnarchiver()
        unarchiver.setClass(Entry.self, forClassName: "LegacyEntry")
        unarchiver.limits.maximumElementCount = 100
        return unarchiver
    }()

    static let legacyXML: KeyedArchiver.Configuration = {
        var configuration = KeyedArchiver.Configuration(outputFormat: .xml)
        configuration.setClassName("LegacyEntry", for: Entry.self)
        return configuration
    }()

    @Test func sharedUnarchiverDecodesInManyTasksAtOnce() async throws {
        let entries = (0..<16).map { Entry(title: "entry \($0)", values: Array(0..<$0)) }
        let archives = try entries.map { try KeyedArchiver.archivedData(withRootObject: $0, configuration: Self.legacyXML) }
        let decoded = try await withThrowingTaskGroup(of: (Int, Entry).self) { group in
            for (index, archive) in archives.enumerated() {
                group.addTask { (index, try Self.unarchiver.decode(Entry.self, from: archive)) }
            }
            var decoded: [Int: Entry] = [:]
            for try await (index, entry) in group { decoded[index] = entry }
            return decoded
        }
        #expect(decoded.count == entries.count)
        for (index, entry) in entries.enumerated() { #expect(decoded[index] == entry) }
    }

    @Test func errorFromAnotherTaskKeepsItsCode() async throws {
        let archive = try KeyedArchiver.archivedData(withRootObject: Entry(title: "big", values: Array(0..<101)))
        let error = await Task.detached { () -> KeyedArchiveError? in
            do {
                _ = try Self.unarchiver.decode(Entry.self, from: archive)
                return nil
            } catch {
                return error as? KeyedArchiveError
            }
        }.value
        #expect(error?.code == .limitExceeded)
    }

    @Test func configurationWritesItsFormatAndClassNames() throws {
        let entry = Entry(title: "a", values: [1])
        let data = try KeyedArchiver.archivedData(withRootObject: entry, configuration: Self.legacyXML)
        #expect(PropertyListValue.detectFormat(of: data) == .xml)
        let graph = try ArchivedObjectGraph(data: data)
        #expect(graph.instanceCounts() == ["LegacyEntry": 1, "NSArray": 1])

        let archiver = KeyedArchiver(configuration: Self.legacyXML)
        try archiver.encode(entry, forKey: "root")
        #expect(try archiver.encodedData() == data)
        #expect(PropertyListValue.detectFormat(of: try archiver.encodedData(format: .binary)) == .binary)
    }

    @Test func archiverClassNamesJoinItsConfiguration() {
        let archiver = KeyedArchiver()
        #expect(archiver.configuration == KeyedArchiver.Configuration())
        archiver.setClassName("Renamed", for: Entry.self)
        #expect(archiver.className(for: Entry.self) == "Renamed")
        #expect(archiver.configuration.className(for: Entry.self) == "Renamed")
        #expect(archiver.configuration.outputFormat == .binary)
        #expect(KeyedArchiver(configuration: Self.legacyXML).className(for: Entry.self) == "LegacyEntry")
    }
}
