import Foundation
import Testing
@testable import KeyedArchive
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The stack budgets of the deep readers hold in the build the tests run in (debug, release, under the
/// Address or Thread Sanitizer: DeepRecursion.swift's `stackFrameScale`), and running short of stack is an
/// error, never an overflow.
@Suite struct StackBudgetTests {
    /// A list node that notes where the stack was when its `init(from:)` ran, and on which thread.
    final class StackProbeNode: KeyedArchivable {
        static var archivedClassName: String { "KeyedArchiveTests.StackProbeNode" }
        var next: StackProbeNode?
        let stackAddress: UInt
        let thread: pthread_t

        init(next: StackProbeNode?) {
            self.next = next
            stackAddress = 0
            thread = pthread_self()
        }

        init(from decoder: any ArchiveDecoder) throws {
            stackAddress = currentStackAddress()
            thread = pthread_self()
            next = try decoder.decodeIfPresent(StackProbeNode.self, forKey: "next")
        }

        func encode(to encoder: any ArchiveEncoder) throws {
            try encoder.encode(next, forKey: "next")
        }

        /// The nodes from `head` on, without a recursive walk.
        static func nodes(from head: StackProbeNode?) -> [StackProbeNode] {
            var result: [StackProbeNode] = []
            var current = head
            while let node = current {
                result.append(node)
                current = node.next
            }
            return result
        }

        /// Frees a long list without a recursive deinit.
        static func dismantle(_ head: StackProbeNode?) {
            for node in nodes(from: head) { node.next = nil }
        }
    }

    @Test func aKeyedLevelUsesNoMoreStackThanItsBudget() throws {
        let count = 2_000
        var head: StackProbeNode?
        for _ in 0 ..< count { head = StackProbeNode(next: head) }
        let data = try KeyedArchiver.archivedData(withRootObject: head)
        StackProbeNode.dismantle(head)
        var unarchiver = KeyedUnarchiver()
        unarchiver.limits.maximumDepth = count + 10
        let decoded = try onThread(stackSize: 256 << 20) { [unarchiver] in try unarchiver.decode(StackProbeNode.self, from: data) }
        let nodes = StackProbeNode.nodes(from: decoded)
        defer { StackProbeNode.dismantle(decoded) }
        try #require(nodes.count == count)
        // A 256 MiB stack holds 2,000 levels of any budget below 64 KiB: one thread, one run of frames.
        #expect(nodes.allSatisfy { pthread_equal($0.thread, nodes[0].thread) != 0 })
        let first = try #require(nodes.first?.stackAddress), last = try #require(nodes.last?.stackAddress)
        try #require(first > last)
        let perLevel = Int(first - last) / (count - 1)
        // The keyed unarchiver's threads get the unscaled budget (their floors catch a larger frame): a model's
        // level fits it under every sanitizer too (6.4 KiB under ASan at -Onone).
        let budget = KeyedUnarchiver.defaultStackBytesPerLevel
        #expect(perLevel > 0)
        #expect(perLevel <= budget, "a nesting level takes \(perLevel) bytes of stack, the budget is \(budget)")
    }

    /// The sanitizer the test process was built with, as Scripts/sanitizer-tests.sh says: `address` or
    /// `thread`; none when unset (a plain `swift test`).
    static let declaredSanitizer = ProcessInfo.processInfo.environment["KEYEDARCHIVE_TEST_SANITIZER"]

    @Test func theSanitizerRuntimeScalesTheBudgets() {
        switch Self.declaredSanitizer {
        case "address": #expect(stackFrameScale == 4)
        case "thread": #expect(stackFrameScale == 2)
        default: #expect(stackFrameScale == 1)
        }
    }

    /// Recurses until ``stackIsNearItsEnd()`` says so; gives the level it stopped at and how much of the
    /// stack (whose lowest address is `bottom`) was left there.
    @inline(never)
    static func descend(level: Int, bottom: UInt) -> (level: Int, left: UInt) {
        if stackIsNearItsEnd() { return (level, currentStackAddress() - bottom) }
        let frame = [level]  // released after the call below, which therefore is no tail call
        let below = descend(level: level + 1, bottom: bottom)
        return withExtendedLifetime(frame) { below }
    }

    @Test func stackIsNearItsEndBeforeTheEnd() throws {
        let stackSize = 8 << 20
        let outcome = try onThread(stackSize: stackSize) { () -> (level: Int, left: UInt, size: UInt)? in
            guard let (bottom, top) = currentThreadStack() else { return nil }
            #expect(!stackIsNearItsEnd())
            let (level, left) = Self.descend(level: 0, bottom: bottom)
            return (level, left, top - bottom)
        }
        let (level, left, size) = try #require(outcome)
        #expect(size >= UInt(stackSize))
        #expect(level > 10)
        // It said so within the margin of the end (plus the check's own frame: 4 KiB), and before reaching it.
        #expect(left > 0)
        #expect(left <= stackSafetyMargin + 4096)
    }

    /// A typedstream of `levels` NSArrays, each holding the next, read back as its raw model.
    static func nestedArrays(_ levels: Int) throws -> TypedstreamArchive {
        var value = FoundationValue.null
        for _ in 0 ..< levels { value = .array([value]) }
        var archiver = TypedstreamArchiver()
        archiver.maximumDepth = levels + 10
        var limits = KeyedUnarchiver.Limits()
        limits.maximumDepth = levels + 10
        return try TypedstreamArchive(data: archiver.archivedData(withRootValue: value), limits: limits)
    }

    static let typedstreamLevels = 5_000

    @Test func typedstreamNestingDeeperThanTheStackIsAnError() throws {
        let archive = try Self.nestedArrays(Self.typedstreamLevels)
        let root = try #require(archive.groups.first?.values.first)
        // A thread far too small for 5,000 levels (256 KiB past the margin), read without the unarchiver's
        // sizing: the per-level check stops the reader with an error where it would have overflowed.
        let result = try onThread(stackSize: Int(stackSafetyMargin) + (256 << 10)) { () -> Result<FoundationValue, TypedstreamError> in
            var maker = TypedstreamFoundationValues(source: TypedstreamArchiveSource(archive: archive),
                                                    maximumDepth: Self.typedstreamLevels + 10)
            return Result { () throws(TypedstreamError) in try maker.value(root, depth: 0) }
        }
        guard case .failure(let error) = result else {
            Issue.record("5,000 levels were read on a thread too small for them")
            return
        }
        #expect(error.code == .limitExceeded)
        #expect(error.message.contains("deeper than this thread's stack holds"))
    }

    /// A typedstream nested 40 deep (fewer objects than the unarchiver reads where it is called) read on a
    /// thread with the 512 KiB stack of a secondary thread on Apple platforms (times the sanitizer's scale, as
    /// frames are): the stack check leaves it alone.
    @Test func aShallowTypedstreamReadsOnASecondaryThreadsStack() throws {
        let levels = 40
        let data = try Self.nestedArrays(levels).encodedData()
        let read = try onThread(stackSize: (512 << 10) * stackFrameScale) { () -> Result<FoundationValue, any Error> in
            Result { try TypedstreamUnarchiver().foundationValue(from: data) }
        }
        var value = try read.get()
        var depth = 0
        while case .array(let elements) = value, let first = elements.first {
            value = first
            depth += 1
        }
        #expect(depth == levels)
        #expect(stackSafetyMargin * 2 < UInt((512 << 10) * stackFrameScale))
    }

    @Test func typedstreamNestingWithinTheLimitsReadsOnItsSizedThread() throws {
        let archive = try Self.nestedArrays(Self.typedstreamLevels)
        var unarchiver = TypedstreamUnarchiver()
        unarchiver.limits.maximumDepth = Self.typedstreamLevels + 10
        var value = try unarchiver.foundationValues(of: [#require(archive.groups.first?.values.first)], in: archive)[0]
        var depth = 0
        while case .array(let elements) = value, let first = elements.first {
            value = first
            depth += 1
        }
        #expect(depth == Self.typedstreamLevels)
        #expect(value == .null)
    }
}
