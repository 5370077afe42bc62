import Foundation
import Testing
@testable import KeyedArchive

/// Malformed archives, built by hand as small property-list trees: each must throw a precise error.
@Suite struct ArchiveFaultTests {
    typealias F = ArchiveFixture

    private func failure<T: ArchiveValue>(_ type: T.Type, _ archive: PropertyListValue,
                                          unarchiver: KeyedUnarchiver = KeyedUnarchiver()) -> KeyedArchiveError? {
        keyedArchiveError(decoding: type, from: archive, with: unarchiver)
    }

    /// A valid archive of one Book: the starting point of several faults.
    static let book: [PropertyListValue] = [
        "$null",
        .dictionary(["$class": .uid(UID(3)), "title": .uid(UID(2)), "pages": 7]),  // 1: the Book
        "Dune",                                                                     // 2: its title
        F.classDict("KeyedArchiveTests.Book"),                                      // 3: its class
    ]

    @Test func validFixtureDecodes() throws {
        let book = try KeyedUnarchiver().decode(Book.self, from: F.archive(Self.book))
        #expect(book.title == "Dune" && book.pages == 7)
    }

    @Test func missingTopIsRejected() {
        let archive: PropertyListValue = ["$archiver": "NSKeyedArchiver", "$version": 100000, "$objects": .array(Self.book)]
        #expect(failure(Book.self, archive)?.code == .invalidArchive)
    }

    @Test func topThatIsNotADictionaryIsRejected() {
        let archive: PropertyListValue = ["$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root"],
                                          "$objects": .array(Self.book)]
        let error = failure(Book.self, archive)
        #expect(error?.code == .invalidArchive)
        #expect(error?.message.contains("$top must be a dictionary") == true)
    }

    @Test func rootUIDOutOfRangeIsRejected() {
        let error = failure(Book.self, F.archive(top: ["root": F.uid(99)], Self.book))
        #expect(error?.code == .invalidReference)
        #expect(error?.keyPath == "$top.root")  // the same key path on every path (KeyedArchiveValidation)
    }

    @Test func missingRootKeyIsKeyNotFound() {
        let error = failure(Book.self, F.archive(top: ["other": F.uid(1)], Self.book))
        #expect(error?.code == .keyNotFound)
    }

    @Test func missingClassIsRejected() {
        var objects = Self.book
        objects[1] = .dictionary(["title": .uid(UID(2)), "pages": 7])  // no $class
        let error = failure(Book.self, F.archive(objects))
        #expect(error?.code == .invalidClass)
        #expect(error?.objectUID == 1)
    }

    @Test func classPointingAtANonClassIsRejected() {
        var objects = Self.book
        objects[1] = .dictionary(["$class": .uid(UID(2)), "title": .uid(UID(2)), "pages": 7])  // $class -> "Dune"
        #expect(failure(Book.self, F.archive(objects))?.code == .invalidClass)
        objects[1] = .dictionary(["$class": .uid(UID(1)), "title": .uid(UID(2)), "pages": 7])  // $class -> itself (no $classname)
        #expect(failure(Book.self, F.archive(objects))?.code == .invalidClass)
        objects[1] = .dictionary(["$class": "KeyedArchiveTests.Book", "title": .uid(UID(2)), "pages": 7])  // not a UID
        #expect(failure(Book.self, F.archive(objects))?.code == .invalidClass)
    }

    @Test func emptyOrNonArrayClassesIsIgnored() {
        // `$classes` is informational: corelibs' and GNUstep's unarchivers only hand it to the delegate, so the
        // class is found by `$classname` and the book decodes.
        var objects = Self.book
        for classes: PropertyListValue in [[], "KeyedArchiveTests.Book", [1]] {
            objects[3] = .dictionary(["$classname": "KeyedArchiveTests.Book", "$classes": classes])
            #expect(failure(Book.self, F.archive(objects)) == nil, "\(classes)")
        }
    }

    @Test func dictionaryWithMismatchedKeyAndObjectCountsIsRejected() {
        let objects: [PropertyListValue] = [
            "$null",
            .dictionary(["$class": .uid(UID(4)), "NS.keys": [.uid(UID(2)), .uid(UID(3))], "NS.objects": [.uid(UID(2))]]),
            "a", "b",
            F.classDict("NSDictionary"),
        ]
        let error = failure([String: String].self, F.archive(objects))
        #expect(error?.code == .dataCorrupted)
        #expect(error?.message.contains("NS.keys has 2 entries but NS.objects has 1") == true)
    }

    @Test func objectsThatAreNotAnArrayOfUIDsAreRejected() {
        var objects: [PropertyListValue] = [
            "$null",
            .dictionary(["$class": .uid(UID(2)), "NS.objects": ["inline", "strings"]]),  // not UIDs
            F.classDict("NSArray"),
        ]
        #expect(failure([String].self, F.archive(objects))?.code == .invalidReference)
        objects[1] = .dictionary(["$class": .uid(UID(2)), "NS.objects": "not an array"])
        #expect(failure([String].self, F.archive(objects))?.code == .dataCorrupted)
        objects[1] = .dictionary(["$class": .uid(UID(2)), "NS.objects": [.uid(UID(40))]])  // out of range
        #expect(failure([String].self, F.archive(objects))?.code == .invalidReference)
    }

    @Test func nilElementInsideAnArrayIsRejected() {
        let objects: [PropertyListValue] = [
            "$null",
            .dictionary(["$class": .uid(UID(3)), "NS.objects": [.uid(UID(2)), .uid(UID(0))]]),  // second element is $null
            "x",
            F.classDict("NSArray"),
        ]
        let error = failure([String].self, F.archive(objects))
        #expect(error?.code == .valueNotFound)
        #expect(error?.keyPath == "root[1]")
    }

    /// String elements that are not UIDs of plain strings (an NSString object, a number) are read, or
    /// reported with their index, as `String.decode(from:forKey:)` reads them; a byte limit reached at an
    /// element names that element.
    @Test func stringElementsOtherThanPlainStringsKeepTheirReadingAndTheirKeyPath() throws {
        var objects: [PropertyListValue] = [
            "$null",
            .dictionary(["$class": .uid(UID(5)), "NS.objects": [.uid(UID(2)), .uid(UID(3)), .uid(UID(2))]]),
            "first",
            .dictionary(["$class": .uid(UID(4)), "NS.string": "an NSString"]),
            F.classDict("NSString"),
            F.classDict("NSArray"),
        ]
        #expect(try KeyedUnarchiver().decode([String].self, from: F.archive(objects)) == ["first", "an NSString", "first"])
        var limited = KeyedUnarchiver()
        limited.limits.maximumByteCount = 5 + 11 + 4  // the third element's five bytes do not fit
        let overLimit = failure([String].self, F.archive(objects), unarchiver: limited)
        #expect(overLimit?.code == .limitExceeded)
        #expect(overLimit?.keyPath == "root[2]")
        limited.limits.maximumByteCount = 5 + 11 + 5
        #expect(try limited.decode([String].self, from: F.archive(objects)).count == 3)
        objects[2] = 42
        let notAString = failure([String].self, F.archive(objects))
        #expect(notAString?.code == .typeMismatch)
        #expect(notAString?.keyPath == "root[0]")
    }

    @Test func containerThatContainsItselfIsACycle() {
        let array: [PropertyListValue] = [
            "$null",
            .dictionary(["$class": .uid(UID(2)), "NS.objects": [.uid(UID(1))]]),  // the array holds itself
            F.classDict("NSArray"),
        ]
        let error = failure([[[String]]].self, F.archive(array))
        #expect(error?.code == .cycle)
        let dictionary: [PropertyListValue] = [
            "$null",
            .dictionary(["$class": .uid(UID(3)), "NS.keys": [.uid(UID(2))], "NS.objects": [.uid(UID(1))]]),  // value is itself
            "k",
            F.classDict("NSDictionary"),
        ]
        #expect(failure([String: [String: String]].self, F.archive(dictionary))?.code == .cycle)
    }

    @Test func urlWhoseBaseIsItselfIsACycle() {
        let objects: [PropertyListValue] = [
            "$null",
            .dictionary(["$class": .uid(UID(3)), "NS.base": .uid(UID(1)), "NS.relative": .uid(UID(2))]),  // base = itself
            "page",
            F.classDict("NSURL"),
        ]
        #expect(failure(URL.self, F.archive(objects))?.code == .cycle)
    }

    @Test func uuidWithWrongByteCountIsRejected() {
        let objects: [PropertyListValue] = [
            "$null",
            .dictionary(["$class": .uid(UID(2)), "NS.uuidbytes": .data(Data([1, 2, 3]))]),
            F.classDict("NSUUID"),
        ]
        #expect(failure(UUID.self, F.archive(objects))?.code == .dataCorrupted)
    }

    @Test func corruptBytesAreInvalidPropertyList() throws {
        let bytes: [UInt8] = [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // "bplist00"
            0x08,                                            // object 0: a fill byte, nothing more
            // no offset table, no trailer: truncated
        ]
        let error = try #require(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver().decode(Book.self, from: Data(bytes))
        }
        #expect(error.code == .invalidPropertyList)
        let text = try #require(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver().decode(Book.self, from: Data("not a plist".utf8))
        }
        #expect(text.code == .invalidPropertyList)
    }
}
