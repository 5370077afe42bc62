import Foundation
import Testing
@testable import KeyedArchive

@Suite struct InteropFoundationValueTests {
    @Test func foundationValueRoundTrips() throws {
        let value: FoundationValue = .array([
            .null, .bool(true), .integer(-3), .integer(PropertyListInteger(UInt64.max)), .real(2.5), .string("s"),
            .data(Data([1])), .date(Date(timeIntervalSinceReferenceDate: 5)), .uuid(UUID(uuid: (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16))),
            .url(URL(string: "https://example.com/x")!), .set([.string("only")]),
            .dictionary([.string("k"): .array([.integer(1)]), .integer(2): .null]),
        ])
        let tree = try KeyedArchiver.archivedPropertyList(withRootObject: value)
        #expect(try KeyedUnarchiver().decode(FoundationValue.self, from: tree) == value)
    }

    @Test func orderedSetIsWrittenAsNSOrderedSet() throws {
        let value: FoundationValue = .orderedSet([.string("b"), .string("a"), .integer(3)])
        let data = try KeyedArchiver.archivedData(withRootObject: value)
        #expect(try KeyedUnarchiver().decode(FoundationValue.self, from: data) == value)
        let graph = try ArchivedObjectGraph(data: data)
        #expect(graph.topReference().flatMap { graph.className(of: $0) } == "NSOrderedSet")
        let back = try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSOrderedSet.self, NSString.self, NSNumber.self], from: data)
        let set = try #require(back as? NSOrderedSet)
        #expect(set.array.map { "\($0)" } == ["b", "a", "3"])
    }

    @Test func modelClassIsNotAFoundationValue() throws {
        let tree = try KeyedArchiver.archivedPropertyList(withRootObject: [Book(title: "b", pages: 1)])
        let error = try #require(throws: KeyedArchiveError.self) { try KeyedUnarchiver().decode(FoundationValue.self, from: tree) }
        #expect(error.code == .classNotAllowed)
        #expect(error.keyPath == "root[0]")
    }

    @Test func foundationMixedArrayDecodes() throws {
        let inner = NSMutableDictionary()
        inner[NSString(string: "n")] = NSNumber(value: 1.5)
        let array = NSArray(array: [NSNull(), NSNumber(value: 7), NSString(string: "s"), inner,
                                    NSDate(timeIntervalSinceReferenceDate: 3), NSSet(array: [NSString(string: "e")])])
        let data = try NSKeyedArchiver.archivedData(withRootObject: array, requiringSecureCoding: false)
        let value = try KeyedUnarchiver().decode(FoundationValue.self, from: data)
        #expect(value == .array([.null, .integer(7), .string("s"), .dictionary([.string("n"): .real(1.5)]),
                                 .date(Date(timeIntervalSinceReferenceDate: 3)), .set([.string("e")])]))
    }

    /// Every corpus archive made only of Foundation value classes decodes to what plistlib's view of the same
    /// file resolves to (an independent walk of `$objects` in the test); the others are rejected cleanly.
    @Test(.requiresCorpus, .requiresPlistlib) func corpusFoundationArchivesMatchPlistlib() throws {
        var matched = 0, rejected = 0, valueTypes = 0
        for file in Corpus.files() {
            guard let data = try? Corpus.data(file), let tree = try? PropertyListValue(propertyListData: data),
                  tree.dictionaryValue?["$archiver"] != nil, tree.dictionaryValue?["$objects"] != nil,
                  let topKey = tree.dictionaryValue?["$top"]?.dictionaryValue?.keys.first else { continue }
            let ours: FoundationValue
            do {
                ours = try KeyedUnarchiver().decode(FoundationValue.self, forKey: topKey, from: tree)
            } catch is KeyedArchiveError {
                rejected += 1
                continue
            }
            guard case .value(let oracle) = try PlistlibOracle.read(bytes: data),
                  case .dictionary(let root) = oracle,
                  case .array(let objects)? = root.first(where: { $0.0 == "$objects" })?.1,
                  case .dictionary(let top)? = root.first(where: { $0.0 == "$top" })?.1,
                  let ref = top.first(where: { $0.0 == topKey })?.1 else {
                Issue.record("\(file): plistlib cannot read what we decoded")
                continue
            }
            let theirs = OracleResolver(objects: objects).resolve(ref, depth: 0)
            // The resolver knows the plain classes only; archives holding catalogued value types (NSIndexSet,
            // NSAttributedString, ...) are checked against these fixtures by each value type's own tests.
            if theirs == nil && Self.holdsCataloguedValue(ours) {
                valueTypes += 1
                continue
            }
            #expect(theirs == ours, "\(file)")
            matched += 1
        }
        print("corpus: \(matched) Foundation-only archives matched plistlib, \(valueTypes) hold value types, "
              + "\(rejected) rejected (other classes or faults)")
        #expect(matched > 0)
        #expect(valueTypes > 0)
    }

    /// Whether `value` is, or holds, a catalogued value type's case.
    static func holdsCataloguedValue(_ value: FoundationValue) -> Bool {
        if value.cataloguedValue != nil { return true }
        switch value {
        case .array(let items), .orderedSet(let items), .set(let items): return items.contains(where: holdsCataloguedValue)
        case .dictionary(let d): return d.contains { holdsCataloguedValue($0.key) || holdsCataloguedValue($0.value) }
        default: return false
        }
    }
}

/// Resolves plistlib's raw view of a keyed archive into a FoundationValue, independently of the unarchiver.
private struct OracleResolver {
    typealias V = PlistlibOracle.OracleValue
    let objects: [V]

    func field(_ pairs: [(String, V)], _ key: String) -> V? { pairs.first(where: { $0.0 == key })?.1 }

    func deref(_ v: V) -> V? {
        if case .uid(let n) = v { return n < UInt64(objects.count) ? objects[Int(n)] : nil }
        // plistlib leaves XML's {"CF$UID": n} as a dictionary.
        if case .dictionary(let pairs) = v, pairs.count == 1, pairs[0].0 == "CF$UID", case .integer(let digits) = pairs[0].1,
           let n = Int(digits) {
            return n >= 0 && n < objects.count ? objects[n] : nil
        }
        return v
    }

    func className(_ pairs: [(String, V)]) -> String? {
        guard let cls = field(pairs, "$class").flatMap(deref), case .dictionary(let c) = cls,
              case .string(let name)? = field(c, "$classname") else { return nil }
        return name
    }

    func list(_ pairs: [(String, V)], _ key: String, depth: Int) -> [FoundationValue]? {
        if let v = field(pairs, key) {
            guard case .array(let refs) = v else { return nil }
            var out: [FoundationValue] = []
            for r in refs { guard let e = resolve(r, depth: depth + 1) else { return nil }; out.append(e) }
            return out
        }
        var out: [FoundationValue] = []
        while let r = field(pairs, "NS.object.\(out.count)") {
            guard let e = resolve(r, depth: depth + 1) else { return nil }
            out.append(e)
        }
        return out
    }

    func resolve(_ ref: V, depth: Int) -> FoundationValue? {
        guard depth < 200, let v = deref(ref) else { return nil }
        switch v {
        case .string(let s): return .string(s)
        case .integer(let digits):
            if let i = Int64(digits) { return .integer(PropertyListInteger(i)) }
            return UInt64(digits).map { .integer(PropertyListInteger($0)) }
        case .real(let bits): return .real(Double(bitPattern: bits))
        case .bool(let b): return .bool(b)
        case .data(let d): return .data(d)
        case .date(let micros): return .date(Date(timeIntervalSinceReferenceDate: Double(micros) / 1e6))
        case .dictionary(let pairs):
            switch className(pairs) {
            case "NSNull": return .null
            case "NSString", "NSMutableString": return field(pairs, "NS.string").flatMap { resolve($0, depth: depth + 1) }
            case "NSData", "NSMutableData": return field(pairs, "NS.data").flatMap { resolve($0, depth: depth + 1) }
            case "NSDate":
                guard let t = field(pairs, "NS.time").flatMap(deref) else { return nil }
                if case .real(let bits) = t { return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: bits))) }
                if case .integer(let d) = t, let i = Double(d) { return .date(Date(timeIntervalSinceReferenceDate: i)) }
                return nil
            case "NSUUID":
                guard case .data(let b)? = field(pairs, "NS.uuidbytes").flatMap(deref), b.count == 16 else { return nil }
                let u = [UInt8](b)
                return .uuid(UUID(uuid: (u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15])))
            case "NSURL":
                guard case .string(let relative)? = field(pairs, "NS.relative").flatMap(deref) else { return nil }
                var base: URL?
                if let b = field(pairs, "NS.base"), b != .uid(0), case .dictionary(let baseObject)? = deref(b),
                   className(baseObject) == "NSURL" {
                    guard case .url(let u)? = resolve(b, depth: depth + 1) else { return nil }
                    base = u
                }
                return URL(string: relative, relativeTo: base).map { .url($0) }
            case "NSArray", "NSMutableArray": return list(pairs, "NS.objects", depth: depth).map { .array($0) }
            case "NSOrderedSet", "NSMutableOrderedSet": return list(pairs, "NS.objects", depth: depth).map { .orderedSet($0) }
            case "NSSet", "NSMutableSet": return list(pairs, "NS.objects", depth: depth).map { .set($0) }
            case "NSDictionary", "NSMutableDictionary":
                guard let keys = list(pairs, "NS.keys", depth: depth), let values = list(pairs, "NS.objects", depth: depth),
                      keys.count == values.count else { return nil }
                var d: [FoundationValue: FoundationValue] = [:]
                for (k, v) in zip(keys, values) { d[k] = v }
                return .dictionary(d)
            default: return nil
            }
        default: return nil
        }
    }
}
