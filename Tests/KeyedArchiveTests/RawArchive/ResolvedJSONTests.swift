import Foundation
import Testing
@testable import KeyedArchive
import KeyedArchiveTesting
import KeyedArchiveTestSupport

/// Resolved JSON (``ArchivedObjectGraph/resolvedJSONData(prettyPrinted:maximumDepth:)`` and
/// ``ArchivedObjectGraph/init(resolvedJSON:options:)``): the object graph with its classes, out and back in.
@Suite struct ResolvedJSONTests {
    static func text(_ graph: ArchivedObjectGraph) throws -> String {
        String(decoding: try graph.resolvedJSONData(), as: UTF8.self)
    }

    static func graph(_ json: String) throws -> ArchivedObjectGraph {
        try ArchivedObjectGraph(resolvedJSON: Data(json.utf8))
    }

    /// Every keyed archive of the corpus that reads as a graph: resolved JSON back to a graph with the same
    /// classes, sharing and values (compared object by object from `$top`), and written again to the same JSON.
    @Test(.requiresCorpus) func corpusArchivesRoundTripThroughResolvedJSON() throws {
        var archives = 0, sameBytes = 0
        for file in Corpus.files() {
            let data = try Corpus.data(file)
            guard let graph = try? ArchivedObjectGraph(data: data) else { continue }
            archives += 1
            let json = try graph.resolvedJSONData()
            #expect((try? JSONSerialization.jsonObject(with: json)) != nil, "\(file)")
            let back = try ArchivedObjectGraph(resolvedJSON: json)
            let comparison = ArchiveGraphComparison(original: graph, copy: back)
            #expect(comparison.differences.isEmpty, "\(file): \(comparison.differences.prefix(3))")
            #expect(try back.resolvedJSONData() == json, "\(file)")
            let format = PropertyListValue.detectFormat(of: data) ?? .binary
            if (try? back.archivedData(format: format)) == data { sameBytes += 1 }
        }
        print("resolved JSON round trip of \(archives) corpus keyed archives; \(sameBytes) written back byte-equal")
        #expect(archives > 90)
    }

    @Test func foundationCollectionsBecomeJSONArraysAndObjects() throws {
        let graph = try Self.graph(#"{"$top":{"root":{"name":"Ada","tags":["a",1,2.5,true,{"$data":"AAE="}],"born":{"$date":"1815-12-10T00:00:00Z"}}}}"#)
        #expect(graph.className(of: try #require(graph.topReference())) == "NSDictionary")
        let text = try Self.text(graph)
        #expect(text == #"{"$archiver":"NSKeyedArchiver","$version":100000,"$top":{"root":{"name":"Ada","tags":["a",1,2.5,true,{"$data":"AAE="}],"born":{"$date":"1815-12-10T00:00:00Z"}}}}"#)
        #expect(text.contains(#""born":{"$date":"1815-12-10T00:00:00Z"}"#))
    }

    /// corelibs writes an NSDictionary's NS.objects before its NS.keys as often as after: both are a JSON object.
    @Test func dictionaryWithValuesStoredBeforeKeysIsAJSONObject() throws {
        let graph = try Self.graph(#"{"$top":{"root":{"$class":"NSDictionary","NS.objects":{"$inline":["v"]},"NS.keys":{"$inline":["k"]}}}}"#)
        let root = try #require(graph.topReference())
        #expect(graph.object(root)?.instance?.fields.map(\.key) == ["NS.objects", "NS.keys"])
        #expect(try Self.text(graph) == #"{"$archiver":"NSKeyedArchiver","$version":100000,"$top":{"root":{"k":"v"}}}"#)
    }

    @Test func sharedObjectsAndCyclesAreWrittenOnceWithAnID() throws {
        let json = #"{"$archiver":"NSKeyedArchiver","$version":100000,"$top":{"root":{"$class":"Node","$classes":["Node","NSObject"],"$id":1,"# +
            #""next":{"$class":"Node","$classes":["Node","NSObject"],"next":{"$ref":1},"count":2},"# +
            #""pair":[{"$class":"Item","$classes":["Item","NSObject"],"$id":2,"label":"x"},{"$ref":2}]}}}"#
        let graph = try Self.graph(json)
        let root = try #require(graph.topReference())
        let next = try #require(graph.object(root)?.instance?["next"]?.referenceUID)
        #expect(graph.object(next)?.instance?["next"]?.referenceUID == root)
        #expect(graph.object(next)?.instance?["count"] == .value(.integer(2)))
        let pair = try #require(graph.object(root)?.instance?["pair"]?.referenceUID)
        guard case .list(let items)? = graph.resolvedObject(pair)?.kind else { Issue.record("pair is not a list"); return }
        #expect(items.count == 2 && items[0] == items[1])
        #expect(try Self.text(graph) == json)
        // A reference may come before its object.
        let forward = try Self.graph(#"{"$top":{"root":[{"$ref":7},{"$class":"Item","$classes":["Item","NSObject"],"$id":7}]}}"#)
        let forwardRoot = try #require(forward.topReference())
        guard case .list(let both)? = forward.resolvedObject(forwardRoot)?.kind else { Issue.record("not a list"); return }
        #expect(both.count == 2 && both[0] == both[1] && both[0] != .null)
    }

    @Test func fieldsKeepInlineValuesApartFromObjects() throws {
        let json = #"{"$archiver":"NSKeyedArchiver","$version":100000,"$top":{"root":{"$class":"Thing","$classes":["Thing","NSObject"],"# +
            #""count":3,"flag":true,"ratio":0.5,"bytes":{"$data":"AA=="},"name":"obj","number":{"$object":3},"# +
            #""label":{"$inline":"in place"},"list":{"$inline":[1,"s",null]},"$$0":"unkeyed","$$$escaped":1,"# +
            #""when":{"$date":"2001-01-01T00:00:00Z"},"stamp":{"$inline":{"$date":"2001-01-01T00:00:01Z"}}},"# +
            #""$$0":{"$inline":"top value"}}}"#
        let graph = try Self.graph(json)
        let rootUID = try #require(graph.topReference())
        let root = try #require(graph.object(rootUID)?.instance)
        #expect(root["count"] == .value(.integer(3)))
        #expect(root["flag"] == .value(.bool(true)))
        #expect(root["label"] == .value(.string("in place")))
        #expect(root["name"].flatMap(graph.inlineValue) == .string("obj"))
        #expect(root["name"]?.referenceUID != nil)
        #expect(root["number"].flatMap(graph.inlineValue) == .integer(3))
        #expect(root["number"]?.referenceUID != nil)
        #expect(root["$0"]?.referenceUID != nil)
        #expect(root["$$escaped"] == .value(.integer(1)))
        #expect(root["when"]?.referenceUID.flatMap(graph.className(of:)) == "NSDate")
        #expect(root["stamp"] == .value(.date(Date(timeIntervalSinceReferenceDate: 1))))
        #expect(graph.top.first { $0.key == "$0" }?.value == .value(.string("top value")))
        #expect(try Self.text(graph) == json)
    }

    /// An archive Foundation wrote, converted to resolved JSON, edited as text (a field's value replaced, as
    /// `jq '.["$top"].root.name = "Grace"'` does), read back: Foundation's NSKeyedUnarchiver reads the edit.
    @Test func foundationReadsAnArchiveEditedAsResolvedJSON() throws {
        let original: NSDictionary = ["name": "Ada", "languages": ["Analytical", "Notes"], "year": 1843]
        let data = try NSKeyedArchiver.archivedData(withRootObject: original, requiringSecureCoding: true)
        let json = String(decoding: try ArchivedObjectGraph(data: data).resolvedJSONData(), as: UTF8.self)
        #expect(json.contains(#""name":"Ada""#))
        let edited = json.replacingOccurrences(of: #""name":"Ada""#, with: #""name":"Grace""#)
        let archive = try ArchivedObjectGraph(resolvedJSON: Data(edited.utf8)).archivedData()
        let read = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSDictionary.self, NSArray.self, NSString.self, NSNumber.self],
                                                          from: archive) as? NSDictionary
        #expect(read?["name"] as? String == "Grace")
        #expect(read?["languages"] as? [String] == ["Analytical", "Notes"])
        #expect((read?["year"] as? NSNumber)?.intValue == 1843)
    }

    /// The same edit through the real `jq`, when it is installed (skipped otherwise).
    @Test(.enabled(if: ResolvedJSONTests.jqPath != nil, "needs jq on the PATH"))
    func jqEditReadsBack() throws {
        let jq = try #require(Self.jqPath)
        let original: NSDictionary = ["name": "Ada", "score": 1.5]
        let data = try NSKeyedArchiver.archivedData(withRootObject: original, requiringSecureCoding: true)
        let json = try ArchivedObjectGraph(data: data).resolvedJSONData()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: jq)
        process.arguments = ["-c", #".["$top"].root.name = "Grace""#]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(json)
        try input.fileHandleForWriting.close()
        let edited = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let archive = try ArchivedObjectGraph(resolvedJSON: edited).archivedData()
        let read = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSDictionary.self, NSString.self, NSNumber.self], from: archive) as? NSDictionary
        #expect(read?["name"] as? String == "Grace")
        #expect((read?["score"] as? NSNumber)?.doubleValue == 1.5)
    }

    static let jqPath: String? = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
        .split(separator: ":").map { "\($0)/jq" }.first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Each malformed document is refused with the JSON path of the fault.
    @Test(arguments: [
        (#"{"$top":{"root":{"$ref":4}}}"#, "$top.root.$ref", "names no object"),
        (#"{"$top":{"root":[{"$class":"A","$id":1},{"$class":"B","$id":1}]}}"#, "$top.root.1.$id", "two objects"),
        (#"{"$top":{"root":{"$class":"A","$weird":1}}}"#, "$top.root.$weird", "unknown key"),
        (#"{"$top":{"root":{"a":{"$id":2}}}}"#, "$top.root.a.$id", "unknown key"),
        (#"{"$top":{"root":{"$class":5}}}"#, "$top.root.$class", "class name"),
        (#"{"$top":{"root":{"$ref":1,"x":2}}}"#, "$top.root", "$ref"),
        (#"{"$top":{"root":{"$inline":null}}}"#, "$top.root.$inline", "null"),
        (#"{"$top":{"root":{"$class":"A","$entries":[[1]]}}}"#, "$top.root.$entries.0", "pair"),
        (#"{"$top":{},"$objects":[]}"#, "$objects", "unknown key"),
        (#"{"$top":{"root":{"$date":"yesterday"}}}"#, "$top.root.$date", "expected a real"),
    ])
    func malformedDocumentIsRefusedWithItsPath(json: String, path: String, message: String) throws {
        do {
            _ = try Self.graph(json)
            Issue.record("accepted \(json)")
        } catch let error as PropertyListError {
            #expect(error.code == .invalidJSON)
            #expect(error.location.keyPath == path, "\(error)")
            #expect(error.message.contains(message), "\(error)")
        }
    }

    /// Untrusted text: nesting beyond the limit is an error, never a crash; so is a graph too deep to write.
    @Test func depthIsBoundedBothWays() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: PropertyListError.self) { try Self.graph(#"{"$top":{"root":"# + deep + "}}") }
        // 500 nested arrays (502 JSON levels with the envelope) read and write back with the default limits.
        let nested = String(repeating: "[", count: 500) + String(repeating: "]", count: 500)
        let graph = try Self.graph(#"{"$top":{"root":"# + nested + "}}")
        #expect(try Self.text(graph).contains(nested))
        #expect(throws: KeyedArchiveError.self) { try graph.resolvedJSONData(maximumDepth: 50) }
    }

    /// A class chain other than Apple's and class hints are kept; Apple's chain of a Foundation class is implied.
    @Test func classChainsAndHintsAreKept() throws {
        let json = #"{"$archiver":"NSKeyedArchiver","$version":100000,"$top":{"root":{"$class":"NSMutableArray","$elements":[{"# +
            #""$class":"Custom","$classes":["Custom","Base","NSObject"],"$classhints":["Fallback"]},{"$class":"NSArray","$classes":["NSArray"],"$elements":[]}]}}}"#
        let graph = try Self.graph(json)
        let root = try #require(graph.topReference())
        #expect(graph.object(root)?.instance?.archivedClass.chain == ["NSMutableArray", "NSArray", "NSObject"])
        guard case .list(let items)? = graph.resolvedObject(root)?.kind, let custom = items.first?.referenceUID else {
            Issue.record("not a list"); return
        }
        #expect(graph.object(custom)?.instance?.archivedClass.hints == ["Fallback"])
        #expect(try Self.text(graph) == json)
    }
}
