import Foundation
import Testing
@testable import KeyedArchive

/// Every typedstream file of the shared corpus (`../shared/corpus/typedstream`, 84 Apple-written files: iMessage
/// attributedBody blobs, NSArchiver fixtures of Foundation's classes, Interface Builder 2 nibs of both byte
/// orders, a color list, Grapher documents) read, compared with pytypedstream, and written back.
@Suite("Typedstream corpus")
struct TypedstreamCorpusTests {
    /// The corpus's typedstream files, as paths relative to the corpus.
    static var files: [String] { Corpus.files().filter { $0.hasPrefix("typedstream/") } }

    /// The one damaged file: crabstep's `ExtraData` has a block of text cut out, so a string's length runs
    /// past the end (crabstep's own test expects an error; pytypedstream fails the same way).
    static let damaged = "typedstream/crabstep/ExtraData"

    @Test(.requiresCorpus)
    func everyFileReadsExceptTheDamagedOne() throws {
        let files = Self.files
        #expect(files.count == 84)
        var littleEndian = 0, bigEndian = 0
        for file in files {
            let data = try Corpus.data(file)
            if file == Self.damaged {
                #expect(throws: TypedstreamError.self) { try TypedstreamArchive(data: data) }
                do {
                    _ = try TypedstreamArchive(data: data)
                } catch {
                    #expect(error.code == .truncated, "\(error)")
                    #expect(error.byteOffset != nil)
                }
                continue
            }
            let archive: TypedstreamArchive
            do {
                archive = try TypedstreamArchive(data: data)
            } catch {
                Issue.record("\(file): \(error)")
                continue
            }
            #expect(archive.systemVersion == 1000, "\(file)")
            #expect(!archive.groups.isEmpty, "\(file)")
            if archive.byteOrder == .littleEndian { littleEndian += 1 } else { bigEndian += 1 }
        }
        #expect(littleEndian == 75)
        #expect(bigEndian == 8)
    }

    /// Apple's writer is deterministic: every file we read is written back byte for byte. No file is an
    /// exception (the damaged one is not read at all).
    @Test(.requiresCorpus)
    func everyFileIsWrittenBackByteForByte() throws {
        for file in Self.files where file != Self.damaged {
            let data = try Corpus.data(file)
            guard let archive = try? TypedstreamArchive(data: data) else {
                Issue.record("\(file) does not read")
                continue
            }
            let written = try archive.encodedData()
            if written != data {
                let firstDifference = zip(written, data).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(written.count, data.count)
                Issue.record("\(file): written \(written.count) bytes, read \(data.count); first difference at byte \(firstDifference)")
            }
            #expect(try TypedstreamArchive(data: written) == archive, "\(file)")
        }
    }

    /// pytypedstream's low-level event stream equals the one our model gives, for every file it reads: every
    /// type encoding, class name and version, integer, real, string, reference number and the nesting.
    /// Where it is incomplete, asserted as it behaves: `NumberInt64` uses the 8-byte integer tag `0x87`,
    /// which pytypedstream does not know (it stops there; we read `-9000000000`); the damaged file fails in both.
    @Test(.requiresCorpus, .requiresPytypedstream)
    func eventStreamsEqualPytypedstream() throws {
        let files = Self.files
        let readings = try PytypedstreamOracle.corpusReadings.get()
        for (file, reading) in zip(files, readings) {
            if file == Self.damaged {
                #expect(reading.readError != nil, "pytypedstream reads the damaged file")
                continue
            }
            let archive = try TypedstreamArchive(data: Corpus.data(file))
            if file == "typedstream/crabstep/foundation/NumberInt64" {
                #expect(reading.readError?.contains("0x87") == true, "\(reading.readError ?? "no error")")
                #expect(archive.objects.first?.groups.last?.values == [.integer(-9_000_000_000)])
                continue
            }
            guard reading.readError == nil, let header = reading.header else {
                Issue.record("\(file): pytypedstream: \(reading.readError ?? "no header")")
                continue
            }
            #expect(header["byteOrder"] as? String == (archive.byteOrder == .littleEndian ? "little" : "big"), "\(file)")
            #expect(header["systemVersion"] as? Int == archive.systemVersion, "\(file)")
            let theirs = reading.events.map(TypedstreamEvents.normalized)
            let ours = TypedstreamEvents.events(of: archive)
            #expect(theirs.count > 3, "\(file): pytypedstream gave \(theirs.count) events")
            if theirs != ours {
                let index = zip(theirs, ours).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(theirs.count, ours.count)
                let their = index < theirs.count ? theirs[index] : "(end)"
                let our = index < ours.count ? ours[index] : "(end)"
                Issue.record("\(file): event \(index) differs: pytypedstream \(their), ours \(our)")
            }
        }
    }
}

extension TypedstreamCorpusTests {
    /// Every top-level value pytypedstream's unarchiver decodes equals ours (``TypedstreamValueForm`` says how
    /// the two forms are compared), for every file where both make a value: strings, numbers of every width,
    /// data, dates, URLs, containers, NSValues, colors, fonts, attributed strings with every run and
    /// attribute. Where ours stops at a class that has no Foundation value (nib objects, Grapher's classes,
    /// custom classes), pytypedstream's value holds a class of that kind too (a generic or nib object).
    /// Where pytypedstream stops (it has no NSAttributedString class, rejects some nib fields, lacks `0x87`),
    /// that is asserted as it behaves.
    @Test(.requiresCorpus, .requiresPytypedstream)
    func decodedValuesEqualPytypedstream() throws {
        let files = Self.files
        let readings = try PytypedstreamOracle.corpusReadings.get()
        var compared = 0, attributedBodies = 0
        for (file, reading) in zip(files, readings) where file != Self.damaged && reading.readError == nil {
            guard let decoded = reading.decoded else {
                // pytypedstream's unarchiver stops on some nibs (a boolean field stored as 3, an NSCustomObject
                // it cannot place); ours stops there too, at the nib's own classes.
                #expect(reading.decodeError != nil)
                #expect(throws: TypedstreamError.self) { try TypedstreamUnarchiver().foundationValues(from: Corpus.data(file)) }
                continue
            }
            let archive = try TypedstreamArchive(data: Corpus.data(file))
            let theirGroups = decoded.compactMap { ($0 as? [Any])?.last as? [Any] }
            #expect(theirGroups.count == archive.groups.count, "\(file)")
            for (group, theirs) in zip(archive.groups, theirGroups) {
                #expect(group.values.count == theirs.count, "\(file)")
                for (value, their) in zip(group.values, theirs) {
                    let theirForm = TypedstreamValueForm.string(TypedstreamValueForm.oracle(their))
                    do {
                        let ours = try TypedstreamUnarchiver().foundationValues(of: [value], in: archive)[0]
                        let ourForm = TypedstreamValueForm.string(TypedstreamValueForm.ours(ours))
                        #expect(ourForm == theirForm, "\(file)")
                        compared += 1
                        if theirForm.hasPrefix("[{\"attributedString\"") { attributedBodies += 1 }
                    } catch {
                        #expect(theirForm.contains("{\"object\":") || theirForm.contains("{\"known\":"),
                                "\(file): ours failed (\(error)) where pytypedstream decoded \(theirForm.prefix(300))")
                    }
                }
            }
        }
        // The 29 Foundation fixtures but NumberInt64 (one is an NSAttributedString), the 38 readable
        // attributedBody blobs, the color list's values.
        #expect(attributedBodies == 38 + 1)
        #expect(compared >= 28 + 38 + 2)
    }
}

extension TypedstreamCorpusTests {
    /// With ``TypedstreamUnarchiver/keepsUnknownObjects``, every file that reads reads into Foundation values:
    /// objects of classes with no Foundation value (the nibs' `NSIBObjectData` and Interface Builder objects,
    /// Grapher's classes) become ``ArchivedTypedstreamObject``s. Written back from those values, a file whose
    /// one top-level value is such an object gives Apple's bytes: nothing of it was lost.
    @Test(.requiresCorpus)
    func everyFileReadsIntoValuesKeepingUnknownObjects() throws {
        var unarchiver = TypedstreamUnarchiver()
        unarchiver.keepsUnknownObjects = true
        var kept = 0, rewritten = 0
        for file in Self.files where file != Self.damaged {
            let data = try Corpus.data(file)
            let values: [FoundationValue]
            do {
                values = try unarchiver.foundationValues(from: data)
            } catch {
                Issue.record("\(file): \(error)")
                continue
            }
            let archive = try TypedstreamArchive(data: data)
            #expect(values.count == archive.groups.flatMap(\.values).count, "\(file)")
            guard values.count == 1, let root = values[0].catalogued(as: ArchivedTypedstreamObject.self) else { continue }
            kept += 1
            #expect(root.objectIndex == 0 && root.archive == archive, "\(file)")
            #expect(root.classChain.first?.name == archive.className(ofObjectAt: 0), "\(file)")
            var archiver = TypedstreamArchiver()
            archiver.byteOrder = archive.byteOrder   // 8 of the nibs are big-endian
            let written = try archiver.archivedData(withRootValue: values[0])
            if written == data {
                rewritten += 1
            } else {
                let firstDifference = zip(written, data).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(written.count, data.count)
                Issue.record("\(file): written back from its values, \(written.count) bytes for \(data.count); first difference at byte \(firstDifference)")
            }
        }
        // The 12 nibs are one NSIBObjectData each.
        #expect(kept == 12)
        #expect(rewritten == kept)
    }

    /// Without it, such a class is an error naming it, as before: nothing is read as what it is not.
    @Test(.requiresCorpus)
    func unknownClassIsAnErrorByDefault() throws {
        let file = try #require(Self.files.first { $0.hasSuffix("objects.nib") })
        #expect {
            try TypedstreamUnarchiver().foundationValues(from: Corpus.data(file))
        } throws: { error in
            (error as? TypedstreamError)?.message.contains("has no Foundation value") == true
        }
    }
}
