import Foundation
import Testing
@testable import KeyedArchive

// A seeded randomized differential test: thousands of small random FoundationValue graphs (every plain kind,
// strings with canonically equivalent spellings, shared containers; see RandomFoundationValue) travel in both
// directions between us and two independent implementations, GNUstep (through the oracle's batch mode, one
// process for every graph) and Foundation on Linux (in-process):
//
// - we archive [[graph], [graph]], the inner list one object referenced twice (every third graph as XML;
//   the same bytes for the same graph built twice) -> GNUstep unarchives it and prints its description,
//   which must be ours; GNUstep then archives what it read, twice in one array ([root, root]: one object
//   referenced twice), and we read that;
// - we archive the graph (every third as XML) -> Foundation's NSKeyedUnarchiver reads it;
// - Foundation's NSKeyedArchiver archives the graph's objects, shared containers as one object -> we read them.
//
// Every graph is a function of (seed, index) alone: a failure names both, and
// `RandomFoundationValue(...).graph(seed:index:)` rebuilds it. Failures found so far are kept, minimized, as
// the named regression tests of NSStringEqualityTests and of the GNUstep suite below.
//
// Foundation on Linux has these faults, which the tests step around explicitly and only for it:
// - its NSString -isEqual: is Swift's String == (canonical equivalence) while its hash is not, so any of its
//   dictionaries (NSDictionary, NSSet, its archiver's object table) that holds "\u{E9}" and "e\u{301}" may
//   trap the whole process ("Duplicate keys of type 'AnyHashable'"): its graphs spell each string one way
//   (RandomFoundationValue.oneSpellingPerGraph); GNUstep gets both spellings side by side;
// - its archiver writes NSNumbers that are -isEqual: (true, 1, 1.0) once, as whichever came first: reading
//   its archives compares numbers by value (FoundationValueComparison.Allowance.equalNumbersMerge);
// - its collections hand out their NSURLs as Swift URLs without their base (folded into the URL), so what
//   it reads compares those by absolute string (Allowance.urlBasesResolved).

/// The seeds of the runs; every test runs `graphsPerSeed` graphs of each.
private let seeds: [UInt64] = [1, 2, 3, 0x5EED, 0xC0FFEE, 20_261_127]
private let graphsPerSeed = 300
/// How many failing graphs a test reports in full; the count of all of them follows.
private let reportedFailures = 8

/// Failures of one test, each with the seed and index that rebuild its graph.
private struct Failures {
    var count = 0
    var messages: [String] = []

    mutating func add(seed: UInt64, index: Int, _ message: String) {
        count += 1
        if messages.count < reportedFailures { messages.append("seed \(seed), graph \(index): \(message)") }
    }

    func report(_ what: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for m in messages { Issue.record(Comment(rawValue: m), sourceLocation: sourceLocation) }
        #expect(count == 0, "\(count) failures in \(seeds.count * graphsPerSeed) graphs \(what)", sourceLocation: sourceLocation)
    }
}

/// Runs `body` on every graph of every seed and adds the failure it returns, if any. A graph that
/// ``FoundationValue`` built losing a dictionary entry is a failure without running `body`.
private func eachGraph(_ generator: RandomFoundationValue, _ failures: inout Failures,
                       _ body: (UInt64, Int, FoundationValue) throws -> String?) rethrows {
    for seed in seeds {
        for index in 0 ..< graphsPerSeed {
            let (value, lost) = generator.graph(seed: seed, index: index)
            if let failure = lost.isEmpty ? try body(seed, index, value) : "FoundationValue lost entries: \(lost)" {
                failures.add(seed: seed, index: index, failure)
            }
        }
    }
}

/// An NSArray with identity: a class, so that one list referenced twice is archived once and both references
/// are the same UID, as Apple's archiver writes a shared NSArray (``FoundationValue``, a value, cannot share).
/// Written only. Its elements are members `NS.object.0`, `NS.object.1`, ... (the layout Apple writes for
/// NSOrderedSet, which GNUstep's NSArray and ours accept too): a model's `encodeArray` would write
/// `NS.objects` as an NSArray object of its own rather than inline.
private final class SharedList: KeyedArchivable {
    static var archivedClassName: String { "NSArray" }

    enum Element: ArchiveValue {
        case value(FoundationValue)
        case list(SharedList)

        func encode(to encoder: any ArchiveEncoder, forKey key: String) throws {
            switch self {
            case .value(let v): try v.encode(to: encoder, forKey: key)
            case .list(let l): try encoder.encodeObject(l, forKey: key)
            }
        }

        static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> Element {
            throw KeyedArchiveError(.invalidValue, "SharedList is only written", keyPath: key)
        }
    }

    let elements: [Element]
    init(_ elements: [Element]) { self.elements = elements }
    init(from decoder: any ArchiveDecoder) throws { throw KeyedArchiveError(.invalidValue, "SharedList is only written") }
    func encode(to encoder: any ArchiveEncoder) throws {
        for (i, element) in elements.enumerated() { try element.encode(to: encoder, forKey: "NS.object.\(i)") }
    }

    /// `[[value], [value]]` with the inner list one object referenced twice, and the value it reads back as.
    static func sharing(_ value: FoundationValue) -> (list: SharedList, value: FoundationValue) {
        let inner = SharedList([.value(value)])
        return (SharedList([.list(inner), .list(inner)]), .array([.array([value]), .array([value])]))
    }

    /// Whether `archive`'s root holds one object twice (the two references of ``sharing(_:)``).
    static func rootSharesItsElements(_ archive: Data) -> Bool {
        guard let tree = try? PropertyListValue(propertyListData: archive),
              let root = tree.dictionaryValue?["$top"]?.dictionaryValue?["root"]?.uidValue,
              let objects = tree.dictionaryValue?["$objects"]?.arrayValue, root.value < UInt64(objects.count),
              let fields = objects[Int(root.value)].dictionaryValue, let first = fields["NS.object.0"]?.uidValue else { return false }
        return fields["NS.object.1"]?.uidValue == first
    }
}

/// The format we write graph `index` in: every third one XML, the others binary.
private func format(_ index: Int) -> PropertyListFormat { index % 3 == 2 ? .xml : .binary }

/// Writes `data` to `url` without the `fsync` that `Data.write(to:)` makes on Linux (thousands of small
/// files for one oracle run; they are read back at once and then deleted).
private func writeWithoutSync(_ data: Data, to url: URL) throws {
    guard let file = fopen(url.path, "wb") else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path]) }
    let written = data.withUnsafeBytes { fwrite($0.baseAddress, 1, $0.count, file) }
    guard fclose(file) == 0, written == data.count else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path]) }
}

@Suite("Randomized differential test against GNUstep and Foundation on Linux")
struct FoundationValueDifferentialTests {
    /// GNUstep has neither our NSUUID key nor 16-byte integers (GNUstepInteropTests, deviations 1 and 2).
    static let gnustepGraphs = RandomFoundationValue(uuids: false, unsignedAboveInt64: false)
    static let foundationGraphs = RandomFoundationValue(oneSpellingPerGraph: true)

    @Test(.enabled(if: GNUstepOracle.isAvailable, "GNUstep (gobjc, libgnustep-base-dev) not installed"))
    func gnustepAgreesOnRandomGraphs() throws {
        let directory = try TemporaryDirectory.create("differential")
        defer { TemporaryDirectory.remove(directory) }
        var graphs: [(seed: UInt64, index: Int, value: FoundationValue)] = []
        var failures = Failures()
        try eachGraph(Self.gnustepGraphs, &failures) { seed, index, value in
            let (shared, sent) = SharedList.sharing(value)
            let archive = try KeyedArchiver.archivedData(withRootObject: shared, format: format(index))
            try writeWithoutSync(archive, to: directory.appendingPathComponent("\(graphs.count).archive"))
            graphs.append((seed, index, sent))
            guard SharedList.rootSharesItsElements(archive) else { return "the shared list was not archived once" }
            // The same graph built again (new dictionaries, which may iterate in another order) gives the same
            // bytes when its dictionaries are ordered: their keys all strings (CanonicalOrder).
            if Self.dictionaryKeysAreStrings(value),
               try KeyedArchiver.archivedData(withRootObject: SharedList.sharing(Self.gnustepGraphs.graph(seed: seed, index: index).value).list,
                                              format: format(index)) != archive {
                return "archiving the graph built again gave other bytes"
            }
            return FoundationValueComparison.difference(sent, try KeyedUnarchiver().decode(FoundationValue.self, from: archive))
                .map { "our own round trip: \($0)" }
        }
        let run = try GNUstepOracle.run(["batch", directory.path, "\(graphs.count)"])
        #expect(run.status == 0 && !run.crashed, "GNUstep's batch run: \(run.crashed ? "signal" : "status") \(run.status) \(run.stderr)")
        var lines: [Int: Substring] = [:]
        for line in run.stdout.split(separator: "\n") {
            guard let space = line.firstIndex(of: " "), let n = Int(line[..<space]) else { continue }
            lines[n] = line[line.index(after: space)...]
        }
        for (n, graph) in graphs.enumerated() {
            let expected = Self.gnustepDescription(graph.value, format: format(graph.index))
            guard let line = lines[n], line == expected else {
                failures.add(seed: graph.seed, index: graph.index, "GNUstep read \(lines[n].map(String.init) ?? "nothing"), expected \(expected)")
                continue
            }
            do {
                let written = try Data(contentsOf: directory.appendingPathComponent("\(n).gnustep"))
                let ours = try KeyedUnarchiver().decode(FoundationValue.self, from: written)
                if let d = FoundationValueComparison.difference(.array([graph.value, graph.value]), ours) {
                    failures.add(seed: graph.seed, index: graph.index, "reading GNUstep's archive: \(d)")
                }
            } catch {
                failures.add(seed: graph.seed, index: graph.index, "reading GNUstep's archive: \(error)")
            }
        }
        failures.report("against GNUstep")
    }

    @Test func foundationReadsOurRandomGraphs() throws {
        var failures = Failures()
        try eachGraph(Self.foundationGraphs, &failures) { seed, index, value in
            // No SharedList here: Foundation on Linux's NSArray reads NS.objects only (an NS.object.N list
            // reads as empty), so sharing is checked in the other direction.
            let archive = try KeyedArchiver.archivedData(withRootObject: value, format: format(index))
            let unarchiver = try NSKeyedUnarchiver(forReadingFrom: archive)
            unarchiver.requiresSecureCoding = false
            guard let root = unarchiver.decodeObject(forKey: "root") else {
                return "Foundation read nil: \(unarchiver.error.map { "\($0)" } ?? "")"
            }
            switch FoundationValueObjects.value(root) {
            case .failure(let e): return "Foundation read \(e)"
            case .success(let read):
                return FoundationValueComparison.difference(value, read, allowing: .urlBasesResolved).map { "Foundation read: \($0)" }
            }
        }
        failures.report("Foundation's reading of our archives")
    }

    @Test func weReadFoundationsRandomGraphs() throws {
        var failures = Failures()
        try eachGraph(Self.foundationGraphs, &failures) { seed, index, value in
            // What Foundation holds is what its archive must give us.
            let object = FoundationValueObjects.object(value)
            guard case .success(let held) = FoundationValueObjects.value(object) else { return "no Foundation view of \(value)" }
            let archive = try NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false)
            do {
                let ours = try KeyedUnarchiver().decode(FoundationValue.self, from: archive)
                return FoundationValueComparison.difference(held, ours, allowing: .equalNumbersMerge).map { "reading Foundation's archive: \($0)" }
            } catch {
                return "reading Foundation's archive: \(error)"
            }
        }
        failures.report("reading Foundation's archives")
    }

    // MARK: - The failures the differential test found, minimized

    /// Issue #30: our archiver dropped one of two NSSet members "\u{C5}" and "\u{212B}" (or "\u{E9}" and
    /// "e\u{301}"); GNUstep reads all four.
    @Test(.enabled(if: GNUstepOracle.isAvailable, "GNUstep (gobjc, libgnustep-base-dev) not installed"))
    func gnustepReadsEveryEquivalentSetMemberWeWrite() throws {
        typealias D = GNUstepOracle.Description
        let members = ["\u{C5}", "\u{212B}", "\u{E9}", "e\u{301}"]
        let archive = try KeyedArchiver.archivedData(withRootObject: FoundationValue.set(members.map { .string($0) }))
        #expect(try GNUstepOracle.decode(archive) == D.set(members.map(D.string)))
    }

    /// Issue #30: GNUstep's NSDictionary {"\u{E9}": 1, "e\u{301}": 2} read as one entry, with the key of one
    /// and the value of the other; now two entries, each with its value, and a clear error for `[String: Int]`.
    @Test(.enabled(if: GNUstepOracle.isAvailable, "GNUstep (gobjc, libgnustep-base-dev) not installed"))
    func gnustepDictionaryWithEquivalentKeysKeepsBothEntries() throws {
        let archive = try GNUstepOracle.encode("equivalentKeys")
        #expect(try KeyedUnarchiver().decode(FoundationValue.self, from: archive)
            == .dictionary([.string("\u{E9}"): .integer(1), .string("e\u{301}"): .integer(2)]))
        let error = try #require(throws: KeyedArchiveError.self) { try KeyedUnarchiver().decode([String: Int].self, from: archive) }
        #expect(error.code == .equivalentKeys)
    }

    /// The same for GNUstep's NSSet: all four members, and a clear error for `Set<String>`.
    @Test(.enabled(if: GNUstepOracle.isAvailable, "GNUstep (gobjc, libgnustep-base-dev) not installed"))
    func gnustepSetWithEquivalentMembersKeepsThemAll() throws {
        let archive = try GNUstepOracle.encode("equivalentMembers")
        let value = try KeyedUnarchiver().decode(FoundationValue.self, from: archive)
        #expect(FoundationValueComparison.difference(.set(["\u{C5}", "\u{212B}", "\u{E9}", "e\u{301}"].map { .string($0) }), value) == nil,
                "\(value)")
        let error = try #require(throws: KeyedArchiveError.self) { try KeyedUnarchiver().decode(Set<String>.self, from: archive) }
        #expect(error.code == .equivalentKeys)
    }

    /// Whether every dictionary in `value` has only string keys.
    static func dictionaryKeysAreStrings(_ value: FoundationValue) -> Bool {
        switch value {
        case .array(let a), .orderedSet(let a), .set(let a): return a.allSatisfy(dictionaryKeysAreStrings)
        case .dictionary(let d):
            return d.allSatisfy { entry in
                if case .string = entry.key { return dictionaryKeysAreStrings(entry.value) }
                return false
            }
        default: return true
        }
    }

    /// What GNUstep's oracle prints for `value` read from an archive in `format` (numbers typed as GNUstep
    /// types what it reads: its XML reader makes Int64.max a `Q`).
    static func gnustepDescription(_ value: FoundationValue, format: PropertyListFormat) -> String {
        func describe(_ value: FoundationValue) -> String { gnustepDescription(value, format: format) }
        typealias D = GNUstepOracle.Description
        switch value {
        case .null: return D.null
        case .bool(let b): return D.bool(b)
        case .integer(let i): return i.int64Value.map { D.integer($0, format: format) } ?? D.number("Q", "\(i)")
        case .real(let d): return D.double(d)
        case .string(let s): return D.string(s)
        case .data(let d): return D.data(d)
        case .date(let d): return D.date(d)
        case .uuid(let u): return D.uuid(u)
        case .url(let u): return D.url(u)
        case .array(let a): return D.array(a.map(describe))
        case .orderedSet(let a): return D.orderedSet(a.map(describe))
        case .set(let a): return D.set(a.map(describe))
        case .dictionary(let d): return D.dictionary(d.map { (describe($0.key), describe($0.value)) })
        default: return "{\"?\":\"\(value)\"}"
        }
    }
}
