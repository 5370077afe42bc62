import Foundation
import Testing
@testable import KeyedArchive

@Suite struct ArchiveRoundTripTests {
    @Test func structWithEveryFieldTypeRoundTrips() throws {
        var model = EveryField()
        model.optionalAbsent = nil
        let tree = try KeyedArchiver.archivedPropertyList(withRootObject: model)
        let back = try KeyedUnarchiver().decode(EveryField.self, from: tree)
        #expect(back.bool == model.bool)
        #expect(back.int == model.int)
        #expect(back.int8 == model.int8)
        #expect(back.int16 == model.int16)
        #expect(back.int32 == model.int32)
        #expect(back.int64 == model.int64)
        #expect(back.uint == model.uint)
        #expect(back.uint8 == model.uint8)
        #expect(back.uint16 == model.uint16)
        #expect(back.uint32 == model.uint32)
        #expect(back.uint64 == model.uint64)
        #expect(back.float == model.float)
        #expect(back.double == model.double)
        #expect(back.string == model.string)
        #expect(back.data == model.data)
        #expect(back.date == model.date)
        #expect(back.uuid == model.uuid)
        #expect(back.url == model.url)
        #expect(back.relativeURL.absoluteString == model.relativeURL.absoluteString)
        #expect(back.relativeURL.baseURL == model.relativeURL.baseURL)
        #expect(back.optionalPresent == "here")
        #expect(back.optionalAbsent == nil)
        #expect(back.strings == model.strings)
        #expect(back.numbers == model.numbers)
        #expect(back.scores == model.scores)
        #expect(back.nested == model.nested)
        #expect(back.dollar == model.dollar)
        #expect(back == model)
    }

    @Test func archiveHasApplesEnvelopeAndInlinePrimitives() throws {
        let tree = try KeyedArchiver.archivedPropertyList(withRootObject: EveryField())
        let root = try #require(tree.dictionaryValue)
        #expect(root["$archiver"] == "NSKeyedArchiver")
        #expect(root["$version"] == 100000)
        #expect(root["$top"] == .dictionary(["root": .uid(UID(1))]))
        let objects = ArchiveFixture.objects(tree)
        #expect(objects.first == "$null")
        let object = try #require(objects[1].dictionaryValue)
        #expect(object["bool"] == .bool(true))       // primitives inline, as encodeBool writes them
        #expect(object["int"] == -42)
        #expect(object["float"] == .float(1.25))
        #expect(object["$$dollar"] != nil)           // "$dollar" escaped by adding "$"
        #expect(object["$dollar"] == nil)
        #expect(object["optionalAbsent"] == .uid(UID(0)))  // nil is $null
        guard case .uid(let stringRef)? = object["string"] else { Issue.record("string is not a UID"); return }
        #expect(objects[Int(stringRef.value)] == .string("héllo, wörld ✓"))
        guard case .uid(let classRef)? = object["$class"], let cls = objects[Int(classRef.value)].dictionaryValue else {
            Issue.record("no class"); return
        }
        #expect(cls["$classname"] == "KeyedArchiveTests.EveryField")
        #expect(cls["$classes"] == ["KeyedArchiveTests.EveryField", "NSObject"])
        guard case .uid(let dateRef)? = object["date"], let date = objects[Int(dateRef.value)].dictionaryValue else {
            Issue.record("no date"); return
        }
        #expect(date["NS.time"] == .real(123_456.75))
        guard case .uid(let dateClass)? = date["$class"] else { Issue.record("date has no class"); return }
        #expect(objects[Int(dateClass.value)].dictionaryValue?["$classname"] == "NSDate")
        guard case .uid(let uuidRef)? = object["uuid"], let uuid = objects[Int(uuidRef.value)].dictionaryValue else {
            Issue.record("no uuid"); return
        }
        #expect(uuid["NS.uuidbytes"] == .data(Data(1...16)))
        guard case .uid(let urlRef)? = object["url"], let url = objects[Int(urlRef.value)].dictionaryValue,
              case .uid(let relative)? = url["NS.relative"] else {
            Issue.record("no url"); return
        }
        #expect(url["NS.base"] == .uid(UID(0)))
        #expect(objects[Int(relative.value)] == "https://example.com/a?b=c")
    }

    @Test func classModelWithNestedCollectionsRoundTrips() throws {
        let a = Book(title: "A", pages: 10)
        let b = Book(title: "B", pages: 20)
        let library = Library(name: "City", books: [a, b, a], byCode: ["x": a, "y": b],
                              shelf: [Tag("new"), Tag("old")], featured: b)
        let data = try KeyedArchiver.archivedPropertyList(withRootObject: library)
        let back = try KeyedUnarchiver().decode(Library.self, from: data)
        #expect(back.name == "City")
        #expect(back.books.map(\.title) == ["A", "B", "A"])
        #expect(back.books.map(\.pages) == [10, 20, 10])
        #expect(back.books[0] === back.books[2])
        #expect(back.byCode["x"] === back.books[0])
        #expect(back.byCode["y"] === back.books[1])
        #expect(back.shelf == [Tag("new"), Tag("old")])
        #expect(back.featured === back.books[1])
    }

    @Test func topLevelValuesOtherThanModels() throws {
        let tree = try KeyedArchiver.archivedPropertyList(withRootObject: ["one": [1, 2], "two": [3]])
        #expect(try KeyedUnarchiver().decode([String: [Int]].self, from: tree) == ["one": [1, 2], "two": [3]])
        let string = try KeyedArchiver.archivedPropertyList(withRootObject: "just a string")
        #expect(try KeyedUnarchiver().decode(String.self, from: string) == "just a string")
    }

    @Test func topKeysOtherThanRoot() throws {
        let archiver = KeyedArchiver()
        try archiver.encode(Book(title: "T", pages: 1), forKey: "book")
        try archiver.encode(7, forKey: "count")
        try archiver.encode("x", forKey: "$weird")
        let tree = try archiver.encodedPropertyList()
        let top = try #require(tree.dictionaryValue?["$top"]?.dictionaryValue)
        #expect(Set(top.keys) == ["book", "count", "$$weird"])
        let unarchiver = KeyedUnarchiver()
        let book = try unarchiver.decode(Book.self, forKey: "book", from: tree)
        #expect(book.title == "T")
        let (count, weird, hasRoot) = try unarchiver.withTopLevelDecoder(tree) { top in
            (try top.decode(Int.self, forKey: "count"), try top.decode(String.self, forKey: "$weird"),
             top.containsValue(forKey: "root"))
        }
        #expect(count == 7)
        #expect(weird == "x")
        #expect(!hasRoot)
        #expect(throws: KeyedArchiveError.self) { try unarchiver.decode(Book.self, from: tree) }
    }

    @Test func optionalsDistinguishAbsentNilAndPresent() throws {
        struct Opt: KeyedArchivable {
            static var archivedClassName: String { "Opt" }  // local: its reflected name holds an address
            var a: Int?
            var b: String?
            init(a: Int?, b: String?) { self.a = a; self.b = b }
            init(from decoder: any ArchiveDecoder) throws {
                a = try decoder.decodeIfPresent(Int.self, forKey: "a")
                b = try decoder.decodeIfPresent(String.self, forKey: "b")
                #expect(decoder.containsValue(forKey: "b"))
                #expect(!decoder.containsValue(forKey: "missing"))
                #expect(try decoder.decodeNil(forKey: "missing"))
                #expect(throws: KeyedArchiveError.self) { try decoder.decode(Int.self, forKey: "missing") }
            }
            func encode(to encoder: any ArchiveEncoder) throws {
                if let a { try encoder.encode(a, forKey: "a") }
                try encoder.encode(b, forKey: "b")
            }
        }
        let back = try KeyedUnarchiver().decode(Opt.self, from: KeyedArchiver.archivedPropertyList(withRootObject: Opt(a: nil, b: nil)))
        #expect(back.a == nil && back.b == nil)
        let full = try KeyedUnarchiver().decode(Opt.self, from: KeyedArchiver.archivedPropertyList(withRootObject: Opt(a: 5, b: "s")))
        #expect(full.a == 5 && full.b == "s")
    }

    @Test func missingNilAndWrongTypeAreDistinctErrors() throws {
        struct Probe: KeyedArchivable {
            static var archivedClassName: String { "Probe" }
            init() {}
            init(from decoder: any ArchiveDecoder) throws {
                func code(_ body: () throws -> Void) -> KeyedArchiveError.Code? {
                    do { try body(); return nil } catch let e as KeyedArchiveError { return e.code } catch { return nil }
                }
                #expect(code { _ = try decoder.decode(String.self, forKey: "absent") } == .keyNotFound)
                #expect(code { _ = try decoder.decode(String.self, forKey: "none") } == .valueNotFound)
                #expect(code { _ = try decoder.decode(String.self, forKey: "number") } == .typeMismatch)
                #expect(code { _ = try decoder.decode(Int8.self, forKey: "big") } == .numberOutOfRange)
                #expect(code { _ = try decoder.decode(UInt.self, forKey: "negative") } == .numberOutOfRange)
                #expect(code { _ = try decoder.decode(Int.self, forKey: "fraction") } == .typeMismatch)
                #expect(try decoder.decode(Int.self, forKey: "whole") == 3)
                #expect(try decoder.decode(Bool.self, forKey: "big"))        // nonzero integer reads as true
                #expect(try decoder.decode(Int.self, forKey: "flag") == 1)   // true reads as 1
                #expect(try decoder.decode(Double.self, forKey: "big") == 300)
            }
            func encode(to encoder: any ArchiveEncoder) throws {
                try encoder.encodeNil(forKey: "none")
                try encoder.encode(1, forKey: "number")
                try encoder.encode(300, forKey: "big")
                try encoder.encode(-1, forKey: "negative")
                try encoder.encode(2.5, forKey: "fraction")
                try encoder.encode(3.0, forKey: "whole")
                try encoder.encode(true, forKey: "flag")
            }
        }
        _ = try KeyedUnarchiver().decode(Probe.self, from: KeyedArchiver.archivedPropertyList(withRootObject: Probe()))
    }

    @Test func errorNamesKeyPathFromRoot() throws {
        let library = Library(name: "L", books: [Book(title: "a", pages: 1), Book(title: "b", pages: 2)], byCode: [:],
                              shelf: [], featured: nil)
        var tree = try KeyedArchiver.archivedPropertyList(withRootObject: library)
        // Replace the second book's "pages" with a string.
        var root = try #require(tree.dictionaryValue)
        var objects = ArchiveFixture.objects(tree)
        let bookIndex = try #require(objects.firstIndex { $0.dictionaryValue?["title"].flatMap { t in
            t.uidValue.map { objects[Int($0.value)] == "b" } } == true })
        var book = try #require(objects[bookIndex].dictionaryValue)
        book["pages"] = "many"
        objects[bookIndex] = .dictionary(book)
        root["$objects"] = .array(objects)
        tree = .dictionary(root)
        let error = try #require(throws: KeyedArchiveError.self) { try KeyedUnarchiver().decode(Library.self, from: tree) }
        #expect(error.code == .typeMismatch)
        #expect(error.keyPath == "root.books[1].pages")
        #expect(error.objectUID == UInt64(bookIndex))
        #expect(error.className == "KeyedArchiveTests.Book")
        #expect(error.message.contains("expected Int"))
    }

    @Test func classNameMappingAndLegacyNames() throws {
        struct Renamed: KeyedArchivable {
            static var legacyClassNames: [String] { ["OldApp.Thing", "Thing"] }
            var v: Int
            init(v: Int) { self.v = v }
            init(from decoder: any ArchiveDecoder) throws { v = try decoder.decode(Int.self, forKey: "v") }
            func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(v, forKey: "v") }
        }
        #expect(Renamed.archivedClassName.hasPrefix("KeyedArchiveTests."))
        for oldName in ["OldApp.Thing", "Thing"] {
            let archiver = KeyedArchiver()
            archiver.setClassName(oldName, for: Renamed.self)
            #expect(archiver.className(for: Renamed.self) == oldName)
            try archiver.encode(Renamed(v: 9), forKey: "root")
            let tree = try archiver.encodedPropertyList()
            let names = ArchiveFixture.objects(tree).compactMap { $0.dictionaryValue?["$classname"]?.stringValue }
            #expect(names == [oldName])
            #expect(try KeyedUnarchiver().decode(Renamed.self, from: tree).v == 9)
        }
        // A name only the registry knows.
        let archiver = KeyedArchiver()
        archiver.setClassName("Elsewhere.Widget", for: Renamed.self)
        try archiver.encode(Renamed(v: 4), forKey: "root")
        let tree = try archiver.encodedPropertyList()
        #expect(throws: KeyedArchiveError.self) { try KeyedUnarchiver().decode(Renamed.self, from: tree) }
        var unarchiver = KeyedUnarchiver()
        unarchiver.setClass(Renamed.self, forClassName: "Elsewhere.Widget")
        #expect(try unarchiver.decode(Renamed.self, from: tree).v == 4)
    }

    @Test func subclassesUseTheirOwnNamesAndNeedRegistration() throws {
        let zoo: [Animal] = [Animal(name: "generic"), Dog(name: "rex", barks: 5)]
        let tree = try KeyedArchiver.archivedPropertyList(withRootObject: zoo)
        let names = Set(ArchiveFixture.objects(tree).compactMap { $0.dictionaryValue?["$classname"]?.stringValue })
        #expect(names.isSuperset(of: ["Zoo.Animal", "Zoo.Dog", "NSArray"]))
        let error = try #require(throws: KeyedArchiveError.self) { try KeyedUnarchiver().decode([Animal].self, from: tree) }
        #expect(error.code == .classNotAllowed)
        #expect(error.className == "Zoo.Dog")
        var unarchiver = KeyedUnarchiver()
        unarchiver.setClass(Dog.self, forClassName: "Zoo.Dog")
        let back = try unarchiver.decode([Animal].self, from: tree)
        #expect(back.map(\.name) == ["generic", "rex"])
        #expect((back[1] as? Dog)?.barks == 5)
        #expect(!(back[0] is Dog))
    }

    @Test func byteRoundTripThroughPropertyListData() throws {
        let model = EveryField()
        for format in PropertyListFormat.allCases {
            let bytes = try KeyedArchiver.archivedData(withRootObject: model, format: format)
            #expect(try KeyedUnarchiver.unarchivedObject(ofClass: EveryField.self, from: bytes) == model)
        }
    }
}
