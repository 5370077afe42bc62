import Foundation
@testable import KeyedArchive

// Models for the Codable tests: every container kind and field type, with no hand-written coding.

enum CMood: String, Codable, Hashable { case happy, sad }

/// An enum with associated values: synthesized Codable uses nested keyed containers.
enum CShape: Codable, Equatable {
    case circle(radius: Double)
    case rect(w: Int, h: Int)
    case point
    case labeled(String, Int)
}

struct CPoint: Codable, Hashable { var x: Int; var y: Int }

/// A struct that encodes itself with an unkeyed container.
struct CPair: Codable, Equatable {
    var a: Int
    var b: String
    init(a: Int, b: String) { self.a = a; self.b = b }
    init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        a = try c.decode(Int.self)
        b = try c.decode(String.self)
    }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(a)
        try c.encode(b)
    }
}

/// A wrapper with a single-value container.
struct CWrapper: Codable, Equatable {
    var inner: Int
    init(_ inner: Int) { self.inner = inner }
    init(from decoder: any Decoder) throws { inner = try decoder.singleValueContainer().decode(Int.self) }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(inner)
    }
}

/// Nested keyed and unkeyed containers written by hand.
struct CNested: Codable, Equatable {
    var name: String
    var coordinates: [Double]
    var inner: [String: Int]
    enum CodingKeys: String, CodingKey { case name, geometry }
    enum GeometryKeys: String, CodingKey { case coordinates, inner }
    init(name: String, coordinates: [Double], inner: [String: Int]) {
        self.name = name; self.coordinates = coordinates; self.inner = inner
    }
    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        let g = try c.nestedContainer(keyedBy: GeometryKeys.self, forKey: .geometry)
        var list = try g.nestedUnkeyedContainer(forKey: .coordinates)
        var values: [Double] = []
        while !list.isAtEnd { values.append(try list.decode(Double.self)) }
        coordinates = values
        inner = try g.decode([String: Int].self, forKey: .inner)
    }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        var g = c.nestedContainer(keyedBy: GeometryKeys.self, forKey: .geometry)
        var list = g.nestedUnkeyedContainer(forKey: .coordinates)
        for v in coordinates { try list.encode(v) }
        try g.encode(inner, forKey: .inner)
    }
}

/// Every field type and container kind in one archived object.
struct CAllFields: ArchivableCodable, Equatable {
    var bool = true
    var int = -42, int8: Int8 = -8, int16: Int16 = -16, int32: Int32 = -32, int64: Int64 = .min
    var uint: UInt = 42, uint8: UInt8 = 8, uint16: UInt16 = 16, uint32: UInt32 = 32, uint64: UInt64 = UInt64(Int64.max)
    var float: Float = 1.25, double = -2.5e-300
    var string = "héllo ✓"
    var data = Data([0, 1, 2, 255])
    var date = Date(timeIntervalSinceReferenceDate: 700_000_000.25)
    var uuid = UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))
    var url = URL(string: "https://example.org/a?b=c")!
    var optionalPresent: String? = "here"
    var optionalAbsent: Int? = nil
    var optionalStruct: CPoint? = CPoint(x: 1, y: 2)
    var mood = CMood.sad
    var moods: [CMood] = [.happy, .sad]
    var shape = CShape.rect(w: 3, h: 4)
    var shapes: [CShape] = [.circle(radius: 1.5), .point, .labeled("x", 7)]
    var point = CPoint(x: -1, y: 9)
    var points = [CPoint(x: 1, y: 1), CPoint(x: 2, y: 3)]
    var pair = CPair(a: 5, b: "five")
    var wrapper = CWrapper(77)
    var nested = CNested(name: "n", coordinates: [1.5, -2], inner: ["k": 1])
    var tags = ["a", "b", "a"]
    var numbers: Set<Int> = [3, 1, 2]
    var counts: [String: Int] = ["x": 1, "y": -2]
    var byNumber: [Int: String] = [1: "one", 20: "twenty"]
    var pointsByMood: [CMood: CPoint] = [.happy: CPoint(x: 0, y: 0)]
    var matrix: [[Int]] = [[1, 2], [], [3]]
    var optionalElements: [Int?] = [1, nil, 3]
    var emptyArray: [String] = []
    var emptySet: Set<CPoint> = []
    var pointSet: Set<CPoint> = [CPoint(x: 1, y: 2), CPoint(x: 3, y: 4)]
    var personRef = CPersonRef(CPerson("ref"))
    var emptyDictionary: [String: CPoint] = [:]
}

/// A single-value wrapper around a model (as property wrappers are).
struct CPersonRef: Codable, Equatable {
    var person: CPerson
    init(_ person: CPerson) { self.person = person }
    init(from decoder: any Decoder) throws { person = try decoder.singleValueContainer().decode(CPerson.self) }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(person)
    }
    static func == (a: CPersonRef, b: CPersonRef) -> Bool { a.person.name == b.person.name }
}

/// A model whose single-value and unkeyed containers are at the object level.
enum CLevel: String, ArchivableCodable { case low, high }
struct CVector: ArchivableCodable, Equatable {
    var values: [Int]
    init(_ values: [Int]) { self.values = values }
    init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        var v: [Int] = []
        while !c.isAtEnd { v.append(try c.decode(Int.self)) }
        values = v
    }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.unkeyedContainer()
        for v in values { try c.encode(v) }
    }
}

/// Classes: identity, sharing and cycles.
final class CPerson: ArchivableCodable {
    var name: String
    var friends: [CPerson] = []
    var best: CPerson?
    init(_ name: String) { self.name = name }
}

/// A class hierarchy using superEncoder / superDecoder.
class CAnimal: ArchivableCodable {
    var name: String
    init(name: String) { self.name = name }
    enum CodingKeys: String, CodingKey { case name }
    required init(from decoder: any Decoder) throws {
        name = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .name)
    }
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
    }
}

final class CDog: CAnimal {
    var tricks: [String]
    init(name: String, tricks: [String]) { self.tricks = tricks; super.init(name: name) }
    enum DogKeys: String, CodingKey { case tricks }
    required init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: DogKeys.self)
        tricks = try c.decode([String].self, forKey: .tricks)
        try super.init(from: c.superDecoder())
    }
    override func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: DogKeys.self)
        try c.encode(tricks, forKey: .tricks)
        try super.encode(to: c.superEncoder())
    }
}

/// A hand-written model holding a Codable one, and a Codable one holding a hand-written one.
final class CHandWritten: KeyedArchivable {
    var label: String
    var codable: CPersonCard
    init(label: String, codable: CPersonCard) { self.label = label; self.codable = codable }
    init(from decoder: any ArchiveDecoder) throws {
        label = try decoder.decode(String.self, forKey: "label")
        codable = try decoder.decode(CPersonCard.self, forKey: "codable")
    }
    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(label, forKey: "label")
        try encoder.encode(codable, forKey: "codable")
    }
}

struct CPersonCard: ArchivableCodable, Equatable {
    static var archivedClassName: String { "Card" }
    static var legacyClassNames: [String] { ["OldCard"] }
    var title: String
    var mood: CMood
}

struct CHoldsHandWritten: ArchivableCodable {
    @Archived var inner: CHandWritten
}

/// A type that is both hand-written and Codable: the hand-written coding wins.
struct CBoth: ArchivableCodable, Equatable {
    var value: Int
    init(value: Int) { self.value = value }
    init(from decoder: any ArchiveDecoder) throws { value = try decoder.decode(Int.self, forKey: "handWritten") }
    func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(value, forKey: "handWritten") }
}

/// Security: types whose initializers record that they ran.
nonisolated(unsafe) var tripwireInits = 0
final class CTripwire: ArchivableCodable {
    var note: String
    init(note: String) { self.note = note }
    init(from decoder: any Decoder) throws {
        tripwireInits += 1
        note = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .note)
    }
    enum CodingKeys: String, CodingKey { case note }
}

struct CHolderWithTripwire: ArchivableCodable {
    static var archivedClassName: String { "Holder" }
    var item: CTripwire
}

struct CHolderWithPoint: ArchivableCodable {
    static var archivedClassName: String { "Holder" }
    var item: CPoint
}

/// A plain Codable struct with CPoint's fields and another name.
struct CEvilPoint: Codable { var x: Int; var y: Int }
struct CHolderWithEvil: ArchivableCodable {
    static var archivedClassName: String { "Holder" }
    var item: CEvilPoint
}

/// A recursive Codable enum, for depth limits.
indirect enum CList: Codable, Equatable {
    case end
    case node(Int, CList)
    static func of(length: Int) -> CList { (0 ..< length).reversed().reduce(.end) { .node($1, $0) } }
}
struct CListHolder: ArchivableCodable, Equatable { var list: CList }

/// A plain Codable class: must adopt ArchivableCodable.
final class CPlainClass: Codable { var x = 1 }
struct CHoldsPlainClass: ArchivableCodable { var item: CPlainClass }

/// A model that asks its encoder for keyed containers of two key types and writes through both in turn (as
/// a subclass whose `encode(to:)` calls `super.encode(to: encoder)` does), referring to models of two other
/// kinds: archived among many, its objects alternate with theirs.
final class CTwoKeyed: ArchivableCodable {
    var label: String
    var count: Int
    var vector: CVector
    var person: CPerson
    enum LabelKeys: String, CodingKey { case label, vector }
    enum CountKeys: String, CodingKey { case count, person }
    init(_ i: Int) {
        label = "l\(i)"
        count = i
        vector = CVector([i, i + 1])
        person = CPerson("p\(i)")
    }
    required init(from decoder: any Decoder) throws {
        let labels = try decoder.container(keyedBy: LabelKeys.self)
        let counts = try decoder.container(keyedBy: CountKeys.self)
        label = try labels.decode(String.self, forKey: .label)
        count = try counts.decode(Int.self, forKey: .count)
        vector = try labels.decode(CVector.self, forKey: .vector)
        person = try counts.decode(CPerson.self, forKey: .person)
    }
    func encode(to encoder: any Encoder) throws {
        var labels = encoder.container(keyedBy: LabelKeys.self)
        var counts = encoder.container(keyedBy: CountKeys.self)
        try labels.encode(label, forKey: .label)
        try counts.encode(count, forKey: .count)
        try labels.encode(vector, forKey: .vector)
        try counts.encode(person, forKey: .person)
    }
}

/// A model writing each field through a keyed container of its own key type: more key types than an
/// archiver keeps containers for.
struct CFiveKeyed: ArchivableCodable, Equatable {
    var a: Int, b: Int, c: Int, d: Int, e: Int
    enum A: CodingKey { case a }
    enum B: CodingKey { case b }
    enum C: CodingKey { case c }
    enum D: CodingKey { case d }
    enum E: CodingKey { case e }
    init(_ i: Int) { (a, b, c, d, e) = (i, i + 1, i + 2, i + 3, i + 4) }
    init(from decoder: any Decoder) throws {
        a = try decoder.container(keyedBy: A.self).decode(Int.self, forKey: .a)
        b = try decoder.container(keyedBy: B.self).decode(Int.self, forKey: .b)
        c = try decoder.container(keyedBy: C.self).decode(Int.self, forKey: .c)
        d = try decoder.container(keyedBy: D.self).decode(Int.self, forKey: .d)
        e = try decoder.container(keyedBy: E.self).decode(Int.self, forKey: .e)
    }
    func encode(to encoder: any Encoder) throws {
        var ca = encoder.container(keyedBy: A.self)
        try ca.encode(a, forKey: .a)
        var cb = encoder.container(keyedBy: B.self)
        try cb.encode(b, forKey: .b)
        var cc = encoder.container(keyedBy: C.self)
        try cc.encode(c, forKey: .c)
        var cd = encoder.container(keyedBy: D.self)
        try cd.encode(d, forKey: .d)
        var ce = encoder.container(keyedBy: E.self)
        try ce.encode(e, forKey: .e)
    }
}
