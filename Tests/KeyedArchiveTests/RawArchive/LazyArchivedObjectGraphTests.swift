import Testing
import Foundation
@testable import KeyedArchive
import KeyedArchiveTestSupport

@Suite struct LazyArchivedObjectGraphTests {
    /// Every object, the envelope and `$top` of a lazily opened archive and of an on-demand graph are
    /// those of the eagerly read graph.
    private func expectSameGraph(_ data: Data, _ label: String) throws {
        let eager = try ArchivedObjectGraph(data: data)
        let lazy = try LazyArchivedObjectGraph(data: data)
        #expect(lazy.archiverName == eager.archiverName, "\(label)")
        #expect(lazy.version == eager.version, "\(label)")
        #expect(lazy.top == eager.top, "\(label)")
        #expect(lazy.count == eager.count, "\(label)")
        #expect(lazy.topReference() == eager.topReference(), "\(label)")
        for uid in eager.uids {
            #expect(try lazy.object(uid) == eager.object(uid), "\(label) #\(uid.value)")
            #expect(try lazy.className(of: uid) == eager.className(of: uid), "\(label) #\(uid.value)")
        }
        #expect(try lazy.object(UID(UInt64(eager.count))) == nil)
        #expect(try lazy.loadGraph() == eager, "\(label)")
        let onDemand = try ArchivedObjectGraph(onDemand: data)
        #expect(onDemand == eager, "\(label)")
        #expect(onDemand.hashValue == eager.hashValue, "\(label)")
        #expect(onDemand.objects == eager.objects, "\(label)")
        #expect(onDemand.top == eager.top, "\(label)")
        #expect(onDemand.instanceCounts() == eager.instanceCounts(), "\(label)")
        #expect(eager.uids.allSatisfy { onDemand.resolvedObject($0) == eager.resolvedObject($0) }, "\(label)")
    }

    /// The keyed-archive error of the first fault met: opening, then reading every object in UID order.
    private func lazyFault(_ data: Data) -> KeyedArchiveError? {
        do {
            let lazy = try LazyArchivedObjectGraph(data: data)
            for uid in lazy.uids { _ = try lazy.object(uid) }
            return nil
        } catch {
            return error as? KeyedArchiveError
        }
    }

    @Test(.requiresCorpus) func corpusArchivesReadLazilyAsEagerly() throws {
        var same = 0, rejected = 0
        for file in Corpus.files() {
            let data = try Corpus.data(file)
            guard let root = try? PropertyListValue(propertyListData: data), case .dictionary(let d) = root,
                  d["$archiver"] != nil else { continue }
            do {
                _ = try ArchivedObjectGraph(data: data)
            } catch let eagerError as KeyedArchiveError {
                // A broken archive: reading it lazily, opening and every object, finds a fault of the same kind.
                let lazyError = try #require(lazyFault(data), "\(file) was rejected eagerly (\(eagerError)) but not lazily")
                #expect(lazyError.code == eagerError.code, "\(file): eager \(eagerError), lazy \(lazyError)")
                rejected += 1
                continue
            }
            try expectSameGraph(data, file)
            same += 1
        }
        print("\(same) corpus archives read lazily as eagerly; \(rejected) broken ones rejected by both")
        #expect(same > 80)
    }

    @Test func ourArchiverAndFoundationArchivesReadLazilyAsEagerly() throws {
        let war = Book(title: "War and Peace", pages: 1225)
        let library = Library(name: "Town", books: [war, Book(title: "Emma", pages: 474)], byCode: ["WP": war],
                              shelf: [Tag("novel"), Tag("classic")], featured: war)
        try expectSameGraph(try KeyedArchiver.archivedData(withRootObject: library), "our Library")
        try expectSameGraph(try KeyedArchiver.archivedData(withRootObject: library, format: .xml), "our Library as XML")
        let foundationRoot: NSDictionary = ["names": ["a", "b", "a"] as NSArray, "blob": Data([1, 2, 3]) as NSData,
                                            "when": Date(timeIntervalSinceReferenceDate: 12.5) as NSDate, "n": 42 as NSNumber]
        try expectSameGraph(try NSKeyedArchiver.archivedData(withRootObject: foundationRoot, requiringSecureCoding: false),
                            "Foundation NSDictionary")
    }

    @Test func aLargeArchiveFileOpensMappedAndReadsOneObject() throws {
        let dir = ScratchDirectory()
        defer { dir.remove() }
        let books = (0 ..< 40_000).map { Book(title: "Book \($0)", pages: $0) }
        let data = try KeyedArchiver.archivedData(withRootObject: books)
        #expect(data.count > 1 << 20)  // large enough for FileReader to map it
        try data.write(to: URL(fileURLWithPath: dir.file("books.archive")))
        let lazy = try LazyArchivedObjectGraph(contentsOfFile: dir.file("books.archive"))
        let eager = try ArchivedObjectGraph(data: data)
        let root = try #require(lazy.topReference())
        #expect(try lazy.object(root) == eager.object(root))
        let uid = UID(UInt64(eager.count - 1))
        #expect(try lazy.object(uid) == eager.object(uid))
    }

    /// An archive of `$objects` written as given (so it can break the rules).
    private func archive(_ objects: [PropertyListValue], top: PropertyListValue = .uid(UID(1))) throws -> Data {
        let root: PropertyListValue = .dictionary(["$archiver": "NSKeyedArchiver", "$version": .integer(100000),
                                                   "$top": .dictionary(["root": top]), "$objects": .array(objects)])
        return try root.propertyListData(format: .binary)
    }

    private let fooClass: PropertyListValue = .dictionary(["$classname": "Foo", "$classes": .array(["Foo", "NSObject"])])

    @Test func anObjectWithAUIDOutOfRangeThrowsWhenRead() throws {
        let data = try archive(["$null", .dictionary(["$class": .uid(UID(2)), "next": .uid(UID(99))]), fooClass])
        let lazy = try LazyArchivedObjectGraph(data: data)  // opening does not read object 1
        #expect(throws: KeyedArchiveError.self) { try ArchivedObjectGraph(data: data) }
        let error = try #require(lazyFault(data))
        #expect(error.code == .invalidReference)
        #expect(error.objectUID == 1)
        #expect(error.keyPath == "next")
        #expect(try lazy.object(UID(2))?.content == .classDefinition(ArchivedClass(name: "Foo", chain: ["Foo", "NSObject"], uid: UID(2))))
    }

    @Test func anInstanceWithABadClassThrowsInvalidClass() throws {
        for bad: PropertyListValue in [.uid(UID(7)), .uid(UID(0)), "Foo", .uid(UID(3))] {
            let data = try archive(["$null", .dictionary(["$class": bad, "x": 1]), fooClass,
                                    .dictionary(["$classname": 3, "$classes": .array([])])])
            let eager = try #require(throws: KeyedArchiveError.self) { try ArchivedObjectGraph(data: data) }
            let error = try #require(lazyFault(data))
            #expect(error.code == .invalidClass, "\(bad)")
            #expect(error.code == eager.code, "\(bad)")
            #expect(error.objectUID == 1, "\(bad)")
        }
    }

    @Test func theEnvelopeIsCheckedWhenOpening() throws {
        let wrongNull = try archive(["nothing", fooClass])
        #expect { try LazyArchivedObjectGraph(data: wrongNull) } throws: { ($0 as? KeyedArchiveError)?.code == .invalidArchive }
        let topOutOfRange = try archive(["$null", fooClass], top: .uid(UID(5)))
        #expect { try LazyArchivedObjectGraph(data: topOutOfRange) } throws: { ($0 as? KeyedArchiveError)?.code == .invalidReference }
        // An inline $top value is what a program encoding a scalar straight into the archiver writes: it opens.
        let inlineTop = try archive(["$null", fooClass], top: "inline")
        #expect(try LazyArchivedObjectGraph(data: inlineTop).top.first?.value == .value("inline"))
        let outOfRangeInsideTop = try archive(["$null", fooClass], top: [.uid(UID(1)), .uid(UID(5))])
        #expect { try LazyArchivedObjectGraph(data: outOfRangeInsideTop) } throws: {
            ($0 as? KeyedArchiveError)?.code == .invalidReference && ($0 as? KeyedArchiveError)?.keyPath == "$top.root[1]"
        }
        let notAnArchive = try PropertyListValue.dictionary(["a": 1]).propertyListData(format: .binary)
        #expect { try LazyArchivedObjectGraph(data: notAnArchive) } throws: { ($0 as? KeyedArchiveError)?.code == .invalidArchive }
        let otherArchiver = try PropertyListValue.dictionary(["$archiver": "Other", "$version": .integer(100000),
                                                               "$top": .dictionary([:]), "$objects": .array(["$null"])])
            .propertyListData(format: .binary)
        #expect { try LazyArchivedObjectGraph(data: otherArchiver) } throws: { ($0 as? KeyedArchiveError)?.code == .invalidArchive }
        let truncated = try archive(["$null", fooClass]).dropLast(5)
        #expect { try LazyArchivedObjectGraph(data: Data(truncated)) } throws: { ($0 as? KeyedArchiveError)?.code == .invalidPropertyList }
    }

    /// Hand-made bytes: a valid archive whose root has one more key, an integer.
    @Test func aRootKeyThatIsNotAStringFailsWhenOpening() throws {
        typealias H = HandWrittenBinaryPropertyList
        let data = H.file([
            H.dict([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]),  // 0: the root -- key 1 is not a string
            H.int(5), H.ascii("$archiver"), H.ascii("$version"), H.ascii("$top"), H.ascii("$objects"),  // 1-5: keys
            H.int(1), H.keyedArchiver, [0x12, 0x00, 0x01, 0x86, 0xA0],  // 6-8: 1, "NSKeyedArchiver", 100000
            H.dict([11], [12]), H.array([13, 14]),  // 9: $top {root: UID 1}, 10: $objects ["$null", "x"]
            H.ascii("root"), H.uid(1), H.ascii("$null"), H.ascii("x"),  // 11-14
        ])
        let eager = try #require(throws: KeyedArchiveError.self) { try ArchivedObjectGraph(data: data) }
        let lazy = try #require(throws: KeyedArchiveError.self) { try LazyArchivedObjectGraph(data: data) }
        #expect(lazy.code == .invalidPropertyList)
        #expect(lazy.code == eager.code)
        #expect(lazy.underlying?.code == .invalidKey)
        #expect(lazy.underlying?.code == eager.underlying?.code)
        #expect(lazy.underlying?.location.objectNumber == 0)
    }

    @Test func nestingDeeperThanTheLimitThrowsTooDeepAsTheWholeReadDoes() throws {
        var deep: PropertyListValue = "bottom"
        for _ in 0 ..< 600 { deep = .array([deep]) }
        let data = try archive(["$null", deep])
        let eager = try #require(throws: KeyedArchiveError.self) { try ArchivedObjectGraph(data: data) }
        #expect(eager.code == .invalidPropertyList)
        #expect(eager.underlying?.code == .tooDeep)
        // The on-demand graph cannot clear it and reads the whole file: the very same error.
        let onDemand = try #require(throws: KeyedArchiveError.self) { try ArchivedObjectGraph(onDemand: data) }
        #expect(onDemand.description == eager.description)
        let lazy = try LazyArchivedObjectGraph(data: data)
        let error = try #require(throws: KeyedArchiveError.self) { try lazy.object(UID(1)) }
        #expect(error.code == .invalidPropertyList)
        #expect(error.underlying?.code == .tooDeep)
        #expect(error.objectUID == 1)
        // Within a raised limit both read it, to the same objects.
        var options = PropertyListReadingOptions()
        options.maximumDepth = 1_000
        let raised = try LazyArchivedObjectGraph(data: data, options: options)
        #expect(try raised.object(UID(1)) == ArchivedObjectGraph(data: data, options: options).object(UID(1)))
    }

    @Test func aBrokenOffsetTableEntryThrowsWhenItsObjectIsRead() throws {
        var bytes = [UInt8](try KeyedArchiver.archivedData(withRootObject: ["alpha", "beta"]))
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let count = bytes[(trailer + 8) ..< (trailer + 16)].reduce(0) { $0 << 8 | Int($1) }
        let table = bytes[(trailer + 24) ..< (trailer + 32)].reduce(0) { $0 << 8 | Int($1) }
        // Every object's entry in turn points past the object area: reading the archive must fail, lazily too.
        for n in 0 ..< count {
            var broken = bytes
            for i in 0 ..< offsetSize { broken[table + n * offsetSize + i] = 0xFF }
            let data = Data(broken)
            #expect(throws: KeyedArchiveError.self) { try ArchivedObjectGraph(data: data) }
            let error = try #require(lazyFault(data), "entry \(n)")
            #expect(error.code == .invalidPropertyList, "entry \(n)")
            #expect(error.underlying?.code == .invalidReference, "entry \(n)")
            #expect(error.underlying?.location.objectNumber == n, "entry \(n)")
        }
        bytes[0] = 0  // and a broken header fails at once
        #expect { try LazyArchivedObjectGraph(data: Data(bytes)) } throws: { ($0 as? KeyedArchiveError)?.code == .invalidPropertyList }
    }

    /// Hand-made bytes: object 2 is an array whose only element is itself.
    @Test func aContainerInsideItselfThrowsACycleWithItsObject() throws {
        let bytes: [UInt8] = Array("bplist00".utf8) + [
            0xD4, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A,  // 0 (offset 8): root {4 keys -> 4 values}
            0xA2, 0x0B, 0x0C,                                      // 1 (17): $objects ["$null", #12]
            0xA1, 0x02,                                            // 2 (20): an array holding itself -- CYCLE
            0x59] + Array("$archiver".utf8) + [                    // 3 (22)
            0x58] + Array("$version".utf8) + [                     // 4 (32)
            0x54] + Array("$top".utf8) + [                         // 5 (41)
            0x58] + Array("$objects".utf8) + [                     // 6 (46)
            0x5F, 0x10, 0x0F] + Array("NSKeyedArchiver".utf8) + [  // 7 (55)
            0x12, 0x00, 0x01, 0x86, 0xA0,                          // 8 (73): 100000
            0xD1, 0x0D, 0x0E,                                      // 9 (78): $top {root: UID 1}
            0x09,                                                  // 10 (81): true (unused)
            0x55] + Array("$null".utf8) + [                        // 11 (82)
            0xA1, 0x02,                                            // 12 (88): an array holding the cycle
            0x54] + Array("root".utf8) + [                         // 13 (90)
            0x80, 0x01,                                            // 14 (95): UID 1
        ]
        let offsets: [UInt8] = [8, 17, 20, 22, 32, 41, 46, 55, 73, 78, 81, 82, 88, 90, 95]
        let tableOffset = UInt64(bytes.count)
        var file = bytes + offsets
        file += [0, 0, 0, 0, 0, 0, 1, 1]
        for value in [UInt64(offsets.count), 0, tableOffset] { file += withUnsafeBytes(of: value.bigEndian) { Array($0) } }
        // Fix the root: keys 3...6, values 7 (archiver), 8 (version), 9 ($top), 1 ($objects).
        file.replaceSubrange(9 ..< 17, with: [0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x01])
        let data = Data(file)
        let eager = try #require(throws: KeyedArchiveError.self) { try ArchivedObjectGraph(data: data) }
        let lazy = try LazyArchivedObjectGraph(data: data)
        let error = try #require(throws: KeyedArchiveError.self) { try lazy.object(UID(1)) }
        #expect(error.code == .invalidPropertyList)
        #expect(error.code == eager.code)
        #expect(error.objectUID == 1)
        let underlying = try #require(error.underlying)
        #expect(underlying.code == .cycle)
        #expect(underlying.location.objectNumber == 2)
    }
}
