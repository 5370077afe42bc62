import Foundation
import Testing
@testable import KeyedArchive

/// Typed JSON (``PropertyListValue/typedJSONData(prettyPrinted:)`` and ``PropertyListValue/init(typedJSON:options:)``).
@Suite struct TypedJSONTests {
    static func text(_ value: PropertyListValue) -> String { String(decoding: value.typedJSONData(), as: UTF8.self) }

    @Test func realsAndIntegersStayApart() throws {
        #expect(Self.text(.real(1.0)) == "1.0")
        #expect(Self.text(.integer(1)) == "1")
        #expect(Self.text(.float(1.5)) == #"{"$float":1.5}"#)
        #expect(try PropertyListValue(typedJSON: Data("1.0".utf8)) == .real(1.0))
        #expect(try PropertyListValue(typedJSON: Data("1".utf8)) == .integer(1))
        #expect(try PropertyListValue(typedJSON: Data("1e2".utf8)) == .real(100))
    }

    @Test func markersWriteWhatJSONCannotSay() {
        #expect(Self.text(.date(Date(timeIntervalSinceReferenceDate: 0))) == #"{"$date":"2001-01-01T00:00:00Z"}"#)
        #expect(Self.text(.date(Date(timeIntervalSinceReferenceDate: 0.25))) == #"{"$date":"2001-01-01T00:00:00.25Z"}"#)
        #expect(Self.text(.date(Date(timeIntervalSinceReferenceDate: -0.5))) == #"{"$date":"2000-12-31T23:59:59.5Z"}"#)
        #expect(Self.text(.data(Data([0, 1, 2]))) == #"{"$data":"AAEC"}"#)
        #expect(Self.text(.uid(UID(7))) == #"{"$uid":7}"#)
        #expect(Self.text(.set(["a"])) == #"{"$set":["a"]}"#)
        #expect(Self.text(.real(.nan)) == #"{"$real":"nan"}"#)
        #expect(Self.text(.dictionary(["$uid": 1])) == #"{"$dictionary":{"$uid":1}}"#)
        #expect(Self.text(.dictionary(["$archiver": "x", "b": [1, 2.5]])) == #"{"$archiver":"x","b":[1,2.5]}"#)
    }

    static let edgeValues: [PropertyListValue] = [
        .integer(PropertyListInteger(Int64.min)), .integer(PropertyListInteger(UInt64.max)), .integer(0),
        .real(-0.0), .real(.leastNonzeroMagnitude), .real(1e300), .real(0.1), .real(.infinity), .real(-.infinity), .real(.nan),
        .real(Double(bitPattern: 0x7FF8_0000_0000_0001)), .float(-0.0), .float(3.4028235e38), .float(.nan), .float(.infinity),
        .float(Float(bitPattern: 0x7FC0_0001)),
        .date(Date(timeIntervalSinceReferenceDate: 700_000_000.123456)), .date(Date(timeIntervalSinceReferenceDate: -0.0)),
        .date(Date(timeIntervalSinceReferenceDate: -1e12)), .date(Date(timeIntervalSinceReferenceDate: 1e-7)),
        .date(Date(timeIntervalSinceReferenceDate: .nan)), .date(Date(timeIntervalSinceReferenceDate: -63_113_904_000.5)),
        .string("quote \" backslash \\ control \u{1} emoji 😀 \u{0}"), .data(Data()), .data(Data((0 ..< 255).map { UInt8($0) })),
        .uid(UID(0)), .uid(UID(UInt64(UInt32.max))), .bool(true), .array([]), .set([]), .dictionary([:]),
        .dictionary(["$date": "not a date", "$set": .set([.uid(UID(3))])]), .dictionary(["$data": .dictionary(["$real": 1])]),
        .array([.array([.dictionary(["k": .array([.real(2)])])])]),
    ]

    @Test(arguments: [false, true])
    func edgeValuesRoundTrip(_ pretty: Bool) throws {
        for value in Self.edgeValues {
            let data = value.typedJSONData(prettyPrinted: pretty)
            #expect(try PropertyListValue(typedJSON: data) == value, "\(String(decoding: data, as: UTF8.self))")
            #expect((try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])) != nil,
                    "\(String(decoding: data, as: UTF8.self))")
        }
    }

    /// Every property list and keyed archive of the corpus (typedstream files are not property lists): typed JSON
    /// that Foundation's JSONSerialization parses, and that reads back to an equal value.
    @Test(.requiresCorpus) func corpusRoundTripsThroughTypedJSON() throws {
        var converted = 0, archives = 0, sameBytes = 0
        for file in Corpus.files() {
            let data = try Corpus.data(file)
            guard let value = try? PropertyListValue(propertyListData: data) else { continue }
            converted += 1
            if case .dictionary(let d) = value, d["$archiver"] != nil { archives += 1 }
            let json = value.typedJSONData()
            #expect((try? JSONSerialization.jsonObject(with: json, options: [.fragmentsAllowed])) != nil, "\(file)")
            let back = try PropertyListValue(typedJSON: json)
            #expect(back == value, "\(file)")
            if let format = PropertyListValue.detectFormat(of: data), (try? back.propertyListData(format: format)) == data { sameBytes += 1 }
        }
        print("typed JSON round trip of \(converted) corpus property lists (\(archives) keyed archives); \(sameBytes) written back byte-equal")
        #expect(converted > 140)
        #expect(archives > 90)
    }

    /// Every keyed archive of the corpus that reads as a graph: typed JSON back to an equal graph; an edit made
    /// on the JSON text (as `jq` would) shows in the graph read back.
    @Test(.requiresCorpus) func corpusArchivesRoundTripAsGraphs() throws {
        var count = 0
        for file in Corpus.files() {
            guard let graph = try? ArchivedObjectGraph(data: Corpus.data(file)) else { continue }
            #expect(try ArchivedObjectGraph(typedJSON: graph.typedJSONData(prettyPrinted: true)) == graph, "\(file)")
            count += 1
        }
        #expect(count > 80)
        let graph = try ArchivedObjectGraph(data: KeyedArchiver.archivedData(withRootObject: FoundationValue.array([.string("old")])))
        let json = String(decoding: graph.typedJSONData(), as: UTF8.self).replacingOccurrences(of: "\"old\"", with: "\"new\"")
        #expect(try ArchivedObjectGraph(typedJSON: Data(json.utf8)).value(at: "root.0").node.string == "new")
        let dangling = String(decoding: graph.typedJSONData(), as: UTF8.self).replacingOccurrences(of: "{\"$uid\":1}", with: "{\"$uid\":9}")
        let error = try #require(throws: KeyedArchiveError.self) { try ArchivedObjectGraph(typedJSON: Data(dangling.utf8)) }
        #expect(error.code == .invalidReference)
    }

    @Test func hostileJSONThrows() throws {
        let cases: [(String, String)] = [
            (#"{"$uid": "3"}"#, "$uid"), (#"{"$uid": -1}"#, "$uid"), (#"{"$uid": 4294967296}"#, "$uid"), (#"{"$uid": 1.0}"#, "$uid"),
            (#"{"a": {"$uid": null}}"#, "a.$uid"), (#"[null]"#, "0"), (#"{"$data": "@@@"}"#, "$data"),
            (#"{"$date": "2024-13-01T00:00:00Z"}"#, "$date"), (#"{"$date": "yesterday"}"#, "$date"),
            (#"{"$date": "2024-02-30T00:00:00Z"}"#, "$date"), (#"{"$real": "big"}"#, "$real"), (#"{"$set": {}}"#, "$set"),
            ("18446744073709551616", "(root)"), ("-9223372036854775809", "(root)"),
        ]
        for (json, path) in cases {
            let error = try #require(throws: PropertyListError.self, "\(json)") { try PropertyListValue(typedJSON: Data(json.utf8)) }
            #expect(error.code == .invalidJSON, "\(json): \(error)")
            #expect(error.location.keyPath == path, "\(json): \(error)")
        }
        let syntax = ["", "[", "{\"a\":1,}", "[1,]", "01", "1.", "\"\\x\"", "\"\\ud800\"", "{\"a\":1,\"a\":2}", "[1] 2", "tru",
                      "\"a\u{1}\"", "{1:2}"]
        for json in syntax {
            let error = try #require(throws: PropertyListError.self, "\(json)") { try PropertyListValue(typedJSON: Data(json.utf8)) }
            #expect(error.code == .invalidJSON, "\(json): \(error)")
            #expect(error.location.byteOffset != nil, "\(json): \(error)")
        }
        // Deep nesting is refused at the limit, before any recursion.
        let deep = Data((String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)).utf8)
        let error = try #require(throws: PropertyListError.self) { try PropertyListValue(typedJSON: deep) }
        #expect(error.message.contains("deeper than 512"))
        var options = PropertyListReadingOptions()
        options.maximumDepth = 3
        #expect(throws: PropertyListError.self) { try PropertyListValue(typedJSON: Data("[[[[1]]]]".utf8), options: options) }
        #expect(try PropertyListValue(typedJSON: Data("[[[1]]]".utf8), options: options) == .array([.array([.array([1])])]))
    }
}
