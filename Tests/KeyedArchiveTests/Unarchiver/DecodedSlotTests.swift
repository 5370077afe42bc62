import Testing
@testable import KeyedArchive

/// The unarchiver's per-entry slot packs three fields into one word (the instance's address, the class
/// index, the state): each keeps its value when the others change.
@Suite struct DecodedSlotTests {
    private final class Instance {}

    @Test func aNewSlotIsNotStartedHasNoClassAndNoInstance() {
        let slot = UnarchivingSession.DecodedSlot()
        #expect(slot.state == 0)
        #expect(slot.classIndex == -1)
        #expect(slot.instanceBits == 0)
        #expect(slot.instance == nil)
    }

    @Test func fieldsKeepTheirValuesWhenTheOthersChange() {
        let first = Instance(), second = Instance()
        var slot = UnarchivingSession.DecodedSlot()
        slot.state = 1
        let storedFirst = slot.setInstance(first)
        #expect(storedFirst)
        slot.classIndex = 0x3FFE  // the largest index the slot holds
        #expect(slot.state == 1)
        #expect(slot.instance === first)
        #expect(slot.classIndex == 0x3FFE)
        slot.state = 2
        let storedSecond = slot.setInstance(second)
        #expect(storedSecond)
        #expect(slot.classIndex == 0x3FFE)
        #expect(slot.state == 2)
        slot.classIndex = 3
        #expect(slot.state == 2)
        #expect(slot.instance === second)
        #expect(slot.instanceBits == UInt(bitPattern: ObjectIdentifier(second)))
        #expect(slot.classIndex == 3)
        slot.state = 0
        #expect(slot.instance === second)
        #expect(slot.classIndex == 3)
    }

    @Test func aClassIndexTooLargeOrNegativeIsStoredAsNone() {
        let object = Instance()
        var slot = UnarchivingSession.DecodedSlot()
        slot.state = 2
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
        #expect(slot.state == 2)
        #expect(slot.instance === object)
    }

    @Test func onlyAddressesOfHeapObjectsBelowTwoToThe48AreKeptInline() {
        // Objective-C tagged pointers (low bits set) and addresses beyond 48 bits stay out of the slot, so the
        // unarchiver keeps such an instance in its table of values and never reads a header at its bits.
        for address: UInt64 in [0x1234_5671, 0x1234_5674, 0x1_0000_0000_0000, 0x8000_0000_0000_0010, 0xFFFF_FFFF_FFFF] {
            #expect(!UnarchivingSession.DecodedSlot.holdsInline(address), "\(address)")
        }
        for address: UInt64 in [0x10, 0x5555_5555_0000, 0xFFFF_FFFF_FFF8] {
            #expect(UnarchivingSession.DecodedSlot.holdsInline(address), "\(address)")
        }
        let object = Instance()
        #expect(UnarchivingSession.DecodedSlot.holdsInline(UInt64(UInt(bitPattern: ObjectIdentifier(object)))))
    }
}
