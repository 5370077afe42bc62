import Testing
@testable import KeyedArchive

/// The block the coders keep their mutable state in (``UncheckedExclusiveState``): written in place, and
/// its contents released when its owner destroys it.
@Suite struct UncheckedExclusiveStateTests {
    private final class Tracked {}

    private struct Counters {
        var count = 0
        var names: [String] = []
        var tracked: Tracked?
    }

    @Test func writesAreSeenByLaterReadsInPlace() {
        let state = UncheckedExclusiveState(Counters())
        defer { state.destroy() }
        state.value.count += 2
        state.value.names.append("a")
        state.value.names.append("b")
        #expect(state.value.count == 2)
        #expect(state.value.names == ["a", "b"])
    }

    @Test func theContentsAreReleasedWhenDestroyed() {
        weak var weakTracked: Tracked?
        do {
            let tracked = Tracked()
            weakTracked = tracked
            let state = UncheckedExclusiveState(Counters(tracked: tracked))
            #expect(state.value.tracked === tracked)
            state.destroy()
        }
        #expect(weakTracked == nil)
    }
}
