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
    func checkCodableReferencesCloseNoCycle() throws {
        let references = s.codableReferences
        s.codableReferences = []
        s.drainedIsCodable = false
        var outgoing: [ArchiveObjectID: [Int]] = [:]
        for (index, reference) in references.enumerated() { outgoing[reference.from, default: []].append(index) }
        // Depth-first, iteratively: 1 marks an object on the current path, 2 one whose references are done.
        var mark: [ArchiveObjectID: UInt8] = [:]
        for start in outgoing.keys.sorted() where mark[start] == nil {
            mark[start] = 1
            var stack: [(object: ArchiveObjectID, next: Int)] = [(start, 0)]
            var path: [Int] = []  // the reference that led to each object of `stack` after the first
            while let (object, next) = stack.last {
                let out = outgoing[object] ?? []
                guard next < out.count else {
                    mark[object] = 2
                    stack.removeLast()
                    if !path.isEmpty { path.removeLast() }
                    continue
                }
                stack[stack.count - 1].next += 1
                let index = out[next]
                let target = references[index].to
                switch mark[target] {
                case nil:
                    mark[target] = 1
                    stack.append((target, 0))
                    path.append(index)
                case 1?:
                    let first = path.firstIndex { references[$0].from == target } ?? path.count
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
