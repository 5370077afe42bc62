import Foundation
import Testing
@testable import KeyedArchive

// KeyedArchiver writes binary property-list objects as it encodes, without a PropertyListValue tree.
// The oracle is the archiver as it was (TreeReferenceArchiver: tree, then BinaryPropertyListWriter): for
// every input the emitted archive must be byte for byte what the old path wrote, and its tree the same.

/// A model whose fields are chosen by the test: each entry is written with the typed encoder method.
private struct Fields: KeyedArchivable {
    static var archivedClassName: String { "Fields" }  // private: its reflected name holds an address
    enum Value {
        case int(Int), int8(Int8), uint64(UInt64), double(Double), float(Float), bool(Bool), string(String)
        case data(Data), nilValue, strings([String]), object(Book), conditional(Book?)
        case integerObject(Int64), realObject(Double), boolObject(Bool)
    }
    var entries: [(String, Value)]
    init(_ entries: [(String, Value)]) { self.entries = entries }
    init(from decoder: any ArchiveDecoder) throws { entries = [] }
    func encode(to encoder: any ArchiveEncoder) throws {
        for (key, value) in entries {
            switch value {
            case .int(let v): try encoder.encode(v, forKey: key)
            case .int8(let v): try encoder.encode(v, forKey: key)
            case .uint64(let v): try encoder.encode(v, forKey: key)
            case .double(let v): try encoder.encode(v, forKey: key)
            case .float(let v): try encoder.encode(v, forKey: key)
            case .bool(let v): try encoder.encode(v, forKey: key)
            case .string(let v): try encoder.encode(v, forKey: key)
            case .data(let v): try encoder.encode(v, forKey: key)
            case .nilValue: try encoder.encodeNil(forKey: key)
            case .strings(let v): try encoder.encode(v, forKey: key)
            case .object(let v): try encoder.encode(v, forKey: key)
            case .conditional(let v): try encoder.encodeConditionalObject(v, forKey: key)
            case .integerObject(let v): try encoder.encodeIntegerObject(v, forKey: key)
            case .realObject(let v): try encoder.encodeRealObject(v, forKey: key)
            case .boolObject(let v): try encoder.encodeBoolObject(v, forKey: key)
            }
        }
    }
}

/// A model that throws from its encode after writing one field.
private struct Failing: KeyedArchivable {
    static var archivedClassName: String { "Failing" }
    struct Refusal: Error {}
    init() {}
    init(from decoder: any ArchiveDecoder) throws {}
    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode("before", forKey: "written")
        throw Refusal()
    }
}

@Suite struct ArchiverEmitterTests {
    /// Both archivers on the same top-level values: the emitted bytes must equal the old path's bytes,
    /// and the emitted archive's tree (keys in order) the old tree.
    private func expectSameArchive(_ note: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
                                   _ encode: (any ArchiveEncoder) throws -> Void) throws {
        let ours = KeyedArchiver()
        let reference = TreeReferenceArchiver()
        try encode(ours)
        try encode(reference)
        let bytes = try ours.encodedData()
        let referenceTree = try reference.finishEncoding()
        let referenceBytes = BinaryPropertyListWriter().write(referenceTree)
        #expect(bytes == referenceBytes, note, sourceLocation: sourceLocation)
        let tree = try ours.encodedPropertyList()
        #expect(identical(tree, referenceTree), note, sourceLocation: sourceLocation)
    }

    /// Exact equality: strings by Unicode scalars, dictionaries by their keys and values in order. (`==`
    /// compares strings by canonical equivalence and dictionaries by lookup, which a dictionary holding
    /// two canonically equivalent keys defeats.)
    private func identical(_ a: PropertyListValue, _ b: PropertyListValue) -> Bool {
        switch (a, b) {
        case (.string(let x), .string(let y)): return x.unicodeScalars.elementsEqual(y.unicodeScalars)
        case (.array(let x), .array(let y)), (.set(let x), .set(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { identical($0, $1) }
        case (.dictionary(let x), .dictionary(let y)):
            return x.keys.count == y.keys.count
                && zip(x.keys, y.keys).allSatisfy { $0.unicodeScalars.elementsEqual($1.unicodeScalars) }
                && zip(x.values, y.values).allSatisfy { identical($0, $1) }
        default: return a == b
        }
    }

    /// The trailer's reference size and object count.
    private func trailer(_ data: Data) -> (refSize: Int, objectCount: Int) {
        let bytes = [UInt8](data.suffix(32))
        let count = bytes[8 ..< 16].reduce(0) { $0 << 8 | Int($1) }
        return (Int(bytes[7]), count)
    }

    @Test func emittedBytesEqualTheTreePathForEveryKindOfField() throws {
        // One value for both archivers: two equal sets (or dictionaries) may iterate in different orders
        // (Swift seeds each instance's hashing apart), and the archive is written in iteration order.
        let plain = EveryField()
        try expectSameArchive { try $0.encode(plain, forKey: "root") }
        var model = EveryField()
        model.optionalAbsent = 5
        model.string = "plain"
        try expectSameArchive { try $0.encode([model, plain, model], forKey: "root") }
    }

    @Test func numbersWrittenAsObjectsAreReferencedByUIDAndReadBack() throws {
        let fields = Fields([("location", .integerObject(7)), ("length", .integerObject(7)), ("scale", .realObject(2.5)),
                             ("inline", .int(7)), ("flag", .boolObject(true))])
        try expectSameArchive { try $0.encode(fields, forKey: "root") }
        let archive = try KeyedArchiver.archivedPropertyList(withRootObject: fields)
        guard case .dictionary(let envelope) = archive, case .array(let objects)? = envelope["$objects"],
              case .dictionary(let top)? = envelope["$top"], case .uid(let root)? = top["root"],
              case .dictionary(let object) = objects[Int(root.value)] else {
            Issue.record("unexpected archive shape: \(archive)")
            return
        }
        // Each number written as an object is its own $objects entry (as each string is); the inline field is not.
        guard case .uid(let location)? = object["location"], case .uid(let length)? = object["length"],
              case .uid(let scale)? = object["scale"], case .uid(let flag)? = object["flag"] else {
            Issue.record("number members are not UIDs: \(object)")
            return
        }
        #expect(location != length)
        #expect(objects[Int(length.value)] == PropertyListValue.integer(PropertyListInteger(7)))
        #expect(objects[Int(location.value)] == PropertyListValue.integer(PropertyListInteger(7)))
        #expect(objects[Int(scale.value)] == PropertyListValue.real(2.5))
        #expect(objects[Int(flag.value)] == PropertyListValue.bool(true))
        #expect(object["inline"] == PropertyListValue.integer(PropertyListInteger(7)))

        struct Reader: KeyedArchivable {
            var location: Int, scale: Double, flag: Bool
            init(from decoder: any ArchiveDecoder) throws {
                flag = try decoder.decode(Bool.self, forKey: "flag")
                location = try decoder.decode(Int.self, forKey: "location")
                scale = try decoder.decode(Double.self, forKey: "scale")
            }
            func encode(to encoder: any ArchiveEncoder) throws {}
            static var archivedClassName: String { Fields.archivedClassName }
        }
        let decoded = try KeyedUnarchiver.unarchivedObject(ofClass: Reader.self, from: try KeyedArchiver.archivedData(withRootObject: fields))
        #expect(decoded.location == 7)
        #expect(decoded.scale == 2.5)
        #expect(decoded.flag)
    }

    @Test func emittedBytesEqualTheTreePathForSharedAndCyclicGraphs() throws {
        let a = Book(title: "A", pages: 10)
        let b = Book(title: "B", pages: 20)
        let library = Library(name: "City", books: [a, b, a], byCode: ["x": a, "y": b],
                              shelf: [Tag("new"), Tag("old")], featured: b)
        try expectSameArchive { try $0.encode(library, forKey: "root") }
        try expectSameArchive { try $0.encode([library, library], forKey: "root") }
        let ring = Node("a")
        let second = Node("b")
        ring.children = [second]
        second.children = [ring]
        second.parent = ring
        ring.next = second
        try expectSameArchive { try $0.encode(ring, forKey: "root") }
        let zoo: [Animal] = [Animal(name: "generic"), Dog(name: "rex", barks: 5), Dog(name: "fido", barks: 1)]
        try expectSameArchive { try $0.encode(zoo, forKey: "root") }
    }

    @Test func emittedBytesEqualTheTreePathForFoundationValuesAndTopLevelKeys() throws {
        let value = FoundationValue.dictionary([
            .string("list"): .array([.integer(1), .real(2.5), .bool(true), .null, .string("s"), .data(Data([1]))]),
            .string("when"): .date(Date(timeIntervalSinceReferenceDate: 5)),
            .integer(7): .orderedSet([.uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)))]),
            .string("set"): .set([.integer(3), .string("b"), .integer(1), .string("b")]),
            .string("url"): .url(URL(string: "a/b", relativeTo: URL(string: "https://example.com/x/"))!),
        ])
        try expectSameArchive { try $0.encode(value, forKey: "root") }
        try expectSameArchive { encoder in
            try encoder.encode(Book(title: "T", pages: 1), forKey: "book")
            try encoder.encode(7, forKey: "count")
            try encoder.encode("x", forKey: "$weird")
            try encoder.encode(8, forKey: "count")            // last one wins, in its first position
            try encoder.encode("root string", forKey: "root")
        }
        try expectSameArchive { try $0.encode("just a string", forKey: "root") }
        let set: Set<String> = ["x", "y", "z"]  // one instance: its order is the same for both archivers
        try expectSameArchive { try $0.encode(set, forKey: "root") }
        try expectSameArchive { _ in }                        // an empty archive
    }

    @Test func keysStartingWithDollarAreEscapedAsBefore() throws {
        let model = Fields([("$", .int(1)), ("$$x", .int(2)), ("$class", .int(3)), ("$0", .string("$null")),
                            ("plain", .string("$class")), ("$classname", .bool(false))])
        try expectSameArchive { try $0.encode(model, forKey: "$root") }
        let tree = try KeyedArchiver.archivedPropertyList(withRootObject: model)
        let object = try #require(ArchiveFixture.objects(tree)[1].dictionaryValue)
        #expect(object.keys == ["$class", "$$", "$$$x", "$$class", "$$0", "plain", "$$classname"])
        #expect(object["$$class"] == 3)
    }

    @Test func repeatedKeysFollowTheArchiversRules() throws {
        // In an object, a key repeats when it is equal as a Swift string and has the same UTF-8 length:
        // "é" precomposed and decomposed, or "K" and the Kelvin sign, are different keys; two orders of the
        // same combining marks (canonically equivalent, same length) are one key.
        let marks1 = "a\u{301}\u{316}", marks2 = "a\u{316}\u{301}"
        let model = Fields([("caf\u{E9}", .int(1)), ("K", .int(2)), ("cafe\u{301}", .int(3)), ("\u{212A}", .string("k")),
                            (marks1, .int(5)), (marks2, .int(6)), ("other", .int(4)), ("other", .string("again"))])
        try expectSameArchive { try $0.encode(model, forKey: "root") }
        let object = try #require(ArchiveFixture.objects(KeyedArchiver.archivedPropertyList(withRootObject: model))[1]
            .dictionaryValue)
        #expect(object.keys.map { Array($0.unicodeScalars) }
                == ["$class", "caf\u{E9}", "K", "cafe\u{301}", "\u{212A}", marks1, "other"].map { Array($0.unicodeScalars) })
        #expect(object.values[5] == 6)
        // In $top, keys equal as Swift strings are one key, whatever their bytes.
        try expectSameArchive { encoder in
            try encoder.encode(1, forKey: "caf\u{E9}")
            try encoder.encode(2, forKey: "cafe\u{301}")
            try encoder.encode(3, forKey: "\u{212A}")
            try encoder.encode(4, forKey: "K")
        }
        // A string value and a key with the same bytes are one object, as the writer shares them.
        try expectSameArchive { try $0.encode(Fields([("name", .string("name")), ("x", .string("name"))]), forKey: "root") }
    }

    @Test func keysBuiltAtRunTimeBeyondTheKeyCacheStillMatch() throws {
        // 700 distinct long keys (heap strings, built anew for each object) overflow the key cache.
        let models = (0 ..< 3).map { round in
            Fields((0 ..< 700).map { ("a key long enough to live on the heap \($0)", .int(round * 1000 + $0 % 5)) })
        }
        try expectSameArchive { try $0.encode(models, forKey: "root") }
    }

    @Test func integersRealsAndUIDsAreWrittenOnce() throws {
        func objectCount(_ values: [Fields.Value]) throws -> Int {
            let model = Fields(values.enumerated().map { ("k\($0.offset)", $0.element) })
            return trailer(try KeyedArchiver.archivedData(withRootObject: model)).objectCount
        }
        let same = try objectCount(Array(repeating: .int(300), count: 50))
        let distinct = try objectCount((0 ..< 50).map { .int(1000 + $0) })
        #expect(distinct - same == 49)
        let sameReal = try objectCount(Array(repeating: .double(2.5), count: 50))
        let distinctReal = try objectCount((0 ..< 50).map { .double(Double($0) + 0.5) })
        #expect(distinctReal - sameReal == 49)
        // 1 as an integer, a 1-byte Int8, a real, a float and true: four distinct objects, 1 and Int8(1) one.
        let mixed = try objectCount([.int(1), .int8(1), .double(1), .float(1), .bool(true)])
        let ints = try objectCount([.int(1), .int8(1), .int(1), .int(1), .int(1)])
        #expect(mixed - ints == 3)
        // The same object referenced 50 times: one UID object.
        let book = Book(title: "t", pages: 1)
        let shared = try objectCount(Array(repeating: .object(book), count: 50))
        let separate = try objectCount((0 ..< 50).map { _ in .object(Book(title: "t", pages: 1)) })
        // Per extra book: its dictionary, its UID and its title's UID (the title string and pages are shared).
        #expect(separate - shared == 49 * 3)
        try expectSameArchive { try $0.encode(Fields([("a", .uint64(.max)), ("b", .int(-1)), ("c", .double(-0.0)),
                                                      ("d", .double(0.0)), ("e", .double(.nan)), ("f", .float(.nan))]),
                                              forKey: "root") }
    }

    @Test func referenceWidthGrowsPast255And65535Objects() throws {
        for count in [100, 300, 40_000] {
            let strings = (0 ..< count).map { "s\($0)" }
            let data = try KeyedArchiver.archivedData(withRootObject: strings)
            let (refSize, objectCount) = trailer(data)
            #expect(refSize == (objectCount < 256 ? 1 : objectCount < 65_536 ? 2 : 4))
            #expect(try KeyedUnarchiver().decode([String].self, from: data) == strings)
            let reference = TreeReferenceArchiver()
            try reference.encode(strings, forKey: "root")
            #expect(data == BinaryPropertyListWriter().write(try reference.finishEncoding()))
        }
        #expect(trailer(try KeyedArchiver.archivedData(withRootObject: (0 ..< 40_000).map { "s\($0)" })).refSize == 4)
    }

    /// The output buffer is allocated once, at ``KeyedArchiveEmitter/outputBound()``: the bound must hold
    /// every archive (or the buffer would grow, copying it) and stay close to its size (a generous bound
    /// cost fresh memory on every archive).
    @Test func outputBoundHoldsTheArchiveAndStaysCloseToIt() throws {
        func check(_ archiver: KeyedArchiver, tight: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let data = try archiver.encodedData()
            let bound = archiver.s.emitter.outputBound()
            #expect(data.count <= bound, "\(data.count) bytes written, bound \(bound)", sourceLocation: sourceLocation)
            if tight {
                #expect(bound <= data.count + data.count / 4 + 512, "\(data.count) bytes written, bound \(bound)",
                        sourceLocation: sourceLocation)
            }
        }
        try check(KeyedArchiver())
        var model = EveryField()
        model.string = "plain"
        for root in [[EveryField()], [model, EveryField(), model]] {
            let archiver = KeyedArchiver()
            try archiver.encode(root, forKey: "root")
            try check(archiver)
        }
        // Reference widths 1, 2 and 4 bytes; offsets of 4 bytes past a 16 MiB blob.
        for count in [100, 300, 40_000, 70_000] {
            let archiver = KeyedArchiver()
            try archiver.encode((0 ..< count).map { "s\($0)" }, forKey: "root")
            try check(archiver)
        }
        let blob = KeyedArchiver()
        try blob.encode(Data(repeating: 7, count: 1 << 24), forKey: "root")
        try check(blob)
        // A failed encode leaves a placeholder, and interned keys nothing uses stay in the pool.
        let failed = KeyedArchiver()
        #expect(throws: Failing.Refusal.self) { try failed.encode([Failing()], forKey: "root") }
        try check(failed, tight: false)
    }

    /// Objects are numbered depth-first (pre-order), the order an unarchiver decodes them in and Apple's
    /// recursive archiver writes them in: a whole subtree before the next sibling. (Breadth-first, as the
    /// archiver's work queue meets them, would give a b c d e f.)
    @Test func objectsAreNumberedDepthFirst() throws {
        let (a, b, c, d, e, f) = (Node("a"), Node("b"), Node("c"), Node("d"), Node("e"), Node("f"))
        a.children = [b, c]
        b.children = [d, e]
        c.children = [f]
        f.next = d  // already numbered: keeps its number
        let graph = try ArchivedObjectGraph(data: KeyedArchiver.archivedData(withRootObject: a))
        var uidByName: [String: UInt64] = [:]
        for object in graph.objects {
            guard let instance = object.instance, instance.className == Node.archivedClassName,
                  let nameUID = instance["name"]?.referenceUID,
                  case .value(.string(let name))? = graph.object(nameUID)?.content else { continue }
            uidByName[name] = object.uid.value
        }
        let order = uidByName.sorted { $0.value < $1.value }.map(\.key)
        #expect(order == ["a", "b", "d", "e", "c", "f"])
        #expect(graph.topReference() == UID(1))
        // Each node's name comes right after the node (its first field), before the next node.
        for (name, uid) in uidByName {
            let nameUID = try #require(graph.object(UID(uid))?.instance?["name"]?.referenceUID)
            #expect(nameUID.value > uid && !uidByName.values.contains { $0 > uid && $0 < nameUID.value }, "\(name)")
        }
        // A chain far deeper than any stack: numbered in chain order, and it reads back.
        let head = ListNode(0)
        var tail = head
        for i in 1 ..< 100_000 {
            let node = ListNode(i)
            tail.next = node
            tail = node
        }
        let chain = try ArchivedObjectGraph(data: KeyedArchiver.archivedData(withRootObject: head))
        var previous: UInt64 = 0
        var uid = chain.topReference()
        var visited = 0
        while let current = uid, let instance = chain.object(current)?.instance {
            #expect(current.value > previous)
            previous = current.value
            visited += 1
            uid = instance["next"]?.referenceUID
        }
        #expect(visited == 100_000)
        ListNode.dismantle(head)
    }

    /// `FoundationValue.set` is written as an NSSet of its distinct elements in stored order (not through a
    /// `Set`, whose order can differ between equal instances): the same value gives the same bytes, and it
    /// reads back in that order.
    @Test func foundationSetsAreWrittenInStoredOrder() throws {
        let elements: [FoundationValue] = (0 ..< 50).map { .string("element \($0)") }
        let value = FoundationValue.set(elements + [elements[7], elements[0]])
        let archives = try (0 ..< 5).map { _ in try KeyedArchiver.archivedData(withRootObject: value) }
        #expect(Set(archives).count == 1)
        #expect(try KeyedUnarchiver().decode(FoundationValue.self, from: archives[0]) == .set(elements))
        let foundation = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSSet.self, NSString.self], from: archives[0]) as? NSSet
        #expect(foundation?.count == 50)
        #expect(foundation?.contains("element 49") == true)
    }

    /// A `Comparable` model, sorted through its own `<` (the archiver's generic path).
    struct Rank: KeyedArchivable, Hashable, Comparable {
        var level: Int
        var name: String
        static func < (a: Rank, b: Rank) -> Bool { (a.level, a.name) < (b.level, b.name) }
        init(_ level: Int, _ name: String) { (self.level, self.name) = (level, name) }
        init(from decoder: any ArchiveDecoder) throws {
            level = try decoder.decode(Int.self, forKey: "level")
            name = try decoder.decode(String.self, forKey: "name")
        }
        func encode(to encoder: any ArchiveEncoder) throws {
            try encoder.encode(level, forKey: "level")
            try encoder.encode(name, forKey: "name")
        }
    }

    /// A model whose fields are native sets and dictionaries of `Comparable` elements and keys.
    struct Catalog: KeyedArchivable, Equatable {
        var names: Set<String>
        var codes: Set<Int>
        var small: Set<UInt32>
        var ranks: Set<Rank>
        var counts: [String: Int]
        var labels: [Int: String]
        var nested: [String: Set<String>]
        init(from decoder: any ArchiveDecoder) throws {
            names = try decoder.decode(Set<String>.self, forKey: "names")
            codes = try decoder.decode(Set<Int>.self, forKey: "codes")
            small = try decoder.decode(Set<UInt32>.self, forKey: "small")
            ranks = try decoder.decode(Set<Rank>.self, forKey: "ranks")
            counts = try decoder.decode([String: Int].self, forKey: "counts")
            labels = try decoder.decode([Int: String].self, forKey: "labels")
            nested = try decoder.decode([String: Set<String>].self, forKey: "nested")
        }
        init(order: [Int], capacity: Int, words: [String]) {
            names = Set(minimumCapacity: capacity); codes = Set(minimumCapacity: capacity)
            small = Set(minimumCapacity: capacity); ranks = Set(minimumCapacity: capacity)
            counts = Dictionary(minimumCapacity: capacity); labels = Dictionary(minimumCapacity: capacity)
            nested = Dictionary(minimumCapacity: capacity)
            for i in order {
                names.insert(words[i]); codes.insert(i * 1_000_003 % 97 - 40); small.insert(UInt32(i * 7919 % 1000))
                ranks.insert(Rank(i % 5, words[i]))
                counts[words[i]] = i; labels[i - 30] = words[i]
                nested[words[i % 10], default: []].insert(words[i])
            }
        }
        func encode(to encoder: any ArchiveEncoder) throws {
            try encoder.encode(names, forKey: "names")
            try encoder.encode(codes, forKey: "codes")
            try encoder.encode(small, forKey: "small")
            try encoder.encode(ranks, forKey: "ranks")
            try encoder.encode(counts, forKey: "counts")
            try encoder.encode(labels, forKey: "labels")
            try encoder.encode(nested, forKey: "nested")
        }
    }

    /// Reads an archive's objects by hand: the object a UID refers to, and the objects an
    /// `NS.objects` / `NS.keys` array refers to.
    struct ArchiveObjects {
        let objects: [PropertyListValue]
        let top: PropertyListDictionary
        init(_ data: Data) throws {
            let archive = try PropertyListValue(propertyListData: data)
            objects = try #require(archive.dictionaryValue?["$objects"]?.arrayValue)
            top = try #require(archive.dictionaryValue?["$top"]?.dictionaryValue)
        }
        func object(_ reference: PropertyListValue?) throws -> PropertyListValue {
            let uid = try #require(reference?.uidValue)
            return try #require(objects.indices.contains(Int(uid.value)) ? objects[Int(uid.value)] : nil)
        }
        func elements(_ reference: PropertyListValue?, _ key: String) throws -> [PropertyListValue] {
            try #require(try object(reference).dictionaryValue?[key]?.arrayValue).map { try object($0) }
        }
        func strings(_ reference: PropertyListValue?, _ key: String) throws -> [String] {
            try elements(reference, key).map { try #require($0.stringValue) }
        }
        func integers(_ reference: PropertyListValue?, _ key: String) throws -> [Int] {
            try elements(reference, key).map { try #require($0.integerValue?.int64Value.map(Int.init)) }
        }
    }

    @Test func comparableSetsAndDictionariesAreWrittenAscending() throws {
        let words = (0 ..< 60).map { "word \($0 * 7919 % 60)" }
        // Equal values built in different orders and with different capacities: their iteration
        // orders differ (Swift seeds each instance's hashing separately).
        let values = [Catalog(order: Array(0 ..< 60), capacity: 0, words: words),
                      Catalog(order: Array((0 ..< 60).reversed()), capacity: 500, words: words),
                      Catalog(order: (0 ..< 60).map { $0 * 37 % 60 }, capacity: 61, words: words),
                      Catalog(order: Array(0 ..< 60), capacity: 200, words: words)]
        #expect(values.allSatisfy { $0 == values[0] })
        let archives = try values.map { try KeyedArchiver.archivedData(withRootObject: $0) }
        #expect(Set(archives).count == 1, "\(Set(archives).count) different archives of one value")
        #expect(try KeyedUnarchiver().decode(Catalog.self, from: archives[0]) == values[0])
        // The tree path orders the same way, byte for byte.
        try expectSameArchive { try $0.encode(values[1], forKey: "root") }

        // In the archive itself: NS.objects of the sets and NS.keys of the dictionaries ascend.
        let archive = try ArchiveObjects(archives[0])
        let root = try #require(try archive.object(archive.top["root"]).dictionaryValue)
        let value = values[0]
        #expect(try archive.strings(root["names"], "NS.objects") == value.names.sorted())
        #expect(try archive.integers(root["codes"], "NS.objects") == value.codes.sorted())
        #expect(try archive.integers(root["small"], "NS.objects") == value.small.sorted().map(Int.init))
        let ranks = try archive.elements(root["ranks"], "NS.objects").map { rank in
            try #require(try archive.object(rank.dictionaryValue?["name"]).stringValue)
        }
        #expect(ranks == value.ranks.sorted().map(\.name))
        #expect(try archive.strings(root["counts"], "NS.keys") == value.counts.keys.sorted())
        #expect(try archive.integers(root["counts"], "NS.objects") == value.counts.keys.sorted().compactMap { value.counts[$0] })
        #expect(try archive.integers(root["labels"], "NS.keys") == value.labels.keys.sorted())
        #expect(try archive.strings(root["nested"], "NS.keys") == value.nested.keys.sorted())

        // Foundation reads a sorted dictionary with each key still paired with its value.
        let counts = try KeyedArchiver.archivedData(withRootObject: values[2].counts)
        let countsInFoundation = try #require(try NSKeyedUnarchiver.unarchivedObject(
            ofClasses: [NSDictionary.self, NSString.self, NSNumber.self], from: counts) as? [String: Int])
        #expect(countsInFoundation == value.counts)
    }

    @Test func floatingPointSetsUseTheTotalOrder() throws {
        // NaN compares false with everything under `<`; the IEEE 754 total order places it last.
        let reals: [Double] = [3, .nan, 1, -0.0, .infinity, -.infinity, -2.5, 1e-300]
        let expected: [Double] = [-.infinity, -2.5, -0.0, 1e-300, 1, 3, .infinity, .nan]
        var forward = Set<Double>(), backward = Set<Double>(minimumCapacity: 100)
        for x in reals { forward.insert(x) }
        for x in reals.reversed() { backward.insert(x) }
        let archives = try [forward, backward].map { try KeyedArchiver.archivedData(withRootObject: $0) }
        #expect(archives[0] == archives[1])
        try expectSameArchive { try $0.encode(backward, forKey: "root") }
        let archive = try ArchiveObjects(archives[0])
        let written = try archive.elements(archive.top["root"], "NS.objects").map { element -> Double in
            guard case .real(let x) = element else { throw KeyedArchiveError(.typeMismatch, "not a real: \(element)") }
            return x
        }
        #expect(written.map(\.bitPattern) == expected.map(\.bitPattern))

        let floats: Set<Float> = [2, .nan, -1, 0.5]
        try expectSameArchive { try $0.encode(floats, forKey: "root") }
        let dates = Set((0 ..< 30).map { Date(timeIntervalSinceReferenceDate: Double($0 * 7 % 30) * 3600) })
        let dateArchive = try ArchiveObjects(KeyedArchiver.archivedData(withRootObject: dates))
        let times = try dateArchive.elements(dateArchive.top["root"], "NS.objects").map { date in
            try #require(date.dictionaryValue?["NS.time"].flatMap { value -> Double? in
                if case .real(let x) = value { x } else { nil }
            })
        }
        #expect(times == dates.map(\.timeIntervalSinceReferenceDate).sorted())
    }

    @Test func foundationValueCollectionsOfStringsAreWrittenAscending() throws {
        let pairs = (0 ..< 40).map { (FoundationValue.string("k\($0 * 7 % 40)"), FoundationValue.integer(PropertyListInteger(Int64($0)))) }
        var forward = [FoundationValue: FoundationValue](), backward = [FoundationValue: FoundationValue](minimumCapacity: 300)
        for (k, v) in pairs { forward[k] = v }
        for (k, v) in pairs.reversed() { backward[k] = v }
        let archives = try [forward, backward].map { try KeyedArchiver.archivedData(withRootObject: FoundationValue.dictionary($0)) }
        #expect(archives[0] == archives[1])
        #expect(try KeyedUnarchiver().decode(FoundationValue.self, from: archives[1]) == .dictionary(forward))
        try expectSameArchive { try $0.encode(FoundationValue.dictionary(backward), forKey: "root") }
        let archive = try ArchiveObjects(archives[0])
        #expect(try archive.strings(archive.top["root"], "NS.keys") == (0 ..< 40).map { "k\($0)" }.sorted())

        // A native Set of FoundationValue strings is ordered the same way.
        let set = Set((0 ..< 25).map { FoundationValue.string("s\($0)") })
        let setArchive = try ArchiveObjects(KeyedArchiver.archivedData(withRootObject: set))
        #expect(try setArchive.strings(setArchive.top["root"], "NS.objects") == (0 ..< 25).map { "s\($0)" }.sorted())
        try expectSameArchive { try $0.encode(set, forKey: "root") }

        // Keys that are not all strings keep the dictionary's order, and still round-trip.
        let mixed = FoundationValue.dictionary([.string("a"): .null, .integer(1): .string("one"), .bool(true): .real(2)])
        #expect(try KeyedUnarchiver().decode(FoundationValue.self, from: KeyedArchiver.archivedData(withRootObject: mixed)) == mixed)
        try expectSameArchive { try $0.encode(mixed, forKey: "root") }
    }

    @Test func outputIsDeterministic() throws {
        let a = Book(title: "A", pages: 10)
        let library = Library(name: "City", books: [a, Book(title: "B", pages: 2)], byCode: ["x": a],
                              shelf: [Tag("n")], featured: a)
        let first = try KeyedArchiver.archivedData(withRootObject: library)
        let second = try KeyedArchiver.archivedData(withRootObject: library)
        #expect(first == second)
        let archiver = KeyedArchiver()
        try archiver.encode(library, forKey: "root")
        let once = try archiver.encodedData()
        #expect(try archiver.encodedData() == once)           // later calls give the same bytes
        #expect(once == first)
        _ = try archiver.encodedPropertyList()
        #expect(try archiver.encodedData() == once)
    }

    @Test func conditionalObjectsArePatchedAsBefore() throws {
        let inside = Book(title: "in", pages: 1)
        let outside = Book(title: "out", pages: 2)
        let model = Fields([("later", .conditional(inside)), ("never", .conditional(outside)), ("none", .conditional(nil)),
                            ("book", .object(inside))])
        try expectSameArchive { try $0.encode(model, forKey: "root") }
        // A conditional at the top level, made unconditional by a later field.
        try expectSameArchive { encoder in
            try encoder.encodeConditionalObject(inside, forKey: "maybe")
            try encoder.encode(model, forKey: "root")
        }
        // A conditional whose key is encoded again afterwards: the old path patched the key's slot anyway.
        try expectSameArchive { try $0.encode(Fields([("k", .conditional(inside)), ("k", .int(5)), ("b", .object(inside))]),
                                              forKey: "root") }
    }

    @Test func failedEncodingLeavesThePlaceholderTheOldPathLeft() throws {
        let ours = KeyedArchiver()
        let reference = TreeReferenceArchiver()
        #expect(throws: Failing.Refusal.self) { try ours.encode([Failing()], forKey: "root") }
        #expect(throws: Failing.Refusal.self) { try reference.encode([Failing()], forKey: "root") }
        try ours.encode("after", forKey: "other")
        try reference.encode("after", forKey: "other")
        #expect(try ours.encodedData() == BinaryPropertyListWriter().write(try reference.finishEncoding()))
        #expect(throws: KeyedArchiveError.self) { try ours.encode(1, forKey: "late") }
    }

    @Test func emittedArchiveDecodesInFoundationAndInOurUnarchiver() throws {
        // 300 notes with shared children: more than 255 objects, so references take 2 bytes.
        let leaves = (0 ..< 20).map { FNote(title: "leaf \($0)", count: $0) }
        let originals = (0 ..< 300).map { FNote(title: "note \($0)", count: $0, children: [leaves[$0 % 20]]) }
        let notes = originals.map(Note.init(matching:))
        let data = try KeyedArchiver.archivedData(withRootObject: notes)
        #expect(trailer(data).refSize == 2)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSArray.self, FNote.self], from: data) as? [FNote])
        #expect(decoded.count == originals.count)
        for (ours, theirs) in zip(decoded.map(Note.init(matching:)), originals) {
            #expect(ours.matches(theirs) == [])
        }
        let back = try KeyedUnarchiver().decode([Note].self, from: data)
        #expect(zip(back, originals).allSatisfy { $0.matches($1).isEmpty })
        #expect(back.count == originals.count)
    }

    @Test func largeArchiveDecodesInFoundationWithFourByteReferences() throws {
        // 70,000 distinct strings: more than 65,535 objects.
        let strings = (0 ..< 70_000).map { "string number \($0)" }
        let data = try KeyedArchiver.archivedData(withRootObject: strings)
        #expect(trailer(data).refSize == 4)
        let decoded = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSArray.self, NSString.self], from: data) as? NSArray)
        #expect(decoded.count == strings.count)
        #expect(decoded.compactMap { ($0 as? NSString).map { String(describing: $0) } } == strings)
    }
}
