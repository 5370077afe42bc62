import Foundation
import Testing
@testable import KeyedArchive

/// The catalogue's value types between GNUstep and us, both directions. The deviations numbered in
/// GNUstepInteropTests.swift (3: NSValue, 4: NSCountedSet, 5: NSTimeZone/NSLocale under `$0`) are asserted
/// here as GNUstep behaves, so that a GNUstep that starts agreeing with Apple makes these tests fail.
@Suite(.enabled(if: GNUstepOracle.isAvailable, "GNUstep not installed (apt-get install gobjc libgnustep-base-dev gnustep-base-runtime)"))
struct GNUstepValueTypeInteropTests {
    typealias D = GNUstepOracle.Description

    // MARK: GNUstep -> us

    @Test func gnustepIndexSetReadsAsArchivedIndexSet() throws {
        let archive = try GNUstepOracle.encode("indexSet")  // an NSMutableIndexSet {1-3, 9}
        let expected = ArchivedIndexSet(ranges: [1 ..< 4, 9 ..< 10])
        #expect(try KeyedUnarchiver().decode(ArchivedIndexSet.self, from: archive) == expected)
        #expect(try KeyedUnarchiver().decode(FoundationValue.self, from: archive) == .indexSet(expected))
    }

    @Test func gnustepAttributedStringReadsAsArchivedAttributedString() throws {
        let archive = try GNUstepOracle.encode("attributedString")  // "hello" with {k: v}
        let expected = ArchivedAttributedString(string: "hello", attributes: ["k": .string("v")])
        #expect(try KeyedUnarchiver().decode(ArchivedAttributedString.self, from: archive) == expected)
        #expect(try KeyedUnarchiver().decode(FoundationValue.self, from: archive) == .attributedString(expected))
    }

    @Test func gnustepTimeZoneLocaleAndCountedSetUseOtherKeys() throws {
        // Deviation 5: GNUstep keeps the time zone's name and the locale's identifier under `$0`; our readers
        // follow Apple (NS.name, NS.identifier) and say which key is missing.
        let zone = errorSummary { _ = try KeyedUnarchiver().decode(ArchivedTimeZone.self, from: GNUstepOracle.encode("timeZone")) }
        #expect(zone?.code == "keyNotFound")
        #expect(zone?.className == "NSTimeZone")
        #expect(zone?.keyPath == "root.NS.name")
        let locale = errorSummary { _ = try KeyedUnarchiver().decode(ArchivedLocale.self, from: GNUstepOracle.encode("locale")) }
        #expect(locale?.code == "keyNotFound")
        #expect(locale?.className == "NSLocale")
        #expect(locale?.keyPath == "root.NS.identifier")
        // Deviation 4: GNUstep's counted set is `$0` (count) and `$1`, `$2`, ... pairs, not NS.count / NS.objectN.
        let counted = errorSummary { _ = try KeyedUnarchiver().decode(ArchivedCountedSet.self, from: GNUstepOracle.encode("countedSet")) }
        #expect(counted?.code == "keyNotFound")
        #expect(counted?.className == "NSCountedSet")
        #expect(counted?.keyPath == "root.NS.count")
    }

    // MARK: us -> GNUstep

    @Test(arguments: [PropertyListFormat.binary, .xml])
    func gnustepReadsOurIndexSetsAndAttributedStrings(_ format: PropertyListFormat) throws {
        let indexes = try KeyedArchiver.archivedData(withRootObject: ArchivedIndexSet(ranges: [1 ..< 4, 9 ..< 10]), format: format)
        #expect(try GNUstepOracle.decode(indexes) == D.indexSet([(1, 3), (9, 1)]))
        let many = try KeyedArchiver.archivedData(withRootObject: ArchivedIndexSet(ranges: [0 ..< 2, 5 ..< 6, 300 ..< 310]), format: format)
        #expect(try GNUstepOracle.decode(many) == D.indexSet([(0, 2), (5, 1), (300, 10)]))
        let text = try KeyedArchiver.archivedData(withRootObject: ArchivedAttributedString(string: "hello", attributes: ["k": .string("v")]),
                                                  format: format)
        #expect(try GNUstepOracle.decode(text)
                == D.attributedString("hello", runs: [(0, 5, D.dictionary([(D.string("k"), D.string("v"))]))]))
        // Inside an array, next to plain values (FoundationValue cases write the value types).
        let mixed = try KeyedArchiver.archivedData(withRootObject: FoundationValue.array([.string("s"), .indexSet(ArchivedIndexSet(ranges: [2 ..< 3]))]),
                                                   format: format)
        #expect(try GNUstepOracle.decode(mixed) == D.array([D.string("s"), D.indexSet([(2, 1)])]))
    }

    @Test func gnustepMisreadsOurTimeZoneLocaleCountedSetAndValue() throws {
        // Deviation 5: GNUstep's readers ignore NS.name / NS.identifier.
        let zone = try KeyedArchiver.archivedData(withRootObject: ArchivedTimeZone(identifier: "Europe/Paris"))
        #expect(try GNUstepOracle.decode(zone) == "null")
        let locale = try KeyedArchiver.archivedData(withRootObject: ArchivedLocale(identifier: "fr_FR"))
        #expect(try GNUstepOracle.decode(locale) == D.locale("en_US_POSIX"))
        // Deviation 4: Apple's counted-set keys read as an empty set.
        let counted = try KeyedArchiver.archivedData(withRootObject: ArchivedCountedSet([.string("a"), .string("a"), .string("b")]))
        #expect(try GNUstepOracle.decode(counted) == D.countedSet([]))
        // Deviation 3: GNUstep's unarchiver rejects Apple's NS.special form, which we write.
        let range = try KeyedArchiver.archivedData(withRootObject: ArchivedSpecialValue(range: 3 ..< 7))
        #expect(throws: GNUstepOracle.Failure.self) { try GNUstepOracle.decode(range) }
    }
}
