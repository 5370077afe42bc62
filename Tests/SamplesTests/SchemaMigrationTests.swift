import Foundation
import KeyedArchive
import KeyedArchiveTesting
import SchemaMigration
import Testing

/// The migration sample reading the version-1 archive it ships.
@Suite(.temporaryDirectory("samples-migration")) struct SchemaMigrationTests {
    static let fixture = SampleRunner.packageRoot.appendingPathComponent("Samples/SchemaMigration/Fixtures/address-book-v1.archive")

    @Test func shippedVersion1ArchiveReadsAsVersion2() throws {
        let book = try AddressBookArchive.read(Data(contentsOf: Self.fixture))
        #expect(book.formatVersion == 1)
        #expect(book.people.count == 2)
        let ada = try #require(book.people.first)
        #expect(ada.name == "Ada Lovelace")
        #expect(ada.email == "ada@example.com")
        #expect(ada.created == Date(timeIntervalSinceReferenceDate: 0))
        #expect(ada.isFavorite == false)  // new field, absent in version 1: the default
        let alan = try #require(book.people.last)
        #expect(alan.name == "Alan Turing")
        #expect(alan.email == "")
        #expect(alan.created == Date(timeIntervalSinceReferenceDate: 86_400 * 365.25 * 10))
        #expect(alan.isFavorite == false)
    }

    @Test func shippedFixtureIsTheOldShapeAndWhatTheGeneratorWrites() throws {
        let shipped = try Data(contentsOf: Self.fixture)
        // Regenerating gives the same bytes: the fixture was made by the sample, not by hand.
        #expect(try AddressBookArchive.version1Archive() == shipped)
        // And it really is the old shape: class Contact, key "contacts", a "fax" field, no isFavorite.
        let graph = try ArchivedObjectGraph(data: shipped)
        let counts = graph.instanceCounts()
        #expect(counts["Contact"] == 2)
        #expect(counts["Person"] == nil)
        let root = try #require(graph.topReference().flatMap { graph.object($0)?.instance })
        #expect(root.fields.map(\.key) == ["contacts"])
        let contacts = graph.objects.compactMap(\.instance).filter { $0.className == "Contact" }
        #expect(contacts.allSatisfy { $0["fax"] != nil && $0["isFavorite"] == nil })
    }

    @Test func legacyNameIsAcceptedOnlyWhereAPersonIsAskedFor() throws {
        let contact = try KeyedArchiver.archivedData(withRootObject: V1.sampleBook.contacts[0])
        let person = try KeyedUnarchiver().decode(Person.self, from: contact)
        #expect(person.name == "Ada Lovelace")
        #expect(person.isFavorite == false)
        // A Contact where an AddressBook is asked for is refused, before any initializer runs.
        let error = try #require(throws: KeyedArchiveError.self) { try AddressBookArchive.read(contact) }
        #expect(error.code == .classNotAllowed)
        #expect(error.className == "Contact")
    }

    @Test func upgradedArchiveIsVersion2AndRoundTrips() throws {
        let old = try AddressBookArchive.read(Data(contentsOf: Self.fixture))
        let upgraded = try AddressBookArchive.currentArchive(AddressBook(people: old.people))
        let graph = try ArchivedObjectGraph(data: upgraded)
        #expect(graph.instanceCounts()["Person"] == 2)
        #expect(graph.instanceCounts()["Contact"] == nil)
        let back = try AddressBookArchive.read(upgraded)
        #expect(back.formatVersion == 2)
        #expect(back.people.map(\.name) == old.people.map(\.name))
        #expect(back.people.map(\.email) == old.people.map(\.email))
        #expect(back.people.map(\.created) == old.people.map(\.created))
        #expect(back.people.map(\.isFavorite) == old.people.map(\.isFavorite))

        let report = ArchiveRoundTrip.check(AddressBook(people: [Person(name: "Grace", email: "g@example.com",
                                                                        created: Date(timeIntervalSinceReferenceDate: 5), isFavorite: true)]),
                                            unarchiver: AddressBookArchive.unarchiver)
        #expect(report.isFaithful, "\(report)")
    }

    static let kitFixture = SampleRunner.packageRoot
        .appendingPathComponent("Samples/SchemaMigration/Fixtures/address-book-kit-ledger.archive")

    @Test func ledgerWrittenInTheOldModuleReadsAfterTheMove() throws {
        let shipped = try Data(contentsOf: Self.kitFixture)
        #expect(try AddressBookArchive.kitLedgerArchive() == shipped)
        let counts = try ArchivedObjectGraph(data: shipped).instanceCounts()
        #expect(counts["AddressBookKit.Ledger"] == 1 && counts["AddressBookKit.LedgerEntry"] == 2 && counts["NSDecimalNumber"] == 2,
                "\(counts)")
        let book = try AddressBookArchive.read(shipped)
        #expect(book.ledger?.entries == [LedgerEntry(person: "Ada Lovelace", amount: Decimal(string: "19.99") ?? 0),
                                         LedgerEntry(person: "Alan Turing", amount: Decimal(string: "-0.5") ?? 0)])
        // Without the module move the old ledger is refused, before any initializer runs.
        let error = try #require(throws: KeyedArchiveError.self) { try KeyedUnarchiver().decode(AddressBook.self, from: shipped) }
        #expect(error.code == .classNotAllowed)
        #expect(error.className == "AddressBookKit.Ledger")
        // The version-1 book has no ledger; the current format writes it under this module's names.
        #expect(try AddressBookArchive.read(Data(contentsOf: Self.fixture)).ledger == nil)
        let upgraded = try AddressBookArchive.currentArchive(AddressBook(people: book.people, ledger: book.ledger))
        let upgradedCounts = try ArchivedObjectGraph(data: upgraded).instanceCounts()
        #expect(upgradedCounts["SchemaMigration.Ledger"] == 1 && upgradedCounts["SchemaMigration.LedgerEntry"] == 2, "\(upgradedCounts)")
        #expect(try AddressBookArchive.read(upgraded).ledger == book.ledger)

        let dir = try TemporaryDirectory.subdirectory()
        let regenerated = dir.appendingPathComponent("kit.archive")
        #expect(try SampleRunner.run("schema-migration", ["--write-kit", regenerated.path]).status == 0)
        #expect(try Data(contentsOf: regenerated) == shipped)
        let listed = try SampleRunner.run("schema-migration", [Self.kitFixture.path])
        #expect(listed.stdout == """
            \(Self.kitFixture.path): address book, format version 2, 0 people
              owes: Ada Lovelace  19.99
              owes: Alan Turing  -0.5

            """)
    }

    @Test func newerFormatIsRefusedWithAClearError() throws {
        let archive = try KeyedArchiver.archivedData(withRootObject: FutureBook())
        let error = try #require(throws: KeyedArchiveError.self) { try AddressBookArchive.read(archive) }
        #expect(error.code == .dataCorrupted)
        #expect(error.keyPath == "root.formatVersion")
        #expect(error.message.contains("format version 3 is newer than this reader (2)"))
    }

    @Test func builtBinaryReadsTheFixtureAndRegeneratesIt() throws {
        let read = try SampleRunner.run("schema-migration", [Self.fixture.path])
        #expect(read.status == 0)
        #expect(read.stderr == "")
        #expect(read.stdout == """
            \(Self.fixture.path): address book, format version 1, 2 people
              Ada Lovelace  <ada@example.com>  created 2001-01-01T00:00:00Z  favorite: false
              Alan Turing  <no e-mail>  created 2011-01-01T12:00:00Z  favorite: false

            """)

        let dir = try TemporaryDirectory.subdirectory()
        let regenerated = dir.appendingPathComponent("v1.archive")
        let write = try SampleRunner.run("schema-migration", ["--write-v1", regenerated.path])
        #expect(write.status == 0)
        #expect(try Data(contentsOf: regenerated) == Data(contentsOf: Self.fixture))

        let usage = try SampleRunner.run("schema-migration", [])
        #expect(usage.status == 64)
        #expect(usage.stderr.hasPrefix("Error: Missing expected argument '<file>'\nUsage: schema-migration "))

        try Data([0x62, 0x70, 0x6C, 0x69, 0x73, 0x74]).write(to: regenerated)  // "bplist", then nothing
        let broken = try SampleRunner.run("schema-migration", [regenerated.path])
        #expect(broken.status == 1)
        #expect(broken.stderr.hasPrefix("Error: \(regenerated.path): "))
    }
}

/// An address book from a future version 3.
private struct FutureBook: KeyedArchivable {
    static var archivedClassName: String { "AddressBook" }
    init() {}
    init(from decoder: any ArchiveDecoder) throws {}
    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(3, forKey: "formatVersion")
        try encoder.encode([String](), forKey: "people")
    }
}
