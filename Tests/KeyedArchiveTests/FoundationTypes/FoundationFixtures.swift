import Foundation
@testable import KeyedArchive

/// The macOS-written fixtures of swift-corelibs-foundation in the shared corpus.
enum FoundationFixtures {
    /// `corelibs-foundation/Fixtures/macOS-10.14/<name>` or `corelibs-foundation/Resources/<name>`.
    static func data(_ name: String) throws -> Data {
        let folder = name.hasPrefix("NSKeyedUnarchiver-") ? "corelibs-foundation/Resources/" : "corelibs-foundation/Fixtures/macOS-10.14/"
        return try Corpus.data(folder + name)
    }

    /// Whether the corpus is there (tests that read fixtures are skipped when it is not).
    static var available: Bool { Corpus.isPresent }
}

/// Hand-made archives for malformed-input tests.
enum HandMadeArchive {
    /// A binary keyed archive whose `$objects` are `"$null"` followed by `objects`; the root is UID 1.
    static func binary(_ objects: [PropertyListValue]) throws -> Data {
        let envelope: PropertyListValue = .dictionary([
            "$archiver": "NSKeyedArchiver",
            "$version": 100000,
            "$top": .dictionary(["root": .uid(UID(1))]),
            "$objects": .array(["$null"] + objects),
        ])
        return try envelope.propertyListData(format: .binary)
    }

    /// A `{"$classname": name, "$classes": chain}` class dictionary.
    static func classDict(_ chain: [String]) -> PropertyListValue {
        .dictionary(["$classname": .string(chain[0]), "$classes": .array(chain.map { .string($0) })])
    }

    /// A UID value.
    static func uid(_ n: UInt64) -> PropertyListValue { .uid(UID(n)) }
}

/// Asserts-friendly summary of an error: code, class and key path.
func errorSummary(_ body: () throws -> Void) -> (code: String, className: String?, keyPath: String?)? {
    do {
        try body()
        return nil
    } catch let e as KeyedArchiveError {
        return (e.code.name, e.className, e.keyPath)
    } catch {
        return ("not a KeyedArchiveError: \(error)", nil, nil)
    }
}
