// Refusing, when archiving, a graph of Codable objects that could not be decoded.
//
// A Codable `init(from:)` reads every plain reference before it returns, so a cycle made only of the plain
// references of Codable objects (`ArchivableCodable` classes, nested Codable values written as objects) is met
// again while its first object is still being decoded: the unarchiver would throw a cycle error. Such a
// reference must be a `BackReference`, which the unarchiver delivers once the graph is complete. The archiver
// records the references Codable objects make (not back-references, not those of hand-written models, which
// may read theirs with `decodeObjectReference`) and checks, when its queue is drained, that they close no
// cycle.

/// A plain reference a Codable object made: object `from` refers to object `to`. Its key is kept apart, in
/// ``KeyedArchiver/State/codableReferenceKeys`` with the reference's index, when it is not "" (an element of a
/// collection, the commonest reference): only an error names it, and the check walks the references without
/// copying a string.
struct CodableReference {
    let from: ArchiveObjectID
    let to: ArchiveObjectID
}

extension KeyedArchiver {
    /// Marks the object whose fields are being written as a Codable one: the references it makes must close
    /// no cycle.
    func markCodableObject() {
        if s.currentContainer != nil { s.drainedIsCodable = true }
    }

    /// Records a reference the Codable object being written makes to `uid`.
    @inline(__always)
    func recordCodableReference(to uid: ArchiveObjectID, forKey key: String) {
        guard !s.writingBackReference, s.currentContainer != nil else { return }
        if !key.isEmpty { s.codableReferenceKeys.append((s.codableReferences.count, key)) }
        s.codableReferences.append(CodableReference(from: s.drainedUID, to: uid))
    }

    /// Runs `body`, which writes a back-reference: one that may close a cycle.
    func writingBackReference<R>(_ body: () throws -> R) rethrows -> R {
        s.writingBackReference = true
        defer { s.writingBackReference = false }
        return try body()
    }

    /// Throws when the recorded references close a cycle; forgets them.
    ///
    /// Every object they reach has been written by now (the queue is drained), so a cycle cannot close later.
    /// Objects are visited from the lowest object number up, and each object's references in the order they
    /// were recorded, so the cycle reported is the first one that order meets.
    func checkCodableReferencesCloseNoCycle() throws {
        let references = s.codableReferences
        let keys = s.codableReferenceKeys
        s.codableReferences = []
        s.codableReferenceKeys = []
        s.drainedIsCodable = false
        // Object numbers are indices in `$objects`, below the number of objects written: the tables below are
        // arrays indexed by them, as large as the archive being built.
        var objectCount = 0
        var recordedInObjectOrder = true
        var previous = 0
        for reference in references {
            objectCount = max(objectCount, reference.from.rawValue + 1, reference.to.rawValue + 1)
            recordedInObjectOrder = recordedInObjectOrder && previous <= reference.from.rawValue
            previous = reference.from.rawValue
        }
        // The references grouped by the object they leave, each group in recorded order: object o's references
        // are `references[outgoing[i]]` (`references[i]` when `outgoing` is empty) for i in
        // `firstOutgoing[o] ..< firstOutgoing[o + 1]`. The drain records them object by object, in object order,
        // so they are grouped already; otherwise a counting sort groups them.
        var firstOutgoing = [Int](repeating: 0, count: objectCount + 1)
        var outgoing: [Int] = []
        if recordedInObjectOrder {
            var object = 0
            for (index, reference) in references.enumerated() {
                while object <= reference.from.rawValue {
                    firstOutgoing[object] = index
                    object += 1
                }
            }
            while object <= objectCount {
                firstOutgoing[object] = references.count
                object += 1
            }
        } else {
            for reference in references { firstOutgoing[reference.from.rawValue + 1] += 1 }
            for object in 0 ..< objectCount { firstOutgoing[object + 1] += firstOutgoing[object] }
            var nextSlot = firstOutgoing
            outgoing = [Int](repeating: 0, count: references.count)
            for (index, reference) in references.enumerated() {
                outgoing[nextSlot[reference.from.rawValue]] = index
                nextSlot[reference.from.rawValue] += 1
            }
        }
        // Depth-first, iteratively: 1 marks an object on the current path, 2 one whose references are done.
        var mark = [UInt8](repeating: 0, count: objectCount)
        var stack: [(object: Int, next: Int)] = []
        var path: [Int] = []  // the reference that led to each object of `stack` after the first
        for start in 0 ..< objectCount where firstOutgoing[start] < firstOutgoing[start + 1] && mark[start] == 0 {
            mark[start] = 1
            stack.append((start, firstOutgoing[start]))  // `stack` and `path` are empty: the last walk ended
            while let (object, next) = stack.last {
                guard next < firstOutgoing[object + 1] else {
                    mark[object] = 2
                    stack.removeLast()
                    if !path.isEmpty { path.removeLast() }
                    continue
                }
                stack[stack.count - 1].next += 1
                let index = outgoing.isEmpty ? next : outgoing[next]
                let target = references[index].to.rawValue
                switch mark[target] {
                case 0:
                    mark[target] = 1
                    stack.append((target, firstOutgoing[target]))
                    path.append(index)
                case 1:
                    let first = path.firstIndex { references[$0].from.rawValue == target } ?? path.count
                    throw cycleError(Array(path[first...]) + [index], references, keys)
                default:
                    break
                }
            }
        }
    }

    /// The error for a cycle of plain references, naming each step and the reference that closes it.
    @inline(never)
    private func cycleError(_ cycle: [Int], _ references: [CodableReference],
                            _ recordedKeys: [(reference: Int, key: String)]) -> EncodingError {
        var names: [ArchiveObjectID: (name: String, value: any KeyedArchivable)] = [:]
        for entry in s.queue { names[entry.uid] = (String(reflecting: type(of: entry.value)), entry.value) }
        var keys: [Int: String] = [:]
        for (reference, key) in recordedKeys { keys[reference] = key }
        func describe(_ uid: ArchiveObjectID) -> String { "\(names[uid]?.name ?? "object") #\(uid.rawValue)" }
        func field(_ index: Int) -> String { keys[index].map { "." + $0 } ?? "(an element)" }
        let steps = cycle.map { "\(describe(references[$0].from)) \(field($0))" }
        let closingIndex = cycle[cycle.count - 1]
        let closing = references[closingIndex]
        let message = "a Codable graph whose plain references form a cycle cannot be decoded: "
            + steps.joined(separator: " -> ") + " -> " + describe(closing.to) + " again; declare the reference that points back "
            + "(\(names[closing.from]?.name ?? "?")\(field(closingIndex))) @BackReference or @WeakBackReference, "
            + "which the unarchiver delivers once the graph is complete"
        let key: [any CodingKey] = keys[closingIndex].map { [ArchiveCodingKey(stringValue: $0)] } ?? []
        return EncodingError.invalidValue(names[closing.from]?.value as Any, .init(codingPath: key, debugDescription: message))
    }
}
