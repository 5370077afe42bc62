import Testing
import Foundation
@testable import ArchiveDumpCore
import KeyedArchive
import KeyedArchiveTestSupport

/// `archive-dump` on typedstream files and attributed strings: the tree shows each run's text and attributes
/// as the unarchiver reads them, and `--classes` counts what the raw model holds.
@Suite(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus"))
struct TypedstreamDumpTests {
    /// The tree output of `archive-dump` on `arguments`, and its exit status.
    static func tree(_ arguments: [String]) -> (status: Int32, lines: [String]) {
        let out = DumpOutputCollector(), err = DumpOutputCollector()
        let status = ArchiveDumpCommand.run(arguments: arguments, input: { Data() }, output: out.output, errors: err.output,
                                            outputIsTerminal: false)
        return (status, out.text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    }

    /// Checks that `lines`, from `start`, show `text`'s runs in order: each run's range and exact text on
    /// one line, its attribute keys (sorted) on the lines below it, one level deeper, strings and integers
    /// with their values.
    static func expectRuns(of text: ArchivedAttributedString, in lines: [String], after start: Int, indent: String,
                           _ comment: Comment) {
        let units = Array(text.string.utf16)
        var line = start
        for (i, run) in text.runs.enumerated() {
            let runText = String(decoding: units[run.range], as: UTF16.self)
            let expected = indent + "run [\(i)]: \(run.range.lowerBound)..<\(run.range.upperBound) " + ValueFormatting.quoted(runText)
            guard let found = lines[line...].firstIndex(of: expected) else {
                Issue.record("\(comment): no line \(expected)")
                return
            }
            line = found + 1
            for key in run.attributes.keys.sorted() {
                let keyLine = indent + "  " + ValueFormatting.bareKey(key) + ": "
                guard line < lines.count, lines[line].hasPrefix(keyLine) else {
                    Issue.record("\(comment): run \(i): expected attribute \(key) at line \(line + 1)")
                    return
                }
                switch run.attributes[key] {
                case .string(let s)?: #expect(lines[line] == keyLine + ValueFormatting.quoted(s), comment)
                case .integer(let n)?: #expect(lines[line] == keyLine + n.description, comment)
                default: break
                }
                line += 1
                // Skip what opens below a container attribute.
                while line < lines.count, lines[line].hasPrefix(indent + "    ") { line += 1 }
            }
        }
    }

    @Test func attributedBodyTreeShowsTheUnarchiversTextAndRuns() throws {
        var checked = 0
        for file in CorpusRegressionTests.typedstreamFiles() where file.hasPrefix("typedstream/crabstep/") {
            let data = try Corpus.data(file)
            guard let value = try? TypedstreamUnarchiver().foundationValue(from: data), let text = value.attributedString else { continue }
            let (status, lines) = Self.tree([Corpus.url(file).path])
            #expect(status == 0, "\(file)")
            guard lines.count > 2 else { Issue.record("\(file): no tree"); continue }
            #expect(lines[1].hasSuffix(" " + ValueFormatting.quoted(text.string) + " (\(text.runs.count) run\(text.runs.count == 1 ? "" : "s"))"),
                    "\(file): \(lines[1])")
            Self.expectRuns(of: text, in: lines, after: 2, indent: "  ", "\(file)")
            checked += 1
        }
        #expect(checked >= 30)
    }

    @Test func classCountsEqualTheRawModels() throws {
        for file in CorpusRegressionTests.typedstreamFiles() where CorpusRegressionTests.damagedTypedstreams[file] == nil {
            let archive = try TypedstreamArchive(data: try Corpus.data(file))
            var expected: [String: Int] = [:]
            for index in archive.objects.indices { expected[archive.className(ofObjectAt: index) ?? "", default: 0] += 1 }
            let (status, lines) = Self.tree(["--classes", Corpus.url(file).path])
            #expect(status == 0, "\(file)")
            var shown: [String: Int] = [:]
            for line in lines where !line.isEmpty {
                let parts = line.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
                guard parts.count == 2, let count = Int(parts[0]) else { Issue.record("\(file): \(line)"); continue }
                shown[parts[1].trimmingCharacters(in: .whitespaces)] = count
            }
            #expect(shown == expected, "\(file)")
            #expect(!expected.isEmpty, "\(file)")
        }
    }

    @Test func keyedAttributedStringShowsItsRuns() throws {
        for file in ["corelibs-foundation/Fixtures/macOS-10.14/NSMutableAttributedString.archive",
                     "corelibs-foundation/Fixtures/macOS-10.14/NSAttributedString.archive"] {
            let data = try Corpus.data(file)
            let text = try KeyedUnarchiver().decode(ArchivedAttributedString.self, from: data)
            #expect(text.runs.count > 1, "\(file)")
            let (status, lines) = Self.tree([Corpus.url(file).path])
            #expect(status == 0, "\(file)")
            #expect(lines.count > 2 && lines[1].hasSuffix(ValueFormatting.quoted(text.string) + " (\(text.runs.count) runs)"), "\(file)")
            Self.expectRuns(of: text, in: lines, after: 2, indent: "  ", "\(file)")
        }
    }

    /// `--max-depth` counts runs as one level and their attributes as the next, as it counts objects' fields.
    @Test func maxDepthStopsAtTheRunsOrTheirAttributes() throws {
        let file = "corelibs-foundation/Fixtures/macOS-10.14/NSMutableAttributedString.archive"
        let text = try KeyedUnarchiver().decode(ArchivedAttributedString.self, from: try Corpus.data(file))
        let root = Self.tree(["--max-depth", "0", Corpus.url(file).path])
        #expect(root.status == 0 && root.lines.count == 3 && root.lines[1].hasSuffix("runs) ..."), "\(root.lines)")
        let runs = Self.tree(["--max-depth", "1", Corpus.url(file).path])
        #expect(runs.status == 0 && runs.lines.count == 3 + text.runs.count, "\(runs.lines)")
        for (i, run) in text.runs.enumerated() where 2 + i < runs.lines.count {
            #expect(runs.lines[2 + i].hasPrefix("  run [\(i)]: ") && runs.lines[2 + i].hasSuffix(" ...") == !run.attributes.isEmpty,
                    "\(runs.lines[2 + i])")
        }
    }
}

/// Output of a typedstream whose objects are shared: bounded by the input's size.
struct TypedstreamDumpBoundsTests {
    /// 40 NSArrays, each holding the next one twice (stored, then referenced): 2^40 values when expanded.
    static func sharedArrayChain(depth: Int) throws -> Data {
        var objects: [TypedstreamObject] = []
        for k in 0 ..< depth {
            objects.append(TypedstreamObject(classIndex: 0, groups: [
                TypedstreamGroup(encoding: "i", values: [.integer(2)]),
                TypedstreamGroup(encoding: "@", values: [.object(k + 1)]),
                TypedstreamGroup(encoding: "@", values: [.objectReference(k + 1)]),
            ]))
        }
        objects.append(TypedstreamObject(classIndex: 0, groups: [TypedstreamGroup(encoding: "i", values: [.integer(0)])]))
        let archive = TypedstreamArchive(classes: [TypedstreamClass(name: "NSArray", version: 0, superclass: 1),
                                                   TypedstreamClass(name: "NSObject", version: 0, superclass: nil)],
                                         objects: objects, groups: [TypedstreamGroup(encoding: "@", values: [.object(0)])])
        return try archive.encodedData()
    }

    @Test func sharedObjectsDoNotMakeTheOutputUnbounded() throws {
        let data = try Self.sharedArrayChain(depth: 40)
        let budget = ArchiveDumpCommand.nodeBudget(inputByteCount: data.count)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("typedstream-bomb-\(UUID().uuidString)").path
        try data.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        for mode in [[], ["--raw"], ["--json"], ["--json", "--raw"], ["--classes"], ["--validate"]] {
            let out = DumpOutputCollector(), err = DumpOutputCollector()
            let status = ArchiveDumpCommand.run(arguments: mode + [path], input: { Data() }, output: out.output, errors: err.output,
                                                outputIsTerminal: false)
            #expect(out.bytes.count <= budget * 300, "\(mode)")
            if mode == ["--json"] {
                #expect(status == 1 && err.text.contains("nothing was shown"), "\(err.text)")
            } else {
                #expect(status == 0, "\(mode): \(err.text)")
            }
            if mode == [] {
                #expect(out.text.hasSuffix("the rest is left out)\n"))
            }
        }
    }
}

/// The README's custom class, and the writer of the files it reads.
enum TypedstreamReadmeExample {
    // README typedstream 2: begin
    struct Bookmark: TypedstreamDecodable {
        static let typedstreamClassName = "Bookmark"
        var title: String, visits: Int
        init(from decoder: TypedstreamDecoder) throws {
            title = try decoder.decodeString() ?? ""
            visits = (decoder.version(forClassName: "Bookmark") ?? 0) >= 2 ? try decoder.decodeInteger() : 0  // v1 had none
        }
    }
    // README typedstream 2: end

    /// A `Bookmark` as its version 2 wrote it: the title and 7 visits.
    struct BookmarkVersion2: TypedstreamEncodable {
        static let typedstreamClassName = "Bookmark"
        static let typedstreamClassVersion = 2
        func encode(to encoder: TypedstreamEncoder) throws {
            try encoder.encodeString("Swift")
            try encoder.encodeInteger(7)
        }
    }

    /// A `Bookmark` as its version 1 wrote it: the title only.
    struct BookmarkVersion1: TypedstreamEncodable {
        static let typedstreamClassName = "Bookmark"
        static let typedstreamClassVersion = 1
        func encode(to encoder: TypedstreamEncoder) throws { try encoder.encodeString("Swift") }
    }
}

/// README.md's typedstream examples, as written there (`readmeShowsExactlyThisFilesExamples` checks that): an
/// attributedBody from the corpus, and a custom class from files our TypedstreamArchiver writes.
@Suite struct TypedstreamReadmeExampleTests {
    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus"))
    func readmeExampleReadsAnAttributedBody() throws {
        let attributedBody = try Corpus.data("typedstream/crabstep/Mention")
        var printed: [String] = []
        func print(_ range: Range<Int>, _ keys: [String]) { printed.append("\(range) \(keys)") }
        // README typedstream 1: begin
        let body = try TypedstreamUnarchiver().foundationValue(from: attributedBody)
        if let text = body.attributedString {
            for run in text.runs { print(run.range, run.attributes.keys.sorted()) }
        }
        // README typedstream 1: end
        #expect(printed == ["0..<5 [\"__kIMMessagePartAttributeName\"]",
                            "5..<8 [\"__kIMMentionConfirmedMention\", \"__kIMMessagePartAttributeName\"]",
                            "8..<9 [\"__kIMMessagePartAttributeName\"]"])
    }

    /// The README's `Bookmark` reads a version 2 file's visits, and a version 1 file (which has none) as 0.
    @Test func readmeExampleReadsACustomClassOfEitherVersion() throws {
        typealias Bookmark = TypedstreamReadmeExample.Bookmark
        let archiver = TypedstreamArchiver()
        for (file, expectedVisits) in [(try archiver.archivedData(withRootObject: TypedstreamReadmeExample.BookmarkVersion2()), 7),
                                       (try archiver.archivedData(withRootObject: TypedstreamReadmeExample.BookmarkVersion1()), 0)] {
            let oldFile = file
            // README typedstream 2: begin
            let bookmark = try TypedstreamUnarchiver().decode(Bookmark.self, from: oldFile)
            // README typedstream 2: end
            #expect(bookmark.title == "Swift")
            #expect(bookmark.visits == expectedVisits)
        }
    }

    /// The Swift blocks of README.md's "### Typedstream" section are this file's `README typedstream N` regions,
    /// dedented and joined by a line break: an edit to either side that the other does not share fails here.
    @Test func readmeShowsExactlyThisFilesExamples() throws {
        let thisFile = try String(contentsOfFile: #filePath, encoding: .utf8)
        let readme = try String(contentsOf: Corpus.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let blocks = ExampleRegions.swiftBlocks(after: "### Typedstream", in: readme)
        for (number, regionCount) in [(1, 1), (2, 2)] {
            let regions = ExampleRegions.regions(named: "README typedstream \(number)", in: thisFile)
            try #require(regions.count == regionCount, "README typedstream \(number) regions")
            try #require(blocks.count >= number, "README.md has no Swift block \(number) under \"### Typedstream\"")
            #expect(blocks[number - 1] == regions.map(ExampleRegions.dedent).joined(separator: "\n"), "README typedstream Swift block \(number)")
        }
    }
}

extension TypedstreamDumpBoundsTests {
    /// `depth` NSArrays, each holding the next; the last holds an object of a class without a Foundation value.
    static func arrayChain(depth: Int, leafClass: String) throws -> Data {
        var objects: [TypedstreamObject] = []
        for k in 0 ..< depth {
            objects.append(TypedstreamObject(classIndex: 0, groups: [
                TypedstreamGroup(encoding: "i", values: [.integer(1)]),
                TypedstreamGroup(encoding: "@", values: [.object(k + 1)]),
            ]))
        }
        objects.append(TypedstreamObject(classIndex: 2, groups: [TypedstreamGroup(encoding: "i", values: [.integer(7)])]))
        let archive = TypedstreamArchive(classes: [TypedstreamClass(name: "NSArray", version: 0, superclass: 1),
                                                   TypedstreamClass(name: "NSObject", version: 0, superclass: nil),
                                                   TypedstreamClass(name: leafClass, version: 3, superclass: 1)],
                                         objects: objects, groups: [TypedstreamGroup(encoding: "@", values: [.object(0)])])
        return try archive.encodedData()
    }

    /// A chain of NSArrays ending in a user's class: no array has a Foundation value, so each is shown as stored,
    /// one level deeper than the one holding it, the user's class with its version and superclass.
    @Test func aChainEndingInAUsersClassIsShownAsStored() throws {
        let depth = 3_000
        let data = try Self.arrayChain(depth: depth, leafClass: "Leaf")
        let out = DumpOutputCollector(), err = DumpOutputCollector()
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("typedstream-chain-\(UUID().uuidString)").path
        try data.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let start = ContinuousClock.now
        let status = ArchiveDumpCommand.run(arguments: [path], input: { Data() }, output: out.output, errors: err.output,
                                            outputIsTerminal: false)
        #expect(ContinuousClock.now - start < .seconds(20))
        #expect(status == 0, "\(err.text)")
        let lines = out.text.split(separator: "\n").map(String.init)
        #expect(lines.count == 1 + 2 * depth + 2)
        #expect(lines[1] == "[0] @: #0 NSArray v0 (NSObject v0)")
        #expect(lines.last?.hasSuffix("[0] i: 7") == true)
        #expect(lines.contains { $0.hasSuffix("#\(depth) Leaf v3 (NSObject v0)") })
    }
}

extension TypedstreamDumpBoundsTests {
    /// An object met again is named with the line where it was shown: `repeated` beside it, `cycle` inside it.
    @Test func objectsMetAgainReferToTheirLine() throws {
        let archive = TypedstreamArchive(
            classes: [TypedstreamClass(name: "Holder", version: 1, superclass: 1), TypedstreamClass(name: "NSObject", version: 0, superclass: nil),
                      TypedstreamClass(name: "Leaf", version: 3, superclass: 1)],
            objects: [TypedstreamObject(classIndex: 0, groups: [TypedstreamGroup(encoding: "@@", values: [.object(1), .objectReference(1)])]),
                      TypedstreamObject(classIndex: 2, groups: [TypedstreamGroup(encoding: "i", values: [.integer(7)]),
                                                                TypedstreamGroup(encoding: "@", values: [.objectReference(0)])])],
            groups: [TypedstreamGroup(encoding: "@", values: [.object(0)])])
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("typedstream-refs-\(UUID().uuidString)").path
        try archive.encodedData().write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (status, lines) = TypedstreamDumpTests.tree([path])
        #expect(status == 0)
        #expect(Array(lines.dropFirst()) == [
            "[0] @: #0 Holder v1 (NSObject v0)",
            "  [0] @@: group (2 values)",
            "    [0]: #1 Leaf v3 (NSObject v0)",
            "      [0] i: 7",
            "      [1] @: #0 Holder v1 (cycle: back to line 2)",
            "    [1]: #1 Leaf v3 (repeated: see line 4)",
            "",
        ])
    }
}
