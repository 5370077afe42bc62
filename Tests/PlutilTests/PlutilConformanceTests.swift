import Foundation
import Testing
import KeyedArchive
@testable import PlutilCore

/// Command lines from Apple's `plutil` manual page and `plutil -help`, run with this package's `plutil` on
/// the fixture files (and two corpus archives): the exit status, output, messages and files each must
/// give; and beside each, the toolchain's `plutil` on the same line, with every difference a deliberate one.
@Suite struct PlutilConformanceTests {
    static let plainListing = """
        {
          "age" => 42
          "list" => [
            0 => "x"
            1 => 2
            2 => {
              "k" => "v"
            }
          ]
          "name" => "Ann"
          "ok" => true
        }

        """

    static let plainReadableJSON = """
        {
          "age" : 42,
          "list" : [
            "x",
            2,
            {
              "k" : "v"
            }
          ],
          "name" : "Ann",
          "ok" : true
        }
        """

    static let plainObjectiveC = """
        /// Generated from c.plist
        __attribute__((visibility("hidden")))
        NSDictionary * const c = @{
            @"age" : @42,
            @"list" : @[
                @"x",
                @2,
                @{
                    @"k" : @"v",
                },
            ],
            @"name" : @"Ann",
            @"ok" : @YES,
        };

        """

    static let arrayXML = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <array>
        \t<string>x</string>
        \t<integer>2</integer>
        \t<dict>
        \t\t<key>k</key>
        \t\t<string>v</string>
        \t</dict>
        </array>
        </plist>

        """

    static let emptyDictionaryXML = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict/>
        </plist>

        """

    static let toolchainCannotWriteArchives = "the toolchain's plutil writes no keyed archive: it refuses UIDs "
        + "('Dictionaries are required to have string keys in property lists')"

    static let cases: [ConformanceCase] = {
        do {
            return try makeCases()
        } catch {
            Issue.record("the table could not be built: \(error)")
            return []
        }
    }()

    static func makeCases() throws -> [ConformanceCase] {
        let sample = try PlutilFixtures.sample()
        let plain = try PropertyListValue(propertyListData: PlutilFixtures.plainXML)
        let list = try sample.value(at: "list")
        let complexArchive = PlutilFixtures.corpusFiles["complex.plist"] ?? ""
        return [
            // -help, -lint (the default), the common options.
            .init(arguments: ["-help"], stdout: .text(PlutilCommand.help),
                  toolchain: .sameStatus("the help text is ours, in our words, and names our extensions")),
            .init(arguments: ["a.plist"], stdout: .text("a.plist: OK\n")),
            .init(arguments: ["-lint", "a.plist", "b.bplist", "c.plist"], stdout: .text("a.plist: OK\nb.bplist: OK\nc.plist: OK\n")),
            .init(arguments: ["-lint", "-s", "a.plist"]),
            .init(arguments: ["-lint", "-"], input: PlutilFixtures.plainXML, stdout: .text("<stdin>: OK\n")),
            .init(arguments: ["-lint", "bad.plist", "a.plist"], status: 1, stdout: .text("a.plist: OK\n"), stderr: nil,
                  unchanged: ["bad.plist"], toolchain: .sameStatusAndOutput("the reader's message names the line and column")),
            .init(arguments: ["-lint", "missing.plist"], status: 1, stderr: "missing.plist: (No such file or directory)\n",
                  toolchain: .sameStatusAndOutput("the system's reason, not Foundation's sentence")),
            .init(arguments: ["-lint", "in.json"], status: 1, stderr: nil,
                  toolchain: .sameStatusAndOutput("the reader's message")),
            .init(arguments: ["-lint"], status: 1, stderr: "No files specified.\n"),
            .init(arguments: [], status: 1, stderr: "No files specified.\n"),
            .init(arguments: ["-bogus", "a.plist"], status: 1, stderr: "unrecognized option: -bogus\n"),
            .init(arguments: ["-lint", "-o", "x", "a.plist"], status: 1, stderr: "-o is not used with -lint.\n"),
            .init(arguments: ["-lint", "-e", "x", "a.plist"], status: 1, stderr: "-e is not used with -lint.\n"),
            .init(arguments: ["-lint", "-o"], status: 1, stderr: "Missing argument for -o.\n"),
            .init(arguments: ["-lint", "--", "-d.plist"], stdout: .text("-d.plist: OK\n"),
                  toolchain: .differs("after -- every argument is a file, as the help says; the toolchain's still reads options")),

            // -p
            .init(arguments: ["-p", "c.plist"], stdout: .text(plainListing)),
            .init(arguments: ["-p", "-s", "c.plist"], stdout: .text(plainListing), stderr: "-s doesn't make a lot of sense with -p.\n"),
            .init(arguments: ["-p", "-o", "x", "c.plist"], status: 1, stderr: "-o is not used with -p.\n"),
            .init(arguments: ["-p", "a.plist"], stdout: .prefix("{\n  \"a.b\" => \"dotted\"\n  \"age\" => 42\n  \"blob\" => {length = 4, bytes = 0x00010203}\n"),
                  toolchain: .sameStatus("data bytes are written with two hex digits each (the toolchain drops leading zeros: 0x0123)")),
            .init(arguments: ["-p", "in.json"], stdout: .prefix("{\n  \"k\" => [\n    0 => 1\n    1 => 1.0\n    2 => 150.0\n    3 => true\n"),
                  toolchain: .sameStatus("strings are escaped (\\/ is read as /, shown as \"a/b\"); same listing otherwise")),

            // -convert
            .init(arguments: ["-convert", "xml1", "-o", "-", "c.plist"], stdout: .text(String(decoding: PlutilFixtures.plainXML, as: UTF8.self))),
            .init(arguments: ["-convert", "xml1", "-o", "-", "b.bplist"], stdout: .value(sample),
                  toolchain: .sameResult),
            .init(arguments: ["-convert", "binary1", "a.plist"], files: ["a.plist": sample], toolchain: .sameResult),
            .init(arguments: ["-convert", "binary1", "-o", "out.bplist", "a.plist"], files: ["out.bplist": sample],
                  unchanged: ["a.plist"], toolchain: .sameResult),
            .init(arguments: ["-convert", "xml1", "-e", "xml", "c.plist"], files: ["c.xml": plain], unchanged: ["c.plist"]),
            .init(arguments: ["-convert", "json", "-o", "-", "c.plist"], stdout: .value(plain), toolchain: .sameResult),
            .init(arguments: ["-convert", "json", "-r", "-o", "-", "c.plist"], stdout: .text(plainReadableJSON)),
            .init(arguments: ["-convert", "json", "-o", "-", "a.plist"], status: 1, stderr: nil,
                  toolchain: .sameStatusAndOutput("our message names the value JSON cannot hold")),
            .init(arguments: ["-convert", "xml1", "-o", "-", "in.json"], stdout: .value(["k": [1, 1.0, 150.0, true, "s", [:]], "z": "a/b"]),
                  toolchain: .sameResult),
            .init(arguments: ["-convert", "objc", "-o", "-", "c.plist"], stdout: .text(plainObjectiveC)),
            .init(arguments: ["-convert", "objc", "-header", "c.plist"], unchanged: ["c.plist"],
                  textFiles: ["c.m": "#import \"c.h\"\n\n" + plainObjectiveC,
                              "c.h": "#import <Foundation/Foundation.h>\n\n/// Generated from c.plist\n__attribute__((visibility(\"hidden\")))\nextern NSDictionary * const c;\n"]),
            .init(arguments: ["-convert", "swift", "-o", "-", "a.plist"], stdout: .prefix("/// Generated from a.plist\nlet a : [String : Any] = [\n    \"a.b\" : \"dotted\",\n"),
                  toolchain: .sameStatus("reals in their shortest exact form (3.5, not 3.500000) and backslashes escaped")),
            .init(arguments: ["-convert", "foo", "c.plist"], status: 1, stderr: "Unknown format specifier: foo\n"),
            .init(arguments: ["-convert", "xml1", "-header", "c.plist"], status: 1, stderr: "-header is only valid for objc literal conversions.\n"),
            .init(arguments: ["-convert"], status: 1, stderr: "Missing format specifier for command.\n"),
            .init(arguments: ["-convert", "xml1", "-"], input: try sample.propertyListData(format: .binary), stdout: .value(sample),
                  toolchain: .differs("standard input is converted to standard output; the toolchain's writes a file named -")),

            // -extract, -type
            .init(arguments: ["-extract", "name", "raw", "a.plist"], stdout: .text("Ann\n"), unchanged: ["a.plist"]),
            .init(arguments: ["-extract", "age", "raw", "a.plist"], stdout: .text("42\n")),
            .init(arguments: ["-extract", "pi", "raw", "a.plist"], stdout: .text("3.500000\n")),
            .init(arguments: ["-extract", "ok", "raw", "a.plist"], stdout: .text("true\n")),
            .init(arguments: ["-extract", "when", "raw", "a.plist"], stdout: .text("2024-01-02T03:04:05Z\n")),
            .init(arguments: ["-extract", "blob", "raw", "a.plist"], stdout: .text("AAECAw==\n")),
            .init(arguments: ["-extract", "list", "raw", "a.plist"], stdout: .text("3\n")),
            .init(arguments: ["-extract", "list.2", "raw", "a.plist"], stdout: .text("k\n")),
            .init(arguments: ["-extract", "list.2.k", "raw", "-n", "a.plist"], stdout: .text("v")),
            .init(arguments: ["-extract", #"a\.b"#, "raw", "a.plist"], stdout: .text("dotted\n")),
            .init(arguments: ["-extract", "name", "raw", "-expect", "string", "a.plist"], stdout: .text("Ann\n")),
            .init(arguments: ["-extract", "name", "raw", "-expect", "integer", "a.plist"], status: 1,
                  stderr: "a.plist: Value at [name] expected to be integer but is string\n"),
            .init(arguments: ["-extract", "name", "raw", "-expect", "bogus", "a.plist"], status: 1, stderr: "-expect type [bogus] not valid.\n"),
            .init(arguments: ["-extract", "list", "xml1", "-o", "-", "a.plist"], stdout: .text(arrayXML)),
            .init(arguments: ["-extract", "list.2", "json", "-o", "-", "a.plist"], stdout: .text(#"{"k":"v"}"#)),
            .init(arguments: ["-extract", "list", "binary1", "-o", "out.bplist", "a.plist"], files: ["out.bplist": list], unchanged: ["a.plist"],
                  toolchain: .sameResult),
            .init(arguments: ["-extract", "list.2", "xml1", "a.plist"], files: ["a.plist": ["k": "v"]], toolchain: .sameResult),
            .init(arguments: ["-extract", "name", "json", "-o", "-", "a.plist"], stdout: .text("\"Ann\""),
                  toolchain: .differs("a scalar is written as a JSON fragment (RFC 8259); the toolchain's refuses it")),
            .init(arguments: ["-extract", "nope", "raw", "a.plist"], status: 1,
                  stderr: "a.plist: key path 'nope': no key 'nope' in the dictionary at the root\n",
                  toolchain: .sameStatusAndOutput("the message names the component where the key path stopped")),
            .init(arguments: ["-extract", "list.9", "raw", "a.plist"], status: 1, stderr: nil,
                  toolchain: .sameStatusAndOutput("the message names the index and the array's count")),
            .init(arguments: ["-extract", "name"], status: 1, stderr: "'Extract' requires a key path and a plist format.\n"),
            .init(arguments: ["-type", "list", "a.plist"], stdout: .text("array\n")),
            .init(arguments: ["-type", "pi", "a.plist"], stdout: .text("float\n")),
            .init(arguments: ["-type", "blob", "-n", "a.plist"], stdout: .text("data")),
            .init(arguments: ["-type", "ok", "-expect", "bool", "a.plist"], stdout: .text("bool\n")),
            .init(arguments: ["-type", "nope", "a.plist"], status: 1, stderr: nil, toolchain: .sameStatusAndOutput("the message")),

            // -insert, -replace, -remove
            .init(arguments: ["-insert", "new", "-string", "hi", "a.plist"],
                  files: ["a.plist": try PlutilFixtures.sample { try $0.insertValue("hi", at: "new") }], toolchain: .sameResult),
            .init(arguments: ["-insert", "new", "-string", "hi", "a.plist", "c.plist"],
                  files: ["a.plist": try PlutilFixtures.sample { try $0.insertValue("hi", at: "new") },
                          "c.plist": try { var v = plain; try v.insertValue("hi", at: "new"); return v }()],
                  toolchain: .sameResult),
            .init(arguments: ["-insert", "name", "-string", "hi", "a.plist"], status: 1, stderr: nil, unchanged: ["a.plist"],
                  toolchain: .sameStatusAndOutput("the message names the existing value's type")),
            .init(arguments: ["-replace", "name", "-integer", "7", "a.plist"],
                  files: ["a.plist": try PlutilFixtures.sample { try $0.replaceValue(at: "name", with: 7) }], toolchain: .sameResult),
            .init(arguments: ["-insert", "list.0", "-bool", "YES", "a.plist"],
                  files: ["a.plist": try PlutilFixtures.sample { try $0.insertValue(true, at: "list.0") }], toolchain: .sameResult),
            .init(arguments: ["-insert", "list", "-string", "app", "-append", "a.plist"],
                  files: ["a.plist": try PlutilFixtures.sample { try $0.appendValue("app", toArrayAt: "list") }], toolchain: .sameResult),
            .init(arguments: ["-insert", "list.3", "-float", "2.5", "a.plist"],
                  files: ["a.plist": try PlutilFixtures.sample { try $0.insertValue(2.5, at: "list.3") }], toolchain: .sameResult),
            .init(arguments: ["-insert", "list.2.n", "-integer", "-7", "b.bplist"],
                  files: ["b.bplist": try PlutilFixtures.sample { try $0.insertValue(-7, at: "list.2.n") }], toolchain: .sameResult),
            .init(arguments: ["-insert", "d", "-dictionary", "a.plist"],
                  files: ["a.plist": try PlutilFixtures.sample { try $0.insertValue([:], at: "d") }], toolchain: .sameResult),
            .init(arguments: ["-insert", "e", "-array", "a.plist"],
                  files: ["a.plist": try PlutilFixtures.sample { try $0.insertValue([], at: "e") }], toolchain: .sameResult),
            .init(arguments: ["-insert", "t", "-date", "2020-01-01T00:00:00Z", "a.plist"],
                  files: ["a.plist": try PlutilFixtures.sample { try $0.insertValue(.date(Date(timeIntervalSinceReferenceDate: 599_529_600)), at: "t") }],
                  toolchain: .sameResult),
            .init(arguments: ["-insert", "bytes", "-data", "AAEC", "a.plist"],
                  files: ["a.plist": try PlutilFixtures.sample { try $0.insertValue(.data(Data([0, 1, 2])), at: "bytes") }], toolchain: .sameResult),
            .init(arguments: ["-insert", "j", "-json", #"{"a":[1,2.5,true]}"#, "a.plist"],
                  files: ["a.plist": try PlutilFixtures.sample { try $0.insertValue(["a": [1, 2.5, true]], at: "j") }], toolchain: .sameResult),
            .init(arguments: ["-insert", "x", "-xml", "<array><integer>1</integer></array>", "a.plist"],
                  files: ["a.plist": try PlutilFixtures.sample { try $0.insertValue([1], at: "x") }], toolchain: .sameResult),
            .init(arguments: ["-insert", "list.9", "-string", "x", "a.plist"], status: 1, stderr: nil, unchanged: ["a.plist"],
                  toolchain: .sameStatusAndOutput("the message")),
            .init(arguments: ["-insert", "list.zz", "-string", "x", "a.plist"], status: 1, stderr: nil, unchanged: ["a.plist"],
                  toolchain: .sameStatusAndOutput("the message")),
            .init(arguments: ["-insert", "name.x", "-string", "x", "a.plist"], status: 1, stderr: nil, unchanged: ["a.plist"],
                  toolchain: .sameStatusAndOutput("the message")),
            .init(arguments: ["-insert", "list.0", "-string", "x", "-append", "a.plist"], status: 1, stderr: nil, unchanged: ["a.plist"],
                  toolchain: .sameStatusAndOutput("the message")),
            .init(arguments: ["-insert", "bytes", "-data", "!!!", "a.plist"], status: 1, stderr: "Invalid base64 data in argument\n",
                  unchanged: ["a.plist"]),
            .init(arguments: ["-insert", "j", "-json", #"{"a":null}"#, "a.plist"], status: 1, stderr: nil, unchanged: ["a.plist"],
                  toolchain: .sameStatus("the message says null has no property-list form, and is printed once, before any file")),
            .init(arguments: ["-insert", "k", "-type", "x", "a.plist"], status: 1, stderr: "Unknown insert or replace type -type\n"),
            .init(arguments: ["-insert", "k"], status: 1, stderr: "'Insert' and 'Replace' require a key path, a type, and a value.\n"),
            .init(arguments: ["-insert", "i", "-integer", "abc", "a.plist"], status: 1, stderr: "-integer: 'abc' is not an integer in the 64-bit range\n",
                  unchanged: ["a.plist"], toolchain: .differs("a value that is no integer is refused; the toolchain's inserts 0")),
            .init(arguments: ["-insert", "f", "-float", "x", "a.plist"], status: 1, stderr: "-float: 'x' is not a number\n",
                  unchanged: ["a.plist"], toolchain: .differs("a value that is no number is refused; the toolchain's inserts 0.0")),
            .init(arguments: ["-insert", "t", "-date", "garbage", "a.plist"], status: 1, stderr: nil, unchanged: ["a.plist"],
                  toolchain: .differs("a date that does not read is refused; the toolchain's crashes (signal 4)")),
            .init(arguments: ["-insert", "x", "-xml", "garbage", "a.plist"], status: 1, stderr: nil, unchanged: ["a.plist"],
                  toolchain: .differs("-xml takes an XML or binary property list; the toolchain's reads 'garbage' as an OpenStep string")),
            .init(arguments: ["-replace", "list.0", "-string", "R", "a.plist"],
                  files: ["a.plist": try PlutilFixtures.sample { try $0.replaceValue(at: "list.0", with: "R") }],
                  toolchain: .differs("-replace at an array index replaces the element, as documented; the toolchain's inserts before it")),
            .init(arguments: ["-remove", "list.1", "a.plist"],
                  files: ["a.plist": try PlutilFixtures.sample { try $0.removeValue(at: "list.1") }], toolchain: .sameResult),
            .init(arguments: ["-remove", "list", "a.plist"],
                  files: ["a.plist": try PlutilFixtures.sample { try $0.removeValue(at: "list") }], toolchain: .sameResult),
            .init(arguments: ["-remove", "nope", "a.plist"], status: 1, stderr: nil, unchanged: ["a.plist"],
                  toolchain: .sameStatusAndOutput("the message")),
            .init(arguments: ["-remove"], status: 1, stderr: "'Remove' requires a key path.\n"),
            .init(arguments: ["-insert", "new", "-string", "hi", "-o", "-", "c.plist"],
                  stdout: .value(try { var v = plain; try v.insertValue("hi", at: "new"); return v }()), unchanged: ["c.plist"],
                  toolchain: .sameResult),

            // -create
            .init(arguments: ["-create", "xml1", "new.plist"], files: ["new.plist": [:]]),
            .init(arguments: ["-create", "xml1", "-"], stdout: .text(emptyDictionaryXML)),
            .init(arguments: ["-create", "binary1", "-"], stdout: .text(String(decoding: try PropertyListValue.dictionary([:]).propertyListData(), as: UTF8.self))),
            .init(arguments: ["-create", "json", "-"], stdout: .text("{}")),
            .init(arguments: ["-create", "foo", "x"], status: 1, stderr: "Unknown format specifier: foo\n"),

            // OpenStep property lists and .strings files, read as the toolchain's plutil reads them.
            .init(arguments: ["-lint", "openstep.plist", "Localizable.strings"],
                  stdout: .text("openstep.plist: OK\nLocalizable.strings: OK\n"), toolchain: .identical),
            .init(arguments: ["-convert", "xml1", "-o", "-", "openstep.plist"],
                  stdout: .value(["name": "A b", "list": ["1", "two", .data(Data([0, 1]))], "nested": ["k": "v"]]),
                  toolchain: .sameResult),
            .init(arguments: ["-convert", "json", "-o", "-", "Localizable.strings"],
                  stdout: .value(["hello": "Bonjour", "bye": "Au revoir"]), toolchain: .sameResult),
            .init(arguments: ["-extract", "nested.k", "raw", "openstep.plist"], stdout: .text("v\n"), toolchain: .identical),

            // Typedstream (NSArchiver) files: checked and shown, as archive-dump shows them.
            .init(arguments: ["-lint", "Emacs.clr"], stdout: .text("Emacs.clr: OK\n"),
                  toolchain: .differs("a typedstream is read and checked; the toolchain's refuses it"), needsCorpus: true),
            .init(arguments: ["-p", "Emacs.clr"], stdout: .prefix("typedstream: \"streamtyped\" (little-endian)"),
                  toolchain: .differs("a typedstream is shown as archive-dump shows it; the toolchain's refuses it"), needsCorpus: true),

            // Keyed archives
            .init(arguments: ["-lint", "archive.plist"], stdout: .text("archive.plist: OK\n")),
            .init(arguments: ["-lint", "broken-archive.plist"], stdout: .text("broken-archive.plist: OK\n"), toolchain: .identical),
            .init(arguments: ["-lint", "-archive", "broken-archive.plist"], status: 1, stderr: nil,
                  toolchain: .sameStatus("-archive checks the archive's rules too (here a UID past $objects); the toolchain's has no -archive and fails on it as a file it cannot read")),
            .init(arguments: ["-lint", "invalid-version.plist"], stdout: .text("invalid-version.plist: OK\n"), toolchain: .identical,
                  needsCorpus: true),
            .init(arguments: ["-lint", "-archive", "invalid-version.plist"], status: 1, stderr: nil,
                  toolchain: .sameStatus("-archive checks the archive's rules ($version must be 100000); the toolchain's fails on -archive as a file it cannot read"),
                  needsCorpus: true),
            .init(arguments: ["-lint", "-archive", "archive.plist"], stdout: .text("archive.plist: OK\n"),
                  toolchain: .differs("-archive is our option; the toolchain's takes it for a file")),
            .init(arguments: ["-p", "archive.plist"], stdout: .text("keyed archive: $archiver \"NSKeyedArchiver\", $version 100000, 2 entries in $objects\nroot: #1 \"hello\"\n"),
                  toolchain: .differs("a keyed archive is shown as its object tree, as archive-dump shows it; the toolchain's shows UIDs as memory addresses")),
            .init(arguments: ["-extract", "$top.root", "raw", "archive.plist"], stdout: .text("1\n"),
                  toolchain: .differs("a UID is printed as its number by raw; the toolchain's refuses it")),
            .init(arguments: ["-type", "$top.root", "archive.plist"], stdout: .text("uid\n"),
                  toolchain: .differs("the type of a UID is uid; the toolchain's prints (any)")),
            .init(arguments: ["-extract", "root", "raw", "archive.plist"], stdout: .text("hello\n"),
                  toolchain: .differs("a key path not starting with $ follows the archive's UIDs from $top; the toolchain's finds no key root")),
            .init(arguments: ["-type", "root", "archive.plist"], stdout: .text("string\n"),
                  toolchain: .differs("a key path not starting with $ follows the archive's UIDs from $top")),
            .init(arguments: ["-extract", "root.x", "raw", "archive.plist"], status: 1, stderr: nil,
                  toolchain: .sameStatusAndOutput("the message names the key path and the string with no members")),
            .init(arguments: ["-replace", "root", "-string", "bye", "archive.plist"],
                  files: ["archive.plist": try { var v = PlutilFixtures.archive; try v.replaceValue(at: "$objects.1", with: "bye"); return v }()],
                  toolchain: .differs(toolchainCannotWriteArchives)),
            .init(arguments: ["-extract", "root.array.3", "json", "-o", "-", "complex.plist"], stdout: .text(#"{"key":"val"}"#),
                  toolchain: .differs("the NSDictionary found through UIDs, as a plain dictionary"), needsCorpus: true),
            .init(arguments: ["-extract", "root.array.2", "raw", "complex.plist"], stdout: .text("34545\n"),
                  toolchain: .differs("a key path not starting with $ follows the archive's UIDs from $top"), needsCorpus: true),
            .init(arguments: ["-extract", "root", "xml1", "-o", "-", "complex.plist"], status: 1,
                  stderr: "complex.plist: key path 'root': an NSNull has no property-list form; a key path starting with $ ($objects.N) shows the archive as stored\n",
                  toolchain: .sameStatus("our message says what has no property-list form (the NSNull in root.array)"), needsCorpus: true),
            .init(arguments: ["-type", "root", "complex.plist"], stdout: .text("dictionary\n"),
                  toolchain: .differs("the type of the object root refers to"), needsCorpus: true),
            .init(arguments: ["-replace", "$objects.1", "-string", "bye", "archive.plist"],
                  files: ["archive.plist": try { var v = PlutilFixtures.archive; try v.replaceValue(at: "$objects.1", with: "bye"); return v }()],
                  toolchain: .differs(toolchainCannotWriteArchives)),
            .init(arguments: ["-remove", "$objects.1", "archive.plist"], status: 1, stderr: nil, unchanged: ["archive.plist"],
                  toolchain: .sameStatus("we refuse an edit that would break the archive's rules (here $top.root past $objects); "
                                         + toolchainCannotWriteArchives)),
            .init(arguments: ["-convert", "json", "-o", "-", "archive.plist"], status: 1, stderr: nil,
                  toolchain: .sameStatusAndOutput("the message names the UID")),
            .init(arguments: ["-convert", "binary1", "-o", "out.bplist", "complex.plist"],
                  files: ["out.bplist": Corpus.isAvailable ? try PropertyListValue(propertyListData: Corpus.data(complexArchive)) : [:]],
                  toolchain: .differs(toolchainCannotWriteArchives), needsCorpus: true),
            .init(arguments: ["-convert", "xml1", "-o", "-", "indexset.archive"], stdout: .prefix("<?xml"),
                  toolchain: .differs(toolchainCannotWriteArchives), needsCorpus: true),
            .init(arguments: ["-lint", "complex.plist", "indexset.archive"], stdout: .text("complex.plist: OK\nindexset.archive: OK\n"), needsCorpus: true),
            .init(arguments: ["-p", "complex.plist"], stdout: .prefix("keyed archive: $archiver \"NSKeyedArchiver\", $version 100000, 23 entries in $objects\nroot: #1 NSDictionary (4 entries)\n"),
                  toolchain: .differs("the object tree instead of UIDs as memory addresses"), needsCorpus: true),
        ]
    }

    static var plainCases: [ConformanceCase] { cases.filter { !$0.needsCorpus } }
    static var corpusCases: [ConformanceCase] { cases.filter(\.needsCorpus) }

    @Test(arguments: plainCases)
    func ourPlutilGivesTheDocumentedResult(_ row: ConformanceCase) throws {
        try runOurs(row)
    }

    @Test(.enabled(if: PlutilRunner.toolchain != nil, "the Swift toolchain's plutil is not beside swift"), arguments: plainCases)
    func theToolchainsPlutilAgreesOrDiffersAsDocumented(_ row: ConformanceCase) throws {
        try compareWithToolchain(row)
    }

    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus"), arguments: corpusCases)
    func ourPlutilGivesTheDocumentedResultOnCorpusArchives(_ row: ConformanceCase) throws {
        try runOurs(row)
    }

    @Test(.enabled(if: Corpus.isAvailable && PlutilRunner.toolchain != nil, "needs ../shared/corpus and the toolchain's plutil"),
          arguments: corpusCases)
    func theToolchainsPlutilAgreesOrDiffersAsDocumentedOnCorpusArchives(_ row: ConformanceCase) throws {
        try compareWithToolchain(row)
    }

    private func runOurs(_ row: ConformanceCase) throws {
        let fixtures = try PlutilFixtures.files()
        let runner = try PlutilRunner(files: fixtures)
        defer { runner.remove() }
        let result = try runner.run(try #require(PlutilRunner.built, "plutil not built next to the test bundle"), row.arguments, input: row.input)
        row.check(result, in: runner, fixtures: fixtures)
    }

    private func compareWithToolchain(_ row: ConformanceCase) throws {
        let fixtures = try PlutilFixtures.files()
        let ours = try PlutilRunner(files: fixtures), theirs = try PlutilRunner(files: fixtures)
        defer { ours.remove(); theirs.remove() }
        let ourResult = try ours.run(try #require(PlutilRunner.built), row.arguments, input: row.input)
        let theirResult = try theirs.run(try #require(PlutilRunner.toolchain), row.arguments, input: row.input)
        row.compare(toolchain: theirResult, in: theirs, with: ourResult, in: ours)
    }
}
