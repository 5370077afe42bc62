import Foundation
import Testing
@testable import KeyedArchive

/// The archive's object dictionaries by class name (for checking what was written).
private func objects(_ data: Data, className: String) throws -> [PropertyListDictionary] {
    let tree = try PropertyListValue(propertyListData: data)
    guard let objects = tree.dictionaryValue?["$objects"]?.arrayValue else { return [] }
    return objects.compactMap { object -> PropertyListDictionary? in
        guard let dict = object.dictionaryValue, let classUID = dict["$class"]?.uidValue,
              Int(classUID.value) < objects.count,
              objects[Int(classUID.value)].dictionaryValue?["$classname"]?.stringValue == className else { return nil }
        return dict
    }
}

@Suite struct CodableRoundTripTests {
    @Test func everyFieldTypeAndContainerKindRoundTrips() throws {
        let original = CAllFields()
        let data = try KeyedArchiver.archivedData(withRootObject: original)
        let back = try KeyedUnarchiver.unarchivedObject(ofClass: CAllFields.self, from: data)
        #expect(back == original)
        // Also through XML.
        let xml = try KeyedArchiver.archivedData(withRootObject: original, format: .xml)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: CAllFields.self, from: xml) == original)
    }

    @Test func changedFieldsRoundTripToo() throws {
        var value = CAllFields()
        value.optionalPresent = nil
        value.optionalAbsent = 12
        value.optionalStruct = nil
        value.shape = .point
        value.mood = .happy
        value.tags = []
        value.optionalElements = [nil, nil]
        value.matrix = []
        let back = try KeyedUnarchiver.unarchivedObject(ofClass: CAllFields.self, from: KeyedArchiver.archivedData(withRootObject: value))
        #expect(back == value)
    }

    @Test func fieldsAreWrittenAsHandWrittenCodeWritesThem() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: CAllFields())
        let all = try #require(try objects(data, className: String(reflecting: CAllFields.self)).first)
        // Inline scalars.
        #expect(all["bool"] == .bool(true))
        #expect(all["int"] == .integer(-42))
        #expect(all["float"] == .float(1.25))
        #expect(all["double"] == .real(-2.5e-300))
        // nil as $null (UID 0), also for encodeIfPresent.
        #expect(all["optionalAbsent"]?.uidValue?.value == 0)
        // Objects by reference: Date as NSDate, nested struct as an object with its type's name.
        #expect(all["date"]?.uidValue != nil)
        #expect(try objects(data, className: "NSDate").count == 1)
        let points = try objects(data, className: String(reflecting: CPoint.self))
        #expect(points.count == 7)  // point, points[0], points[1], optionalStruct, pointsByMood's value, pointSet's two
        // A single-value wrapper around a model is the model itself.
        #expect(try objects(data, className: String(reflecting: CPersonRef.self)).isEmpty)
        #expect(try objects(data, className: String(reflecting: CPerson.self)).count == 1)
        // A raw-value enum is its raw value (no object); an unkeyed struct an NSArray; a set an NSSet.
        #expect(try objects(data, className: String(reflecting: CMood.self)).isEmpty)
        #expect(try objects(data, className: "NSSet").count == 3)
        let raw = try PropertyListValue(propertyListData: data).dictionaryValue?["$objects"]?.arrayValue ?? []
        #expect(raw.contains(.string("sad")))
        // Typed dictionary keys: [Int: String] has NSNumber keys.
        #expect(raw.contains(.integer(20)))
    }

    @Test func objectLevelSingleValueAndUnkeyedContainersUseFixedKeys() throws {
        let levelData = try KeyedArchiver.archivedData(withRootObject: CLevel.high)
        let level = try #require(try objects(levelData, className: String(reflecting: CLevel.self)).first)
        #expect(level["value"]?.uidValue != nil)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: CLevel.self, from: levelData) == .high)

        let vector = CVector([3, 1, 4, 1, 5])
        let vectorData = try KeyedArchiver.archivedData(withRootObject: vector)
        let stored = try #require(try objects(vectorData, className: String(reflecting: CVector.self)).first)
        #expect(stored["elements"]?.uidValue != nil)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: CVector.self, from: vectorData) == vector)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: CVector.self, from: KeyedArchiver.archivedData(withRootObject: CVector([]))) == CVector([]))
    }

    @Test func objectsOfManyKindsInOneArchiveEachKeepTheirOwnFields() throws {
        // One archiver writes these objects one after another, alternating kinds and container kinds.
        let items = (0 ..< 12).map(CTwoKeyed.init)
        let data = try KeyedArchiver.archivedData(withRootObject: items)
        func keys(_ className: String) throws -> [Set<String>] {
            try objects(data, className: className).map { Set($0.keys) }
        }
        #expect(try keys(String(reflecting: CTwoKeyed.self)) == Array(repeating: ["$class", "label", "count", "vector", "person"], count: 12))
        #expect(try keys(String(reflecting: CVector.self)) == Array(repeating: ["$class", "elements"], count: 12))
        #expect(try keys(String(reflecting: CPerson.self)) == Array(repeating: ["$class", "name", "friends", "best"], count: 12))
        let back = try KeyedUnarchiver().decode([CTwoKeyed].self, from: data)
        #expect(back.map(\.label) == items.map(\.label))
        #expect(back.map(\.count) == items.map(\.count))
        #expect(back.map(\.vector) == items.map(\.vector))
        #expect(back.map(\.person.name) == items.map(\.person.name))

        let fives = (0 ..< 6).map(CFiveKeyed.init)
        let fivesData = try KeyedArchiver.archivedData(withRootObject: fives)
        let stored = try objects(fivesData, className: String(reflecting: CFiveKeyed.self))
        #expect(stored.map { Set($0.keys) } == Array(repeating: ["$class", "a", "b", "c", "d", "e"], count: 6))
        #expect(try KeyedUnarchiver().decode([CFiveKeyed].self, from: fivesData) == fives)
    }

    @Test func topLevelCollectionsOfCodableModelsRoundTrip() throws {
        let cards = [CPersonCard(title: "a", mood: .happy), CPersonCard(title: "b", mood: .sad)]
        let data = try KeyedArchiver.archivedData(withRootObject: cards)
        #expect(try KeyedUnarchiver().decode([CPersonCard].self, from: data) == cards)
    }

    @Test func superEncoderAndSuperDecoderRoundTrip() throws {
        let dog = CDog(name: "Rex", tricks: ["sit", "roll"])
        let data = try KeyedArchiver.archivedData(withRootObject: dog)
        let back = try KeyedUnarchiver.unarchivedObject(ofClass: CDog.self, from: data)
        #expect(back.name == "Rex")
        #expect(back.tricks == ["sit", "roll"])
    }

    @Test func codableInsideHandWrittenAndTheReverse() throws {
        let hand = CHandWritten(label: "L", codable: CPersonCard(title: "T", mood: .sad))
        let back = try KeyedUnarchiver.unarchivedObject(ofClass: CHandWritten.self, from: KeyedArchiver.archivedData(withRootObject: hand))
        #expect(back.label == "L")
        #expect(back.codable == hand.codable)

        let holder = CHoldsHandWritten(inner: hand)
        let holderBack = try KeyedUnarchiver.unarchivedObject(ofClass: CHoldsHandWritten.self,
                                                              from: KeyedArchiver.archivedData(withRootObject: holder))
        #expect(holderBack.inner.label == "L")
        #expect(holderBack.inner.codable == hand.codable)
    }

    @Test func classNameOverridesAndLegacyNamesApply() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: CPersonCard(title: "x", mood: .happy))
        #expect(try objects(data, className: "Card").count == 1)
        var tree = try PropertyListValue(propertyListData: data)
        // Rename the class to its legacy name: still accepted.
        let renamed = try PropertyListValue(propertyListData: Data(
            String(decoding: tree.propertyListData(format: .xml), as: UTF8.self)
                .replacingOccurrences(of: "<string>Card</string>", with: "<string>OldCard</string>").utf8))
        tree = renamed
        #expect(try KeyedUnarchiver().decode(CPersonCard.self, from: tree) == CPersonCard(title: "x", mood: .happy))
    }

    @Test func handWrittenCodingWinsOverCodable() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: CBoth(value: 9))
        let stored = try #require(try objects(data, className: String(reflecting: CBoth.self)).first)
        #expect(stored["handWritten"] == .integer(9))
        #expect(stored["value"] == nil)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: CBoth.self, from: data) == CBoth(value: 9))
    }

    @Test func benchmarkShapedModelGivesTheHandWrittenBytes() throws {
        // Same keys, same values: a Codable model and a hand-written one archive to identical bytes.
        let codable = CPersonCard(title: "t", mood: .happy)
        let hand = HandCard(title: "t", mood: "happy")
        #expect(try KeyedArchiver.archivedData(withRootObject: codable) == KeyedArchiver.archivedData(withRootObject: hand))
    }
}

extension CodableRoundTripTests {
    @Test func arraysOfStringsAndOfModelsGiveTheHandWrittenBytes() throws {
        let codable = (0 ..< 4).map { CTagged(name: "p\($0)", tags: ["t\($0)", "shared"]) }
        let hand = (0 ..< 4).map { HandTagged(name: "p\($0)", tags: ["t\($0)", "shared"]) }
        for i in 0 ..< 3 {  // each refers to the ones after it; the last to none
            codable[i].friends = Array(codable[(i + 1)...])
            hand[i].friends = Array(hand[(i + 1)...])
        }
        let data = try KeyedArchiver.archivedData(withRootObject: codable)
        #expect(data == (try KeyedArchiver.archivedData(withRootObject: hand)))
        let back = try KeyedUnarchiver().decode([CTagged].self, from: data)
        #expect(back.map(\.name) == ["p0", "p1", "p2", "p3"])
        #expect(back.map(\.tags) == (0 ..< 4).map { ["t\($0)", "shared"] })
        #expect(back[0].friends.count == 3 && back[0].friends.indices.allSatisfy { back[0].friends[$0] === back[$0 + 1] })
        #expect(back[1].friends[1] === back[3] && back[3].friends.isEmpty)
    }
}

/// A Codable model holding an array of strings and an array of models.
private final class CTagged: ArchivableCodable {
    static var archivedClassName: String { "Tagged" }
    var name: String
    var tags: [String]
    var friends: [CTagged] = []
    init(name: String, tags: [String]) { self.name = name; self.tags = tags }
}

/// CTagged written by hand.
private final class HandTagged: KeyedArchivable {
    static var archivedClassName: String { "Tagged" }
    var name: String
    var tags: [String]
    var friends: [HandTagged] = []
    init(name: String, tags: [String]) { self.name = name; self.tags = tags }
    init(from decoder: any ArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        tags = try decoder.decode([String].self, forKey: "tags")
        friends = try decoder.decode([HandTagged].self, forKey: "friends")
    }
    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(tags, forKey: "tags")
        try encoder.encode(friends, forKey: "friends")
    }
}

/// CPersonCard written by hand.
private struct HandCard: KeyedArchivable {
    static var archivedClassName: String { "Card" }
    var title: String
    var mood: String
    init(title: String, mood: String) { self.title = title; self.mood = mood }
    init(from decoder: any ArchiveDecoder) throws {
        title = try decoder.decode(String.self, forKey: "title")
        mood = try decoder.decode(String.self, forKey: "mood")
    }
    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(title, forKey: "title")
        try encoder.encode(mood, forKey: "mood")
    }
}

@Suite struct CodableIdentityTests {
    @Test func sharedClassInstanceIsArchivedOnceAndComesBackAsOne() throws {
        let shared = CPerson("shared")
        let a = CPerson("a"), b = CPerson("b")
        a.friends = [shared, b]
        b.best = shared
        a.best = shared
        let data = try KeyedArchiver.archivedData(withRootObject: a)
        #expect(try objects(data, className: String(reflecting: CPerson.self)).count == 3)
        let back = try KeyedUnarchiver.unarchivedObject(ofClass: CPerson.self, from: data)
        #expect(back.name == "a")
        #expect(back.friends.map(\.name) == ["shared", "b"])
        #expect(back.best === back.friends[0])
        #expect(back.friends[1].best === back.friends[0])
        #expect(back.friends[0].best == nil)
    }

    @Test func cycleOfPlainReferencesIsRefusedWhenArchived() throws {
        let a = CPerson("a"), b = CPerson("b")
        a.best = b
        b.best = a
        defer { a.best = nil }
        let error = #expect(throws: EncodingError.self) { try KeyedArchiver.archivedData(withRootObject: a) }
        guard case .invalidValue(let value, let context)? = error else {
            Issue.record("expected invalidValue, got \(String(describing: error))")
            return
        }
        #expect((value as? CPerson) === b)
        #expect(context.codingPath.map(\.stringValue) == ["best"])
        #expect(context.debugDescription.contains("@BackReference"))
        #expect(context.debugDescription.contains("CPerson #1 .best -> KeyedArchiveTests.CPerson #"), "\(context.debugDescription)")
        #expect(context.debugDescription.contains(".best -> KeyedArchiveTests.CPerson #1 again"), "\(context.debugDescription)")
    }

    @Test func cycleThroughArrayElementsIsRefusedNamingTheElements() throws {
        let a = CPerson("a"), b = CPerson("b")
        a.friends = [b]
        b.friends = [a]
        defer { b.friends = [] }
        let error = #expect(throws: EncodingError.self) { try KeyedArchiver.archivedData(withRootObject: a) }
        guard case .invalidValue(let value, let context)? = error else {
            Issue.record("expected invalidValue, got \(String(describing: error))")
            return
        }
        #expect((value as? CPerson) === b)
        #expect(context.codingPath.isEmpty)
        let name = String(reflecting: CPerson.self)
        #expect(context.debugDescription.contains("\(name) #1 (an element) -> \(name) #"), "\(context.debugDescription)")
        #expect(context.debugDescription.contains("(an element) -> \(name) #1 again"), "\(context.debugDescription)")
        #expect(context.debugDescription.contains("(\(name)(an element)) @BackReference"), "\(context.debugDescription)")
    }

    @Test func cycleNotThroughTheRootIsRefusedNamingOnlyItsSteps() throws {
        // a -> (d, b) by friends; b -> c -> b by best: the cycle is b, c; a and d lead to it or beside it.
        let a = CPerson("a"), b = CPerson("b"), c = CPerson("c"), d = CPerson("d")
        a.friends = [d, b]
        b.best = c
        c.best = b
        defer { c.best = nil }
        let error = #expect(throws: EncodingError.self) { try KeyedArchiver.archivedData(withRootObject: a) }
        guard case .invalidValue(let value, let context)? = error else {
            Issue.record("expected invalidValue, got \(String(describing: error))")
            return
        }
        // The reference that closes the cycle is c's: the search meets b again from c.
        #expect((value as? CPerson) === c)
        #expect(context.codingPath.map(\.stringValue) == ["best"])
        let description = context.debugDescription
        let cycle = description.components(separatedBy: "cannot be decoded: ").last?.components(separatedBy: "; declare").first ?? ""
        let steps = cycle.components(separatedBy: " -> ")
        let name = String(reflecting: CPerson.self)
        #expect(steps.count == 3, "\(description)")
        #expect(steps.first?.hasPrefix(name + " #") == true && steps.first?.hasSuffix(" .best") == true, "\(description)")
        #expect(steps.dropFirst().first?.hasSuffix(" .best") == true, "\(description)")
        // The cycle starts and ends at the same object, and has two objects.
        let first = steps.first.map { $0.dropLast(" .best".count) }
        let second = steps.dropFirst().first.map { $0.dropLast(" .best".count) }
        #expect(steps.last == first.map { $0 + " again" }, "\(description)")
        #expect(first != second, "\(description)")
        // Without the closing reference, the same graph archives.
        c.best = nil
        #expect(throws: Never.self) { try KeyedArchiver.archivedData(withRootObject: a) }
    }

    @Test func plainCodableClassMustAdoptArchivableCodable() throws {
        let error = #expect(throws: EncodingError.self) { try KeyedArchiver.archivedData(withRootObject: CHoldsPlainClass(item: CPlainClass())) }
        #expect("\(String(describing: error))".contains("must adopt ArchivableCodable"))
    }
}

@Suite struct CodableSecurityTests {
    @Test func classOutsideTheRequestedTreeIsRejectedBeforeItsInitializerRuns() throws {
        tripwireInits = 0
        let data = try KeyedArchiver.archivedData(withRootObject: CHolderWithTripwire(item: CTripwire(note: "boom")))
        #expect(tripwireInits == 0)
        // The archive names CTripwire where CHolderWithPoint has a CPoint.
        let error = #expect(throws: DecodingError.self) { try KeyedUnarchiver.unarchivedObject(ofClass: CHolderWithPoint.self, from: data) }
        #expect(tripwireInits == 0)
        let underlying = try #require(error.flatMap(archiveError))
        #expect(underlying.code == .classNotAllowed)
        #expect(underlying.message.contains("CTripwire"))
        #expect(underlying.keyPath == "root.item")
        if case .typeMismatch(_, let context)? = error {
            #expect(context.codingPath.map(\.stringValue) == ["item"])
        } else {
            Issue.record("expected a typeMismatch, got \(String(describing: error))")
        }
        // The right type reads it (and only then does its initializer run).
        let holder = try KeyedUnarchiver.unarchivedObject(ofClass: CHolderWithTripwire.self, from: data)
        #expect(holder.item.note == "boom")
        #expect(tripwireInits == 1)
    }

    @Test func nestedStructWithAnotherNameIsRejected() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: CHolderWithEvil(item: CEvilPoint(x: 1, y: 2)))
        let error = #expect(throws: DecodingError.self) { try KeyedUnarchiver.unarchivedObject(ofClass: CHolderWithPoint.self, from: data) }
        #expect(error.flatMap(archiveError)?.code == .classNotAllowed)
    }

    @Test func objectLimitHolds() throws {
        let cards = (0 ..< 50).map { CPersonCard(title: "\($0)", mood: .happy) }
        let data = try KeyedArchiver.archivedData(withRootObject: cards)
        var unarchiver = KeyedUnarchiver()
        unarchiver.limits.maximumObjectCount = 10
        let error = #expect(throws: (any Error).self) { try unarchiver.decode([CPersonCard].self, from: data) }
        #expect(error.flatMap(archiveError)?.code == .limitExceeded)
    }

    @Test func depthLimitHoldsForNestedCodableValues() throws {
        let holder = CListHolder(list: .of(length: 40))
        let data = try KeyedArchiver.archivedData(withRootObject: holder)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: CListHolder.self, from: data) == holder)
        var unarchiver = KeyedUnarchiver()
        unarchiver.limits.maximumDepth = 20
        let error = #expect(throws: (any Error).self) { try unarchiver.decode(CListHolder.self, from: data) }
        #expect(error.flatMap(archiveError)?.code == .limitExceeded)
    }

    @Test func byteLimitHolds() throws {
        var value = CAllFields()
        value.string = String(repeating: "x", count: 10_000)
        let data = try KeyedArchiver.archivedData(withRootObject: value)
        var unarchiver = KeyedUnarchiver()
        unarchiver.limits.maximumByteCount = 1_000
        let error = #expect(throws: (any Error).self) { try unarchiver.decode(CAllFields.self, from: data) }
        #expect(error.flatMap(archiveError)?.code == .limitExceeded)
    }

    @Test func missingAndMistypedFieldsAreDecodingErrorsWithTheArchiveLocation() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: CPersonCard(title: "x", mood: .happy))
        // Rename the field "title" so that it is missing.
        let xml = String(decoding: try KeyedArchiver.archivedData(withRootObject: CPersonCard(title: "x", mood: .happy), format: .xml), as: UTF8.self)
        let missing = Data(xml.replacingOccurrences(of: "<key>title</key>", with: "<key>titel</key>").utf8)
        let error = #expect(throws: DecodingError.self) { try KeyedUnarchiver.unarchivedObject(ofClass: CPersonCard.self, from: missing) }
        if case .keyNotFound(let key, let context)? = error {
            #expect(key.stringValue == "title")
            let underlying = context.underlyingError as? KeyedArchiveError
            #expect(underlying?.code == .keyNotFound)
            #expect(underlying.map { "\($0)" }?.contains("object #") == true)
        } else {
            Issue.record("expected keyNotFound, got \(String(describing: error))")
        }
        // A raw value that is no case.
        let badMood = Data(xml.replacingOccurrences(of: "<string>happy</string>", with: "<string>angry</string>").utf8)
        #expect(throws: DecodingError.self) { try KeyedUnarchiver.unarchivedObject(ofClass: CPersonCard.self, from: badMood) }
        _ = data
    }
}

@Suite struct EncodableSubtreeTests {
    struct Settings: Codable, Equatable {
        var name: String
        var volume: Double
        var tags: Set<String>
        var id: UUID
        var missing: Int?
        var nested: [String: [Int]]
    }

    final class Holder: KeyedArchivable {
        static var archivedClassName: String { "Holder" }
        var settings: Settings?
        var number: Int?
        init(settings: Settings?, number: Int?) { self.settings = settings; self.number = number }
        init(from decoder: any ArchiveDecoder) throws {
            settings = try decoder.decodeDecodable(Settings.self, forKey: "settings")
            number = try decoder.decodeDecodable(Int.self, forKey: "number")
        }
        func encode(to encoder: any ArchiveEncoder) throws {
            if let settings { try encoder.encodeEncodable(settings, forKey: "settings") }
            if let number { try encoder.encodeEncodable(number, forKey: "number") }
        }
    }

    static let sample = Settings(name: "s", volume: 0.5, tags: ["b", "a"], id: UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16)),
                                 missing: nil, nested: ["k": [1, 2]])

    @Test func encodableIsAPropertyListSubtree() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Holder(settings: Self.sample, number: 7))
        let holder = try #require(try objects(data, className: "Holder").first)
        #expect(holder["number"]?.uidValue != nil)  // an NSNumber object, as encode(NSNumber, forKey:) writes it
        // The subtree: an NSDictionary with string keys; the UUID a string and the set an array, as
        // PropertyListEncoder writes them; nothing with a model class.
        #expect(try objects(data, className: "NSDictionary").count == 2)
        #expect(try objects(data, className: "NSArray").count == 2)
        #expect(try objects(data, className: "NSUUID").isEmpty)
        #expect(try objects(data, className: "NSSet").isEmpty)
        let raw = try PropertyListValue(propertyListData: data).dictionaryValue?["$objects"]?.arrayValue ?? []
        #expect(raw.contains(.string("01020304-0506-0708-090A-0B0C0D0E0F10")))
        let back = try KeyedUnarchiver.unarchivedObject(ofClass: Holder.self, from: data)
        #expect(back.settings == Self.sample)
        #expect(back.number == 7)
    }

    final class FlagHolder: KeyedArchivable {
        static var archivedClassName: String { "FlagHolder" }
        var flag: Bool?
        init(flag: Bool?) { self.flag = flag }
        init(from decoder: any ArchiveDecoder) throws { flag = try decoder.decodeDecodable(Bool.self, forKey: "flag") }
        func encode(to encoder: any ArchiveEncoder) throws { if let flag { try encoder.encodeEncodable(flag, forKey: "flag") } }
    }

    @Test func encodableBoolIsAnNSNumberObject() throws {
        for flag in [true, false] {
            let data = try KeyedArchiver.archivedData(withRootObject: FlagHolder(flag: flag))
            let holder = try #require(try objects(data, className: "FlagHolder").first)
            let uid = try #require(holder["flag"]?.uidValue, "a top-level Bool is referenced by UID, as Apple writes an NSNumber")
            let raw = try PropertyListValue(propertyListData: data).dictionaryValue?["$objects"]?.arrayValue ?? []
            #expect(raw[Int(uid.value)] == .bool(flag))
            #expect(try KeyedUnarchiver.unarchivedObject(ofClass: FlagHolder.self, from: data).flag == flag)
        }
    }

    @Test func absentKeyDecodesAsNil() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Holder(settings: nil, number: nil))
        let back = try KeyedUnarchiver.unarchivedObject(ofClass: Holder.self, from: data)
        #expect(back.settings == nil)
        #expect(back.number == nil)
    }
}
