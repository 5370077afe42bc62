import Foundation
import Testing
@testable import KeyedArchive

/// ``TypedstreamArchiver`` writes Foundation values that ``TypedstreamUnarchiver`` and pytypedstream read
/// back equal: every Foundation value of the corpus's typedstream files, and values of every class built here.
@Suite("Typedstream archiver")
struct TypedstreamArchiverTests {
    /// Every top-level Foundation value of the corpus (the Foundation fixtures, the 38 readable attributedBody
    /// blobs, the color list's names and colors), paired with its file.
    static func corpusValues() throws -> [(file: String, value: FoundationValue)] {
        var result: [(String, FoundationValue)] = []
        for file in TypedstreamCorpusTests.files where file != TypedstreamCorpusTests.damaged {
            let archive = try TypedstreamArchive(data: Corpus.data(file))
            for value in archive.groups.flatMap(\.values) {
                if let converted = try? TypedstreamUnarchiver().foundationValues(of: [value], in: archive)[0] {
                    result.append((file, converted))
                }
            }
        }
        return result
    }

    @Test(.requiresCorpus)
    func corpusValuesRoundTrip() throws {
        let values = try Self.corpusValues()
        #expect(values.count >= 28 + 38)
        for (file, value) in values {
            let data = try TypedstreamArchiver().archivedData(withRootValue: value)
            #expect(try TypedstreamUnarchiver().foundationValue(from: data) == value, "\(file)")
        }
    }

    /// Values written from the Foundation fixtures that hold only what a ``FoundationValue`` keeps are
    /// Apple's bytes. The others differ for a reason the value does not carry: a mutable class
    /// (NSMutableString, NSMutableArray...), an NSNumber stored as `i`, `f`, `c` where the archiver writes `q`
    /// or `d`, dictionary entries in Apple's hash order, or an NSString shared by identity.
    @Test(.requiresCorpus)
    func foundationFixturesOfPlainValuesAreApplesBytes() throws {
        let same = ["NSString", "NSData", "NSDate", "NSDateFractional", "NumberDouble", "NSArrayEmpty", "NSURL", "NSURLRelative"]
        for name in same {
            let file = "typedstream/crabstep/foundation/" + name
            let data = try Corpus.data(file)
            let value = try TypedstreamUnarchiver().foundationValue(from: data)
            #expect(try TypedstreamArchiver().archivedData(withRootValue: value) == data, "\(file)")
        }
    }

    /// pytypedstream reads what we write from the corpus's values as the same values (but the 8-byte integer
    /// form, which it lacks).
    @Test(.requiresCorpus, .requiresPytypedstream)
    func pytypedstreamReadsWrittenValues() throws {
        let values = try Self.corpusValues()
        let folder = try TemporaryDirectory.create("typedstream-archiver")
        defer { TemporaryDirectory.remove(folder) }
        var urls: [URL] = []
        for (i, (_, value)) in values.enumerated() {
            let url = folder.appendingPathComponent("\(i)")
            try TypedstreamArchiver().archivedData(withRootValue: value).write(to: url)
            urls.append(url)
        }
        let readings = try PytypedstreamOracle.read(files: urls)
        for ((file, value), reading) in zip(values, readings) {
            if file.hasSuffix("foundation/NumberInt64") {
                // -9,000,000,000 needs the 8-byte form, which pytypedstream does not read.
                #expect(reading.readError?.contains("0x87") == true, "\(reading.readError ?? "read")")
                continue
            }
            guard let decoded = reading.decoded, let group = decoded.first as? [Any], let their = (group.last as? [Any])?.first else {
                Issue.record("\(file): pytypedstream: \(reading.readError ?? reading.decodeError ?? "nothing")")
                continue
            }
            #expect(TypedstreamValueForm.string(TypedstreamValueForm.ours(value))
                    == TypedstreamValueForm.string(TypedstreamValueForm.oracle(their)), "\(file)")
        }
    }

    @Test func everyWrittenClassRoundTrips() throws {
        let link = try #require(URL(string: "https://example.com"))
        let base = try #require(URL(string: "https://x.org/a/"))
        let relative = try #require(URL(string: "b/c", relativeTo: base))
        let text = try ArchivedAttributedString(string: "héllo 👋", runs: [
            .init(range: 0 ..< 2, attributes: ["bold": .integer(1)]),
            .init(range: 2 ..< 6, attributes: [:]),
            .init(range: 6 ..< 8, attributes: ["bold": .integer(1), "link": .url(link)]),
        ])
        let values: [FoundationValue] = [
            .string("ü"), .integer(-9_000_000_000), .integer(PropertyListInteger(UInt64.max)), .real(0.1), .data(Data([0, 255])),
            .date(Date(timeIntervalSinceReferenceDate: 12.5)), .url(relative),
            .null, .array([.string("a"), .null]), .set([.string("b"), .string("a")]),
            .dictionary([.string("k"): .integer(1), .string("j"): .array([])]),
            .specialValue(ArchivedSpecialValue(range: 2 ..< 5)),
            .specialValue(ArchivedSpecialValue(.rect(x: 1, y: 2, width: 3, height: 4))),
            .color(ArchivedColor(.rgb(red: 0.5, green: 0.25, blue: 1, alpha: 1, calibrated: true))),
            .color(ArchivedColor(.catalog(catalogName: "System", colorName: "red", fallback: ArchivedColor(.white(white: 0, alpha: 1, calibrated: false))))),
            .font(ArchivedFont(name: "Lucida Grande", size: 13, flags: 0x1000_0000)),
            .attributedString(text),
        ]
        for order in [TypedstreamArchive.ByteOrder.littleEndian, .bigEndian] {
            var archiver = TypedstreamArchiver()
            archiver.byteOrder = order
            for value in values {
                let data = try archiver.archivedData(withRootValue: value)
                #expect(try TypedstreamUnarchiver().foundationValue(from: data) == value, "\(value)")
            }
        }
    }

    @Test func deepValueIsRefusedPastTheLimit() throws {
        var value = FoundationValue.null
        for _ in 0 ..< 200 { value = .array([value]) }
        var archiver = TypedstreamArchiver()
        archiver.maximumDepth = 100
        #expect(throws: TypedstreamError.self) { try archiver.archivedData(withRootValue: value) }
        archiver.maximumDepth = 1_000
        #expect(try TypedstreamUnarchiver().foundationValue(from: archiver.archivedData(withRootValue: value)) == value)
    }
}

extension TypedstreamArchiverTests {
    /// NSValues of every kind the unarchiver reads, each as `NSValue(bytes:objCType:)` stores it.
    static let everyNSValueKind: [ArchivedSpecialValue] = [
        ArchivedSpecialValue(range: 2 ..< 5),
        ArchivedSpecialValue(.point(x: 1.5, y: -2)),
        ArchivedSpecialValue(.size(width: 3, height: 0.25)),
        ArchivedSpecialValue(.rect(x: 1, y: 2, width: 3, height: 4)),
        ArchivedSpecialValue(.edgeInsets(top: 1, left: 2.5, bottom: 3, right: 4)),
        ArchivedSpecialValue(.objCValue(.init(typeEncoding: "i", elements: [.integer(-7)]))),
        ArchivedSpecialValue(.objCValue(.init(typeEncoding: "d", elements: [.real(0.1)]))),
        ArchivedSpecialValue(.objCValue(.init(typeEncoding: "[3i]", elements: [.integer(1), .integer(2), .integer(3)]))),
        ArchivedSpecialValue(.objCValue(.init(typeEncoding: "[2f]", elements: [.real(0.5), .real(-1)]))),
        ArchivedSpecialValue(.objCValue(.init(typeEncoding: "[4c]", elements: [.integer(-1), .integer(0), .integer(127), .integer(-128)]))),
        ArchivedSpecialValue(.objCValue(.init(typeEncoding: "[3C]", elements: [.unsignedInteger(0), .unsignedInteger(128), .unsignedInteger(255)]))),
    ]

    @Test func everyNSValueKindRoundTrips() throws {
        for order in [TypedstreamArchive.ByteOrder.littleEndian, .bigEndian] {
            var archiver = TypedstreamArchiver()
            archiver.byteOrder = order
            for special in Self.everyNSValueKind {
                let data = try archiver.archivedData(withRootValue: .specialValue(special))
                #expect(try TypedstreamUnarchiver().foundationValue(from: data) == .specialValue(special), "\(special)")
            }
        }
    }

    /// Edge insets are stored as `{NSEdgeInsets=dddd}`, the type encoding Apple's compilers give `NSEdgeInsets`
    /// on 64-bit macOS; a `[Nc]` array as its N bytes after the type, as pytypedstream's reader
    /// (`_read_value_with_encoding`) and NSData's `[Nc]` content in the corpus show.
    @Test func edgeInsetsAndByteArraysAreStoredInTheirTypes() throws {
        let insets = try TypedstreamArchiver().archive(withRootValue: .specialValue(Self.everyNSValueKind[4]))
        #expect(insets.objects[0].groups.map(\.encoding) == ["*", "{NSEdgeInsets=dddd}"])
        #expect(insets.objects[0].groups[1].values == [.structure([.double(1), .double(2.5), .double(3), .double(4)])])
        let bytes = try TypedstreamArchiver().archive(withRootValue: .specialValue(Self.everyNSValueKind[9]))
        #expect(bytes.objects[0].groups[1] == TypedstreamGroup(encoding: "[4c]", values: [.byteArray(Data([0xFF, 0, 0x7F, 0x80]))]))
        // The group's type refers to the shared string the NSValue's type C string stored; the bytes follow it,
        // then the object's end.
        #expect(try bytes.encodedData().suffix(5) == Data([0xFF, 0, 0x7F, 0x80, TypedstreamTag.endOfObject]))
        // A byte array element that is not a byte is refused, not truncated.
        let wide = ArchivedSpecialValue(.objCValue(.init(typeEncoding: "[1c]", elements: [.integer(300)])))
        #expect(throws: TypedstreamError.self) { try TypedstreamArchiver().archivedData(withRootValue: .specialValue(wide)) }
    }

    /// pytypedstream reads every NSValue kind we write as the same value.
    @Test(.requiresPytypedstream)
    func pytypedstreamReadsEveryNSValueKind() throws {
        let folder = try TemporaryDirectory.create("typedstream-nsvalue")
        defer { TemporaryDirectory.remove(folder) }
        var urls: [URL] = []
        for (i, special) in Self.everyNSValueKind.enumerated() {
            let url = folder.appendingPathComponent("\(i)")
            try TypedstreamArchiver().archivedData(withRootValue: .specialValue(special)).write(to: url)
            urls.append(url)
        }
        let readings = try PytypedstreamOracle.read(files: urls)
        for (special, reading) in zip(Self.everyNSValueKind, readings) {
            guard let decoded = reading.decoded, let group = decoded.first as? [Any], let their = (group.last as? [Any])?.first else {
                Issue.record("\(special): pytypedstream: \(reading.readError ?? reading.decodeError ?? "nothing")")
                continue
            }
            #expect(TypedstreamValueForm.string(TypedstreamValueForm.ours(.specialValue(special)))
                    == TypedstreamValueForm.string(TypedstreamValueForm.oracle(their)), "\(special)")
        }
    }
}

extension TypedstreamArchiverTests {
    /// Kept objects of one archive that hold one object between them, and a kept object met twice, are
    /// written as NSArchiver writes objects: each once, then referred to. (Copied apart, the shared `Leaf`
    /// would be written twice and the second `Holder` would hold a copy.)
    @Test func keptObjectsOfOneArchiveShareWhatTheyHold() throws {
        let archive = TypedstreamArchive(
            classes: [TypedstreamClass(name: "Holder", version: 1, superclass: nil), TypedstreamClass(name: "Leaf", version: 2, superclass: nil)],
            objects: [
                TypedstreamObject(classIndex: 0, groups: [TypedstreamGroup(encoding: "@", values: [.object(1)])]),
                TypedstreamObject(classIndex: 1, groups: [TypedstreamGroup(encoding: "i", values: [.integer(7)])]),
                TypedstreamObject(classIndex: 0, groups: [TypedstreamGroup(encoding: "@", values: [.objectReference(1)])]),
            ],
            groups: [TypedstreamGroup(encoding: "@", values: [.object(0)]), TypedstreamGroup(encoding: "@", values: [.object(2)]),
                     TypedstreamGroup(encoding: "@", values: [.objectReference(0)])])
        var unarchiver = TypedstreamUnarchiver()
        unarchiver.keepsUnknownObjects = true
        let kept = try unarchiver.foundationValues(from: archive.encodedData())
        try #require(kept.count == 3)
        let written = try TypedstreamArchiver().archivedData(withRootValue: .array(kept))

        let back = try TypedstreamArchive(data: written)
        let names = back.objects.indices.map { back.className(ofObjectAt: $0) }
        #expect(names == ["NSArray", "Holder", "Leaf", "Holder"])
        let (first, leaf, second) = (1, 2, 3)
        #expect(back.objects[first].groups == [TypedstreamGroup(encoding: "@", values: [.object(leaf)])])
        #expect(back.objects[second].groups == [TypedstreamGroup(encoding: "@", values: [.objectReference(leaf)])])
        #expect(back.objects[leaf].groups == [TypedstreamGroup(encoding: "i", values: [.integer(7)])])
        // The array's third element is a reference to its first.
        let elements = back.objects[0].groups.flatMap(\.values).filter {
            if case .object = $0 { return true }
            if case .objectReference = $0 { return true }
            return false
        }
        #expect(elements == [.object(first), .object(second), .objectReference(first)])
        let readBack = try unarchiver.foundationValue(from: written)
        let objects = try #require(readBack.array?.compactMap { $0.catalogued(as: ArchivedTypedstreamObject.self) })
        #expect(objects.map(\.objectIndex) == [first, second, first])
    }

    /// A chain of 9,000 objects of a class with no Foundation value, each stored inside the previous (the
    /// nesting a hostile file can have within the default limits), is read as one kept object and written back
    /// byte for byte on a thread sized for it; past ``TypedstreamArchiver/maximumDepth`` it is refused.
    @Test func deepChainOfKeptObjectsIsWrittenBackAndTheDepthLimitHolds() throws {
        let count = 9_000
        let archive = TypedstreamArchive(
            classes: [TypedstreamClass(name: "Link", version: 3, superclass: nil)],
            objects: (0 ..< count).map { i in
                TypedstreamObject(classIndex: 0, groups: [
                    TypedstreamGroup(encoding: "{Wrap=[1@]}", values: [.structure([.array([i + 1 < count ? .object(i + 1) : .objectReference(0)])])]),
                ])
            },
            groups: [TypedstreamGroup(encoding: "@", values: [.object(0)])])
        let data = try archive.encodedData()
        var unarchiver = TypedstreamUnarchiver()
        unarchiver.keepsUnknownObjects = true
        let value = try unarchiver.foundationValue(from: data)
        #expect(value.catalogued(as: ArchivedTypedstreamObject.self)?.classChain == [TypedstreamClassVersion(name: "Link", version: 3)])
        var archiver = TypedstreamArchiver()
        archiver.maximumDepth = 3 * count + 1
        #expect(try archiver.archivedData(withRootValue: value) == data)
        // Each object counts with its struct and array: 3 levels per link.
        archiver.maximumDepth = 3 * count - 1
        #expect {
            try archiver.archivedData(withRootValue: value)
        } throws: { error in
            (error as? TypedstreamError)?.code == .limitExceeded
        }
    }
}
