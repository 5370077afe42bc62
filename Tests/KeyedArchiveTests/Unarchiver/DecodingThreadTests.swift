import Foundation
import Testing
@testable import KeyedArchive
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where `init(from:)` runs: on the caller's thread while its stack has room, on a thread with a bigger
/// stack once a deep archive gets near the end of it (UnarchivingSession+Depth.swift).
@Suite struct DecodingThreadTests {
    /// A list node that notes the thread its `init(from:)` ran on.
    final class ThreadNotingNode: KeyedArchivable {
        static var archivedClassName: String { "KeyedArchiveTests.ThreadNotingNode" }
        let value: Int
        var next: ThreadNotingNode?
        let thread: pthread_t

        init(_ value: Int, next: ThreadNotingNode?) {
            self.value = value
            self.next = next
            thread = pthread_self()
        }

        init(from decoder: any ArchiveDecoder) throws {
            thread = pthread_self()
            value = try decoder.decode(Int.self, forKey: "value")
            next = try decoder.decodeIfPresent(ThreadNotingNode.self, forKey: "next")
        }

        func encode(to encoder: any ArchiveEncoder) throws {
            try encoder.encode(value, forKey: "value")
            try encoder.encode(next, forKey: "next")
        }

        /// The nodes from `head` on, without a recursive walk.
        static func nodes(from head: ThreadNotingNode?) -> [ThreadNotingNode] {
            var result: [ThreadNotingNode] = []
            var current = head
            while let node = current {
                result.append(node)
                current = node.next
            }
            return result
        }

        /// Frees a long list without a recursive deinit.
        static func dismantle(_ head: ThreadNotingNode?) {
            for node in nodes(from: head) { node.next = nil }
        }
    }

    /// A list of `count` nodes holding 0, 1, 2, ... as an archive.
    static func listArchive(count: Int) throws -> Data {
        var head: ThreadNotingNode?
        for i in stride(from: count - 1, through: 0, by: -1) { head = ThreadNotingNode(i, next: head) }
        defer { ThreadNotingNode.dismantle(head) }
        return try KeyedArchiver.archivedData(withRootObject: head)
    }

    /// Runs `body` on a thread with an 8 MiB stack (a known amount of room, whatever thread the test runs
    /// on) and gives its result; nil if the thread could not start. `body` gets that thread's identity.
    static func onThreadWithKnownStack<R>(_ body: @escaping (pthread_t) -> R) -> R? {
        var result: R?
        guard runOnThread(stackBytes: 8 << 20, { result = body(pthread_self()) }) else { return nil }
        return result
    }

    @Test func manyShallowObjectsDecodeOnTheCallersThread() throws {
        // 200 one-node lists: 200 objects, so the archive could nest 200 deep, but none is deeper than 1.
        let nodes = (0 ..< 200).map { ThreadNotingNode($0, next: nil) }
        let data = try KeyedArchiver.archivedData(withRootObject: nodes)
        let outcome = Self.onThreadWithKnownStack { caller in
            Result { (try KeyedUnarchiver().decode([ThreadNotingNode].self, from: data), caller) }
        }
        let (back, caller) = try #require(outcome).get()
        #expect(back.map(\.value) == Array(0 ..< 200))
        #expect(back.allSatisfy { pthread_equal($0.thread, caller) != 0 })
    }

    @Test func deepListContinuesOnABiggerStackAndDecodesWhole() throws {
        let count = 30_000
        let data = try Self.listArchive(count: count)
        var unarchiver = KeyedUnarchiver()
        unarchiver.limits.maximumDepth = count + 10
        let outcome = Self.onThreadWithKnownStack { [unarchiver] caller in
            Result { (try unarchiver.decode(ThreadNotingNode.self, from: data), caller) }
        }
        let (head, caller) = try #require(outcome).get()
        let nodes = ThreadNotingNode.nodes(from: head)
        defer { ThreadNotingNode.dismantle(head) }
        #expect(nodes.map(\.value) == Array(0 ..< count))
        // The head is decoded on the caller's thread, the tail on another once the caller's stack ran short.
        #expect(pthread_equal(head.thread, caller) != 0)
        #expect(nodes.last.map { pthread_equal($0.thread, caller) == 0 } == true)
    }

    @Test func depthLimitStillStopsAListThatLeftTheCallersThread() throws {
        let data = try Self.listArchive(count: 30_000)
        var unarchiver = KeyedUnarchiver()
        unarchiver.limits.maximumDepth = 20_000
        let outcome = Self.onThreadWithKnownStack { [unarchiver] _ in
            Result { try unarchiver.decode(ThreadNotingNode.self, from: data) }
        }
        let result = try #require(outcome)
        if case .success(let head) = result { ThreadNotingNode.dismantle(head) }
        let error = try #require(throws: KeyedArchiveError.self) { try result.get() }
        #expect(error.code == .limitExceeded)
        #expect(error.message.contains("objects nested deeper than 20000 (limits.maximumDepth)"))
    }

    /// Results written by concurrent work, one slot each.
    final class Slots: @unchecked Sendable {
        private let lock = NSLock()
        private var values: [[Int]?]
        init(count: Int) { values = Array(repeating: nil, count: count) }
        subscript(i: Int) -> [Int]? {
            get { lock.withLock { values[i] } }
            set { lock.withLock { values[i] = newValue } }
        }
    }

    @Test func concurrentUnarchivesEachDecodeTheirOwnArchive() throws {
        // Lists of a few thousand nodes: on some threads they fit the stack, on others a level moves to a new thread.
        let counts = (0 ..< 8).map { 2_000 + 500 * $0 }
        let archives = try counts.map { try Self.listArchive(count: $0) }
        let results = Slots(count: counts.count)
        DispatchQueue.concurrentPerform(iterations: counts.count) { i in
            var unarchiver = KeyedUnarchiver()
            unarchiver.limits.maximumDepth = 6_000
            guard let head = try? unarchiver.decode(ThreadNotingNode.self, from: archives[i]) else { return }
            results[i] = ThreadNotingNode.nodes(from: head).map(\.value)
            ThreadNotingNode.dismantle(head)
        }
        for (i, count) in counts.enumerated() {
            #expect(results[i] == Array(0 ..< count), "archive \(i)")
        }
    }
}
