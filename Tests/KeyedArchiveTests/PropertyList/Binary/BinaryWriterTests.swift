import Foundation
import Testing
@testable import KeyedArchive

/// Values with every kind of object, used by several tests.
enum SampleValues {
    static let everyKind: PropertyListValue = .dictionary([
        "string": "hello",
        "empty": "",
        "unicode": "héllo wörld 中文 😀",
        "long ascii": .string(String(repeating: "x", count: 300)),
        "zero": 0, "small": 200, "two bytes": 60_000, "four bytes": 4_000_000_000, "eight bytes": 5_000_000_000,
        "negative": -1, "min": .integer(PropertyListInteger(Int64.min)), "max": .integer(PropertyListInteger(Int64.max)),
        "unsigned max": .integer(PropertyListInteger(UInt64.max)),
        "real": 1.5, "nan": .real(.nan), "minus zero": .real(-0.0), "infinity": .real(.infinity),
        "float": .float(2.5),
        "true": true, "false": false,
        "date": .date(Date(timeIntervalSinceReferenceDate: 123_456.75)),
        "data": .data(Data([0, 1, 2, 255])), "big data": .data(Data(repeating: 7, count: 70_000)),
        "uid": .uid(UID(3)), "big uid": .uid(UID(70_000)), "max uid": .uid(UID(UInt64(UInt32.max))),
        "array": [1, "two", 3.0, [4]],
        "set": .set(["a", "b", 1]),
        "nested": ["inner": ["deeper": ["x": []]]],
        "fifteen": .array((0 ..< 15).map { .integer(PropertyListInteger(Int64($0))) }),
    ])

    /// Values Foundation's PropertyListSerialization can also express (no sets, no UIDs).
    static let foundationCompatible: [PropertyListValue] = [
        "just a string",
        42,
        .array([]),
        .dictionary([:]),
        ["a": 1, "b": [true, false, 2.5], "c": .data(Data([1, 2, 3]))],
        .array((0 ..< 300).map { .string("item \($0 % 50)") }),
        .array((0 ..< 1000).map { .integer(PropertyListInteger(Int64($0 * 1000))) }),
        ["unicode": "ünïcödé 😀", "neg": -5, "big": .integer(PropertyListInteger(UInt64.max)), "f": .float(1.25),
         "date": .date(Date(timeIntervalSinceReferenceDate: 1000)), "long": .string(String(repeating: "ab", count: 100))],
        .array((0 ..< 200).map { i in ["id": .integer(PropertyListInteger(Int64(i))), "name": .string("n\(i % 7)"), "ok": .bool(i % 2 == 0)] }),
    ]
}

@Suite struct BinaryWriterTests {
    private func roundTrip(_ value: PropertyListValue) throws -> PropertyListValue {
        try BinaryPropertyListReader().read(BinaryPropertyListWriter().write(value))
    }

    @Test func everyKindOfValueRoundTrips() throws {
        let back = try roundTrip(SampleValues.everyKind)
        #expect(back == SampleValues.everyKind)
        // `==` ignores dictionary order; the order must survive too.
        #expect(back.dictionaryValue?.keys == SampleValues.everyKind.dictionaryValue?.keys)
    }

    @Test func randomValuesRoundTripExactly() throws {
        var g = SeededGenerator(seed: 0x5EED)
        let random = RandomPropertyList()
        for i in 0 ..< 300 {
            let value = random.value(&g)
            let back = try roundTrip(value)
            #expect(back == value, "random value \(i)")
            if back == value {
                #expect(Self.keyOrders(back) == Self.keyOrders(value), "random value \(i): key order")
            }
        }
    }

    /// Every dictionary's keys, depth-first, to check that order survives.
    static func keyOrders(_ v: PropertyListValue) -> [[String]] {
        switch v {
        case .dictionary(let d): return [d.keys] + d.values.flatMap(keyOrders)
        case .array(let a), .set(let a): return a.flatMap(keyOrders)
        default: return []
        }
    }

    @Test func sameValueGivesIdenticalBytes() {
        var g = SeededGenerator(seed: 7)
        for _ in 0 ..< 50 {
            let value = RandomPropertyList().value(&g)
            #expect(BinaryPropertyListWriter().write(value) == BinaryPropertyListWriter().write(value))
        }
        #expect(BinaryPropertyListWriter().write(SampleValues.everyKind) == BinaryPropertyListWriter().write(SampleValues.everyKind))
    }

    @Test func smallestFileForASingleInteger() {
        let bytes = [UInt8](BinaryPropertyListWriter().write(5))
        #expect(bytes == [
            0x62, 0x70, 0x6C, 0x69, 0x73, 0x74, 0x30, 0x30,  // bplist00
            0x10, 0x05,  // object 0: 1-byte integer 5
            0x08,  // offset table: object 0 at byte 8
            0, 0, 0, 0, 0, 0,  // trailer: unused, sort version
            1, 1,  // offset size 1, reference size 1
            0, 0, 0, 0, 0, 0, 0, 1,  // 1 object
            0, 0, 0, 0, 0, 0, 0, 0,  // top object 0
            0, 0, 0, 0, 0, 0, 0, 10,  // offset table at byte 10
        ])
    }

    @Test(arguments: [
        (PropertyListInteger(Int64(0)), [UInt8]([0x10, 0x00])),
        (PropertyListInteger(Int64(255)), [0x10, 0xFF]),
        (PropertyListInteger(Int64(256)), [0x11, 0x01, 0x00]),
        (PropertyListInteger(Int64(65_536)), [0x12, 0x00, 0x01, 0x00, 0x00]),
        (PropertyListInteger(Int64(0x1_0000_0000)), [0x13, 0, 0, 0, 1, 0, 0, 0, 0]),
        (PropertyListInteger(Int64(-1)), [0x13, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
        (PropertyListInteger(UInt64.max), [0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]),
    ])
    func integersUseTheFewestBytes(value: PropertyListInteger, encoded: [UInt8]) {
        let bytes = [UInt8](BinaryPropertyListWriter().write(.integer(value)))
        #expect(Array(bytes[8 ..< 8 + encoded.count]) == encoded)
        #expect(bytes.count == 8 + encoded.count + 1 + 32)
    }

    @Test func stringsAreASCIIOrUTF16() {
        let ascii = [UInt8](BinaryPropertyListWriter().write("abc"))
        #expect(Array(ascii[8 ..< 12]) == [0x53, 0x61, 0x62, 0x63])
        let utf16 = [UInt8](BinaryPropertyListWriter().write("é😀"))
        // 3 UTF-16 units: U+00E9, then the pair D83D DE00.
        #expect(Array(utf16[8 ..< 15]) == [0x63, 0x00, 0xE9, 0xD8, 0x3D, 0xDE, 0x00])
    }

    @Test func equalScalarsAreWrittenOnceButDistinctKindsAreNot() throws {
        // [1, 1, 1.0, true, "1", "1", float 1.0, real 1.0]: objects array, 1, 1.0, true, "1", float 1.0 = 6.
        let value: PropertyListValue = [1, 1, .real(1.0), true, "1", "1", .float(1.0), .real(1.0)]
        let bytes = [UInt8](BinaryPropertyListWriter().write(value))
        let objectCount = bytes[bytes.count - 32 + 8 ..< bytes.count - 32 + 16].reduce(0) { $0 << 8 | Int($1) }
        #expect(objectCount == 6)
        #expect(try roundTrip(value) == value)
    }

    @Test func canonicallyEquivalentStringsStayDistinct() throws {
        let precomposed = "\u{E9}"
        let decomposed = "e\u{301}"
        #expect(precomposed == decomposed)  // Swift's String equality
        let back = try roundTrip([.string(precomposed), .string(decomposed)])
        let strings = try #require(back.arrayValue).compactMap(\.stringValue)
        #expect(strings.map { Array($0.unicodeScalars) } == [Array(precomposed.unicodeScalars), Array(decomposed.unicodeScalars)])
    }

    @Test func containersAreNotMerged() throws {
        let inner: PropertyListValue = ["x": 1]
        let bytes = [UInt8](BinaryPropertyListWriter().write([inner, inner]))
        let objectCount = bytes[bytes.count - 24 ..< bytes.count - 16].reduce(0) { $0 << 8 | Int($1) }
        // array, dict, dict, "x", 1
        #expect(objectCount == 5)
    }

    @Test func referenceAndOffsetWidthsGrowWithTheFile() throws {
        // 300 distinct strings: more than 255 objects, so 2-byte references.
        let many: PropertyListValue = .array((0 ..< 300).map { .string("s\($0)") })
        let bytes = [UInt8](BinaryPropertyListWriter().write(many))
        #expect(bytes[bytes.count - 32 + 7] == 2)  // reference size
        #expect(bytes[bytes.count - 32 + 6] == 2)  // offset size: table offset > 255
        #expect(try BinaryPropertyListReader().read(Data(bytes)) == many)
        // A 4-byte offset table (objects past 64 KiB: CoreFoundation's sizes are 1, 2, 4 or 8 bytes).
        let big: PropertyListValue = [.data(Data(repeating: 1, count: 70_000)), "after"]
        let bigBytes = [UInt8](BinaryPropertyListWriter().write(big))
        #expect(bigBytes[bigBytes.count - 32 + 6] == 4)
        #expect(try BinaryPropertyListReader().read(Data(bigBytes)) == big)
        // 4-byte references (more than 65,535 objects), in containers of 0, 1, 2 and 70,000 entries.
        let wide: PropertyListValue = .array((0 ..< 70_000).map { .integer(PropertyListInteger(Int64($0))) }
                                             + [.array([]), .array(["one"]), .dictionary(["k": "v"])])
        let wideBytes = [UInt8](BinaryPropertyListWriter().write(wide))
        #expect(wideBytes[wideBytes.count - 32 + 7] == 4)  // reference size
        #expect(try BinaryPropertyListReader().read(Data(wideBytes)) == wide)
    }

    /// The writer queues containers without retaining them (the tree passed in owns them): a tree that only
    /// the call holds, with shared and nested arrays, sets and dictionaries (400,000 containers), is written
    /// whole, and as a held one is.
    @Test func aTreeOnlyTheCallHoldsIsWrittenWhole() throws {
        func tree() -> PropertyListValue {
            let shared: PropertyListValue = ["shared": .set([1, "s"])]
            return .array((0 ..< 100_000).map { i in
                ["n": .integer(PropertyListInteger(Int64(i))), "s": .string("name \(i)"), "a": [shared, .set([.real(Double(i))])]]
            })
        }
        let held = tree()
        let bytes = BinaryPropertyListWriter().write(held)
        #expect(bytes.count > 4_000_000)
        #expect(BinaryPropertyListWriter().write(tree()) == bytes)
        #expect(try BinaryPropertyListReader().read(bytes) == held)
    }

    @Test func deeplyNestedValueIsWrittenWithoutRecursion() throws {
        var value: PropertyListValue = "leaf"
        for _ in 0 ..< 10_000 { value = [value] }
        let data = BinaryPropertyListWriter().write(value)
        // 10,000 arrays of one 2-byte reference + "leaf"; our reader refuses the depth (limit 512) rather than overflowing the stack.
        #expect(data.count == 8 + 10_000 * 3 + 5 + 10_001 * 2 + 32)  // 2-byte references and offsets
        #expect { try BinaryPropertyListReader().read(data) } throws: { ($0 as? PropertyListError)?.code == .tooDeep }
    }
}

@Suite struct BinaryInteropTests {
    @Test func foundationReadsOurBytes() throws {
        for (i, value) in SampleValues.foundationCompatible.enumerated() {
            let ours = BinaryPropertyListWriter().write(value)
            let theirs = try FoundationBridge.foundationRead(ours)
            let same = theirs == value
            #expect(same, "value \(i)")
        }
    }

    @Test func weReadFoundationsBytes() throws {
        for (i, value) in SampleValues.foundationCompatible.enumerated() {
            let foundation = try #require(try FoundationBridge.foundationBinary(value))
            let same = try BinaryPropertyListReader().read(foundation) == value
            #expect(same, "value \(i)")
        }
    }

    @Test func randomValuesSurviveFoundation() throws {
        var g = SeededGenerator(seed: 42)
        let random = RandomPropertyList(sets: false, uids: false)
        for i in 0 ..< 100 {
            let value = random.value(&g)
            let ours = BinaryPropertyListWriter().write(value)
            let viaFoundation = try FoundationBridge.foundationRead(ours)
            #expect(viaFoundation == value, "random value \(i): Foundation read \(String(describing: viaFoundation).prefix(300))")
            let foundation = try #require(try FoundationBridge.foundationBinary(value))
            let ourReading = try BinaryPropertyListReader().read(foundation)
            #expect(ourReading == value, "random value \(i)")
            #expect(ours.count <= foundation.count, "random value \(i): ours \(ours.count) bytes, Foundation \(foundation.count)")
        }
    }

    @Test func ourFileIsNeverLargerThanFoundations() throws {
        for (i, value) in SampleValues.foundationCompatible.enumerated() {
            let ours = BinaryPropertyListWriter().write(value)
            let foundation = try #require(try FoundationBridge.foundationBinary(value))
            #expect(ours.count <= foundation.count, "value \(i): ours \(ours.count) bytes, Foundation \(foundation.count)")
        }
    }

    @Test(.requiresPlistlib) func plistlibReadsOurBytes() throws {
        // plistlib has no sets: everything but the set.
        var everyKind = try #require(SampleValues.everyKind.dictionaryValue)
        everyKind["set"] = nil
        var values: [PropertyListValue] = [.dictionary(everyKind)]
        var g = SeededGenerator(seed: 99)
        let random = RandomPropertyList(sets: false)
        for _ in 0 ..< 40 { values.append(random.value(&g)) }
        let directory = try TemporaryDirectory.create("engine-plistlib")
        defer { TemporaryDirectory.remove(directory) }
        let urls = try values.enumerated().map { i, value in
            let url = directory.appendingPathComponent("\(i).plist")
            try BinaryPropertyListWriter().write(value).write(to: url)
            return url
        }
        let results = try PlistlibOracle.read(files: urls)
        for (i, (value, result)) in zip(values, results).enumerated() {
            guard case .value(let theirs) = result else {
                Issue.record("value \(i): plistlib rejected our bytes: \(result)")
                continue
            }
            let diffs = PlistlibOracle.differences(value, theirs)
            #expect(diffs.isEmpty, "value \(i): \(diffs.prefix(3).joined(separator: "; "))")
        }
    }

    @Test(.requiresPlistlib) func weReadPlistlibsBytes() throws {
        let value: PropertyListValue = ["a": [1, 2, 3], "b": "ünï", "c": .uid(UID(7)), "d": .integer(PropertyListInteger(UInt64.max)), "e": -9]
        let plistlib = try PlistlibOracle.rewrite(bytes: BinaryPropertyListWriter().write(value), as: .binary)
        #expect(try BinaryPropertyListReader().read(plistlib) == value)
    }
}
