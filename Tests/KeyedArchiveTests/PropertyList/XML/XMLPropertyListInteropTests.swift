import Foundation
import Testing
@testable import KeyedArchive

/// The XML reader and writer against Foundation's PropertyListSerialization, Python's plistlib and the corpus.
@Suite struct XMLPropertyListInteropTests {
    // MARK: - Foundation

    /// A Foundation property list whose XML form exercises every layout rule: data at every indentation
    /// (base64 lines of 76 - 8 * indent, capped at 8 tabs), empty data and containers, escapes, dates.
    private static func foundationSample() -> Any {
        var deep: Any = Data((0..<120).map { UInt8($0) })
        var levels: [Any] = []
        for _ in 0..<10 {
            deep = [deep, Data([1, 2, 3]), "x"] as [Any]
            levels.append(deep)
        }
        return [
            "a-data": Data((0..<200).map { UInt8(truncatingIfNeeded: $0 * 7) }),
            "b-empty-data": Data(),
            "c-nested": levels,
            "d-string": "a<b>&\"'é🎉",
            "e-empty": "",
            "f-ints": [0, -1, Int64.min, Int64.max, UInt64.max] as [Any],
            "g-reals": [3.0, -2.0, 100.0, 0.1, 0.0, 1e-5, 1e16, 1e17, Double.leastNonzeroMagnitude, Double.pi, -1.5e300, Double.nan,
                        Double.infinity, -Double.infinity] as [Any],
            "h-bools": [true, false],
            "i-dates": [Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: -63_113_904_000),
                        Date(timeIntervalSinceReferenceDate: 1e10)],
            "j-empty-array": [Any](),
            "k-empty-dict": [String: Any](),
        ] as [String: Any]
    }

    @Test func foundationsXMLIsReadAndRewrittenByteForByte() throws {
        let sample = Self.foundationSample()
        let foundationXML = try PropertyListSerialization.data(fromPropertyList: sample, format: .xml, options: 0)
        let ours = try XMLPropertyListReader().read(foundationXML)
        let foundationValue = try #require(FoundationBridge.value(
            try PropertyListSerialization.propertyList(from: foundationXML, options: [], format: nil)))
        #expect(ours == foundationValue)
        // Keys come back in file order (Foundation sorted them), so rewriting reproduces Foundation's bytes.
        let rewritten = try XMLPropertyListWriter().write(ours)
        #expect(String(decoding: rewritten, as: UTF8.self) == String(decoding: foundationXML, as: UTF8.self))
    }

    @Test func foundationReadsOurXML() throws {
        var g = SeededGenerator(seed: 0xF0)
        var options = XMLTestSupport.RandomValueOptions()
        options.uids = false
        options.commonEraDatesOnly = true
        for _ in 0..<150 {
            let value = XMLTestSupport.randomValue(&g, depth: 4, options)
            let xml = try XMLPropertyListWriter().write(value)
            let any = try PropertyListSerialization.propertyList(from: xml, options: [], format: nil)
            let theirs = try #require(FoundationBridge.value(any))
            #expect(XMLTestSupport.foundationComparable(theirs) == XMLTestSupport.foundationComparable(XMLTestSupport.xmlNormalised(value)),
                    "\(String(decoding: xml, as: UTF8.self))")
        }
    }

    @Test func foundationReadsOurUIDsAsUIDs() throws {
        let xml = try XMLPropertyListWriter().write(["$top": ["root": .uid(UID(1))]])
        let any = try PropertyListSerialization.propertyList(from: xml, options: [], format: nil)
        let top = try #require((any as? [String: Any])?["$top"] as? [String: Any])
        let root = try #require(top["root"])
        #expect(String(describing: type(of: root)).contains("UID"))
    }

    @Test func foundationKeyedArchiveInXMLReadsWithUIDs() throws {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.outputFormat = .xml
        archiver.encode(["a", "b", "a"] as NSArray, forKey: "root")
        archiver.finishEncoding()
        let xml = archiver.encodedData
        let value = try PropertyListValue(propertyListData: xml)
        let top = try #require(value.dictionaryValue?["$top"]?.dictionaryValue)
        #expect(top["root"] == .uid(UID(1)))
        let objects = try #require(value.dictionaryValue?["$objects"]?.arrayValue)
        #expect(objects.first == "$null")
        // Our rewrite of Foundation's archive is byte-identical.
        #expect(try XMLPropertyListWriter().write(value) == xml)
    }

    /// XML archives reach the keyed unarchiver through `PropertyListValue(propertyListData:)`.
    @Test func foundationXMLArchivesUnarchive() throws {
        func xmlArchive(_ object: Any) -> Data {
            let archiver = NSKeyedArchiver(requiringSecureCoding: false)
            archiver.outputFormat = .xml
            archiver.encode(object, forKey: "root")
            archiver.finishEncoding()
            return archiver.encodedData
        }
        let strings = xmlArchive(["a", "b<&>", "a"] as NSArray)
        #expect(String(decoding: strings.prefix(5), as: UTF8.self) == "<?xml")
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: [String].self, from: strings) == ["a", "b<&>", "a"])
        let date = Date(timeIntervalSinceReferenceDate: 123.25)  // NSDate keeps the fraction in NS.time, a real
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: Date.self, from: xmlArchive(date as NSDate)) == date)
        let uuid = UUID()
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: UUID.self, from: xmlArchive(uuid as NSUUID)) == uuid)
    }

    // MARK: - plistlib

    @Test(.requiresPlistlib) func plistlibReadsOurXML() throws {
        var g = SeededGenerator(seed: 0xB1)
        var options = XMLTestSupport.RandomValueOptions()
        options.controlCharacters = false
        options.commonEraDatesOnly = true
        var values: [PropertyListValue] = []
        for _ in 0..<150 { values.append(XMLTestSupport.randomValue(&g, depth: 4, options)) }
        let documents = try values.map { try XMLPropertyListWriter().write($0) }
        let results = try XMLTestSupport.plistlibRead(documents)
        for (i, value) in values.enumerated() {
            let theirs = try #require(results[i].value, "\(results[i]): \(String(decoding: documents[i], as: UTF8.self))")
            let expected = XMLTestSupport.asPlistlibSeesXML(XMLTestSupport.xmlNormalised(value))
            #expect(PlistlibOracle.differences(expected, theirs) == [], "\(String(decoding: documents[i], as: UTF8.self))")
        }
    }

    @Test(.requiresPlistlib) func plistlibsXMLIsReadByUs() throws {
        let value: PropertyListValue = [
            "s": "a<&>é\n\t]]>",  // no "\r": plistlib's writer turns it into "\n" "i": [0, .integer(PropertyListInteger(Int64.min)), .integer(PropertyListInteger(UInt64.max))],
            "r": [.real(0.1), .real(.infinity), .real(-0.0), .real(1e300)], "b": [true, false],
            "d": .date(Date(timeIntervalSinceReferenceDate: 611_370_123)),
            "x": .data(Data((0..<600).map { UInt8(truncatingIfNeeded: $0) })), "e": [], "n": ["k": .dictionary([:])],
            "u": .uid(UID(5)),
        ]
        // plistlib's XML writer's rendering of our document: different layout (no tabs in data, sorted keys).
        let theirXML = try PlistlibOracle.rewrite(bytes: try XMLPropertyListWriter().write(value), as: .xml)
        #expect(String(decoding: theirXML, as: UTF8.self).contains("<key>CF$UID</key>"))
        #expect(try XMLPropertyListReader().read(theirXML) == value)
    }

    // MARK: - Corpus

    @Test(.requiresCorpus, .requiresPlistlib) func everyCorpusXMLFileReadsAndMatchesPlistlib() throws {
        let files = XMLTestSupport.corpusXMLFiles()
        #expect(!files.isEmpty)
        print("reading \(files.count) corpus XML files: \(files.map(\.name).joined(separator: ", "))")
        var values: [PropertyListValue] = []
        for file in files {
            do {
                let value = try PropertyListValue(propertyListData: file.data)
                values.append(value)
                // value -> XML -> value round trip keeps everything.
                let again = try XMLPropertyListReader().read(try XMLPropertyListWriter().write(value))
                #expect(again == value, "\(file.name)")
            } catch {
                Issue.record("\(file.name): \(error)")
                return
            }
        }
        let results = try XMLTestSupport.plistlibRead(files.map(\.data))
        for (i, file) in files.enumerated() {
            guard let theirs = results[i].value else {
                print("note: plistlib cannot read \(file.name): \(results[i])")
                continue
            }
            #expect(PlistlibOracle.differences(XMLTestSupport.asPlistlibSeesXML(values[i]), theirs) == [], "\(file.name)")
        }
    }

    /// Corpus files that Apple's writer produced (per MANIFEST.md: the Darwin fixtures of corelibs and
    /// swift-foundation, and kiler129's ArchivedData made by NSKeyedArchiver on macOS) are reproduced byte for
    /// byte when read and written again. (kiler129's BrokenData files were edited by hand, so they are left out.)
    @Test(.requiresCorpus) func appleWrittenCorpusFilesAreRewrittenByteForByte() throws {
        let files = XMLTestSupport.corpusXMLFiles()
        let appleWritten = files.filter {
            $0.name.hasPrefix("corelibs-foundation/Resources/") || $0.name.hasPrefix("swift-foundation/")
                || $0.name.hasPrefix("kiler129-nskeyedunarchiver/ArchivedData/")
        }
        #expect(appleWritten.count >= 15)
        for file in appleWritten {
            let rewritten = try XMLPropertyListWriter().write(try XMLPropertyListReader().read(file.data))
            #expect(String(decoding: rewritten, as: UTF8.self) == String(decoding: file.data, as: UTF8.self), "\(file.name)")
        }
    }

    /// Binary/XML twins in the corpus decode to the same value (4-byte reals widened and dates cut to whole
    /// seconds on the binary side, which is what XML can hold).
    @Test(.requiresCorpus) func corpusBinaryAndXMLTwinsAgree() throws {
        var pairs: [(String, String)] = [
            ("swift-foundation/Generic_XML_Properties_Binary.plist", "swift-foundation/Generic_XML_Properties.plist"),
            ("node-bplist-parser/int64.bplist", "node-bplist-parser/int64.xml"),
        ]
        for name in Corpus.files() where name.hasPrefix("kiler129-nskeyedunarchiver/") && name.hasSuffix(".bin.plist") {
            pairs.append((name, "\(name.dropLast(".bin.plist".count)).xml.plist"))
        }
        // dd-plist's declared twins (MANIFEST.md).
        pairs += [("dd-plist/infinity-binary.plist", "dd-plist/infinity-xml.plist"),
                  ("dd-plist/issue22-emoji.plist", "dd-plist/issue22-emoji-xml.plist"),
                  ("dd-plist/testNegative-bin.plist", "dd-plist/testNegative-xml.plist")]
        var compared = 0
        for (binaryName, xmlName) in pairs {
            guard let binary = try? Corpus.data(binaryName), let xml = try? Corpus.data(xmlName) else {
                Issue.record("twin missing: \(binaryName) / \(xmlName)")
                continue
            }
            let xmlValue = try XMLPropertyListReader().read(xml)
            let binaryValue = try PropertyListValue(propertyListData: binary)
            #expect(XMLTestSupport.xmlNormalised(binaryValue) == xmlValue, "\(binaryName) vs \(xmlName)")
            compared += 1
        }
        #expect(compared >= 20)
    }

    /// XML -> binary -> XML for every corpus XML file.
    @Test(.requiresCorpus) func corpusXMLRoundTripsThroughBinary() throws {
        let files = XMLTestSupport.corpusXMLFiles()
        #expect(files.count >= 30)
        for file in files {
            let value = try XMLPropertyListReader().read(file.data)
            let binary = try value.propertyListData(format: .binary)
            let back = try PropertyListValue(propertyListData: binary)
            #expect(back == value, "\(file.name)")
            #expect(try back.propertyListData(format: .xml) == (try value.propertyListData(format: .xml)), "\(file.name)")
        }
    }
}

extension XMLTestSupport {
    /// What Foundation keeps of a value: dictionary key order aside (equality ignores it), integers that fit in
    /// Int64 may come back from Foundation as any NSNumber width, so they are compared by value (already so),
    /// and a NaN's payload is canonical. Nothing else changes.
    static func foundationComparable(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .real(let d) where d.isNaN: return .real(.nan)
        case .array(let a): return .array(a.map(foundationComparable))
        case .dictionary(let d): return .dictionary(PropertyListDictionary(zip(d.keys, d.values.map(foundationComparable))))
        default: return value
        }
    }
}
