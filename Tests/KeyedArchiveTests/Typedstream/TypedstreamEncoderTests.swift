import Foundation
import Testing
@testable import KeyedArchive

/// Users' own classes written positionally (``TypedstreamEncodable``) by ``TypedstreamArchiver``, read back by
/// ``TypedstreamDecoder`` field by field and by pytypedstream (class names, versions, values).
@Suite("Typedstream encoder")
struct TypedstreamEncoderTests {
    /// A base class at version 2: a name, an origin struct, and since version 2 a tag.
    class Shape: TypedstreamCodable {
        class var typedstreamClassName: String { "Shape" }
        class var typedstreamClassVersion: Int { 2 }
        // Named literally: in a subclass, `typedstreamClassName` here would be the subclass's.
        class var typedstreamClassChain: [TypedstreamClassVersion] {
            [TypedstreamClassVersion(name: "Shape", version: 2), TypedstreamClassVersion(name: "NSObject", version: 0)]
        }

        var name: String?
        var origin: (x: Float, y: Float)
        var tag: Int

        init(name: String?, origin: (x: Float, y: Float), tag: Int) {
            (self.name, self.origin, self.tag) = (name, origin, tag)
        }

        required init(from decoder: TypedstreamDecoder) throws {
            name = try decoder.decodeString()
            let point = try decoder.decodeValues(ofObjCTypes: "{_NSPoint=ff}")
            guard case .structure(let fields) = point[0], case .float(let x) = fields[0], case .float(let y) = fields[1] else {
                throw TypedstreamError(.dataCorrupted, "origin")
            }
            origin = (x, y)
            // Version 1 archives have no tag.
            tag = (decoder.version(forClassName: "Shape") ?? 0) >= 2 ? try decoder.decodeInteger() : 0
        }

        func encode(to encoder: TypedstreamEncoder) throws {
            try encoder.encodeString(name)
            try encoder.encodeValues([.structure([.float(origin.x), .float(origin.y)])], ofObjCTypes: "{_NSPoint=ff}")
            try encoder.encodeInteger(tag)
        }
    }

    /// A subclass at version 5 holding values of every kind the encoder writes.
    final class Circle: Shape {
        override class var typedstreamClassName: String { "Circle" }
        override class var typedstreamClassVersion: Int { 5 }
        override class var typedstreamClassChain: [TypedstreamClassVersion] {
            [TypedstreamClassVersion(name: typedstreamClassName, version: typedstreamClassVersion)] + super.typedstreamClassChain
        }

        var radius = 0.0
        var weight: Float = 0
        var fill = FoundationValue.null
        var label: Label?
        var bytes = Data()
        var flags: UInt16 = 0
        var big: Int = 0
        var pairs: [TypedstreamValue] = []

        init(name: String?, origin: (x: Float, y: Float), tag: Int, radius: Double) {
            self.radius = radius
            super.init(name: name, origin: origin, tag: tag)
        }

        required init(from decoder: TypedstreamDecoder) throws {
            try super.init(from: decoder)
            radius = try decoder.decodeDouble()
            weight = Float(try decoder.decodeDouble())
            fill = try decoder.decodeFoundationValue()
            label = try decoder.decodeObject(of: Label.self)
            guard case .byteArray(let stored) = try decoder.decodeValues(ofObjCTypes: "[4c]")[0] else { throw TypedstreamError(.dataCorrupted, "bytes") }
            bytes = stored
            flags = UInt16(try decoder.decodeInteger())
            big = try decoder.decodeInteger()
            pairs = try decoder.decodeValues(ofObjCTypes: "{Pair=[2i]d}*B")
        }

        override func encode(to encoder: TypedstreamEncoder) throws {
            try super.encode(to: encoder)
            try encoder.encodeDouble(radius)
            try encoder.encodeFloat(weight)
            try encoder.encodeFoundationValue(fill)
            try encoder.encodeObject(label)
            try encoder.encodeValues([.byteArray(bytes)], ofObjCTypes: "[4c]")
            try encoder.encodeInteger(Int(flags), ofObjCType: "S")
            try encoder.encodeInteger(big, ofObjCType: "q")
            try encoder.encodeValues(pairs, ofObjCTypes: "{Pair=[2i]d}*B")
        }
    }

    /// A struct written inside the circle, with the default class chain.
    struct Label: TypedstreamCodable, Equatable {
        static let typedstreamClassName = "Label"
        var text: String
        var size: Int
        init(text: String, size: Int) { (self.text, self.size) = (text, size) }
        init(from decoder: TypedstreamDecoder) throws {
            text = try decoder.decodeString() ?? ""
            size = try decoder.decodeInteger()
        }
        func encode(to encoder: TypedstreamEncoder) throws {
            try encoder.encodeString(text)
            try encoder.encodeInteger(size, ofObjCType: "s")
        }
    }

    static func circle() -> Circle {
        let circle = Circle(name: "sun", origin: (1.5, -2), tag: 9, radius: 0.1)
        circle.weight = 2.25
        circle.fill = .array([.string("yellow"), .integer(3), .dictionary([.string("k"): .real(1.5)])])
        circle.label = Label(text: "Sol ☀️", size: -12)
        circle.bytes = Data([0, 0x7F, 0x80, 0xFF])
        circle.flags = 0xBEEF
        circle.big = -9_000_000_000
        circle.pairs = [.structure([.array([.integer(1), .integer(-1)]), .double(0.5)]), .cString(Data("c".utf8)), .bool(true)]
        return circle
    }

    static func expectEqual(_ back: Circle, _ circle: Circle) {
        #expect(back.name == circle.name)
        #expect(back.origin == circle.origin)
        #expect(back.tag == circle.tag)
        #expect(back.radius == circle.radius)
        #expect(back.weight == circle.weight)
        #expect(back.fill == circle.fill)
        #expect(back.label == circle.label)
        #expect(back.bytes == circle.bytes)
        #expect(back.flags == circle.flags)
        #expect(back.big == circle.big)
        #expect(back.pairs == circle.pairs)
    }

    @Test func subclassIsWrittenWithItsChainAndVersionsAndReadBackFieldByField() throws {
        let circle = Self.circle()
        let archive = try TypedstreamArchiver().archive(withRootObject: circle)
        let root = try #require(archive.objects.first)
        #expect(archive.classChain(ofClassAt: root.classIndex).map { TypedstreamClassVersion(name: $0.name, version: $0.version) }
                == [.init(name: "Circle", version: 5), .init(name: "Shape", version: 2), .init(name: "NSObject", version: 0)])
        // Superclass fields first, then the subclass's, one group per call.
        #expect(root.groups.map(\.encoding) == ["@", "{_NSPoint=ff}", "i", "d", "f", "@", "@", "[4c]", "S", "q", "{Pair=[2i]d}*B"])
        let back = try TypedstreamUnarchiver().decode(Circle.self, from: archive.encodedData())
        Self.expectEqual(back, circle)
    }

    /// A version-1 reader path: the archive records Shape at version 1, and `init(from:)` reads no tag.
    @Test func versionWrittenIsTheOneTheDecoderMigratesBy() throws {
        struct OldShape: TypedstreamEncodable {
            static let typedstreamClassName = "Shape"
            static let typedstreamClassVersion = 1
            func encode(to encoder: TypedstreamEncoder) throws {
                try encoder.encodeString("old")
                try encoder.encodeValues([.structure([.float(0), .float(1)])], ofObjCTypes: "{_NSPoint=ff}")
            }
        }
        let data = try TypedstreamArchiver().archivedData(withRootObject: OldShape())
        let shape = try TypedstreamUnarchiver().decode(Shape.self, from: data)
        #expect(shape.name == "old")
        #expect(shape.origin == (0, 1))
        #expect(shape.tag == 0)
    }

    @Test func renamedClassIsWrittenUnderItsArchivedName() throws {
        var archiver = TypedstreamArchiver()
        archiver.setClassName("OldCircle", forClassName: "Circle")
        archiver.setClassName("OldShape", forClassName: "Shape")
        let archive = try archiver.archive(withRootObject: Self.circle())
        #expect(archive.classChain(ofClassAt: archive.objects[0].classIndex).map(\.name) == ["OldCircle", "OldShape", "NSObject"])
        let data = try archive.encodedData()
        #expect(throws: TypedstreamError.self) { try TypedstreamUnarchiver().decode(Circle.self, from: data) }
        var unarchiver = TypedstreamUnarchiver()
        unarchiver.setClass(Circle.self, forClassName: "OldCircle")
        unarchiver.setClass(Shape.self, forClassName: "OldShape")
        let back = try unarchiver.decode(Circle.self, from: data)
        // Shape's `version(forClassName: "Shape")` finds OldShape's version through the registration.
        Self.expectEqual(back, Self.circle())
    }

    /// A class instance met twice is stored once and then referred to, as `NSArchiver` does; a struct is
    /// stored each time.
    @Test func instanceMetAgainIsAReference() throws {
        struct Pair: TypedstreamCodable {
            static let typedstreamClassName = "Pair"
            var first: Circle?, second: Circle?
            init(first: Circle?, second: Circle?) { (self.first, self.second) = (first, second) }
            init(from decoder: TypedstreamDecoder) throws {
                first = try decoder.decodeObject(of: Circle.self)
                second = try decoder.decodeObject(of: Circle.self)
            }
            func encode(to encoder: TypedstreamEncoder) throws {
                try encoder.encodeObject(first)
                try encoder.encodeObject(second)
            }
        }
        let circle = Self.circle()
        let archive = try TypedstreamArchiver().archive(withRootObject: Pair(first: circle, second: circle))
        guard case .object(let stored) = archive.objects[0].groups[0].values[0] else {
            Issue.record("the first circle is not stored")
            return
        }
        #expect(archive.objects[0].groups[1].values == [.objectReference(stored)])
        #expect(archive.objects.indices.filter { archive.className(ofObjectAt: $0) == "Circle" } == [stored])
        let back = try TypedstreamUnarchiver().decode(Pair.self, from: archive.encodedData())
        Self.expectEqual(try #require(back.first), circle)
        Self.expectEqual(try #require(back.second), circle)
        #expect(try TypedstreamUnarchiver().decode(Pair.self, from: TypedstreamArchiver().archivedData(withRootObject: Pair(first: nil, second: nil))).first == nil)
    }

    @Test func valuesThatAreNotOfTheirTypeAreRefused() throws {
        struct Writes: TypedstreamEncodable {
            static let typedstreamClassName = "Writes"
            let values: [TypedstreamValue]
            let types: String
            func encode(to encoder: TypedstreamEncoder) throws { try encoder.encodeValues(values, ofObjCTypes: types) }
        }
        let refused: [([TypedstreamValue], String)] = [
            ([.integer(300)], "c"), ([.integer(1 << 40)], "i"), ([.unsignedInteger(70_000)], "S"), ([.integer(1)], "I"),
            ([.object(0)], "@"), ([.class(0)], "#"), ([.double(1)], "f"), ([.byteArray(Data([1]))], "[2c]"),
            ([.array([.integer(1)])], "[1c]"), ([.array([.integer(1)])], "[2i]"), ([.structure([.float(1)])], "{_NSPoint=ff}"),
            ([.integer(1), .integer(2)], "i"), ([.integer(1)], "{"), ([.integer(1)], "x"),
        ]
        for (values, types) in refused {
            #expect(throws: TypedstreamError.self, "\(values) as \(types)") {
                try TypedstreamArchiver().archivedData(withRootObject: Writes(values: values, types: types))
            }
        }
        #expect {
            try TypedstreamArchiver().archivedData(withRootObject: Writes(values: [.integer(300)], types: "c"))
        } throws: { error in
            let error = error as? TypedstreamError
            return error?.code == .invalidArchive && error?.className == "Writes" && error?.message.contains("300") == true
        }
        struct Integer: TypedstreamEncodable {
            static let typedstreamClassName = "Integer"
            let value: Int, type: String
            func encode(to encoder: TypedstreamEncoder) throws { try encoder.encodeInteger(value, ofObjCType: type) }
        }
        for (value, type) in [(-1, "Q"), (128, "c"), (1, "f"), (1, "ii")] {
            #expect(throws: TypedstreamError.self, "\(value) as \(type)") {
                try TypedstreamArchiver().archivedData(withRootObject: Integer(value: value, type: type))
            }
        }
    }

    @Test func inconsistentChainsAndThrowingEncodersAreErrorsNamingTheClass() throws {
        struct Misnamed: TypedstreamEncodable {
            static let typedstreamClassName = "Misnamed"
            static var typedstreamClassChain: [TypedstreamClassVersion] { [TypedstreamClassVersion(name: "Other", version: 0)] }
            func encode(to encoder: TypedstreamEncoder) throws {}
        }
        #expect(throws: TypedstreamError.self) { try TypedstreamArchiver().archivedData(withRootObject: Misnamed()) }
        // Label at version 0 and, inside it, a "Label" at version 1: one class cannot have two versions.
        struct Twice: TypedstreamEncodable {
            static let typedstreamClassName = "Label"
            static let typedstreamClassVersion = 1
            func encode(to encoder: TypedstreamEncoder) throws {}
        }
        struct Holder: TypedstreamEncodable {
            static let typedstreamClassName = "Holder"
            func encode(to encoder: TypedstreamEncoder) throws {
                try encoder.encodeObject(Label(text: "a", size: 1))
                try encoder.encodeObject(Twice())
            }
        }
        #expect {
            try TypedstreamArchiver().archivedData(withRootObject: Holder())
        } throws: { error in
            (error as? TypedstreamError)?.message.contains("version 1") == true
        }
        struct Failing: TypedstreamEncodable {
            struct Refusal: Error {}
            static let typedstreamClassName = "Failing"
            func encode(to encoder: TypedstreamEncoder) throws { throw Refusal() }
        }
        #expect {
            try TypedstreamArchiver().archivedData(withRootObject: Failing())
        } throws: { error in
            let error = error as? TypedstreamError
            return error?.className == "Failing" && error?.message.contains("Refusal") == true
        }
    }

    /// A linked list of 3,000 nodes is written on a thread sized for it; past ``TypedstreamArchiver/maximumDepth``
    /// it is refused.
    @Test func deepObjectsAreWrittenAndTheDepthLimitHolds() throws {
        final class Node: TypedstreamCodable {
            static let typedstreamClassName = "Node"
            let next: Node?
            init(next: Node?) { self.next = next }
            init(from decoder: TypedstreamDecoder) throws { next = try decoder.decodeObject(of: Node.self) }
            func encode(to encoder: TypedstreamEncoder) throws { try encoder.encodeObject(next) }
        }
        var head: Node?
        for _ in 0 ..< 3_000 { head = Node(next: head) }
        let root = try #require(head)
        let data = try TypedstreamArchiver().archivedData(withRootObject: root)
        var node: Node? = try TypedstreamUnarchiver().decode(Node.self, from: data)
        var length = 0
        while let current = node { length += 1; node = current.next }
        #expect(length == 3_000)
        var limited = TypedstreamArchiver()
        limited.maximumDepth = 100
        #expect {
            try limited.archivedData(withRootObject: root)
        } throws: { error in
            (error as? TypedstreamError)?.code == .limitExceeded
        }
    }

    /// pytypedstream reads what we write from our own classes: the same event stream as our model (every
    /// class name and version, every value), and its unarchiver's generic object holds the class chain
    /// Circle 5, Shape 2, NSObject 0 and the values written.
    @Test(.requiresPytypedstream)
    func pytypedstreamReadsOurClasses() throws {
        for order in [TypedstreamArchive.ByteOrder.littleEndian, .bigEndian] {
            var archiver = TypedstreamArchiver()
            archiver.byteOrder = order
            let circle = Self.circle()
            circle.big = 7   // pytypedstream does not read the 8-byte form a larger value needs.
            let archive = try archiver.archive(withRootObject: circle)
            let reading = try PytypedstreamOracle.read(bytes: archive.encodedData())
            #expect(reading.readError == nil, "\(reading.readError ?? "")")
            #expect(reading.events.map(TypedstreamEvents.normalized) == TypedstreamEvents.events(of: archive))
            let root = try #require(((reading.decoded?.first as? [Any])?.last as? [Any])?.first as? [String: Any])
            let object = try #require(root["object"] as? [String: Any], "\(root)")
            let classes = try #require(object["classes"] as? [[Any]])
            #expect(classes.map { "\($0[0]) \($0[1])" } == ["Circle 5", "Shape 2", "NSObject 0"])
            let groups = try #require(object["groups"] as? [[Any]])
            #expect(groups.map { ($0[0] as? [String]) ?? [] } == [["@"], ["{_NSPoint=ff}"], ["i"], ["d"], ["f"], ["@"], ["@"], ["[4c]"], ["S"], ["q"],
                                                                   ["{Pair=[2i]d}", "*", "B"]])
            let scalars = groups.map { TypedstreamValueForm.string($0[1]) }
            func form(_ value: [String: String]) -> String { TypedstreamValueForm.string([value]) }
            #expect(scalars[0] == form(["string": "sun"]))
            #expect(scalars[2] == form(["int": "9"]))
            #expect(scalars[3] == form(["real": TypedstreamValueForm.hex(0.1)]))
            #expect(scalars[7] == form(["bytes": Data([0, 0x7F, 0x80, 0xFF]).base64EncodedString()]))
            #expect(scalars[8] == form(["int": "48879"]))
            #expect(scalars[9] == form(["int": "7"]))
            let label = try #require((groups[6][1] as? [Any])?.first as? [String: Any])
            #expect(TypedstreamValueForm.string(label).contains(#""classes":[["Label",0],["NSObject",0]]"#), "\(label)")
        }
    }
}
