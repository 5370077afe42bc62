import Testing
@testable import KeyedArchive

/// The unarchiver's per-entry slot packs three fields into one word: each keeps its value when the others change.
@Suite struct DecodedSlotTests {
    @Test func aNewSlotIsNotStartedHasNoClassAndNoInstance() {
        let slot = UnarchivingSession.DecodedSlot()
        #expect(slot.state == 0)
        #expect(slot.classIndex == -1)
        #expect(slot.objectNumber == 0)
    }

    @Test func fieldsKeepTheirValuesWhenTheOthersChange() {
        var slot = UnarchivingSession.DecodedSlot()
        slot.state = 1
        slot.objectNumber = UInt32.max
        slot.classIndex = 0xFF_FFFE  // the largest index the slot holds
        #expect(slot.state == 1)
        #expect(slot.objectNumber == UInt32.max)
        #expect(slot.classIndex == 0xFF_FFFE)
        slot.state = 2
        slot.objectNumber = 7
        #expect(slot.classIndex == 0xFF_FFFE)
        slot.classIndex = 3
        #expect(slot.state == 2)
        #expect(slot.objectNumber == 7)
        #expect(slot.classIndex == 3)
    }

    @Test func aClassIndexTooLargeOrNegativeIsStoredAsNone() {
        var slot = UnarchivingSession.DecodedSlot()
        slot.state = 2
        slot.classIndex = 0xFF_FFFF
        #expect(slot.classIndex == -1)
        slot.classIndex = Int32.max
        #expect(slot.classIndex == -1)
        slot.classIndex = -5
        #expect(slot.classIndex == -1)
        #expect(slot.state == 2)
    }
}
