import Foundation

/// The floor of the work an unarchive of ``ArchiverWorkload``'s archive does beyond reading its property
/// list: building the same decoded graph from values already in memory (issue #18's "unarchive at most
/// 1.2x our plist read of the same bytes"; the report sets `(unarchive - floor) / read` beside the plain ratio).
///
/// ``build()`` makes what `KeyedUnarchiver.decode([BenchPerson].self, from:)` returns, object for object and
/// in the same order: the root array (its capacity reserved, as the unarchiver's array decoding does), and
/// each person depth first along its friends, as the unarchiver meets them: the instance and its fields (the
/// name is allocated just before the instance here, as an argument of its initializer, and just after it in
/// the unarchiver), then its friends appended one by one as `BenchPerson.init(from:)` does (each built first
/// if new), the person entered in a table by index afterwards (the unarchiver's table of decoded objects,
/// which shared references need; allocated per run, as the unarchiver's, and holding the people unretained).
/// Per person that is:
/// - the name, a freshly allocated `String` made from UTF-8 bytes (`String(decoding:as:)`, the call the
///   unarchiver makes for a string too long to be stored inline);
/// - the 3 tags, each at most 15 bytes, so a small string stored inline in the `String` value, as the
///   unarchiver makes them (no allocation): copied from memory; their array of 3 is allocated;
/// - the avatar, a 64-byte slice of one `Data` holding every avatar (the unarchiver returns a slice of the
///   archive's bytes, no copy);
/// - index, age, score and birthday (`Date`) from memory.
///
/// What it leaves out is everything about the archive: reading the property list, finding keys, checking
/// classes, types and limits, resolving UIDs. Run with ``keep(_:)`` like every operation, so that the graph
/// is alive until after the clock stops and freeing it is not timed.
struct GraphFloor {
    /// One person's values, what the unarchiver would have read from the archive.
    private struct Record {
        var index: Int
        var age: Int
        var score: Double
        var birthday: TimeInterval
        /// Where the name's UTF-8 bytes are in ``GraphFloor/text``.
        var nameStart: Int32
        var nameCount: Int32
        /// Where the avatar's bytes start in ``GraphFloor/avatars``.
        var avatarStart: Int
        /// Friends' indices (`friendCount` of them).
        var friends: (Int32, Int32, Int32)
        var friendCount: Int
    }

    let count: Int
    /// Plain values only, so that reading a record retains nothing.
    private let records: [Record]
    /// Every person's 3 tags, in order: small strings (at most 15 UTF-8 bytes), so copying one copies its
    /// bits, nothing is allocated.
    private let tags: [String]
    /// Every name's UTF-8 bytes, back to back.
    private let text: [UInt8]
    /// Every avatar's bytes, back to back.
    private let avatars: Data
    static let avatarCount = 64

    /// The values of `people` (the benchmark's graph, people indexed by `index`), copied into memory of its own.
    init(_ people: [BenchPerson]) throws {
        count = people.count
        var text: [UInt8] = [], avatars = Data(), records: [Record] = [], tags: [String] = []
        records.reserveCapacity(people.count)
        for (i, p) in people.enumerated() {
            guard p.index == i, p.tags.count == 3, p.tags.allSatisfy({ $0.utf8.count <= 15 }), p.friends.count <= 3,
                  p.avatar.count == Self.avatarCount, text.count + p.name.utf8.count <= Int(Int32.max) else {
                throw BenchError("the graph-building floor expects people by index with 3 tags of at most 15 bytes, "
                                 + "at most 3 friends and a \(Self.avatarCount)-byte avatar; person \(i) differs")
            }
            let friends = p.friends.map { Int32(truncatingIfNeeded: $0.index) } + [-1, -1, -1]
            records.append(Record(index: p.index, age: p.age, score: p.score, birthday: p.birthday.timeIntervalSinceReferenceDate,
                                  nameStart: Int32(text.count), nameCount: Int32(p.name.utf8.count),
                                  avatarStart: avatars.count,
                                  friends: (friends[0], friends[1], friends[2]), friendCount: p.friends.count))
            text += p.name.utf8
            tags += p.tags
            avatars.append(p.avatar)
        }
        self.records = records
        self.text = text
        self.tags = tags
        self.avatars = avatars
    }

    /// Builds the graph (see the type's comment): the root array of the people, by index.
    func build() -> [BenchPerson] {
        // Unretained: the root array owns every person (a retain and a release per person fewer than a table of
        // strong references, which would touch every instance again when it is freed).
        var made = [Unmanaged<BenchPerson>?](repeating: nil, count: count)
        return records.withUnsafeBufferPointer { records in
            text.withUnsafeBufferPointer { text in
                tags.withUnsafeBufferPointer { tags in
                made.withUnsafeMutableBufferPointer { made in
                    func person(_ i: Int) -> BenchPerson {
                        if let p = made[i] { return p.takeUnretainedValue() }
                        let start = Int(records[i].nameStart), avatar = records[i].avatarStart
                        let p = BenchPerson(index: records[i].index,
                                            name: String(decoding: UnsafeBufferPointer(rebasing: text[start ..< start + Int(records[i].nameCount)]),
                                                         as: UTF8.self),
                                            age: records[i].age, score: records[i].score,
                                            birthday: Date(timeIntervalSinceReferenceDate: records[i].birthday),
                                            tags: [tags[3 * i], tags[3 * i + 1], tags[3 * i + 2]],
                                            avatar: avatars[avatar ..< avatar + Self.avatarCount])
                        for k in 0 ..< records[i].friendCount {
                            let f = Int(k == 0 ? records[i].friends.0 : k == 1 ? records[i].friends.1 : records[i].friends.2)
                            p.friends.append(person(f))
                        }
                        made[i] = Unmanaged.passUnretained(p)
                        return p
                    }
                    var people: [BenchPerson] = []
                    people.reserveCapacity(count)
                    for i in 0 ..< count { people.append(person(i)) }
                    return people
                }
                }
            }
        }
    }
}
