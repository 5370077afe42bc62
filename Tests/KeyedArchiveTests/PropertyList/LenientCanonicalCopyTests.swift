import Foundation
import Testing
@testable import KeyedArchive

/// Object references wider than 8 bytes and offset-table entries inside the header that no reference leads
/// to: refused by the strict reader (no writer writes them), read when lenient as CoreFoundation reads them
/// (`CFBinaryPList.c`: each reference's low 8 bytes; an offset below 8 refused only where a reference leads
/// to it), which Foundation on Linux's `PropertyListSerialization` shows by reading the same files. The
/// lenient reader reads them through a rewritten copy; its errors still name the input's bytes.
@Suite struct LenientCanonicalCopyTests {
    typealias A = BinaryPropertyListAssembly
    typealias Rewrite = BinaryPropertyListRewrite

    static let lenient = WideOffsetTableTests.lenient
    static let int1: [UInt8] = [0x10, 0x05]

    /// What Foundation on Linux reads of `data`, or nil when it refuses it.
    static func foundationReads(_ data: Data) -> NSObject? { (try? WideOffsetTableTests.foundationReads(data)) ?? nil }

    /// A 9-byte object reference to object `r`.
    static func ref9(_ r: Int) -> [UInt8] { Rewrite.bigEndian(r, 9) }

    @Test(arguments: [(9, UInt8(0)), (16, UInt8(0)), (16, UInt8(0xAB)), (255, UInt8(0x7F))])
    func lenientReadsWideReferencesAsFoundationDoes(width: Int, high: UInt8) throws {
        let file = try WideOffsetTableTests.foundationFile()
        let wide = Rewrite.widened(file, referenceSize: width, high: high)
        try WideOffsetTableTests.checkLenientReadsAsFoundation(file, wide, refusedAt: wide.count - 32 + 7,
                                                                "object-reference size \(width) is not 1...8")
    }

    @Test func lenientReadsWideOffsetsAndReferencesTogether() throws {
        let file = try WideOffsetTableTests.foundationFile()
        let wide = Rewrite.widened(file, offsetSize: 12, referenceSize: 16, high: 0xFF)
        try WideOffsetTableTests.checkLenientReadsAsFoundation(file, wide, refusedAt: wide.count - 32 + 6, "offset size 12 is not 1...8")
    }

    /// plistlib reads a reference whole: it reads the widened file when the bytes above the low 8 are zero
    /// and refuses it otherwise (the reference is then past the object count).
    @Test(.requiresPlistlib, arguments: [(9, UInt8(0), true), (16, UInt8(0), true), (16, UInt8(0xAB), false)])
    func plistlibVerdictOnWideReferences(width: Int, high: UInt8, reads: Bool) throws {
        let wide = Rewrite.widened(try WideOffsetTableTests.foundationFile(), referenceSize: width, high: high)
        #expect(try ReaderRuleEvidenceTests.plistlibVerdict(Array(wide)) == (reads ? .accepts : .rejects))
    }

    @Test(arguments: [2, 0, 7])
    func lenientReadsUnreferencedHeaderEntryAsFoundationDoes(offset: Int) throws {
        let file = try WideOffsetTableTests.foundationFile()
        let extra = Rewrite.addingEntry(file, offset: offset)
        let t = Rewrite.trailer(Array(file))
        // Strict: the same refusal as before, at the new entry, before anything is decoded.
        let error = try #require(throws: PropertyListError.self) { try BinaryPropertyListReader().read(extra) }
        #expect(error.code == .invalidReference)
        #expect(error.location.byteOffset == t.tableOffset + t.count * t.offsetSize)
        #expect(error.location.objectNumber == t.count)
        #expect(error.message == "bplist: offset-table entry \(offset) is outside the object area 8..<\(t.tableOffset)")
        // Lenient: the value of the file Foundation wrote, which Foundation on Linux reads too.
        let expected = try BinaryPropertyListReader().read(file)
        #expect(try BinaryPropertyListReader(options: Self.lenient).read(extra) == expected)
        #expect(try PropertyListValue(propertyListData: extra, options: Self.lenient) == expected)
        #expect(try #require(Self.foundationReads(extra)).isEqual(Self.foundationReads(file)))
    }

    @Test(.requiresPlistlib) func plistlibReadsAnUnreferencedHeaderEntry() throws {
        let extra = Rewrite.addingEntry(try WideOffsetTableTests.foundationFile(), offset: 2)
        #expect(try ReaderRuleEvidenceTests.plistlibVerdict(Array(extra)) == .accepts)
    }

    /// `{"a": object 3}`, object 3's entry pointing into the header (byte 2).
    static let referencedHeaderEntry: [UInt8] = {
        var a = A(objects: [[0xD1, 0x01, 0x03], [0x51, 0x61], int1, int1])
        a.offsets = [3: 2]
        return a.bytes
    }()

    /// plistlib follows the entry into the header and reads its bytes as a value (a UTF-16 string from
    /// "list00..."): CF's refusal, not plistlib's reading, is the behaviour to follow.
    @Test(.requiresPlistlib) func plistlibReadsAReferencedHeaderEntryAsTheHeadersBytes() throws {
        #expect(try ReaderRuleEvidenceTests.plistlibVerdict(Self.referencedHeaderEntry) == .accepts)
    }

    /// A header entry that a reference leads to fails there, as in CF (and Foundation on Linux): the
    /// strict reader's error, with the key path where the read met it.
    @Test func referencedHeaderEntryFailsWhereItIsRead() throws {
        let bytes = Data(Self.referencedHeaderEntry)
        let strict = try #require(throws: PropertyListError.self) { try BinaryPropertyListReader().read(bytes) }
        let lenient = try #require(throws: PropertyListError.self) {
            try BinaryPropertyListReader(options: Self.lenient).read(bytes)
        }
        #expect(lenient.code == .invalidReference)
        #expect(lenient.message == strict.message)
        #expect(lenient.location.byteOffset == strict.location.byteOffset)
        #expect(lenient.location.byteOffset == 8 + 3 + 2 + 2 + 2 + 3)  // the table follows the four objects; entry 3
        #expect(lenient.location.objectNumber == 3)
        #expect(lenient.location.keyPath == "a")
        #expect(Self.foundationReads(bytes) == nil)
        #expect(ReaderRuleEvidenceTests.foundationVerdict(Array(bytes)) == .rejects)
    }

    /// CF checks the top object's entry up front (`__CFBinaryPlistGetTopLevelInfo`: at 8 or after).
    @Test func topObjectsHeaderEntryIsRefused() throws {
        var a = A(objects: [Self.int1, Self.int1])
        a.offsets = [0: 3]
        let bytes = Data(a.bytes)
        let error = try #require(throws: PropertyListError.self) { try BinaryPropertyListReader(options: Self.lenient).read(bytes) }
        #expect(error.code == .invalidReference)
        #expect(error.location.byteOffset == 12)
        #expect(error.location.objectNumber == 0)
        #expect(ReaderRuleEvidenceTests.foundationVerdict(Array(bytes)) == .rejects)
    }

    /// Errors in a rewritten file name the input's bytes: a reference in a copied container, an object
    /// after it (with a header entry, so the copy has its fill byte too), and a message with the table's offset.
    @Test func errorsNameTheInputsBytes() throws {
        var pastCount = A(objects: [[0xA2] + Self.ref9(1) + Self.ref9(7), Self.int1])
        pastCount.refSize = 9
        let reference = try #require(throws: PropertyListError.self) {
            try BinaryPropertyListReader(options: Self.lenient).read(Data(pastCount.bytes))
        }
        #expect(reference.code == .invalidReference)
        #expect(reference.location.byteOffset == 8 + 1 + 9)  // the array's second reference
        #expect(reference.location.objectNumber == 0)
        #expect(reference.location.keyPath == "[1]")

        var badMarker = A(objects: [[0xA2] + Self.ref9(1) + Self.ref9(2), Self.int1, [0x9F], Self.int1])
        badMarker.refSize = 9
        badMarker.offsets = [3: 5]
        let marker = try #require(throws: PropertyListError.self) {
            try BinaryPropertyListReader(options: Self.lenient).read(Data(badMarker.bytes))
        }
        #expect(marker.code == .invalidObject)
        #expect(marker.location.byteOffset == 8 + 19 + 2)  // object 2's marker
        #expect(marker.location.objectNumber == 2)
        #expect(marker.location.keyPath == "[1]")

        var truncated = A(objects: [[0xA1] + Self.ref9(1), [0x13, 0x00]])  // an 8-byte integer with 1 byte
        truncated.refSize = 9
        let tableOffset = 8 + 10 + 2
        let end = try #require(throws: PropertyListError.self) {
            try BinaryPropertyListReader(options: Self.lenient).read(Data(truncated.bytes))
        }
        #expect(end.code == .truncated)
        #expect(end.location.byteOffset == 8 + 10 + 1)
        #expect(end.message.hasSuffix("object area at \(tableOffset)"), "\(end)")
    }

    /// A container whose wide references do not fit the object area fails only where it is read, as in CF.
    @Test func containerWhoseReferencesDoNotFitFailsOnlyWhereItIsRead() throws {
        var unreferenced = A(objects: [[0xA1] + Self.ref9(1), Self.int1, [0xA3] + Self.ref9(1)])
        unreferenced.refSize = 9
        let bytes = Data(unreferenced.bytes)
        #expect(try BinaryPropertyListReader(options: Self.lenient).read(bytes) == .array([.integer(5)]))
        #expect(try #require(Self.foundationReads(bytes)).isEqual([5] as NSArray))

        var referenced = A(objects: [[0xA2] + Self.ref9(1) + Self.ref9(2), Self.int1, [0xA3] + Self.ref9(1)])
        referenced.refSize = 9
        let error = try #require(throws: PropertyListError.self) {
            try BinaryPropertyListReader(options: Self.lenient).read(Data(referenced.bytes))
        }
        #expect(error.code == .limitExceeded)
        #expect(error.location.byteOffset == 8 + 19 + 2 + 1)  // object 2's references
        #expect(error.location.objectNumber == 2)
        #expect(error.location.keyPath == "[1]")
        #expect(error.message == "bplist: array count 3 needs 27 bytes, more than the 9 left in the object area")
        #expect(ReaderRuleEvidenceTests.foundationVerdict(referenced.bytes) == .rejects)
    }

    /// Containers whose wide references overlap could make copies far larger than the file: refused before.
    @Test func overlappingWideContainersAreRefusedBeforeTheyGrow() throws {
        // 40 bytes of 0xA1: at each of 31 offsets an array of one 9-byte reference overlapping the next.
        var bytes = Array("bplist00".utf8) + Array(repeating: UInt8(0xA1), count: 40)
        bytes += (8 ... 38).map { UInt8($0) }
        bytes += [0, 0, 0, 0, 0, 0, 1, 9] + Rewrite.bigEndian(31, 8) + Rewrite.bigEndian(0, 8) + Rewrite.bigEndian(48, 8)
        let error = try #require(throws: PropertyListError.self) {
            try BinaryPropertyListReader(options: Self.lenient).read(Data(bytes))
        }
        #expect(error.code == .limitExceeded, "\(error)")
        #expect(ReaderRuleEvidenceTests.foundationVerdict(bytes) == .rejects)
    }

    /// Every binary file of the corpus that the strict reader reads, rewritten with 9-byte references (their
    /// upper byte set) and an unreferenced header entry, reads leniently to the same value: real files of
    /// every shape (archives, nibs, settings) through the copy.
    @Test(.requiresCorpus) func everyCorpusFileRewrittenReadsLenientlyToItsValue() throws {
        var checked = 0
        for file in Corpus.binaryFiles() {
            let data = try Corpus.data(file)
            guard let value = try? BinaryPropertyListReader().read(data) else { continue }
            let rewritten = Rewrite.addingEntry(Rewrite.widened(data, referenceSize: 9, high: 0xA5), offset: 3)
            #expect(throws: PropertyListError.self, "\(file)") { try BinaryPropertyListReader().read(rewritten) }
            #expect(try BinaryPropertyListReader(options: Self.lenient).read(rewritten) == value, "\(file)")
            checked += 1
        }
        #expect(checked > 100)
    }

    /// Foundation's keyed archive rewritten each way: `ArchivedObjectGraph(lenient:)` reads it as the
    /// strict graph of the original, with no damage, and Foundation unarchives it to the same object.
    @Test(arguments: ["references 9", "references 16", "offsets 12, references 16", "header entry"])
    func lenientGraphReadsARewrittenArchive(_ rewrite: String) throws {
        let root: NSDictionary = ["name": "x", "list": [1, 2, "shared"], "again": "shared",
                                  "when": NSDate(timeIntervalSinceReferenceDate: 1)]
        let archive = try NSKeyedArchiver.archivedData(withRootObject: root, requiringSecureCoding: false)
        let rewritten = switch rewrite {
        case "references 9": Rewrite.widened(archive, referenceSize: 9)
        case "references 16": Rewrite.widened(archive, referenceSize: 16, high: 0x5A)
        case "offsets 12, references 16": Rewrite.widened(archive, offsetSize: 12, referenceSize: 16)
        default: Rewrite.addingEntry(archive, offset: 4)
        }
        #expect(throws: KeyedArchiveError.self) { try ArchivedObjectGraph(data: rewritten) }
        let graph = try ArchivedObjectGraph(lenient: rewritten)
        #expect(graph == (try ArchivedObjectGraph(data: archive)))
        #expect(graph.damage.isEmpty)
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: rewritten)
        unarchiver.requiresSecureCoding = false
        #expect(unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey) as? NSDictionary == root)
    }
}
