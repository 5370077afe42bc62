import Foundation
import Testing
@testable import KeyedArchive

/// Users' own classes read positionally (``TypedstreamDecodable``), from archives built with the raw model and
/// written by our writer (which the corpus shows writes Apple's layout).
@Suite("Typedstream decoder")
struct TypedstreamDecoderTests {
    /// A class as an old app archived it: `encodeObject:name`, `encodeValuesOfObjCTypes:"ii", &x, &y`.
    struct Marker: TypedstreamDecodable, Equatable {
        static let typedstreamClassName = "Marker"
        var name: String?
        var x: Int, y: Int
        var version: Int?

        init(name: String?, x: Int, y: Int, version: Int?) {
            (self.name, self.x, self.y, self.version) = (name, x, y, version)
        }

        init(from decoder: TypedstreamDecoder) throws {
            version = decoder.version(forClassName: decoder.className)
            name = try decoder.decodeString()
            let values = try decoder.decodeValues(ofObjCTypes: "ii")
            guard case .integer(let x) = values[0], case .integer(let y) = values[1] else { throw TypedstreamError(.dataCorrupted, "x, y") }
            (self.x, self.y) = (Int(x), Int(y))
        }
    }

    /// A class holding another object: `encodeObject:inner`, then a real.
    struct Holder: TypedstreamDecodable {
        static let typedstreamClassName = "Holder"
        var inner: Marker?
        var scale: Double
        init(from decoder: TypedstreamDecoder) throws {
            inner = try decoder.decodeObject(of: Marker.self)
            scale = try decoder.decodeDouble()
        }
    }

    /// An archive whose root is an object of class `className` (version 3, subclass of NSObject) holding an
    /// NSString "pin" and the integers 7 and -300.
    static func markerArchive(className: String = "Marker") -> TypedstreamArchive {
        TypedstreamArchive(
            classes: [
                TypedstreamClass(name: className, version: 3, superclass: 1),
                TypedstreamClass(name: "NSObject", version: 0, superclass: nil),
                TypedstreamClass(name: "NSString", version: 1, superclass: 1),
            ],
            objects: [
                TypedstreamObject(classIndex: 0, groups: [
                    TypedstreamGroup(encoding: "@", values: [.object(1)]),
                    TypedstreamGroup(encoding: "ii", values: [.integer(7), .integer(-300)]),
                ]),
                TypedstreamObject(classIndex: 2, groups: [TypedstreamGroup(encoding: "+", values: [.bytes(Data("pin".utf8))])]),
            ],
            groups: [TypedstreamGroup(encoding: "@", values: [.object(0)])])
    }

    @Test func ownClassIsReadPositionallyWithItsVersion() throws {
        let data = try Self.markerArchive().encodedData()
        let marker = try TypedstreamUnarchiver().decode(Marker.self, from: data)
        #expect(marker == Marker(name: "pin", x: 7, y: -300, version: 3))
    }

    @Test func renamedClassIsReadThroughSetClass() throws {
        let data = try Self.markerArchive(className: "OldMarker").encodedData()
        #expect(throws: TypedstreamError.self) { try TypedstreamUnarchiver().decode(Marker.self, from: data) }
        var unarchiver = TypedstreamUnarchiver()
        unarchiver.setClass(Marker.self, forClassName: "OldMarker")
        #expect(try unarchiver.decode(Marker.self, from: data).x == 7)
    }

    @Test func classOtherThanTheOneAskedForIsNotInstantiated() throws {
        let data = try Self.markerArchive(className: "Evil").encodedData()
        #expect {
            try TypedstreamUnarchiver().decode(Marker.self, from: data)
        } throws: { error in
            let error = error as? TypedstreamError
            return error?.className == "Evil" && error?.message.contains("not allowed") == true
        }
    }

    @Test func wrongTypesAndLeftoverValuesAreErrors() throws {
        var archive = Self.markerArchive()
        archive.objects[0].groups[1] = TypedstreamGroup(encoding: "iq", values: [.integer(7), .integer(1)])
        #expect(throws: TypedstreamError.self) { try TypedstreamUnarchiver().decode(Marker.self, from: archive.encodedData()) }
        archive = Self.markerArchive()
        archive.objects[0].groups.append(TypedstreamGroup(encoding: "i", values: [.integer(1)]))
        #expect {
            try TypedstreamUnarchiver().decode(Marker.self, from: archive.encodedData())
        } throws: { error in
            (error as? TypedstreamError)?.message.contains("left") == true
        }
    }

    @Test func nestedObjectAndCycle() throws {
        // Holder { Marker, 2.5 }.
        var archive = Self.markerArchive()
        archive.classes.append(TypedstreamClass(name: "Holder", version: 0, superclass: 1))
        archive.objects.insert(TypedstreamObject(classIndex: 3, groups: [
            TypedstreamGroup(encoding: "@", values: [.object(1)]),
            TypedstreamGroup(encoding: "d", values: [.double(2.5)]),
        ]), at: 0)
        archive.objects[1].groups[0].values = [.object(2)]
        archive.groups = [TypedstreamGroup(encoding: "@", values: [.object(0)])]
        let holder = try TypedstreamUnarchiver().decode(Holder.self, from: archive.encodedData())
        #expect(holder.inner?.name == "pin")
        #expect(holder.scale == 2.5)
        // A Holder whose inner object is itself (a Holder, where a Marker is asked for): not allowed.
        archive.objects[0].groups[0].values = [.objectReference(0)]
        archive.objects.removeSubrange(1...)
        #expect {
            try TypedstreamUnarchiver().decode(Holder.self, from: archive.encodedData())
        } throws: { error in
            (error as? TypedstreamError)?.message.contains("not allowed") == true
        }
    }

    /// A linked node: `encodeObject:next`.
    final class Node: TypedstreamDecodable {
        static let typedstreamClassName = "Node"
        let next: Node?
        init(from decoder: TypedstreamDecoder) throws { next = try decoder.decodeObject(of: Node.self) }
    }

    @Test func objectContainingItselfIsACycleError() throws {
        let archive = TypedstreamArchive(
            classes: [TypedstreamClass(name: "Node", version: 0, superclass: nil)],
            objects: [TypedstreamObject(classIndex: 0, groups: [TypedstreamGroup(encoding: "@", values: [.objectReference(0)])])],
            groups: [TypedstreamGroup(encoding: "@", values: [.object(0)])])
        #expect {
            try TypedstreamUnarchiver().decode(Node.self, from: archive.encodedData())
        } throws: { error in
            (error as? TypedstreamError)?.message.contains("contains itself") == true
        }
    }

    /// A chain of 3,000 nodes, each stored inside the previous, decodes on a thread sized for it; with a
    /// depth limit of 100 it is refused.
    @Test func longChainDecodesAndDepthLimitHolds() throws {
        let count = 3_000
        let archive = TypedstreamArchive(
            classes: [TypedstreamClass(name: "Node", version: 0, superclass: nil)],
            objects: (0 ..< count).map { i in
                TypedstreamObject(classIndex: 0, groups: [TypedstreamGroup(encoding: "@", values: [i + 1 < count ? .object(i + 1) : .nilObject])])
            },
            groups: [TypedstreamGroup(encoding: "@", values: [.object(0)])])
        let data = try archive.encodedData()
        var node: Node? = try TypedstreamUnarchiver().decode(Node.self, from: data)
        var length = 0
        while let current = node { length += 1; node = current.next }
        #expect(length == count)
        var limited = TypedstreamUnarchiver()
        limited.limits.maximumDepth = 100
        #expect(throws: TypedstreamError.self) { try limited.decode(Node.self, from: data) }
    }

    /// pytypedstream reads what our writer writes: the same events as our model gives.
    @Test(.requiresPytypedstream)
    func pytypedstreamReadsWhatWeWrite() throws {
        let archive = Self.markerArchive()
        let reading = try PytypedstreamOracle.read(bytes: archive.encodedData())
        #expect(reading.readError == nil)
        #expect(reading.events.map(TypedstreamEvents.normalized) == TypedstreamEvents.events(of: archive))
    }
}
