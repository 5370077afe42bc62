import Foundation
import KeyedArchive

/// The archiver workload's 20,000-person graph (same data, same archived class and keys) with a `Codable`
/// model that has no hand-written coding (``ArchivableCodable``), against the hand-written
/// `KeyedArchivable` model (the ratio to Foundation follows from the archiver workload's).
///
/// The Codable model's stored properties are the archive's keys in the hand-written model's order, so both
/// models write identical bytes (checked, untimed): the figures compare the coding paths alone.
struct CodableWorkload: Workload {
    var count = 20_000
    var name: String { "codable" }
    var summary: String {
        "\(count.formatted()) linked Codable model objects (ArchivableCodable) vs the hand-written model"
    }

    func makeGroups() throws -> [BenchmarkGroup] {
        let n = count.formatted()
        let people = CodablePerson.graph(count: count)
        let handPeople = BenchPerson.graph(count: count)
        let data = try KeyedArchiver.archivedData(withRootObject: people)
        let handData = try KeyedArchiver.archivedData(withRootObject: handPeople)
        // Untimed checks: the same bytes, and the graph comes back with its sharing.
        guard data == handData else { throw BenchError("the Codable model's archive differs from the hand-written model's") }
        let back = try KeyedUnarchiver().decode([CodablePerson].self, from: data)
        guard back.count == count, back[0].friends.count == 3, back[0].friends[0] === back[back[0].friends[0].index],
              back[count - 1].name == people[count - 1].name, back[7].avatar == people[7].avatar else {
            throw BenchError("the Codable unarchived graph differs from the original")
        }
        let unarchiver = KeyedUnarchiver()
        let archiveCodable = Operation("Codable: KeyedArchiver.archivedData", id: "codable-archive") {
            keep(try KeyedArchiver.archivedData(withRootObject: people)).count
        }
        let unarchiveCodable = Operation("Codable: KeyedUnarchiver.decode", id: "codable-unarchive") {
            keep(try unarchiver.decode([CodablePerson].self, from: data)).count
        }
        // ARCHIVE_BENCH_OURS_ONLY (profiling) times only each group's first operation: here the Codable ones.
        if ProcessInfo.processInfo.environment["ARCHIVE_BENCH_OURS_ONLY"] != nil {
            return [BenchmarkGroup("archive \(n) Codable objects to bytes", [archiveCodable]),
                    BenchmarkGroup("unarchive \(n) Codable objects from bytes", [unarchiveCodable])]
        }
        let groups = [
            BenchmarkGroup("archive \(n) objects: Codable vs hand-written", [
                Operation("hand-written: KeyedArchiver.archivedData", id: "hand-archive") {
                    keep(try KeyedArchiver.archivedData(withRootObject: handPeople)).count
                },
                Operation("Codable: KeyedArchiver.archivedData", id: "codable-archive", growthOf: ("hand-archive", "the hand-written model"), archiveCodable.run),
            ]),
            BenchmarkGroup("unarchive \(n) objects: Codable vs hand-written", [
                Operation("hand-written: KeyedUnarchiver.decode", id: "hand-unarchive") {
                    keep(try unarchiver.decode([BenchPerson].self, from: handData)).count
                },
                Operation("Codable: KeyedUnarchiver.decode", id: "codable-unarchive", growthOf: ("hand-unarchive", "the hand-written model"), unarchiveCodable.run),
            ]),
        ]
        return groups
    }
}

/// The benchmark's person as a Codable model: no coding written by hand. The stored properties are the
/// hand-written model's archive keys, in its order (tags and friends as numbered fields, see ``ArchiverWorkload``).
final class CodablePerson: ArchivableCodable {
    static var archivedClassName: String { "ArchiveBench.Person" }
    var index: Int
    var name: String
    var age: Int
    var score: Double
    var birthday: Date
    var tag0: String
    var tag1: String
    var tag2: String
    var avatar: Data
    var friend0: CodablePerson?
    var friend1: CodablePerson?
    var friend2: CodablePerson?

    var friends: [CodablePerson] { [friend0, friend1, friend2].compactMap { $0 } }

    init(_ i: Int) {
        index = i
        name = PersonData.name(i)
        age = PersonData.age(i)
        score = PersonData.score(i)
        birthday = PersonData.birthday(i)
        let tags = PersonData.tags(i)
        tag0 = tags[0]
        tag1 = tags[1]
        tag2 = tags[2]
        avatar = PersonData.avatar(i)
    }

    static func graph(count: Int) -> [CodablePerson] {
        let people = (0 ..< count).map(CodablePerson.init)
        for p in people {
            let friends = PersonData.friends(p.index, count: count).map { people[$0] }
            p.friend0 = friends.count > 0 ? friends[0] : nil
            p.friend1 = friends.count > 1 ? friends[1] : nil
            p.friend2 = friends.count > 2 ? friends[2] : nil
        }
        return people
    }
}
