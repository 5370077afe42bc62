import Testing
@testable import KeyedArchive

/// The unarchiver's decoded-object table (``DecodedObjectTable``) and its invariants, checked on the table
/// alone: the per-entry slot packs three fields into one word (the instance's address, the class index, the
/// state), each keeping its value when the others change; the table owns every instance a slot points at;
/// a copy kept per property-list object is turned off once its object is entered again; every read is
/// range-checked, and a released table answers "nothing".
///
/// A Boolean read is compared with `== true` or `== false`: `#expect` cannot take a method call on a
/// non-copyable value as its whole condition.
@Suite struct DecodedObjectTableTests {
    private final class Instance {}
    private final class Subclassed: Base {}
    private class Base {}

    @Test func aNewSlotIsNotStartedHasNoClassAndNoInstance() {
        let slot = DecodedObjectTable.DecodedSlot()
        #expect(slot.state == .notStarted)
        #expect(slot.classIndex == -1)
        #expect(slot.instanceBits == 0)
        #expect(slot.instance == nil)
    }

    @Test func fieldsKeepTheirValuesWhenTheOthersChange() {
        let first = Instance(), second = Instance()
        var slot = DecodedObjectTable.DecodedSlot()
        slot.state = .inProgress
        let storedFirst = slot.setInstance(first)
        #expect(storedFirst)
        slot.classIndex = 0x3FFE  // the largest index the slot holds
        #expect(slot.state == .inProgress)
        #expect(slot.instance === first)
        #expect(slot.classIndex == 0x3FFE)
        slot.state = .decoded
        let storedSecond = slot.setInstance(second)
        #expect(storedSecond)
        #expect(slot.classIndex == 0x3FFE)
        #expect(slot.state == .decoded)
        slot.classIndex = 3
        #expect(slot.state == .decoded)
        #expect(slot.instance === second)
        #expect(slot.instanceBits == UInt(bitPattern: ObjectIdentifier(second)))
        #expect(slot.classIndex == 3)
        slot.state = .notStarted
        #expect(slot.instance === second)
        #expect(slot.classIndex == 3)
    }

    @Test func aClassIndexTooLargeOrNegativeIsStoredAsNone() {
        let object = Instance()
        var slot = DecodedObjectTable.DecodedSlot()
        slot.state = .decoded
        let storedObject = slot.setInstance(object)
        #expect(storedObject)
        slot.classIndex = 0x3FFF
        #expect(slot.classIndex == -1)
        slot.classIndex = 0xFF_FFFE
        #expect(slot.classIndex == -1)
        slot.classIndex = Int32.max
        #expect(slot.classIndex == -1)
        slot.classIndex = -5
        #expect(slot.classIndex == -1)
        #expect(slot.state == .decoded)
        #expect(slot.instance === object)
    }

    @Test func onlyAddressesOfHeapObjectsBelowTwoToThe48AreKeptInline() {
        // Objective-C tagged pointers (low bits set) and addresses beyond 48 bits stay out of the slot, so the
        // unarchiver keeps such an instance in its table of values and never reads a header at its bits.
        for address: UInt64 in [0x1234_5671, 0x1234_5674, 0x1_0000_0000_0000, 0x8000_0000_0000_0010, 0xFFFF_FFFF_FFFF] {
            #expect(!DecodedObjectTable.DecodedSlot.holdsInline(address), "\(address)")
        }
        for address: UInt64 in [0x10, 0x5555_5555_0000, 0xFFFF_FFFF_FFF8] {
            #expect(DecodedObjectTable.DecodedSlot.holdsInline(address), "\(address)")
        }
        let object = Instance()
        #expect(DecodedObjectTable.DecodedSlot.holdsInline(UInt64(UInt(bitPattern: ObjectIdentifier(object)))))
    }

    // MARK: The table

    @Test func aRecordedInstanceIsHeldByTheTableAndFoundByItsEntry() {
        var table = DecodedObjectTable(objectCount: 4, plistObjectCount: 10)
        let uid = ArchiveObjectID(2)
        weak var weakInstance: Instance?
        do {
            let instance = Instance()
            weakInstance = instance
            table.begin(uid)
            #expect(table.state(uid) == .inProgress)
            table.record(uid, value: instance, instance: instance, classIndex: 5)
            table.end(uid, decoded: true)
        }
        // Invariant 1: the slot does not retain the instance; the table does, until it is released.
        #expect(weakInstance != nil)
        #expect(table.state(uid) == .decoded)
        #expect(table.isDecoded(reference: 2) == true)
        #expect(table.classIndex(uid) == 5)
        #expect((table.cached(uid) as AnyObject?) === weakInstance)
        table.release()
        #expect(weakInstance == nil)
        #expect(table.cached(uid) == nil)
        #expect(table.state(uid) == .notStarted)
        #expect(table.isDecoded(reference: 2) == false)
    }

    @Test func aStructIsKeptAsAValueWithItsClassIndex() {
        var table = DecodedObjectTable(objectCount: 3, plistObjectCount: 3)
        let uid = ArchiveObjectID(1)
        let value = "a struct's value"
        let reference = table.instanceReference(to: value)
        #expect(reference == nil)
        table.record(uid, value: value, instance: reference, classIndex: 0)
        table.end(uid, decoded: true)
        #expect(table.cached(uid) as? String == value)
        #expect(table.classIndex(uid) == 0)
        #expect(table.cached(ArchiveObjectID(2)) == nil)
    }

    @Test func aFailedDecodingLeavesTheEntryNotStarted() {
        var table = DecodedObjectTable(objectCount: 2, plistObjectCount: 2)
        let uid = ArchiveObjectID(1)
        table.begin(uid)
        table.end(uid, decoded: false)
        #expect(table.state(uid) == .notStarted)
        #expect(table.cached(uid) == nil)
        #expect(table.classIndex(uid) == -1)
    }

    @Test func idsAndObjectNumbersOutOfRangeAnswerNothing() {
        var table = DecodedObjectTable(objectCount: 2, plistObjectCount: 2)
        for raw in [-1, 2, 3, Int.max] {
            let uid = ArchiveObjectID(raw)
            table.begin(uid)
            table.record(uid, value: 1, instance: nil, classIndex: 0)
            table.end(uid, decoded: true)
            #expect(table.state(uid) == .notStarted, "\(raw)")
            #expect(table.cached(uid) == nil, "\(raw)")
            #expect(table.classIndex(uid) == -1, "\(raw)")
            #expect(table.refersToDecodedInstance(PropertyListObjectNumber(raw)) == false, "\(raw)")
        }
        for ref: UInt64 in [0, 2, UInt64.max] { #expect(table.isDecoded(reference: ref) == false, "\(ref)") }
    }

    @Test func aCopyPerObjectAnswersUntilItsObjectIsEnteredAgain() {
        var table = DecodedObjectTable(objectCount: 4, plistObjectCount: 8)
        let uid = ArchiveObjectID(3), instance = Instance()
        table.begin(uid)
        table.record(uid, value: instance, instance: instance, classIndex: 1)
        table.remember(PropertyListObjectNumber(6), as: uid)  // property-list object 6 is a UID naming entry 3
        table.end(uid, decoded: true)
        #expect(table.refersToDecodedInstance(PropertyListObjectNumber(6)) == true)
        #expect(table.refersToDecodedInstance(PropertyListObjectNumber(5)) == false)
        // Invariant 2: entering a decoded instance again (an archive that reads it as a collection too)
        // changes its slot, so no copy answers any more.
        table.begin(uid)
        #expect(table.refersToDecodedInstance(PropertyListObjectNumber(6)) == false)
        table.end(uid, decoded: true)
        table.remember(PropertyListObjectNumber(7), as: uid)
        #expect(table.refersToDecodedInstance(PropertyListObjectNumber(7)) == false)
    }

    @Test func onlyInstancesWithAClassIndexAreRemembered() {
        var table = DecodedObjectTable(objectCount: 3, plistObjectCount: 4)
        let instance = Instance()
        table.record(ArchiveObjectID(1), value: instance, instance: instance, classIndex: -1)
        table.remember(PropertyListObjectNumber(2), as: ArchiveObjectID(1))
        #expect(table.refersToDecodedInstance(PropertyListObjectNumber(2)) == false)
        table.record(ArchiveObjectID(2), value: 7, instance: nil, classIndex: 0)
        table.remember(PropertyListObjectNumber(3), as: ArchiveObjectID(2))
        #expect(table.refersToDecodedInstance(PropertyListObjectNumber(3)) == false)
    }

    @Test func anExactCastRefusesASubclassAndAnotherClass() {
        let base: AnyObject = Base(), sub: AnyObject = Subclassed(), other: AnyObject = Instance()
        #expect(DecodedObjectTable.exactly(base, as: Base.self) === base)
        #expect(DecodedObjectTable.exactly(sub, as: Base.self) == nil)
        #expect(DecodedObjectTable.exactly(sub, as: Subclassed.self) === sub)
        #expect(DecodedObjectTable.exactly(other, as: Base.self) == nil)
    }

    @Test func aClassValueIsItsOwnReferenceAndAStructHasNone() {
        var table = DecodedObjectTable(objectCount: 1, plistObjectCount: 1)
        let instance = Instance()
        let first = table.instanceReference(to: instance), number = table.instanceReference(to: 42)
        let again = table.instanceReference(to: instance)  // the kept answer is per type
        let instanceIsClass = table.isClass(Instance.self), intIsClass = table.isClass(Int.self)
        #expect(first === instance)
        #expect(number == nil)
        #expect(again === instance)
        #expect(instanceIsClass)
        #expect(!intIsClass)
    }
}
