import Testing
import Foundation
import KeyedArchive
@testable import ArchiveDumpCore

/// Runs the built `archive-dump` on archives the tests make and on the shared corpus.
@Suite(.temporaryDirectory("archive-dump")) struct EndToEndArchiveTests {
    @Test func binaryAndXMLArchivesDumpTheSameTree() throws {
        let archive = Samples.note()
        let graph = try ArchivedObjectGraph(propertyList: archive)
        let expected = rendered { TreeRenderer().render(graph: graph, to: $0) }
        for format in PropertyListFormat.allCases {
            let path = try ToolRunner.temporaryFile(try archive.propertyListData(format: format))
            let fromFile = try ToolRunner.run([path])
            #expect(fromFile.status == 0, "\(format): \(fromFile.stderr)")
            #expect(fromFile.stderr.isEmpty)
            #expect(fromFile.text == expected)
            let fromStdin = try ToolRunner.run(["-"], input: try archive.propertyListData(format: format))
            #expect(fromStdin.text == expected)
        }
        #expect(expected.hasPrefix("keyed archive: $archiver \"NSKeyedArchiver\", $version 100000, 17 entries in $objects\nroot: #1 Note\n"))
    }

    @Test func everyModeOfTheBinaryMatchesTheRenderers() throws {
        let archive = Samples.note()
        let graph = try ArchivedObjectGraph(propertyList: archive)
        let path = try ToolRunner.temporaryFile(try archive.propertyListData(format: .binary))
        let cases: [([String], String)] = [
            (["--raw"], rendered { RawTextRenderer().render(archive, to: $0) }),
            (["--json"], rendered { JSONRenderer().render(graph: graph, to: $0) }),
            (["--json", "--raw"], rendered { JSONRenderer().render(propertyList: archive, to: $0) }),
            (["--max-depth", "1"], rendered { TreeRenderer(maxDepth: 1).render(graph: graph, to: $0) }),
            (["--validate"], "OK\n"),
            (["--classes"], """
                1  NSArray
                1  NSDate
                1  NSDictionary
                1  NSURL
                1  NSUUID
                1  Note

                """),
        ]
        for (arguments, expected) in cases {
            let result = try ToolRunner.run(arguments + [path])
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            #expect(result.text == expected, "\(arguments)")
        }
    }

    @Test func xmlAndBinaryConversionsRoundTrip() throws {
        let archive = Samples.note()
        let binaryPath = try ToolRunner.temporaryFile(try archive.propertyListData(format: .binary))
        let xml = try ToolRunner.run(["--xml", binaryPath])
        #expect(xml.status == 0)
        #expect(xml.text.contains("<key>CF$UID</key>"))
        #expect(try PropertyListValue(propertyListData: xml.stdout) == archive)
        // Foundation reads the XML.
        _ = try PropertyListSerialization.propertyList(from: xml.stdout, format: nil)

        let xmlPath = try ToolRunner.temporaryFile(xml.stdout, name: "archive.xml")
        let binary = try ToolRunner.run(["--binary", xmlPath])
        #expect(binary.status == 0)
        #expect(binary.stdout.starts(with: Array("bplist00".utf8)))
        #expect(try PropertyListValue(propertyListData: binary.stdout) == archive)

        let outPath = xmlPath + ".bin"
        let toFile = try ToolRunner.run(["--binary", "-o", outPath, xmlPath])
        #expect(toFile.status == 0)
        #expect(toFile.stdout.isEmpty)
        #expect(try Data(contentsOf: URL(fileURLWithPath: outPath)) == binary.stdout)
    }

    @Test func aFailedDumpKeepsTheOldOutputFile() throws {
        // --classes fails on a property list that is not an archive: the file named by -o stays as it was.
        let path = try ToolRunner.temporaryFile(try PropertyListValue.dictionary(["a": 1]).propertyListData(format: .xml))
        let outPath = path + ".txt"
        try Data("old contents\n".utf8).write(to: URL(fileURLWithPath: outPath))
        let failed = try ToolRunner.run(["--classes", "-o", outPath, path])
        #expect(failed.status == 1)
        #expect(failed.stderr.contains("not a keyed archive"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: outPath)) == Data("old contents\n".utf8))
        let succeeded = try ToolRunner.run(["-o", outPath, path])
        #expect(succeeded.status == 0)
        #expect(succeeded.stdout.isEmpty)
        #expect(String(decoding: try Data(contentsOf: URL(fileURLWithPath: outPath)), as: UTF8.self) == "dictionary (1 entry)\n  a: 1\n")
    }

    @Test func textOutputGoesToTheOutputFile() throws {
        let archive = Samples.note()
        let path = try ToolRunner.temporaryFile(try archive.propertyListData(format: .binary))
        let outPath = path + ".txt"
        let result = try ToolRunner.run(["--json", "--raw", "--max-depth=1", "--output", outPath, path])
        #expect(result.status == 0)
        #expect(result.stdout.isEmpty)
        let written = String(decoding: try Data(contentsOf: URL(fileURLWithPath: outPath)), as: UTF8.self)
        #expect(written == #"{"$version":100000,"$archiver":"NSKeyedArchiver","$top":{"$truncated":1},"$objects":{"$truncated":17}}"# + "\n")
        let unwritable = try ToolRunner.run(["-o", "/nonexistent/dir/out.txt", path])
        #expect(unwritable.status == 1)
        #expect(unwritable.stderr == "Error: /nonexistent/dir/out.txt: cannot open for writing: No such file or directory\n")
    }

    @Test func aClosedPipeEndsTheDumpQuietly() throws {
        let data = try Samples.note().propertyListData(format: .binary)
        let out = DumpOutput { _ in EPIPE }
        let err = DumpOutputCollector()
        let status = ArchiveDumpCommand.run(arguments: ["-"], input: { data }, output: out, errors: err.output,
                                            outputIsTerminal: false)
        #expect(status == 1)
        #expect(err.text.isEmpty)
    }

    @Test func binaryOutputIsRefusedOnATerminal() throws {
        let xml = try Samples.note().propertyListData(format: .xml)
        let out = DumpOutputCollector(), err = DumpOutputCollector()
        let status = ArchiveDumpCommand.run(arguments: ["--binary", "-"], input: { xml },
                                            output: out.output, errors: err.output, outputIsTerminal: true)
        #expect(status == 1)
        #expect(out.bytes.isEmpty)
        #expect(err.text == "Error: refusing to write binary data to a terminal; use -o <file> or redirect the output\n")
    }

    @Test func brokenArchivesExit1WithObjectAndKeyPath() throws {
        var b = ArchiveBuilder()
        let a = b.object("NSArray", ["NSObject"], [("NS.objects", [.ref(0), .ref(40)])])
        let path = try ToolRunner.temporaryFile(try b.archive(root: a).propertyListData(format: .binary))
        let validate = try ToolRunner.run(["--validate", path])
        #expect(validate.status == 1)
        #expect(validate.stdout.isEmpty)
        #expect(validate.stderr == "Error: \(path): keyed archive: NS.objects[1] (object #2, class NSArray): UID 40 is out of range: $objects has 3 entries\n")
        let tree = try ToolRunner.run([path])
        #expect(tree.status == 1)
        #expect(tree.stderr.hasSuffix("(use --raw to see the property list as stored)\n"))
        // --raw still shows what is stored.
        let raw = try ToolRunner.run(["--raw", path])
        #expect(raw.status == 0)
        #expect(raw.text.contains("1 => UID(40)"))

        // Truncated binary: a one-line error with the byte offset.
        let bytes = try Samples.note().propertyListData(format: .binary)
        let truncated = try ToolRunner.run(["-"], input: bytes.prefix(bytes.count - 10))
        #expect(truncated.status == 1)
        #expect(truncated.stderr.hasPrefix("Error: <stdin>: property list: "))
        #expect(truncated.stderr.contains("byte"))
        #expect(truncated.stderr.filter { $0 == "\n" }.count == 1)
    }

    @Test func plainPropertyListsAreShownAsValues() throws {
        let plist: PropertyListValue = ["a": [1, 2.5], "b": .date(Date(timeIntervalSinceReferenceDate: 0))]
        let path = try ToolRunner.temporaryFile(try plist.propertyListData(format: .xml))
        let tree = try ToolRunner.run([path])
        #expect(tree.status == 0)
        #expect(tree.text == """
            dictionary (2 entries)
              a: array (2 items)
                [0]: 1
                [1]: 2.5
              b: 2001-01-01T00:00:00Z

            """)
        let json = try ToolRunner.run(["--json", path])
        #expect(json.text == #"{"a":[1,2.5],"b":{"$date":"2001-01-01T00:00:00Z","$time":0.0}}"# + "\n")
        let classes = try ToolRunner.run(["--classes", path])
        #expect(classes.status == 1)
        #expect(classes.stderr == "Error: \(path): not a keyed archive: it has no $archiver and $objects\n")
    }

    /// A ~12 MB archive (many objects carrying data and strings) dumped in every text mode within seconds.
    @Test func largeArchiveStreamsQuickly() throws {
        var b = ArchiveBuilder()
        var items: [PropertyListValue] = []
        let count = 3_000
        for i in 0..<count {
            var bytes = Data(repeating: UInt8(i & 0xFF), count: 3_000)
            withUnsafeBytes(of: Int64(i)) { bytes.append(contentsOf: $0) }  // distinct, so the writer cannot share them
            let blob = b.add(.data(bytes))
            let name = b.add(.string("item \(i) " + String(repeating: "x", count: 1_000)))
            items.append(b.object("Item", ["NSObject"], [("name", name), ("blob", blob), ("index", .integer(PropertyListInteger(Int64(i))))]))
        }
        let list = b.object("NSMutableArray", ["NSArray", "NSObject"], [("NS.objects", .array(items))])
        let data = try b.archive(root: list).propertyListData(format: .binary)
        #expect(data.count > 12_000_000)
        let path = try ToolRunner.temporaryFile(data)
        let clock = ContinuousClock()
        let start = clock.now
        let tree = try ToolRunner.run([path])
        #expect(tree.status == 0)
        #expect(tree.text.split(separator: "\n").count == 2 + count * 4)
        let json = try ToolRunner.run(["--json", path])
        #expect(json.status == 0)
        #expect(json.stdout.count > 15_000_000)  // the blobs in base64
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? [String: Any])
        let root = try #require((object["$top"] as? [String: Any])?["root"] as? [String: Any])
        #expect((root["$items"] as? [Any])?.count == count)
        let elapsed = clock.now - start
        print("large archive: \(data.count) bytes, tree + JSON dumped in \(elapsed) (debug build)")
        #expect(elapsed < .seconds(60))
    }
}

/// Compares the tool with Python's plistlib on every corpus file plistlib reads.
@Suite struct EndToEndCorpusTests {
    /// Checks `--json --raw` (and `--xml` read back) against plistlib, in one python3 run.
    @Test(.enabled(if: TestEnvironment.hasCorpus, "needs the shared corpus (../shared/corpus)"),
          .enabled(if: TestEnvironment.hasPython3, "needs python3"))
    func rawJSONAndXMLAgreeWithPlistlibOnTheCorpus() throws {
        // typedstream/ holds NSArchiver files, no property lists: CorpusRegressionTests shows them in every mode.
        let files = TestEnvironment.corpusFiles().filter { !$0.path.contains("/typedstream/") }
        #expect(files.count > 100)
        let python = try #require(TestEnvironment.python3())
        let work = try TemporaryDirectory.create("archive-dump-corpus")
        defer { TemporaryDirectory.remove(work) }
        var manifest: [String] = []
        var crashes: [String] = []
        for (i, file) in files.enumerated() {
            let json = try ToolRunner.run(["--json", "--raw", file.path])
            let xml = try ToolRunner.run(["--xml", file.path])
            if json.status > 1 || xml.status > 1 { crashes.append(file.path) }
            guard json.status == 0 else { continue }
            let jsonURL = work.appendingPathComponent("\(i).json"), xmlURL = work.appendingPathComponent("\(i).xml")
            try json.stdout.write(to: jsonURL)
            // XML has no sets: the only conversion allowed to fail, and it must say so.
            guard xml.status == 0 else {
                #expect(xml.stderr.hasSuffix("XML property lists have no sets\n"), "\(file.path): \(xml.stderr)")
                manifest.append([file.path, jsonURL.path, ""].joined(separator: "\t"))
                continue
            }
            // Foundation's own XML reader takes the conversion too (XML 1.0 cannot hold U+0000, so
            // the two corpus files with NUL characters are only checked by plistlib's verdict below).
            if !xml.text.contains("&#0;") {
                #expect(throws: Never.self, "\(file.path)") {
                    _ = try PropertyListSerialization.propertyList(from: xml.stdout, options: [], format: nil)
                }
            }
            try xml.stdout.write(to: xmlURL)
            manifest.append([file.path, jsonURL.path, xmlURL.path].joined(separator: "\t"))
        }
        #expect(crashes.isEmpty)
        let manifestURL = work.appendingPathComponent("manifest.tsv")
        try Data(manifest.joined(separator: "\n").utf8).write(to: manifestURL)
        let (status, output) = try TestEnvironment.runPython(python, script: Self.compareScript, arguments: [manifestURL.path])
        #expect(status == 0, "\(output)")
        print(String(output.split(separator: "\n").last ?? ""))
        #expect(output.contains("compared"))
    }

    /// Loads each plist with plistlib and our JSON with a strict decoder, and compares type by type.
    static let compareScript = #"""
    import base64, datetime, json, math, plistlib, sys

    def from_json(text):
        def pairs(items):
            keys = [k for k, _ in items]
            d = dict(items)
            if keys == ["$uid"]: return plistlib.UID(d["$uid"])
            if keys == ["$data"]: return base64.b64decode(d["$data"], validate=True)
            if keys == ["$real"]: return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[d["$real"]]
            if keys == ["$date", "$time"]:
                dt = datetime.datetime(2001, 1, 1) + datetime.timedelta(seconds=d["$time"])
                iso = datetime.datetime.fromisoformat(d["$date"].replace("Z", "+00:00")).replace(tzinfo=None)
                if iso != dt: raise ValueError("ISO %r disagrees with $time %r" % (d["$date"], d["$time"]))
                return dt
            return ("dict", items)
        return json.loads(text, object_pairs_hook=pairs)

    def uids(v):
        """plistlib leaves XML {CF$UID: n} as a dict; our reader makes it a UID."""
        if isinstance(v, dict):
            if list(v.keys()) == ["CF$UID"] and type(v["CF$UID"]) is int: return plistlib.UID(v["CF$UID"])
            return {k: uids(x) for k, x in v.items()}
        if isinstance(v, list): return [uids(x) for x in v]
        return v

    def same(ours, theirs, path):
        if isinstance(ours, tuple) and ours[0] == "dict":
            items = ours[1]
            if not isinstance(theirs, dict): return "%s: dict vs %r" % (path, type(theirs))
            if [k for k, _ in items] != list(theirs.keys()): return "%s: keys %r vs %r" % (path, [k for k, _ in items], list(theirs.keys()))
            for k, v in items:
                e = same(v, theirs[k], path + "." + k)
                if e: return e
            return None
        if isinstance(ours, list):
            if not isinstance(theirs, list) or len(ours) != len(theirs): return "%s: list mismatch" % path
            for i, (a, b) in enumerate(zip(ours, theirs)):
                e = same(a, b, "%s[%d]" % (path, i))
                if e: return e
            return None
        if type(ours) is not type(theirs): return "%s: %r (%s) vs %r (%s)" % (path, ours, type(ours).__name__, theirs, type(theirs).__name__)
        if isinstance(ours, float):
            if math.isnan(ours) and math.isnan(theirs): return None
            if ours != theirs or math.copysign(1, ours) != math.copysign(1, theirs): return "%s: %r vs %r" % (path, ours, theirs)
            return None
        if ours != theirs: return "%s: %r vs %r" % (path, ours, theirs)
        return None

    def whole_seconds(v):
        if isinstance(v, datetime.datetime): return v.replace(microsecond=0)
        if isinstance(v, dict): return {k: whole_seconds(x) for k, x in v.items()}
        if isinstance(v, list): return [whole_seconds(x) for x in v]
        return v

    def xml_illegal(v):
        if isinstance(v, str): return any(ord(c) < 0x20 and c not in "\t\n\r" for c in v)
        if isinstance(v, dict): return any(xml_illegal(k) or xml_illegal(x) for k, x in v.items())
        if isinstance(v, list): return any(xml_illegal(x) for x in v)
        return False

    compared = skipped = not_xml = 0
    failures = []
    for line in open(sys.argv[1]).read().splitlines():
        plist_path, json_path, xml_path = line.split("\t")
        try:
            with open(plist_path, "rb") as f: expected = uids(plistlib.load(f))
        except Exception:
            skipped += 1
            continue
        ours = from_json(open(json_path, encoding="utf-8").read())
        e = same(ours, expected, "root")
        if e: failures.append("%s --json --raw: %s" % (plist_path, e))
        if not xml_path:
            compared += 1
            continue
        try:
            with open(xml_path, "rb") as f: again = uids(plistlib.load(f))
            # XML dates carry whole seconds only.
            if whole_seconds(again) != whole_seconds(expected):
                failures.append("%s --xml: plistlib reads a different value back" % plist_path)
        except Exception as error:
            # XML 1.0 cannot carry U+0000 and most C0 controls, escaped or not; anything else is a fault.
            if xml_illegal(expected): not_xml += 1
            else: failures.append("%s --xml: plistlib cannot read it: %s" % (plist_path, error))
        compared += 1
    for f in failures: print(f)
    print("compared %d files with plistlib (%d it cannot read; %d hold strings XML 1.0 cannot carry), %d differences"
          % (compared, skipped, not_xml, len(failures)))
    sys.exit(1 if failures or compared == 0 else 0)
    """#

    /// The default tree of every corpus keyed archive: exit 0 or a one-line error, never a crash.
    @Test(.enabled(if: TestEnvironment.hasCorpus, "needs the shared corpus (../shared/corpus)"))
    func everyCorpusFileDumpsOrFailsCleanly() throws {
        let files = TestEnvironment.corpusFiles()
        var dumped = 0
        for file in files {
            for mode in [[], ["--json"]] {
                let result = try ToolRunner.run(mode + [file.path])
                #expect(result.status == 0 || result.status == 1, "\(mode) \(file.path): status \(result.status)")
                if result.status == 1 {
                    #expect(result.stderr.hasPrefix("Error: "), "\(file.path)")
                    #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(file.path): \(result.stderr)")
                } else if mode.isEmpty {
                    dumped += 1
                }
            }
        }
        #expect(dumped > 100)
    }

    /// A real Darwin archive, dumped exactly.
    @Test(.enabled(if: TestEnvironment.hasCorpus, "needs the shared corpus (../shared/corpus)"))
    func complexTestFixtureDumpsExactly() throws {
        let file = TestEnvironment.corpus.appendingPathComponent("corelibs-foundation/Resources/NSKeyedUnarchiver-ComplexTest.plist")
        let result = try ToolRunner.run([file.path])
        #expect(result.status == 0)
        #expect(result.text == """
            keyed archive: $archiver "NSKeyedArchiver", $version 100000, 23 entries in $objects
            root: #1 NSDictionary (4 entries)
              "array": #6 NSArray (4 items)
                [0]: #7 NSNull
                [1]: #9 "hello"
                [2]: #10 34545
                [3]: #11 NSDictionary (1 entry)
                  "key": #13 "val"
              "string": #9 "hello"
              "url": #16 NSURL index.xml relative to
                base: #17 NSURL https://www.swift.org
              "uuid": #21 NSUUID 71DC068E-3420-45FF-919E-3A267D55EC22

            """)
        let json = try ToolRunner.run(["--json", file.path])
        #expect(json.text == #"{"$archiver":"NSKeyedArchiver","$version":100000,"$top":{"root":{"$class":"NSDictionary","$id":1,"# +
            #""$entries":{"array":{"$class":"NSArray","$id":6,"$items":[{"$class":"NSNull","$id":7},"hello",34545,"# +
            #"{"$class":"NSDictionary","$id":11,"$entries":{"key":"val"}}]},"string":"hello","# +
            #""url":{"$class":"NSURL","$id":16,"NS.base":{"$url":"https://www.swift.org"},"# +
            #""NS.relative":"index.xml"},"uuid":{"$uuid":"71DC068E-3420-45FF-919E-3A267D55EC22"}}}}}"# + "\n")
    }
}
