import Foundation
import Testing
@testable import KeyedArchive

/// Records every initializer run, to prove which objects were instantiated (used by this suite only).
final class MixedRecorder: @unchecked Sendable {
    static let shared = MixedRecorder()
    private let lock = NSLock()
    private var names: [String] = []
    func record(_ name: String) { lock.lock(); names.append(name); lock.unlock() }
    func take() -> [String] { lock.lock(); defer { names = []; lock.unlock() }; return names }
}

final class MixedNote: KeyedArchivable {
    static var archivedClassName: String { "Mixed.Note" }
    var text: String
    init(text: String) { self.text = text }
    init(from decoder: any ArchiveDecoder) throws {
        MixedRecorder.shared.record("MixedNote")
        text = try decoder.decode(String.self, forKey: "text")
    }
    func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(text, forKey: "text") }
}

final class MixedSecret: KeyedArchivable {
    static var archivedClassName: String { "Mixed.Secret" }
    init() {}
    init(from decoder: any ArchiveDecoder) throws { MixedRecorder.shared.record("MixedSecret") }
    func encode(to encoder: any ArchiveEncoder) throws {}
}

/// One element of a mixed array, as a caller would model it: it writes whichever value it holds.
enum MixedItem: ArchiveValue, Equatable {
    case text(String)
    case note(String)
    case number(Int)
    case real(Double)
    case flag(Bool)
    case secret

    func encode(to encoder: any ArchiveEncoder, forKey key: String) throws {
        switch self {
        case .text(let s): try encoder.encode(s, forKey: key)
        case .note(let s): try encoder.encodeObject(MixedNote(text: s), forKey: key)
        case .number(let n): try encoder.encode(n, forKey: key)
        case .real(let d): try encoder.encode(d, forKey: key)
        case .flag(let b): try encoder.encode(b, forKey: key)
        case .secret: try encoder.encodeObject(MixedSecret(), forKey: key)
        }
    }

    static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> MixedItem {
        switch try decoder.decodeValue(ofAnyOf: [String.self, MixedNote.self, Int.self, Double.self, Bool.self], forKey: key) {
        case let s as String: return .text(s)
        case let n as MixedNote: return .note(n.text)
        case let i as Int: return .number(i)
        case let d as Double: return .real(d)
        case let b as Bool: return .flag(b)
        case let other: throw decoder.dataCorruptedError(forKey: key, "unexpected \(type(of: other))")
        }
    }
}

@Suite(.serialized) struct HeterogeneousDecodingTests {
    @Test func storedClassNameNamesWhatIsStoredWithoutDecoding() throws {
        let archiver = KeyedArchiver()
        try archiver.encode("s", forKey: "string")
        try archiver.encode(3, forKey: "int")
        try archiver.encode(true, forKey: "bool")
        try archiver.encode(Data([1]), forKey: "data")
        try archiver.encode(Date(timeIntervalSinceReferenceDate: 1), forKey: "date")
        try archiver.encode([1, 2], forKey: "array")
        try archiver.encode(MixedSecret(), forKey: "model")
        try archiver.encodeNil(forKey: "nothing")
        let data = try archiver.encodedData()
        _ = MixedRecorder.shared.take()
        let names = try KeyedUnarchiver().withTopLevelDecoder(data) { d in
            try ["string", "int", "bool", "data", "date", "array", "model", "nothing", "absent"].map { try d.storedClassName(forKey: $0) }
        }
        #expect(names == ["NSString", "NSNumber", "NSNumber", "NSData", "NSDate", "NSArray", "Mixed.Secret", nil, nil])
        #expect(MixedRecorder.shared.take() == [])
    }

    @Test func storedClassNameOfAMutableStringObjectAndOfElements() throws {
        var b = ArchiveBuilder()
        let inner = b.add("text")
        let mutable = b.object("NSMutableString", ["NSString", "NSObject"], [("NS.string", inner)])
        let number = b.add(7)
        let list = b.object("NSArray", ["NSObject"], [("NS.objects", [mutable, number])])
        let archive = b.archive(top: ["m": mutable, "list": list])
        let name = try KeyedUnarchiver().withTopLevelDecoder(archive) { try $0.storedClassName(forKey: "m") }
        #expect(name == "NSMutableString")
        let items = try KeyedUnarchiver().withTopLevelDecoder(archive) { try $0.decodeArray(ofAnyOf: [String.self, Int.self], forKey: "list") }
        #expect(items.count == 2)
        #expect(items.first as? String == "text")
        #expect(items.last as? Int == 7)
    }

    @Test func decodeNumberTellsTheStoredKind() throws {
        let archiver = KeyedArchiver()
        try archiver.encode(true, forKey: "bool")
        try archiver.encode(-5, forKey: "int")
        try archiver.encode(UInt64.max, forKey: "big")
        try archiver.encode(Float(0.5), forKey: "float")
        try archiver.encode(0.25, forKey: "double")
        try archiver.encode("x", forKey: "text")
        let data = try archiver.encodedData()
        let numbers = try KeyedUnarchiver().withTopLevelDecoder(data) { d in
            try ["bool", "int", "big", "float", "double"].map { try d.decodeNumber(forKey: $0) }
        }
        #expect(numbers == [.bool(true), .integer(-5), .integer(PropertyListInteger(UInt64.max)), .float(0.5), .double(0.25)])
        let error = try #require(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver().withTopLevelDecoder(data) { try $0.decodeNumber(forKey: "text") }
        }
        #expect(error.code == .typeMismatch)
        #expect(error.keyPath == "text")
    }

    @Test func mixedArrayReadsEachElementAsItsStoredClass() throws {
        let items: [MixedItem] = [.text("a"), .note("n1"), .number(3), .real(2.5), .flag(false), .note("n2")]
        let data = try KeyedArchiver.archivedData(withRootObject: items)
        _ = MixedRecorder.shared.take()
        #expect(try KeyedUnarchiver().decode([MixedItem].self, from: data) == items)
        #expect(MixedRecorder.shared.take() == ["MixedNote", "MixedNote"])
        let values = try KeyedUnarchiver().withTopLevelDecoder(data) {
            try $0.decodeArray(ofAnyOf: [Int.self, String.self, MixedNote.self, Double.self, Bool.self], forKey: "root")
        }
        #expect(values.count == 6)
        #expect(values[0] as? String == "a")
        #expect((values[1] as? MixedNote)?.text == "n1")
        #expect(values[2] as? Int == 3)
        #expect(values[3] as? Double == 2.5)
        #expect(values[4] as? Bool == false)
        #expect((values[5] as? MixedNote)?.text == "n2")
    }

    @Test func nothingOutsideTheAllowListIsInstantiated() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: [MixedItem.note("ok"), .secret, .note("after")])
        _ = MixedRecorder.shared.take()
        let error = try #require(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver().withTopLevelDecoder(data) { try $0.decodeArray(ofAnyOf: [String.self, MixedNote.self], forKey: "root") }
        }
        #expect(error.code == .classNotAllowed)
        #expect(error.keyPath == "root[1]")
        #expect(error.message.contains("Mixed.Secret"))
        #expect(MixedRecorder.shared.take() == ["MixedNote"])
        // A number where only objects are allowed is refused too, before anything is read.
        let numbers = try KeyedArchiver.archivedData(withRootObject: [1])
        #expect(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver().withTopLevelDecoder(numbers) { try $0.decodeArray(ofAnyOf: [MixedNote.self], forKey: "root") }
        }
        #expect(MixedRecorder.shared.take() == [])
    }

    @Test func numbersChooseTheTypeOfTheirStoredKind() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: [FoundationValue.bool(true), .integer(4), .real(1.5)])
        let values = try KeyedUnarchiver().withTopLevelDecoder(data) {
            try $0.decodeArray(ofAnyOf: [Double.self, Int.self, Bool.self], forKey: "root")
        }
        #expect(values[0] as? Bool == true)
        #expect(values[1] as? Int == 4)
        #expect(values[2] as? Double == 1.5)
        // Without an exact kind, any number type listed reads it (with its usual conversions).
        let reals = try KeyedArchiver.archivedData(withRootObject: [FoundationValue.integer(4), .real(1.5)])
        let onlyDouble = try KeyedUnarchiver().withTopLevelDecoder(reals) { try $0.decodeArray(ofAnyOf: [Double.self], forKey: "root") }
        #expect(onlyDouble.compactMap { $0 as? Double } == [4, 1.5])
    }

    @Test func dictionaryValuesOfSeveralClasses() throws {
        let archiver = KeyedArchiver()
        try archiver.encode(["count": MixedItem.number(2), "note": .note("hi"), "name": .text("x")], forKey: "root")
        let data = try archiver.encodedData()
        let dict = try KeyedUnarchiver().withTopLevelDecoder(data) {
            try $0.decodeDictionary(keyType: String.self, valuesOfAnyOf: [Int.self, MixedNote.self, String.self], forKey: "root")
        }
        #expect(dict.count == 3)
        #expect(dict["count"] as? Int == 2)
        #expect((dict["note"] as? MixedNote)?.text == "hi")
        #expect(dict["name"] as? String == "x")
    }

    @Test func registeredNamesAndFoundationValuesAreChosen() throws {
        var b = ArchiveBuilder()
        let text = b.add("legacy")
        let old = b.object("OldNote", ["NSObject"], [("text", text)])
        let plain = b.add("plain")
        let list = b.object("NSArray", ["NSObject"], [("NS.objects", [old, plain])])
        let archive = b.archive(root: list)
        var unarchiver = KeyedUnarchiver()
        #expect(throws: KeyedArchiveError.self) {
            try unarchiver.withTopLevelDecoder(archive) { try $0.decodeArray(ofAnyOf: [MixedNote.self, FoundationValue.self], forKey: "root") }
        }
        unarchiver.setClass(MixedNote.self, forClassName: "OldNote")
        let values = try unarchiver.withTopLevelDecoder(archive) {
            try $0.decodeArray(ofAnyOf: [MixedNote.self, FoundationValue.self], forKey: "root")
        }
        #expect((values[0] as? MixedNote)?.text == "legacy")
        #expect(values[1] as? FoundationValue == .string("plain"))
    }

    @Test func topLevelValueOfSeveralTypes() throws {
        let note = try KeyedUnarchiver().decodeValue(ofAnyOf: [String.self, MixedNote.self],
                                                     from: KeyedArchiver.archivedData(withRootObject: MixedNote(text: "top")))
        #expect((note as? MixedNote)?.text == "top")
        let text = try KeyedUnarchiver().decodeValue(ofAnyOf: [String.self, MixedNote.self],
                                                     from: KeyedArchiver.archivedData(withRootObject: "plain"))
        #expect(text as? String == "plain")
        let tree = try KeyedArchiver.archivedPropertyList(withRootObject: 12)
        #expect(try KeyedUnarchiver().decodeValue(ofAnyOf: [String.self, Int.self], from: tree) as? Int == 12)
    }

    @Test func missingAndNilValuesSayWhat() throws {
        let archiver = KeyedArchiver()
        try archiver.encodeNil(forKey: "nothing")
        let data = try archiver.encodedData()
        let absent = try #require(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver().withTopLevelDecoder(data) { try $0.decodeValue(ofAnyOf: [String.self], forKey: "absent") }
        }
        #expect(absent.code == .keyNotFound)
        let null = try #require(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver().withTopLevelDecoder(data) { try $0.decodeValue(ofAnyOf: [String.self], forKey: "nothing") }
        }
        #expect(null.code == .valueNotFound)
    }

    @Test func foundationMixedArrayReadsWithTheCallersTypes() throws {
        let array = NSArray(array: [NSString(string: "s"), NSNumber(value: 7), NSDate(timeIntervalSinceReferenceDate: 3),
                                    NSMutableString(string: "m")])
        let data = try NSKeyedArchiver.archivedData(withRootObject: array, requiringSecureCoding: false)
        let values = try KeyedUnarchiver().withTopLevelDecoder(data) {
            try $0.decodeArray(ofAnyOf: [String.self, Int.self, Date.self], forKey: "root")
        }
        #expect(values.count == 4)
        #expect(values[0] as? String == "s")
        #expect(values[1] as? Int == 7)
        #expect(values[2] as? Date == Date(timeIntervalSinceReferenceDate: 3))
        #expect(values[3] as? String == "m")
    }
}
