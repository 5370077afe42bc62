import Foundation
import Testing
@testable import KeyedArchive

/// Every property-list path works, or stops with a clear error, at any depth: reading (binary, XML), writing
/// (binary, XML), `==`, `hash(into:)`, `description` and freeing (``PropertyListValue/dismantle(_:)``).
@Suite struct PropertyListDeepNestingTests {
    static let million = 1_000_000
    static let mainThreadStack = 8 << 20
    static let secondaryThreadStack = 512 << 10

    /// Limits raised far enough for a million levels.
    static let raised: PropertyListReadingOptions = {
        var options = PropertyListReadingOptions()
        options.maximumDepth = 2_000_000
        options.maximumObjectCount = 4_000_000
        return options
    }()

    /// `[[[ ... [leaf] ... ]]]`, `levels` arrays deep, built without recursion.
    static func nested(_ levels: Int, leaf: PropertyListValue = 1) -> PropertyListValue {
        var value = leaf
        for _ in 0 ..< levels { value = [value] }
        return value
    }

    /// `{"k": {"k": ... leaf ...}}`, `levels` dictionaries deep.
    static func nestedDictionaries(_ levels: Int, leaf: PropertyListValue = "end") -> PropertyListValue {
        var value = leaf
        for _ in 0 ..< levels { value = ["k": value] }
        return value
    }

    /// How many containers deep `value` is along its first elements, counted without recursion.
    static func depth(of value: PropertyListValue) -> Int {
        var v = value
        var levels = 0
        while true {
            switch v {
            case .array(let a) where !a.isEmpty: v = a[0]
            case .dictionary(let d) where !d.isEmpty: v = d.values[0]
            default: return levels
            }
            levels += 1
        }
    }

    static func hashValue(_ v: PropertyListValue) -> Int {
        var h = Hasher()
        v.hash(into: &h)
        return h.finalize()
    }

    @Test func descriptionIsASwiftLiteral() {
        let value: PropertyListValue = ["a": [1, .real(2.5), .float(1.5), true], "s": .set(["x"]), "u": .uid(UID(3)),
                                        "d": .data(Data([1, 2])), "t": .date(Date(timeIntervalSinceReferenceDate: 10)),
                                        "e": .dictionary([:]), "n": [[["leaf"]]]]
        #expect(value.description == #"["a": [1, 2.5, Float(1.5), true], "s": set["x"], "u": UID(3), "d": Data(2 bytes), "t": Date(10.0), "e": [:], "n": [[["leaf"]]]]"#)
    }

    // MARK: - Default limits

    @Test func defaultLimitsReadTheDeepestAllowedValueOnASmallStack() throws {
        try onThread(stackSize: Self.secondaryThreadStack) {
            let value = Self.nested(512)
            let binary = BinaryPropertyListWriter().write(value)
            #expect(try BinaryPropertyListReader().read(binary) == value)
            let xml = try XMLPropertyListWriter().write(value)
            #expect(try XMLPropertyListReader().read(xml) == value)
            #expect(Self.hashValue(value) == Self.hashValue(try BinaryPropertyListReader().read(binary)))
            #expect(value.description == String(repeating: "[", count: 512) + "1" + String(repeating: "]", count: 512))
        }
    }

    @Test func defaultLimitsStopOneLevelDeeperWithAClearError() throws {
        try onThread(stackSize: Self.secondaryThreadStack) {
            let value = Self.nested(513)
            let binary = readError(BinaryPropertyListWriter().write(value))
            #expect(binary?.code == .tooDeep)
            #expect(binary?.message.contains("deeper than the limit of 512") == true)
            #expect(binary?.location.keyPath == String(repeating: "[0]", count: 512))
            do {
                _ = try XMLPropertyListReader().read(try XMLPropertyListWriter().write(value))
                Issue.record("XML read 513 levels")
            } catch let error as PropertyListError {
                #expect(error.code == .tooDeep)
            }
        }
    }

    // MARK: - A million levels

    @Test func binaryAndXMLRoundTripAMillionLevelsOnAnEightMiBStack() throws {
        try onThread(stackSize: Self.mainThreadStack) {
            var value: PropertyListValue? = Self.nested(Self.million, leaf: "leaf")
            let binary = BinaryPropertyListWriter().write(value!)
            var fromBinary: PropertyListValue? = try BinaryPropertyListReader(options: Self.raised).read(binary)
            #expect(Self.depth(of: fromBinary!) == Self.million)
            let binaryEqual = fromBinary == value  // Bools: a failure must not print a million levels
            #expect(binaryEqual)
            #expect(Self.hashValue(fromBinary!) == Self.hashValue(value!))

            let xml = try XMLPropertyListWriter().write(value!)
            var fromXML: PropertyListValue? = try XMLPropertyListReader(options: Self.raised).read(xml)
            let xmlEqual = fromXML == value
            #expect(xmlEqual)

            let text = value!.description
            #expect(text.utf8.count == 2 * Self.million + 6)
            let bytes = Array(text.utf8)
            let expected = Array(String(repeating: "[", count: Self.million).utf8) + Array("\"leaf\"".utf8)
                + Array(String(repeating: "]", count: Self.million).utf8)
            let sameText = bytes == expected  // a Bool, so that a failure does not print two megabytes
            #expect(sameText)

            PropertyListValue.dismantle(fromXML.take()!)
            PropertyListValue.dismantle(fromBinary.take()!)
            PropertyListValue.dismantle(value.take()!)
        }
    }

    @Test func dictionariesAMillionLevelsDeepRoundTrip() throws {
        try onThread(stackSize: Self.mainThreadStack) {
            var value: PropertyListValue? = Self.nestedDictionaries(Self.million)
            let binary = BinaryPropertyListWriter().write(value!)
            var back: PropertyListValue? = try BinaryPropertyListReader(options: Self.raised).read(binary)
            let equal = back == value
            #expect(equal)
            #expect(Self.depth(of: back!) == Self.million)
            PropertyListValue.dismantle(back.take()!)
            PropertyListValue.dismantle(value.take()!)
        }
    }

    @Test func unequalValuesAMillionLevelsDeepCompareUnequal() throws {
        try onThread(stackSize: Self.mainThreadStack) {
            var a: PropertyListValue? = Self.nested(Self.million, leaf: 1)
            var b: PropertyListValue? = Self.nested(Self.million, leaf: 2)
            let unequal = a != b
            #expect(unequal)
            PropertyListValue.dismantle(a.take()!)
            PropertyListValue.dismantle(b.take()!)
        }
    }

    /// A reader that fails a million levels down, after it has finished a million-level sibling, frees
    /// what it built without recursion and reports the fault's key path.
    @Test func failureBelowAFinishedDeepSubtreeIsReportedAndFreed() throws {
        try onThread(stackSize: Self.mainThreadStack) {
            // [deep chain, 2-byte real]: the second element is corrupt, found after the first is built.
            var value: PropertyListValue? = [Self.nested(Self.million), .real(0)]
            var bytes = [UInt8](BinaryPropertyListWriter().write(value!))
            PropertyListValue.dismantle(value.take()!)
            let real: [UInt8] = [0x23, 0, 0, 0, 0, 0, 0, 0, 0]
            let at = try #require(bytes.lastRange(of: real))
            bytes[at.lowerBound] = 0x21  // 2-byte real -- CORRUPTED
            let error = readError(Data(bytes), options: Self.raised)
            #expect(error?.code == .invalidObject)
            #expect(error?.location.keyPath == "[1]")
        }
    }

    /// `[chain, chain, corrupt]`: one chain `levels` arrays deep, shared (so memoized), then a 2-byte real.
    static func sharedDeepChainThenCorruptObject(levels: Int) -> Data {
        func ref(_ r: Int) -> [UInt8] { [UInt8(r >> 16 & 0xFF), UInt8(r >> 8 & 0xFF), UInt8(r & 0xFF)] }
        func be64(_ v: Int) -> [UInt8] { (0 ..< 8).reversed().map { UInt8(v >> (8 * $0) & 0xFF) } }
        var bytes = Array("bplist00".utf8)  // bplist00
        var offsets: [Int] = [bytes.count]
        bytes += [0xA3] + ref(1) + ref(1) + ref(levels + 2)  // 0: [object 1, object 1, last object]
        for i in 1 ... levels {
            offsets.append(bytes.count)
            bytes += [0xA1] + ref(i + 1)  // i: [object i + 1]
        }
        offsets.append(bytes.count)
        bytes += [0x10, 0x01]  // levels + 1: int 1
        offsets.append(bytes.count)
        bytes += [0x21, 0x00, 0x00]  // levels + 2: 2-byte real -- CORRUPTED
        let table = bytes.count
        for o in offsets { bytes += [UInt8(o >> 24 & 0xFF), UInt8(o >> 16 & 0xFF), UInt8(o >> 8 & 0xFF), UInt8(o & 0xFF)] }
        bytes += [0, 0, 0, 0, 0, 0, 4, 3]  // trailer: offset size 4, reference size 3
        bytes += be64(offsets.count) + be64(0) + be64(table)  // count, top object 0, table offset
        return Data(bytes)
    }

    /// A failed read frees a memoized (shared) sub-tree a million levels deep without recursion.
    @Test func failureAfterASharedDeepSubtreeIsReportedAndFreed() throws {
        try onThread(stackSize: Self.mainThreadStack) {
            let error = readError(Self.sharedDeepChainThenCorruptObject(levels: Self.million), options: Self.raised)
            #expect(error?.code == .invalidObject)
            #expect(error?.location.keyPath == "[2]")
            #expect(error?.location.objectNumber == Self.million + 2)
        }
    }

    @Test func dismantleFreesAMillionLevelsOnASmallStack() throws {
        try onThread(stackSize: Self.secondaryThreadStack) {
            var mixed: PropertyListValue = "leaf"
            for i in 0 ..< Self.million {
                switch i % 3 {
                case 0: mixed = [mixed]
                case 1: mixed = .set([mixed])
                default: mixed = ["k": mixed, "n": .integer(PropertyListInteger(Int64(i)))]
                }
            }
            var owned: PropertyListValue? = mixed
            mixed = 0
            PropertyListValue.dismantle(owned.take()!)
            #expect(owned == nil)
        }
    }
}

// MARK: - Freeing by dropping the last reference

/// Dropping the last reference to a value frees it without recursion (the containers' storage hands its
/// elements to a per-thread worklist), whatever its depth and kind, on any thread.
@Suite struct PropertyListTeardownTests {
    static let million = PropertyListDeepNestingTests.million

    enum Kind: String, CaseIterable, Sendable { case array, set, dictionary }

    /// `levels` containers of `kind`, each holding the next, around `leaf`.
    static func chain(_ kind: Kind, _ levels: Int, leaf: PropertyListValue = "leaf") -> PropertyListValue {
        var value = leaf
        for i in 0 ..< levels {
            switch kind {
            case .array: value = [value]
            case .set: value = .set([value, .integer(PropertyListInteger(Int64(i)))])
            case .dictionary: value = ["k": value]
            }
        }
        return value
    }

    /// How many containers deep `value` goes along first elements, and the value found there.
    static func walk(_ value: PropertyListValue) -> (levels: Int, leaf: PropertyListValue) {
        var v = value
        var levels = 0
        while true {
            switch v {
            case .array(let a) where !a.isEmpty: v = a[0]
            case .set(let a) where !a.isEmpty: v = a[0]
            case .dictionary(let d) where !d.isEmpty: v = d.values[0]
            default: return (levels, v)
            }
            levels += 1
        }
    }

    @Test(arguments: Kind.allCases)
    func droppingTheLastReferenceFreesAMillionLevelsOnAnEightMiBStack(kind: Kind) throws {
        let freed = try onThread(stackSize: PropertyListDeepNestingTests.mainThreadStack) {
            var value: PropertyListValue? = Self.chain(kind, Self.million)
            let (levels, leaf) = Self.walk(value!)
            value = nil  // the last reference: Swift's own deinitialisation would recurse a million times
            return (levels, leaf, value == nil)
        }
        #expect(freed.0 == Self.million)
        #expect(freed.1 == "leaf")
        #expect(freed.2)
    }

    @Test func aMixedMillionLevelValueDecodedFromBinaryIsFreedByDroppingIt() throws {
        try onThread(stackSize: PropertyListDeepNestingTests.mainThreadStack) {
            var value: PropertyListValue = "leaf"
            for i in 0 ..< Self.million {
                switch i % 3 {
                case 0: value = [value]
                case 1: value = .set([value])
                default: value = ["k": value]
                }
            }
            let bytes = BinaryPropertyListWriter().write(value)
            value = 0
            var read: PropertyListValue? = try BinaryPropertyListReader(options: PropertyListDeepNestingTests.raised)
                .read(bytes)
            #expect(Self.walk(read!).levels == Self.million)
            read = nil
            #expect(read == nil)
        }
    }

    /// Two threads free million-level values at the same time: each runs its own worklist.
    @Test func twoThreadsFreeDeepValuesAtTheSameTime() throws {
        let results = ConcurrentResults()
        let built = DispatchGroup()
        let done = DispatchGroup()
        for (index, kind) in [Kind.array, .dictionary].enumerated() {
            built.enter()
            done.enter()
            Thread {
                let outcome = Result {
                    try onThread(stackSize: PropertyListDeepNestingTests.mainThreadStack) {
                        var value: PropertyListValue? = Self.chain(kind, Self.million, leaf: .integer(PropertyListInteger(Int64(index))))
                        let (levels, leaf) = Self.walk(value!)
                        built.leave()
                        built.wait()  // both built: they are freed together
                        value = nil
                        return levels == Self.million && leaf == .integer(PropertyListInteger(Int64(index))) && value == nil
                    }
                }
                results.record(index, (try? outcome.get()) == true)
                done.leave()
            }.start()
        }
        done.wait()
        #expect(results.all == [0: true, 1: true])
    }

    /// A sub-tree shared by two values survives, whole, when one of them is freed.
    @Test func freeingOneValueLeavesASharedSubtreeIntact() throws {
        try onThread(stackSize: PropertyListDeepNestingTests.mainThreadStack) {
            var shared: PropertyListValue? = Self.chain(.dictionary, Self.million)
            let wide: PropertyListValue = .array((0 ..< 1_000).map { ["n": .integer(PropertyListInteger(Int64($0))), "s": .set(["x"])] })
            var first: PropertyListValue? = [shared!, wide, .set([shared!])]
            let second: PropertyListValue = ["deep": shared!, "wide": wide]
            shared = nil
            first = nil  // frees `first`'s own containers only
            #expect(first == nil)

            let survivor = try #require(second.dictionaryValue)
            let (levels, leaf) = Self.walk(try #require(survivor["deep"]))
            #expect(levels == Self.million)
            #expect(leaf == "leaf")
            let elements = try #require(survivor["wide"]?.arrayValue)
            #expect(elements.count == 1_000)
            for (i, element) in elements.enumerated() {
                #expect(element == ["n": .integer(PropertyListInteger(Int64(i))), "s": .set(["x"])])
            }
            let rebuilt = Self.chain(.dictionary, Self.million)
            let equal = survivor["deep"] == rebuilt  // a Bool, so that a failure does not print a million levels
            #expect(equal)
        }
    }
}

/// Results recorded by several threads.
final class ConcurrentResults: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Int: Bool] = [:]

    func record(_ index: Int, _ result: Bool) {
        lock.lock()
        results[index] = result
        lock.unlock()
    }

    var all: [Int: Bool] {
        lock.lock()
        defer { lock.unlock() }
        return results
    }
}

extension Array where Element == UInt8 {
    /// The last range where `pattern` occurs.
    fileprivate func lastRange(of pattern: [UInt8]) -> Range<Int>? {
        guard pattern.count <= count else { return nil }
        for start in stride(from: count - pattern.count, through: 0, by: -1)
        where self[start ..< start + pattern.count].elementsEqual(pattern) {
            return start ..< start + pattern.count
        }
        return nil
    }
}
