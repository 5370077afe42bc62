import Foundation
import KeyedArchive

/// A social graph of model objects archived and unarchived by `KeyedArchiver`/`KeyedUnarchiver` and by
/// Foundation's `NSKeyedArchiver`/`NSKeyedUnarchiver`, with our property-list reader and writer alone on
/// the same bytes as the floor, the decoded graph built from memory (``GraphFloor``) as the floor of what an
/// unarchive builds, and Foundation's `PropertyListSerialization` on Foundation's archive (the first step of its
/// unarchiver), so that each unarchiver's time is set against a plist read of its own bytes.
///
/// Each person has a name, age, score, birthday, 3 tags, a 64-byte avatar and 3 references to people in
/// the next of 20 layers, so objects are shared (about 3 references each) and the graph is acyclic and
/// shallow (Foundation on Linux cannot decode cycles and recurses per reference).
///
/// Foundation's model overrides `hash`/`isEqual` by identity: corelibs' archiver keys its object table
/// by `hash`/`isEqual`, and with NSObject's defaults on Linux archiving turns quadratic. The 3 tags are
/// three keyed strings (`tag0`...`tag2`) in both models, not an array: `NSArray.hash` is its count in
/// corelibs, so 20,000 three-element arrays collide in that table and Foundation's archiving goes
/// quadratic again (minutes instead of seconds).
struct ArchiverWorkload: Workload {
    /// The number of models (`--count`; the driver runs 20,000, 200,000 and 2,000,000, each in processes of its own).
    var count = 20_000
    /// Whether Foundation's archiver and unarchiver are timed too (`--foundation-max`).
    var includesFoundation = true
    /// Where to write both archives (`archive-<count>.bplist`, `foundation-<count>.bplist`), for the memory
    /// children and libplist; `nil` writes nothing.
    var outputDirectory: String?
    var name: String { "archiver" }
    var summary: String {
        "\(count.formatted()) linked model objects (3 tags, 3 references each) through KeyedArchiver/KeyedUnarchiver"
            + (includesFoundation ? " vs NSKeyedArchiver" : " (Foundation not run at this size)")
    }

    /// Timed and untimed runs of our operations for the larger sizes, whose every run takes seconds; `nil`:
    /// the command line's. Every size keeps a warm-up: a first run in a process grows the heap and pays a
    /// page fault per fresh page (at 2,000,000 models about 180,000 faults in archiving and again in
    /// unarchiving, which the runs after it do not pay), so without one the growth to 2,000,000 would
    /// compare a cold heap with warm ones.
    static func oursRuns(count: Int) -> (timed: Int, warmups: Int)? {
        count >= 1_000_000 ? (1, 1) : count > 20_000 ? (3, 1) : nil
    }

    /// ``oursRuns(count:)``, except with ARCHIVE_BENCH_OURS_ONLY (profiling), where `--runs`/`--warmup` apply at every size.
    private var oursRuns: (timed: Int, warmups: Int)? {
        if ProcessInfo.processInfo.environment["ARCHIVE_BENCH_OURS_ONLY"] != nil { return nil }
        return Self.oursRuns(count: count)
    }

    /// Foundation runs once after 1 warm-up at 20,000 objects (seconds each), once at 200,000 (a minute).
    private var foundationRuns: (timed: Int, warmups: Int) { count > 20_000 ? (1, 0) : (1, 1) }

    func makeGroups() throws -> [BenchmarkGroup] {
        let environment = ProcessInfo.processInfo.environment
        // ARCHIVE_BENCH_OURS_ONLY (profiling): no Foundation setup, no checks.
        let oursOnly = environment["ARCHIVE_BENCH_OURS_ONLY"] != nil
        let n = count.formatted()
        let people = BenchPerson.graph(count: count)
        let ours = try KeyedArchiver.archivedData(withRootObject: people)
        reportSize("archive", ours.count)
        if let runs = oursRuns { print("  at \(n) objects: \(runs.timed) timed run(s) after \(runs.warmups) warm-up(s) per operation in each process") }
        if let outputDirectory { try ours.write(to: URL(fileURLWithPath: "\(outputDirectory)/archive-\(count).bplist")) }
        var archiving = [Operation("KeyedArchiver.archivedData", id: "archive", runs: oursRuns, archive(people))]
        var unarchiving = [Operation("KeyedUnarchiver.decode([Person].self)", id: "unarchive", runs: oursRuns, unarchive(ours, count))]
        if !oursOnly {
            let tree = try KeyedArchiver.archivedPropertyList(withRootObject: people)
            // Untimed check (up to 200,000 models; the same code at every size): the archive decodes to the same graph.
            let back = count > 200_000 ? people : try KeyedUnarchiver(count: count).decode([BenchPerson].self, from: ours)
            guard back.count == count, back[0].friends.count == 3, back[0].friends[0] === back[back[0].friends[0].index],
                  back[0].tags == people[0].tags, back[count - 1].name == people[count - 1].name, back[7].avatar == people[7].avatar else {
                throw BenchError("our unarchived graph differs from the original")
            }
            let encodeFloor = EncodeFloor(people: people)
            archiving.append(Operation("floor: the models' own encode(to:), values kept nowhere", id: "encode-floor",
                                       growthOf: ("archive", "our archive"), runs: oursRuns) {
                keep(try encodeFloor.run())
            })
            archiving.append(Operation("floor: our writer alone on the same tree", id: "write", runs: oursRuns) {
                keep(try tree.propertyListData(format: .binary)).count
            })
            let bytesFloor = BytesFloor(ours)
            archiving.append(Operation("floor: storing into every byte of the archive's size", id: "write-pass",
                                       growthOf: ("write", "our plist write"), runs: oursRuns) {
                keep(bytesFloor.writePass())
            })
            unarchiving.append(Operation("floor: our reader alone on the same bytes", id: "read", runs: oursRuns, read(ours)))
            unarchiving.append(Operation("floor: loading every byte of the archive once", id: "read-pass",
                                         growthOf: ("read", "our plist read"), runs: oursRuns) {
                keep(bytesFloor.readPass())
            })
            let floor = try GraphFloor(people)
            // Untimed check (up to 200,000 models, as above): the floor builds the graph the unarchiver builds,
            // field for field and friend for friend.
            if count <= 200_000, let difference = GNUstepPeer.difference(floor.build(), back, exactly: true) {
                throw BenchError("the graph-building floor differs from the unarchived graph: \(difference)")
            }
            unarchiving.append(Operation("floor: building the same graph from memory", id: "graph-floor",
                                         growthOf: ("unarchive", "our unarchive"), runs: oursRuns) {
                keep(floor.build()).count
            })
        }
        if !oursOnly && includesFoundation {
            let foundationPeople = FoundationPerson.graph(count: count)
            let theirs = try NSKeyedArchiver.archivedData(withRootObject: foundationPeople, requiringSecureCoding: true)
            reportSize("foundation-archive", theirs.count)
            if let outputDirectory { try theirs.write(to: URL(fileURLWithPath: "\(outputDirectory)/foundation-\(count).bplist")) }
            let foundationBack = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSArray.self, FoundationPerson.self], from: theirs) as? NSArray
            guard foundationBack?.count == count else { throw BenchError("Foundation's unarchived graph differs") }
            print("  archive size: KeyedArchive \(ours.count.formatted()) bytes, Foundation \(theirs.count.formatted()) bytes "
                  + "(\(String(format: "%.1f", 100 * (1 - Double(ours.count) / Double(theirs.count))))% smaller)")
            archiving.insert(Operation("Foundation NSKeyedArchiver.archivedData", id: "foundation-archive", runs: foundationRuns) {
                keep(try NSKeyedArchiver.archivedData(withRootObject: foundationPeople, requiringSecureCoding: true)).count
            }, at: 1)
            unarchiving.insert(Operation("Foundation NSKeyedUnarchiver.unarchivedObject", id: "foundation-unarchive", runs: foundationRuns) {
                (keep(try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSArray.self, FoundationPerson.self], from: theirs)) as? NSArray)?.count ?? 0
            }, at: 1)
            // Foundation's own unarchive/read ratio on the same bytes (its archive): corelibs' NSKeyedUnarchiver
            // starts with this call (`init(forReadingFrom:)`: the whole property list as a tree, cast to a
            // dictionary), then decodes from that tree.
            unarchiving.append(Operation("Foundation PropertyListSerialization, its bytes", id: "foundation-plist-read",
                                         growthOf: ("foundation-unarchive", "NSKeyedUnarchiver on the same bytes"), runs: foundationRuns) {
                (keep(try PropertyListSerialization.propertyList(from: theirs, options: [], format: nil)) as? [String: Any])?.count ?? 0
            })
        } else {
            print("  archive size: KeyedArchive \(ours.count.formatted()) bytes (Foundation not run at \(n) objects)")
        }
        return [
            BenchmarkGroup("archive \(n) objects to bytes", archiving),
            BenchmarkGroup("unarchive \(n) objects from bytes", unarchiving),
        ]
    }

    private func archive(_ people: [BenchPerson]) -> () throws -> Int {
        { keep(try KeyedArchiver.archivedData(withRootObject: people)).count }
    }

    private func unarchive(_ data: Data, _ count: Int) -> () throws -> Int {
        let unarchiver = KeyedUnarchiver(count: count)
        return { keep(try unarchiver.decode([BenchPerson].self, from: data)).count }
    }

    private func read(_ data: Data) -> () throws -> Int {
        { keep(try PropertyListValue(propertyListData: data, options: .forBenchmark(count: count))).dictionaryValue?.count ?? 0 }
    }
}

extension KeyedUnarchiver {
    /// An unarchiver whose limits admit `count` benchmark models (the defaults stop at 200,000 objects' worth).
    init(count: Int) {
        self.init()
        if count > 200_000 {
            limits.maximumObjectCount = 4 * count
            limits.maximumByteCount = 1_000 * count
            readingOptions = .forBenchmark(count: count)
        }
    }
}

extension PropertyListReadingOptions {
    /// Reading options whose object limit admits an archive of `count` benchmark models.
    static func forBenchmark(count: Int) -> PropertyListReadingOptions {
        var options = PropertyListReadingOptions()
        options.maximumObjectCount = max(options.maximumObjectCount, 20 * count)
        return options
    }
}

/// Deterministic field values shared by both models.
enum PersonData {
    static let layers = 20
    static func name(_ i: Int) -> String { "Person \(i) of the benchmark" }
    static func age(_ i: Int) -> Int { 18 + i % 70 }
    static func score(_ i: Int) -> Double { Double(i % 1000) / 7 }
    static func birthday(_ i: Int) -> Date { Date(timeIntervalSinceReferenceDate: Double(i) * 86_400.5) }
    static func tags(_ i: Int) -> [String] { ["tag\(i % 13)", "group\(i % 101)", "t\(i)"] }
    static func avatar(_ i: Int) -> Data { Data((0 ..< 64).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ i) }) }
    /// Three people in the next layer (none for the last layer).
    static func friends(_ i: Int, count: Int) -> [Int] {
        let layerSize = max(1, count / layers)
        let layer = i / layerSize
        let next = (layer + 1) * layerSize
        guard layer + 1 < layers, next < count else { return [] }
        let span = min(layerSize, count - next)
        return (1 ... 3).map { next + (i &* 31 &+ $0 &* 977) % span }
    }
}

/// Our model.
final class BenchPerson: KeyedArchivable {
    static var archivedClassName: String { "ArchiveBench.Person" }
    var index: Int
    var name: String
    var age: Int
    var score: Double
    var birthday: Date
    var tags: [String]
    var avatar: Data
    var friends: [BenchPerson] = []

    init(_ i: Int) {
        index = i
        name = PersonData.name(i)
        age = PersonData.age(i)
        score = PersonData.score(i)
        birthday = PersonData.birthday(i)
        tags = PersonData.tags(i)
        avatar = PersonData.avatar(i)
    }

    /// A person of the given values and no friends yet (``GraphFloor``).
    init(index: Int, name: String, age: Int, score: Double, birthday: Date, tags: [String], avatar: Data) {
        self.index = index
        self.name = name
        self.age = age
        self.score = score
        self.birthday = birthday
        self.tags = tags
        self.avatar = avatar
    }

    static func graph(count: Int) -> [BenchPerson] {
        let people = (0 ..< count).map(BenchPerson.init)
        for p in people { p.friends = PersonData.friends(p.index, count: count).map { people[$0] } }
        return people
    }

    init(from decoder: any ArchiveDecoder) throws {
        index = try decoder.decode(Int.self, forKey: "index")
        name = try decoder.decode(String.self, forKey: "name")
        age = try decoder.decode(Int.self, forKey: "age")
        score = try decoder.decode(Double.self, forKey: "score")
        birthday = try decoder.decode(Date.self, forKey: "birthday")
        tags = try ["tag0", "tag1", "tag2"].map { try decoder.decode(String.self, forKey: $0) }
        avatar = try decoder.decode(Data.self, forKey: "avatar")
        for key in ["friend0", "friend1", "friend2"] {
            if let friend = try decoder.decodeIfPresent(BenchPerson.self, forKey: key) { friends.append(friend) }
        }
    }

    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(index, forKey: "index")
        try encoder.encode(name, forKey: "name")
        try encoder.encode(age, forKey: "age")
        try encoder.encode(score, forKey: "score")
        try encoder.encode(birthday, forKey: "birthday")
        for (i, tag) in tags.enumerated() { try encoder.encode(tag, forKey: "tag\(i)") }
        try encoder.encode(avatar, forKey: "avatar")
        for (i, key) in ["friend0", "friend1", "friend2"].enumerated() {
            try encoder.encode(i < friends.count ? friends[i] : nil, forKey: key)
        }
    }
}

/// Foundation's model, with identity-based `hash`/`isEqual` (see ``ArchiverWorkload``).
final class FoundationPerson: NSObject, NSSecureCoding {
    static var supportsSecureCoding: Bool { true }
    var index: Int
    var name: String
    var age: Int
    var score: Double
    var birthday: Date
    var tags: [String]
    var avatar: Data
    var friends: [FoundationPerson] = []

    init(_ i: Int) {
        index = i
        name = PersonData.name(i)
        age = PersonData.age(i)
        score = PersonData.score(i)
        birthday = PersonData.birthday(i)
        tags = PersonData.tags(i)
        avatar = PersonData.avatar(i)
    }

    static func graph(count: Int) -> NSArray {
        let people = (0 ..< count).map(FoundationPerson.init)
        for p in people { p.friends = PersonData.friends(p.index, count: count).map { people[$0] } }
        return NSArray(array: people)
    }

    override var hash: Int { ObjectIdentifier(self).hashValue }
    override func isEqual(_ object: Any?) -> Bool { (object as? FoundationPerson) === self }

    func encode(with coder: NSCoder) {
        coder.encode(index, forKey: "index")
        coder.encode(name, forKey: "name")
        coder.encode(age, forKey: "age")
        coder.encode(score, forKey: "score")
        coder.encode(NSDate(timeIntervalSinceReferenceDate: birthday.timeIntervalSinceReferenceDate), forKey: "birthday")
        for (i, tag) in tags.enumerated() { coder.encode(tag, forKey: "tag\(i)") }
        coder.encode(NSData(data: avatar), forKey: "avatar")
        for (i, key) in ["friend0", "friend1", "friend2"].enumerated() {
            coder.encode(i < friends.count ? friends[i] : nil, forKey: key)
        }
    }

    init?(coder: NSCoder) {
        guard let name = coder.decodeObject(of: NSString.self, forKey: "name"),
              let birthday = coder.decodeObject(of: NSDate.self, forKey: "birthday"),
              let avatar = coder.decodeObject(of: NSData.self, forKey: "avatar") else { return nil }
        index = coder.decodeInteger(forKey: "index")
        self.name = String(describing: name)
        age = coder.decodeInteger(forKey: "age")
        score = coder.decodeDouble(forKey: "score")
        self.birthday = Date(timeIntervalSinceReferenceDate: birthday.timeIntervalSinceReferenceDate)
        tags = ["tag0", "tag1", "tag2"].compactMap { coder.decodeObject(of: NSString.self, forKey: $0).map { String(describing: $0) } }
        self.avatar = Data(referencing: avatar)
        for key in ["friend0", "friend1", "friend2"] {
            if let friend = coder.decodeObject(of: FoundationPerson.self, forKey: key) { friends.append(friend) }
        }
    }
}
