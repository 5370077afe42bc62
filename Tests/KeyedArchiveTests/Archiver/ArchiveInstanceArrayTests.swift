import Foundation
import Testing
@testable import KeyedArchive

// An array of class instances (the root of most archives: `[Model]`) is encoded by a loop of its own: it
// reads each element in place in the array's storage and prefetches, 8 elements ahead, the identity
// table's slot and the header of the instance there. A prefetch changes nothing, so every array of
// instances must give the oracle's bytes (TreeReferenceArchiver: a tree, then BinaryPropertyListWriter)
// and decode to the same graph: arrays shorter than, as long as and longer than the distance, an
// instance at several positions, instances first met through a field and later as elements (and the
// reverse), cycles, conditional references, subclasses, a class that encodes itself as a string, and
// structs holding arrays of instances next to arrays of structs.

/// A class model with a single friend, an array of friends, a conditional reference and a dictionary.
private class Member: KeyedArchivable, Hashable, Comparable {
    class var archivedClassName: String { "ArchiveInstanceArrayTests.Member" }
    let name: String
    var best: Member?
    var friends: [Member] = []
    var watched: Member?
    var byName: [String: Member] = [:]

    init(_ name: String) { self.name = name }

    required init(from decoder: any ArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        try decoder.decodeObjectReference(of: Member.self, forKey: "best") { [unowned self] in self.best = $0 }
        try decoder.decodeObjectReference(of: Member.self, forKey: "watched") { [unowned self] in self.watched = $0 }
        let count = try decoder.decode(Int.self, forKey: "friendCount")
        for i in 0 ..< count {
            // One field per friend, decoded by reference, so cycles through `friends` close too.
            try decoder.decodeObjectReference(of: Member.self, forKey: "friend\(i)") { [unowned self] in
                if let friend = $0 { self.friends.append(friend) }
            }
        }
    }

    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(best, forKey: "best")
        try encoder.encodeConditionalObject(watched, forKey: "watched")
        // The friends twice: as one array (the path under test) and as single fields (for decoding cycles).
        try encoder.encode(friends, forKey: "friends")
        try encoder.encode(friends.count, forKey: "friendCount")
        for (i, friend) in friends.enumerated() { try encoder.encode(friend, forKey: "friend\(i)") }
        if !byName.isEmpty { try encoder.encode(byName, forKey: "byName") }
    }

    static func == (a: Member, b: Member) -> Bool { a === b }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    /// By name (every test gives its members distinct names), so a set of members is written in name order.
    static func < (a: Member, b: Member) -> Bool { a.name < b.name }
}

/// A subclass with a field of its own.
private final class Leader: Member {
    override class var archivedClassName: String { "ArchiveInstanceArrayTests.Leader" }
    var motto = ""
    init(_ name: String, motto: String) {
        self.motto = motto
        super.init(name)
    }
    required init(from decoder: any ArchiveDecoder) throws {
        motto = try decoder.decode(String.self, forKey: "motto")
        try super.init(from: decoder)
    }
    override func encode(to encoder: any ArchiveEncoder) throws {
        try super.encode(to: encoder)
        try encoder.encode(motto, forKey: "motto")
    }
}

/// A class that is an archive value but no object: it writes itself as its text (one string per element).
private final class Label: ArchiveValue {
    let text: String
    init(_ text: String) { self.text = text }
    func encode(to encoder: any ArchiveEncoder, forKey key: String) throws { try encoder.encode(text, forKey: key) }
    static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Label {
        Label(try decoder.decode(String.self, forKey: key))
    }
}

/// A struct holding an array of members, an array of structs and labels.
private struct Team: KeyedArchivable {
    static var archivedClassName: String { "ArchiveInstanceArrayTests.Team" }
    var members: [Member]
    var subteams: [Team]
    var labels: [Label]
    init(members: [Member], subteams: [Team] = [], labels: [Label] = []) {
        self.members = members
        self.subteams = subteams
        self.labels = labels
    }
    init(from decoder: any ArchiveDecoder) throws {
        members = try decoder.decode([Member].self, forKey: "members")
        subteams = try decoder.decode([Team].self, forKey: "subteams")
        labels = try decoder.decode([Label].self, forKey: "labels")
    }
    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(members, forKey: "members")
        try encoder.encode(subteams, forKey: "subteams")
        try encoder.encode(labels, forKey: "labels")
    }
}

@Suite struct ArchiveInstanceArrayTests {
    /// An unarchiver that reads `Leader` where a `Member` is asked for.
    private func unarchiver() -> KeyedUnarchiver {
        var unarchiver = KeyedUnarchiver()
        unarchiver.setClass(Leader.self, forClassName: Leader.archivedClassName)
        return unarchiver
    }

    /// Checks that `decoded` is `original` member for member: names, classes, mottos, and every link
    /// pointing at the decoded counterpart of the original's target (identity, not equality).
    private func expectSameGraph(_ decoded: [Member], _ original: [Member], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(decoded.count == original.count, sourceLocation: sourceLocation)
        var counterpart: [ObjectIdentifier: Member] = [:]
        var pending = Array(zip(original, decoded))
        while let (o, d) = pending.popLast() {
            if let known = counterpart[ObjectIdentifier(o)] {
                #expect(known === d, "\(o.name) is two objects after decoding", sourceLocation: sourceLocation)
                continue
            }
            counterpart[ObjectIdentifier(o)] = d
            #expect(d.name == o.name, sourceLocation: sourceLocation)
            #expect(type(of: d) == type(of: o), "\(o.name)'s class", sourceLocation: sourceLocation)
            #expect((d as? Leader)?.motto == (o as? Leader)?.motto, sourceLocation: sourceLocation)
            #expect(d.friends.count == o.friends.count, "\(o.name)'s friends", sourceLocation: sourceLocation)
            pending += zip(o.friends, d.friends)
            #expect((d.best == nil) == (o.best == nil), "\(o.name)'s best", sourceLocation: sourceLocation)
            if let ob = o.best, let db = d.best { pending.append((ob, db)) }
        }
        // Conditional references: set exactly when their target was archived, and to its counterpart.
        for (id, d) in counterpart {
            guard let o = original.first(where: { ObjectIdentifier($0) == id }) ?? findMember(id, from: original) else { continue }
            if let target = o.watched, let expected = counterpart[ObjectIdentifier(target)] {
                #expect(d.watched === expected, "\(o.name)'s watched", sourceLocation: sourceLocation)
            } else {
                #expect(d.watched == nil, "\(o.name)'s watched is not in the archive", sourceLocation: sourceLocation)
            }
        }
    }

    /// The member with identity `id` reachable from `roots` through friends and best friends.
    private func findMember(_ id: ObjectIdentifier, from roots: [Member]) -> Member? {
        var seen: Set<ObjectIdentifier> = []
        var stack = roots
        while let m = stack.popLast() {
            if ObjectIdentifier(m) == id { return m }
            guard seen.insert(ObjectIdentifier(m)).inserted else { continue }
            stack += m.friends
            if let best = m.best { stack.append(best) }
        }
        return nil
    }

    /// `count` members (every fifth a leader) whose friends, best friends and watched members are drawn from
    /// the same members (so shared, and cyclic) and from `outsiders`, which no array holds.
    private func randomMembers(count: Int, seed: UInt64, outsiders: [Member] = []) -> [Member] {
        var state = seed
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        let members: [Member] = (0 ..< count).map { i in i % 5 == 0 ? Leader("m\(i)", motto: "motto \(i % 3)") : Member("m\(i)") }
        let pool = members + outsiders
        for m in members {
            m.friends = (0 ..< next(12)).map { _ in pool[next(pool.count)] }
            if next(3) > 0 { m.best = pool[next(pool.count)] }
            if next(2) == 0 { m.watched = next(4) == 0 ? Member("watched only") : pool[next(pool.count)] }
        }
        return members
    }

    @Test(arguments: [0, 1, 7, 8, 9, 16, 17, 300])
    func arraysOfInstancesAroundThePrefetchDistanceGiveTheOraclesBytesAndGraph(count: Int) throws {
        let members = randomMembers(count: count, seed: UInt64(count) + 11, outsiders: [Member("outside a"), Member("outside b")])
        let archive = try expectArchiveMatchesOracle(members)
        expectSameGraph(try unarchiver().decode([Member].self, from: archive), members)
    }

    @Test func oneInstanceAtSeveralPositionsIsOneObject() throws {
        // The same instance at positions 0, 8 and 9 (prefetched, then met again), and two instances
        // alternating over 40 elements: each is written once.
        let a = Member("a"), b = Leader("b", motto: "be"), c = Member("c")
        a.friends = [b, b, c]
        let elements = [a, b, c, c, b, a, c, b, a, a] + (0 ..< 40).map { $0 % 2 == 0 ? b : c }
        let archive = try expectArchiveMatchesOracle(elements)
        let decoded = try unarchiver().decode([Member].self, from: archive)
        expectSameGraph(decoded, elements)
        #expect(decoded[0] === decoded[5] && decoded[5] === decoded[8] && decoded[1] === decoded[48] && decoded[2] === decoded[49])
        let objects = ArchiveFixture.objects(try PropertyListValue(propertyListData: archive))
        #expect(objects.filter { $0.stringValue.map { ["a", "b", "c"].contains($0) } ?? false }.count == 3)
    }

    @Test func instancesMetThroughFieldsBeforeAndAfterTheArrayAreOneObjectEach() throws {
        // `first` reaches members 3 and 12 through fields before the array is encoded; member 20's best
        // friend is only in the array after it; the array's last element points back to `first` (a cycle
        // through the array).
        let members = (0 ..< 24).map { Member("e\($0)") }
        let first = Member("first")
        first.best = members[3]
        first.friends = [members[12], members[3]]
        members[20].best = members[22]
        members[23].friends = [first, members[0]]
        let archiver = KeyedArchiver()
        try archiver.encode(first, forKey: "first")
        try archiver.encode(members, forKey: "members")
        let archive = try archiver.encodedData()
        let reference = TreeReferenceArchiver()
        try reference.encode(first, forKey: "first")
        try reference.encode(members, forKey: "members")
        #expect(archive == BinaryPropertyListWriter().write(try reference.finishEncoding()))
        // `first` is in the decoded array's graph through member 23: its links are checked there too.
        let decoded = try unarchiver().decode([Member].self, forKey: "members", from: archive)
        expectSameGraph(decoded, members)
        let decodedFirst = try #require(decoded[23].friends.first)
        #expect(decodedFirst.name == "first" && decodedFirst.best === decoded[3] && decodedFirst.friends[0] === decoded[12])
    }

    @Test func setsAndDictionariesOfInstancesGiveTheOraclesBytes() throws {
        // A set of members (written in name order: an array of instances), and a dictionary whose values are
        // members that arrays also hold.
        let members = randomMembers(count: 30, seed: 5)
        members[0].byName = Dictionary(uniqueKeysWithValues: members[10 ..< 25].map { ($0.name, $0) })
        members[1].byName = ["self": members[1], "other": members[0]]
        try expectArchiveMatchesOracle(Set(members))
        try expectArchiveMatchesOracle(members)
        try expectArchiveMatchesOracle(["all": members, "some": Array(members[5 ..< 20])])
    }

    @Test func structsAndNonObjectClassesInArraysGiveTheOraclesBytes() throws {
        // Structs (no identity: each encode a new object) holding arrays of shared instances, arrays of
        // structs, and arrays of a class that writes itself as a string (an element per label, no object).
        let members = randomMembers(count: 20, seed: 9)
        let labels = (0 ..< 12).map { Label("label \($0 % 4)") }
        let team = Team(members: members, subteams: [Team(members: Array(members[3 ..< 15]), labels: labels),
                                                     Team(members: [members[0], members[0]])],
                        labels: labels + [labels[0]])
        try expectArchiveMatchesOracle(team)
        try expectArchiveMatchesOracle([team, team])
        try expectArchiveMatchesOracle(labels)
        let decoded = try unarchiver().decode(Team.self, from: try KeyedArchiver.archivedData(withRootObject: team))
        #expect(decoded.labels.map(\.text) == team.labels.map(\.text))
        #expect(decoded.subteams[0].members[0] === decoded.members[3])
        #expect(decoded.subteams[1].members[0] === decoded.subteams[1].members[1] && decoded.subteams[1].members[0] === decoded.members[0])
        expectSameGraph(decoded.members, members)
    }
}
