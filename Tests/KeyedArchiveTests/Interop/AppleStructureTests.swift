import Foundation
import Testing
@testable import KeyedArchive

/// The catalogue of Foundation classes and the archiver against archives Apple's Foundation wrote
/// (corpus/corelibs-foundation: Fixtures/macOS-10.14 and Resources/NSKeyedUnarchiver-*.plist).
@Suite(.enabled(if: Corpus.isPresent, "needs ../shared/corpus")) struct AppleStructureTests {
    static let fixtureFolder = "corelibs-foundation/Fixtures/macOS-10.14/"
    static let resourceFolder = "corelibs-foundation/Resources/"

    /// Every macOS-written archive of the corpus folders above.
    static func appleArchives() throws -> [(String, PropertyListValue)] {
        try Corpus.files().filter { $0.hasPrefix(fixtureFolder) || ($0.hasPrefix(resourceFolder + "NSKeyedUnarchiver-")) }
            .map { ($0, try PropertyListValue(propertyListData: Corpus.data($0))) }
    }

    /// Whether a stored member value has the storage the catalogue gives it.
    static func matches(_ value: PropertyListValue, _ storage: FoundationMemberStorage) -> Bool {
        switch (storage, value) {
        case (.reference, .uid), (.referencePerIndex, .uid): return true
        case (.referenceArray, .array(let items)): return items.allSatisfy { if case .uid = $0 { true } else { false } }
        case (.inline, .uid), (.inline, .array), (.inline, .dictionary): return false
        case (.inline, _): return true
        default: return false
        }
    }

    @Test func appleObjectsHaveTheCataloguedChainsAndMembers() throws {
        var seen = Set<String>()
        for (file, archive) in try Self.appleArchives() {
            guard let a = ArchiveStructure.Archive(archive) else { continue }
            for uid in a.objects.indices {
                guard let name = a.className(of: uid), let entry = FoundationClassCatalogue.standard.entry(named: name) else { continue }
                switch entry.family {
                case .number: continue
                case .archivable:
                    // A value type's entry: the chain comes from the type; its members are the type's own
                    // (each value type's tests check them against these fixtures).
                    seen.insert(name)
                    #expect(a.chain(of: uid) == entry.chain(for: name), "\(file) #\(uid) \(name)")
                    continue
                default: break
                }
                seen.insert(name)
                #expect(a.chain(of: uid) == entry.chain(for: name), "\(file) #\(uid) \(name)")
                guard case .dictionary(let object)? = a.object(uid) else { continue }
                for (key, value) in zip(object.keys, object.values) where key != "$class" {
                    let member = entry.members.first { member in
                        switch member.storage {
                        case .referencePerIndex:
                            return key.hasPrefix(member.key)
                                && FoundationClassCatalogue.elementIndex(inKey: key.dropFirst(member.key.count)) != nil
                        default: return key == member.key
                        }
                    }
                    guard let member else {
                        Issue.record("\(file) #\(uid) \(name): member \(key) is not in the catalogue")
                        continue
                    }
                    #expect(Self.matches(value, member.storage), "\(file) #\(uid) \(name).\(key) is \(value), not \(member.storage)")
                }
                for member in entry.members where !member.optional {
                    #expect(object[member.key] != nil, "\(file) #\(uid) \(name) has no \(member.key)")
                }
            }
        }
        #expect(seen.isSuperset(of: ["NSArray", "NSMutableArray", "NSDictionary", "NSSet", "NSMutableSet", "NSOrderedSet",
                                     "NSMutableOrderedSet", "NSCountedSet", "NSDate", "NSUUID", "NSURL", "NSNull",
                                     "NSMutableData", "NSMutableString", "NSValue", "NSIndexSet", "NSMutableIndexSet",
                                     "NSIndexPath", "NSMeasurement", "NSTimeZone", "NSLocale", "NSAttributedString",
                                     "NSMutableAttributedString", "NSISO8601DateFormatter"]), "seen: \(seen.sorted())")
    }

    /// Apple archives (or one object inside them) whose value decodes as a ``FoundationValue``.
    static let roundTripCases: [(file: String, rootClass: String?)] = [
        (resourceFolder + "NSKeyedUnarchiver-ArrayTest.plist", nil),
        (resourceFolder + "NSKeyedUnarchiver-ComplexTest.plist", nil),
        (resourceFolder + "NSKeyedUnarchiver-OrderedSetTest.plist", nil),
        (resourceFolder + "NSKeyedUnarchiver-URLTest.plist", nil),
        (resourceFolder + "NSKeyedUnarchiver-UUIDTest.plist", nil),
        (fixtureFolder + "NSSet-Empty.archive", nil),
        (fixtureFolder + "NSSet-Numbers.archive", nil),
        (fixtureFolder + "NSMutableSet-Empty.archive", nil),
        (fixtureFolder + "NSMutableSet-Numbers.archive", nil),
        (fixtureFolder + "NSOrderedSet-Empty.archive", nil),
        (fixtureFolder + "NSOrderedSet-Numbers.archive", nil),
        (fixtureFolder + "NSMutableOrderedSet-Empty.archive", nil),
        (fixtureFolder + "NSMutableOrderedSet-Numbers.archive", nil),
        (fixtureFolder + "NSAttributedString.archive", "NSMutableArray"),
        (fixtureFolder + "NSAttributedString.archive", "NSDictionary"),
        (fixtureFolder + "DateIntervalFormatter-Default.archive", "NSDate"),
    ]

    @Test(arguments: roundTripCases.indices)
    func reArchivedAppleValueHasApplesStructure(_ index: Int) throws {
        let (file, rootClass) = Self.roundTripCases[index]
        var fixture = try PropertyListValue(propertyListData: Corpus.data(file))
        if let rootClass {
            let uid = try #require(ArchiveStructure.instances(of: rootClass, in: fixture).first, "\(file) has no \(rootClass)")
            fixture = ArchiveStructure.rooted(fixture, at: uid)
        }
        let value = try KeyedUnarchiver().decode(FoundationValue.self, from: fixture)
        let ours = try KeyedArchiver.archivedPropertyList(withRootObject: value)
        #expect(ArchiveStructure.differences(expected: fixture, actual: ours, immutableForMutable: true) == [], "\(file)")
        // What Apple wrote as an immutable class we write exactly alike, without the mutable mapping.
        if !file.contains("Mutable") && rootClass != "NSMutableArray" {
            #expect(ArchiveStructure.differences(expected: fixture, actual: ours) == [], "\(file)")
        }
    }

    @Test func structuralComparisonReportsLayoutDifferences() throws {
        // The comparison itself: the old ordered-set layout and an inline $top value are told apart.
        let fixture = try PropertyListValue(propertyListData: Corpus.data(Self.fixtureFolder + "NSOrderedSet-Numbers.archive"))
        var b = ArchiveBuilder()
        let numbers = (1 ... 5).map { b.add(.integer(PropertyListInteger(Int64($0)))) }
        let old = b.object("NSOrderedSet", ["NSObject"], [("NS.objects", .array(numbers))])
        let differences = ArchiveStructure.differences(expected: fixture, actual: b.archive(root: old))
        #expect(differences.contains { $0.contains("members") && $0.contains("NS.objects") })
        let inline = ArchiveBuilder().archive(root: 42)
        #expect(ArchiveStructure.differences(expected: fixture, actual: inline).contains { $0.hasPrefix("$top.root") })
        let mutable = try PropertyListValue(propertyListData: Corpus.data(Self.fixtureFolder + "NSMutableSet-Numbers.archive"))
        let set = try KeyedArchiver.archivedPropertyList(withRootObject: Set([1, 2, 3, 4, 5]))
        #expect(ArchiveStructure.differences(expected: mutable, actual: set).contains { $0.contains("class NSMutableSet vs NSSet") })
        #expect(ArchiveStructure.differences(expected: mutable, actual: set, immutableForMutable: true) == [])
        let four = try KeyedArchiver.archivedPropertyList(withRootObject: Set([1, 2, 3, 4]))
        #expect(ArchiveStructure.differences(expected: mutable, actual: four, immutableForMutable: true)
                == ["root.NS.objects: stored as array of 5 UIDs vs array of 4 UIDs"])
    }
}
