import Testing
import Foundation
@testable import ArchiveDumpCore
import KeyedArchive
import KeyedArchiveTestSupport

/// Every real file of the shared corpus that python3's plistlib reads is opened by the raw model (eager, on
/// demand, lazy) and shown by `archive-dump` in every mode without error; the files MANIFEST.md marks as
/// malformed or deliberately broken fail with the errors listed here, and no others fail.
///
/// The corpus's `typedstream/` folder holds NSArchiver (typedstream) files, which are not property lists:
/// every one is shown in every mode too (``everyCorpusTypedstreamFileIsShownInEveryMode()``), the one
/// MANIFEST.md marks as damaged failing with the reader's error and its byte offset. The files plistlib
/// cannot read are the ones MANIFEST.md lists under "Files that plistlib could not parse".
@Suite(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus"))
struct CorpusRegressionTests {
    /// Every output mode of the tool.
    static let modes: [[String]] = [[], ["--json"], ["--classes"], ["--validate"], ["--raw"], ["--json", "--raw"],
                                    ["--xml"], ["--binary"], ["--max-depth", "2"]]

    /// The modes that read the property list only (they show a broken archive as stored).
    static let propertyListModes: Set<[String]> = [["--raw"], ["--json", "--raw"], ["--xml"], ["--binary"]]

    /// Files whose keyed archive breaks the archive's rules (MANIFEST.md: bpylist2's error-case fixtures,
    /// kiler129's hand-edited `BrokenData/`): the first error, reported by every mode that reads the archive.
    /// (`BrokenData/objectWithNonArrayClassChain` is not among them: `$classes` is informational, as in
    /// Foundation's and GNUstep's readers, so a string there is shown, not refused.)
    static let brokenArchives: [String: String] = [
        "bpylist2/invalid_type_archive.plist":
            "$archiver must be \"NSKeyedArchiver\", found \"NSArchiver\" (other archivers' formats are not read)",
        "bpylist2/invalid_uid_archive.plist": "$top.root: UID 10 is out of range: $objects has 3 entries",
        "bpylist2/invalid_version_archive.plist": "$version must be 100000, found 10000",
        "bpylist2/no_class_meta_archive.plist": "$class (object #1): $class points at object #3, a string, not a class dictionary",
        "bpylist2/no_class_name_archive.plist": "$class (object #1): class dictionary #3 has no $classname",
        "bpylist2/no_objects_archive.plist": "$objects is missing",
        "bpylist2/no_top_archive.plist": "$top is missing",
        "kiler129-nskeyedunarchiver/BrokenData/invalidContainer.bin.plist": "$top must be a dictionary, found boolean",
        "kiler129-nskeyedunarchiver/BrokenData/invalidContainer.xml.plist": "$top must be a dictionary, found boolean",
        "kiler129-nskeyedunarchiver/BrokenData/invalidObjectDeclarationContainer.bin.plist":
            "$class (object #1): $class points at object #2, a boolean, not a class dictionary",
        "kiler129-nskeyedunarchiver/BrokenData/invalidObjectDeclarationContainer.xml.plist":
            "$class (object #1): $class points at object #2, a boolean, not a class dictionary",
        "kiler129-nskeyedunarchiver/BrokenData/invalidReference.bin.plist": "$top.root: UID 5 is out of range: $objects has 3 entries",
        "kiler129-nskeyedunarchiver/BrokenData/invalidReference.xml.plist": "$top.root: UID 5 is out of range: $objects has 3 entries",
        "kiler129-nskeyedunarchiver/BrokenData/objectWithNoClassName.bin.plist": "$class (object #1): class dictionary #2 has no $classname",
        "kiler129-nskeyedunarchiver/BrokenData/objectWithNoClassName.xml.plist": "$class (object #1): class dictionary #2 has no $classname",
        "kiler129-nskeyedunarchiver/BrokenData/objectWithNonStringClassName.bin.plist":
            "$class (object #1): $classname of class dictionary #2 must be a string, found integer",
        "kiler129-nskeyedunarchiver/BrokenData/objectWithNonStringClassName.xml.plist":
            "$class (object #1): $classname of class dictionary #2 must be a string, found integer",
    ]

    /// Files plistlib reads but CoreFoundation's rules (which the tool keeps) reject (MANIFEST.md: "Crafted/malformed",
    /// "invalid: NSData used as dictionary key"): the error every mode reports.
    static let malformedPropertyLists: [String: String] = [
        "rust-plist/binary_circular_array.plist":
            "property list: at byte 427: bplist: offset table of 233 entries x 1 bytes at 205 runs past the trailer at 419",
        "swift-foundation/Test_82142612.bad":
            "property list: object 0 at byte 9 at <key 0>: bplist: dictionary key is a data, not a string",
    ]

    /// The files plistlib cannot read (MANIFEST.md lists them under "Files that plistlib could not parse").
    static let filesPlistlibCannotRead: Set<String> = [
        "dd-plist/malformed/github-issue42.plist", "dd-plist/malformed/github-issue72.plist",
        "dd-plist/malformed/github-issue73-2.plist", "dd-plist/malformed/github-issue73-3.plist",
        "dd-plist/malformed/github-issue78.plist", "node-bplist-parser/sample1.bplist",
        "rust-plist/binary_zero_offset_size.plist",
    ]

    /// The files MANIFEST.md lists under "Files that plistlib could not parse".
    static func manifestsFilesPlistlibCannotRead() throws -> Set<String> {
        let manifest = try String(contentsOf: Corpus.url("MANIFEST.md"), encoding: .utf8)
        guard let start = manifest.range(of: "## Files that plistlib could not parse") else { return [] }
        let section = manifest[start.upperBound...]
        let end = section.range(of: "\n## ")?.lowerBound ?? section.endIndex
        var files: Set<String> = []
        for line in section[..<end].split(separator: "\n") where line.hasPrefix("| `") {
            files.insert(String(line.dropFirst(3).prefix { $0 != "`" }))
        }
        return files
    }

    /// The corpus files this test covers: property lists plistlib reads.
    static func propertyListFiles() -> [String] {
        Corpus.propertyListFiles().filter { !filesPlistlibCannotRead.contains($0) }
    }

    /// Runs the tool in-process (the code the executable's `main` runs) on corpus file `file`.
    static func dump(_ arguments: [String], _ file: String) -> (status: Int32, stdout: Data, stderr: String) {
        let out = DumpOutputCollector(), err = DumpOutputCollector()
        let status = ArchiveDumpCommand.run(arguments: arguments + [Corpus.url(file).path], input: { Data() },
                                            output: out.output, errors: err.output, outputIsTerminal: false)
        return (status, Data(out.bytes), err.text)
    }

    @Test(.enabled(if: Corpus.hasManifest, "needs the corpus's MANIFEST.md (a fetched corpus has the files only)"))
    func manifestListsTheSevenFilesPlistlibCannotRead() throws {
        let unreadable = try Self.manifestsFilesPlistlibCannotRead()
        #expect(unreadable == Self.filesPlistlibCannotRead)
        #expect(unreadable.contains("rust-plist/binary_zero_offset_size.plist"))
        #expect(unreadable.allSatisfy { Corpus.files().contains($0) })
    }

    @Test func everyCorpusPropertyListIsShownInEveryMode() throws {
        let files = Self.propertyListFiles()
        #expect(files.count >= 175)
        var shown = 0
        for file in files {
            let data = try Corpus.data(file)
            let keyed = ArchiveDumpCommand.isKeyedArchive((try? PropertyListValue(propertyListData: data)) ?? .array([]))
            for mode in Self.modes {
                let result = Self.dump(mode, file)
                let prefix = "Error: \(Corpus.url(file).path): "
                if let error = Self.malformedPropertyLists[file] {
                    #expect(result.status == 1 && result.stderr == prefix + error + "\n", "\(file) \(mode): \(result.stderr)")
                } else if let error = Self.brokenArchives[file], !Self.propertyListModes.contains(mode) {
                    let note = mode == ["--validate"] ? "" : " (use --raw to see the property list as stored)"
                    #expect(result.status == 1 && result.stderr == prefix + "keyed archive: " + error + note + "\n",
                            "\(file) \(mode): \(result.stderr)")
                } else if mode == ["--classes"], !keyed {
                    #expect(result.stderr == prefix + "not a keyed archive: it has no $archiver and $objects\n", "\(file)")
                } else {
                    #expect(result.status == 0 && result.stderr.isEmpty, "\(file) \(mode): \(result.stderr)")
                    // --classes of an archive without instances (a root string) prints nothing.
                    #expect(!result.stdout.isEmpty || mode == ["--classes"], "\(file) \(mode)")
                    shown += 1
                }
            }
        }
        #expect(shown > 1_300)
    }

    /// Typedstream files MANIFEST.md marks as damaged (crabstep's `ExtraData`: a block of text is missing, so
    /// a string's length runs past the end): the byte offset of the reader's first error.
    static let damagedTypedstreams: [String: Int] = ["typedstream/crabstep/ExtraData": 121]

    /// The corpus's typedstream files.
    static func typedstreamFiles() -> [String] {
        Corpus.files().filter { $0.hasPrefix("typedstream/") && !$0.hasSuffix(".md") }
    }

    @Test func everyCorpusTypedstreamFileIsShownInEveryMode() throws {
        let files = Self.typedstreamFiles()
        #expect(files.count == 84)
        var shown = 0
        for file in files {
            let data = try Corpus.data(file)
            #expect(TypedstreamRenderer.isTypedstream(data), "\(file)")
            let prefix = "Error: \(Corpus.url(file).path): "
            for mode in Self.modes {
                let result = Self.dump(mode, file)
                if mode == ["--xml"] || mode == ["--binary"] {
                    #expect(result.status == ArchiveDumpCommand.exitFailure && result.stdout.isEmpty, "\(file) \(mode)")
                    #expect(result.stderr == prefix + "a typedstream (NSArchiver) archive is not a property list; "
                            + "'\(mode[0])' cannot convert it\n", "\(file) \(mode)")
                } else if let offset = Self.damagedTypedstreams[file] {
                    var readerError: TypedstreamError?
                    do { _ = try TypedstreamArchive(data: data) } catch { readerError = error }
                    #expect(readerError?.byteOffset == offset, "\(file)")
                    #expect(result.status == 1 && result.stderr == prefix + "\(readerError.map { "\($0)" } ?? "")\n",
                            "\(file) \(mode): \(result.stderr)")
                    #expect(result.stderr.contains("byte \(offset)"), "\(file) \(mode)")
                } else {
                    #expect(result.status == 0 && result.stderr.isEmpty, "\(file) \(mode): \(result.stderr)")
                    let text = String(decoding: result.stdout, as: UTF8.self)
                    switch mode {
                    case ["--validate"]: #expect(text == "OK\n", "\(file)")
                    case ["--classes"]: #expect(!text.isEmpty, "\(file)")
                    case ["--json"], ["--json", "--raw"]:
                        #expect((try? JSONSerialization.jsonObject(with: result.stdout)) != nil, "\(file) \(mode)")
                        // --raw is the stored model; without it, the Foundation values when every top-level value has one.
                        let foundation = (try? TypedstreamUnarchiver().foundationValues(from: data)) != nil && mode == ["--json"]
                        let next = foundation ? ",\"$values\":[" : ",\"$classes\":["
                        #expect(text.hasPrefix("{\"$typedstream\":") && text.contains("\"$systemVersion\":1000" + next), "\(file) \(mode)")
                    default:
                        let byteOrder = data[data.startIndex + 2] == UInt8(ascii: "s") ? "\"streamtyped\" (little-endian)"
                            : "\"typedstream\" (big-endian)"
                        #expect(text.hasPrefix("typedstream: \(byteOrder), system version 1000, "), "\(file) \(mode)")
                    }
                    shown += 1
                }
            }
        }
        #expect(shown == 83 * (Self.modes.count - 2))
    }

    /// `--lenient` in every mode but `--validate` (which stays strict): what the strict dump shows is shown
    /// byte for byte the same; the broken archives are shown too, each damaged place listed and marked with
    /// the error the strict dump reports; the files that are no property list fail as before.
    @Test func everyCorpusPropertyListIsShownLenientlyInEveryMode() throws {
        var damagedShown = 0
        for file in Self.propertyListFiles() {
            let data = try Corpus.data(file)
            let keyed = ArchiveDumpCommand.isKeyedArchive((try? PropertyListValue(propertyListData: data)) ?? .array([]))
            for mode in Self.modes where mode != ["--validate"] {
                let strict = Self.dump(mode, file)
                let lenient = Self.dump(["--lenient"] + mode, file)
                let prefix = "Error: \(Corpus.url(file).path): "
                if let error = Self.malformedPropertyLists[file] {
                    #expect(lenient.status == 1 && lenient.stderr == prefix + error + "\n", "\(file) \(mode): \(lenient.stderr)")
                } else if mode == ["--classes"], !keyed {
                    #expect(lenient.status == 1, "\(file)")
                } else if let error = Self.brokenArchives[file], !Self.propertyListModes.contains(mode) {
                    #expect(lenient.status == 0 && lenient.stderr.isEmpty, "\(file) \(mode): \(lenient.stderr)")
                    let text = String(decoding: lenient.stdout, as: UTF8.self)
                    switch mode.first {
                    case "--classes"?: break  // counts only
                    case "--json"?: #expect(text.contains("\"$damage\":[" + ValueFormatting.jsonString(error)), "\(file): \(text)")
                    default: #expect(text.contains("\ndamaged: " + error + "\n"), "\(file): \(text)")
                    }
                    damagedShown += 1
                } else {
                    #expect(lenient.status == 0 && lenient.stdout == strict.stdout, "\(file) \(mode): \(lenient.stderr)")
                }
            }
        }
        #expect(damagedShown == Self.brokenArchives.count * 4)
        let validate = Self.dump(["--lenient", "--validate"], "bpylist2/invalid_uid_archive.plist")
        #expect(validate.status == 64)
        #expect(validate.stderr.hasPrefix("Error: '--validate' cannot be used with '--lenient'\n"))
    }

    @Test func everyCorpusKeyedArchiveOpensInTheRawModel() throws {
        var opened = 0
        for file in Self.propertyListFiles() where Self.malformedPropertyLists[file] == nil {
            let data = try Corpus.data(file)
            guard ArchiveDumpCommand.isKeyedArchive(try PropertyListValue(propertyListData: data)) else { continue }
            if let expected = Self.brokenArchives[file] {
                let error = try #require(throws: KeyedArchiveError.self, "\(file)") { try ArchivedObjectGraph(data: data) }
                #expect(expected.hasSuffix(error.message), "\(file): \(error)")
                #expect(throws: KeyedArchiveError.self, "\(file)") { try ArchivedObjectGraph(onDemand: data) }
                continue
            }
            let eager = try ArchivedObjectGraph(data: data)
            #expect(try ArchivedObjectGraph(onDemand: data) == eager, "\(file)")
            let lazy = try LazyArchivedObjectGraph(data: data)
            #expect(lazy.top == eager.top, "\(file)")
            for uid in eager.uids {
                #expect(try lazy.object(uid) == eager.object(uid), "\(file) #\(uid.value)")
            }
            opened += 1
        }
        // Every keyed archive of the corpus but the broken ones, the 20 compiled nibs of inline-top/ among them.
        #expect(opened >= 105)
    }
}
