// libFuzzer target: the keyed unarchiver decoding a small set of model types with an allow-list.
//
// The models are the test suite's (Tests/TestSupport/ArchiveTestModels.swift, compiled into this module
// by Scripts/fuzz.sh), archived under the same class names ("KeyedArchiveTests.Library", ...), so archives
// the test suite writes as seeds decode here in full. `Node` has a cyclic back-reference (`parent`, read through
// `decodeObjectReference`, written with `encodeConditionalObject`) and a `next` link that may form rings.
//
// Property checked: whatever the unarchiver decodes, the archiver re-archives, and unarchiving that gives
// the same field values and the same object identities (shared objects stay shared, rings stay rings);
// the decoded graph and that copy of it archive to the same bytes.
// Errors must be thrown, never trapped; an error that is not a KeyedArchiveError is a finding.
//
// Build and run with Scripts/fuzz.sh unarchiver SECONDS.

import Foundation
import KeyedArchive

// MARK: - Models

// Library, Book, Tag, Node, ListNode, EveryField and the Codable model are the test suite's own, from
// Tests/TestSupport/ArchiveTestModels.swift, which Scripts/fuzz.sh compiles into this module.

/// Sets of tags are compared in order.
extension Tag: Comparable {
    public static func < (a: Tag, b: Tag) -> Bool { a.label < b.label }
}

// MARK: - Comparing two decoded graphs

/// Compares two object graphs field by field, requiring a one-to-one correspondence between objects
/// (so sharing and rings must be preserved, not only values).
struct GraphComparison {
    private var forward: [ObjectIdentifier: ObjectIdentifier] = [:]
    private var backward: [ObjectIdentifier: ObjectIdentifier] = [:]

    /// Records that `a` corresponds to `b`; returns false when either is already paired elsewhere,
    /// and whether the pair was new (so the caller compares fields once).
    mutating func pair(_ a: AnyObject, _ b: AnyObject, path: String) -> Bool {
        let ia = ObjectIdentifier(a), ib = ObjectIdentifier(b)
        if let known = forward[ia] {
            guard known == ib else { fuzzViolation("identity not preserved at \(path)") }
            return false
        }
        guard backward[ib] == nil else { fuzzViolation("two objects merged into one at \(path)") }
        forward[ia] = ib
        backward[ib] = ia
        return true
    }

    mutating func check(_ cond: Bool, _ path: String) {
        if !cond { fuzzViolation("field differs after re-archiving at \(path)") }
    }

    mutating func compare(_ a: Book, _ b: Book, path: String) {
        guard pair(a, b, path: path) else { return }
        check(a.title == b.title, path + ".title")
        check(a.pages == b.pages, path + ".pages")
    }

    mutating func compare(_ a: Book?, _ b: Book?, path: String) {
        switch (a, b) {
        case (nil, nil): return
        case (let a?, let b?): compare(a, b, path: path)
        default: check(false, path)
        }
    }

    mutating func compare(_ a: Library, _ b: Library, path: String) {
        guard pair(a, b, path: path) else { return }
        check(a.name == b.name, path + ".name")
        check(a.books.count == b.books.count, path + ".books.count")
        for (i, (x, y)) in zip(a.books, b.books).enumerated() { compare(x, y, path: path + ".books[\(i)]") }
        check(Set(a.byCode.keys) == Set(b.byCode.keys), path + ".byCode.keys")
        for (key, x) in a.byCode.sorted(by: { $0.key < $1.key }) { compare(x, b.byCode[key], path: path + ".byCode[\(key)]") }
        check(a.shelf == b.shelf, path + ".shelf")
        compare(a.featured, b.featured, path: path + ".featured")
    }

    /// Nodes reachable from the root through strong links (`next`, `children`). A weak `parent` that
    /// points outside this set is not written again (it is a conditional object), so it must read back nil.
    static func stronglyReachable(from root: Node) -> Set<ObjectIdentifier> {
        var seen: Set<ObjectIdentifier> = []
        var stack = [root]
        while let node = stack.popLast() {
            guard seen.insert(ObjectIdentifier(node)).inserted else { continue }
            if let next = node.next { stack.append(next) }
            stack.append(contentsOf: node.children)
        }
        return seen
    }

    mutating func compare(_ rootA: Node, _ rootB: Node) {
        let reachableA = Self.stronglyReachable(from: rootA)
        var work: [(Node, Node, String)] = [(rootA, rootB, "root")]
        while let (a, b, path) = work.popLast() {
            guard pair(a, b, path: path) else { continue }
            check(a.name == b.name, path + ".name")
            check(a.children.count == b.children.count, path + ".children.count")
            for (i, (x, y)) in zip(a.children, b.children).enumerated() { work.append((x, y, path + ".children[\(i)]")) }
            switch (a.next, b.next) {
            case (nil, nil): break
            case (let x?, let y?): work.append((x, y, path + ".next"))
            default: check(false, path + ".next")
            }
            let expectedParent = a.parent.flatMap { reachableA.contains(ObjectIdentifier($0)) ? $0 : nil }
            switch (expectedParent, b.parent) {
            case (nil, nil): break
            case (let x?, let y?): work.append((x, y, path + ".parent"))
            default: check(false, path + ".parent")
            }
        }
    }

    mutating func compare(_ a: ListNode, _ b: ListNode) {
        var pairNow: (ListNode, ListNode)? = (a, b)
        var index = 0
        while let (x, y) = pairNow {
            guard pair(x, y, path: "root[\(index)]") else { return }
            check(x.value == y.value, "root[\(index)].value")
            switch (x.next, y.next) {
            case (nil, nil): pairNow = nil
            case (let p?, let q?): pairNow = (p, q)
            default: check(false, "root[\(index)].next"); pairNow = nil
            }
            index += 1
        }
    }

    mutating func compare(_ a: EveryField, _ b: EveryField) {
        check(a.bool == b.bool, "bool")
        check(a.int == b.int && a.int8 == b.int8 && a.int16 == b.int16 && a.int32 == b.int32 && a.int64 == b.int64, "signed integers")
        check(a.uint == b.uint && a.uint8 == b.uint8 && a.uint16 == b.uint16 && a.uint32 == b.uint32 && a.uint64 == b.uint64, "unsigned integers")
        check(a.float.bitPattern == b.float.bitPattern || (a.float.isNaN && b.float.isNaN), "float")
        check(a.double.bitPattern == b.double.bitPattern || (a.double.isNaN && b.double.isNaN), "double")
        check(a.string == b.string, "string")
        check(a.data == b.data, "data")
        check(a.date.timeIntervalSinceReferenceDate.bitPattern == b.date.timeIntervalSinceReferenceDate.bitPattern
              || (a.date.timeIntervalSinceReferenceDate.isNaN && b.date.timeIntervalSinceReferenceDate.isNaN), "date")
        check(a.uuid == b.uuid, "uuid")
        check(a.url.relativeString == b.url.relativeString && a.url.baseURL?.absoluteString == b.url.baseURL?.absoluteString, "url")
        check(a.relativeURL.relativeString == b.relativeURL.relativeString
              && a.relativeURL.baseURL?.absoluteString == b.relativeURL.baseURL?.absoluteString, "relativeURL")
        check(a.optionalPresent == b.optionalPresent, "optionalPresent")
        check(a.optionalAbsent == b.optionalAbsent, "optionalAbsent")
        check(a.strings == b.strings, "strings")
        check(a.numbers == b.numbers, "numbers")
        check(a.scores.count == b.scores.count, "scores.count")
        for (key, x) in a.scores {
            guard let y = b.scores[key] else { check(false, "scores[\(key)]"); continue }
            check(x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN), "scores[\(key)]")
        }
        check(a.nested == b.nested, "nested")
        check(a.dollar == b.dollar, "$dollar")
    }
}

/// Breaks the strong cycles a decoded node graph may contain, so the fuzzer does not leak memory.
func dismantle(_ root: Node) {
    var stack = [root]
    var seen: Set<ObjectIdentifier> = []
    while let node = stack.popLast() {
        guard seen.insert(ObjectIdentifier(node)).inserted else { continue }
        if let next = node.next { stack.append(next) }
        stack.append(contentsOf: node.children)
        node.next = nil
        node.children = []
    }
}

func dismantle(_ head: ListNode) {
    var current: ListNode? = head
    while let node = current {
        current = node.next
        node.next = nil
    }
}

// MARK: - Entry point

let allowedTypes: [any KeyedArchivable.Type] = [Library.self, Node.self, ListNode.self, EveryField.self]

func makeUnarchiver() -> KeyedUnarchiver {
    var unarchiver = KeyedUnarchiver()
    unarchiver.readingOptions = FuzzLimits.readingOptions
    unarchiver.limits.maximumObjectCount = 1 << 14
    unarchiver.limits.maximumByteCount = 4 << 20
    unarchiver.limits.maximumDepth = 1_000
    return unarchiver
}

/// Re-archives `value` and unarchives it again; nil when XML cannot express a value (a date XML has no
/// text form for), which the XML writer reports as `unrepresentable`.
func decodeAgain<T: KeyedArchivable>(_ value: T, format: PropertyListFormat) -> T? {
    let data: Data
    do {
        data = try KeyedArchiver.archivedData(withRootObject: value, format: format)
    } catch let error as KeyedArchiveError where format == .xml && error.underlying?.code == .unrepresentable {
        return nil
    } catch {
        fuzzViolation("re-archiving a decoded \(T.self) failed (\(format)): \(error)")
    }
    do {
        return try makeUnarchiver().decode(T.self, from: data)
    } catch {
        fuzzViolation("unarchiving the re-archived \(T.self) failed (\(format)): \(error)")
    }
}

/// Requires that `value` and `again`, a graph decoded from `value`'s archive, archive to the same bytes:
/// the archiver's output depends only on the graph (every set and dictionary here has `Comparable`
/// elements or keys, which are written in ascending order).
func expectSameArchive<T: KeyedArchivable>(_ value: T, _ again: T) {
    do {
        let first = try KeyedArchiver.archivedData(withRootObject: value)
        let second = try KeyedArchiver.archivedData(withRootObject: again)
        if first != second {
            fuzzViolation("a \(T.self) and its decoded copy archive to different bytes (\(first.count) and \(second.count))")
        }
    } catch {
        fuzzViolation("re-archiving a decoded \(T.self) failed: \(error)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzUnarchiver(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    checkModels(data)
    checkFoundationValue(data)
    checkHeterogeneous(data)
    checkCodableModel(data)
    return 0
}

/// The hand-written models: decoded graphs re-archive, decode equal, and archive to the same bytes.
func checkModels(_ data: Data) {
    let decoded: any KeyedArchivable
    do {
        decoded = try makeUnarchiver().decodeObject(ofTypes: allowedTypes, from: data)
    } catch is KeyedArchiveError {
        return
    } catch {
        fuzzViolation("the unarchiver threw something other than KeyedArchiveError: \(error)")
    }
    // Re-archive as binary and as XML; only "XML cannot express this value" is an accepted failure.
    for format in [PropertyListFormat.binary, .xml] {
        var comparison = GraphComparison()
        switch decoded {
        case let root as Library:
            if let again = decodeAgain(root, format: format) {
                comparison.compare(root, again, path: "root")
                if format == .binary { expectSameArchive(root, again) }
            }
        case let root as Node:
            if let again = decodeAgain(root, format: format) {
                comparison.compare(root, again)
                if format == .binary { expectSameArchive(root, again) }
                dismantle(again)
            }
        case let root as ListNode:
            if let again = decodeAgain(root, format: format) {
                comparison.compare(root, again)
                if format == .binary { expectSameArchive(root, again) }
                dismantle(again)
            }
        case let root as EveryField:
            if let again = decodeAgain(root, format: format) {
                comparison.compare(root, again)
                if format == .binary { expectSameArchive(root, again) }
            }
        default:
            fuzzViolation("the unarchiver returned a type that was not allowed: \(type(of: decoded))")
        }
    }
    if let root = decoded as? Node { dismantle(root) }
    if let root = decoded as? ListNode { dismantle(root) }
}

// MARK: - Foundation values and the catalogue's value types

/// Whether `value` equals itself: false when it holds a NaN somewhere (a real, a point, a color's
/// component), which no `==` can match; such values are compared by their archives instead.
func isReflexive<T: Equatable>(_ value: T) -> Bool { value == value }

/// Requires that `value`'s binary archive decodes (with `types`) to an equal value; when `value` holds a
/// NaN, that the re-decoded value archives to the same bytes instead. Byte equality is not required in
/// general: a FoundationValue set or dictionary whose elements are not all strings (a counted set of
/// numbers, an attribute dictionary) is written in its own iteration order, which the archiver documents.
func expectEqualAfterReArchiving<T: ArchiveValue & Equatable>(_ value: T, what: String,
                                                             decodeAgain: (Data) throws -> T) {
    let data: Data
    do {
        data = try KeyedArchiver.archivedData(withRootObject: value)
    } catch let error as KeyedArchiveError where isReadOnlyValueError(error) {
        return  // an NSValue of an Objective-C type: read only, as ArchivedSpecialValue documents
    } catch {
        fuzzViolation("re-archiving a decoded \(what) failed: \(error)")
    }
    let again: T
    do {
        again = try decodeAgain(data)
    } catch {
        fuzzViolation("unarchiving the re-archived \(what) failed: \(error)\n  value: \(value)")
    }
    if again == value { return }
    if !isReflexive(value) {
        let second = try? KeyedArchiver.archivedData(withRootObject: again)
        if second == data { return }
    }
    fuzzViolation("a decoded \(what) changed after re-archiving:\n  first:  \(value)\n  second: \(again)")
}

/// Whether `error` is the one documented refusal to write a decoded value: an NSValue of an Objective-C
/// number type or C array (`ArchivedSpecialValue.Content.objCValue`), which the unarchiver reads and the
/// archiver does not write.
func isReadOnlyValueError(_ error: KeyedArchiveError) -> Bool {
    error.code == .invalidValue && error.className == ArchivedSpecialValue.archivedClassName
        && error.message.contains("is read only")
}

/// The input as a `FoundationValue` (which covers the catalogue's value types).
func checkFoundationValue(_ data: Data) {
    let value: FoundationValue
    do {
        value = try makeUnarchiver().decode(FoundationValue.self, from: data)
    } catch is KeyedArchiveError {
        return
    } catch {
        fuzzViolation("decoding a FoundationValue threw something other than KeyedArchiveError: \(error)")
    }
    expectEqualAfterReArchiving(value, what: "FoundationValue") {
        try makeUnarchiver().decode(FoundationValue.self, from: $0)
    }
}

/// The heterogeneous allow-list: a fuzz model (a class and a struct), catalogue types and plain values.
let heterogeneousTypes: [any ArchiveValue.Type] = [
    Book.self, Tag.self, ArchivedSpecialValue.self, ArchivedIndexSet.self, ArchivedIndexPath.self,
    ArchivedCountedSet.self, ArchivedMeasurement.self, ArchivedTimeZone.self, ArchivedLocale.self, ArchivedISO8601DateFormatter.self,
    ArchivedAttributedString.self, ArchivedColor.self, ArchivedFont.self, ArchivedPersonNameComponents.self, ArchivedDecimalNumber.self, String.self, Int.self, Double.self,
    Data.self,
]

/// Re-archives one value `decodeValue(ofAnyOf:)` returned and requires it to decode equal.
func expectHeterogeneousRoundTrip<T: ArchiveValue>(_ value: T) {
    if let book = value as? Book {
        guard let again = decodeAgain(book, format: .binary) else { return }
        var comparison = GraphComparison()
        comparison.compare(book, again, path: "root")
        return
    }
    guard let hashable = value as? AnyHashable else {
        fuzzViolation("decodeValue(ofAnyOf:) returned a \(T.self), which is neither a fuzz model nor Hashable")
    }
    let data: Data
    do {
        data = try KeyedArchiver.archivedData(withRootObject: value)
    } catch let error as KeyedArchiveError where isReadOnlyValueError(error) {
        return  // an NSValue of an Objective-C type: read only
    } catch {
        fuzzViolation("re-archiving a heterogeneously decoded \(T.self) failed: \(error)")
    }
    let again: any ArchiveValue
    do {
        again = try makeUnarchiver().decodeValue(ofAnyOf: heterogeneousTypes, from: data)
    } catch {
        fuzzViolation("decodeValue(ofAnyOf:) rejects the re-archived \(T.self): \(error)\n  value: \(value)")
    }
    guard type(of: again) == T.self, let againHashable = again as? AnyHashable else {
        fuzzViolation("a \(T.self) decoded heterogeneously came back as a \(type(of: again))")
    }
    if againHashable == hashable || hashable != hashable { return }
    fuzzViolation("a heterogeneously decoded \(T.self) changed after re-archiving:\n  first:  \(value)\n  second: \(again)")
}

/// The heterogeneous calls on the root key: `storedClassName`, `decodeNumber`, `decodeValue(ofAnyOf:)`
/// and `decodeArray(ofAnyOf:)`. What `decodeValue` returns must be one of the allowed types and
/// round-trip; `decodeArray`'s elements must be allowed types, and it must agree with `storedClassName`.
func checkHeterogeneous(_ data: Data) {
    let unarchiver = makeUnarchiver()
    do {
        let value = try unarchiver.decodeValue(ofAnyOf: heterogeneousTypes, from: data)
        guard heterogeneousTypes.contains(where: { $0 == type(of: value) }) else {
            fuzzViolation("decodeValue(ofAnyOf:) returned a \(type(of: value)), which was not allowed")
        }
        expectHeterogeneousRoundTrip(value)
    } catch is KeyedArchiveError {
    } catch {
        fuzzViolation("decodeValue(ofAnyOf:) threw something other than KeyedArchiveError: \(error)")
    }
    do {
        try unarchiver.withTopLevelDecoder(data) { decoder in
            let className = try? decoder.storedClassName(forKey: "root")
            if let number = try? decoder.decodeNumber(forKey: "root"), className != "NSNumber" {
                fuzzViolation("decodeNumber read \(number) from a root stored as \(className ?? "nil")")
            }
            if let items = try? decoder.decodeArray(ofAnyOf: heterogeneousTypes, forKey: "root") {
                for item in items where !heterogeneousTypes.contains(where: { $0 == type(of: item) }) {
                    fuzzViolation("decodeArray(ofAnyOf:) returned a \(type(of: item)), which was not allowed")
                }
            }
        }
    } catch is KeyedArchiveError {
    } catch {
        fuzzViolation("a top-level decoder threw something other than KeyedArchiveError: \(error)")
    }
}

// MARK: - A Codable model

// FuzzCodableModel (Tests/TestSupport/ArchiveTestModels.swift) is written as a seed by
// Tests/KeyedArchiveTests/Fuzz/FuzzRegressionSeedCorpus.swift.

func compare(_ a: FuzzCodableModel, _ b: FuzzCodableModel) {
    var comparison = GraphComparison()
    comparison.check(a.name == b.name, "name")
    comparison.check(a.count == b.count, "count")
    comparison.check(a.ratio.bitPattern == b.ratio.bitPattern || (a.ratio.isNaN && b.ratio.isNaN), "ratio")
    comparison.check(a.tags == b.tags, "tags")
    comparison.check(a.point?.x == b.point?.x, "point.x")
    comparison.check(a.point?.y.bitPattern == b.point?.y.bitPattern
                     || (a.point?.y.isNaN == true && b.point?.y.isNaN == true), "point.y")
    comparison.check(a.kind == b.kind, "kind")
    comparison.check(a.items.count == b.items.count, "items.count")
    for (i, (x, y)) in zip(a.items, b.items).enumerated() {
        guard comparison.pair(x, y, path: "items[\(i)]") else { continue }
        comparison.check(x.label == y.label && x.weight == y.weight, "items[\(i)]")
    }
}

/// The input as an `ArchivableCodable` model: re-archived, it decodes equal (shared items stay shared)
/// and archives to the same bytes again (the model has no sets or dictionaries).
func checkCodableModel(_ data: Data) {
    let model: FuzzCodableModel
    do {
        model = try makeUnarchiver().decode(FuzzCodableModel.self, from: data)
    } catch is KeyedArchiveError, is DecodingError {
        return
    } catch {
        fuzzViolation("decoding a Codable model threw something other than KeyedArchiveError/DecodingError: \(error)")
    }
    for format in [PropertyListFormat.binary, .xml] {
        guard let again = decodeAgain(model, format: format) else { continue }
        compare(model, again)
        if format == .binary { expectSameArchive(model, again) }
    }
}
