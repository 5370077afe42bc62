import Foundation
import Testing
@testable import KeyedArchive

// Interop with GNUstep's NSKeyedArchiver/NSKeyedUnarchiver (an Objective-C Foundation written independently
// of Apple's and of ours), in both directions, through the oracle program in Tests/GNUstepOracle/oracle.m.
// GNUstepInteropTests: plain values, Swift types and models; GNUstepAppleFixtureTests: Apple's own archives
// read by GNUstep; GNUstepCatalogueTests: the Foundation catalogue types (index sets, attributed strings...).
//
// Where GNUstep (Base 1.28 as packaged by Debian) differs from Apple, the test says so at the place it bites.
// Each deviation below was observed by running the oracle, on our archives and on Apple's own fixtures
// (corpus/corelibs-foundation):
//
// 1. NSUUID: GNUstep writes and reads the 16 bytes under `uuid`; Apple uses `NS.uuidbytes`. GNUstep reads
//    Apple's NSKeyedUnarchiver-UUIDTest.plist as nil, and we cannot read GNUstep's NSUUID.
// 2. 16-byte integers: GNUstep's property-list reader rejects them, so it cannot read an unsigned value above
//    Int64.max the way Apple writes it (and we do); its XML reader clamps such a value to Int64.max.
//    GNUstep itself writes UInt64.max as the 8-byte integer -1 (binary) or 18446744073709551615 (XML).
// 3. NSValue: GNUstep's archiver throws "this archiver cannote encode structs" for any NSValue (and then
//    crashes while releasing the archiver), and its unarchiver throws on Apple's NS.special/NS.rangeval form
//    (NSKeyedUnarchiver-RangeTest.plist and -RectTest.plist). No NSValue travels either way.
// 4. NSCountedSet: GNUstep writes `$0` (element count) and `$1`, `$2`, ... (object, count, object, count);
//    Apple writes `NS.count`, `NS.objectN`, `NS.countN`. GNUstep reads Apple's NSCountedSet fixture as an
//    empty set, and reading its own archive it returns counts whose upper 32 bits are garbage
//    (2 came back as 140638704107522 = 0x7FE9_0000_0002).
// 5. NSDate: GNUstep writes a date as an inline property-list date, where Apple writes an NSDate object
//    with `NS.time` (it reads that form too). NSTimeZone and NSLocale keep their name under `$0`, not
//    `NS.name` / `NS.identifier`; GNUstep reads an NS.name time zone as nil and an NS.identifier locale as
//    its default locale, en_US_POSIX.
// 6. NSOrderedSet: GNUstep writes `NS.objects` but reads Apple's `NS.object.N` as well.
// 7. NSIndexPath with two or more indexes: GNUstep writes `NSIndexPathData` as 8 bytes per index, the
//    index's big-endian 32-bit value followed by 4 zero bytes (its 64-bit slot after a 32-bit byte swap), and
//    reads 8-byte little-endian words back, so it does not even read its own archive: [4, 8, 300] comes back
//    as [67108864, 134217728, 738263040]. Apple's LEB128 varints (which we write) make it throw "Unable to
//    decode unsigned integers of size 1"; we reject its data. Zero or one index (`NSIndexPathValue`) agree.
// 8. NSMeasurement: GNUstep reads Apple's dimensions (class, NS.symbol, NS.converter), but writes every unit,
//    even [NSUnitLength kilometers], as a bare `NSUnit` with `NS.symbol` only (no converter, so the
//    dimension is lost), and its kilometre symbol is "kM". Its -initWithCoder: does not retain the unit, so
//    releasing an unarchived NSMeasurement crashes; oracle.m retains it to print it.

/// The model both sides know: GNUstep's `KATestModel` class in oracle.m has the same fields and keys.
final class GNUstepTestModel: KeyedArchivable {
    static var archivedClassName: String { "KATestModel" }
    var title: String
    var count: Int64
    var ratio: Double
    var flag: Bool
    var child: GNUstepTestModel?
    var items: [FoundationValue]

    init(title: String, count: Int64, ratio: Double, flag: Bool, child: GNUstepTestModel? = nil, items: [FoundationValue] = []) {
        self.title = title
        self.count = count
        self.ratio = ratio
        self.flag = flag
        self.child = child
        self.items = items
    }

    init(from decoder: any ArchiveDecoder) throws {
        title = try decoder.decode(String.self, forKey: "title")
        count = try decoder.decode(Int64.self, forKey: "count")
        ratio = try decoder.decode(Double.self, forKey: "ratio")
        flag = try decoder.decode(Bool.self, forKey: "flag")
        items = try decoder.decode([FoundationValue].self, forKey: "items")
        try decoder.decodeObjectReference(of: GNUstepTestModel.self, forKey: "child") { [unowned self] in self.child = $0 }
    }

    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(title, forKey: "title")
        try encoder.encode(count, forKey: "count")
        try encoder.encode(ratio, forKey: "ratio")
        try encoder.encode(flag, forKey: "flag")
        try encoder.encode(child, forKey: "child")
        try encoder.encode(items, forKey: "items")
    }
}

/// One value we archive, and what GNUstep must print for it.
struct OutgoingSample: Sendable, CustomTestStringConvertible {
    var name: String
    var format: PropertyListFormat
    var archive: @Sendable () throws -> Data
    var expected: String
    var testDescription: String { format == .xml ? "\(name) (XML)" : name }
}

private typealias D = GNUstepOracle.Description

@Suite(.enabled(if: GNUstepOracle.isAvailable, "GNUstep not installed (apt-get install gobjc libgnustep-base-dev gnustep-base-runtime)"))
struct GNUstepInteropTests {
    // MARK: - Ours -> GNUstep

    static let uuid = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
    static let date = Date(timeIntervalSinceReferenceDate: 123_456.75)
    static let url = URL(string: "https://example.com/a?b=c")!
    static let relativeURL = URL(string: "docs/page.html", relativeTo: URL(string: "https://example.com/base/")!)!

    static func sample(_ name: String, _ value: FoundationValue, _ expected: String, format: PropertyListFormat = .binary) -> OutgoingSample {
        OutgoingSample(name: name, format: format, archive: { try KeyedArchiver.archivedData(withRootObject: value, format: format) },
                       expected: expected)
    }

    static let longString = String(repeating: "long ✓ ", count: 50)
    static let longData = Data((0..<300).map { UInt8($0 & 0xFF) })
    /// Integer widths at their limits, reals GNUstep must not round, long strings and data (multi-byte lengths).
    static let edges: FoundationValue = .array([
        .integer(PropertyListInteger(Int64.min)), .integer(PropertyListInteger(Int64.max)), .integer(PropertyListInteger(Int64(Int32.max))),
        .integer(PropertyListInteger(Int64(Int32.max) + 1)), .integer(-1), .integer(0), .integer(255), .integer(65_536),
        .real(-0.0), .real(1e-300), .real(.infinity), .real(.pi),
        .string(longString), .data(longData), .dictionary([.string("ключ ✓"): .string("значение")]),
    ])
    static func edgeDescriptions(_ format: PropertyListFormat) -> [String] {
        [Int64.min, .max, Int64(Int32.max), Int64(Int32.max) + 1, -1, 0, 255, 65_536].map { D.integer($0, format: format) }
            + [D.double(-0.0), D.double(1e-300), D.double(.infinity), D.double(.pi),
               D.string(longString), D.data(longData), D.dictionary([(D.string("ключ ✓"), D.string("значение"))])]
    }

    /// Object roots: every FoundationValue kind whose NS class GNUstep reads like Apple's.
    static let outgoing: [OutgoingSample] = [
        sample("string", .string("héllo, wörld ✓ \"quoted\" \\ \n"), D.string("héllo, wörld ✓ \"quoted\" \\ \n")),
        sample("emptyString", .string(""), D.string("")),
        sample("data", .data(Data([0, 1, 2, 255])), D.data(Data([0, 1, 2, 255]))),
        sample("emptyData", .data(Data()), D.data(Data())),
        sample("date", .date(date), D.date(date)),
        sample("url", .url(url), D.url(url)),
        sample("relativeURL", .url(relativeURL), D.url(relativeURL)),
        sample("null", .null, D.null),
        sample("array", .array([.integer(1), .string("two"), .bool(false), .real(2.5), .integer(-5_000_000_000)]),
               D.array([D.integer(1), D.string("two"), D.bool(false), D.double(2.5), D.integer(-5_000_000_000)])),
        sample("emptyArray", .array([]), D.array([])),
        sample("dictionary", .dictionary([.string("name"): .string("n"), .string("count"): .integer(3)]),
               D.dictionary([(D.string("name"), D.string("n")), (D.string("count"), D.integer(3))])),
        sample("set", .set([.string("a"), .string("b"), .string("c")]), D.set([D.string("a"), D.string("b"), D.string("c")])),
        // GNUstep reads both our NS.objects form and Apple's NS.object.N form (deviation 6), so this passes
        // before and after the archiver switches to Apple's form.
        sample("orderedSet", .orderedSet([.string("z"), .string("a"), .string("m")]),
               D.orderedSet([D.string("z"), D.string("a"), D.string("m")])),
        sample("nested", .dictionary([
            .string("lists"): .array([.array([.integer(1)]), .array([]), .array([.integer(2), .integer(3)])]),
            .string("map"): .dictionary([.string("k"): .array([.string("v")])]),
            .string("nothing"): .null,
            .string("when"): .set([.date(date), .url(url)]),
        ]), D.dictionary([
            (D.string("lists"), D.array([D.array([D.integer(1)]), D.array([]), D.array([D.integer(2), D.integer(3)])])),
            (D.string("map"), D.dictionary([(D.string("k"), D.array([D.string("v")]))])),
            (D.string("nothing"), D.null),
            (D.string("when"), D.set([D.date(date), D.url(url)])),
        ])),
        sample("edges", edges, D.array(edgeDescriptions(.binary))),
        sample("edges", edges, D.array(edgeDescriptions(.xml)), format: .xml),
        sample("string", .string("xml ✓ <&>"), D.string("xml ✓ <&>"), format: .xml),
        sample("nested", .dictionary([.string("a"): .array([.real(-0.1), .bool(true), .data(Data([7]))])]),
               D.dictionary([(D.string("a"), D.array([D.double(-0.1), D.bool(true), D.data(Data([7]))]))]), format: .xml),
    ] + modelSamples(.binary) + modelSamples(.xml)

    static func modelSamples(_ format: PropertyListFormat) -> [OutgoingSample] {
        [
            OutgoingSample(name: "model", format: format, archive: {
                let root = GNUstepTestModel(title: "root", count: 7, ratio: 0.5, flag: true,
                                            child: GNUstepTestModel(title: "leaf", count: -3, ratio: 2.25, flag: false),
                                            items: [.string("a"), .integer(1)])
                return try KeyedArchiver.archivedData(withRootObject: root, format: format)
            }, expected: D.model(id: 1, title: "root", count: 7, ratio: 0.5, flag: true,
                                 child: D.model(id: 2, title: "leaf", count: -3, ratio: 2.25, flag: false, child: nil, items: D.array([])),
                                 items: D.array([D.string("a"), D.integer(1)]))),
            OutgoingSample(name: "sharedModel", format: format, archive: {
                let shared = GNUstepTestModel(title: "shared", count: Int64.min, ratio: -1e300, flag: true)
                return try KeyedArchiver.archivedData(withRootObject: [shared, shared], format: format)
            }, expected: D.array([D.model(id: 1, title: "shared", count: Int64.min, ratio: -1e300, flag: true, child: nil, items: D.array([])),
                                  D.modelReference(1)])),
            OutgoingSample(name: "cyclicModel", format: format, archive: {
                let a = GNUstepTestModel(title: "a", count: 1, ratio: 0, flag: true)
                let b = GNUstepTestModel(title: "b", count: 2, ratio: 0, flag: false, child: a)
                a.child = b
                defer { a.child = nil }
                return try KeyedArchiver.archivedData(withRootObject: a, format: format)
            }, expected: D.model(id: 1, title: "a", count: 1, ratio: 0, flag: true,
                                 child: D.model(id: 2, title: "b", count: 2, ratio: 0, flag: false, child: D.modelReference(1), items: D.array([])),
                                 items: D.array([]))),
        ]
    }

    @Test("GNUstep reads what we archive", arguments: outgoing)
    func gnustepReadsOurArchive(_ sample: OutgoingSample) throws {
        let line = try GNUstepOracle.decode(sample.archive())
        #expect(line == sample.expected)
    }

    static func typed<T: ArchiveValue & Sendable>(_ name: String, _ value: T, _ expected: String) -> OutgoingSample {
        OutgoingSample(name: name, format: .binary, archive: { try KeyedArchiver.archivedData(withRootObject: value) }, expected: expected)
    }

    /// Swift's own types (not FoundationValue), each written as the NS class Apple bridges it to.
    /// A Float is a 4-byte real, which GNUstep reports as `f` (a Double is `d`).
    static let typedSamples: [OutgoingSample] = [
        typed("[Int]", [1, -2, 3_000_000_000], D.array([D.integer(1), D.integer(-2), D.integer(3_000_000_000)])),
        typed("[Int8]", [Int8.min, 8], D.array([D.integer(-128), D.integer(8)])),
        typed("[UInt16]", [UInt16.max], D.array([D.integer(65_535)])),
        typed("[UInt32]", [UInt32.max], D.array([D.integer(4_294_967_295)])),
        typed("[UInt64]", [UInt64(5)], D.array([D.integer(5)])),
        typed("[Float]", [Float(0.5), -Float.greatestFiniteMagnitude], D.array([D.float(0.5), D.float(-.greatestFiniteMagnitude)])),
        typed("[String: Double]", ["x": 1.5, "y": -2], D.dictionary([(D.string("x"), D.double(1.5)), (D.string("y"), D.double(-2))])),
        typed("Set<Int>", Set([3, 1, 2]), D.set([D.integer(1), D.integer(2), D.integer(3)])),
        typed("[[String]]", [["a"], [], ["b", "c"]], D.array([D.array([D.string("a")]), D.array([]), D.array([D.string("b"), D.string("c")])])),
        typed("[Bool]", [true, false], D.array([D.bool(true), D.bool(false)])),
        typed("[Date]", [date], D.array([D.date(date)])),
        typed("[URL]", [url, relativeURL], D.array([D.url(url), D.url(relativeURL)])),
        typed("[Data]", [Data([1, 2])], D.array([D.data(Data([1, 2]))])),
    ]

    @Test("GNUstep reads what we archive from Swift types", arguments: typedSamples)
    func gnustepReadsOurTypedArchive(_ sample: OutgoingSample) throws {
        let line = try GNUstepOracle.decode(sample.archive())
        #expect(line == sample.expected)
    }

    /// Scalar roots: Apple stores the number in `$objects` and `$top.root` is a UID to it; GNUstep (like Apple)
    /// only reads a UID there. Fails while our archiver writes the scalar inline in `$top` (fixed on the
    /// `catalogue` branch: "root as UID").
    static let scalarRoots: [OutgoingSample] = [
        OutgoingSample(name: "Int", format: .binary, archive: { try KeyedArchiver.archivedData(withRootObject: 42) },
                       expected: D.integer(42)),
        OutgoingSample(name: "Int64 wider than 32 bits", format: .binary,
                       archive: { try KeyedArchiver.archivedData(withRootObject: Int64(-5_000_000_000)) },
                       expected: D.integer(-5_000_000_000)),
        OutgoingSample(name: "Bool", format: .binary, archive: { try KeyedArchiver.archivedData(withRootObject: true) },
                       expected: D.bool(true)),
        OutgoingSample(name: "Double", format: .binary, archive: { try KeyedArchiver.archivedData(withRootObject: -0.1) },
                       expected: D.double(-0.1)),
        OutgoingSample(name: "Float", format: .binary, archive: { try KeyedArchiver.archivedData(withRootObject: Float(1.25)) },
                       expected: D.float(1.25)),
        OutgoingSample(name: "FoundationValue.integer", format: .binary,
                       archive: { try KeyedArchiver.archivedData(withRootObject: FoundationValue.integer(7)) },
                       expected: D.integer(7)),
        OutgoingSample(name: "Int (XML)", format: .xml, archive: { try KeyedArchiver.archivedData(withRootObject: 42, format: .xml) },
                       expected: D.integer(42)),
    ]

    @Test("GNUstep reads a scalar root", arguments: scalarRoots)
    func gnustepReadsScalarRoot(_ sample: OutgoingSample) throws {
        let line = try GNUstepOracle.decode(sample.archive())
        #expect(line == sample.expected)
    }

    @Test func gnustepCannotReadSixteenByteIntegers() throws {
        // Deviation 2: an unsigned value above Int64.max is a 16-byte integer (Apple writes it so, and so do
        // we); GNUstep's reader rejects the whole archive.
        let archive = try KeyedArchiver.archivedData(withRootObject: FoundationValue.array([.integer(PropertyListInteger(UInt64.max))]))
        withKnownIssue("GNUstep's property-list reader has no 16-byte integers") {
            let line = try GNUstepOracle.decode(archive)
            #expect(line == D.array([D.number("Q", "18446744073709551615")]))
        }
        // In XML the value is plain digits, and GNUstep's XML reader clamps it to Int64.max.
        let xml = try KeyedArchiver.archivedData(withRootObject: FoundationValue.array([.integer(PropertyListInteger(UInt64.max))]), format: .xml)
        withKnownIssue("GNUstep's XML property-list reader clamps integers above Int64.max") {
            let line = try GNUstepOracle.decode(xml)
            #expect(line == D.array([D.number("Q", "18446744073709551615")]))
        }
        // Values that fit in 8 bytes are fine.
        let fits = try KeyedArchiver.archivedData(withRootObject: FoundationValue.array([.integer(PropertyListInteger(Int64.max))]))
        #expect(try GNUstepOracle.decode(fits) == D.array([D.integer(Int64.max)]))
    }

    @Test func gnustepCannotReadOurUUID() throws {
        // Deviation 1: we write NS.uuidbytes as Apple does; GNUstep looks for `uuid` and decodes nil.
        let archive = try KeyedArchiver.archivedData(withRootObject: FoundationValue.uuid(Self.uuid))
        withKnownIssue("GNUstep's NSUUID reads its own `uuid` key, not Apple's NS.uuidbytes") {
            let line = try GNUstepOracle.decode(archive)
            #expect(line == D.uuid(Self.uuid))
        }
    }

    @Test func gnustepIgnoresAppleTimeZoneAndLocaleKeys() throws {
        // Deviation 5, shown with hand-built archives in the NS.name / NS.identifier form: GNUstep reads the
        // time zone as nil and the locale as its default locale instead of fr_FR.
        func archive(_ className: String, _ key: String, _ name: String) throws -> Data {
            try ArchiveFixture.archive([
                "$null",
                .dictionary(["$class": ArchiveFixture.uid(3), key: ArchiveFixture.uid(2)]),
                .string(name),
                ArchiveFixture.classDict(className),
            ]).propertyListData()
        }
        #expect(try GNUstepOracle.decode(archive("NSTimeZone", "NS.name", "Europe/Paris")) == "null")
        #expect(try GNUstepOracle.decode(archive("NSLocale", "NS.identifier", "fr_FR")) == D.locale("en_US_POSIX"))
        // The same archives with GNUstep's own `$0` key read as intended.
        #expect(try GNUstepOracle.decode(archive("NSTimeZone", "$0", "Europe/Paris")) == D.timeZone("Europe/Paris"))
        #expect(try GNUstepOracle.decode(archive("NSLocale", "$0", "fr_FR")) == D.locale("fr_FR"))
    }

    // MARK: - GNUstep -> ours

    /// GNUstep's samples (oracle.m) that are plain Foundation values, and what we must read from its binary
    /// archive (and from its XML archive, where that differs).
    static let incoming: [(name: String, binary: FoundationValue, xml: FoundationValue?)] = [
        ("int", .integer(42), nil),
        ("largeInt", .integer(-5_000_000_000), nil),
        // GNUstep's binary writer stores UInt64.max as the 8-byte integer -1 (deviation 2), so -1 is what the
        // archive holds; its XML writer prints 18446744073709551615.
        ("uint64Max", .integer(-1), .integer(PropertyListInteger(UInt64.max))),
        ("bool", .bool(true), nil),
        ("double", .real(-0.1), nil),
        ("float", .real(1.25), nil),
        ("string", .string("héllo, wörld ✓"), nil),
        ("emptyString", .string(""), nil),
        ("mutableString", .string("grow"), nil),
        ("data", .data(Data([0, 1, 2, 255])), nil),
        // GNUstep writes an inline property-list date here (deviation 5). XML dates hold whole seconds
        // (`2001-01-02T10:17:36Z`), as in Apple's XML property lists, so the .75 s is lost there.
        ("date", .date(date), .date(Date(timeIntervalSinceReferenceDate: 123_456))),
        ("url", .url(url), nil),
        ("relativeURL", .url(relativeURL), nil),
        ("null", .null, nil),
        ("array", .array([.integer(1), .string("two"), .bool(false)]), nil),
        ("dictionary", .dictionary([.string("name"): .string("n"), .string("count"): .integer(3)]), nil),
        ("set", .set([.string("a"), .string("b"), .string("c")]), nil),
        ("orderedSet", .orderedSet([.string("z"), .string("a"), .string("m")]), nil),
        ("nested", .dictionary([
            .string("lists"): .array([.array([.integer(1)]), .array([]), .array([.integer(2), .integer(3)])]),
            .string("map"): .dictionary([.string("k"): .array([.string("v")])]),
            .string("nothing"): .null,
        ]), nil),
    ]

    static let incomingNames = incoming.map(\.name)

    @Test("We read GNUstep's archive of a plain value", arguments: incomingNames, [PropertyListFormat.binary, .xml])
    func weReadGNUstepValue(_ name: String, _ format: PropertyListFormat) throws {
        let sample = try #require(Self.incoming.first { $0.name == name })
        let expected = format == .xml ? sample.xml ?? sample.binary : sample.binary
        let archive = try GNUstepOracle.encode(name, format: format)
        let value = try KeyedUnarchiver().decode(FoundationValue.self, from: archive)
        #expect(Self.unordered(value) == Self.unordered(expected))
    }

    /// `value` with every set's elements in one fixed order, so that sets compare without order
    /// (`FoundationValue.set` keeps the archive's order; GNUstep's set order is its hash order).
    static func unordered(_ value: FoundationValue) -> FoundationValue {
        switch value {
        case .array(let a): return .array(a.map(unordered))
        case .orderedSet(let a): return .orderedSet(a.map(unordered))
        case .set(let a): return .set(a.map(unordered).sorted { String(reflecting: $0) < String(reflecting: $1) })
        case .dictionary(let d): return .dictionary(Dictionary(uniqueKeysWithValues: d.map { (unordered($0.key), unordered($0.value)) }))
        default: return value
        }
    }

    @Test func weReadGNUstepUUIDOnlyIfWeKnowItsKey() throws {
        // Deviation 1: GNUstep's NSUUID keeps its bytes under `uuid`; we (like Apple) read NS.uuidbytes.
        let archive = try GNUstepOracle.encode("uuid")
        let graph = try ArchivedObjectGraph(data: archive)
        let root = try #require(graph.topReference().flatMap { graph.object($0)?.instance })
        #expect(root.className == "NSUUID")
        #expect(root["uuid"] != nil)
        #expect(root["NS.uuidbytes"] == nil)
        withKnownIssue("GNUstep writes NSUUID under `uuid`, Apple under NS.uuidbytes") {
            let value = try KeyedUnarchiver().decode(FoundationValue.self, from: archive)
            #expect(value == .uuid(Self.uuid))
        }
    }

    @Test("We read GNUstep's model", arguments: [PropertyListFormat.binary, .xml])
    func weReadGNUstepModel(_ format: PropertyListFormat) throws {
        let root = try KeyedUnarchiver().decode(GNUstepTestModel.self, from: GNUstepOracle.encode("model", format: format))
        #expect(root.title == "root")
        #expect(root.count == 7)
        #expect(root.ratio == 0.5)
        #expect(root.flag == true)
        #expect(root.items == [.string("a"), .string("b")])
        let leaf = try #require(root.child)
        #expect(leaf.title == "leaf")
        #expect(leaf.count == -3)
        #expect(leaf.ratio == 2.25)
        #expect(leaf.flag == false)
        #expect(leaf.items == [])
        #expect(leaf.child == nil)
    }

    @Test func gnustepSharedModelComesBackAsOneInstance() throws {
        let back = try KeyedUnarchiver().decode([GNUstepTestModel].self, from: GNUstepOracle.encode("sharedModel"))
        #expect(back.count == 2)
        #expect(back.first === back.last)
        #expect(back.first.map { [$0.title, "\($0.count)", "\($0.ratio)", "\($0.flag)"] } == ["shared", "1", "1.0", "true"])
        #expect(back.first?.child == nil)
    }

    @Test func gnustepCyclicModelKeepsItsCycle() throws {
        let a = try KeyedUnarchiver().decode(GNUstepTestModel.self, from: GNUstepOracle.encode("cyclicModel"))
        defer { a.child = nil }
        let b = try #require(a.child)
        #expect([a.title, b.title] == ["a", "b"])
        #expect([a.count, b.count] == [1, 2])
        #expect([a.flag, b.flag] == [true, false])
        #expect(b.child === a)
    }

    /// Every sample GNUstep can archive: plain values, models and the catalogue classes (each also has its own test).
    static let allArchivable = incomingNames + ["uuid", "model", "sharedModel", "cyclicModel",
                                                "indexSet", "timeZone", "locale", "attributedString", "countedSet",
                                                "indexPathEmpty", "indexPathOne", "indexPathMany",
                                                "measurement", "measurementPlainUnit"]

    @Test("The raw model opens GNUstep's archive", arguments: allArchivable, [PropertyListFormat.binary, .xml])
    func rawModelOpensGNUstepArchive(_ name: String, _ format: PropertyListFormat) throws {
        let archive = try GNUstepOracle.encode(name, format: format)
        let graph = try ArchivedObjectGraph(data: archive)
        let root = try #require(graph.topReference(), "no $top.root")
        #expect(graph.object(root) != nil)
        // The raw graph writes back bytes that GNUstep reads as the same value. Not for the counted set:
        // GNUstep's counts differ from run to run (deviation 4), so there we compare the graphs.
        let rewritten = try graph.archivedData(format: format)
        if name == "countedSet" {
            #expect(try ArchivedObjectGraph(data: rewritten) == graph)
        } else {
            #expect(try GNUstepOracle.decode(rewritten) == GNUstepOracle.decode(archive))
        }
    }

    @Test func gnustepCatalogueArchivesNameTheirClasses() throws {
        let expected = ["indexSet": "NSMutableIndexSet", "timeZone": "NSTimeZone", "locale": "NSLocale",
                        "attributedString": "NSAttributedString", "countedSet": "NSCountedSet",
                        "uuid": "NSUUID", "url": "NSURL", "model": "KATestModel",
                        "indexPathMany": "NSIndexPath", "measurement": "NSMeasurement"]
        for (name, className) in expected {
            let graph = try ArchivedObjectGraph(data: GNUstepOracle.encode(name))
            #expect(graph.topReference().flatMap(graph.className(of:)) == className, "\(name)")
        }
    }

    @Test func gnustepCannotArchiveNSValue() throws {
        // Deviation 3: GNUstep's keyed archiver refuses every NSValue, so no range/point/rect sample exists
        // in that direction (and the other way its unarchiver rejects Apple's NS.special form).
        let run = try withTemporaryDirectory("gnustep-range") { directory in
            try GNUstepOracle.run(["encode", "range", directory.appendingPathComponent("range.archive").path])
        }
        #expect(run.status != 0)
        #expect(run.stderr.contains("cannote encode structs"))
    }

    @Test func gnustepCountedSetCountsAreUnreliable() throws {
        // Deviation 4: reading its own NSCountedSet archive, GNUstep returns counts whose upper 32 bits are
        // uninitialized, so counts cannot be compared through GNUstep; the elements can.
        let line = try GNUstepOracle.decode(GNUstepOracle.encode("countedSet"))
        withKnownIssue("GNUstep's NSCountedSet reader fills only 32 bits of each count", isIntermittent: true) {
            #expect(line == D.countedSet([(D.string("a"), 2), (D.string("b"), 1)]))
        }
        #expect(line.hasPrefix("{\"NSCountedSet\":[[\(D.string("a")),"))
    }
}

/// Apple's own archives (corpus/corelibs-foundation, written on macOS) read by GNUstep: the third corner of
/// the triangle, and the evidence for the deviations listed at the top of this file.
@Suite(.enabled(if: GNUstepOracle.isAvailable && Corpus.isPresent, "needs GNUstep and ../shared/corpus"))
struct GNUstepAppleFixtureTests {
    static let fixtures = [
        "corelibs-foundation/Resources/NSKeyedUnarchiver-ArrayTest.plist",
        "corelibs-foundation/Resources/NSKeyedUnarchiver-OrderedSetTest.plist",
        "corelibs-foundation/Resources/NSKeyedUnarchiver-URLTest.plist",
        "corelibs-foundation/Fixtures/macOS-10.14/NSSet-Empty.archive",
        "corelibs-foundation/Fixtures/macOS-10.14/NSSet-Numbers.archive",
        "corelibs-foundation/Fixtures/macOS-10.14/NSMutableSet-Numbers.archive",
        "corelibs-foundation/Fixtures/macOS-10.14/NSOrderedSet-Empty.archive",
        "corelibs-foundation/Fixtures/macOS-10.14/NSOrderedSet-Numbers.archive",
        "corelibs-foundation/Fixtures/macOS-10.14/NSMutableOrderedSet-Numbers.archive",
        "corelibs-foundation/Fixtures/macOS-10.14/NSIndexPath-Empty.archive",
        "corelibs-foundation/Fixtures/macOS-10.14/NSIndexPath-OneIndex.archive",
        "corelibs-foundation/Fixtures/macOS-10.14/NSMeasurement-Angle.archive",
        "corelibs-foundation/Fixtures/macOS-10.14/NSMeasurement-Frequency.archive",
        "corelibs-foundation/Fixtures/macOS-10.14/NSMeasurement-Length.archive",
        "corelibs-foundation/Fixtures/macOS-10.14/NSMeasurement-Zero.archive",
    ]

    @Test("Apple -> ours -> GNUstep reads as Apple -> GNUstep", arguments: fixtures)
    func ourRewriteOfAppleArchiveReadsTheSameInGNUstep(_ fixture: String) throws {
        let apple = try Corpus.data(fixture)
        let value = try KeyedUnarchiver().decode(FoundationValue.self, from: apple)
        let ours = try KeyedArchiver.archivedData(withRootObject: value)
        let direct = try GNUstepOracle.decode(apple)
        #expect(try GNUstepOracle.decode(ours) == direct)
    }

    @Test func gnustepDeviationsShowOnAppleArchives() throws {
        // Deviation 1: Apple's NS.uuidbytes is not GNUstep's `uuid` key, so the UUID reads as nil.
        #expect(try GNUstepOracle.decode(Corpus.data("corelibs-foundation/Resources/NSKeyedUnarchiver-UUIDTest.plist")) == "null")
        // Deviation 3: Apple's NSValue forms (NS.special with NS.rangeval / NS.rectval / NS.edgeval) are rejected.
        for name in ["RangeTest", "RectTest", "EdgeInsetsTest"] {
            let data = try Corpus.data("corelibs-foundation/Resources/NSKeyedUnarchiver-\(name).plist")
            #expect(throws: GNUstepOracle.Failure.self, "\(name)") { try GNUstepOracle.decode(data) }
        }
        // Deviation 4: Apple's NS.count / NS.objectN / NS.countN are not GNUstep's `$0`, `$1`...: an empty set.
        let counted = try Corpus.data("corelibs-foundation/Fixtures/macOS-10.14/NSCountedSet-NumbersAppearingSeveralTimes.archive")
        #expect(try GNUstepOracle.decode(counted) == GNUstepOracle.Description.countedSet([]))
        // Deviation 6: GNUstep reads Apple's NS.object.N ordered set.
        let ordered = try Corpus.data("corelibs-foundation/Resources/NSKeyedUnarchiver-OrderedSetTest.plist")
        #expect(try GNUstepOracle.decode(ordered) == GNUstepOracle.Description.orderedSet(["valgeir", "nico", "puzzle"].map(GNUstepOracle.Description.string)))
        // Deviation 7: GNUstep's NSIndexPathData reader rejects Apple's varints; one index reads fine.
        let many = try Corpus.data("corelibs-foundation/Fixtures/macOS-10.14/NSIndexPath-ManyIndices.archive")
        let manyError = #expect(throws: GNUstepOracle.Failure.self) { try GNUstepOracle.decode(many) }
        #expect(manyError?.description.contains("Unable to decode unsigned integers of size 1") == true)
        let one = try Corpus.data("corelibs-foundation/Fixtures/macOS-10.14/NSIndexPath-OneIndex.archive")
        #expect(try GNUstepOracle.decode(one) == GNUstepOracle.Description.indexPath([52]))
        // Deviation 8 (reading side): GNUstep keeps Apple's dimension, symbol and converter.
        let length = try Corpus.data("corelibs-foundation/Fixtures/macOS-10.14/NSMeasurement-Length.archive")
        #expect(try GNUstepOracle.decode(length)
                == GNUstepOracle.Description.measurement(45, unitClass: "NSUnitLength", symbol: "mi", converter: (1609.34, 0)))
    }
}

/// The Foundation catalogue types (Sources/KeyedArchive/FoundationTypes) through GNUstep, both ways.
@Suite(.enabled(if: GNUstepOracle.isAvailable, "GNUstep not installed (apt-get install gobjc libgnustep-base-dev gnustep-base-runtime)"))
struct GNUstepCatalogueTests {
    static func sample<T: KeyedArchivable & Sendable>(_ name: String, _ value: T, _ expected: String) -> OutgoingSample {
        OutgoingSample(name: name, format: .binary, archive: { try KeyedArchiver.archivedData(withRootObject: value) }, expected: expected)
    }

    static let outgoing: [OutgoingSample] = [
        sample("NSIndexSet, empty", ArchivedIndexSet(ranges: []), D.indexSet([])),
        sample("NSIndexSet, one range", ArchivedIndexSet(ranges: [5..<55]), D.indexSet([(5, 50)])),
        sample("NSIndexSet, several ranges", ArchivedIndexSet(ranges: [1..<4, 9..<10, 1000..<1300]),
               D.indexSet([(1, 3), (9, 1), (1000, 300)])),
        sample("NSIndexPath, empty", ArchivedIndexPath(indexes: []), D.indexPath([])),
        sample("NSIndexPath, one index", ArchivedIndexPath(indexes: [7]), D.indexPath([7])),
        sample("NSMeasurement, length", ArchivedMeasurement(value: 1.5, unit: .init(
                   className: "NSUnitLength", symbol: "km", converter: .init(coefficient: 1000))),
               D.measurement(1.5, unitClass: "NSUnitLength", symbol: "km", converter: (1000, 0))),
        sample("NSMeasurement, with Darwin's NS.specifier", ArchivedMeasurement(value: 26.2, unit: .init(
                   className: "NSUnitLength", symbol: "mi", converter: .init(coefficient: 1609.344), specifier: 1287)),
               D.measurement(26.2, unitClass: "NSUnitLength", symbol: "mi", converter: (1609.344, 0))),
        sample("NSMeasurement, converter with a constant", ArchivedMeasurement(value: -40, unit: .init(
                   className: "NSUnitTemperature", symbol: "°C", converter: .init(coefficient: 1, constant: 273.15))),
               D.measurement(-40, unitClass: "NSUnitTemperature", symbol: "°C", converter: (1, 273.15))),
        sample("NSMeasurement, plain NSUnit", ArchivedMeasurement(value: -2.25, unit: .init(className: "NSUnit", symbol: "widgets")),
               D.measurement(-2.25, unitClass: "NSUnit", symbol: "widgets")),
        sample("NSAttributedString, one run", ArchivedAttributedString(string: "hello", attributes: ["k": .string("v")]),
               D.attributedString("hello", runs: [(0, 5, D.dictionary([(D.string("k"), D.string("v"))]))])),
    ]

    @Test("GNUstep reads our catalogue value", arguments: outgoing)
    func gnustepReadsOurCatalogueValue(_ sample: OutgoingSample) throws {
        let line = try GNUstepOracle.decode(sample.archive())
        #expect(line == sample.expected)
    }

    @Test func gnustepReadsOurAttributedStringRuns() throws {
        let value = try ArchivedAttributedString(string: "abcdef", runs: [
            .init(range: 0..<2, attributes: ["font": .string("Times")]),
            .init(range: 2..<6, attributes: ["size": .integer(12)]),
        ])
        let line = try GNUstepOracle.decode(KeyedArchiver.archivedData(withRootObject: value))
        #expect(line == D.attributedString("abcdef", runs: [
            (0, 2, D.dictionary([(D.string("font"), D.string("Times"))])),
            (2, 4, D.dictionary([(D.string("size"), D.integer(12))])),
        ]))
    }

    @Test func gnustepCannotReadOurNSValueOrCountedSet() throws {
        // Deviation 3: GNUstep's NSValue reader rejects Apple's NS.special / NS.rangeval form, which we write.
        let range = try KeyedArchiver.archivedData(withRootObject: ArchivedSpecialValue(range: 3..<7))
        withKnownIssue("GNUstep's NSValue reader does not know Apple's NS.special form") {
            let line = try GNUstepOracle.decode(range)
            #expect(line == D.tagged("NSValue", "{\"type\":\"{_NSRange=QQ}\",\"range\":[3,4]}"))
        }
        // Deviation 4: GNUstep's NSCountedSet reader does not know Apple's NS.count / NS.objectN / NS.countN.
        let counted = try KeyedArchiver.archivedData(withRootObject: ArchivedCountedSet([.string("a"), .string("a"), .string("b")]))
        withKnownIssue("GNUstep's NSCountedSet reader does not know Apple's NS.objectN / NS.countN keys") {
            let line = try GNUstepOracle.decode(counted)
            #expect(line == D.countedSet([(D.string("a"), 2), (D.string("b"), 1)]))
        }
    }

    @Test func weReadGNUstepIndexSet() throws {
        let value = try KeyedUnarchiver().decode(ArchivedIndexSet.self, from: GNUstepOracle.encode("indexSet"))
        #expect(value.ranges == [1..<4, 9..<10])
    }

    @Test func weReadGNUstepAttributedString() throws {
        let value = try KeyedUnarchiver().decode(ArchivedAttributedString.self, from: GNUstepOracle.encode("attributedString"))
        #expect(value == ArchivedAttributedString(string: "hello", attributes: ["k": .string("v")]))
    }

    @Test func timeZoneAndLocaleUseDifferentKeys() throws {
        // Deviation 5: GNUstep keeps the name under `$0`; we write and read NS.name / NS.identifier (the form
        // corelibs and the Darwin formatter fixtures use). GNUstep reads our NSTimeZone as nil and our NSLocale
        // as its default locale (en_US_POSIX); we reject GNUstep's, naming the missing key.
        let zone = try KeyedArchiver.archivedData(withRootObject: ArchivedTimeZone(identifier: "Europe/Paris"))
        let locale = try KeyedArchiver.archivedData(withRootObject: ArchivedLocale(identifier: "fr_FR"))
        withKnownIssue("GNUstep's NSTimeZone reader looks for `$0`") {
            let line = try GNUstepOracle.decode(zone)
            #expect(line == D.timeZone("Europe/Paris"))
        }
        withKnownIssue("GNUstep's NSLocale reader looks for `$0`") {
            let line = try GNUstepOracle.decode(locale)
            #expect(line == D.locale("fr_FR"))
        }
        let gnustepZone = try GNUstepOracle.encode("timeZone")
        let gnustepLocale = try GNUstepOracle.encode("locale")
        withKnownIssue("GNUstep's NSTimeZone writer uses `$0`") {
            let zone = try KeyedUnarchiver().decode(ArchivedTimeZone.self, from: gnustepZone)
            #expect(zone.identifier == "Europe/Paris")
        }
        withKnownIssue("GNUstep's NSLocale writer uses `$0`") {
            let locale = try KeyedUnarchiver().decode(ArchivedLocale.self, from: gnustepLocale)
            #expect(locale.identifier == "fr_FR")
        }
    }

    @Test func weCannotReadGNUstepCountedSet() throws {
        // Deviation 4: GNUstep writes `$0` (element count) and `$1`, `$2`... pairs, not NS.count / NS.objectN /
        // NS.countN; we reject it, naming the missing key.
        let archive = try GNUstepOracle.encode("countedSet")
        withKnownIssue("GNUstep's NSCountedSet keys are `$0`, `$1`...") {
            let value = try KeyedUnarchiver().decode(ArchivedCountedSet.self, from: archive)
            #expect(value == ArchivedCountedSet([.string("a"), .string("a"), .string("b")]))
        }
    }

    @Test("We read GNUstep's short index path", arguments: [("indexPathEmpty", [Int]()), ("indexPathOne", [7])])
    func weReadGNUstepShortIndexPath(_ name: String, _ indexes: [Int]) throws {
        let value = try KeyedUnarchiver().decode(ArchivedIndexPath.self, from: GNUstepOracle.encode(name))
        #expect(value.indexes == indexes)
    }

    @Test func multiIndexPathDataDiffers() throws {
        // Deviation 7. GNUstep -> ours: 8 bytes per index (big-endian 32-bit value, then 4 zero bytes), which
        // is not Apple's varints; we reject it at NSIndexPathData rather than invent indexes.
        let archive = try GNUstepOracle.encode("indexPathMany")
        let graph = try ArchivedObjectGraph(data: archive)
        let root = try #require(graph.topReference().flatMap { graph.object($0)?.instance })
        #expect(root.className == "NSIndexPath")
        #expect(root["NSIndexPathLength"] == .value(.integer(3)))
        let dataUID = try #require(root["NSIndexPathData"]?.referenceUID)
        let dataField = try #require(graph.object(dataUID)?.instance?["NS.data"])
        guard case .value(.data(let data)) = dataField else {
            Issue.record("NS.data is \(dataField), not data")
            return
        }
        #expect([UInt8](data) == [0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 1, 0x2c, 0, 0, 0, 0])
        let error = #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver().decode(ArchivedIndexPath.self, from: archive)
        }
        #expect(error?.keyPath == "root.NSIndexPathData")
        #expect(error?.className == "NSIndexPath")
        // GNUstep does not read its own data back either: the 32-bit swap is never undone.
        #expect(try GNUstepOracle.decode(archive) == D.indexPath([4 << 24, 8 << 24, 0x2c01 << 16]))
        // Ours -> GNUstep: Apple's varints make GNUstep throw.
        let ours = try KeyedArchiver.archivedData(withRootObject: ArchivedIndexPath(indexes: [4, 8, 300]))
        withKnownIssue("GNUstep's NSIndexPathData reader does not know Apple's varints") {
            let line = try GNUstepOracle.decode(ours)
            #expect(line == D.indexPath([4, 8, 300]))
        }
        let failure = #expect(throws: GNUstepOracle.Failure.self) { try GNUstepOracle.decode(ours) }
        #expect(failure?.description.contains("Unable to decode unsigned integers of size 1") == true)
    }

    @Test func weReadGNUstepMeasurementWithPlainUnit() throws {
        let value = try KeyedUnarchiver().decode(ArchivedMeasurement.self, from: GNUstepOracle.encode("measurementPlainUnit"))
        #expect(value == ArchivedMeasurement(value: -2.25, unit: .init(className: "NSUnit", symbol: "widgets")))
    }

    @Test func gnustepWritesDimensionsAsPlainUnits() throws {
        // Deviation 8: GNUstep archives [NSUnitLength kilometers] as a bare NSUnit with the symbol "kM" and no
        // converter, so what we read is a plain unit: the value survives, the dimension does not.
        let value = try KeyedUnarchiver().decode(ArchivedMeasurement.self, from: GNUstepOracle.encode("measurement"))
        #expect(value == ArchivedMeasurement(value: 1.5, unit: .init(className: "NSUnit", symbol: "kM")))
        withKnownIssue("GNUstep's NSDimension is archived as a bare NSUnit") {
            #expect(value.unit == .init(className: "NSUnitLength", symbol: "km", converter: .init(coefficient: 1000)))
        }
    }
}

/// AppKit's NSColor (``ArchivedColor``, which has no Apple-written fixture in the corpus) through gnustep-gui's
/// keyed coding, both ways, with the separate oracle Tests/GNUstepOracle/gui-oracle.m. NSFont is not covered:
/// gnustep-gui needs a display backend (gnustep-back) to create any font (see gui-oracle.m).
///
/// Deviation 9: GNUstep writes `NSCYMK` as "c m y k" but reads it back as cyan, yellow, magenta, black, so
/// it swaps magenta and yellow of every CMYK color it unarchives, its own and ours. It writes `NSRGB` and
/// `NSWhite` without Apple's trailing NUL (we read both forms).
@Suite(.enabled(if: GNUstepOracle.isGUIAvailable,
                "gnustep-gui not installed (apt-get install gobjc libgnustep-gui-dev gnustep-gui-runtime)"))
struct GNUstepColorTests {
    static let calibratedRGB = "NSCalibratedRGBColorSpace", deviceRGB = "NSDeviceRGBColorSpace"
    static let calibratedWhite = "NSCalibratedWhiteColorSpace", deviceWhite = "NSDeviceWhiteColorSpace"

    static func sample(_ name: String, _ value: ArchivedColor, _ expected: String) -> OutgoingSample {
        OutgoingSample(name: name, format: .binary, archive: { try KeyedArchiver.archivedData(withRootObject: value) }, expected: expected)
    }

    static let outgoing: [OutgoingSample] = [
        sample("calibrated RGB", ArchivedColor(.rgb(red: 0.25, green: 0.5, blue: 0.75, alpha: 1, calibrated: true)),
               D.color(calibratedRGB, [0.25, 0.5, 0.75, 1])),
        sample("calibrated RGB, decimal fractions", ArchivedColor(.rgb(red: 0.1, green: 0.2, blue: 0.3, alpha: 0.7, calibrated: true)),
               D.color(calibratedRGB, [0.1, 0.2, 0.3, 0.7])),
        sample("device RGB with alpha", ArchivedColor(.rgb(red: 1, green: 0.125, blue: 0, alpha: 0.5, calibrated: false)),
               D.color(deviceRGB, [1, 0.125, 0, 0.5])),
        sample("calibrated white", ArchivedColor(.white(white: 0.5, alpha: 1, calibrated: true)), D.color(calibratedWhite, [0.5, 1])),
        sample("device white with alpha", ArchivedColor(.white(white: 0.375, alpha: 0.25, calibrated: false)),
               D.color(deviceWhite, [0.375, 0.25])),
        sample("RGB with NSComponents and NSCustomColorSpace (ignored by GNUstep)",
               ArchivedColor(.rgb(red: 0.5, green: 0.25, blue: 1, alpha: 1, calibrated: false),
                             components: [0.5, 0.25, 1, 1], colorSpace: .init(id: 7)),
               D.color(deviceRGB, [0.5, 0.25, 1, 1])),
        sample("named color", ArchivedColor(.catalog(catalogName: "System", colorName: "controlColor", fallback: nil)),
               D.namedColor(catalog: "System", name: "controlColor")),
        sample("named color with a fallback", ArchivedColor(.catalog(catalogName: "System", colorName: "textColor",
                   fallback: ArchivedColor(.white(white: 0, alpha: 1, calibrated: true)))),
               D.namedColor(catalog: "System", name: "textColor")),
    ]

    @Test("GNUstep reads our NSColor", arguments: outgoing)
    func gnustepReadsOurColor(_ sample: OutgoingSample) throws {
        #expect(try GNUstepOracle.decode(sample.archive(), program: .gui) == sample.expected)
    }

    static let incoming: [(String, ArchivedColor.Content)] = [
        ("calibratedRGB", .rgb(red: 0.25, green: 0.5, blue: 0.75, alpha: 1, calibrated: true)),
        ("deviceRGB", .rgb(red: 1, green: 0.125, blue: 0, alpha: 0.5, calibrated: false)),
        ("calibratedWhite", .white(white: 0.5, alpha: 1, calibrated: true)),
        ("deviceWhite", .white(white: 0.375, alpha: 0.25, calibrated: false)),
        ("deviceCMYK", .cmyk(cyan: 0.5, magenta: 0.25, yellow: 0, black: 0.125, alpha: 1)),
        ("named", .catalog(catalogName: "System", colorName: "controlColor", fallback: nil)),
    ]

    @Test("We read GNUstep's NSColor", arguments: incoming, [PropertyListFormat.binary, .xml])
    func weReadGNUstepColor(_ sample: (String, ArchivedColor.Content), _ format: PropertyListFormat) throws {
        let value = try KeyedUnarchiver().decode(ArchivedColor.self, from: GNUstepOracle.encode(sample.0, format: format, program: .gui))
        #expect(value == ArchivedColor(sample.1))
    }

    @Test func gnustepSwapsMagentaAndYellowWhenReadingCMYK() throws {
        // Deviation 9: "c m y k" is read as cyan, yellow, magenta, black, in GNUstep's own archive and in ours.
        let ours = try KeyedArchiver.archivedData(withRootObject: ArchivedColor(.cmyk(cyan: 0.5, magenta: 0.25, yellow: 0, black: 0.125, alpha: 1)))
        let theirs = try GNUstepOracle.encode("deviceCMYK", program: .gui)
        for archive in [ours, theirs] {
            let line = try GNUstepOracle.decode(archive, program: .gui)
            withKnownIssue("GNUstep reads NSCYMK's magenta and yellow the wrong way round") {
                #expect(line == D.color("NSDeviceCMYKColorSpace", [0.5, 0.25, 0, 0.125, 1]))
            }
            #expect(line == D.color("NSDeviceCMYKColorSpace", [0.5, 0, 0.25, 0.125, 1]))
        }
    }
}
