import Foundation
import Testing
@testable import KeyedArchive

/// Hand-made typedstreams that break the format or the limits: each gives a ``TypedstreamError`` that says
/// what and where, never a crash, a hang or an allocation the input did not pay for.
@Suite("Typedstream hostile input")
struct TypedstreamHostileInputTests {
    /// `04 0B streamtyped`, system version 1000 (`81 E8 03`): 16 bytes.
    static let header: [UInt8] = [0x04, 0x0B] + Array("streamtyped".utf8) + [0x81, 0xE8, 0x03]
    /// A new shared string `s` (`84`, length, bytes).
    static func shared(_ s: String) -> [UInt8] { [0x84, UInt8(s.utf8.count)] + Array(s.utf8) }
    /// A new class chain: `NSArray` version 0, superclass nil.
    static let arrayClass: [UInt8] = [0x84] + shared("NSArray") + [0x00, 0x85]

    static func error(_ bytes: [UInt8], limits: KeyedUnarchiver.Limits = .init()) -> TypedstreamError? {
        do {
            _ = try TypedstreamArchive(data: Data(bytes), limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test func signatureOtherThanTheTwoIsRejected() {
        let bytes = [0x04, 0x0B] + Array("streamtypeX".utf8) + [0x81, 0xE8, 0x03]
        #expect(Self.error(bytes)?.code == .invalidHeader)
        #expect(Self.error(bytes)?.byteOffset == 2)
        #expect(Self.error([0x03, 0x0B] + Array("streamtyped".utf8))?.code == .invalidHeader)
    }

    @Test func truncatedIntegerIsRejectedWithItsOffset() {
        let bytes = Self.header + Self.shared("i")   // group "i" at 16
            + [0x81, 0x01]                           // 2-byte integer with one byte -- TRUNCATED
        let error = Self.error(bytes)
        #expect(error?.code == .truncated)
        #expect(error?.byteOffset == 20)
        #expect(error?.message.contains("0x81") == true, "\(String(describing: error))")
    }

    @Test func truncatedStringLengthIsRejectedBeforeAllocating() {
        let bytes = Self.header + Self.shared("+")
            + [0x82, 0xFF, 0xFF, 0xFF, 0x7F, 0x41]   // a 2 GiB byte string with one byte -- TRUNCATED
        #expect(Self.error(bytes)?.code == .truncated)
        #expect(Self.error(bytes)?.byteOffset == 19)
    }

    @Test func forwardReferenceIsRejected() {
        let object = Self.header + Self.shared("@") + [0x92]  // object reference #0, nothing read yet
        #expect(Self.error(object)?.code == .invalidReference)
        #expect(Self.error(object)?.byteOffset == 19)
        let string = Self.header + [0x95]                     // group encoding: shared string #3 of none
        #expect(Self.error(string)?.code == .invalidReference)
        #expect(Self.error(string)?.byteOffset == 16)
    }

    @Test func referenceToTheWrongKindIsRejected() {
        // An object of class NSArray (#1) whose one group refers, as an object, to the class.
        let bytes = Self.header + Self.shared("@") + [0x84] + Self.arrayClass + [0x92, 0x93, 0x86]
        let error = Self.error(bytes)
        #expect(error?.code == .invalidReference)
        #expect(error?.message.contains("a class") == true, "\(String(describing: error))")
    }

    /// An NSArray that holds itself reads as a model (cycles are legal in the format) and is written back
    /// byte for byte, but it has no Foundation value.
    @Test func referenceLoopHasNoFoundationValue() throws {
        let bytes = Self.header + Self.shared("@") + [0x84] + Self.arrayClass
            + Self.shared("i") + [0x01]   // count 1
            + [0x92, 0x92]                // group "@": a reference to object #0, the array itself
            + [0x86]
        let archive = try TypedstreamArchive(data: Data(bytes))
        #expect(archive.objects[0].groups.last?.values == [.objectReference(0)])
        #expect(try archive.encodedData() == Data(bytes))
        #expect {
            try TypedstreamUnarchiver().foundationValue(from: Data(bytes))
        } throws: { error in
            (error as? TypedstreamError)?.code == .dataCorrupted && (error as? TypedstreamError)?.objectIndex == 0
        }
    }

    @Test func hugeCountsAreRejected() throws {
        // An NSArray claiming 2^31 - 1 elements, with none stored.
        let array = Self.header + Self.shared("@") + [0x84] + Self.arrayClass + Self.shared("i")
            + [0x82, 0xFF, 0xFF, 0xFF, 0x7F, 0x86]
        #expect(throws: TypedstreamError.self) { try TypedstreamUnarchiver().foundationValue(from: Data(array)) }
        // A C array type of 2^31 - 1 integers with three bytes left.
        let cArray = Self.header + Self.shared("[2147483647i]") + [0x01, 0x02, 0x03]
        #expect(Self.error(cArray)?.code == .truncated)
        // A C array of values that take no bytes.
        let empty = Self.header + Self.shared("[1000000000!]")
        #expect(Self.error(empty)?.code == .invalidValue)
        // An array count that overflows Int32.
        #expect(Self.error(Self.header + Self.shared("[99999999999i]"))?.code == .invalidValue)
    }

    /// `depth` objects, each holding the next in an `@` group, the innermost holding nil.
    static func nested(_ depth: Int) -> [UInt8] {
        var bytes = header + shared("@") + [0x84] + arrayClass   // object #0, class #1
        for _ in 1 ..< depth { bytes += [0x92, 0x84, 0x93] }     // group "@", new object of class #1
        bytes += [0x92, 0x85]                                     // group "@": nil
        bytes += [UInt8](repeating: 0x86, count: depth)
        return bytes
    }

    @Test func deepNestingIsRefusedPastTheLimit() throws {
        var limits = KeyedUnarchiver.Limits()
        limits.maximumDepth = 100
        #expect(try TypedstreamArchive(data: Data(Self.nested(100)), limits: limits).objects.count == 100)
        let error = Self.error(Self.nested(101), limits: limits)
        #expect(error?.code == .limitExceeded)
        #expect(error?.message.contains("maximumDepth") == true)
        // Far past the default limit: refused, without recursion.
        #expect(Self.error(Self.nested(50_000))?.code == .limitExceeded)
    }

    @Test func deepNestingWithinTheLimitIsReadAndWrittenBack() throws {
        let bytes = Data(Self.nested(9_000))
        let archive = try TypedstreamArchive(data: bytes)
        #expect(archive.objects.count == 9_000)
        #expect(try archive.encodedData() == bytes)
    }

    @Test func objectCountLimitIsEnforced() {
        var limits = KeyedUnarchiver.Limits()
        limits.maximumObjectCount = 10
        #expect(Self.error(Self.nested(20), limits: limits)?.code == .limitExceeded)
    }

    @Test func writerRejectsAReferenceToAnObjectNotStoredBefore() {
        let archive = TypedstreamArchive(groups: [TypedstreamGroup(encoding: "@", values: [.objectReference(0)])])
        #expect(throws: TypedstreamError.self) { try archive.encodedData() }
        let mismatched = TypedstreamArchive(groups: [TypedstreamGroup(encoding: "i", values: [.double(1.5)])])
        #expect(throws: TypedstreamError.self) { try mismatched.encodedData() }
    }

    /// Values written by our writer read back equal, in both byte orders, including the 8-byte integer form.
    @Test func writtenValuesReadBackInBothByteOrders() throws {
        for order in [TypedstreamArchive.ByteOrder.littleEndian, .bigEndian] {
            let archive = TypedstreamArchive(byteOrder: order, groups: [
                TypedstreamGroup(encoding: "qQiscCfdB", values: [
                    .integer(-9_000_000_000), .unsignedInteger(UInt64.max), .integer(-111), .integer(40_000),
                    .integer(-1), .unsignedInteger(255), .float(-0.0), .double(0.1), .bool(true),
                ]),
                TypedstreamGroup(encoding: "*+:{_NSPoint=ff}[3C][2i]", values: [
                    .cString(Data("q".utf8)), .bytes(Data([0, 1, 2])), .selector(Data("init".utf8)),
                    .structure([.float(1), .float(2.5)]), .byteArray(Data([7, 8, 9])), .array([.integer(1), .integer(300)]),
                ]),
            ])
            let bytes = try archive.encodedData()
            #expect(try TypedstreamArchive(data: bytes) == archive)
        }
    }

    /// Found by fuzzing: an NSArray whose superclass is `NSOb*ect`, holding a kept object that holds it again as
    /// stored. Written back, the outer array is an NSArray of the archiver's own chain (superclass NSObject) and
    /// the kept object's copy brings the stored NSArray : NSOb*ect: one class at two superclasses, which the
    /// archiver refuses with an error naming the class, as it stores each class once.
    @Test func keptObjectWhoseClassChainDisagreesWithTheWrittenOneIsRefused() throws {
        let archive = TypedstreamArchive(
            classes: [TypedstreamClass(name: "NSArray", version: 0, superclass: 1), TypedstreamClass(name: "NSOb*ect", version: 0, superclass: nil),
                      TypedstreamClass(name: "Holder", version: 1, superclass: 1)],
            objects: [TypedstreamObject(classIndex: 0, groups: [TypedstreamGroup(encoding: "i", values: [.integer(1)]),
                                                                TypedstreamGroup(encoding: "@", values: [.object(1)])]),
                      TypedstreamObject(classIndex: 2, groups: [TypedstreamGroup(encoding: "@", values: [.object(2)])]),
                      TypedstreamObject(classIndex: 0, groups: [TypedstreamGroup(encoding: "i", values: [.integer(0)])])],
            groups: [TypedstreamGroup(encoding: "@", values: [.object(0)])])
        var unarchiver = TypedstreamUnarchiver()
        unarchiver.keepsUnknownObjects = true
        let value = try unarchiver.foundationValue(from: archive.encodedData())
        let kept = try #require(value.array?.first?.catalogued(as: ArchivedTypedstreamObject.self))
        #expect(kept.classChain == [TypedstreamClassVersion(name: "Holder", version: 1), TypedstreamClassVersion(name: "NSOb*ect", version: 0)])
        #expect {
            try TypedstreamArchiver().archivedData(withRootValue: value)
        } throws: { error in
            (error as? TypedstreamError).map { $0.code == .invalidArchive && $0.className == "NSArray" } ?? false
        }
    }

    /// Found by fuzzing: a chain `A : B : (reference to A)` makes a class its own superclass. The reference
    /// that ends a chain must name a class read before the chain began (pytypedstream resolves it before it
    /// numbers the chain's classes, so it fails on such a stream too); it is refused where it stands.
    @Test func classChainEndingInAClassOfItsOwnChainIsRefused() {
        // An object (#0) of class A (#1) whose superclass B (#2) ends the chain with a reference to A (0x93).
        let chain = [0x84] + Self.shared("A") + [0x00] + [0x84] + Self.shared("B") + [0x00]
        let bytes = Self.header + Self.shared("@") + [0x84] + chain + [0x93, 0x86]
        let error = Self.error(bytes)
        #expect(error?.code == .invalidReference)
        #expect(error?.byteOffset == 30, "\(String(describing: error))")
        #expect(error?.message.contains("class B") == true, "\(String(describing: error))")
        #expect(error?.message.contains("its own chain") == true, "\(String(describing: error))")
        // The same chain ending in a class read before it began is read.
        let before = Self.header + Self.shared("@") + [0x84] + Self.arrayClass + [0x86]
            + Self.shared("@") + [0x84] + chain + [0x93, 0x86]
        #expect(Self.error(before) == nil)
    }

    /// Found by fuzzing: a kept object holds an NSNumber stored with the chain `NSNumber : NSValue : NSString`,
    /// beside a Foundation NSNumber that the archiver writes with its own chain (`NSValue : NSObject`). One
    /// class at two superclasses is refused whichever of the two is written first, so that what the archiver
    /// accepts does not depend on the order of the values.
    @Test func foundationClassWrittenAfterAContradictingKeptChainIsRefused() throws {
        let archive = TypedstreamArchive(
            classes: [TypedstreamClass(name: "Holder", version: 1, superclass: nil),
                      TypedstreamClass(name: "NSNumber", version: 0, superclass: 2), TypedstreamClass(name: "NSValue", version: 0, superclass: 3),
                      TypedstreamClass(name: "NSString", version: 0, superclass: nil)],
            objects: [TypedstreamObject(classIndex: 0, groups: [TypedstreamGroup(encoding: "@", values: [.object(1)])]),
                      TypedstreamObject(classIndex: 1, groups: [TypedstreamGroup(encoding: "*", values: [.cString(Data("q".utf8))]),
                                                                TypedstreamGroup(encoding: "q", values: [.integer(1)])])],
            groups: [TypedstreamGroup(encoding: "@", values: [.object(0)])])
        var unarchiver = TypedstreamUnarchiver()
        unarchiver.keepsUnknownObjects = true
        let kept = try unarchiver.foundationValue(from: archive.encodedData())
        #expect(kept.catalogued(as: ArchivedTypedstreamObject.self)?.className == "Holder")
        for values in [[kept, FoundationValue.integer(7)], [FoundationValue.integer(7), kept]] {
            #expect {
                try TypedstreamArchiver().archivedData(withRootValue: .array(FoundationValueArray(values)))
            } throws: { error in
                (error as? TypedstreamError).map { $0.code == .invalidArchive && $0.className == "NSValue" } ?? false
            }
        }
    }
}
