import Foundation
import Testing
@testable import KeyedArchive

/// A book, and a shelf of them; `CardShelf` has the shelf's archived name and holds cards instead, so that a
/// shelf's archive read as a `CardShelf` has the wrong class one level down.
struct EBook: ArchivableCodable { var title: String }
struct EShelf: ArchivableCodable { var books: [EBook] }
struct ECardShelf: ArchivableCodable {
    var books: [CPersonCard]
    static var archivedClassName: String { String(reflecting: EShelf.self) }
}
/// Books by shelf mark, and the same with cards under the same archived name.
struct EIndex: ArchivableCodable { var books: [String: EBook]; var byYear: [Int: EBook] }
struct ECardIndex: ArchivableCodable {
    var books: [String: CPersonCard]
    var byYear: [Int: CPersonCard]
    static var archivedClassName: String { String(reflecting: EIndex.self) }
}

@Suite struct CodableDecodingErrorTests {
    /// The coding path as `JSONDecoder` would print it: string keys by name, array indices as numbers.
    private func path(_ context: DecodingError.Context) -> [String] {
        context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
    }

    @Test func wrongClassAtTheRootIsADecodingErrorWithTheArchiveErrorInside() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: EBook(title: "x"))
        let error = #expect(throws: DecodingError.self) { try KeyedUnarchiver.unarchivedObject(ofClass: CPersonCard.self, from: data) }
        guard case .typeMismatch(let type, let context)? = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect(ObjectIdentifier(type) == ObjectIdentifier(CPersonCard.self))
        #expect(context.codingPath.isEmpty)
        let underlying = try #require(context.underlyingError as? KeyedArchiveError)
        #expect(underlying.code == .classNotAllowed)
        #expect(underlying.keyPath == "root")
    }

    @Test func wrongClassOneLevelDownHasTheElementIndexInItsCodingPath() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: EShelf(books: [EBook(title: "x")]))
        let error = #expect(throws: DecodingError.self) { try KeyedUnarchiver.unarchivedObject(ofClass: ECardShelf.self, from: data) }
        guard case .typeMismatch(let type, let context)? = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect(ObjectIdentifier(type) == ObjectIdentifier(CPersonCard.self))
        #expect(path(context) == ["books", "0"])
        #expect(context.codingPath.last?.intValue == 0)
        #expect((context.underlyingError as? KeyedArchiveError)?.keyPath == "root.books[0]")
    }

    @Test func missingFieldOfAnArrayElementHasTheFullCodingPath() throws {
        let xml = String(decoding: try KeyedArchiver.archivedData(
            withRootObject: EShelf(books: [EBook(title: "a"), EBook(title: "b")]), format: .xml), as: UTF8.self)
        // Rename every "title" key: the first book read fails.
        let data = Data(xml.replacingOccurrences(of: "<key>title</key>", with: "<key>titel</key>").utf8)
        let error = #expect(throws: DecodingError.self) { try KeyedUnarchiver.unarchivedObject(ofClass: EShelf.self, from: data) }
        guard case .keyNotFound(let key, let context)? = error else {
            Issue.record("expected keyNotFound, got \(String(describing: error))")
            return
        }
        #expect(key.stringValue == "title")
        #expect(path(context) == ["books", "0"])
        #expect((context.underlyingError as? KeyedArchiveError)?.keyPath == "root.books[0].title")
    }

    @Test func aMissingFieldHintsAtDefaultWhenMissing() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: EBook(title: "a"), format: .xml)
        let renamed = Data(String(decoding: data, as: UTF8.self).replacingOccurrences(of: "<key>title</key>", with: "<key>titel</key>").utf8)
        let error = #expect(throws: DecodingError.self) { try KeyedUnarchiver.unarchivedObject(ofClass: EBook.self, from: renamed) }
        guard case .keyNotFound(_, let context)? = error else {
            Issue.record("expected keyNotFound, got \(String(describing: error))")
            return
        }
        #expect(context.debugDescription.contains("@DefaultWhenMissing (or @DefaultFrom<Provider>)"), "\(context.debugDescription)")
    }

    @Test func expectedTypeOfANestedStructIsItsOwnName() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: CHolderWithEvil(item: CEvilPoint(x: 1, y: 2)))
        let error = #expect(throws: DecodingError.self) { try KeyedUnarchiver.unarchivedObject(ofClass: CHolderWithPoint.self, from: data) }
        guard case .typeMismatch(let type, let context)? = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect(ObjectIdentifier(type) == ObjectIdentifier(CPoint.self))
        #expect(path(context) == ["item"])
    }

    @Test func printedErrorSaysTheArchivesMessageOnce() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: EShelf(books: [EBook(title: "x")]))
        let error = #expect(throws: DecodingError.self) { try KeyedUnarchiver.unarchivedObject(ofClass: ECardShelf.self, from: data) }
        let printed = String(describing: try #require(error))
        let message = "is not allowed here"
        #expect(printed.components(separatedBy: message).count == 2, "\(printed)")
        #expect(printed.contains("root.books[0]"))
    }

    /// A top-level array of Codable models throws as a single model does: `DecodingError`, the archive's error
    /// inside, the element's index as the coding path (a dictionary's and an optional's too).
    @Test func wrongElementClassInATopLevelArrayIsADecodingError() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: [EBook(title: "a"), EBook(title: "b")])
        let error = #expect(throws: DecodingError.self) {
            try KeyedUnarchiver().decode([CPersonCard].self, from: data)
        }
        guard case .typeMismatch(let type, let context)? = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect(ObjectIdentifier(type) == ObjectIdentifier(CPersonCard.self))
        #expect(path(context) == ["0"])
        let underlying = try #require(context.underlyingError as? KeyedArchiveError)
        #expect(underlying.code == .classNotAllowed)
        #expect(underlying.keyPath == "root[0]")
        // Not an array at all: DecodingError too.
        let single = try KeyedArchiver.archivedData(withRootObject: EBook(title: "x"))
        let notArray = #expect(throws: DecodingError.self) { try KeyedUnarchiver().decode([EBook].self, from: single) }
        #expect(notArray.flatMap(archiveError) != nil)
        // A set and a dictionary of models too.
        #expect(throws: DecodingError.self) { try KeyedUnarchiver().decode([String: [EBook]].self, from: single) }
        #expect(throws: DecodingError.self) { try KeyedUnarchiver().decode([EBook]?.self, from: single) }
        // A collection of plain values is not a Codable decode.
        #expect(throws: KeyedArchiveError.self) { try KeyedUnarchiver().decode([String].self, from: single) }
    }

    /// A model stored as a dictionary value is named in the coding path by its key, as `JSONDecoder` names it.
    @Test func aDictionaryValuesCodingPathNamesItsKey() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: EIndex(books: ["dune": EBook(title: "Dune")], byYear: [:]))
        let error = #expect(throws: DecodingError.self) { try KeyedUnarchiver.unarchivedObject(ofClass: ECardIndex.self, from: data) }
        guard case .typeMismatch(_, let context)? = error else {
            Issue.record("expected typeMismatch, got \(String(describing: error))")
            return
        }
        #expect(path(context) == ["books", "dune"])
        #expect(context.codingPath.last?.intValue == nil)

        let byYear = try KeyedArchiver.archivedData(withRootObject: EIndex(books: [:], byYear: [1965: EBook(title: "Dune")]))
        let yearError = #expect(throws: DecodingError.self) { try KeyedUnarchiver.unarchivedObject(ofClass: ECardIndex.self, from: byYear) }
        guard case .typeMismatch(_, let yearContext)? = yearError else {
            Issue.record("expected typeMismatch, got \(String(describing: yearError))")
            return
        }
        #expect(path(yearContext) == ["byYear", "1965"])
        #expect(yearContext.codingPath.last?.stringValue == "1965")
    }

    /// Inside a model stored as a dictionary value, the path goes on below the key.
    @Test func aMissingFieldOfADictionaryValueIsBelowItsKey() throws {
        let xml = String(decoding: try KeyedArchiver.archivedData(
            withRootObject: EIndex(books: ["dune": EBook(title: "Dune")], byYear: [:]), format: .xml), as: UTF8.self)
        let data = Data(xml.replacingOccurrences(of: "<key>title</key>", with: "<key>titel</key>").utf8)
        let error = #expect(throws: DecodingError.self) { try KeyedUnarchiver.unarchivedObject(ofClass: EIndex.self, from: data) }
        guard case .keyNotFound(_, let context)? = error else {
            Issue.record("expected keyNotFound, got \(String(describing: error))")
            return
        }
        #expect(path(context) == ["books", "dune"])
    }

    @Test func handWrittenTopLevelTypesStillThrowKeyedArchiveError() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: EBook(title: "x"))
        #expect(throws: KeyedArchiveError.self) { try KeyedUnarchiver.unarchivedObject(ofClass: CHandWritten.self, from: data) }
    }
}
