import Foundation
import KeyedArchive

/// The archiver workload's 20,000-person graph shaped as app models hold it: each person stores its tags
/// as one array of three strings and its friends as one array of references (`encode(tags, forKey: "tags")`,
/// `decode([String].self, forKey: "tags")`, `decode([Person].self, forKey: "friends")`), hand-written
/// (``KeyedArchivable``) and ``ArchivableCodable``, against Foundation's `NSKeyedArchiver`/`NSKeyedUnarchiver`
/// on the same graph in the same process.
///
/// Foundation's model writes `coder.encode(tags, forKey:)` and `coder.encode(friends, forKey:)` (an NSArray
/// each) and reads them with `decodeObject(of: [NSArray.self, ...], forKey:)`, as a user of Foundation writes it.
/// Beside them: the Codable model's floor (``CodableFloor``: Codable's own work with coders that read and
/// write nothing), and the toolchain's JSON and property-list Codable coders on the same fields.
struct CollectionsWorkload: Workload {
    var count = 20_000
    var name: String { "collections" }
    var summary: String {
        "\(count.formatted()) linked model objects with an array of 3 tags and an array of 3 references each "
            + "(hand-written and ArchivableCodable) vs NSKeyedArchiver"
    }

    func makeGroups() throws -> [BenchmarkGroup] {
        let n = count.formatted()
        let oursOnly = ProcessInfo.processInfo.environment["ARCHIVE_BENCH_OURS_ONLY"] != nil
        let people = ArrayPerson.graph(count: count)
        let codablePeople = CodableArrayPerson.graph(count: count)
        let ours = try KeyedArchiver.archivedData(withRootObject: people)
        let codable = try KeyedArchiver.archivedData(withRootObject: codablePeople)
        let unarchiver = KeyedUnarchiver()
        // Untimed checks: both models come back as the graph they were, sharing included.
        let back = try unarchiver.decode([ArrayPerson].self, from: ours)
        guard back.count == count, back[0].friends.count == 3, back[0].friends[0] === back[back[0].friends[0].index],
              back[0].tags == people[0].tags, back[count - 1].name == people[count - 1].name, back[7].avatar == people[7].avatar else {
            throw BenchError("the unarchived array-shaped graph differs from the original")
        }
        let codableBack = try unarchiver.decode([CodableArrayPerson].self, from: codable)
        guard codableBack.count == count, codableBack[0].friends.count == 3,
              codableBack[0].friends[0] === codableBack[codableBack[0].friends[0].index],
              codableBack[0].tags == people[0].tags, codableBack[count - 1].name == people[count - 1].name else {
            throw BenchError("the unarchived array-shaped Codable graph differs from the original")
        }
        print("@size \(resultPrefix).archive \(ours.count)")
        var archiving = [
            Operation("hand-written: KeyedArchiver.archivedData", id: "archive") {
                keep(try KeyedArchiver.archivedData(withRootObject: people)).count
            },
            Operation("Codable: KeyedArchiver.archivedData", id: "codable-archive", growthOf: ("archive", "the hand-written model")) {
                keep(try KeyedArchiver.archivedData(withRootObject: codablePeople)).count
            },
        ]
        var unarchiving = [
            Operation("hand-written: KeyedUnarchiver.decode", id: "unarchive") {
                keep(try unarchiver.decode([ArrayPerson].self, from: ours)).count
            },
            Operation("Codable: KeyedUnarchiver.decode", id: "codable-unarchive", growthOf: ("unarchive", "the hand-written model")) {
                keep(try unarchiver.decode([CodableArrayPerson].self, from: codable)).count
            },
        ]
        let floor = CodableFloor(people: codablePeople)
        archiving.append(Operation("Codable floor: encode(to:), nothing kept", id: "codable-encode-floor",
                                   growthOf: ("codable-archive", "the ArchivableCodable model"), floor.encodeAll))
        unarchiving.append(Operation("Codable floor: init(from:), fixed values", id: "codable-decode-floor",
                                     growthOf: ("codable-unarchive", "the ArchivableCodable model"), floor.decodeAll))
        if !oursOnly {
            let foundationPeople = NSArray(array: FoundationArrayPerson.graph(count: count))
            let theirs = try NSKeyedArchiver.archivedData(withRootObject: foundationPeople, requiringSecureCoding: true)
            let classes: [AnyClass] = [NSArray.self, FoundationArrayPerson.self]
            let foundationBack = try NSKeyedUnarchiver.unarchivedObject(ofClasses: classes, from: theirs) as? [FoundationArrayPerson]
            guard let foundationBack, foundationBack.count == count, foundationBack[0].friends.count == 3,
                  foundationBack[0].tags == people[0].tags else {
                throw BenchError("Foundation's unarchived array-shaped graph differs from the original")
            }
            print("@size \(resultPrefix).foundation-archive \(theirs.count)")
            archiving.insert(Operation("Foundation NSKeyedArchiver.archivedData", id: "foundation-archive", runs: (1, 1)) {
                keep(try NSKeyedArchiver.archivedData(withRootObject: foundationPeople, requiringSecureCoding: true)).count
            }, at: 1)
            unarchiving.insert(Operation("Foundation NSKeyedUnarchiver.unarchivedObject", id: "foundation-unarchive", runs: (1, 1)) {
                (keep(try NSKeyedUnarchiver.unarchivedObject(ofClasses: classes, from: theirs)) as? NSArray)?.count ?? 0
            }, at: 1)
            let (peerArchiving, peerUnarchiving) = try codablePeerOperations()
            archiving += peerArchiving
            unarchiving += peerUnarchiving
        }
        return [
            BenchmarkGroup("archive \(n) array-shaped objects to bytes", archiving),
            BenchmarkGroup("unarchive \(n) array-shaped objects from bytes", unarchiving),
        ]
    }

    /// The toolchain's own Codable coders on the same people (``PeerPerson``): what a Codable model costs with
    /// the other `Encoder`/`Decoder` pairs a Swift user has, beside the ArchivableCodable model's figures.
    private func codablePeerOperations() throws -> (archiving: [Operation], unarchiving: [Operation]) {
        let peers = (0 ..< count).map { PeerPerson.make($0, count: count) }
        let plistEncoder = PropertyListEncoder()
        plistEncoder.outputFormat = .binary
        let json = try JSONEncoder().encode(peers)
        let plist = try plistEncoder.encode(peers)
        guard try JSONDecoder().decode([PeerPerson].self, from: json) == peers,
              try PropertyListDecoder().decode([PeerPerson].self, from: plist) == peers else {
            throw BenchError("the Codable peers' decoded people differ from the original")
        }
        let codable = ("codable-archive", "the ArchivableCodable model")
        let codableBack = ("codable-unarchive", "the ArchivableCodable model")
        let archiving = [
            Operation("Codable peer: JSONEncoder", id: "json-archive", growthOf: codable, runs: (3, 1)) {
                keep(try JSONEncoder().encode(peers)).count
            },
            Operation("Codable peer: PropertyListEncoder (binary)", id: "plist-archive", growthOf: codable, runs: (3, 1)) {
                keep(try plistEncoder.encode(peers)).count
            },
        ]
        let unarchiving = [
            Operation("Codable peer: JSONDecoder", id: "json-unarchive", growthOf: codableBack, runs: (3, 1)) {
                keep(try JSONDecoder().decode([PeerPerson].self, from: json)).count
            },
            Operation("Codable peer: PropertyListDecoder (binary)", id: "plist-unarchive", growthOf: codableBack, runs: (3, 1)) {
                keep(try PropertyListDecoder().decode([PeerPerson].self, from: plist)).count
            },
        ]
        return (archiving, unarchiving)
    }
}

/// The array-shaped person for the Codable coders of the toolchain (JSON and property lists), which keep no
/// identity: the same fields, with its friends as their indexes.
struct PeerPerson: Codable, Equatable {
    var index: Int
    var name: String
    var age: Int
    var score: Double
    var birthday: Date
    var tags: [String]
    var avatar: Data
    var friends: [Int]

    /// Person `i` of `count`, with ``PersonData``'s values.
    static func make(_ i: Int, count: Int) -> PeerPerson {
        PeerPerson(index: i, name: PersonData.name(i), age: PersonData.age(i), score: PersonData.score(i), birthday: PersonData.birthday(i),
                   tags: PersonData.tags(i), avatar: PersonData.avatar(i), friends: PersonData.friends(i, count: count))
    }
}

/// A person of the benchmark's graph, made from ``PersonData``'s values, with a `friends` array.
protocol LinkedPerson: AnyObject {
    init(_ i: Int)
    var index: Int { get }
    var friends: [Self] { get set }
}

extension LinkedPerson {
    /// `count` people, each with ``PersonData/friends(_:count:)`` as its friends.
    static func graph(count: Int) -> [Self] {
        let people = (0 ..< count).map(Self.init)
        for p in people { p.friends = PersonData.friends(p.index, count: count).map { people[$0] } }
        return people
    }
}

/// The benchmark's person with its tags and friends stored as arrays, coded by hand.
final class ArrayPerson: KeyedArchivable, LinkedPerson {
    static var archivedClassName: String { "ArchiveBench.ArrayPerson" }
    var index: Int
    var name: String
    var age: Int
    var score: Double
    var birthday: Date
    var tags: [String]
    var avatar: Data
    var friends: [ArrayPerson] = []

    init(_ i: Int) {
        index = i
        name = PersonData.name(i)
        age = PersonData.age(i)
        score = PersonData.score(i)
        birthday = PersonData.birthday(i)
        tags = PersonData.tags(i)
        avatar = PersonData.avatar(i)
    }

    init(from decoder: any ArchiveDecoder) throws {
        index = try decoder.decode(Int.self, forKey: "index")
        name = try decoder.decode(String.self, forKey: "name")
        age = try decoder.decode(Int.self, forKey: "age")
        score = try decoder.decode(Double.self, forKey: "score")
        birthday = try decoder.decode(Date.self, forKey: "birthday")
        tags = try decoder.decode([String].self, forKey: "tags")
        avatar = try decoder.decode(Data.self, forKey: "avatar")
        friends = try decoder.decode([ArrayPerson].self, forKey: "friends")
    }

    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(index, forKey: "index")
        try encoder.encode(name, forKey: "name")
        try encoder.encode(age, forKey: "age")
        try encoder.encode(score, forKey: "score")
        try encoder.encode(birthday, forKey: "birthday")
        try encoder.encode(tags, forKey: "tags")
        try encoder.encode(avatar, forKey: "avatar")
        try encoder.encode(friends, forKey: "friends")
    }
}

/// The same person as a Codable model: no coding written by hand.
final class CodableArrayPerson: ArchivableCodable, LinkedPerson {
    static var archivedClassName: String { "ArchiveBench.ArrayPerson" }
    var index: Int
    var name: String
    var age: Int
    var score: Double
    var birthday: Date
    var tags: [String]
    var avatar: Data
    var friends: [CodableArrayPerson] = []

    init(_ i: Int) {
        index = i
        name = PersonData.name(i)
        age = PersonData.age(i)
        score = PersonData.score(i)
        birthday = PersonData.birthday(i)
        tags = PersonData.tags(i)
        avatar = PersonData.avatar(i)
    }

}

/// Foundation's array-shaped person, with identity-based `hash`/`isEqual` (see ``ArchiverWorkload``). It
/// archives its arrays as ``IdentityHashedArray``s (written as plain NSArrays), for the reason given there.
final class FoundationArrayPerson: NSObject, NSSecureCoding, LinkedPerson {
    static var supportsSecureCoding: Bool { true }
    var index: Int
    var name: String
    var age: Int
    var score: Double
    var birthday: Date
    var tags: [String]
    var avatar: Data
    var friends: [FoundationArrayPerson] = []

    init(_ i: Int) {
        index = i
        name = PersonData.name(i)
        age = PersonData.age(i)
        score = PersonData.score(i)
        birthday = PersonData.birthday(i)
        tags = PersonData.tags(i)
        avatar = PersonData.avatar(i)
    }

    override var hash: Int { ObjectIdentifier(self).hashValue }
    override func isEqual(_ object: Any?) -> Bool { (object as? FoundationArrayPerson) === self }

    func encode(with coder: NSCoder) {
        coder.encode(index, forKey: "index")
        coder.encode(name, forKey: "name")
        coder.encode(age, forKey: "age")
        coder.encode(score, forKey: "score")
        coder.encode(NSDate(timeIntervalSinceReferenceDate: birthday.timeIntervalSinceReferenceDate), forKey: "birthday")
        coder.encode(IdentityHashedArray(tags.map { NSString(string: $0) }), forKey: "tags")
        coder.encode(NSData(data: avatar), forKey: "avatar")
        coder.encode(IdentityHashedArray(friends), forKey: "friends")
    }

    init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "name"),
              let birthday = coder.decodeObject(of: NSDate.self, forKey: "birthday"),
              let avatar = coder.decodeObject(of: NSData.self, forKey: "avatar"),
              let tags = coder.decodeObject(of: [NSArray.self, NSString.self], forKey: "tags") as? [String],
              let friends = coder.decodeObject(of: [NSArray.self, FoundationArrayPerson.self], forKey: "friends")
                as? [FoundationArrayPerson] else { return nil }
        index = coder.decodeInteger(forKey: "index")
        self.name = String(describing: name)
        age = coder.decodeInteger(forKey: "age")
        score = coder.decodeDouble(forKey: "score")
        self.birthday = Date(timeIntervalSinceReferenceDate: birthday.timeIntervalSinceReferenceDate)
        self.tags = tags
        self.avatar = Data(referencing: avatar)
        self.friends = friends
    }
}

/// An NSArray that is equal only to itself and hashes by identity, archived as a plain `NSArray`.
///
/// corelibs' `NSKeyedArchiver` keys its table of objects already written by `AnyHashable` (`hash` and
/// `isEqual`), and its `NSArray.hash` is the array's count: the 40,000 three-element arrays of the graph
/// land in one bucket and archiving turns quadratic (minutes; Apple's archiver keys that table by
/// pointer). Foundation's model hands the archiver these arrays instead, so that the comparison times
/// its archiver's work, not that collision.
final class IdentityHashedArray: NSArray {
    private let elements: [AnyObject]

    init(_ elements: [AnyObject]) {
        self.elements = elements
        super.init()
    }

    required init(objects: UnsafePointer<AnyObject>?, count: Int) {
        elements = objects.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
        super.init()
    }

    required init?(coder: NSCoder) { nil }

    required convenience init(arrayLiteral elements: Any...) {
        self.init(elements.map { $0 as AnyObject })
    }

    override var count: Int { elements.count }
    override func object(at index: Int) -> Any { elements[index] }
    override var hash: Int { ObjectIdentifier(self).hashValue }
    override func isEqual(_ object: Any?) -> Bool { (object as AnyObject?) === self }
    override var classForCoder: AnyClass { NSArray.self }
}
