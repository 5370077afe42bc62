import Foundation
import Testing
@testable import KeyedArchive

// Helpers for the XML suites, on top of the shared Support/ helpers (Corpus, PlistlibOracle,
// FoundationBridge, SeededGenerator).

enum XMLTestSupport {
    /// Every corpus file whose bytes look like an XML property list, as (path relative to the corpus, bytes).
    /// Empty when the corpus is absent: a test that calls this carries `.requiresCorpus`.
    static func corpusXMLFiles() -> [(name: String, data: Data)] {
        return Corpus.files().compactMap { name in
            guard let data = try? Corpus.data(name), PropertyListValue.detectFormat(of: data) == .xml,
                  String(decoding: data.prefix(2048), as: UTF8.self).contains("<plist")
            else { return nil }
            return (name, data)
        }
    }

    /// What plistlib's XML reader makes of `value`: UIDs are `{CF$UID: n}` dictionaries to it.
    static func asPlistlibSeesXML(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .uid(let u): return .dictionary(["CF$UID": .integer(PropertyListInteger(u.value))])
        case .array(let a): return .array(a.map(asPlistlibSeesXML))
        case .dictionary(let d): return .dictionary(PropertyListDictionary(zip(d.keys, d.values.map(asPlistlibSeesXML))))
        default: return value
        }
    }

    /// plistlib's reading of each document (one python3 run). A test that calls this carries `.requiresPlistlib`.
    static func plistlibRead(_ documents: [Data]) throws -> [PlistlibOracle.Result] {
        try withTemporaryDirectory("xml-plistlib") { dir in
            var urls: [URL] = []
            for (i, d) in documents.enumerated() {
                let url = dir.appendingPathComponent("\(i).plist")
                try d.write(to: url)
                urls.append(url)
            }
            return try PlistlibOracle.read(files: urls)
        }
    }

    /// `value` with what XML cannot keep normalised: 4-byte reals widened, dates cut to whole seconds.
    static func xmlNormalised(_ value: PropertyListValue) -> PropertyListValue {
        switch value {
        case .float(let f): return .real(Double(f))
        case .date(let d): return .date(Date(timeIntervalSinceReferenceDate: d.timeIntervalSinceReferenceDate.rounded(.down)))
        case .array(let a): return .array(a.map(xmlNormalised))
        case .set(let a): return .array(a.map(xmlNormalised))
        case .dictionary(let d): return .dictionary(PropertyListDictionary(zip(d.keys, d.values.map(xmlNormalised))))
        default: return value
        }
    }

    struct RandomValueOptions {
        /// Include UIDs (Foundation returns them as opaque objects, so its comparisons leave them out).
        var uids = true
        /// Include C0 control characters other than tab, line feed and carriage return (XML 1.0 parsers reject them).
        var controlCharacters = true
        /// Dates limited to years 1...9999 (plistlib and Foundation's negative-year handling need this).
        var commonEraDatesOnly = false
        /// Include 4-byte reals.
        var floats = true
    }

    /// A random value without sets, `depth` levels deep at most.
    static func randomValue(_ g: inout KeyedArchiveTests.SeededGenerator, depth: Int, _ o: RandomValueOptions) -> PropertyListValue {
        let kind = Int.random(in: 0..<(depth > 0 ? 12 : 9), using: &g)
        switch kind {
        case 0: return .string(randomString(&g, o))
        case 1:
            switch Int.random(in: 0..<4, using: &g) {
            case 0: return .integer(PropertyListInteger(Int64.random(in: -1000...1000, using: &g)))
            case 1: return .integer(PropertyListInteger(Int64.random(in: .min ... .max, using: &g)))
            case 2: return .integer(PropertyListInteger(UInt64.random(in: .min ... .max, using: &g)))
            default: return .integer([PropertyListInteger(Int64.min), PropertyListInteger(UInt64.max), 0, -1][Int.random(in: 0..<4, using: &g)])
            }
        case 2:
            let specials: [Double] = [.nan, .infinity, -.infinity, 0, -0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 0.1, 1e16]
            if Bool.random(using: &g) { return .real(specials[Int.random(in: 0..<specials.count, using: &g)]) }
            return .real(Double(bitPattern: UInt64.random(in: 0 ... 0x7FEF_FFFF_FFFF_FFFF, using: &g)) * (Bool.random(using: &g) ? 1 : -1))
        case 3:
            if o.floats { return .float(Float(bitPattern: UInt32.random(in: 0 ... 0x7F7F_FFFF, using: &g))) }
            return .real(Double(Int.random(in: -100...100, using: &g)) / 8)
        case 4: return .bool(Bool.random(using: &g))
        case 5:
            let range: ClosedRange<Int64> = o.commonEraDatesOnly ? -63_113_904_000 ... 252_423_993_599 : -1_000_000_000_000_000 ... 1_000_000_000_000_000
            return .date(Date(timeIntervalSinceReferenceDate: Double(Int64.random(in: range, using: &g))))
        case 6: return .data(Data((0..<Int.random(in: 0..<200, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }))
        // UIDs are 32-bit in the format (CoreFoundation, and so our readers, refuse larger ones).
        case 7: return o.uids ? .uid(UID(UInt64(UInt32.random(in: 0...UInt32.max, using: &g)))) : .bool(true)
        case 8: return .string("")
        case 9, 10:
            let n = Int.random(in: 0..<5, using: &g)
            if kind == 9 { return .array((0..<n).map { _ in randomValue(&g, depth: depth - 1, o) }) }
            var d = PropertyListDictionary()
            for _ in 0..<n { d[randomString(&g, o)] = randomValue(&g, depth: depth - 1, o) }
            return .dictionary(d)
        default:
            return .array([randomValue(&g, depth: depth - 1, o)])
        }
    }

    static func randomString(_ g: inout KeyedArchiveTests.SeededGenerator, _ o: RandomValueOptions) -> String {
        let pieces: [String] = ["a", "Z", " ", "&", "<", ">", "\"", "'", "]]>", "\t", "\n", "\r", "é", "日本", "🎉",
                                "CF$UID", "&amp;", "<![CDATA[", "$null", "NS.objects"]
        let controls: [String] = ["\u{0}", "\u{1}", "\u{1F}", "\u{7F}"]
        var s = ""
        for _ in 0..<Int.random(in: 0..<8, using: &g) {
            if o.controlCharacters && Int.random(in: 0..<10, using: &g) == 0 {
                s += controls[Int.random(in: 0..<controls.count, using: &g)]
            } else {
                s += pieces[Int.random(in: 0..<pieces.count, using: &g)]
            }
        }
        return s
    }
}
