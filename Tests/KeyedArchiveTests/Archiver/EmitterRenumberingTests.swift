import Foundation
import Testing
@testable import KeyedArchive

// `KeyedArchiveEmitter.renumberDepthFirst` must number the objects in the order Apple's recursive archiver
// meets them. The oracle here is that recursion, written plainly over the test's own description of the
// graph: each object numbered when first referenced, its references (a dictionary's values, an array's
// elements, arrays nested inside it) before its siblings', objects nothing reaches at the end in their order.

/// A value inside a container of the test's graph.
private indirect enum Item {
    case uid(Int)
    case integer(Int64)
    case string(String)
    /// An array inside the container (not an object of its own; the walk enters it in place).
    case inlineArray([Item])
}

/// An object of the test's graph (its UID is its index; 0 is `$null`).
private enum Object {
    case string(String)
    case dictionary([(key: String, value: Item)])
    case array([Item])
    /// A container never completed (its encoding failed): it becomes `"$placeholder"`.
    case failed
}

/// A value as the test compares it: UIDs by number, scalars by their description.
private indirect enum Shape: Equatable, CustomStringConvertible {
    case uid(Int)
    case scalar(String)
    case array([Shape])
    case dictionary([String], [Shape])

    var description: String {
        switch self {
        case .uid(let n): return "UID(\(n))"
        case .scalar(let s): return s
        case .array(let a): return "[\(a.map(\.description).joined(separator: ", "))]"
        case .dictionary(let k, let v): return "{\(zip(k, v).map { "\($0): \($1)" }.joined(separator: ", "))}"
        }
    }

    init(_ value: PropertyListValue) {
        switch value {
        case .uid(let uid): self = .uid(Int(uid.value))
        case .string(let s): self = .scalar("s:" + s)
        case .integer(let i): self = .scalar("i:\(i.int64Value.map(String.init) ?? "?")")
        case .array(let a): self = .array(a.map(Shape.init))
        case .dictionary(let d): self = .dictionary(d.keys, d.values.map(Shape.init))
        default: self = .scalar("other:\(value)")
        }
    }
}

/// A graph of objects and the `$top` fields that refer into it.
private struct Graph {
    var objects: [Object] = [.string("$null")]
    var top: [(key: String, value: Item)] = []

    /// The new number of every object, by the recursive definition.
    func oracleNumbers() -> [Int] {
        var numbers = [Int?](repeating: nil, count: objects.count)
        numbers[0] = 0
        var next = 1
        func visit(_ item: Item) {
            switch item {
            case .uid(let target):
                guard numbers[target] == nil else { return }
                numbers[target] = next
                next += 1
                switch objects[target] {
                case .dictionary(let fields): fields.forEach { visit($0.value) }
                case .array(let items): items.forEach(visit)
                case .string, .failed: break
                }
            case .inlineArray(let items): items.forEach(visit)
            case .integer, .string: break
            }
        }
        top.forEach { visit($0.value) }
        return numbers.map { number in
            if let number { return number }
            defer { next += 1 }
            return next
        }
    }

    /// `$top` and `$objects` as the renumbered archive must hold them.
    func expected() -> (top: Shape, objects: [Shape]) {
        let numbers = oracleNumbers()
        func shape(_ item: Item) -> Shape {
            switch item {
            case .uid(let target): return .uid(numbers[target])
            case .integer(let i): return .scalar("i:\(i)")
            case .string(let s): return .scalar("s:" + s)
            case .inlineArray(let items): return .array(items.map(shape))
            }
        }
        var objectShapes = [Shape](repeating: .scalar(""), count: objects.count)
        for (uid, object) in objects.enumerated() {
            switch object {
            case .string(let s): objectShapes[numbers[uid]] = .scalar("s:" + s)
            case .dictionary(let fields): objectShapes[numbers[uid]] = .dictionary(fields.map(\.key), fields.map { shape($0.value) })
            case .array(let items): objectShapes[numbers[uid]] = .array(items.map(shape))
            case .failed: objectShapes[numbers[uid]] = .scalar("s:$placeholder")
            }
        }
        return (.dictionary(top.map(\.key), top.map { shape($0.value) }), objectShapes)
    }

    /// The emitter's `$top` and `$objects` after renumbering, the slots holding refs positions up to
    /// `inlineRangeLimit` (beyond, the walk reads the containers' records).
    func emitted(inlineRangeLimit: Int? = nil) -> (top: Shape, objects: [Shape]) {
        var emitter = KeyedArchiveEmitter()
        var containers: [Int: ArchiveContainerID] = [:]
        for (uid, object) in objects.enumerated() {
            if case .string(let s) = object {
                #expect(emitter.appendElement(emitter.string(s)).rawValue == uid)
            } else {
                let (made, container) = emitter.appendContainerElement()
                #expect(made.rawValue == uid)
                containers[uid] = container
            }
        }
        func ref(_ item: Item) -> KeyedArchiveEmitter.Ref {
            switch item {
            case .uid(let target): return KeyedArchiveEmitter.uid(ArchiveObjectID(target))
            case .integer(let i): return emitter.integer(i)
            case .string(let s): return emitter.string(s)
            case .inlineArray(let items):
                let refs = items.map(ref)
                let container = emitter.newContainer()
                emitter.completeArray(container, refs, from: 0)
                return KeyedArchiveEmitter.ref(container: container)
            }
        }
        // Containers completed in an order other than their objects' (as the archiver's work queue may).
        for (uid, object) in objects.enumerated().reversed() {
            guard let container = containers[uid] else { continue }
            switch object {
            case .dictionary(let fields):
                let keys = fields.map { emitter.string($0.key) }
                emitter.completeDictionary(container, keys: keys, values: fields.map { ref($0.value) })
            case .array(let items):
                emitter.completeArray(container, items.map(ref), from: 0)
            case .string, .failed: break
            }
        }
        let top = emitter.newContainer()
        let topKeys = self.top.map { emitter.string($0.key) }
        emitter.completeDictionary(top, keys: topKeys, values: self.top.map { ref($0.value) })
        emitter.replaceUnfinishedObjects()
        if let inlineRangeLimit {
            emitter.renumberDepthFirst(from: top, inlineRangeLimit: inlineRangeLimit)
        } else {
            emitter.renumberDepthFirst(from: top)
        }
        let objectsContainer = emitter.objectsArray()
        let root = emitter.newContainer()
        emitter.completeDictionary(root, keys: [emitter.string("$version"), emitter.string("$archiver"),
                                                emitter.string("$top"), emitter.string("$objects")],
                                   values: [emitter.integer(Int64(100000)), emitter.string("NSKeyedArchiver"),
                                            KeyedArchiveEmitter.ref(container: top),
                                            KeyedArchiveEmitter.ref(container: objectsContainer)])
        guard case .dictionary(let tree) = emitter.tree(root: root), tree.values.count == 4,
              case .array(let objects) = tree.values[3] else { return (.scalar("no tree"), []) }
        return (Shape(tree.values[2]), objects.map(Shape.init))
    }
}

/// Random graphs: shared objects, cycles, containers of 0, 1 and many refs (past the walk's 16-ref
/// prefetch window), nested arrays, scalars among the values, failed objects and objects nothing reaches.
private func randomGraph(seed: UInt64, objectCount: Int) -> Graph {
    var random = SeededGenerator(seed: seed)
    var graph = Graph()
    func refCount() -> Int {
        switch Int.random(in: 0 ..< 10, using: &random) {
        case 0: return 0
        case 1: return 1
        case 2: return Int.random(in: 15 ... 40, using: &random)
        default: return Int.random(in: 2 ... 6, using: &random)
        }
    }
    func item(depth: Int) -> Item {
        switch Int.random(in: 0 ..< 10, using: &random) {
        case 0: return .integer(Int64.random(in: -3 ... 3, using: &random))
        case 1: return .string("s\(Int.random(in: 0 ..< 4, using: &random))")
        case 2 where depth < 2: return .inlineArray((0 ..< refCount()).map { _ in item(depth: depth + 1) })
        default: return .uid(Int.random(in: 0 ... objectCount, using: &random))
        }
    }
    for _ in 1 ... objectCount {
        switch Int.random(in: 0 ..< 12, using: &random) {
        case 0, 1: graph.objects.append(.string("o\(graph.objects.count)"))
        case 2: graph.objects.append(.failed)
        case 3, 4: graph.objects.append(.array((0 ..< refCount()).map { _ in item(depth: 0) }))
        default:
            graph.objects.append(.dictionary((0 ..< refCount()).map { ("k\($0)", item(depth: 0)) }))
        }
    }
    // `$top` refers to a few objects (most of the graph is reached through them; some is not).
    graph.top = (0 ..< Int.random(in: 0 ... 4, using: &random)).map { ("root\($0)", item(depth: 0)) }
    return graph
}

@Suite struct EmitterRenumberingTests {
    private func expectOracleOrder(_ graph: Graph, _ note: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let expected = graph.expected()
        for limit in [nil, 0, 40] as [Int?] {
            let emitted = graph.emitted(inlineRangeLimit: limit)
            #expect(emitted.top == expected.top, "\(note), limit \(String(describing: limit)): $top", sourceLocation: sourceLocation)
            #expect(emitted.objects.count == expected.objects.count, "\(note): object count", sourceLocation: sourceLocation)
            if let uid = zip(emitted.objects, expected.objects).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
                Issue.record("\(note), limit \(String(describing: limit)): object \(uid) is \(emitted.objects[uid]), expected \(expected.objects[uid])",
                             sourceLocation: sourceLocation)
            }
        }
    }

    @Test func randomGraphsAreNumberedInRecursiveDepthFirstOrder() {
        for seed in UInt64(1) ... 120 {
            expectOracleOrder(randomGraph(seed: seed, objectCount: Int(seed % 7 == 0 ? 400 : seed % 40 + 1)), "seed \(seed)")
        }
    }

    @Test func aChainDeeperThanTheReservedFramesIsWalkedToTheEndFirst() {
        // Each object refers to the next, then to a string after it: the strings are numbered on the way back.
        let length = 700
        var graph = Graph()
        for i in 0 ..< length {
            let next = 1 + 2 * (i + 1)
            let tail: Item = i + 1 < length ? .uid(next) : .integer(0)
            graph.objects.append(.dictionary([("next", tail), ("label", .uid(2 + 2 * i)), ("back", .uid(1))]))
            graph.objects.append(.string("label \(i)"))
        }
        graph.top = [("root", .uid(1))]
        expectOracleOrder(graph, "chain")
    }

    @Test func arraysOfManyObjectsAndSharedTargetsKeepFirstMeetingOrder() {
        // An array of 100 objects (past the 16 refs prefetched on entry) whose elements refer back to it
        // and to each other, in reverse order.
        var graph = Graph()
        let n = 100
        graph.objects.append(.array((0 ..< n).map { .uid(2 + $0) }))
        for i in 0 ..< n {
            graph.objects.append(.dictionary([("owner", .uid(1)), ("peer", .uid(2 + (n - 1 - i))),
                                              ("list", .inlineArray([.uid(2 + (i * 7) % n), .integer(Int64(i))]))]))
        }
        graph.top = [("all", .uid(1)), ("last", .uid(1 + n))]
        expectOracleOrder(graph, "array")
    }

    @Test func unreachedAndFailedObjectsKeepTheirOrderAtTheEnd() {
        var graph = Graph()
        graph.objects += [.dictionary([("a", .uid(4))]), .failed, .string("met through c"),
                          .dictionary([("b", .uid(2)), ("c", .uid(3))]), .array([]), .dictionary([("d", .uid(1))])]
        graph.top = [("x", .uid(6)), ("y", .uid(2))]
        // Reached: 6 -> 1, 1 -> 2, 4 -> 3, 2 -> 4 (the failed one, a placeholder), 3 -> 5; then the empty
        // array nothing reaches, 5 -> 6.
        #expect(graph.oracleNumbers() == [0, 2, 4, 5, 3, 6, 1])
        expectOracleOrder(graph, "unreached")
    }
}
