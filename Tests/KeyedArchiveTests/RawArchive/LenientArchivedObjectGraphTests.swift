import Foundation
import Testing
@testable import KeyedArchive
import KeyedArchiveTestSupport

/// The lenient view (``ArchivedObjectGraph/init(lenient:options:)``): a valid archive reads as the strict
/// graph with no damage; each rule an archive breaks is recorded with the strict reader's error for it, and
/// the rest of the archive is shown.
@Suite struct LenientArchivedObjectGraphTests {
    typealias F = ArchiveFixture

    /// `$objects` of a valid archive: root #1 Thing {name: #2, count: 3}, #3 its class.
    static let validObjects: [PropertyListValue] = ["$null", ["$class": F.uid(3), "name": F.uid(2), "count": 3], "hello",
                                                    F.classDict("Thing")]

    /// The strict reader's error for `archive`, and the lenient view of it.
    func strictAndLenient(_ archive: PropertyListValue, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> (KeyedArchiveError, ArchivedObjectGraph)
    {
        let data = BinaryPropertyListWriter().write(archive)
        let strict = try #require(throws: KeyedArchiveError.self, sourceLocation: sourceLocation) { try ArchivedObjectGraph(data: data) }
        let view = try ArchivedObjectGraph(lenient: data)
        #expect(try ArchivedObjectGraph(lenientPropertyList: archive) == view, sourceLocation: sourceLocation)
        return (strict, view)
    }

    @Test func aValidArchiveReadsAsTheStrictGraphWithNoDamage() throws {
        let data = BinaryPropertyListWriter().write(F.archive(Self.validObjects))
        let view = try ArchivedObjectGraph(lenient: data)
        #expect(view == (try ArchivedObjectGraph(data: data)))
        #expect(view.damage.isEmpty)
        let foundation = SystemFieldsArchive.foundation()
        #expect(try ArchivedObjectGraph(lenient: foundation) == (try ArchivedObjectGraph(data: foundation)))
    }

    @Test(.requiresCorpus) func everyValidCorpusArchiveReadsLenientlyAsStrictly() throws {
        var compared = 0
        for file in Corpus.propertyListFiles() {
            let data = try Corpus.data(file)
            guard let strict = try? ArchivedObjectGraph(data: data) else { continue }
            #expect(try ArchivedObjectGraph(lenient: data) == strict, "\(file)")
            compared += 1
        }
        #expect(compared >= 105)
    }

    @Test func eachSingleFaultIsRecordedWithTheStrictError() throws {
        var faults: [(String, PropertyListValue)] = []
        var objects = Self.validObjects
        objects[1] = ["$class": F.uid(3), "name": F.uid(2), "friend": F.uid(40)]
        faults.append(("a dangling UID in a field", F.archive(objects)))
        faults.append(("a $top UID out of range", F.archive(top: ["root": F.uid(9)], Self.validObjects)))
        for badClass: PropertyListValue in [7, F.uid(30), F.uid(2)] {
            objects = Self.validObjects
            objects[1] = ["$class": badClass, "name": F.uid(2)]
            faults.append(("$class \(badClass)", F.archive(objects)))
        }
        objects = Self.validObjects
        objects[3] = ["$classes": ["Thing"]]
        faults.append(("a class without $classname", F.archive(objects)))
        objects = Self.validObjects
        objects[0] = ["$null": 1]
        faults.append(("$objects[0] a dictionary", F.archive(objects)))
        for (key, value): (String, PropertyListValue) in [("$version", 100001), ("$version", "100000"), ("$archiver", "Other"),
                                                          ("$archiver", 1), ("$top", ["root"]), ("$objects", ["a": 1])] {
            guard case .dictionary(var envelope) = F.archive(Self.validObjects) else { continue }
            envelope[key] = value
            faults.append(("\(key) \(value)", .dictionary(envelope)))
        }
        for (what, archive) in faults {
            let (strict, view) = try strictAndLenient(archive)
            let first = try #require(view.damage.first, "\(what)")
            #expect(first == strict, "\(what): lenient \(first), strict \(strict)")
        }
    }

    @Test func theRestOfADamagedArchiveIsShown() throws {
        // A wrong $version, a broken class on object #4, and a dangling UID in object #1: the rest stays readable.
        let archive: PropertyListValue = .dictionary([
            "$archiver": "NSKeyedArchiver", "$version": 99999,
            "$top": ["root": F.uid(1), "flag": true],
            "$objects": ["$null",
                         ["$class": F.uid(3), "name": F.uid(2), "next": F.uid(4), "lost": F.uid(77)],
                         "hello", F.classDict("Thing"),
                         ["$class": F.uid(2), "x": 1]],
        ])
        let view = try ArchivedObjectGraph(lenientPropertyList: archive)
        #expect(view.damage.map(\.message) == ["$version must be 100000, found 99999",
                                               "UID 77 is out of range: $objects has 5 entries",
                                               "$class points at object #2, a string, not a class dictionary"])
        #expect(view.damage(of: UID(1)).map(\.keyPath) == ["lost"])
        #expect(view.damage(of: UID(4)).map(\.keyPath) == ["$class"])
        #expect(view.version == 99999)
        #expect(view.top.first { $0.key == "flag" }?.value == .value(true))
        let root = try #require(view.object(UID(1))?.instance)
        #expect(root.className == "Thing")
        #expect(root["name"] == .reference(UID(2)))
        #expect(root["lost"] == .reference(UID(77)))
        #expect(view.object(UID(77)) == nil)
        // The damaged entry is shown as stored.
        #expect(view.object(UID(4))?.content == .value(["$class": F.uid(2), "x": 1]))
        #expect(view.instanceCounts() == ["Thing": 1])
    }

    @Test func aTruncatedObjectsListLeavesDanglingReferencesMarked() throws {
        // Foundation's archive of four strings with $objects cut after the second one.
        let data = try NSKeyedArchiver.archivedData(withRootObject: ["a", "b", "c", "d"] as NSArray, requiringSecureCoding: false)
        guard case .dictionary(var envelope) = try PropertyListValue(propertyListData: data),
              case .array(let objects)? = envelope["$objects"] else { Issue.record("not an archive"); return }
        let kept = Array(objects.prefix(4))
        envelope["$objects"] = .array(kept)
        let view = try ArchivedObjectGraph(lenientPropertyList: .dictionary(envelope))
        #expect(!view.damage.isEmpty)
        #expect(view.damage.allSatisfy { $0.code == .invalidReference || $0.code == .invalidClass })
        #expect(view.count == 4)
        #expect(view.topReference().flatMap { view.object($0) } != nil)
    }

    @Test func notAKeyedArchiveOrNotAPropertyListStillThrows() {
        #expect(throws: KeyedArchiveError.self) { try ArchivedObjectGraph(lenient: Data("not a plist".utf8)) }
        #expect(throws: KeyedArchiveError.self) { try ArchivedObjectGraph(lenientPropertyList: ["a": 1]) }
    }
}
