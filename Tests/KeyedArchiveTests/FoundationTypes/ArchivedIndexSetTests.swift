import Foundation
import Testing
@testable import KeyedArchive

@Suite struct ArchivedIndexSetTests {
    static let manyRanges: [Range<Int>] = [0 ..< 50, 100 ..< 150, 1000 ..< 1050, Int.max - 50 ..< Int.max]

    // MARK: Apple's fixtures

    @Test(.enabled(if: FoundationFixtures.available))
    func darwinIndexSetFixturesRead() throws {
        for prefix in ["NSIndexSet", "NSMutableIndexSet"] {
            func read(_ name: String) throws -> [Range<Int>] {
                try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedIndexSet.self, from: FoundationFixtures.data("\(prefix)-\(name).archive")).ranges
            }
            #expect(try read("Empty") == [])
            #expect(try read("OneRange") == [0 ..< 50])
            #expect(try read("ManyRanges") == Self.manyRanges)
        }
    }

    @Test(.enabled(if: FoundationFixtures.available))
    func ourIndexSetsHaveTheFixturesStructure() throws {
        for (name, ranges) in [("Empty", []), ("OneRange", [0 ..< 50]), ("ManyRanges", Self.manyRanges)] as [(String, [Range<Int>])] {
            let ours = try KeyedArchiver.archivedData(withRootObject: ArchivedIndexSet(ranges: ranges))
            #expect(try ArchiveStructure.differences(expected: FoundationFixtures.data("NSIndexSet-\(name).archive"), actual: ours) == [],
                    "\(name)")
            // NSMutableIndexSet has the same members; we write the immutable class: only the root's class differs.
            let mutable = try FoundationFixtures.data("NSMutableIndexSet-\(name).archive")
            #expect(try ArchiveStructure.differences(expected: mutable, actual: ours)
                    == ["root: class NSMutableIndexSet vs NSIndexSet",
                        #"root: $classes ["NSMutableIndexSet", "NSIndexSet", "NSObject"] vs ["NSIndexSet", "NSObject"]"#], "\(name)")
        }
        // The range data bytes are exactly Apple's.
        let ours = try PropertyListValue(propertyListData: KeyedArchiver.archivedData(withRootObject: ArchivedIndexSet(ranges: Self.manyRanges)))
        let apple = try PropertyListValue(propertyListData: FoundationFixtures.data("NSIndexSet-ManyRanges.archive"))
        func rangeData(_ archive: PropertyListValue) -> [Data] {
            (archive.dictionaryValue?["$objects"]?.arrayValue ?? []).compactMap {
                if case .data(let d)? = $0.dictionaryValue?["NS.data"] { return d } else { return nil }
            }
        }
        #expect(rangeData(ours) == rangeData(apple))
        #expect(rangeData(ours).count == 1)
    }

    // MARK: Round trip

    @Test func indexSetsRoundTrip() throws {
        let sets = [ArchivedIndexSet(), ArchivedIndexSet(indexes: [7]), ArchivedIndexSet(ranges: Self.manyRanges),
                    ArchivedIndexSet(indexes: [1, 2, 3, 7, 127, 128, 16384])]
        for set in sets {
            let back = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedIndexSet.self, from: KeyedArchiver.archivedData(withRootObject: set))
            #expect(back == set)
            #expect(back.ranges == set.ranges)
            #expect(try JSONDecoder().decode(ArchivedIndexSet.self, from: JSONEncoder().encode(set)) == set)
        }
        #expect(ArchivedIndexSet(indexes: [1, 2, 3, 7]).description == "NSIndexSet [1-3, 7]")
        #expect(ArchivedIndexSet(ranges: [5 ..< 8, 0 ..< 2, 2 ..< 3, 4 ..< 4]).ranges == [0 ..< 3, 5 ..< 8])
    }

    // MARK: Foundation on Linux

    @Test func foundationReadsOurIndexSets() throws {
        for ranges in [[], [3 ..< 9], Self.manyRanges] as [[Range<Int>]] {
            let data = try KeyedArchiver.archivedData(withRootObject: ArchivedIndexSet(ranges: ranges))
            let set = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSIndexSet.self, from: data))
            #expect(Array((set as IndexSet).rangeView.map { $0 }) == ranges)
        }
    }

    @Test func weReadFoundationsIndexSets() throws {
        for ranges in [[], [3 ..< 9], Self.manyRanges] as [[Range<Int>]] {
            var set = IndexSet()
            for r in ranges { set.insert(integersIn: r) }
            for object in [NSIndexSet(indexSet: set), NSMutableIndexSet(indexSet: set)] {
                let data = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: true)
                #expect(try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedIndexSet.self, from: data).ranges == ranges)
            }
        }
    }

    // MARK: Malformed input

    static func read(_ fields: PropertyListDictionary, data: Data? = nil, className: String = "NSIndexSet") throws
        -> (code: String, className: String?, keyPath: String?)?
    {
        var f = fields
        f["$class"] = HandMadeArchive.uid(2)
        var objects: [PropertyListValue] = [.dictionary(f), HandMadeArchive.classDict([className, "NSObject"])]
        if let data {
            f["NSRangeData"] = HandMadeArchive.uid(3)
            f["NSIndexPathData"] = HandMadeArchive.uid(3)
            objects = [.dictionary(f), objects[1], .dictionary(["NS.data": .data(data), "$class": HandMadeArchive.uid(4)]),
                       HandMadeArchive.classDict(["NSMutableData", "NSData", "NSObject"])]
        }
        let archive = try HandMadeArchive.binary(objects)
        return errorSummary {
            if className == "NSIndexSet" {
                _ = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedIndexSet.self, from: archive)
            } else {
                _ = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedIndexPath.self, from: archive)
            }
        }
    }

    @Test func malformedIndexSetsThrowNamingClassAndKey() throws {
        let cases: [(PropertyListDictionary, Data?, String, String)] = [
            (["NSRangeCount": "two"], nil, "typeMismatch", "root.NSRangeCount"),
            (["NSRangeCount": -1], nil, "dataCorrupted", "root.NSRangeCount"),
            (["NSRangeCount": 1, "NSLocation": 5], nil, "keyNotFound", "root.NSLength"),
            (["NSRangeCount": 1, "NSLocation": -5, "NSLength": 2], nil, "dataCorrupted", "root.NSLocation"),
            (["NSRangeCount": 1, "NSLocation": .integer(PropertyListInteger(Int64.max)), "NSLength": 2], nil, "dataCorrupted", "root.NSLocation"),
            // A count far larger than the data: rejected before anything is reserved.
            (["NSRangeCount": .integer(PropertyListInteger(Int64(1) << 60))], Data([0, 1, 2, 1]), "dataCorrupted", "root.NSRangeData"),
            (["NSRangeCount": 3], Data([0, 1, 2, 1]), "dataCorrupted", "root.NSRangeData"),
            // A truncated varint (continuation bit on the last byte) and one of 11 bytes.
            (["NSRangeCount": 2], Data([0, 1, 2, 0x81]), "dataCorrupted", "root.NSRangeData"),
            (["NSRangeCount": 2], Data([0, 1] + [UInt8](repeating: 0xFF, count: 10) + [1, 1]), "dataCorrupted", "root.NSRangeData"),
            // Bytes left over after the ranges.
            (["NSRangeCount": 2], Data([0, 1, 2, 1, 9]), "dataCorrupted", "root.NSRangeData"),
            // The range data is an object of another class (the index set itself), not data.
            (["NSRangeCount": 2, "NSRangeData": HandMadeArchive.uid(1)], nil, "classNotAllowed", "root.NSRangeData"),
        ]
        for (fields, data, code, path) in cases {
            let e = try Self.read(fields, data: data)
            #expect(e?.code == code, "\(fields)")
            #expect(e?.className == "NSIndexSet", "\(fields)")
            #expect(e?.keyPath == path, "\(fields)")
        }
    }
}

@Suite struct ArchivedIndexPathTests {
    @Test(.enabled(if: FoundationFixtures.available))
    func darwinIndexPathFixturesRead() throws {
        func read(_ name: String) throws -> ArchivedIndexPath {
            try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedIndexPath.self, from: FoundationFixtures.data("NSIndexPath-\(name).archive"))
        }
        #expect(try read("Empty").indexes == [])
        #expect(try read("OneIndex").indexes == [52])
        #expect(try read("ManyIndices").indexes == [4, 8, 15, 16, 23, 42])
        #expect(try read("ManyIndices").indexPath == IndexPath(indexes: [4, 8, 15, 16, 23, 42]))
    }

    @Test(.enabled(if: FoundationFixtures.available))
    func ourIndexPathsHaveTheFixturesStructure() throws {
        for (name, indexes) in [("Empty", []), ("OneIndex", [52]), ("ManyIndices", [4, 8, 15, 16, 23, 42])] as [(String, [Int])] {
            let ours = try KeyedArchiver.archivedData(withRootObject: ArchivedIndexPath(indexes: indexes))
            #expect(try ArchiveStructure.differences(expected: FoundationFixtures.data("NSIndexPath-\(name).archive"), actual: ours) == [],
                    "\(name)")
        }
    }

    @Test func indexPathsRoundTrip() throws {
        for indexes in [[], [0], [52], [4, 8, 15, 16, 23, 42], [127, 128, 300, Int.max]] {
            let path = ArchivedIndexPath(indexes: indexes)
            let back = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedIndexPath.self, from: KeyedArchiver.archivedData(withRootObject: path))
            #expect(back.indexes == indexes)
            #expect(try JSONDecoder().decode(ArchivedIndexPath.self, from: JSONEncoder().encode(path)) == path)
        }
        #expect(ArchivedIndexPath(IndexPath(indexes: [1, 2])).description == "NSIndexPath [1, 2]")
    }

    // Foundation on Linux (swift-corelibs-foundation 6.3.1) archives NSIndexPath and reads it back; both
    // directions are checked here.
    @Test func foundationAndWeReadEachOthersIndexPaths() throws {
        for indexes in [[], [52], [4, 8, 15, 16, 23, 42], [127, 128, 300]] {
            let ours = try KeyedArchiver.archivedData(withRootObject: ArchivedIndexPath(indexes: indexes))
            let theirs = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSIndexPath.self, from: ours))
            #expect((theirs as IndexPath) == IndexPath(indexes: indexes))
            let foundation = try NSKeyedArchiver.archivedData(withRootObject: NSIndexPath(indexes: indexes, length: indexes.count), requiringSecureCoding: true)
            #expect(try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedIndexPath.self, from: foundation).indexes == indexes)
        }
    }

    @Test func malformedIndexPathsThrowNamingClassAndKey() throws {
        let cases: [(PropertyListDictionary, Data?, String, String)] = [
            (["NSIndexPathLength": 1.5], nil, "typeMismatch", "root.NSIndexPathLength"),
            (["NSIndexPathLength": -2], nil, "dataCorrupted", "root.NSIndexPathLength"),
            (["NSIndexPathLength": 1], nil, "keyNotFound", "root.NSIndexPathValue"),
            (["NSIndexPathLength": 1, "NSIndexPathValue": -1], nil, "dataCorrupted", "root.NSIndexPathValue"),
            (["NSIndexPathLength": .integer(PropertyListInteger(Int64(1) << 62))], Data([1, 2]), "dataCorrupted", "root.NSIndexPathData"),
            (["NSIndexPathLength": 2], Data([1, 0x80]), "dataCorrupted", "root.NSIndexPathData"),
            (["NSIndexPathLength": 2], Data([1, 2, 3]), "dataCorrupted", "root.NSIndexPathData"),
        ]
        for (fields, data, code, path) in cases {
            let e = try ArchivedIndexSetTests.read(fields, data: data, className: "NSIndexPath")
            #expect(e?.code == code, "\(fields)")
            #expect(e?.className == "NSIndexPath", "\(fields)")
            #expect(e?.keyPath == path, "\(fields)")
        }
    }
}
