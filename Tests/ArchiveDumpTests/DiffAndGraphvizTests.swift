import Foundation
import Testing
@testable import ArchiveDumpCore
import KeyedArchive

/// `archive-dump --diff` (objects matched by path from `$top`) and `--dot` (checked with Graphviz's `dot`).
@Suite(.temporaryDirectory("archive-dump")) struct DiffAndGraphvizTests {
    /// Graphviz's `dot`, when installed (`.ci/run` installs Debian's graphviz).
    static let dot: String? = ["/usr/bin/dot", "/usr/local/bin/dot"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// A small address book: `Book {owner: Person, people: [Person, Person], tags: ["a", "b"]}`. `version`
    /// changes what the second version changed; `shareOwner` makes `people[0]` the owner object itself.
    static func book(version: Int) throws -> Data {
        var builder = ArchiveBuilder()
        let root = builder.reserve()
        let ada = builder.object("Person", ["NSObject"], [("name", builder.add("Ada")), ("age", 36)])
        let alan = builder.object(version == 1 ? "Person" : "Employee", ["NSObject"],
                                  [("name", builder.add(version == 1 ? "Alan" : "Alan Turing")), ("age", 41)]
                                      + (version == 1 ? [("fax", builder.add("none"))] : [("email", builder.add("alan@example.com"))]))
        let owner = version == 1 ? builder.object("Person", ["NSObject"], [("name", builder.add("Ada")), ("age", 36)]) : ada
        let tags = builder.object("NSArray", ["NSObject"], [("NS.objects", .array(version == 1 ? [builder.add("a"), builder.add("b")]
                                                                                              : [builder.add("a")]))])
        let people = builder.object("NSArray", ["NSObject"], [("NS.objects", .array([ada, alan]))])
        builder.set(root, builder.instance("Book", ["NSObject"], [("owner", owner), ("people", people), ("tags", tags)]))
        return try builder.archive(root: root).propertyListData(format: .binary)
    }

    @Test func anArchiveDiffedWithItselfHasNoDifferences() throws {
        for data in [try Self.book(version: 1), try Self.book(version: 2)] {
            let document = try ForensicReader().read(data)
            #expect(document.differences(to: try ForensicReader().read(data)).isEmpty)
        }
        let file = try ToolRunner.temporaryFile(try Self.book(version: 1))
        let result = try ToolRunner.run(["--diff", file, file])
        #expect(result.status == 0)
        #expect(result.text.isEmpty)
    }

    /// Found by the `nested` fuzz target: a NaN is not == itself, yet the same stored NaN is no change.
    @Test func theSameNaNIsNoChange() throws {
        let value = PropertyListValue.array([.real(.nan), .date(Date(timeIntervalSinceReferenceDate: .nan)), .real(-.nan)])
        let document = try ForensicReader().read(try value.propertyListData(format: .binary))
        #expect(document.differences(to: document).isEmpty)
        let other = try ForensicReader().read(try PropertyListValue.array([.real(.nan), .date(Date(timeIntervalSinceReferenceDate: 0)),
                                                                          .real(-.nan)]).propertyListData(format: .binary))
        #expect(document.differences(to: other).map(\.path.description) == ["$root[1]"])
    }

    /// Found by the `nested` fuzz target: an NSDictionary whose NS.keys name one key twice is matched
    /// occurrence by occurrence, so it is no change against itself and one change when one value changes.
    @Test func aRepeatedDictionaryKeyIsMatchedOccurrenceByOccurrence() throws {
        func archive(second: String) throws -> Data {
            let dictionaryClass = PropertyListValue.dictionary(["$classname": "NSDictionary", "$classes": ["NSDictionary", "NSObject"]])
            let dictionary = PropertyListValue.dictionary([
                "NS.keys": [.uid(UID(2)), .uid(UID(2))], "NS.objects": [.uid(UID(3)), .uid(UID(4))], "$class": .uid(UID(5)),
            ])
            return try PropertyListValue.dictionary([
                "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(UID(1))],
                "$objects": ["$null", dictionary, "k", "first", .string(second), dictionaryClass],
            ]).propertyListData(format: .binary)
        }
        let document = try ForensicReader().read(try archive(second: "second"))
        #expect(document.differences(to: document).isEmpty)
        let other = try ForensicReader().read(try archive(second: "changed"))
        #expect(document.differences(to: other).map(ArchiveDumpCommand.differenceText) == [
            "changed $top.root.k: \"second\" -> \"changed\"",
        ])
    }

    @Test func twoVersionsListExactlyTheChangesMade() throws {
        let old = try ForensicReader().read(try Self.book(version: 1))
        let new = try ForensicReader().read(try Self.book(version: 2))
        let lines = old.differences(to: new).map(ArchiveDumpCommand.differenceText)
        #expect(lines == [
            "sharing appeared $top.root.people[0]: Person (2 fields) -> the object at $top.root.owner",
            "class changed $top.root.people[1]: Person (3 fields) -> Employee (3 fields)",
            "removed $top.root.people[1].fax: \"none\"",
            "added $top.root.people[1].email: \"alan@example.com\"",
            "changed $top.root.people[1].name: \"Alan\" -> \"Alan Turing\"",
            "removed $top.root.tags[1]: \"b\"",
        ], "\(lines)")
        // Backwards, the sharing goes and the rest is reversed.
        let back = new.differences(to: old).map(ArchiveDumpCommand.differenceText)
        #expect(back.first == "sharing went $top.root.people[0]: the object at $top.root.owner -> Person (2 fields)")
        #expect(back.count == 6)
        #expect(back.contains("added $top.root.tags[1]: \"b\""))
    }

    /// `archive-dump --diff OLD NEW`, as the help says: what changed from OLD to NEW. Version 1 has tag "b" and
    /// Alan; version 2 drops "b" and renames Alan.
    @Test func theCommandLineReportsChangesFromOldToNew() throws {
        let old = try ToolRunner.temporaryFile(try Self.book(version: 1))
        let new = try ToolRunner.temporaryFile(try Self.book(version: 2))
        let forward = try ToolRunner.run(["--diff", old, new])
        #expect(forward.status == 0, "\(forward.stderr)")
        let lines = forward.text.split(separator: "\n").map(String.init)
        #expect(lines.contains("changed $top.root.people[1].name: \"Alan\" -> \"Alan Turing\""), "\(lines)")
        #expect(lines.contains("removed $top.root.tags[1]: \"b\""), "\(lines)")
        #expect(lines.contains("added $top.root.people[1].email: \"alan@example.com\""), "\(lines)")
        #expect(lines == (try ForensicReader().read(try Self.book(version: 1)))
            .differences(to: try ForensicReader().read(try Self.book(version: 2))).map(ArchiveDumpCommand.differenceText))
        // The options may come in any order: the file after --diff is the old one.
        let reordered = try ToolRunner.run([new, "--diff", old])
        #expect(reordered.text == forward.text)
        let backward = try ToolRunner.run(["--diff", new, old])
        #expect(backward.text.contains("changed $top.root.people[1].name: \"Alan Turing\" -> \"Alan\""), "\(backward.text)")
        #expect(backward.text.contains("added $top.root.tags[1]: \"b\""), "\(backward.text)")
    }

    @Test func diffAsJSONLinesNamesTheOldAndNewFiles() throws {
        let first = try ToolRunner.temporaryFile(try Self.book(version: 1))
        let second = try ToolRunner.temporaryFile(try Self.book(version: 2))
        let result = try ToolRunner.run(["--diff", first, "--json", second])
        #expect(result.status == 0, "\(result.stderr)")
        let records = try result.text.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(records.count == 6)
        #expect(records.contains { $0["change"] as? String == "removed" && $0["path"] as? String == "$top.root.tags[1]" && $0["old"] as? String == "b" })
        #expect(records.contains {
            $0["change"] as? String == "changed" && $0["path"] as? String == "$top.root.people[1].name"
                && $0["old"] as? String == "Alan" && $0["new"] as? String == "Alan Turing"
        })
        #expect(records.allSatisfy { $0["oldFile"] as? String == first && $0["newFile"] as? String == second })
    }

    /// An archive whose objects share a child and point back at their parent.
    static func cyclicArchive() throws -> Data {
        var builder = ArchiveBuilder()
        let parent = builder.reserve()
        let shared = builder.object("Leaf", ["NSObject"], [("label", builder.add("shared \"leaf\"\nline 2"))])
        let left = builder.object("Node", ["NSObject"], [("parent", parent), ("leaf", shared)])
        let right = builder.object("Node", ["NSObject"], [("parent", parent), ("leaf", shared)])
        builder.set(parent, builder.instance("Node", ["NSObject"], [("left", left), ("right", right), ("when", builder.object(
            "NSDate", ["NSObject"], [("NS.time", .real(0))]))]))
        return try builder.archive(root: parent).propertyListData(format: .binary)
    }

    @Test func theDOTShowsSharedObjectsAndCycles() throws {
        let out = DumpOutputCollector()
        GraphvizRenderer(maxDepth: nil, maxObjects: 500).render(try ForensicReader().read(try Self.cyclicArchive()), to: out.output)
        out.output.flush()
        let text = out.text
        #expect(text.hasPrefix("digraph archive {\n"))
        #expect(text.contains("Leaf\\llabel: \\\"shared \\\\\\\"leaf"), "\(text)")
        #expect(text.contains("peripheries=2"), "the shared leaf has two edges in")
        #expect(text.components(separatedBy: "style=dashed, color=red").count - 1 == 2, "two parent pointers close cycles")
        #expect(!text.contains("cut ["))
        let cut = DumpOutputCollector()
        GraphvizRenderer(maxDepth: nil, maxObjects: 2).render(try ForensicReader().read(try Self.cyclicArchive()), to: cut.output)
        cut.output.flush()
        #expect(cut.text.contains("cut [shape=note, label=\"2 more not drawn (cut after 2 boxes)\"]"), "\(cut.text)")
    }

    @Test(.enabled(if: DiffAndGraphvizTests.dot != nil, "needs Graphviz's dot (apt-get install graphviz)"))
    func graphvizParsesTheDOT() throws {
        let tool = try #require(Self.dot)
        let inputs = [try Self.cyclicArchive(), try Self.book(version: 2),
                      try Data(contentsOf: BuiltProducts.packageRoot.appendingPathComponent("Samples/SchemaMigration/Fixtures/address-book-v1.archive"))]
        for (index, data) in inputs.enumerated() {
            for arguments in [["--dot"], ["--dot", "--max-objects", "2"], ["--dot", "--max-depth", "1"]] {
                let result = try ToolRunner.run(arguments + [try ToolRunner.temporaryFile(data)])
                #expect(result.status == 0)
                let process = Process()
                process.executableURL = URL(fileURLWithPath: tool)
                process.arguments = ["-Tsvg", "-o", "/dev/null"]
                let pipe = Pipe(), errors = Pipe()
                process.standardInput = pipe
                process.standardError = errors
                try process.run()
                pipe.fileHandleForWriting.write(result.stdout)
                try pipe.fileHandleForWriting.close()
                process.waitUntilExit()
                let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                #expect(process.terminationStatus == 0, "input \(index) \(arguments): \(message)")
                #expect(message.isEmpty, "input \(index) \(arguments): \(message)")
            }
        }
    }
}
