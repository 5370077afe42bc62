#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// Reading and writing address books of either version.
public enum AddressBookArchive {
    /// The unarchiver used to read address books: the default limits, tightened for a small file, and the
    /// ledger's types read under the names of `AddressBookKit`, the module they moved from.
    public static var unarchiver: KeyedUnarchiver {
        var unarchiver = KeyedUnarchiver()
        unarchiver.mapModule("AddressBookKit", to: "SchemaMigration")
        unarchiver.limits.maximumDepth = 16
        unarchiver.limits.maximumObjectCount = 100_000
        return unarchiver
    }

    /// Reads a version-1 or version-2 archive as the current model. Only `AddressBook` and `Person`
    /// (or its legacy name `Contact`) objects are allowed.
    /// - Throws: ``KeyedArchiveError`` saying what and where.
    public static func read(_ data: Data) throws -> AddressBook {
        try unarchiver.decode(AddressBook.self, from: data)
    }

    /// The bytes of the version-1 fixture, as version 1 wrote them.
    public static func version1Archive() throws -> Data {
        try KeyedArchiver.archivedData(withRootObject: V1.sampleBook)
    }

    /// The bytes of the fixture with an `AddressBookKit` ledger, as that module wrote them.
    public static func kitLedgerArchive() throws -> Data {
        try KeyedArchiver.archivedData(withRootObject: AddressBookKit.sampleBook)
    }

    /// The bytes of `book` in the current format.
    public static func currentArchive(_ book: AddressBook) throws -> Data {
        try KeyedArchiver.archivedData(withRootObject: book)
    }
}
