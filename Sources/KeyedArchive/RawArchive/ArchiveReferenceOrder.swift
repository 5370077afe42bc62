#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A container's storage identity, with its kind (an array and a set may share elements): equal for two values
/// that share one storage, so that a walk meets each shared container once. Valid while the value is alive.
struct ContainerStorageIdentity: Hashable {
    var kind: Int
    var keys: UnsafeRawPointer?
    var values: UnsafeRawPointer?

    private static func address<T>(_ x: [T]) -> UnsafeRawPointer? {
        x.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }

    /// The identity of an array, set or dictionary; nil for any other value.
    init?(_ container: PropertyListValue) {
        switch container {
        case .array(let items): self.init(kind: 0, keys: nil, values: Self.address(items.elements))
        case .set(let items): self.init(kind: 1, keys: nil, values: Self.address(items.elements))
        case .dictionary(let d): self.init(kind: 2, keys: Self.address(d.keys), values: Self.address(d.values))
        default: return nil
        }
    }

    init(kind: Int, keys: UnsafeRawPointer?, values: UnsafeRawPointer?) {
        self.kind = kind
        self.keys = keys
        self.values = values
    }
}

/// The UIDs inside stored values, read and replaced without recursion, each distinct container storage once
/// (a binary property list can share one container between many places; visiting each place would cost
/// 2^40 steps for 40 nested shared containers).
enum ArchivedUIDWalk {
    private typealias Identity = ContainerStorageIdentity

    private static func identity(of container: PropertyListValue) -> Identity? { Identity(container) }

    /// The UIDs in `value`, in stored order (a dictionary's values in its key order), depth first; the UIDs
    /// of a container met again (the same storage) are not listed again.
    static func references(in value: PropertyListValue) -> [UInt64] {
        var out: [UInt64] = []
        var seen: Set<Identity> = []
        var pending: [PropertyListValue] = [value]
        while let next = pending.popLast() {
            switch next {
            case .uid(let u): out.append(u.value)
            case .array(let items), .set(let items):
                guard let id = identity(of: next), seen.insert(id).inserted else { continue }
                for item in items.reversed() { pending.append(item) }
            case .dictionary(let d):
                guard let id = identity(of: next), seen.insert(id).inserted else { continue }
                for item in d.values.reversed() { pending.append(item) }
            default: continue
            }
        }
        return out
    }

    /// `value` with every UID `u` replaced by `map(u)`; a container met again is replaced by the same result.
    static func replacingUIDs(in value: PropertyListValue, _ map: (UInt64) -> UInt64) -> PropertyListValue {
        enum Step {
            case enter(PropertyListValue)
            case finish(PropertyListValue, Identity)
        }
        var done: [Identity: PropertyListValue] = [:]
        var pending: [Step] = [.enter(value)]
        var results: [PropertyListValue] = []
        while let step = pending.popLast() {
            switch step {
            case .enter(let v):
                switch v {
                case .uid(let u): results.append(.uid(UID(map(u.value))))
                case .array(let items), .set(let items):
                    guard let id = identity(of: v) else { continue }
                    if let result = done[id] { results.append(result); continue }
                    pending.append(.finish(v, id))
                    for item in items.reversed() { pending.append(.enter(item)) }
                case .dictionary(let d):
                    guard let id = identity(of: v) else { continue }
                    if let result = done[id] { results.append(result); continue }
                    pending.append(.finish(v, id))
                    for item in d.values.reversed() { pending.append(.enter(item)) }
                default:
                    results.append(v)
                }
            case .finish(let v, let id):
                let result: PropertyListValue
                switch v {
                case .array(let items):
                    result = .array(PropertyListArray(Array(results.suffix(items.count))))
                    results.removeLast(items.count)
                case .set(let items):
                    result = .set(PropertyListArray(Array(results.suffix(items.count))))
                    results.removeLast(items.count)
                case .dictionary(let d):
                    result = .dictionary(PropertyListDictionary(keys: d.keys, values: Array(results.suffix(d.count))))
                    results.removeLast(d.count)
                default:
                    result = v
                }
                done[id] = result
                results.append(result)
            }
        }
        return results.last ?? value
    }
}

/// The order in which an edited archive's objects are numbered when it is written again.
///
/// Apple's `NSKeyedArchiver` gives an object its UID the first time it is encoded, then encodes its fields
/// (each object a field refers to, and that object's own fields, before the next field), and the class
/// description after the fields: a depth-first numbering from `$top`. The macOS-written archives of the shared
/// corpus (`corelibs-foundation/Resources/NSKeyedUnarchiver-ComplexTest.plist`: the NSNull at 7 and its class at
/// 8; the dictionary at 11, its key 12, its value 13, its class 14) and every NSKeyedArchiver archive there except
/// compiled nibs are numbered exactly so when each object's references are taken in the order of their UIDs.
///
/// So the re-write walks the edited graph depth first from `$top`, taking an unchanged object's references in
/// the order of their old UIDs (which is the order its writer encoded them), a new object's in the order the
/// package's builder encoded them (fields first, `$class` last), and a value an edit placed where the edit put
/// it (a replaced value where the old one was, an inserted element after its predecessor). An archive whose
/// own numbering is that walk (each one its writer numbered so) gets Apple's numbering for the edited graph; an
/// unedited one keeps every UID. A compiled nib is not numbered so (its writer numbers conditionally encoded
/// objects when first named), so its objects keep their relative order and each new object comes after the
/// object the walk met before it. Objects the walk does not reach are dropped; `$null` stays UID 0.
struct ArchiveReferenceOrder {
    /// Whether the object at `index` was in the archive before the edit.
    let originalCount: Int
    /// The values an edit placed, by object index, with their sort key among their holder's references.
    let placed: [Int: Int]

    /// The sort key of a reference to `target` among the references of an unchanged object.
    func sortKey(_ target: Int) -> Int {
        if let key = placed[target] { return key }
        return 2 * target
    }

    /// The references of the stored value `value` of the object `index` (or of `$top`, `index` nil), in the
    /// order the walk follows them.
    func children(of value: PropertyListValue, index: Int?) -> [Int] {
        if let index, index >= originalCount {
            // A new object: its fields in the order it was built, `$class` last.
            guard case .dictionary(let d) = value else { return ArchivedUIDWalk.references(in: value).map { Int(clamping: $0) } }
            var out: [Int] = []
            var classRef: [Int] = []
            for (key, field) in zip(d.keys, d.values) {
                let refs = ArchivedUIDWalk.references(in: field).map { Int(clamping: $0) }
                if key == "$class" { classRef = refs } else { out.append(contentsOf: refs) }
            }
            return out + classRef
        }
        let refs = ArchivedUIDWalk.references(in: value).map { Int(clamping: $0) }
        return refs.enumerated().sorted { a, b in
            let (ka, kb) = (sortKey(a.element), sortKey(b.element))
            return ka != kb ? ka < kb : a.offset < b.offset
        }.map(\.element)
    }

    /// The objects reached from `top` depth first (`$null` first), each once, in the order of the walk.
    static func depthFirst(top: [Int], count: Int, children: (Int) -> [Int]) -> [Int] {
        var visited = [Bool](repeating: false, count: count)
        var order: [Int] = []
        if count > 0 {
            visited[0] = true
            order.append(0)
        }
        var stack: [IndexingIterator<[Int]>] = [top.makeIterator()]
        while !stack.isEmpty {
            guard let next = stack[stack.count - 1].next() else {
                stack.removeLast()
                continue
            }
            guard next >= 0, next < count, !visited[next] else { continue }
            visited[next] = true
            order.append(next)
            stack.append(children(next).makeIterator())
        }
        return order
    }

    /// Whether a graph's own numbering is the depth-first walk (references in UID order): the walk meets the
    /// objects it reaches as 0, 1, 2, ... and nothing else comes before any of them.
    static func isDepthFirst(top: PropertyListDictionary, objects: some RandomAccessCollection<PropertyListValue>) -> Bool {
        let entries = Array(objects)
        let walk = depthFirst(top: ArchivedUIDWalk.references(in: .dictionary(top)).map { Int(clamping: $0) }.sorted(),
                              count: entries.count) { ArchivedUIDWalk.references(in: entries[$0]).map { Int(clamping: $0) }.sorted() }
        return walk.enumerated().allSatisfy { $0.offset == $0.element }
    }

    /// The final order of the objects: the walk itself when the archive was numbered depth first, otherwise the
    /// reached old objects in their old order, each new object after the old object the walk met before it.
    func finalOrder(walk: [Int], originalIsDepthFirst: Bool) -> [Int] {
        if originalIsDepthFirst { return walk }
        var anchored: [Int: [Int]] = [:]
        var anchor = 0
        var old: [Int] = []
        for index in walk {
            if index < originalCount {
                anchor = index
                old.append(index)
            } else {
                anchored[anchor, default: []].append(index)
            }
        }
        var out: [Int] = []
        out.reserveCapacity(walk.count)
        for index in old.sorted() {
            out.append(index)
            out.append(contentsOf: anchored[index] ?? [])
        }
        return out
    }
}
