import Foundation
@testable import KeyedArchive

/// Python's `plistlib` as a test oracle: an independent reader (and writer) of binary and XML property lists.
///
/// The oracle runs `python3` (through `Process`) with a small embedded script that prints, for each file,
/// one line of *typed* JSON that loses nothing: integers as decimal strings, reals as the hex bit pattern
/// of the double, dates as microseconds since 2001-01-01 (plistlib's `datetime` precision), data as base64,
/// UIDs as `{"uid": "n"}`, dictionaries as ordered key/value pairs. ``OracleValue`` is that tree in Swift;
/// ``differences(_:_:)`` compares it with a ``PropertyListValue`` and lists what differs.
///
/// A test that needs Python carries the trait `.enabled(if: PlistlibOracle.isAvailable, ...)`, so that a run
/// without python3 reports it as skipped, never as passed:
///
/// ```swift
/// @Test(.enabled(if: PlistlibOracle.isAvailable, "needs python3 with plistlib"))
/// func agreesWithPlistlib() throws {
///     let results = try PlistlibOracle.read(files: [url1, url2])   // one python3 run for many files
///     if case .value(let expected) = results[0] {
///         #expect(PlistlibOracle.differences(ours, expected).isEmpty)
///     }
///     let fromBytes = try PlistlibOracle.read(bytes: ourData)
///     let binary = try PlistlibOracle.rewrite(bytes: ourData, as: .binary)   // plistlib.dumps(loads(...))
/// }
/// ```
enum PlistlibOracle {
    /// What plistlib made of one input.
    enum Result: Equatable, CustomStringConvertible {
        /// plistlib read it; the root value.
        case value(OracleValue)
        /// plistlib raised; the exception, such as `InvalidFileException: Invalid file`.
        /// A self-containing container is reported as `cycle` (plistlib itself builds a recursive list),
        /// a dictionary with a non-string key as `non-string key: bytes` (plistlib accepts those).
        case rejected(String)

        var description: String {
            switch self {
            case .value(let v): return "value(\(v))"
            case .rejected(let why): return "rejected(\(why))"
            }
        }

        /// The value, or `nil` when plistlib rejected the input.
        var value: OracleValue? {
            if case .value(let v) = self { return v }
            return nil
        }
    }

    /// A property-list value as plistlib sees it.
    indirect enum OracleValue: Equatable, CustomStringConvertible {
        case string(String)
        /// Any size: the decimal digits, with `-` when negative.
        case integer(String)
        /// The IEEE-754 double bit pattern (plistlib reads 4-byte reals as doubles too).
        case real(UInt64)
        case bool(Bool)
        /// Microseconds since 2001-01-01 00:00:00 UTC.
        case date(Int64)
        case data(Data)
        case uid(UInt64)
        /// plistlib's `None` (binary marker 0x00).
        case null
        case array([OracleValue])
        /// Ordered key/value pairs, as stored.
        case dictionary([(String, OracleValue)])

        static func == (lhs: OracleValue, rhs: OracleValue) -> Bool {
            switch (lhs, rhs) {
            case (.string(let a), .string(let b)): return a.unicodeScalars.elementsEqual(b.unicodeScalars)
            case (.integer(let a), .integer(let b)): return a == b
            case (.real(let a), .real(let b)): return a == b
            case (.bool(let a), .bool(let b)): return a == b
            case (.date(let a), .date(let b)): return a == b
            case (.data(let a), .data(let b)): return a == b
            case (.uid(let a), .uid(let b)): return a == b
            case (.null, .null): return true
            case (.array(let a), .array(let b)): return a == b
            case (.dictionary(let a), .dictionary(let b)):
                return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
            default: return false
            }
        }

        var description: String {
            switch self {
            case .string(let s): return String(reflecting: s)
            case .integer(let i): return i
            case .real(let bits): return "\(Double(bitPattern: bits))"
            case .bool(let b): return "\(b)"
            case .date(let us): return "date(\(us) µs)"
            case .data(let d): return "data(\(d.count) bytes)"
            case .uid(let u): return "UID(\(u))"
            case .null: return "null"
            case .array(let a): return "[" + a.map(\.description).joined(separator: ", ") + "]"
            case .dictionary(let d): return "{" + d.map { "\(String(reflecting: $0.0)): \($0.1)" }.joined(separator: ", ") + "}"
            }
        }
    }

    /// An oracle failure (python3 could not run or printed something unexpected).
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Whether `python3` with `plistlib` can be run (checked once).
    static let isPresent: Bool = {
        guard let (status, out, _) = try? run(["-c", "import plistlib; print('ok')"]) else { return false }
        return status == 0 && String(decoding: out, as: UTF8.self).hasPrefix("ok")
    }()

    /// Whether python3 with plistlib runs, for `.enabled(if: PlistlibOracle.isAvailable, "needs python3")`.
    static var isAvailable: Bool { isPresent }

    /// plistlib's reading of each file, in order, from one python3 run.
    static func read(files: [URL]) throws -> [Result] {
        if files.isEmpty { return [] }
        let (status, out, err) = try run(["-c", script, "read"] + files.map(\.path))
        guard status == 0 else {
            throw Failure(description: "python3 exited \(status): \(String(decoding: err, as: UTF8.self))")
        }
        let lines = out.split(separator: UInt8(ascii: "\n"))
        guard lines.count == files.count else {
            throw Failure(description: "python3 printed \(lines.count) lines for \(files.count) files")
        }
        return try lines.map { try parseResult(Data($0)) }
    }

    /// plistlib's reading of one file.
    static func read(file: URL) throws -> Result {
        try read(files: [file])[0]
    }

    /// plistlib's reading of `bytes` (binary or XML).
    static func read(bytes: Data) throws -> Result {
        try withTemporaryFile(bytes, name: "oracle.plist") { try read(file: $0) }
    }

    /// plistlib's own encoding of what it read from `bytes`: `plistlib.dumps(plistlib.loads(bytes), fmt=...)`.
    ///
    /// Useful to check that our reader accepts another writer's output.
    static func rewrite(bytes: Data, as format: PropertyListFormat) throws -> Data {
        try withTemporaryFile(bytes, name: "oracle.plist") { url in
            let (status, out, err) = try run(["-c", script, format == .binary ? "rewrite-binary" : "rewrite-xml", url.path])
            guard status == 0 else {
                throw Failure(description: "python3 exited \(status): \(String(decoding: err, as: UTF8.self))")
            }
            return out
        }
    }

    /// Differences between our value and plistlib's, one readable line each (`$objects[3].NS.keys: ...`).
    /// Empty when they agree.
    ///
    /// Rules: dictionaries must have the same keys in the same order; `.float` compares as the `Double` it
    /// widens to; dates may differ by 1 µs (plistlib rounds to microseconds); `.set` compares as an array
    /// (plistlib has no sets); strings compare by Unicode scalars.
    static func differences(_ ours: PropertyListValue, _ theirs: OracleValue, path: String = "") -> [String] {
        let here = path.isEmpty ? "root" : path
        func mismatch() -> [String] { ["\(here): ours \(describe(ours)), plistlib \(theirs)"] }
        switch (ours, theirs) {
        case (.string(let a), .string(let b)):
            return a.unicodeScalars.elementsEqual(b.unicodeScalars) ? [] : mismatch()
        case (.integer(let a), .integer(let b)):
            return a.description == b ? [] : mismatch()
        case (.real(let a), .real(let b)):
            return a.bitPattern == b ? [] : mismatch()
        case (.float(let a), .real(let b)):
            return Double(a).bitPattern == b ? [] : mismatch()
        case (.bool(let a), .bool(let b)):
            return a == b ? [] : mismatch()
        case (.date(let a), .date(let b)):
            let seconds = a.timeIntervalSinceReferenceDate
            guard seconds.isFinite, abs(seconds) < 9e12 else { return mismatch() }
            let micro = (seconds * 1_000_000).rounded()
            return abs(micro - Double(b)) <= 1 ? [] : mismatch()
        case (.data(let a), .data(let b)):
            return a == b ? [] : mismatch()
        case (.uid(let a), .uid(let b)):
            return a.value == b ? [] : mismatch()
        case (.array(let a), .array(let b)), (.set(let a), .array(let b)):
            guard a.count == b.count else {
                return ["\(here): ours has \(a.count) elements, plistlib \(b.count)"]
            }
            return zip(a, b).enumerated().flatMap { i, pair in
                differences(pair.0, pair.1, path: path + "[\(i)]")
            }
        case (.dictionary(let a), .dictionary(let b)):
            let theirKeys = b.map(\.0)
            guard a.keys.count == theirKeys.count,
                  zip(a.keys, theirKeys).allSatisfy({ $0.unicodeScalars.elementsEqual($1.unicodeScalars) })
            else {
                return ["\(here): ours has keys \(a.keys), plistlib \(theirKeys)"]
            }
            return zip(a.values, b).flatMap { value, pair in
                differences(value, pair.1, path: path.isEmpty ? pair.0 : path + "." + pair.0)
            }
        default:
            return mismatch()
        }
    }

    private static func describe(_ v: PropertyListValue) -> String {
        switch v {
        case .string(let s): return String(reflecting: s)
        case .integer(let i): return i.description
        case .real(let d): return "\(d)"
        case .float(let f): return "\(f) (float)"
        case .bool(let b): return "\(b)"
        case .date(let d): return "date(\(d.timeIntervalSinceReferenceDate) s)"
        case .data(let d): return "data(\(d.count) bytes)"
        case .uid(let u): return u.description
        case .array(let a): return "array(\(a.count))"
        case .set(let a): return "set(\(a.count))"
        case .dictionary(let d): return "dictionary(\(d.count))"
        }
    }

    // MARK: - Plumbing

    /// Runs python3 with `arguments`; returns the exit status, stdout and stderr.
    private static func run(_ arguments: [String]) throws -> (Int32, Data, Data) {
        let output = try OracleProcess.run(URL(fileURLWithPath: "/usr/bin/env"), ["python3"] + arguments)
        return (output.status, output.stdout, output.stderr)
    }

    private static func parseResult(_ line: Data) throws -> Result {
        let json = try JSONSerialization.jsonObject(with: line, options: [.fragmentsAllowed])
        guard let object = json as? [String: Any] else { throw Failure(description: "oracle line is not an object") }
        if let why = object["error"] as? String { return .rejected(why) }
        guard let root = object["value"] else { throw Failure(description: "oracle line has no value") }
        return .value(try parseValue(root))
    }

    private static func parseValue(_ json: Any) throws -> OracleValue {
        guard let object = json as? [String: Any], let (tag, payload) = object.first, object.count == 1 else {
            throw Failure(description: "oracle value is not a one-key object: \(json)")
        }
        func bad() -> Failure { Failure(description: "oracle \(tag) payload is malformed: \(payload)") }
        switch tag {
        case "string":
            guard let s = payload as? String else { throw bad() }
            return .string(s)
        case "int":
            guard let s = payload as? String else { throw bad() }
            return .integer(s)
        case "real":
            guard let s = payload as? String, let bits = UInt64(s, radix: 16) else { throw bad() }
            return .real(bits)
        case "bool":
            guard let b = payload as? Bool else { throw bad() }
            return .bool(b)
        case "date":
            guard let s = payload as? String, let us = Int64(s) else { throw bad() }
            return .date(us)
        case "data":
            guard let s = payload as? String, let d = Data(base64Encoded: s) else { throw bad() }
            return .data(d)
        case "uid":
            guard let s = payload as? String, let u = UInt64(s) else { throw bad() }
            return .uid(u)
        case "null":
            return .null
        case "array":
            guard let a = payload as? [Any] else { throw bad() }
            return .array(try a.map(parseValue))
        case "dict":
            guard let pairs = payload as? [[Any]] else { throw bad() }
            return .dictionary(try pairs.map { pair in
                guard pair.count == 2, let k = pair[0] as? String else { throw bad() }
                return (k, try parseValue(pair[1]))
            })
        default:
            throw Failure(description: "oracle tag \(tag) is unknown")
        }
    }

    /// The Python side. `read FILE...` prints one JSON line per file; `rewrite-binary|rewrite-xml FILE`
    /// prints plistlib's own encoding of the file's value.
    static let script = #"""
import base64, datetime, json, plistlib, struct, sys

EPOCH = datetime.datetime(2001, 1, 1)

class Cycle(Exception):
    pass

class KeyType(Exception):
    pass

def typed(v, path):
    if isinstance(v, (list, dict)):
        if id(v) in path:
            raise Cycle()
        path = path | {id(v)}
    if v is None:
        return {"null": True}
    if isinstance(v, bool):
        return {"bool": v}
    if isinstance(v, plistlib.UID):
        return {"uid": str(v.data)}
    if isinstance(v, int):
        return {"int": str(v)}
    if isinstance(v, float):
        return {"real": "%016x" % struct.unpack(">Q", struct.pack(">d", v))[0]}
    if isinstance(v, str):
        return {"string": v}
    if isinstance(v, (bytes, bytearray)):
        return {"data": base64.b64encode(bytes(v)).decode("ascii")}
    if isinstance(v, datetime.datetime):
        if v.tzinfo is not None:
            v = v.astimezone(datetime.timezone.utc).replace(tzinfo=None)
        delta = v - EPOCH
        return {"date": str((delta.days * 86400 + delta.seconds) * 1000000 + delta.microseconds)}
    if isinstance(v, list):
        return {"array": [typed(x, path) for x in v]}
    if isinstance(v, dict):
        for k in v:
            if not isinstance(k, str):
                raise KeyType(type(k).__name__)
        return {"dict": [[k, typed(x, path)] for k, x in v.items()]}
    raise TypeError("unexpected %r" % type(v))

def read_one(name):
    try:
        with open(name, "rb") as f:
            value = plistlib.load(f)
    except Exception as e:
        cause = e.__cause__ or e.__context__
        why = "%s: %s" % (type(e).__name__, e)
        if cause is not None:
            why += " <- %s: %s" % (type(cause).__name__, cause)
        return {"error": why}
    try:
        return {"value": typed(value, frozenset())}
    except Cycle:
        return {"error": "cycle"}
    except KeyType as e:
        return {"error": "non-string key: %s" % e}
    except RecursionError:
        return {"error": "too deep"}

sys.setrecursionlimit(10000)
mode = sys.argv[1]
if mode == "read":
    for name in sys.argv[2:]:
        sys.stdout.write(json.dumps(read_one(name), ensure_ascii=True) + "\n")
else:
    with open(sys.argv[2], "rb") as f:
        value = plistlib.load(f)
    fmt = plistlib.FMT_BINARY if mode == "rewrite-binary" else plistlib.FMT_XML
    sys.stdout.buffer.write(plistlib.dumps(value, fmt=fmt, sort_keys=False))
"""#
}
