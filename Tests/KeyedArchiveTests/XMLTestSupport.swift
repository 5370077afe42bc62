import Foundation
import Testing
@testable import KeyedArchive

// Minimal helpers for the XML suites. Shared Corpus/PlistlibOracle helpers are being written on the
// `engine` branch; these stay private to the XML tests until that lands, then should be replaced.

enum XMLTestSupport {
    /// The package root (the folder holding Package.swift), from this file's path.
    static func packageRoot(_ file: String = #filePath) -> URL {
        URL(fileURLWithPath: file).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    /// `<root>/../shared/corpus`, or `nil` (after printing a notice) when absent.
    static func corpusDirectory() -> URL? {
        let url = packageRoot().deletingLastPathComponent().appendingPathComponent("shared/corpus")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            print("skipping: ../shared/corpus not found")
            return nil
        }
        return url
    }

    /// Every corpus file whose bytes look like an XML property list, as (path relative to the corpus, bytes).
    static func corpusXMLFiles() -> [(name: String, data: Data)]? {
        guard let corpus = corpusDirectory() else { return nil }
        guard let enumerator = FileManager.default.enumerator(at: corpus, includingPropertiesForKeys: nil) else {
            return []
        }
        var files: [(String, Data)] = []
        for case let url as URL in enumerator {
            guard let data = try? Data(contentsOf: url), !data.isEmpty,
                  PropertyListValue.detectFormat(of: data) == .xml,
                  String(decoding: data.prefix(2048), as: UTF8.self).contains("<plist")
            else { continue }
            let name = String(url.path.dropFirst(corpus.path.count + 1))
            files.append((name, data))
        }
        return files.sorted { $0.0 < $1.0 }
    }

    /// The path of `python3`, or `nil` (after printing a notice) when absent.
    static func python3() -> String? {
        for candidate in ["/usr/bin/python3", "/usr/local/bin/python3", "/opt/homebrew/bin/python3"]
        where FileManager.default.isExecutableFile(atPath: candidate) {
            return candidate
        }
        print("skipping: python3 not found")
        return nil
    }

    /// Runs python3 with `script`, feeding `input` on stdin; returns stdout, or throws with stderr.
    static func runPython(_ python: String, _ script: String, input: Data) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", script]
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        let writer = Thread {
            stdin.fileHandleForWriting.write(input)
            try? stdin.fileHandleForWriting.close()
        }
        writer.start()
        let out = stdout.fileHandleForReading.readDataToEndOfFile()
        let err = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            struct PythonFailed: Error, CustomStringConvertible { var description: String }
            throw PythonFailed(description: String(decoding: err, as: UTF8.self))
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Reads every plist on stdin (a 4-byte big-endian length before each) with plistlib and prints one
    /// canonical line per plist (see ``canonical(_:)``), or `ERROR <message>`.
    static let plistlibCanonicalScript = #"""
import sys, plistlib, struct, datetime
def canon(v):
    if isinstance(v, bool): return "b:" + ("1" if v else "0")
    if isinstance(v, int): return "i:" + str(v)
    if isinstance(v, float): return "r:" + struct.pack(">d", v).hex()
    if isinstance(v, str): return "s:" + v.encode("utf-8", "surrogatepass").hex()
    if isinstance(v, bytes): return "x:" + v.hex()
    if isinstance(v, datetime.datetime):
        d = v - datetime.datetime(2001, 1, 1)
        return "d:" + str(d.days * 86400 + d.seconds)
    if isinstance(v, list): return "[" + ",".join(canon(e) for e in v) + "]"
    if isinstance(v, dict): return "{" + ",".join(canon(k) + "=" + canon(v[k]) for k in sorted(v, key=lambda k: k.encode("utf-8", "surrogatepass"))) + "}"
    if isinstance(v, plistlib.UID): return "u:" + str(v.data)
    raise TypeError(type(v))
data = sys.stdin.buffer.read()
i = 0
while i < len(data):
    n = struct.unpack(">I", data[i:i+4])[0]; i += 4
    chunk = data[i:i+n]; i += n
    try:
        print(canon(plistlib.loads(chunk)))
    except Exception as e:
        print("ERROR " + type(e).__name__ + ": " + str(e).replace("\n", " "))
"""#

    /// Runs plistlib over each document; one canonical line (or `ERROR ...`) per document.
    static func plistlibCanonical(_ python: String, _ documents: [Data]) throws -> [String] {
        var input = Data()
        for d in documents {
            var n = UInt32(d.count).bigEndian
            withUnsafeBytes(of: &n) { input.append(contentsOf: $0) }
            input.append(d)
        }
        let out = try runPython(python, plistlibCanonicalScript, input: input)
        return out.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
    }

    /// The canonical form of `value` as the plistlib script prints it: dictionary keys sorted by UTF-8 bytes,
    /// UIDs as `{CF$UID: n}` dictionaries (plistlib's XML reader keeps them as dictionaries), 4-byte reals
    /// widened, dates in whole seconds since 2001.
    static func canonical(_ value: PropertyListValue) -> String {
        func hex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
            bytes.map { String($0, radix: 16).count == 1 ? "0" + String($0, radix: 16) : String($0, radix: 16) }
                .joined()
        }
        switch value {
        case .bool(let b): return "b:" + (b ? "1" : "0")
        case .integer(let n): return "i:" + n.description
        case .real(let d): return "r:" + hex(withUnsafeBytes(of: d.bitPattern.bigEndian) { Array($0) })
        case .float(let f): return canonical(.real(Double(f)))
        case .string(let s): return "s:" + hex(s.utf8)
        case .data(let d): return "x:" + hex(d)
        case .date(let d): return "d:" + String(Int64(d.timeIntervalSinceReferenceDate.rounded(.down)))
        case .array(let a), .set(let a): return "[" + a.map(canonical).joined(separator: ",") + "]"
        case .dictionary(let d):
            let sorted = zip(d.keys, d.values).sorted { Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }
            return "{" + sorted.map { canonical(.string($0.0)) + "=" + canonical($0.1) }.joined(separator: ",") + "}"
        case .uid(let u): return canonical(.dictionary(["CF$UID": .integer(PropertyListInteger(u.value))]))
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

    /// A Foundation property list (`Any`) as a ``PropertyListValue``, UIDs excepted.
    static func fromFoundation(_ any: Any) -> PropertyListValue? {
        if type(of: any) == Bool.self, let b = any as? Bool { return .bool(b) }
        switch any {
        case let s as String: return .string(s)
        case let d as Data: return .data(d)
        case let d as Date: return .date(d)
        case let a as [Any]:
            var out: [PropertyListValue] = []
            for e in a {
                guard let v = fromFoundation(e) else { return nil }
                out.append(v)
            }
            return .array(out)
        case let d as [String: Any]:
            var out = PropertyListDictionary()
            for key in d.keys.sorted() {
                guard let e = d[key], let v = fromFoundation(e) else { return nil }
                out[key] = v
            }
            return .dictionary(out)
        case let n as NSNumber:
            let type = String(cString: n.objCType)
            if type == "c" || type == "B" { return .bool(n.boolValue) }
            if type == "d" || type == "f" { return .real(n.doubleValue) }
            if type == "Q" || type == "L" || type == "I" || type == "S" || type == "C" {
                return .integer(PropertyListInteger(n.uint64Value))
            }
            return .integer(PropertyListInteger(n.int64Value))
        default: return nil
        }
    }

    /// A deterministic generator (SplitMix64) for reproducible random values.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
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
    static func randomValue(_ g: inout SeededGenerator, depth: Int, _ o: RandomValueOptions) -> PropertyListValue {
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
        case 7: return o.uids ? .uid(UID(UInt64.random(in: 0...UInt64.max, using: &g))) : .bool(true)
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

    static func randomString(_ g: inout SeededGenerator, _ o: RandomValueOptions) -> String {
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
