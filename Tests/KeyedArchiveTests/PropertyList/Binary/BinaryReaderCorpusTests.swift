import Foundation
import Testing
@testable import KeyedArchive

/// Every binary file of the shared corpus, read by our reader and by Python's plistlib.
@Suite struct BinaryReaderCorpusTests {
    /// Files plistlib reads but ours rejects on purpose, with the error code we give.
    static let expectedRejections: [String: PropertyListError.Code] = [
        // Crafted: arrays that contain themselves, and a trailer claiming 233 objects whose offset table
        // (205 + 233 bytes) runs into the trailer itself. plistlib reads the table through the trailer and
        // builds a recursive list; ours (like CF) requires the table to end before the trailer, lenient or
        // not. Its object area also holds markers CF does not decode (0x7n, 0xBn); no Apple file does.
        "rust-plist/binary_circular_array.plist": .invalidTrailer,
        // Apple's fixture for rdar://82142612: a data object used as a dictionary key. plistlib accepts
        // bytes keys; Foundation and ours reject it.
        "swift-foundation/Test_82142612.bad": .invalidKey,
    ]

    @Test(.requiresCorpus, .requiresPlistlib) func everyBinaryFilePlistlibReadsDecodesToTheSameValue() throws {
        let files = Corpus.binaryFiles()
        #expect(files.count >= 130)
        let oracle = try PlistlibOracle.read(files: files.map(Corpus.url))
        var compared = 0
        for (file, expected) in zip(files, oracle) {
            let data = try Corpus.data(file)
            if let code = Self.expectedRejections[file] {
                #expect(throws: PropertyListError.self, "\(file)") { try BinaryPropertyListReader().read(data) }
                do {
                    _ = try BinaryPropertyListReader().read(data)
                } catch let error as PropertyListError {
                    #expect(error.code == code, "\(file): \(error)")
                }
                continue
            }
            guard case .value(let theirs) = expected else { continue }  // the 7 rejections: see below
            do {
                let ours = try BinaryPropertyListReader().read(data)
                let diffs = PlistlibOracle.differences(ours, theirs)
                #expect(diffs.isEmpty, "\(file): \(diffs.prefix(5).joined(separator: "; "))")
                compared += 1
            } catch {
                Issue.record("\(file): our reader failed where plistlib succeeded: \(error)")
            }
        }
        #expect(compared >= 120)
    }

    /// Every documented binary file reads under the strict (default) rules except the malformed ones listed
    /// here, and the lenient option reads each of those files to the same value.
    @Test(.requiresCorpus) func everyWellFormedBinaryFileReadsStrictlyAndLenientlyAlike() throws {
        let malformed: Set<String> = Set(Self.expectedRejections.keys).union([
            "dd-plist/malformed/github-issue42.plist", "dd-plist/malformed/github-issue72.plist",
            "dd-plist/malformed/github-issue73-2.plist", "dd-plist/malformed/github-issue73-3.plist",
            "dd-plist/malformed/github-issue78.plist", "rust-plist/binary_zero_offset_size.plist",
        ])
        var lenient = PropertyListReadingOptions()
        lenient.isLenient = true
        var read = 0
        for file in Corpus.binaryFiles() {
            let data = try Corpus.data(file)
            if malformed.contains(file) {
                #expect(throws: PropertyListError.self, "\(file)") { try BinaryPropertyListReader().read(data) }
                continue
            }
            do {
                let strict = try BinaryPropertyListReader().read(data)
                let relaxed = try BinaryPropertyListReader(options: lenient).read(data)
                #expect(strict == relaxed, "\(file)")
                read += 1
            } catch {
                Issue.record("\(file): \(error)")
            }
        }
        #expect(read >= 120)
    }

    /// Every file in the corpus folder, documented or not (fuzzer output may sit beside the real files),
    /// ends in a value or a `PropertyListError`: never a crash, hang or other error.
    @Test(.requiresCorpus) func everyFileInTheCorpusFolderEndsInAValueOrAnError() throws {
        let enumerator = FileManager.default.enumerator(at: Corpus.directory, includingPropertiesForKeys: nil)
        var checked = 0
        while let url = enumerator?.nextObject() as? URL {
            guard let data = try? Data(contentsOf: url), data.starts(with: Array("bplist".utf8)) else { continue }
            do {
                _ = try BinaryPropertyListReader().read(data)
            } catch is PropertyListError {
                // a clean rejection
            } catch {
                Issue.record("\(url.lastPathComponent): unexpected error \(error)")
            }
            checked += 1
        }
        #expect(checked >= 130)
    }

    /// The 7 files plistlib rejects (corpus/MANIFEST.md), and what ours does with each.
    @Test(.requiresCorpus, arguments: [
        // Trailer claims 8247051269959066735 objects and offset size 118.
        ("dd-plist/malformed/github-issue42.plist", PropertyListError.Code.invalidTrailer),
        // Trailer offset size 0.
        ("dd-plist/malformed/github-issue72.plist", .invalidTrailer),
        // Header "bplist" + 0xC3 0x9A: not bplist0x.
        ("dd-plist/malformed/github-issue73-2.plist", .unknownFormat),
        // 7 bytes "bplistl".
        ("dd-plist/malformed/github-issue73-3.plist", .unknownFormat),
        // "bplist01" (a header CF accepts) whose trailer's top object 17592186044417 is past its 1 object,
        // so the reader stops at the trailer, before the non-string key the file is named for.
        ("dd-plist/malformed/github-issue78.plist", .invalidTrailer),
        // Trailer offset size 0.
        ("rust-plist/binary_zero_offset_size.plist", .invalidTrailer),
    ])
    func malformedCorpusFilesAreRejected(file: String, code: PropertyListError.Code) throws {
        let data = try Corpus.data(file)
        do {
            let value = try BinaryPropertyListReader().read(data)
            Issue.record("\(file) read as \(value.kindName), expected \(code)")
        } catch let error as PropertyListError {
            #expect(error.code == code, "\(file): \(error)")
        }
    }

    /// node-bplist-parser/sample1.bplist puts UTF-8 bytes in ASCII (0x5n) strings. plistlib rejects it;
    /// ours decodes such strings as UTF-8 (see BinaryPropertyListReader's notes), so the file reads.
    @Test(.requiresCorpus) func utf8BytesInAsciiStringsAreReadAsUTF8() throws {
        let data = try Corpus.data("node-bplist-parser/sample1.bplist")
        let value = try BinaryPropertyListReader().read(data)
        let dictionary = try #require(value.dictionaryValue)
        let strings = dictionary.values.compactMap(\.stringValue)
        let nonASCII = strings.filter { $0.unicodeScalars.contains { $0.value >= 0x80 } }
        #expect(!nonASCII.isEmpty)
        // Each such string is exactly the UTF-8 decoding of its bytes in the file.
        for s in nonASCII {
            let bytes = Array(s.utf8)
            #expect(data.range(of: Data(bytes)) != nil, "\(s) not found as UTF-8 in the file")
        }
    }
}
