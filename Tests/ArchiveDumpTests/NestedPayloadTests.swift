import Foundation
import Testing
@testable import ArchiveDumpCore
import KeyedArchive

/// `ForensicReader` and `archive-dump --nested`: payloads inside data values and strings decoded where they
/// stand, with their paths and offsets, and the limits that stop nesting bombs.
@Suite struct NestedPayloadTests {
    /// A typedstream holding an attributed string "Hello, world", written by the package's archiver.
    static func typedstreamBytes() throws -> Data {
        try TypedstreamArchiver().archivedData(withRootValue: .catalogued(ArchivedAttributedString(string: "Hello, world")))
    }

    /// A keyed archive whose root `Message` has `parts`, an NSArray of "a", "b" and a typedstream in a data value.
    static func messageArchive(parts: [PropertyListValue]) throws -> Data {
        var builder = ArchiveBuilder()
        let root = builder.reserve()
        var partRefs: [PropertyListValue] = []
        for part in parts { partRefs.append(builder.add(part)) }
        let list = builder.object("NSArray", ["NSObject"], [("NS.objects", .array(partRefs))])
        builder.set(root, builder.instance("Message", ["NSObject"], [("parts", list)]))
        return try builder.archive(root: root).propertyListData(format: .binary)
    }

    @Test func aTypedstreamInAKeyedArchivesDataIsDecodedWithItsPath() throws {
        let typedstream = try Self.typedstreamBytes()
        let data = try Self.messageArchive(parts: ["a", "b", .data(typedstream)])
        let document = try ForensicReader().read(data)
        let payloads = document.nestedPayloads
        try #require(payloads.count == 1)
        let payload = payloads[0]
        #expect(payload.format == .typedstream)
        #expect(payload.carrier == .data)
        #expect(payload.path.description == "$top.root.parts[2]")
        #expect(payload.key == nil)
        #expect(payload.containingObject == "#6 NSArray")  // $objects: $null, root, the three parts, NSArray's class, the list
        let offset = try #require(payload.byteOffset)
        #expect(data[offset ..< offset + typedstream.count] == typedstream)
        #expect(payload.error == nil)
        // The string inside, found with the path the issue names.
        var strings: [String: String] = [:]
        document.forEachValue { path, value, _ in
            if case .string(let s) = value { strings[path.description] = s }
        }
        #expect(strings["$top.root.parts[2] -> data -> typedstream -> NSAttributedString.string"] == "Hello, world")
    }

    @Test func stringsCarryingPayloadsAreDecoded() throws {
        let inner = PropertyListValue.dictionary(["k": "v"])
        let xml = String(decoding: try inner.propertyListData(format: .xml), as: UTF8.self)
        let base64 = try inner.propertyListData(format: .binary).base64EncodedString()
        let hex = try inner.propertyListData(format: .binary).map { String(format: "%02x", $0) }.joined()
        let outer = PropertyListValue.dictionary(["x": .string(xml), "b": .string(base64), "h": .string(hex), "plain": "bplist00 is just text"])
        let document = try ForensicReader().read(try outer.propertyListData(format: .binary))
        let byKey = Dictionary(uniqueKeysWithValues: document.nestedPayloads.map { ($0.key ?? "", $0) })
        #expect(byKey["x"]?.carrier == .string)
        #expect(byKey["x"]?.format == .xmlPropertyList)
        #expect(byKey["b"]?.carrier == .base64String)
        #expect(byKey["h"]?.carrier == .hexString)
        for payload in byKey.values {
            #expect(payload.value == .dictionary([ForensicEntry("k", .string("v"))]), "\(payload.path)")
            #expect(payload.byteOffset != nil, "\(payload.path)")
        }
        #expect(byKey["plain"] == nil)
    }

    @Test func aDamagedNestedPayloadKeepsItsErrorAndTheReadGoesOn() throws {
        let damaged = Data("bplist00".utf8) + Data(repeating: 0xFF, count: 40)
        let outer = PropertyListValue.array([.data(damaged), "after"])
        let document = try ForensicReader().read(try outer.propertyListData(format: .binary))
        guard case .array(let items) = document.root, items.count == 2, case .nested(let payload) = items[0] else {
            Issue.record("expected [nested, string], got \(document.root)")
            return
        }
        #expect(payload.value == nil)
        #expect(payload.error?.contains("bplist") == true, "\(payload.error ?? "")")
        #expect(items[1] == .string("after"))
    }

    @Test func withoutNestingDataStaysData() throws {
        let data = try Self.messageArchive(parts: [.data(try Self.typedstreamBytes())])
        var reader = ForensicReader()
        reader.decodesNestedPayloads = false
        #expect(try reader.read(data).nestedPayloads.isEmpty)
    }

    /// A property list nested `levels` deep: each level a dictionary whose `inner` data is the level below.
    static func nestingBomb(levels: Int) throws -> Data {
        var bytes = try PropertyListValue.string("bottom").propertyListData(format: .binary)
        for _ in 0..<levels {
            bytes = try PropertyListValue.dictionary(["inner": .data(bytes)]).propertyListData(format: .binary)
        }
        return bytes
    }

    @Test func aPayloadNestedAThousandDeepStopsAtTheNestingLimit() throws {
        let bomb = try Self.nestingBomb(levels: 1000)
        do {
            _ = try ForensicReader().read(bomb)
            Issue.record("a 1,000-deep nesting was read")
        } catch let error as KeyedArchiveError {
            #expect(error.code == .limitExceeded)
            #expect(error.message.contains("a payload nested 17 levels deep (ForensicReader.Limits.maximumNestingDepth: 16)"),
                    "\(error.message)")
            let path = try #require(error.keyPath)
            #expect(path.components(separatedBy: " -> data -> bplist -> ").count == 17, "\(path)")
        }
        // Within the limit, the same shape reads in full.
        let shallow = try ForensicReader().read(try Self.nestingBomb(levels: 16))
        #expect(shallow.nestedPayloads.count == 16)
        #expect(shallow.nestedPayloads.allSatisfy { $0.error == nil })
    }

    /// A few hundred bytes whose nested copies multiply: each level an array of 64 references to one data
    /// object (the binary writer stores equal data once) holding the level below.
    static func multiplyingBomb(levels: Int) throws -> Data {
        var bytes = try PropertyListValue.array(["x"]).propertyListData(format: .binary)
        for _ in 0..<levels {
            bytes = try PropertyListValue.array(Array(repeating: .data(bytes), count: 64)).propertyListData(format: .binary)
        }
        return bytes
    }

    @Test func aMultiplyingPayloadStopsAtTheSharedBudget() throws {
        let bomb = try Self.multiplyingBomb(levels: 4)
        #expect(bomb.count < 2000)
        do {
            _ = try ForensicReader().read(bomb)
            Issue.record("64^4 nested copies were read")
        } catch let error as KeyedArchiveError {
            #expect(error.code == .limitExceeded)
            #expect(error.message.contains("in all nesting levels (ForensicReader.Limits.maximumValueCount")
                    || error.message.contains("(ForensicReader.Limits.maximumNestedByteCount"), "\(error.message)")
        }
        // The tool says so and exits 1.
        let out = DumpOutputCollector(), err = DumpOutputCollector()
        let status = ArchiveDumpCommand.run(arguments: ["--nested", "-"], input: { bomb }, output: out.output, errors: err.output,
                                            outputIsTerminal: false)
        #expect(status == 1)
        #expect(err.text.hasPrefix("Error: <stdin>: ") && err.text.contains("forensic reading stopped"), "\(err.text)")
    }

    /// The iMessage samples MANIFEST.md lists with nested keyed archives: file, root class, offsets.
    static func manifestSamples() throws -> [(file: String, rootClass: String, offsets: [Int])] {
        let manifest = try String(contentsOf: Corpus.directory.appendingPathComponent("MANIFEST.md"), encoding: .utf8)
        var samples: [(String, String, [Int])] = []
        for line in manifest.split(separator: "\n") where line.contains("nested NSKeyedArchiver bplist(s) inside NSData") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count > 4, let offsetsOpen = line.range(of: "(offsets "),
                  let offsetsClose = line[offsetsOpen.upperBound...].firstIndex(of: ")") else { continue }
            let offsets = line[offsetsOpen.upperBound..<offsetsClose].split(separator: ",").compactMap {
                Int($0.trimmingCharacters(in: .whitespaces))
            }
            samples.append(("typedstream/crabstep/" + cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`")), cells[4], offsets))
        }
        return samples
    }

    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus"),
          .enabled(if: Corpus.hasManifest, "needs the corpus's MANIFEST.md (a fetched corpus has the files only)"))
    func everyIMessageSampleWithAnEmbeddedKeyedArchiveDecodesCompletely() throws {
        let samples = try Self.manifestSamples()
        #expect(samples.count == 15)
        for sample in samples {
            let data = try Corpus.data(sample.file)
            let document = try ForensicReader().read(data)
            #expect(document.format == .typedstream)
            #expect(document.rootPath.description == sample.rootClass, "\(sample.file)")
            let payloads = document.nestedPayloads
            #expect(!payloads.isEmpty, "\(sample.file)")
            for payload in payloads {
                #expect(payload.error == nil, "\(sample.file) \(payload.path): \(payload.error ?? "")")
                // URLMessage's embedded archive (its URL anonymized) is itself damaged: object #1's $class is UID 13
                // of 12 entries (python3's plistlib reads the same 12). It is read leniently, the damage named.
                if sample.file.hasSuffix("/URLMessage") {
                    #expect(payload.damage.count == 1 && payload.damage[0].contains("$class UID 13 is out of range: $objects has 12 entries"),
                            "\(payload.damage)")
                } else {
                    #expect(payload.damage.isEmpty, "\(sample.file): \(payload.damage)")
                }
                #expect(payload.format == .keyedArchive, "\(sample.file)")
                #expect(payload.containingObject == "#0 " + sample.rootClass, "\(sample.file)")
                let path = payload.path.description
                #expect(path.hasPrefix(sample.rootClass + ".runs["), "\(sample.file): \(path)")
                #expect(payload.key.map { path.hasSuffix(".attributes." + $0) && $0.hasPrefix("__kIM") } == true, "\(sample.file): \(path)")
                #expect(payload.rootPath?.description == path + " -> data -> keyedarchive -> $top", "\(sample.file)")
                let offset = try #require(payload.byteOffset)
                #expect(data[offset...].starts(with: payload.storedBytes), "\(sample.file) at \(offset)")
                // The nested archive decoded in full: its DDScannerResult and the text it matched are in the tree.
                var scannerResults = 0, matchedTexts = 0
                ForensicDocument(format: .keyedArchive, root: payload.value ?? .null, rootPath: payload.rootPath ?? ForensicPath([]))
                    .forEachValue { path, value, _ in
                        if case .object(let object) = value, object.className == "DDScannerResult" { scannerResults += 1 }
                        if case .string = value, path.lastKey == "MS" { matchedTexts += 1 }
                    }
                #expect(scannerResults >= 1 && matchedTexts >= 1 || sample.file.hasSuffix("/URLMessage"), "\(sample.file)")
                #expect(matchedTexts >= 1, "\(sample.file)")
            }
            // Every offset MANIFEST.md lists is a payload's, and no other.
            #expect(Set(payloads.compactMap(\.byteOffset)) == Set(sample.offsets), "\(sample.file)")
        }
    }

    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus"),
          .enabled(if: Corpus.hasManifest, "needs the corpus's MANIFEST.md (a fetched corpus has the files only)"))
    func nestedJSONNamesWhereEachPayloadStarts() throws {
        let samples = try Self.manifestSamples()
        for sample in samples {
            let result = try ToolRunner.run(["--nested", "--json", Corpus.url(sample.file).path])
            #expect(result.status == 0, "\(sample.file): \(result.stderr)")
            let json = try JSONSerialization.jsonObject(with: result.stdout)
            var offsets: [Int] = []
            var pending: [Any] = [json]
            while let next = pending.popLast() {
                if let object = next as? [String: Any] {
                    if let nested = object["$nested"] as? [String: Any] {
                        #expect(nested["format"] as? String == "keyedarchive")
                        #expect(nested["object"] as? String == "#0 " + sample.rootClass)
                        #expect((nested["key"] as? String)?.hasPrefix("__kIM") == true)
                        #expect(nested["error"] == nil)
                        #expect(nested["damage"] == nil || sample.file.hasSuffix("/URLMessage"))
                        if let offset = nested["offset"] as? Int { offsets.append(offset) }
                    }
                    pending.append(contentsOf: object.values)
                } else if let array = next as? [Any] {
                    pending.append(contentsOf: array)
                }
            }
            #expect(Set(offsets) == Set(sample.offsets), "\(sample.file)")
        }
    }
}
