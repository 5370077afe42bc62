import Foundation
import Testing
@testable import KeyedArchive

// NSDateComponentUndefined is NSIntegerMax: 2^63 - 1 from a 64-bit writer, 2^31 - 1 from a 32-bit one (the
// `arm64_32` Apple Watch, or swift-corelibs-foundation's `Int.max` on a 32-bit platform). Both read as
// undefined at both widths of `Int`; an undefined component is always written as 2^63 - 1. The 32-bit
// reading runs here through `ComponentWidth`'s width parameter.

private typealias ComponentWidth = DateComponentsObject.ComponentWidth

/// The keys written for every component, defined or not.
private let componentKeys = DateComponentsObject.componentKeys.map { $0.key }

/// `data`, a keyed archive, with `transform` applied to its NSDateComponents object's fields.
private func changingDateComponents(in data: Data, _ transform: (inout PropertyListDictionary) -> Void) throws -> Data {
    guard case .dictionary(var root) = try PropertyListValue(propertyListData: data), case .array(let objects)? = root["$objects"] else {
        throw KeyedArchiveError(.invalidArchive, "no $objects")
    }
    var list = Array(objects)
    var changed = 0
    for (i, object) in list.enumerated() {
        guard case .dictionary(var fields) = object, fields["NS.era"] != nil else { continue }
        transform(&fields)
        list[i] = .dictionary(fields)
        changed += 1
    }
    #expect(changed == 1, "one NSDateComponents object")
    root["$objects"] = .array(PropertyListArray(list))
    return try PropertyListValue.dictionary(root).propertyListData(format: .binary)
}

/// The fields of `data`'s NSDateComponents object.
private func dateComponentsFields(in data: Data) throws -> PropertyListDictionary {
    guard case .dictionary(let root) = try PropertyListValue(propertyListData: data), case .array(let objects)? = root["$objects"] else {
        throw KeyedArchiveError(.invalidArchive, "no $objects")
    }
    for case .dictionary(let fields) in Array(objects) where fields["NS.era"] != nil { return fields }
    throw KeyedArchiveError(.invalidArchive, "no NSDateComponents object")
}

@Suite struct DateComponentsWidthTests {
    @Test(arguments: [32, 64])
    func bothSentinelsAreUndefinedAtBothWidths(bits: Int) {
        let width = ComponentWidth(intBitWidth: bits)
        #expect(width.component(Int64.max) == .undefined, "a 64-bit writer's NSIntegerMax")
        #expect(width.component(Int64(Int32.max)) == .undefined, "a 32-bit writer's NSIntegerMax")
        #expect(width.component(2024) == .defined(2024))
        #expect(width.component(0) == .defined(0))
        #expect(width.component(-44) == .defined(-44))
        #expect(width.component(Int64(Int32.max) - 1) == .defined(Int(Int32.max) - 1))
        #expect(width.component(Int64(Int32.min)) == .defined(Int(Int32.min)))
    }

    @Test func aValueBeyondThirtyTwoBitsIsOutOfRangeOnlyThere() {
        let narrow = ComponentWidth(intBitWidth: 32), wide = ComponentWidth(intBitWidth: 64)
        for value in [Int64(Int32.max) + 1, Int64(Int32.min) - 1, Int64.max - 1, Int64.min, 1 << 40] {
            #expect(narrow.component(value) == .outOfRange, "\(value)")
            #expect(wide.component(value) == .defined(Int(value)), "\(value)")
        }
        #expect(ComponentWidth.current.intBitWidth == Int.bitWidth)
    }

    /// Writing: every undefined component is 2^63 - 1 (what any 64-bit reader takes as undefined), whatever
    /// this platform's `Int`; a defined one is its value.
    @Test func undefinedComponentsAreWrittenAsInt64Max() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: DateComponents(year: 2024, month: 2))
        let fields = try dateComponentsFields(in: data)
        #expect(fields["NS.year"] == .integer(2024))
        #expect(fields["NS.month"] == .integer(2))
        for key in componentKeys where key != "NS.year" && key != "NS.month" {
            #expect(fields[key] == .integer(PropertyListInteger(Int64.max)), "\(key)")
        }
        #expect(DateComponentsObject.undefinedWritten == Int64.max)
    }

    /// Reading a 64-bit writer's archive: `Int64.max` in every component is undefined (nil).
    @Test func aSixtyFourBitArchivesUndefinedComponentsReadAsNil() throws {
        let data = try changingDateComponents(in: KeyedArchiver.archivedData(withRootObject: DateComponents(day: 9))) { fields in
            for key in componentKeys where key != "NS.day" { fields[key] = .integer(PropertyListInteger(Int64.max)) }
            fields["NS.dayOfYear"] = .integer(PropertyListInteger(Int64.max))
        }
        let read = try KeyedUnarchiver.unarchivedObject(ofClass: DateComponents.self, from: data)
        #expect(read == DateComponents(day: 9))
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) { #expect(read.dayOfYear == nil) }
    }

    /// Reading a 32-bit writer's archive (swift-corelibs-foundation's `Int.max` on a 32-bit platform): 2^31 - 1
    /// is undefined too.
    @Test func aThirtyTwoBitArchivesUndefinedComponentsReadAsNil() throws {
        let data = try changingDateComponents(in: KeyedArchiver.archivedData(withRootObject: DateComponents(year: 1999))) { fields in
            for key in componentKeys where key != "NS.year" { fields[key] = .integer(PropertyListInteger(Int64(Int32.max))) }
        }
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: DateComponents.self, from: data) == DateComponents(year: 1999))
    }

    /// A component that fits in no `Int64` (an unsigned 2^64 - 1) is a thrown error naming the key, not a trap.
    @Test func aComponentBeyondInt64Throws() throws {
        let data = try changingDateComponents(in: KeyedArchiver.archivedData(withRootObject: DateComponents(year: 1999))) { fields in
            fields["NS.month"] = .integer(PropertyListInteger(UInt64.max))
        }
        let error = #expect(throws: KeyedArchiveError.self) { try KeyedUnarchiver.unarchivedObject(ofClass: DateComponents.self, from: data) }
        #expect(error?.description.contains("NS.month") == true, "\(String(describing: error))")
    }
}
