import Foundation
import Testing
@testable import KeyedArchive

/// Holds a field that may be a Book or a Tag, and a second field that must be a Tag.
private struct TwoFields: KeyedArchivable {
    var first: any KeyedArchivable
    var second: Tag
    init(from decoder: any ArchiveDecoder) throws {
        first = try decoder.decodeObject(ofTypes: [Book.self, Tag.self], forKey: "first")
        second = try decoder.decode(Tag.self, forKey: "second")
    }
    func encode(to encoder: any ArchiveEncoder) throws {}
}

/// A model with one model field and one string field.
private struct Labelled: KeyedArchivable {
    var book: Book
    var label: String
    init(from decoder: any ArchiveDecoder) throws {
        book = try decoder.decode(Book.self, forKey: "book")
        label = try decoder.decode(String.self, forKey: "label")
    }
    func encode(to encoder: any ArchiveEncoder) throws {}
}

@Suite(.serialized) struct SecureDecodingTests {
    typealias F = ArchiveFixture

    private func code<T: ArchiveValue>(_ type: T.Type, _ archive: PropertyListValue,
                                       _ unarchiver: KeyedUnarchiver = KeyedUnarchiver()) -> KeyedArchiveError.Code? {
        error(type, archive, unarchiver)?.code
    }

    private func error<T: ArchiveValue>(_ type: T.Type, _ archive: PropertyListValue,
                                        _ unarchiver: KeyedUnarchiver = KeyedUnarchiver()) -> KeyedArchiveError? {
        keyedArchiveError(decoding: type, from: archive, with: unarchiver)
    }

    @Test func disallowedRootClassIsRejectedBeforeInit() throws {
        let before = Tripwire.initCount
        let archive = try KeyedArchiver.archivedPropertyList(withRootObject: Tripwire(payload: "boom"))
        let failure = try #require(error(Book.self, archive))
        #expect(failure.code == .classNotAllowed)
        #expect(failure.className == "KeyedArchiveTests.Tripwire")
        #expect(failure.message.contains("expected Book (KeyedArchiveTests.Book)"))
        #expect(failure.keyPath == "root")
        #expect(Tripwire.initCount == before)
        // Allowed, it decodes (and the counter proves the check above was not vacuous).
        _ = try KeyedUnarchiver().decode(Tripwire.self, from: archive)
        #expect(Tripwire.initCount == before + 1)
    }

    @Test func aRefusedSwiftClassNameHintsAtTheRenamingAPIs() throws {
        let archive = try KeyedArchiver.archivedPropertyList(withRootObject: Tripwire(payload: "boom"))
        let failure = try #require(error(Book.self, archive))
        #expect(failure.code == .classNotAllowed)
        for api in ["KeyedUnarchiver.setClass(_:forClassName:)", "legacyClassNames", "KeyedUnarchiver.mapModule(_:to:)"] {
            #expect(failure.message.contains(api), "\(failure.message)")
        }
        // An Objective-C class name has no module: no hint.
        let array = F.archive(["$null", .dictionary(["$class": .uid(UID(2)), "NS.objects": []]), F.classDict("NSArray")])
        let refused = try #require(error(Book.self, array))
        #expect(refused.code == .classNotAllowed)
        #expect(!refused.message.contains("setClass"), "\(refused.message)")
    }

    @Test(arguments: [("App.Note", true), ("_TtCC3App5Outer5Inner", true), ("App.Box<App.Item>", true), ("NSArray", false),
                      (".Note", false), ("1App.Note", false), ("NSKeyedArchiver", false)])
    func swiftClassNamesAreRecognized(name: String, isSwift: Bool) {
        #expect(ArchivedClassNameRules.looksLikeSwiftClassName(name) == isSwift)
        #expect(ArchivedClassNameRules.renamedClassHint(for: name).isEmpty == !isSwift)
    }

    @Test func disallowedClassNestedInArrayOrDictionaryIsRejected() throws {
        let before = Tripwire.initCount
        // An array of Books whose second element claims to be a Tripwire.
        let objects: [PropertyListValue] = [
            "$null",
            .dictionary(["$class": .uid(UID(2)), "NS.objects": [.uid(UID(3)), .uid(UID(6))]]),  // 1: NSArray
            F.classDict("NSArray"),                                                              // 2
            .dictionary(["$class": .uid(UID(5)), "title": .uid(UID(4)), "pages": 1]),             // 3: a Book
            "ok",                                                                                // 4
            F.classDict("KeyedArchiveTests.Book"),                                               // 5
            .dictionary(["$class": .uid(UID(7)), "payload": .uid(UID(4))]),                      // 6: a Tripwire
            F.classDict("KeyedArchiveTests.Tripwire"),                                           // 7
        ]
        let failure = try #require(error([Book].self, F.archive(objects)))
        #expect(failure.code == .classNotAllowed)
        #expect(failure.keyPath == "root[1]")
        #expect(failure.objectUID == 6)
        // The same object as a dictionary value.
        let dictionary: [PropertyListValue] = [
            "$null",
            .dictionary(["$class": .uid(UID(2)), "NS.keys": [.uid(UID(4))], "NS.objects": [.uid(UID(6))]]),
            F.classDict("NSDictionary"),
            "unused",
            "key",
            "unused",
            .dictionary(["$class": .uid(UID(7)), "payload": .uid(UID(4))]),
            F.classDict("KeyedArchiveTests.Tripwire"),
        ]
        let nested = try #require(error([String: Book].self, F.archive(dictionary)))
        #expect(nested.code == .classNotAllowed)
        #expect(nested.keyPath == "root[0]")
        // Arrays themselves must be asked for.
        #expect(code(Book.self, F.archive(objects)) == .classNotAllowed)
        #expect(Tripwire.initCount == before)
    }

    @Test func claimingAnAllowedSuperclassDoesNotHelp() {
        let objects: [PropertyListValue] = [
            "$null",
            .dictionary(["$class": .uid(UID(3)), "title": .uid(UID(2)), "pages": 1]),
            "t",
            F.classDict("Evil", ["Evil", "KeyedArchiveTests.Book", "NSObject"]),  // claims to be a Book subclass
        ]
        let failure = error(Book.self, F.archive(objects))
        #expect(failure?.code == .classNotAllowed)
        #expect(failure?.className == "Evil")
    }

    @Test func subclassNeedsTheCallersRegistry() throws {
        let archive = try KeyedArchiver.archivedPropertyList(withRootObject: Dog(name: "d", barks: 1))
        #expect(code(Animal.self, archive) == .classNotAllowed)
        var unarchiver = KeyedUnarchiver()
        unarchiver.setClass(Dog.self, forClassName: "Zoo.Dog")
        #expect(try unarchiver.decode(Animal.self, from: archive) is Dog)
        // A registration does not allow a type where its superclass was not asked for.
        #expect(code(Book.self, archive, unarchiver) == .classNotAllowed)
    }

    @Test func modelFieldHoldingAStringAndTheReverse() {
        // "book" holds a string, "label" a Book.
        let objects: [PropertyListValue] = [
            "$null",
            .dictionary(["$class": .uid(UID(2)), "book": .uid(UID(3)), "label": .uid(UID(4))]),
            F.classDict("Labelled"),
            "not a book",
            .dictionary(["$class": .uid(UID(5)), "title": .uid(UID(3)), "pages": 1]),
            F.classDict("KeyedArchiveTests.Book"),
        ]
        var unarchiver = KeyedUnarchiver()
        unarchiver.setClass(Labelled.self, forClassName: "Labelled")
        let first = error(Labelled.self, F.archive(objects), unarchiver)
        #expect(first?.code == .typeMismatch)
        #expect(first?.keyPath == "root.book")
        #expect(first?.message.contains("found string \"not a book\"") == true)
        var swapped = objects
        swapped[1] = .dictionary(["$class": .uid(UID(2)), "book": .uid(UID(4)), "label": .uid(UID(4))])
        let second = error(Labelled.self, F.archive(swapped), unarchiver)
        #expect(second?.code == .classNotAllowed)  // a Book object where only a string may be
        #expect(second?.keyPath == "root.label")
    }

    @Test func inlineStringWhereOnlyACustomTypeIsAllowed() {
        let objects: [PropertyListValue] = ["$null", "I am not a Book"]
        #expect(code(Book.self, F.archive(objects)) == .typeMismatch)
        // An inline value in $top itself is valid (a scalar encoded straight into the archiver), but decoding a
        // Book there is a type mismatch, as for an inline value in an object's field.
        #expect(code(Book.self, F.archive(top: ["root": "inline"], ["$null"])) == .typeMismatch)
    }

    @Test func classPointingAtANonClassIsRejected() {
        let objects: [PropertyListValue] = [
            "$null",
            .dictionary(["$class": .uid(UID(2)), "title": .uid(UID(2)), "pages": 1]),  // $class -> a string
            "KeyedArchiveTests.Book",
        ]
        #expect(code(Book.self, F.archive(objects)) == .invalidClass)
    }

    @Test func cachedObjectIsCheckedAgainstTheSecondField() {
        // "first" and "second" both point at one Book. The first field allows Book, the second only Tag.
        let objects: [PropertyListValue] = [
            "$null",
            .dictionary(["$class": .uid(UID(2)), "first": .uid(UID(3)), "second": .uid(UID(3))]),
            F.classDict("TwoFields"),
            .dictionary(["$class": .uid(UID(5)), "title": .uid(UID(4)), "pages": 1]),
            "t",
            F.classDict("KeyedArchiveTests.Book"),
        ]
        var unarchiver = KeyedUnarchiver()
        unarchiver.setClass(TwoFields.self, forClassName: "TwoFields")
        let failure = error(TwoFields.self, F.archive(objects), unarchiver)
        #expect(failure?.code == .classNotAllowed)
        #expect(failure?.keyPath == "root.second")
        #expect(failure?.objectUID == 3)
    }

    @Test func objectCountLimit() throws {
        let books = (0..<10).map { Book(title: "\($0)", pages: $0) }
        let archive = try KeyedArchiver.archivedPropertyList(withRootObject: books)
        var unarchiver = KeyedUnarchiver()
        unarchiver.limits.maximumObjectCount = 5
        let failure = try #require(error([Book].self, archive, unarchiver))
        #expect(failure.code == .limitExceeded)
        #expect(failure.message.contains("maximumObjectCount"))
        unarchiver.limits.maximumObjectCount = 11  // the array and ten books
        #expect(try unarchiver.decode([Book].self, from: archive).count == 10)
    }

    @Test func byteLimit() throws {
        let archive = try KeyedArchiver.archivedPropertyList(withRootObject: [String(repeating: "x", count: 60), "y"])
        var unarchiver = KeyedUnarchiver()
        unarchiver.limits.maximumByteCount = 50
        #expect(code([String].self, archive, unarchiver) == .limitExceeded)
        unarchiver.limits.maximumByteCount = 61
        #expect(try unarchiver.decode([String].self, from: archive).count == 2)
        let data = try KeyedArchiver.archivedPropertyList(withRootObject: Data(count: 100))
        unarchiver.limits.maximumByteCount = 99
        #expect(code(Data.self, data, unarchiver) == .limitExceeded)
    }

    @Test func depthLimit() throws {
        let nested: [[[[Int]]]] = [[[[1]]]]
        let archive = try KeyedArchiver.archivedPropertyList(withRootObject: nested)
        var unarchiver = KeyedUnarchiver()
        unarchiver.limits.maximumDepth = 3
        let failure = try #require(error([[[[Int]]]].self, archive, unarchiver))
        #expect(failure.code == .limitExceeded)
        #expect(failure.message.contains("maximumDepth"))
        unarchiver.limits.maximumDepth = 4
        #expect(try unarchiver.decode([[[[Int]]]].self, from: archive) == nested)
    }

    @Test func randomMutationsNeverCrash() throws {
        let a = Book(title: "a", pages: 1)
        let library = Library(name: "L", books: [a, Book(title: "b", pages: 2)], byCode: ["k": a],
                              shelf: [Tag("x")], featured: a)
        let valid = try KeyedArchiver.archivedPropertyList(withRootObject: library)
        var rng = SplitMix64(seed: 0x5EED)
        var decoded = 0, rejected = 0
        for _ in 0..<400 {
            let mutated = mutate(valid, &rng)
            do {
                let back = try KeyedUnarchiver().decode(Library.self, from: mutated)
                #expect(back.books.allSatisfy { type(of: $0) == Book.self })
                decoded += 1
            } catch is KeyedArchiveError {
                rejected += 1
            }
        }
        #expect(decoded + rejected == 400)
        #expect(rejected > 0)
    }

    private func mutate(_ archive: PropertyListValue, _ rng: inout SplitMix64) -> PropertyListValue {
        guard var root = archive.dictionaryValue, var objects = root["$objects"]?.arrayValue else { return archive }
        for _ in 0..<(1 + Int(rng.next() % 3)) {
            let index = Int(rng.next() % UInt64(objects.count))
            switch objects[index] {
            case .dictionary(var dict):
                guard !dict.keys.isEmpty else { continue }
                let key = dict.keys[Int(rng.next() % UInt64(dict.keys.count))]
                switch rng.next() % 5 {
                case 0: dict[key] = nil                                           // drop a key
                case 1: dict[key] = .uid(UID(rng.next() % UInt64(objects.count + 2)))  // another (maybe bad) UID
                case 2:
                    if case .array(var list) = dict[key], !list.isEmpty {         // change a count
                        list.removeLast()
                        dict[key] = .array(list)
                    } else {
                        dict[key] = .array([.uid(UID(1))])
                    }
                case 3:
                    if key == "$classname" {                                      // change a class name
                        dict[key] = .string(["NSArray", "KeyedArchiveTests.Tripwire", "NSDictionary", "Evil"][Int(rng.next() % 4)])
                    } else {
                        dict[key] = "mutated"
                    }
                default: dict[key] = .integer(PropertyListInteger(Int64(bitPattern: rng.next())))
                }
                objects[index] = .dictionary(dict)
            case .string:
                objects[index] = .integer(300)
            default:
                objects[index] = .string("$null")
            }
        }
        root["$objects"] = .array(objects)
        return .dictionary(root)
    }
}

/// A small deterministic generator for reproducible mutation tests.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
