#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

// MARK: - Version 2 (current)

/// A person in the address book (version 2).
///
/// Version 1 called this class `Contact`; archives written then still name it so, and
/// ``legacyClassNames`` lets the unarchiver read those objects as `Person`. Compared with version 1:
/// - `isFavorite` is new: absent in version-1 archives, it defaults to `false`;
/// - `fax` is gone: version-1 archives still hold it, and `init(from:)` simply never reads it.
public final class Person: KeyedArchivable, Sendable {
    public static var archivedClassName: String { "Person" }
    public static var legacyClassNames: [String] { ["Contact"] }

    /// The person's name.
    public let name: String
    /// An e-mail address, possibly empty.
    public let email: String
    /// When the entry was created.
    public let created: Date
    /// New in version 2: whether the person is starred.
    public let isFavorite: Bool

    /// Creates a person.
    public init(name: String, email: String, created: Date, isFavorite: Bool = false) {
        self.name = name
        self.email = email
        self.created = created
        self.isFavorite = isFavorite
    }

    public init(from decoder: any ArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        email = try decoder.decodeIfPresent(String.self, forKey: "email") ?? ""
        created = try decoder.decode(Date.self, forKey: "created")
        // New field: a version-1 archive does not have it.
        isFavorite = try decoder.decodeIfPresent(Bool.self, forKey: "isFavorite") ?? false
        // Removed field "fax": deliberately not read.
    }

    public func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(email, forKey: "email")
        try encoder.encode(created, forKey: "created")
        try encoder.encode(isFavorite, forKey: "isFavorite")
    }
}

/// Money lent to people, kept beside the address book: a Codable model.
///
/// These types lived in a module `AddressBookKit` before they moved into this one; archives written then
/// name them `AddressBookKit.Ledger` and `AddressBookKit.LedgerEntry`, which
/// ``AddressBookArchive/unarchiver`` reads as this module's with `mapModule("AddressBookKit", to: "SchemaMigration")`.
public struct Ledger: ArchivableCodable, Sendable, Equatable {
    /// The entries, in stored order.
    public var entries: [LedgerEntry]

    /// Creates a ledger.
    public init(entries: [LedgerEntry]) { self.entries = entries }
}

/// One loan: a plain Codable struct stored inside ``Ledger`` as an object named after its type.
public struct LedgerEntry: Codable, Sendable, Equatable {
    /// Who owes it.
    public var person: String
    /// How much: a `Decimal`, archived as an `NSDecimalNumber`.
    public var amount: Decimal

    /// Creates an entry.
    public init(person: String, amount: Decimal) {
        self.person = person
        self.amount = amount
    }
}

/// The address book (version 2): its people, under the key `people` (version 1 used `contacts`), and an
/// optional ``Ledger`` (absent in older archives).
public final class AddressBook: KeyedArchivable, Sendable {
    public static var archivedClassName: String { "AddressBook" }
    /// The version this code writes.
    public static let currentFormatVersion = 2

    /// The people, in stored order.
    public let people: [Person]
    /// The format version the archive was written with (1 when the archive does not say).
    public let formatVersion: Int
    /// The loans, when the book keeps any (nil when the archive has no `ledger`).
    public let ledger: Ledger?

    /// Creates an address book in the current format.
    public init(people: [Person], ledger: Ledger? = nil) {
        self.people = people
        self.ledger = ledger
        self.formatVersion = Self.currentFormatVersion
    }

    public init(from decoder: any ArchiveDecoder) throws {
        formatVersion = try decoder.decodeIfPresent(Int.self, forKey: "formatVersion") ?? 1
        guard (1...Self.currentFormatVersion).contains(formatVersion) else {
            throw decoder.dataCorruptedError(forKey: "formatVersion",
                                             "format version \(formatVersion) is newer than this reader (\(Self.currentFormatVersion))")
        }
        // Renamed key: version 1 stored the list under "contacts".
        people = try decoder.decode([Person].self, forKey: formatVersion >= 2 ? "people" : "contacts")
        // Added field: older archives do not have it.
        ledger = try decoder.decodeIfPresent(Ledger.self, forKey: "ledger")
    }

    public func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(Self.currentFormatVersion, forKey: "formatVersion")
        try encoder.encode(people, forKey: "people")
        if let ledger { try encoder.encode(ledger, forKey: "ledger") }
    }
}

// MARK: - Version 1 (kept only to write fixtures)

/// The version-1 model, as it shipped. Kept so that the sample can generate the version-1 fixture
/// itself (`schema-migration --write-v1 <file>`) instead of anyone crafting one by hand.
public enum V1 {
    /// Version 1's `Contact`, with a `fax` number that version 2 dropped.
    public struct Contact: KeyedArchivable, Sendable {
        public static var archivedClassName: String { "Contact" }
        public var name: String
        public var email: String
        public var fax: String
        public var created: Date

        public init(name: String, email: String, fax: String, created: Date) {
            self.name = name
            self.email = email
            self.fax = fax
            self.created = created
        }

        public init(from decoder: any ArchiveDecoder) throws {
            name = try decoder.decode(String.self, forKey: "name")
            email = try decoder.decode(String.self, forKey: "email")
            fax = try decoder.decode(String.self, forKey: "fax")
            created = try decoder.decode(Date.self, forKey: "created")
        }

        public func encode(to encoder: any ArchiveEncoder) throws {
            try encoder.encode(name, forKey: "name")
            try encoder.encode(email, forKey: "email")
            try encoder.encode(fax, forKey: "fax")
            try encoder.encode(created, forKey: "created")
        }
    }

    /// Version 1's address book: contacts under `contacts`, no format version.
    public struct AddressBook: KeyedArchivable, Sendable {
        public static var archivedClassName: String { "AddressBook" }
        public var contacts: [Contact]

        public init(contacts: [Contact]) { self.contacts = contacts }

        public init(from decoder: any ArchiveDecoder) throws {
            contacts = try decoder.decode([Contact].self, forKey: "contacts")
        }

        public func encode(to encoder: any ArchiveEncoder) throws {
            try encoder.encode(contacts, forKey: "contacts")
        }
    }

    /// The content of the shipped fixture: fixed names and dates, so regenerating it gives the same bytes.
    public static let sampleBook = AddressBook(contacts: [
        Contact(name: "Ada Lovelace", email: "ada@example.com", fax: "+44 20 7946 0001",
                created: Date(timeIntervalSinceReferenceDate: 0)),  // 2001-01-01T00:00:00Z
        Contact(name: "Alan Turing", email: "", fax: "",
                created: Date(timeIntervalSinceReferenceDate: 86_400 * 365.25 * 10)),  // 2011-01-01T12:00:00Z
    ])
}

// MARK: - The ledger in module AddressBookKit (kept only to write fixtures)

/// The ledger as the `AddressBookKit` module archived it, before its types moved into this module: the
/// same fields under the names that module gave them by default. Kept so that the sample generates the
/// fixture itself (`schema-migration --write-kit <file>`).
public enum AddressBookKit {
    /// `AddressBookKit.Ledger`.
    public struct Ledger: ArchivableCodable, Sendable {
        public static var archivedClassName: String { "AddressBookKit.Ledger" }
        public var entries: [LedgerEntry]
    }

    /// `AddressBookKit.LedgerEntry`.
    public struct LedgerEntry: Codable, ArchiveNamed, Sendable {
        public static var archivedClassName: String { "AddressBookKit.LedgerEntry" }
        public var person: String
        public var amount: Decimal
    }

    /// A version-2 address book holding a ledger of that module.
    public struct AddressBook: KeyedArchivable, Sendable {
        public static var archivedClassName: String { "AddressBook" }
        public var people: [V1.Contact]
        public var ledger: Ledger

        public init(people: [V1.Contact], ledger: Ledger) {
            self.people = people
            self.ledger = ledger
        }

        public init(from decoder: any ArchiveDecoder) throws {
            people = try decoder.decode([V1.Contact].self, forKey: "people")
            ledger = try decoder.decode(Ledger.self, forKey: "ledger")
        }

        public func encode(to encoder: any ArchiveEncoder) throws {
            try encoder.encode(2, forKey: "formatVersion")
            try encoder.encode(people, forKey: "people")
            try encoder.encode(ledger, forKey: "ledger")
        }
    }

    /// The content of the shipped fixture: no people, two loans with exact decimal amounts.
    public static let sampleBook = AddressBook(people: [], ledger: Ledger(entries: [
        LedgerEntry(person: "Ada Lovelace", amount: Decimal(sign: .plus, exponent: -2, significand: 1_999)),  // 19.99
        LedgerEntry(person: "Alan Turing", amount: Decimal(sign: .minus, exponent: -1, significand: 5)),      // -0.5
    ]))
}
