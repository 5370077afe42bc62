import Foundation
import NotesCore
import SchemaMigration
import Testing

// The samples' files are real NSKeyedArchiver archives: Foundation's own NSKeyedUnarchiver reads them,
// in-process, with requiresSecureCoding on and its classes mapped to the archived class names.

/// Foundation's view of a version-1 `Contact`.
private final class FContact: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let name: String, email: String, fax: String, created: Date
    init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "name"),
              let email = coder.decodeObject(of: NSString.self, forKey: "email"),
              let fax = coder.decodeObject(of: NSString.self, forKey: "fax"),
              let created = coder.decodeObject(of: NSDate.self, forKey: "created") else { return nil }
        self.name = String(describing: name)
        self.email = String(describing: email)
        self.fax = String(describing: fax)
        self.created = Date(timeIntervalSinceReferenceDate: created.timeIntervalSinceReferenceDate)
    }
    func encode(with coder: NSCoder) {}
}

/// Foundation's view of a version-1 `AddressBook`.
private final class FAddressBook: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let contacts: [FContact]
    init?(coder: NSCoder) {
        guard let list = coder.decodeObject(of: [NSArray.self, FContact.self], forKey: "contacts") as? NSArray else { return nil }
        contacts = list.compactMap { $0 as? FContact }
    }
    func encode(with coder: NSCoder) {}
}

/// Foundation's view of a `Note`.
private final class FNote: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let id: Int, date: Date, content: String
    init?(coder: NSCoder) {
        guard let date = coder.decodeObject(of: NSDate.self, forKey: "date"),
              let content = coder.decodeObject(of: NSString.self, forKey: "content") else { return nil }
        id = coder.decodeInteger(forKey: "id")
        self.date = Date(timeIntervalSinceReferenceDate: date.timeIntervalSinceReferenceDate)
        self.content = String(describing: content)
    }
    func encode(with coder: NSCoder) {}
}

/// Foundation's view of a `Notebook`.
private final class FNotebook: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    let nextID: Int, notes: [FNote]
    init?(coder: NSCoder) {
        guard let list = coder.decodeObject(of: [NSArray.self, FNote.self], forKey: "notes") as? NSArray else { return nil }
        nextID = coder.decodeInteger(forKey: "nextID")
        notes = list.compactMap { $0 as? FNote }
    }
    func encode(with coder: NSCoder) {}
}

@Suite(.temporaryDirectory("samples-interop")) struct SampleInteropTests {
    @Test func foundationReadsTheShippedVersion1Fixture() throws {
        let data = try Data(contentsOf: SchemaMigrationTests.fixture)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = true
        unarchiver.setClass(FContact.self, forClassName: "Contact")
        unarchiver.setClass(FAddressBook.self, forClassName: "AddressBook")
        let book = try #require(unarchiver.decodeObject(of: FAddressBook.self, forKey: NSKeyedArchiveRootObjectKey))
        unarchiver.finishDecoding()
        let expected = V1.sampleBook.contacts
        #expect(book.contacts.map(\.name) == expected.map(\.name))
        #expect(book.contacts.map(\.email) == expected.map(\.email))
        #expect(book.contacts.map(\.fax) == expected.map(\.fax))
        #expect(book.contacts.map(\.created) == expected.map(\.created))
    }

    @Test func foundationReadsTheNotesFile() throws {
        var notebook = Notebook()
        try notebook.add("Buy milk", date: Date(timeIntervalSinceReferenceDate: 10))
        try notebook.add("Call mum", date: Date(timeIntervalSinceReferenceDate: 20.5))
        try notebook.delete(id: 1)
        let dir = try TemporaryDirectory.subdirectory()
        let store = NotesStore(directory: dir.path)
        try store.save(notebook)

        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: Data(contentsOf: URL(fileURLWithPath: store.path)))
        unarchiver.requiresSecureCoding = true
        unarchiver.setClass(FNote.self, forClassName: "Note")
        unarchiver.setClass(FNotebook.self, forClassName: "Notebook")
        let read = try #require(unarchiver.decodeObject(of: FNotebook.self, forKey: NSKeyedArchiveRootObjectKey))
        unarchiver.finishDecoding()
        #expect(read.nextID == 3)
        #expect(read.notes.map(\.id) == [2])
        #expect(read.notes.map(\.content) == ["Call mum"])
        #expect(read.notes.map(\.date) == [Date(timeIntervalSinceReferenceDate: 20.5)])
    }
}
