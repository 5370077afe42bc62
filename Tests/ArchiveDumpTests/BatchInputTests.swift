import Foundation
import Testing
@testable import ArchiveDumpCore
import KeyedArchive

/// `archive-dump --hex / --base64 / --batch`: blobs as they come out of databases, one JSON line per blob.
@Suite(.temporaryDirectory("archive-dump")) struct BatchInputTests {
    /// Runs the command in process with `arguments`, `stdin` as standard input.
    static func run(_ arguments: [String], stdin: Data = Data()) -> (status: Int32, lines: [String], errors: String) {
        let out = DumpOutputCollector(), err = DumpOutputCollector()
        let status = ArchiveDumpCommand.run(arguments: arguments, input: { stdin }, output: out.output, errors: err.output,
                                            outputIsTerminal: false)
        return (status, out.text.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init), err.text)
    }

    /// Each line parsed as a JSON object.
    static func objects(_ lines: [String]) throws -> [[String: Any]] {
        try lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not an object: \(line)")
        }
    }

    static let keyedArchive = try? PropertyListValue.dictionary(["$archiver": "NSKeyedArchiver", "$version": 100000,
                                                                 "$top": ["root": .uid(UID(1))], "$objects": ["$null", "hello"]])
        .propertyListData(format: .binary)

    static func hex(_ data: Data) -> String { data.map { String(format: "%02X", $0) }.joined() }

    @Test func hexLinesGiveOneJSONLinePerLineAndGoOnAfterErrors() throws {
        let archive = try #require(Self.keyedArchive)
        let typedstream = try TypedstreamArchiver().archivedData(withRootValue: .string("text"))
        // What `sqlite3 db "select hex(attributedBody) from message"` prints: upper-case hex, NULL as an empty line.
        let input = [Self.hex(typedstream), "", "XYZ", Self.hex(Data("bplist00".utf8)), Self.hex(archive) + "\r"].joined(separator: "\n") + "\n"
        let (status, lines, errors) = Self.run(["--hex", "-"], stdin: Data(input.utf8))
        #expect(status == 1)
        #expect(errors.isEmpty)
        let records = try Self.objects(lines)
        try #require(records.count == 5)
        #expect(records.map { $0["line"] as? Int } == [1, 2, 3, 4, 5])
        #expect(records.allSatisfy { $0["input"] as? String == "<stdin>" })
        #expect(records[0]["format"] as? String == "typedstream")
        #expect(records[0]["value"] as? String == "text")
        #expect(records[1]["error"] as? String == "empty line (no blob)")
        #expect((records[2]["error"] as? String)?.hasPrefix("not hexadecimal") == true)
        #expect((records[3]["error"] as? String)?.contains("property list") == true, "\(records[3])")
        #expect(records[4]["format"] as? String == "keyedarchive")
        #expect((records[4]["value"] as? [String: Any])?["root"] as? String == "hello")
    }

    @Test func theOrderIsTheInputsWhateverTheJobs() throws {
        let archive = try #require(Self.keyedArchive)
        var lines: [String] = []
        for i in 0..<300 {
            let value = try PropertyListValue.array([.integer(PropertyListInteger(Int64(i)))]).propertyListData(format: .binary)
            lines.append(i % 7 == 3 ? "00" : Self.hex(i.isMultiple(of: 2) ? value : archive))
        }
        let input = Data((lines.joined(separator: "\n") + "\n").utf8)
        let one = Self.run(["--hex", "--jobs", "1", "-"], stdin: input)
        let many = Self.run(["--hex", "--jobs", "8", "-"], stdin: input)
        let all = Self.run(["--hex", "-"], stdin: input)
        #expect(one.lines.count == 300)
        #expect(one.lines == many.lines)
        #expect(one.lines == all.lines)
        let records = try Self.objects(many.lines)
        for (i, record) in records.enumerated() {
            #expect(record["line"] as? Int == i + 1)
            if i % 7 == 3 { #expect(record["error"] != nil) } else if i.isMultiple(of: 2) { #expect(record["value"] as? [Int] == [i]) }
        }
    }

    @Test func base64LinesAndSeveralFiles() throws {
        let archive = try #require(Self.keyedArchive)
        let first = try ToolRunner.temporaryFile(Data((archive.base64EncodedString() + "\n" + "@@@\n").utf8), name: "first.txt")
        let second = try ToolRunner.temporaryFile(Data((archive.base64EncodedString() + "\n").utf8), name: "second.txt")
        let (status, lines, errors) = Self.run(["--base64", first, second])
        #expect(status == 1)
        #expect(errors.isEmpty)
        let records = try Self.objects(lines)
        #expect(records.map { $0["input"] as? String } == [first, first, second])
        #expect(records.map { $0["line"] as? Int } == [1, 2, 1])
        #expect(records[1]["error"] as? String == "not base64 text")
    }

    @Test func batchReadsEachFileAsOneBlobAndReportsMissingFiles() throws {
        let archive = try #require(Self.keyedArchive)
        let file = try ToolRunner.temporaryFile(archive, name: "a.archive")
        let missing = file + ".missing"
        let (status, lines, errors) = Self.run(["--batch", file, missing, file])
        #expect(status == 1)
        #expect(errors.hasPrefix("Error: " + missing + ": "))
        let records = try Self.objects(lines)
        #expect(records.count == 2)
        #expect(records.allSatisfy { $0["input"] as? String == file && $0["line"] == nil && $0["format"] as? String == "keyedarchive" })
        // Without a batch option, a second file is still a usage error.
        #expect(Self.run([file, file]).status == 64)
    }

    @Test func aBatchTimelineHasOneLinePerDateWithItsInput() throws {
        var builder = ArchiveBuilder()
        let date = builder.object("NSDate", ["NSObject"], [("NS.time", .real(86_400))])
        let archive = try builder.archive(root: date).propertyListData(format: .binary)
        let input = Data((Self.hex(archive) + "\n\n" + Self.hex(archive) + "\n").utf8)
        let (_, lines, _) = Self.run(["--hex", "--timeline", "-"], stdin: input)
        let records = try Self.objects(lines)
        #expect(records.count == 3)
        #expect(records.map { $0["line"] as? Int } == [1, 2, 3])
        #expect(records[0]["date"] as? String == "2001-01-02T00:00:00Z")
        #expect(records[0]["path"] as? String == "$top.root")
        #expect(records[1]["error"] != nil)
    }
}
