import Foundation
@testable import KeyedArchive

// Models and helpers of this target's archiver, graph and security tests (the models shared with the
// fuzz target are in Tests/TestSupport/ArchiveTestModels.swift).

/// Counts how often its initializer ran, to prove rejected objects are never instantiated.
final class Tripwire: KeyedArchivable, @unchecked Sendable {
    nonisolated(unsafe) static var initCount = 0
    var payload: String

    init(payload: String) { self.payload = payload }

    init(from decoder: any ArchiveDecoder) throws {
        Tripwire.initCount += 1
        payload = try decoder.decode(String.self, forKey: "payload")
    }

    func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(payload, forKey: "payload") }
}

/// A class hierarchy whose names are overridable in subclasses.
class Animal: KeyedArchivable {
    class var archivedClassName: String { "Zoo.Animal" }
    var name: String
    init(name: String) { self.name = name }
    required init(from decoder: any ArchiveDecoder) throws { name = try decoder.decode(String.self, forKey: "name") }
    func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(name, forKey: "name") }
}

final class Dog: Animal {
    override class var archivedClassName: String { "Zoo.Dog" }
    var barks = 3
    init(name: String, barks: Int) {
        self.barks = barks
        super.init(name: name)
    }
    required init(from decoder: any ArchiveDecoder) throws {
        barks = try decoder.decode(Int.self, forKey: "barks")
        try super.init(from: decoder)
    }
    override func encode(to encoder: any ArchiveEncoder) throws {
        try super.encode(to: encoder)
        try encoder.encode(barks, forKey: "barks")
    }
}

/// Helpers to build archives by hand.
enum ArchiveFixture {
    static func archive(top: PropertyListDictionary = ["root": .uid(UID(1))], _ objects: [PropertyListValue]) -> PropertyListValue {
        .dictionary([
            "$archiver": "NSKeyedArchiver",
            "$version": 100000,
            "$top": .dictionary(top),
            "$objects": .array(objects),
        ])
    }

    static func uid(_ n: UInt64) -> PropertyListValue { .uid(UID(n)) }

    static func classDict(_ name: String, _ chain: [String]? = nil) -> PropertyListValue {
        .dictionary(["$classname": .string(name), "$classes": .array((chain ?? [name, "NSObject"]).map { .string($0) })])
    }

    /// The `$objects` of an archive, for inspection.
    static func objects(_ archive: PropertyListValue) -> [PropertyListValue] {
        archive.dictionaryValue?["$objects"]?.arrayValue ?? []
    }
}
