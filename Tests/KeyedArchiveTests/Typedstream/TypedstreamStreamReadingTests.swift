import Foundation
import Testing
@testable import KeyedArchive

/// ``TypedstreamUnarchiver`` reads Foundation values straight from the stream (``TypedstreamStreamSource``)
/// and falls back to the raw model (``TypedstreamArchive``) for anything else: both paths must give the same
/// values, and every failure must be the raw model's error (with its byte offset).
@Suite("Typedstream stream reading")
struct TypedstreamStreamReadingTests {
    typealias Hostile = TypedstreamHostileInputTests

    /// The top-level values read from the stream (nil: the stream path declined).
    static func streamed(_ data: Data, rootOnly: Bool = false, limits: KeyedUnarchiver.Limits = .init()) -> [FoundationValue]? {
        TypedstreamStreamSource.foundationValues(from: data, limits: limits, rootOnly: rootOnly)
    }

    static func rawModelValues(_ data: Data) -> Result<[FoundationValue], TypedstreamError> {
        Result { () throws(TypedstreamError) in try TypedstreamUnarchiver().valuesThroughRawModel(from: data) }
    }

    static func rawModelRoot(_ data: Data, _ unarchiver: TypedstreamUnarchiver = .init()) -> Result<FoundationValue, TypedstreamError> {
        Result { () throws(TypedstreamError) in try unarchiver.rootValueThroughRawModel(from: data) }
    }

    static func publicRoot(_ data: Data, _ unarchiver: TypedstreamUnarchiver = .init()) -> Result<FoundationValue, TypedstreamError> {
        Result { () throws(TypedstreamError) in try unarchiver.foundationValue(from: data) }
    }

    /// The files whose values the raw model reads but the stream path leaves to it, and why.
    static let rawModelOnly: [String: String] = [:]

    /// Every corpus file: where the stream path gives values, they equal the raw model's (and the raw model
    /// reads the file); where the raw model fails, the stream path declines too. The stream path reads every
    /// file the raw model reads into values, except those listed in ``rawModelOnly``.
    @Test(.requiresCorpus)
    func streamValuesEqualTheRawModelsOnEveryCorpusFile() throws {
        let files = TypedstreamCorpusTests.files
        #expect(files.count == 84)
        var streamedFiles = 0
        for file in files {
            let data = try Corpus.data(file)
            let raw = Self.rawModelValues(data)
            let streamed = Self.streamed(data)
            switch (raw, streamed) {
            case (.success(let values), let streamed?):
                #expect(streamed == values, "\(file)")
                streamedFiles += 1
            case (.success, nil):
                #expect(Self.rawModelOnly[file] != nil, "\(file): the stream path declined a file the raw model reads")
            case (.failure, let streamed?):
                Issue.record("\(file): the stream path read \(streamed.count) values where the raw model fails")
            case (.failure, nil):
                #expect(Self.rawModelOnly[file] == nil, "\(file)")
            }
            // The root, through the public entry point, is the raw model's (value or error).
            #expect(Self.publicRoot(data) == Self.rawModelRoot(data), "\(file)")
        }
        #expect(streamedFiles > 0)
    }

    /// Every attributedBody blob of the corpus, cut short at each length: the stream path declines each
    /// cut, and the public entry point gives the raw model's error (code, message, byte offset).
    @Test(.requiresCorpus)
    func truncatedBlobsGiveTheRawModelsErrors() throws {
        let blobs = TypedstreamCorpusTests.files.filter { $0.contains("attributedBody") || $0.contains("crabstep/") }.prefix(12)
        #expect(!blobs.isEmpty)
        for file in blobs {
            let data = try Corpus.data(file)
            for length in stride(from: 0, to: data.count, by: max(1, data.count / 97)) {
                let cut = data.prefix(length)
                let raw = Self.rawModelRoot(cut)
                guard case .failure(let error) = raw else { continue }
                #expect(Self.streamed(cut, rootOnly: true) == nil, "\(file) cut at \(length)")
                #expect(Self.publicRoot(cut) == .failure(error), "\(file) cut at \(length)")
            }
        }
    }

    /// A class chain that names a class of its own chain as its superclass reads the same way on both
    /// paths: the stream path reads class chains with the raw reader's own function.
    @Test func classChainNamingItselfReadsTheSameOnBothPaths() {
        let bytes = Hostile.header + Hostile.shared("@")
            + [0x84]                                    // object #0
            + [0x84] + Hostile.shared("NSString") + [0x01]  // class #1: NSString version 1
            + [0x93]                                    // its superclass: reference #1, NSString itself
            + Hostile.shared("+") + [0x01, 0x41]        // group "+": "A"
            + [0x86]
        let data = Data(bytes)
        let raw = Self.rawModelRoot(data)
        #expect(Self.publicRoot(data) == raw)
        switch raw {
        case .success(let value): #expect(Self.streamed(data, rootOnly: true) == [value])
        case .failure: #expect(Self.streamed(data, rootOnly: true) == nil)
        }
    }

    /// A reference loop, an unknown class, a value of a group of several values, an object in a struct:
    /// the stream path declines, and the public entry point gives the raw model's result.
    @Test func shapesTheStreamPathDeclinesGiveTheRawModelsResult() throws {
        let loop = Hostile.header + Hostile.shared("@") + [0x84] + Hostile.arrayClass
            + Hostile.shared("i") + [0x01] + [0x92, 0x92] + [0x86]
        let unknown = Hostile.header + Hostile.shared("@") + [0x84, 0x84] + Hostile.shared("MyThing") + [0x03, 0x85]
            + Hostile.shared("i") + [0x07] + [0x86]
        let severalInOneGroup = Hostile.header + Hostile.shared("@") + [0x84] + Hostile.arrayClass
            + Hostile.shared("i@") + [0x01, 0x85] + [0x86]
        for bytes in [loop, unknown, severalInOneGroup] {
            let data = Data(bytes)
            #expect(Self.streamed(data, rootOnly: true) == nil)
            #expect(Self.publicRoot(data) == Self.rawModelRoot(data))
        }
        var keeping = TypedstreamUnarchiver()
        keeping.keepsUnknownObjects = true
        let kept = try keeping.foundationValue(from: Data(unknown))
        #expect((kept.cataloguedValue as? ArchivedTypedstreamObject)?.className == "MyThing")
        #expect(Self.publicRoot(Data(severalInOneGroup)) == .success(.array([.null])))
    }

    /// Nesting within what any stack holds is read from the stream; deeper nesting is left to the raw model
    /// (which reads it on a thread sized for it); both give the same value, and the depth limit holds.
    @Test func deepNestingIsLeftToTheRawModel() throws {
        func nested(_ depth: Int) -> FoundationValue {
            var value = FoundationValue.string("innermost")
            for _ in 0 ..< depth { value = .array([value]) }
            return value
        }
        let shallow = try TypedstreamArchiver().archivedData(withRootValue: nested(levelsEveryStackHolds - 2))
        #expect(Self.streamed(shallow, rootOnly: true) == [nested(levelsEveryStackHolds - 2)])
        let deep = try TypedstreamArchiver().archivedData(withRootValue: nested(2_000))
        #expect(Self.streamed(deep, rootOnly: true) == nil)
        #expect(try TypedstreamUnarchiver().foundationValue(from: deep) == nested(2_000))
        var limits = KeyedUnarchiver.Limits()
        limits.maximumDepth = 10
        var limited = TypedstreamUnarchiver()
        limited.limits = limits
        #expect(Self.streamed(shallow, rootOnly: true, limits: limits) == nil)
        #expect(Self.publicRoot(shallow, limited) == Self.rawModelRoot(shallow, limited))
        #expect(throws: TypedstreamError.self) { try limited.foundationValue(from: shallow) }
    }

    /// Limits on values and bytes hold on the stream path as on the raw model.
    @Test func valueAndByteLimitsHoldOnTheStreamPath() throws {
        let data = try TypedstreamArchiver().archivedData(withRootValue: .array((0 ..< 50).map { .string("element \($0)") }))
        for (elements, bytes) in [(40, Int.max), (Int.max, 100)] {
            var limited = TypedstreamUnarchiver()
            limited.limits.maximumElementCount = elements
            limited.limits.maximumByteCount = bytes
            #expect(Self.streamed(data, rootOnly: true, limits: limited.limits) == nil)
            let raw = Self.rawModelRoot(data, limited)
            guard case .failure(let error) = raw else {
                Issue.record("the raw model read past the limits")
                continue
            }
            #expect(error.code == .limitExceeded)
            #expect(Self.publicRoot(data, limited) == raw)
        }
    }

    /// NSString's bytes are read only when they are valid UTF-8: a lone 0xFF, a truncated sequence, an overlong
    /// NUL, an encoded surrogate and a scalar above U+10FFFF are refused (as `String(validating:as:)` decides
    /// where it exists: macOS 15, iOS 18).
    @Test func stringBytesAreCheckedAsUTF8() {
        let valid: [[UInt8]] = [[], Array("plain".utf8), Array("caf\u{E9} \u{1F600} \u{FFFD}".utf8)]
        let invalid: [[UInt8]] = [[0xFF], [0x61, 0xC3], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82]]
        for bytes in valid {
            #expect(validUTF8(Data(bytes)) == String(decoding: bytes, as: UTF8.self), "\(bytes)")
        }
        for bytes in invalid {
            #expect(validUTF8(Data(bytes)) == nil, "\(bytes)")
        }
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            for bytes in valid + invalid {
                #expect(validUTF8(Data(bytes)) == String(validating: bytes, as: UTF8.self), "\(bytes)")
            }
        }
    }
}
