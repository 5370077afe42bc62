import Testing
@testable import KeyedArchive

@Suite struct PropertyListValueTests {
    @Test func integersNormaliseAcrossSignedness() {
        #expect(PropertyListInteger(UInt64(5)) == PropertyListInteger(Int64(5)))
        #expect(PropertyListInteger(UInt64.max).int64Value == nil)
        #expect(PropertyListInteger(UInt64.max).uint64Value == UInt64.max)
        #expect(PropertyListInteger(Int64(-1)).uint64Value == nil)
        #expect(PropertyListInteger(Int64.min) < PropertyListInteger(UInt64.max))
        #expect(PropertyListInteger(exactly: Int8(-3))?.int64Value == -3)
        #expect(PropertyListInteger(UInt64.max).description == "18446744073709551615")
    }

    @Test func realsCompareByBitPattern() {
        #expect(PropertyListValue.real(.nan) == .real(.nan))
        #expect(PropertyListValue.real(0.0) != .real(-0.0))
        #expect(PropertyListValue.real(1.5) != .float(1.5))
    }

    @Test func dictionaryKeepsOrderAndComparesAsDictionary() {
        var d: PropertyListDictionary = ["b": 1, "a": 2]
        d["c"] = 3
        #expect(d.keys == ["b", "a", "c"])
        let other: PropertyListDictionary = ["a": 2, "c": 3, "b": 1]
        #expect(d == other)
        #expect(d.hashValue == other.hashValue)
        d["a"] = nil
        #expect(d.keys == ["b", "c"])
        #expect(d["a"] == nil)
    }

    @Test func largeDictionaryLookupsUseIndexConsistently() {
        var d = PropertyListDictionary()
        for i in 0..<100 { d["k\(i)"] = .integer(PropertyListInteger(Int64(i))) }
        for i in 0..<100 { #expect(d["k\(i)"] == .integer(PropertyListInteger(Int64(i)))) }
        d["k50"] = nil
        #expect(d["k50"] == nil)
        #expect(d["k51"] == .integer(51))
        #expect(d.count == 99)
    }

    @Test func repeatedKeyKeepsFirstPositionAndLastValue() {
        let d = PropertyListDictionary([("x", 1), ("y", 2), ("x", 3)])
        #expect(d.keys == ["x", "y"])
        #expect(d["x"] == 3)
    }
}
