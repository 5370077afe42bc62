import Foundation
import Testing
@testable import KeyedArchive
import KeyedArchiveTestSupport

/// Two references to animals, for identity checks through a registered subclass.
final class Pen: KeyedArchivable {
    var first: Animal
    var second: Animal
    init(first: Animal, second: Animal) {
        self.first = first
        self.second = second
    }
    init(from decoder: any ArchiveDecoder) throws {
        first = try decoder.decode(Animal.self, forKey: "first")
        second = try decoder.decode(Animal.self, forKey: "second")
    }
    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(first, forKey: "first")
        try encoder.encode(second, forKey: "second")
    }
}

/// One integer field, for archives made byte by byte.
struct Counter: KeyedArchivable, Equatable {
    static var archivedClassName: String { "Counter" }
    var value: Int
    init(from decoder: any ArchiveDecoder) throws { value = try decoder.decode(Int.self, forKey: "value") }
    func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(value, forKey: "value") }
}

/// A model whose own keys look like the archive's: `$class` is stored as `$$class`, `$$x` as `$$$x`.
struct DollarKeys: KeyedArchivable, Equatable {
    var cls: String
    var x: Int
    init(cls: String, x: Int) {
        self.cls = cls
        self.x = x
    }
    init(from decoder: any ArchiveDecoder) throws {
        cls = try decoder.decode(String.self, forKey: "$class")
        x = try decoder.decode(Int.self, forKey: "$$x")
    }
    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(cls, forKey: "$class")
        try encoder.encode(x, forKey: "$$x")
    }
}

/// A model that keeps the decoder it was given (which no model should do), to use it after the unarchive.
final class DecoderKeeper: KeyedArchivable {
    var text: String
    var kept: (any ArchiveDecoder)?
    init(text: String) { self.text = text }
    init(from decoder: any ArchiveDecoder) throws {
        text = try decoder.decode(String.self, forKey: "text")
        kept = decoder
    }
    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(text, forKey: "text")
        try encoder.encode(Data(repeating: 7, count: 100_000), forKey: "blob")
    }
}

/// The unarchiver reads the archive's bytes on demand (key tables shared by objects with the same keys,
/// a fast path for objects met again): these pin down the cases where that could differ from reading the
/// whole tree first.
@Suite struct OnDemandUnarchiverTests {
    /// The unarchiver reads the caller's bytes in place, only while it runs: a decoder kept past the
    /// unarchive (binary, XML or tree input) answers "absent" and throws, and never reads the bytes again.
    @Test func decoderKeptPastTheUnarchiveNoLongerReads() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: DecoderKeeper(text: "kept"))
        let xml = try KeyedArchiver.archivedData(withRootObject: DecoderKeeper(text: "kept"), format: .xml)
        let tree = try PropertyListValue(propertyListData: data)
        for model in [try KeyedUnarchiver().decode(DecoderKeeper.self, from: data),
                      try KeyedUnarchiver().decode(DecoderKeeper.self, from: xml),
                      try KeyedUnarchiver().decode(DecoderKeeper.self, from: tree)] {
            #expect(model.text == "kept")
            let decoder = try #require(model.kept)
            #expect(decoder.containsValue(forKey: "text") == false)
            #expect(decoder.containsValue(forKey: "blob") == false)
            for read in [{ _ = try decoder.decode(String.self, forKey: "text") },
                         { _ = try decoder.decode(Data.self, forKey: "blob") },
                         { _ = try decoder.decodeNil(forKey: "text") },
                         { _ = try decoder.decodeObject(of: DecoderKeeper.self, forKey: "text") },
                         { _ = try decoder.decodeArray(of: Int.self, forKey: "text") },
                         { _ = try decoder.decodeFoundationValue(forKey: "blob") }] {
                let error = #expect(throws: KeyedArchiveError.self) { try read() }
                #expect(error?.code == .invalidValue)
                #expect(error?.message.contains("used after its unarchive finished") == true)
            }
            model.kept = nil
        }
    }

    @Test func sharedInstanceOfARegisteredSubclassKeepsItsIdentity() throws {
        let dog = Dog(name: "Rex", barks: 5)
        let data = try KeyedArchiver.archivedData(withRootObject: [Pen(first: dog, second: dog), Pen(first: dog, second: Animal(name: "Tom"))])
        var unarchiver = KeyedUnarchiver()
        unarchiver.setClass(Dog.self, forClassName: "Zoo.Dog")
        let pens = try unarchiver.decode([Pen].self, from: data)
        try #require(pens.count == 2)
        #expect(pens[0].first === pens[0].second)
        #expect(pens[1].first === pens[0].first)
        let back = try #require(pens[0].first as? Dog)
        #expect(back.name == "Rex")
        #expect(back.barks == 5)
        #expect(pens[1].second.name == "Tom")
        #expect(!(pens[1].second is Dog))
    }

    @Test func sharedInstanceIsRecheckedForTheSecondField() throws {
        // Without the registration, "Zoo.Dog" is not an Animal the unarchiver may make: the first
        // reference fails, and so would the second (the fast path must not skip the check).
        let dog = Dog(name: "Rex", barks: 5)
        let data = try KeyedArchiver.archivedData(withRootObject: Pen(first: dog, second: dog))
        #expect {
            _ = try KeyedUnarchiver().decode(Pen.self, from: data)
        } throws: { error in
            (error as? KeyedArchiveError)?.code == .classNotAllowed && (error as? KeyedArchiveError)?.className == "Zoo.Dog"
        }
    }

    @Test func modelKeysThatLookLikeArchiveKeysFindTheirOwnEntries() throws {
        let values = [DollarKeys(cls: "mine", x: 1), DollarKeys(cls: "yours", x: 2)]
        let data = try KeyedArchiver.archivedData(withRootObject: values)
        #expect(try KeyedUnarchiver().decode([DollarKeys].self, from: data) == values)
        let tree = try PropertyListValue(propertyListData: data)
        let stored = try #require(tree.dictionaryValue?["$objects"]?.arrayValue?.compactMap(\.dictionaryValue).first { $0["$$class"] != nil })
        #expect(Set(stored.keys) == ["$class", "$$class", "$$$x"])
    }

    @Test func structReferencedTwiceDecodesOnceAndEqual() throws {
        typealias F = ArchiveFixture
        let archive = F.archive([
            "$null",
            .dictionary(["$class": F.uid(3), "NS.objects": .array([F.uid(2), F.uid(2)])]),
            .dictionary(["$class": F.uid(4), "label": F.uid(5)]),
            F.classDict("NSArray"),
            F.classDict(Tag.archivedClassName),
            "swift",
        ])
        let tags = try KeyedUnarchiver().decode([Tag].self, from: archive)
        #expect(tags == [Tag("swift"), Tag("swift")])
    }

    @Test func elementsOfASharedArrayCountAgainstTheElementLimit() throws {
        // One 1,000-element array referred to 100 times: 100,000 elements decoded from a small archive.
        typealias F = ArchiveFixture
        let archive = F.archive([
            "$null",
            .dictionary(["$class": F.uid(3), "NS.objects": .array(Array(repeating: F.uid(2), count: 100))]),
            .dictionary(["$class": F.uid(3), "NS.objects": .array(Array(repeating: F.uid(4), count: 1_000))]),
            F.classDict("NSArray"),
            7,
        ])
        let all = try KeyedUnarchiver().decode([[Int]].self, from: archive)
        #expect(all.count == 100)
        #expect(all.allSatisfy { $0 == Array(repeating: 7, count: 1_000) })
        var strict = KeyedUnarchiver()
        strict.limits.maximumElementCount = 50_000
        let error = try #require(throws: KeyedArchiveError.self) { _ = try strict.decode([[Int]].self, from: archive) }
        #expect(error.code == .limitExceeded)
        #expect(error.message.contains("maximumElementCount"))
        #expect(error.keyPath == "root[49]")  // 100 outer + 49 x 1,000 inner = 49,100; the 50th inner array passes 50,000
    }

    @Test func damagedObjectFoundOnDemandNamesItsPlace() throws {
        // "TenLetters" is a 10-byte ASCII string: marker 0x5A, then its bytes. Replace the marker with a
        // fill byte (0x0F), which is no value; the unarchiver meets it only when it reads `title`.
        var bytes = [UInt8](try KeyedArchiver.archivedData(withRootObject: Book(title: "TenLetters", pages: 7)))
        let text = Array("TenLetters".utf8)
        let start = try #require((0 ... bytes.count - text.count).first { Array(bytes[$0 ..< $0 + text.count]) == text })
        try #require(bytes[start - 1] == 0x5A)
        bytes[start - 1] = 0x0F
        let error = try #require(throws: KeyedArchiveError.self) {
            _ = try KeyedUnarchiver().decode(Book.self, from: Data(bytes))
        }
        #expect(error.code == .invalidPropertyList)
        #expect(error.keyPath == "root.title")
        #expect(error.underlying?.location.byteOffset == start - 1)
        #expect(error.message.contains("fill"))
    }

    @Test func repeatedKeyInAnObjectReadsItsLastValue() throws {
        // A hand-made binary archive whose object dictionary holds "value" twice (1, then 2). The reader's
        // rule for repeated keys is "first position, last value" (as plistlib and Foundation); the
        // unarchiver and the raw model must agree with it.
        let data = Self.binaryArchiveWithRepeatedKey()
        let tree = try PropertyListValue(propertyListData: data)
        let object = try #require(tree.dictionaryValue?["$objects"]?.arrayValue?[1].dictionaryValue)
        #expect(object["value"] == .integer(2))
        #expect(try KeyedUnarchiver().decode(Counter.self, from: data).value == 2)
        #expect(try KeyedUnarchiver().decode(Counter.self, from: tree).value == 2)
        let graph = try ArchivedObjectGraph(data: data)
        #expect(graph.object(UID(1))?.instance?["value"] == .value(.integer(2)))
    }

    @Test func xmlAndTreeInputsDecodeAsBinaryDoes() throws {
        let library = Library(name: "Main", books: [Book(title: "A", pages: 1), Book(title: "B", pages: 2)],
                              byCode: [:], shelf: [Tag("x")], featured: nil)
        let binary = try KeyedArchiver.archivedData(withRootObject: library)
        let xml = try KeyedArchiver.archivedData(withRootObject: library, format: .xml)
        let tree = try KeyedArchiver.archivedPropertyList(withRootObject: library)
        for back in [try KeyedUnarchiver().decode(Library.self, from: binary),
                     try KeyedUnarchiver().decode(Library.self, from: xml),
                     try KeyedUnarchiver().decode(Library.self, from: tree)] {
            #expect(back.name == "Main")
            #expect(back.books.map(\.title) == ["A", "B"])
            #expect(back.books.map(\.pages) == [1, 2])
            #expect(back.byCode.isEmpty)
            #expect(back.shelf == [Tag("x")])
            #expect(back.featured == nil)
        }
    }

    /// `{$archiver, $version, $top: {root: UID 1}, $objects: ["$null", {$class: UID 2, value: 1, value: 2},
    /// {$classname: "Counter", $classes: ["Counter", "NSObject"]}]}`, one-byte references and offsets.
    static func binaryArchiveWithRepeatedKey() -> Data {
        typealias P = HandWrittenBinaryPropertyList
        let ascii = P.ascii, int = P.int, uid = P.uid, array = P.array, dict = P.dict
        return P.file([
            dict([1, 2, 3, 4], [5, 6, 7, 8]),              // 0: root
            ascii("$archiver"), ascii("$version"),          // 1, 2
            ascii("$top"), ascii("$objects"),               // 3, 4
            P.keyedArchiver,                                // 5
            [0x12, 0x00, 0x01, 0x86, 0xA0],                 // 6: 100000
            dict([9], [10]),                                // 7: $top
            array([11, 12, 13]),                            // 8: $objects
            ascii("root"), uid(1),                          // 9, 10
            ascii("$null"),                                 // 11
            dict([14, 15, 15], [16, 17, 18]),               // 12: the object, "value" twice
            dict([19, 20], [21, 22]),                       // 13: its class
            ascii("$class"), ascii("value"),                // 14, 15
            uid(2), int(1), int(2),                         // 16, 17, 18
            ascii("$classname"), ascii("$classes"),         // 19, 20
            ascii("Counter"), array([21, 23]),              // 21, 22
            ascii("NSObject"),                              // 23
        ])
    }
}

/// Binary property lists built object by object (4-byte references and offsets), for archives whose
/// containers are shared in ways no writer produces.
enum HandMadeBinaryPropertyList {
    enum Object {
        case dictionary(keys: [Int], values: [Int])
        case array([Int])
        case ascii(String)
        case utf16(String)
        case integer(UInt32)
        case uid(UInt32)
    }

    static func encode(_ objects: [Object], top: Int = 0) -> Data {
        func count(_ high: UInt8, _ n: Int) -> [UInt8] {
            n < 15 ? [high | UInt8(n)] : [high | 0x0F, 0x12] + withUnsafeBytes(of: UInt32(n).bigEndian, Array.init)
        }
        func refs(_ list: [Int]) -> [UInt8] { list.flatMap { withUnsafeBytes(of: UInt32($0).bigEndian, Array.init) } }
        var out = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(out.count)
            switch object {
            case .dictionary(let keys, let values): out += count(0xD0, keys.count) + refs(keys) + refs(values)
            case .array(let elements): out += count(0xA0, elements.count) + refs(elements)
            case .ascii(let s): out += count(0x50, s.utf8.count) + Array(s.utf8)
            case .utf16(let s):
                out += count(0x60, s.utf16.count) + s.utf16.flatMap { withUnsafeBytes(of: $0.bigEndian, Array.init) }
            case .integer(let v): out += [0x12] + withUnsafeBytes(of: v.bigEndian, Array.init)
            case .uid(let v): out += [0x83] + withUnsafeBytes(of: v.bigEndian, Array.init)
            }
        }
        let tableOffset = out.count
        out += offsets.flatMap { withUnsafeBytes(of: UInt32($0).bigEndian, Array.init) }
        out += [0, 0, 0, 0, 0, 0, 4, 4]
        out += withUnsafeBytes(of: UInt64(objects.count).bigEndian, Array.init)
        out += withUnsafeBytes(of: UInt64(top).bigEndian, Array.init)
        out += withUnsafeBytes(of: UInt64(tableOffset).bigEndian, Array.init)
        return Data(out)
    }
}

extension OnDemandUnarchiverTests {
    /// An archive of `count` Counter objects, each with its own class dictionary; all the class
    /// dictionaries share one `$classes` array of `chainLength` strings, and every object dictionary also
    /// holds a `longKey` entry. Reading everything naively costs count x chainLength.
    static func sharedContainerArchive(count: Int, chainLength: Int, longKey: String) -> Data {
        typealias O = HandMadeBinaryPropertyList.Object
        var objects: [O] = []
        func add(_ o: O) -> Int { objects.append(o); return objects.count - 1 }
        let root = add(.dictionary(keys: [], values: []))  // filled in below
        let kArchiver = add(.ascii("$archiver")), kVersion = add(.ascii("$version")), kTop = add(.ascii("$top"))
        let kObjects = add(.ascii("$objects")), archiver = add(.ascii("NSKeyedArchiver")), version = add(.integer(100000))
        let kRoot = add(.ascii("root")), kClass = add(.ascii("$class")), kValue = add(.ascii("value"))
        let kClassname = add(.ascii("$classname")), kClasses = add(.ascii("$classes")), className = add(.ascii("Counter"))
        let kLong = add(.utf16(longKey)), longValue = add(.integer(0))
        let chainStrings = (0 ..< chainLength).map { add(.ascii("Counter\($0)")) } + [add(.ascii("NSObject"))]
        let chain = add(.array([className] + chainStrings))
        // $objects: 0 $null, 1 the NSArray, 2 its class, then (object, class dictionary) pairs.
        let null = add(.ascii("$null"))
        let kNSObjects = add(.ascii("NS.objects")), nsArrayName = add(.ascii("NSArray"))
        let nsArrayChain = add(.array([nsArrayName, chainStrings.last ?? nsArrayName]))
        let nsArrayClass = add(.dictionary(keys: [kClassname, kClasses], values: [nsArrayName, nsArrayChain]))
        let elementUIDs = (0 ..< count).map { add(.uid(UInt32(3 + 2 * $0))) }
        let nsArray = add(.dictionary(keys: [kClass, kNSObjects], values: [add(.uid(2)), add(.array(elementUIDs))]))
        var entries = [null, nsArray, nsArrayClass]
        for i in 0 ..< count {
            let classDict = add(.dictionary(keys: [kClassname, kClasses], values: [className, chain]))
            let object = add(.dictionary(keys: [kClass, kLong, kValue],
                                         values: [add(.uid(UInt32(4 + 2 * i))), longValue, add(.integer(UInt32(i)))]))
            entries += [object, classDict]
        }
        let top = add(.dictionary(keys: [kRoot], values: [add(.uid(1))]))
        let list = add(.array(entries))
        objects[root] = .dictionary(keys: [kArchiver, kVersion, kTop, kObjects], values: [archiver, version, top, list])
        return HandMadeBinaryPropertyList.encode(objects, top: root)
    }

    @Test func sharedClassChainsAndLongKeysAreReadOnce() throws {
        // 5,000 class dictionaries share a 20,000-string $classes array, and every object has a
        // 100,000-unit UTF-16 key: read naively, that is 100,000,000 array elements plus 5,000 long-key
        // decodes; read once per property-list object, it is about 25,000.
        let data = Self.sharedContainerArchive(count: 5_000, chainLength: 20_000,
                                               longKey: String(repeating: "\u{e9}", count: 100_000))
        let start = ContinuousClock.now
        let counters = try KeyedUnarchiver().decode([Counter].self, from: data)
        let elapsed = ContinuousClock.now - start
        #expect(counters.count == 5_000)
        #expect(counters.map(\.value) == Array(0 ..< 5_000))
        // Generous for a debug build on a loaded machine (it takes well under a second); reading the
        // shared array once per class dictionary took 18 s for 2,000 objects here, so about 45 s for these.
        #expect(elapsed < .seconds(10), "decoding took \(elapsed)")
    }
}
