import Foundation
import Testing
import KeyedArchive
import ArchiveDumpCore
@testable import PlutilCore

/// The parts of `plutil` below the command line: the JSON reader, the key order, the literal and raw
/// formats, atomic edits and keyed archives, run in this process.
@Suite(.temporaryDirectory("plutil-core")) struct PlutilCoreTests {
    /// Runs the command in this process with absolute paths.
    func run(_ arguments: [String], input: Data = Data()) -> (status: Int32, stdout: String, stderr: String) {
        let out = DumpOutputCollector(), err = DumpOutputCollector()
        let status = PlutilCommand.run(arguments: arguments, input: { input }, output: out.output, errors: err.output)
        out.output.flush()
        err.output.flush()
        return (status, out.text, err.text)
    }

    /// Writes `data` to a file alone in a new folder inside the test's temporary directory; returns its path.
    func temporaryFile(_ data: Data, name: String = "file.plist") throws -> String {
        try TemporaryDirectory.file(data, name: name)
    }

    func readJSON(_ text: String) throws(PlutilFailure) -> PropertyListValue {
        try PlutilDocument.json(Data(text.utf8))
    }

    @Test func jsonKeepsIntegersRealsAndBooleansApartAndKeysInOrder() throws {
        let value = try readJSON(#" {"b": [1, -0, 1.0, 2e3, 18446744073709551615, 18446744073709551616, true, false], "a": "\u00e9\ud83d\ude00\n\/"} "#)
        #expect(value == ["b": [1, 0, 1.0, 2000.0, .integer(PropertyListInteger(UInt64.max)), .real(18446744073709551616), true, false],
                          "a": "é😀\n/"])
        #expect(value.dictionaryValue?.keys == ["b", "a"])
        #expect(try readJSON("\"fragment\"") == "fragment")
        #expect(try readJSON("[[], {}]") == [[], [:]])
        // No typed-JSON marker is read in plain JSON; a repeated key keeps its last value, as JSONSerialization does.
        #expect(try readJSON(#"{"$date": "2001-01-01T00:00:00Z", "k": 1, "k": 2}"#) == ["$date": "2001-01-01T00:00:00Z", "k": 2])
    }

    @Test(arguments: [
        ("{\"a\": null}", "JSON: at a: null has no property-list equivalent"),
        ("[1,]", "JSON: at byte 3: a comma before ]"),
        ("[1 2]", "JSON: at byte 3: expected , or ] after an array element"),
        ("{\"a\" 1}", "JSON: at byte 5: expected :"),
        ("01", "JSON: at byte 0: a number with a leading zero"),
        ("1e999", "JSON: at (root): the number 1e999 does not fit in a 64-bit real"),
        ("{}\n x", "JSON: at byte 4: text after the JSON value"),
        ("", "JSON: at byte 0: the text ends where a value should be"),
    ])
    func malformedJSONIsRefusedWithWhere(_ text: String, _ message: String) {
        #expect { try readJSON(text) } throws: { error in
            (error as? PlutilFailure)?.message == message
        }
    }

    @Test func deepJSONStopsAtTheDepthLimitWithoutRecursion() throws {
        let limit = PropertyListReadingOptions().maximumDepth
        #expect(throws: PlutilFailure.self) {
            try readJSON(String(repeating: "[", count: 100_000))
        }
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        var value = try readJSON(deepest)
        var depth = 1
        while case .array(let elements) = value, let first = elements.first {
            value = first
            depth += 1
        }
        #expect(depth == limit)
    }

    @Test func keysAreOrderedAsFoundationsNumericCaseInsensitiveCompare() {
        let keys = ["Zed", "z10", "z9", "ab", "Ab", "a1", "a/b", "$d", ".p", "_u", "b"]
        // The toolchain's plutil -p lists them in this order (checked by hand and in the conformance table).
        #expect(keys.sorted(by: PlutilKeyOrder.precedes) == ["_u", ".p", "$d", "a/b", "a1", "ab", "Ab", "b", "z9", "z10", "Zed"])
        #expect(!PlutilKeyOrder.precedes("a", "a"))
        #expect(PlutilKeyOrder.precedes("a", "ab"))
        #expect(PlutilKeyOrder.precedes("x2", "x010"))
    }

    @Test func literalsEscapeEveryCharacterThatWouldEndOrChangeTheString() {
        #expect(PlutilTextFormats.literalString("a\"b\\c\nd\u{1}", swift: true) == #""a\"b\\c\nd\u{1}""#)
        #expect(PlutilTextFormats.literalString("a\"b\\c\td\u{1}9", swift: false) == #""a\"b\\c\td\0019""#)
        #expect(PlutilTextFormats.variableName(fromFile: "/tmp/My Settings-v2.plist") == "My_Settings_v2")
        #expect(PlutilTextFormats.fixedPoint(3.5) == "3.500000")
        #expect(PlutilTextFormats.fixedPoint(-0.0) == "-0.000000")
    }

    @Test func rawShowsScalarsCountsAndKeys() {
        #expect(PlutilTextFormats.raw(["b": 1, "a": 2]) == "a\nb")
        #expect(PlutilTextFormats.raw([1, 2]) == "2")
        #expect(PlutilTextFormats.raw(.data(Data([0xFF]))) == "/w==")
        #expect(PlutilTextFormats.raw(.uid(UID(7))) == "7")
        #expect(PlutilTextFormats.raw(.date(Date(timeIntervalSinceReferenceDate: 0.75))) == "2001-01-01T00:00:00Z")
    }

    @Test func argumentsParseAsApplesPlutilReadsThem() throws {
        let insert = try PlutilArguments(["-insert", "a.b", "-integer", "7", "-append", "-s", "--", "-x", "f"])
        #expect(insert.command == .insert("a.b", typeOption: "-integer", value: "7", append: true))
        #expect(insert.editOperation == .append(7))
        #expect(insert.paths == ["-x", "f"])
        #expect(insert.silent)
        let lint = try PlutilArguments(["f.plist", "-s"])
        #expect(lint.command == .lint && lint.paths == ["f.plist"] && lint.silent)
        #expect(throws: PlutilFailure("-expect requires a type argument.")) { try PlutilArguments(["-type", "k", "-expect"]) }
        #expect(throws: PlutilFailure("No files specified.")) { try PlutilArguments(["-remove", "k"]) }
    }

    @Test func aFailedEditLeavesTheFileAsItWasAndNoTemporaryFile() throws {
        let original = Data(#"<plist version="1.0"><dict><key>k</key><string>v</string></dict></plist>"#.utf8)
        let path = try temporaryFile(original)
        let folder = (path as NSString).deletingLastPathComponent
        let failures = [["-insert", "k", "-string", "x", path], ["-remove", "nope", path], ["-insert", "k.x", "-bool", "YES", path]]
        for arguments in failures {
            let result = run(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == original)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["file.plist"])
        // A file written as JSON cannot take a date: the conversion fails and the file stays.
        let json = try temporaryFile(Data(#"{"k":"v"}"#.utf8), name: "file.json")
        #expect(run(["-insert", "d", "-date", "2020-01-01T00:00:00Z", json]).status == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: json)) == Data(#"{"k":"v"}"#.utf8))
    }

    @Test func anEditKeepsTheFilesPermissionsAndFormat() throws {
        let dictionary: PropertyListValue = ["k": "v"]
        let path = try temporaryFile(try dictionary.propertyListData(format: .binary))
        #expect(chmod(path, 0o600) == 0)
        #expect(run(["-insert", "n", "-integer", "1", path]).status == 0)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(data.starts(with: Data("bplist00".utf8)))
        #expect(try PropertyListValue(propertyListData: data) == ["k": "v", "n": 1])
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test func sharedContainersCannotBlowUpTheTextOutputs() throws {
        // 40 arrays, each holding the next one twice: 2^40 paths in 125 bytes.
        typealias Object = HandWrittenBinaryPropertyList
        let levels = (0..<40).map { Object.array([UInt8($0 + 1), UInt8($0 + 1)]) }
        let path = try temporaryFile(Object.file(levels + [Object.ascii("leaf")]))
        for arguments in [["-p", path], ["-convert", "json", "-o", "-", path], ["-convert", "swift", "-o", "-", path]] {
            let result = run(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr.contains("shares containers"), "\(result.stderr)")
        }
    }

    @Test func keyedArchiveEditsStayArchivesAndRefuseToBreakThem() throws {
        let archive: PropertyListValue = [
            "$archiver": "NSKeyedArchiver", "$version": 100000,
            "$top": ["root": .uid(UID(1))], "$objects": ["$null", "hello"],
        ]
        let path = try temporaryFile(try archive.propertyListData(format: .binary))
        #expect(run(["-replace", "$objects.1", "-string", "bye", path]).status == 0)
        let graph = try ArchivedObjectGraph(data: try Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(graph.objects.count == 2)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let broken = run(["-remove", "$objects.1", path])
        #expect(broken.status == 1)
        #expect(broken.stderr.contains("the edit would leave an invalid keyed archive, nothing was written"), "\(broken.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    /// A Foundation-written archive of `["title": "Friends", "contacts": [["name": "Ann", "age": 30],
    /// ["name": "Bob", "born": <date>]], "tags": <set>]`, with an object of a class that has no
    /// property-list form (an NSUUID).
    static func foundationArchive() throws -> Data {
        let contacts = NSArray(array: [
            NSDictionary(dictionary: ["name": "Ann", "age": 30]),
            NSDictionary(dictionary: ["name": "Bob", "born": NSDate(timeIntervalSinceReferenceDate: 86_400)]),
        ])
        let root = NSDictionary(dictionary: ["title": "Friends", "contacts": contacts, "tags": NSSet(array: ["x"]),
                                             "id": NSUUID(uuidString: "00000000-0000-0000-0000-000000000001") ?? NSUUID()])
        return try NSKeyedArchiver.archivedData(withRootObject: root, requiringSecureCoding: false)
    }

    static func foundationRead(_ path: String) throws -> NSDictionary? {
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: try Data(contentsOf: URL(fileURLWithPath: path)))
        unarchiver.requiresSecureCoding = false
        defer { unarchiver.finishDecoding() }
        return unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? NSDictionary
    }

    @Test func keyPathsFollowAnArchivesUIDsForExtractAndType() throws {
        let path = try temporaryFile(try Self.foundationArchive())
        #expect(run(["-extract", "root.contacts.0.name", "raw", path]).stdout == "Ann\n")
        #expect(run(["-extract", "root.contacts.1.born", "raw", path]).stdout == "2001-01-02T00:00:00Z\n")
        #expect(run(["-type", "root.contacts", path]).stdout == "array\n")
        #expect(run(["-type", "root.contacts.1.born", path]).stdout == "date\n")
        #expect(run(["-type", "root.id", path]).stdout == "object\n")
        let json = run(["-extract", "root.contacts.0", "json", "-o", "-", path]).stdout
        #expect(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? NSDictionary == ["name": "Ann", "age": 30])
        // As in Apple's plutil, a date has no JSON form.
        #expect(run(["-extract", "root.contacts", "json", "-o", "-", path]).stderr.contains("Invalid object in plist for JSON format"))
        let xml = run(["-extract", "root.contacts.1", "xml1", "-o", "-", path])
        #expect(try PropertyListValue(propertyListData: Data(xml.stdout.utf8))
                == ["born": .date(Date(timeIntervalSinceReferenceDate: 86_400)), "name": "Bob"])
        #expect(run(["-extract", "root.tags", "json", "-o", "-", path]).stdout == #"["x"]"#)
        // plutil's key-path syntax: an unescaped dot always separates keys.
        let missing = run(["-extract", "root.contacts.2.name", "raw", path])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("key path 'root.contacts.2.name'"), "\(missing.stderr)")
        let expectFailed = run(["-extract", "root.title", "raw", "-expect", "integer", path])
        #expect(expectFailed.status == 1)
        #expect(expectFailed.stderr.contains("Value at [root.title] expected to be integer but is string"), "\(expectFailed.stderr)")
        let instance = run(["-extract", "root.id", "xml1", "-o", "-", path])
        #expect(instance.status == 1)
        #expect(instance.stderr.contains("an instance of NSUUID"), "\(instance.stderr)")
        #expect(instance.stderr.contains("has no property-list form"), "\(instance.stderr)")
    }

    @Test func archiveEditsThroughUIDsAreReadByFoundation() throws {
        let path = try temporaryFile(try Self.foundationArchive())
        #expect(run(["-replace", "root.contacts.0.name", "-string", "Anna", path]).status == 0)
        #expect(run(["-insert", "root.contacts.0.email", "-string", "anna@example.com", path]).status == 0)
        #expect(run(["-insert", "root.contacts.2", "-json", #"{"name":"Cy"}"#, path]).status == 0)
        #expect(run(["-insert", "root.notes", "-string", "first", "-append", path]).status == 0)
        #expect(run(["-remove", "root.title", path]).status == 0)
        let read = try #require(try Self.foundationRead(path))
        let contacts = try #require(read["contacts"] as? NSArray)
        #expect(contacts.count == 3)
        let ann = try #require(contacts[0] as? NSDictionary)
        #expect(ann["name"] as? String == "Anna")
        #expect(ann["email"] as? String == "anna@example.com")
        #expect(ann["age"] as? Int == 30)
        #expect((contacts[2] as? NSDictionary)?["name"] as? String == "Cy")
        #expect((contacts[1] as? NSDictionary)?["born"] as? Date == Date(timeIntervalSinceReferenceDate: 86_400))
        #expect(read["notes"] as? String == "first")
        #expect(read["title"] == nil)
        #expect(read["id"] is NSUUID)

        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let exists = run(["-insert", "root.contacts.0.name", "-string", "x", path])
        #expect(exists.status == 1)
        #expect(exists.stderr.contains("key path 'root.contacts.0.name'"), "\(exists.stderr)")
        let notFound = run(["-remove", "root.nothing.here", path])
        #expect(notFound.status == 1)
        #expect(notFound.stderr.contains("key path 'root.nothing.here'"), "\(notFound.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func typedJSONKeepsDatesDataRealsAndConvertsBack() throws {
        let original: PropertyListValue = ["when": .date(Date(timeIntervalSinceReferenceDate: 86_400.25)),
                                           "bytes": .data(Data([0, 1, 2])), "real": 2.0, "count": 2, "$date": "a key, not a marker"]
        let path = try temporaryFile(try original.propertyListData(format: .binary))
        // Apple's -convert json stays the default: it refuses dates and data.
        #expect(run(["-convert", "json", "-o", "-", path]).status == 1)
        let json = path + ".json"
        #expect(run(["-convert", "typed-json", "-o", json, path]).status == 0)
        let text = try String(contentsOfFile: json, encoding: .utf8)
        #expect(text.contains(#""$data":"AAEC""#), "\(text)")
        #expect(text.contains(#""real":2.0"#), "\(text)")
        // Read back by its markers when asked (-from typed-json), to the same values.
        let back = path + ".back"
        #expect(run(["-convert", "binary1", "-from", "typed-json", "-o", back, json]).status == 0)
        #expect(try PropertyListValue(propertyListData: Data(contentsOf: URL(fileURLWithPath: back))) == original)
        #expect(run(["-extract", "when", "raw", "-from", "typed-json", json]).stdout == "2001-01-02T00:00:00Z\n")
        // Without -from the file is plain JSON, as Apple's plutil reads it: the marker is a dictionary.
        #expect(run(["-type", "when", json]).stdout == "dictionary\n")
        #expect(run(["-extract", "when.$date", "raw", json]).stdout == "2001-01-02T00:00:00.25Z\n")
    }

    @Test func plainJSONWithAMarkerKeyIsADictionaryUnlessTypedJSONIsAsked() throws {
        let path = try temporaryFile(Data(#"{"d":{"$date":"2001-01-01T00:00:00Z"}}"#.utf8), name: "plain.json")
        let plain = run(["-convert", "xml1", "-o", "-", path])
        #expect(plain.status == 0)
        #expect(plain.stdout.contains("<key>$date</key>"), "\(plain.stdout)")
        let typed = run(["-convert", "xml1", "-from", "typed-json", "-o", "-", path])
        #expect(typed.stdout.contains("<date>2001-01-01T00:00:00Z</date>"), "\(typed.stdout)")
        let unknown = run(["-convert", "xml1", "-from", "yaml", path])
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("-from: yaml"), "\(unknown.stderr)")
    }

    /// Writes `text` with `old` replaced by `new` to `json` (the edit a jq filter makes), converts it back to a
    /// binary archive with `-from form`, and reads that with Foundation's NSKeyedUnarchiver.
    func foundationReadAfterEdit(_ text: String, replacing old: String, with new: String, json: String, from form: String,
                                 path: String) throws -> NSDictionary {
        try Data(text.replacingOccurrences(of: old, with: new).utf8).write(to: URL(fileURLWithPath: json))
        let edited = path + ".edited"
        #expect(run(["-convert", "binary1", "-from", form, "-o", edited, json]).status == 0)
        return try #require(try Self.foundationRead(edited))
    }

    static let complexArchive = "corelibs-foundation/Resources/NSKeyedUnarchiver-ComplexTest.plist"

    /// corelibs' ComplexTest archive in a temporary file, converted by `plutil -convert format` beside it.
    func complexArchiveConverted(to format: String) throws -> (source: Data, path: String, json: String) {
        let source = try Corpus.data(Self.complexArchive)
        let path = try temporaryFile(source)
        let json = path + ".json"
        #expect(run(["-convert", format, "-o", json, path]).status == 0)
        return (source, path, json)
    }

    /// `-convert resolved-json` and back with `-from resolved-json`; an edit of the JSON text is read by Foundation.
    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus"))
    func aCorpusArchiveEditedAsResolvedJSONIsReadByFoundation() throws {
        let (_, path, json) = try complexArchiveConverted(to: "resolved-json")
        let text = try String(contentsOfFile: json, encoding: .utf8)
        #expect(text.contains(#""string":"hello""#), "\(text)")
        let read = try foundationReadAfterEdit(text, replacing: #""string":"hello""#, with: #""string":"howdy""#,
                                               json: json, from: "resolved-json", path: path)
        #expect(read["string"] as? String == "howdy")
        #expect((read["array"] as? NSArray)?[1] as? String == "hello")
        #expect(read["uuid"] is NSUUID)
        #expect(run(["-extract", "root.string", "raw", "-from", "resolved-json", json]).stdout == "howdy\n")
        // An edit through plutil writes resolved JSON again.
        #expect(run(["-replace", "root.string", "-string", "hi", "-from", "resolved-json", json]).status == 0)
        #expect(try String(contentsOfFile: json, encoding: .utf8).contains(#""string":"hi""#))
        // A property list that is no archive has no resolved form.
        let plainPath = try temporaryFile(Data(#"{"a":1}"#.utf8), name: "plain.json")
        let refused = run(["-convert", "resolved-json", "-o", "-", plainPath])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("keyed archives only"), "\(refused.stderr)")
    }

    /// `-lint` checks the property list only, as Apple's plutil does; `-lint -archive` checks the archive's rules.
    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus"))
    func lintChecksArchiveRulesOnlyWhenAsked() throws {
        let path = try temporaryFile(try Corpus.data("bpylist2/invalid_version_archive.plist"))
        #expect(run(["-lint", path]).status == 0)
        let strict = run(["-lint", "-archive", path])
        #expect(strict.status == 1)
        #expect(strict.stderr.contains("version"), "\(strict.stderr)")
        let plainPath = try temporaryFile(try PropertyListValue.dictionary(["a": 1]).propertyListData(), name: "plain.plist")
        #expect(run(["-lint", "-archive", plainPath]).stderr.contains("not a keyed archive"))
        let complex = try temporaryFile(try Corpus.data(Self.complexArchive))
        #expect(run(["-lint", "-archive", complex]).status == 0)
    }

    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus"))
    func aCorpusArchiveEditedAsTypedJSONIsReadByFoundation() throws {
        let (source, path, json) = try complexArchiveConverted(to: "typed-json")
        // Unchanged, the typed JSON converts back to the same archive values.
        let same = path + ".same"
        #expect(run(["-convert", "binary1", "-from", "typed-json", "-o", same, json]).status == 0)
        #expect(try PropertyListValue(propertyListData: Data(contentsOf: URL(fileURLWithPath: same)))
                == PropertyListValue(propertyListData: source))
        // The edit a jq filter would make: the string object "hello" in $objects becomes "howdy".
        let text = try String(contentsOfFile: json, encoding: .utf8)
        #expect(text.components(separatedBy: #""hello""#).count == 2, "\(text)")
        let read = try foundationReadAfterEdit(text, replacing: #""hello""#, with: #""howdy""#, json: json, from: "typed-json", path: path)
        #expect(read["string"] as? String == "howdy")
        #expect((read["array"] as? NSArray)?[1] as? String == "howdy")
        #expect(read["uuid"] is NSUUID)
        #expect(run(["-extract", "root.string", "raw", "-from", "typed-json", json]).stdout == "howdy\n")
    }

    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus"))
    func everyCorpusArchiveConvertsBetweenXMLAndBinaryKeepingItsGraph() throws {
        var archives = 0
        for file in Corpus.files() {
            let data = try Corpus.data(file)
            guard let graph = try? ArchivedObjectGraph(data: data) else { continue }
            archives += 1
            let original = try PropertyListValue(propertyListData: data)
            let xml = try temporaryFile(data, name: "archive")
            #expect(run(["-convert", "xml1", xml]).status == 0, "\(file)")
            let xmlData = try Data(contentsOf: URL(fileURLWithPath: xml))
            #expect(PropertyListValue.detectFormat(of: xmlData) == .xml)
            #expect(run(["-convert", "binary1", xml]).status == 0, "\(file)")
            let binaryData = try Data(contentsOf: URL(fileURLWithPath: xml))
            #expect(try PropertyListValue(propertyListData: binaryData) == original, "\(file)")
            #expect(try ArchivedObjectGraph(data: binaryData) == graph, "\(file)")
            #expect(run(["-lint", xml]).status == 0, "\(file)")
            // -p shows the resolved graph exactly as archive-dump's tree renderer does.
            let tree = DumpOutputCollector()
            TreeRenderer().render(graph: graph, to: tree.output)
            tree.output.flush()
            #expect(run(["-p", xml]).stdout == tree.text, "\(file)")
        }
        #expect(archives >= 90)
    }
}
