// Refusing, when archiving, a graph of Codable objects that could not be decoded.
//
// A Codable `init(from:)` reads every plain reference before it returns, so a cycle made only of the plain
// references of Codable objects (`ArchivableCodable` classes, nested Codable values written as objects) is met
// again while its first object is still being decoded: the unarchiver would throw a cycle error. Such a
// reference must be a `BackReference`, which the unarchiver delivers once the graph is complete. The archiver
// records the references Codable objects make (not back-references, not those of hand-written models, which
// may read theirs with `decodeObjectReference`) and checks, when its queue is drained, that they close no
// cycle.

/// A plain reference a Codable object made: object `from` refers to object `to` under `key` ("" for an
/// element of a collection).
struct CodableReference {
    let from: ArchiveObjectID
    let to: ArchiveObjectID
    let key: String
}

extension KeyedArchiver {
    /// Marks the object whose fields are being written as a Codable one: the references it makes must close
    /// no cycle.
    func markCodableObject() {
        if s.currentContainer != nil { s.drainedIsCodable = true }
    }

    /// Records a reference the Codable object being written makes to `uid`.
    func recordCodableReference(to uid: ArchiveObjectID, forKey key: String) {
        guard !s.writingBackReference, s.currentContainer != nil else { return }
        s.codableReferences.append(CodableReference(from: s.drainedUID, to: uid, key: key))
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
        s.codableReferences = []
        s.drainedIsCodable = false
        // Object numbers are indices in `$objects`, below the number of objects written: the tables below are
        // arrays indexed by them, as large as the archive being built.
        var objectCount = 0
        for reference in references { objectCount = max(objectCount, reference.from.rawValue + 1, reference.to.rawValue + 1) }
        // The references grouped by the object they leave, each group in recorded order (a counting sort):
        // object o's references are `references[outgoing[i]]` for i in `firstOutgoing[o] ..< firstOutgoing[o + 1]`.
        var firstOutgoing = [Int](repeating: 0, count: objectCount + 1)
        for reference in references { firstOutgoing[reference.from.rawValue + 1] += 1 }
        for object in 0 ..< objectCount { firstOutgoing[object + 1] += firstOutgoing[object] }
        var nextSlot = firstOutgoing
        var outgoing = [Int](repeating: 0, count: references.count)
        for (index, reference) in references.enumerated() {
            outgoing[nextSlot[reference.from.rawValue]] = index
            nextSlot[reference.from.rawValue] += 1
        }
        // Depth-first, iteratively: 1 marks an object on the current path, 2 one whose references are done.
        var mark = [UInt8](repeating: 0, count: objectCount)
        for start in 0 ..< objectCount where firstOutgoing[start] < firstOutgoing[start + 1] && mark[start] == 0 {
            mark[start] = 1
            var stack: [(object: Int, next: Int)] = [(start, firstOutgoing[start])]
            var path: [Int] = []  // the reference that led to each object of `stack` after the first
            while let (object, next) = stack.last {
                guard next < firstOutgoing[object + 1] else {
                    mark[object] = 2
                    stack.removeLast()
                    if !path.isEmpty { path.removeLast() }
                    continue
                }
                stack[stack.count - 1].next += 1
                let index = outgoing[next]
                let target = references[index].to.rawValue
                switch mark[target] {
                case 0:
                    mark[target] = 1
                    stack.append((target, firstOutgoing[target]))
                    path.append(index)
                case 1:
                    let first = path.firstIndex { references[$0].from.rawValue == target } ?? path.count
                    throw cycleError(Array(path[first...]) + [index], references)
                default:
                    break
                }
            }
        }
    }

    /// The error for a cycle of plain references, naming each step and the reference that closes it.
    @inline(never)
    private func cycleError(_ cycle: [Int], _ references: [CodableReference]) -> EncodingError {
        var names: [ArchiveObjectID: (name: String, value: any KeyedArchivable)] = [:]
        for entry in s.queue { names[entry.uid] = (String(reflecting: type(of: entry.value)), entry.value) }
        func describe(_ uid: ArchiveObjectID) -> String { "\(names[uid]?.name ?? "object") #\(uid.rawValue)" }
        func field(_ reference: CodableReference) -> String { reference.key.isEmpty ? "(an element)" : "." + reference.key }
        let steps = cycle.map { "\(describe(references[$0].from)) \(field(references[$0]))" }
        let closing = references[cycle[cycle.count - 1]]
        let message = "a Codable graph whose plain references form a cycle cannot be decoded: "
            + steps.joined(separator: " -> ") + " -> " + describe(closing.to) + " again; declare the reference that points back "
            + "(\(names[closing.from]?.name ?? "?")\(field(closing))) @BackReference or @WeakBackReference, "
            + "which the unarchiver delivers once the graph is complete"
        let key: [any CodingKey] = closing.key.isEmpty ? [] : [ArchiveCodingKey(stringValue: closing.key)]
        return EncodingError.invalidValue(names[closing.from]?.value as Any, .init(codingPath: key, debugDescription: message))
    }
}
