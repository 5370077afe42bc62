import Foundation
import Testing
@testable import KeyedArchive

/// NSValues of an Objective-C number type or C array of numbers (`NSValue(bytes:objCType:)`): Apple's `$0`
/// type string and `$1` value (`_NSKeyedCoderOldStyleArray` for an array), read from Apple's fixture and
/// from Foundation on Linux, and every damaged form rejected with an error naming the key.
@Suite struct ArchivedSpecialValueObjCValueTests {
    typealias Value = ArchivedSpecialValue
    typealias ObjCValue = ArchivedSpecialValue.ObjCValue

    static let threeInts = ObjCValue(typeEncoding: "[3i]", elements: [.integer(1), .integer(2), .integer(3)])

    @Test(.enabled(if: FoundationFixtures.available))
    func darwinConcreteValueFixtureReadsAsItsTypeAndNumbers() throws {
        let data = try FoundationFixtures.data("NSKeyedUnarchiver-ConcreteValueTest.plist")
        let value = try KeyedUnarchiver.unarchivedObject(ofClass: Value.self, from: data)
        #expect(value.content == .objCValue(Self.threeInts))
        #expect(value.description == "NSValue [3i] {1, 2, 3}")
        #expect(try KeyedUnarchiver().decode(FoundationValue.self, from: data) == .specialValue(value))
        #expect(value.content.specialTag == 0)
        #expect(try JSONDecoder().decode(Value.self, from: JSONEncoder().encode(value)) == value)
    }

    /// Foundation on Linux writes `NSValue(bytes:objCType:)` in Apple's layout; we read its numbers back.
    @Test func foundationsTypedValuesReadBack() throws {
        func archive<T>(_ values: [T], _ type: String) throws -> Data {
            let value = values.withUnsafeBytes { NSValue(bytes: $0.baseAddress!, objCType: type) }
            return try NSKeyedArchiver.archivedData(withRootObject: value, requiringSecureCoding: false)
        }
        func read(_ data: Data) throws -> Value.Content {
            try KeyedUnarchiver().decode(Value.self, from: data).content
        }
        #expect(try read(archive([Int32(1), -2, 3], "[3i]")) == .objCValue(.init(typeEncoding: "[3i]", elements: [.integer(1), .integer(-2), .integer(3)])))
        #expect(try read(archive([2.5, -0.125], "[2d]")) == .objCValue(.init(typeEncoding: "[2d]", elements: [.real(2.5), .real(-0.125)])))
        #expect(try read(archive([UInt8(0), 255, 7, 9], "[4C]"))
                == .objCValue(.init(typeEncoding: "[4C]", elements: [.unsignedInteger(0), .unsignedInteger(255), .unsignedInteger(7), .unsignedInteger(9)])))
        #expect(try read(archive([Int64.min, Int64.max], "[2q]")) == .objCValue(.init(typeEncoding: "[2q]", elements: [.integer(.min), .integer(.max)])))
        #expect(try read(archive([Int32(7)], "i")) == .objCValue(.init(typeEncoding: "i", elements: [.integer(7)])))
        #expect(try read(archive([1.5], "d")) == .objCValue(.init(typeEncoding: "d", elements: [.real(1.5)])))
        #expect(try KeyedUnarchiver().decode(Value.self, from: archive([1.5], "d")).description == "NSValue d 1.5")
    }

    /// A struct type encoding never reaches the `$0`/`$1` layout from Apple's side: `NSValue(bytes:objCType:)`
    /// with a geometry or range type makes the special value (swift-corelibs-foundation NSValue.swift routes
    /// `NSSpecialValue._typeFromObjCType` types there) and archives it with `NS.special`, which we read; any
    /// other struct cannot be archived (Apple's and corelibs' `encodeValue(ofObjCType:at:)`: "this archiver
    /// cannot encode structs"), so `unsupportedTypeEncodingsAreRejected` keeps refusing `{CGPoint=dd}` at `$0`.
    @Test func foundationsStructTypedValuesUseTheSpecialLayout() throws {
        func archive<T>(_ value: T, typeOf model: NSValue) throws -> Data {
            let made = withUnsafeBytes(of: value) { NSValue(bytes: $0.baseAddress!, objCType: model.objCType) }
            return try NSKeyedArchiver.archivedData(withRootObject: made, requiringSecureCoding: false)
        }
        func read(_ data: Data) throws -> Value.Content {
            try KeyedUnarchiver().decode(Value.self, from: data).content
        }
        let point = CGPoint(x: 1.5, y: -2)
        #expect(String(cString: NSValue(point: point).objCType).hasPrefix("{"))
        #expect(try read(archive(point, typeOf: NSValue(point: point))) == .point(x: 1.5, y: -2))
        let rect = CGRect(x: 1, y: 2, width: 3, height: 4)
        #expect(try read(archive(rect, typeOf: NSValue(rect: rect))) == .rect(x: 1, y: 2, width: 3, height: 4))
        let range = NSRange(location: 3, length: 4)
        #expect(try read(archive(range, typeOf: NSValue(range: range))) == .range(location: 3, length: 4))
    }

    @Test func writingAnObjectiveCTypeValueThrows() {
        let e = errorSummary { _ = try KeyedArchiver.archivedData(withRootObject: Value(.objCValue(Self.threeInts))) }
        #expect(e?.code == "invalidValue")
        #expect(e?.className == "NSValue")
    }

    // MARK: Hostile input

    /// An NSValue whose `$0` is the string `type` and whose `$1` is an `_NSKeyedCoderOldStyleArray` of
    /// `fields` (its `$class` added), or, with `array` nil, `scalar` inline.
    static func archive(type: PropertyListValue, array fields: [(String, PropertyListValue)]?, scalar: PropertyListValue = 7) throws -> Data {
        var b = ArchiveBuilder()
        let root = b.reserve()
        let typeRef = b.add(type)
        var valueFields: [(String, PropertyListValue)] = [("$0", typeRef)]
        if let fields {
            valueFields.append(("$1", b.object("_NSKeyedCoderOldStyleArray", ["NSObject"], fields)))
        } else {
            valueFields.append(("$1", scalar))
        }
        b.set(root, b.instance("NSValue", ["NSObject"], valueFields))
        return try b.archive(root: root).propertyListData(format: .binary)
    }

    /// `NS.count`, `NS.size`, `NS.type` and the elements `$0`, `$1`, ...
    static func fields(count: PropertyListValue = 3, size: PropertyListValue = 4, type: PropertyListValue = 105,
                       elements: [PropertyListValue] = [1, 2, 3]) -> [(String, PropertyListValue)] {
        [("NS.count", count), ("NS.size", size), ("NS.type", type)] + elements.enumerated().map { ("$\($0.offset)", $0.element) }
    }

    /// The error decoding `data` as an NSValue: code, key path and message.
    static func failure(_ data: Data) -> (code: String, keyPath: String?, message: String)? {
        do {
            _ = try KeyedUnarchiver().decode(Value.self, from: data)
            return nil
        } catch let e as KeyedArchiveError {
            return (e.code.name, e.keyPath, e.message)
        } catch {
            return ("\(error)", nil, "")
        }
    }

    @Test func theHandBuiltFormReadsLikeTheFixture() throws {
        #expect(try KeyedUnarchiver().decode(Value.self, from: Self.archive(type: "[3i]", array: Self.fields())).content == .objCValue(Self.threeInts))
        #expect(try KeyedUnarchiver().decode(Value.self, from: Self.archive(type: "[0d]", array: Self.fields(count: 0, size: 8, type: 100, elements: []))).content
                == .objCValue(.init(typeEncoding: "[0d]", elements: [])))
        #expect(try KeyedUnarchiver().decode(Value.self, from: Self.archive(type: "B", array: nil, scalar: true)).content
                == .objCValue(.init(typeEncoding: "B", elements: [.bool(true)])))
    }

    @Test func countsSizesAndTypesThatDisagreeAreRejected() throws {
        let cases: [(Data, String, String, String)] = [
            // The type says 4 elements, the array holds 3.
            (try Self.archive(type: "[4i]", array: Self.fields()), "dataCorrupted", "root.$1", "_NSKeyedCoderOldStyleArray of 3 'i', where the type \"[4i]\" says 4 'i'"),
            // 8 bytes per element for 'i'.
            (try Self.archive(type: "[3i]", array: Self.fields(size: 8)), "dataCorrupted", "root.$1.NS.size", "8 bytes per element, where type 'i' has 4"),
            // The array holds doubles ('d' = 100), the type says ints.
            (try Self.archive(type: "[3i]", array: Self.fields(size: 8, type: 100, elements: [1.0, 2.0, 3.0])), "dataCorrupted", "root.$1", "of 3 'd', where the type \"[3i]\" says 3 'i'"),
            // '@' (64) is no number type.
            (try Self.archive(type: "[3i]", array: Self.fields(type: 64)), "dataCorrupted", "root.$1.NS.type", "64 is not a number type character"),
            (try Self.archive(type: "[3i]", array: Self.fields(type: .integer(PropertyListInteger(Int64(1) << 40)))), "dataCorrupted", "root.$1.NS.type", "is not a number type character"),
            (try Self.archive(type: "[3i]", array: Self.fields(count: -1, elements: [])), "dataCorrupted", "root.$1.NS.count", "negative count -1"),
            // An element beyond NS.count.
            (try Self.archive(type: "[2i]", array: Self.fields(count: 2)), "dataCorrupted", "root.$1.$2", "an element beyond NS.count 2"),
        ]
        for (data, code, path, message) in cases {
            let f = Self.failure(data)
            #expect(f?.code == code, "\(message): \(String(describing: f))")
            #expect(f?.keyPath == path, "\(message): \(String(describing: f))")
            #expect(f?.message.contains(message) == true, "\(message): \(String(describing: f))")
        }
    }

    @Test func aHugeCountFailsAtTheFirstMissingElement() throws {
        for count: PropertyListValue in [.integer(PropertyListInteger(Int64(1) << 40)), .integer(PropertyListInteger(Int64.max)), 4] {
            let f = Self.failure(try Self.archive(type: "[3i]", array: Self.fields(count: count)))
            // NS.count is read before the holder compares it with the type, so the missing `$3` is what fails.
            #expect(f?.code == "keyNotFound", "\(count): \(String(describing: f))")
            #expect(f?.keyPath == "root.$1.$3", "\(count): \(String(describing: f))")
        }
    }

    @Test func elementsThatAreNotNumbersOfTheTypeAreRejected() throws {
        let cases: [(String, Int, Int, [PropertyListValue], String)] = [
            ("[3c]", 1, 99, [1, 300, 3], "root.$1.$1"),       // 300 does not fit a signed char
            ("[3C]", 1, 67, [1, -1, 3], "root.$1.$1"),        // negative for unsigned
            ("[3i]", 4, 105, [1, 2, "3"], "root.$1.$2"),      // a string
            ("[3i]", 4, 105, [1, 2.5, 3], "root.$1.$1"),      // a real for an int
            ("[3d]", 8, 100, [1.0, 2, 3.0], "root.$1.$1"),    // an integer for a double
            ("[2B]", 1, 66, [true, 1], "root.$1.$1"),         // an integer for a bool
        ]
        for (type, size, code, elements, path) in cases {
            let data = try Self.archive(type: .string(type), array: Self.fields(count: .integer(PropertyListInteger(Int64(elements.count))),
                                                                           size: .integer(PropertyListInteger(Int64(size))),
                                                                           type: .integer(PropertyListInteger(Int64(code))), elements: elements))
            let f = Self.failure(data)
            #expect(f?.code == "typeMismatch", "\(type) \(elements): \(String(describing: f))")
            #expect(f?.keyPath == path, "\(type) \(elements): \(String(describing: f))")
            #expect(f?.message.contains("is not a number of type") == true, "\(String(describing: f))")
        }
        // A scalar's `$1` that is an object, not a number.
        let f = Self.failure(try Self.archive(type: "i", array: Self.fields()))
        #expect(f?.code == "typeMismatch")
        #expect(f?.keyPath == "root.$1")
    }

    @Test func unsupportedTypeEncodingsAreRejected() throws {
        for type in ["{CGPoint=dd}", "[3[2i]]", "[01i]", "[i]", "[3i", "@", "*", "^i", "", "[1234567890i]", String(repeating: "[", count: 10_000)] {
            let f = Self.failure(try Self.archive(type: .string(type), array: Self.fields()))
            #expect(f?.code == "dataCorrupted", "\(type.prefix(20)): \(String(describing: f))")
            #expect(f?.keyPath == "root.$0", "\(type.prefix(20)): \(String(describing: f))")
            #expect(f?.message.contains("unsupported Objective-C type") == true, "\(String(describing: f))")
        }
        // `$0` that is not a string; `$1` absent; `$1` an object of another class.
        let notString = Self.failure(try Self.archive(type: 5, array: Self.fields()))
        #expect(notString?.code == "typeMismatch" && notString?.keyPath == "root.$0", "\(String(describing: notString))")
        var b = ArchiveBuilder()
        let noValue = b.object("NSValue", ["NSObject"], [("$0", b.add("[3i]"))])
        #expect(Self.failure(try b.archive(root: noValue).propertyListData(format: .binary))?.keyPath == "root.$1")
        var c = ArchiveBuilder()
        let array = c.object("NSArray", ["NSObject"], [("NS.objects", .array([]))])
        let wrongClass = c.object("NSValue", ["NSObject"], [("$0", c.add("[3i]")), ("$1", array)])
        let f = Self.failure(try c.archive(root: wrongClass).propertyListData(format: .binary))
        #expect(f?.code == "classNotAllowed" && f?.keyPath == "root.$1", "\(String(describing: f))")
    }
}

/// GNUstep writes `-[NSValue valueWithBytes:objCType:]` in a layout of its own (a deviation from Apple):
/// `$0` the type string's length plus one (inline), `$1` an `_NSKeyedCoderOldStyleArray` of its characters
/// ('c'), `$2` the value's byte count, `$3` an `_NSKeyedCoderOldStyleArray` of its bytes ('C', each integer
/// big-endian). Its old-style arrays have Apple's keys; its NSValue does not, so we reject it at `$0`, and
/// GNUstep cannot read Apple's fixture either.
@Suite(.enabled(if: GNUstepOracle.isAvailable, "GNUstep not installed (apt-get install gobjc libgnustep-base-dev gnustep-base-runtime)"))
struct GNUstepObjCValueTests {
    /// Entry `n` of the archive's `$objects`, following a UID.
    static func entry(_ objects: [PropertyListValue], _ ref: PropertyListValue?) -> PropertyListDictionary? {
        guard let u = ref?.uidValue, Int(u.value) < objects.count else { return nil }
        return objects[Int(u.value)].dictionaryValue
    }

    @Test func gnustepsIntArrayValueUsesItsOwnLayoutAndIsRejectedAtTheTypeKey() throws {
        let archive = try GNUstepOracle.encode("intArrayValue")  // [3i] {1, 2, 3}
        let objects = try #require(PropertyListValue(propertyListData: archive).dictionaryValue?["$objects"]?.arrayValue)
        let root = try #require(Self.entry(objects, .uid(UID(1))))
        #expect(root["$0"] == 5)   // strlen("[3i]") + 1, inline
        #expect(root["$2"] == 12)  // sizeof(int[3])
        let typeChars = try #require(Self.entry(objects, root["$1"]))
        #expect(typeChars["NS.count"] == 5 && typeChars["NS.size"] == 1 && typeChars["NS.type"] == 99)
        #expect((0 ..< 5).map { typeChars["$\($0)"] } == [91, 51, 105, 93, 0])  // "[3i]\0"
        let bytes = try #require(Self.entry(objects, root["$3"]))
        #expect(bytes["NS.count"] == 12 && bytes["NS.size"] == 1 && bytes["NS.type"] == 67)
        #expect((0 ..< 12).map { bytes["$\($0)"] } == [0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3])  // big-endian ints

        let e = ArchivedSpecialValueObjCValueTests.failure(archive)
        #expect(e?.code == "typeMismatch")
        #expect(e?.keyPath == "root.$0")
        #expect(e?.message.contains("expected a type encoding string, found integer 5") == true, "\(String(describing: e))")
    }

    @Test(.enabled(if: FoundationFixtures.available))
    func gnustepCannotReadApplesConcreteValueFixture() throws {
        let fixture = try FoundationFixtures.data("NSKeyedUnarchiver-ConcreteValueTest.plist")
        #expect(throws: GNUstepOracle.Failure.self) { try GNUstepOracle.decode(fixture) }
    }
}
