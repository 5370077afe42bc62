import Foundation
@testable import KeyedArchive

/// GNUstep's Objective-C Foundation as an interop oracle: an independent NSKeyedArchiver/NSKeyedUnarchiver.
///
/// The oracle is the small program in `Tests/GNUstepOracle/oracle.m`, built (once per test process, and
/// cached under `.build/gnustep-oracle/`) by `Scripts/gnustep-oracle.sh`. Its main modes:
///
/// - ``decode(_:)``: GNUstep unarchives our bytes and prints a canonical description of the root
///   (the format is documented at the top of oracle.m; ``Description`` builds the same text in Swift);
/// - ``encode(_:format:)``: GNUstep archives one of its named sample values and returns the bytes.
///
/// A second program, `Tests/GNUstepOracle/gui-oracle.m` (``Program/gui``, built by `gnustep-oracle.sh gui`
/// and linked with gnustep-gui), does the same for AppKit's NSColor; its tests gate on ``isGUIAvailable``.
///
/// Tests gate on ``isAvailable`` with a condition trait, so a machine without GNUstep reports them as
/// skipped (CI installs GNUstep and fails on any skip):
///
/// ```swift
/// @Suite(.enabled(if: GNUstepOracle.isAvailable, "GNUstep (gobjc, libgnustep-base-dev) not installed"))
/// struct GNUstepInteropTests { ... }
/// ```
enum GNUstepOracle {
    /// What one oracle run printed.
    struct Run {
        /// The exit status (or the signal number, when ``crashed``).
        var status: Int32
        /// Whether the process died from a signal (GNUstep segfaults on some inputs).
        var crashed: Bool
        var stdout: String
        var stderr: String

        /// stdout without its final newline: the canonical description in `decode` mode.
        var line: String { stdout.hasSuffix("\n") ? String(stdout.dropLast()) : stdout }
    }

    /// An oracle failure: the program could not be built or run, or GNUstep rejected the input.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Which oracle program: the Foundation one (`oracle.m`) or the AppKit one (`gui-oracle.m`, NSColor,
    /// which needs gnustep-gui).
    enum Program: Sendable {
        case base, gui
    }

    /// The built oracle binary, or why there is none, and whether GNUstep is installed at all
    /// (computed once per process).
    static let build = buildProgram(.base)

    /// The same for the AppKit oracle (`Scripts/gnustep-oracle.sh gui`).
    static let guiBuild = buildProgram(.gui)

    private static func buildProgram(_ program: Program) -> (binary: Result<URL, Failure>, installed: Bool) {
        let script = Corpus.packageRoot.appendingPathComponent("Scripts/gnustep-oracle.sh")
        guard let run = try? execute(URL(fileURLWithPath: "/bin/bash"), [script.path] + (program == .gui ? ["gui"] : [])) else {
            return (.failure(Failure(description: "cannot run \(script.path)")), false)
        }
        let path = run.line.trimmingCharacters(in: .whitespacesAndNewlines)
        guard run.status == 0, !run.crashed, !path.isEmpty else {
            // Status 3: GNUstep is not installed. Anything else is a build failure, which tests must report.
            return (.failure(Failure(description: "gnustep-oracle.sh failed (\(run.status)): \(run.stderr)")),
                    run.crashed || run.status != 3)
        }
        return (.success(URL(fileURLWithPath: path)), true)
    }

    /// Whether GNUstep is installed: the condition for the interop tests. When it is installed but the
    /// oracle does not build, this is still `true`, so that the tests fail with the build error
    /// instead of being skipped.
    static var isAvailable: Bool { build.installed }

    /// Whether gnustep-gui is installed too: the condition for the NSColor tests (same rules as ``isAvailable``).
    static var isGUIAvailable: Bool { guiBuild.installed }

    /// Runs the oracle `program` with `arguments`.
    static func run(_ arguments: [String], program: Program = .base) throws -> Run {
        try execute((program == .gui ? guiBuild : build).binary.get(), arguments)
    }

    /// GNUstep's canonical description of the root object of `archive`.
    ///
    /// - Throws: ``Failure`` naming GNUstep's exception (or the signal) when it cannot unarchive the bytes.
    static func decode(_ archive: Data, program: Program = .base) throws -> String {
        try read(archive, mode: "decode", program: program).line
    }

    /// What GNUstep reads from the `$top` of a system-fields archive with its typed calls (oracle.m's
    /// `decode-top` mode): `isZoneWide` and `wasCached` with `decodeBoolForKey:`, `changeTag` with
    /// `decodeInt64ForKey:`, `version` with `decodeIntForKey:`, `ratio` with `decodeDoubleForKey:`, `etag` with
    /// `decodeBytesForKey:returnedLength:` (hex), and `RecordName`, `ModificationDate` and `ZoneID` with
    /// `decodeObjectForKey:` (canonical descriptions), one `key=value` line each, in that order.
    ///
    /// - Throws: ``Failure`` naming GNUstep's exception (a typed call on a value it cannot read raises).
    static func decodeSystemFields(_ archive: Data) throws -> [String] {
        try read(archive, mode: "decode-top", program: .base).stdout.split(separator: "\n").map(String.init)
    }

    /// Runs the oracle's reading `mode` on `archive`; fails unless it exits 0.
    private static func read(_ archive: Data, mode: String, program: Program) throws -> Run {
        let run = try withTemporaryFile(archive, name: "oracle.archive") { try self.run([mode, $0.path], program: program) }
        guard run.status == 0, !run.crashed else {
            throw Failure(description: "GNUstep could not unarchive (\(run.crashed ? "signal" : "status") \(run.status)): "
                + run.stderr.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return run
    }

    /// GNUstep's archive of its sample value `name` (binary, or XML when `format` is `.xml`).
    ///
    /// - Throws: ``Failure`` when GNUstep does not know the name or fails (or crashes) while archiving it.
    static func encode(_ name: String, format: PropertyListFormat = .binary, program: Program = .base) throws -> Data {
        try written(name, program: program) { ["encode", name, $0] + (format == .xml ? ["xml"] : []) }
    }

    /// GNUstep's archive of a record's system fields written straight into the archiver (oracle.m's
    /// `encode-top` mode): `isZoneWide` true, `wasCached` false, `changeTag` 1234567890123, `version` -7,
    /// `ratio` 0.25 and `etag` (bytes 00 01 fe) inline in `$top`; `RecordName` "record-1",
    /// `ModificationDate` (123456.75 s after 2001) and `ZoneID` (a KATestModel "zone") as UIDs.
    static func encodeSystemFields() throws -> Data {
        try written("system fields", program: .base) { ["encode-top", $0] }
    }

    /// Runs the oracle with the arguments `arguments(path)` and returns the file it wrote at `path`, in a temporary
    /// directory of its own (removed afterwards, with whatever else the oracle left there).
    private static func written(_ what: String, program: Program, _ arguments: (String) -> [String]) throws -> Data {
        try withTemporaryDirectory("gnustep-oracle") { directory in
            let url = directory.appendingPathComponent("oracle.archive")
            let run = try self.run(arguments(url.path), program: program)
            guard run.status == 0, !run.crashed else {
                throw Failure(description: "GNUstep could not archive \(what) (\(run.crashed ? "signal" : "status") \(run.status)): "
                    + run.stderr.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            return try Data(contentsOf: url)
        }
    }

    // MARK: - Plumbing

    /// Runs `executable` with `arguments`; collects stdout and stderr.
    private static func execute(_ executable: URL, _ arguments: [String]) throws -> Run {
        let output = try OracleProcess.run(executable, arguments)
        return Run(status: output.status, crashed: output.crashed,
                   stdout: String(decoding: output.stdout, as: UTF8.self), stderr: String(decoding: output.stderr, as: UTF8.self))
    }
}

extension GNUstepOracle {
    /// Builds the oracle's canonical descriptions in Swift (the format is documented in oracle.m), so a test
    /// states what GNUstep must print: `Description.number("i", 42)` is `{"NSNumber":{"type":"i","value":42}}`.
    enum Description {
        /// A JSON string literal, escaped as oracle.m escapes it (`"`, `\` and control characters only).
        static func quoted(_ s: String) -> String {
            var out = "\""
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
                default: out.unicodeScalars.append(scalar)
                }
            }
            return out + "\""
        }

        /// A real number as C's `%.17g` prints it.
        static func real(_ d: Double) -> String { String(format: "%.17g", d) }

        static func tagged(_ tag: String, _ payload: String) -> String { "{\"\(tag)\":\(payload)}" }

        /// An NSNumber as GNUstep reports it. GNUstep's types for what it reads from a property list (seen by
        /// feeding it every boundary value): `C` for a plist boolean; `i` for an integer strictly between
        /// Int32.min and Int32.max (the limits themselves are `q`); `q` for a wider one, except that its XML
        /// reader makes Int64.max (and anything larger, clamped to Int64.max) a `Q`; `d` for an 8-byte real
        /// and `f` for a 4-byte real.
        static func number(_ type: String, _ value: String) -> String {
            tagged("NSNumber", "{\"type\":\"\(type)\",\"value\":\(value)}")
        }
        static func integer(_ i: Int64, format: PropertyListFormat = .binary) -> String {
            let type = Int64(Int32.min) < i && i < Int64(Int32.max) ? "i" : (format == .xml && i == .max ? "Q" : "q")
            return number(type, "\(i)")
        }
        static func bool(_ b: Bool) -> String { number("C", b ? "1" : "0") }
        static func double(_ d: Double) -> String { number("d", real(d)) }
        static func float(_ f: Float) -> String { number("f", real(Double(f))) }
        static func string(_ s: String) -> String { tagged("NSString", quoted(s)) }
        static func data(_ d: Data) -> String { tagged("NSData", quoted(d.map { String(format: "%02x", $0) }.joined())) }
        static func date(_ d: Date) -> String { tagged("NSDate", real(d.timeIntervalSinceReferenceDate)) }
        static func uuid(_ u: UUID) -> String { tagged("NSUUID", quoted(u.uuidString)) }
        static let null = tagged("NSNull", "null")
        static func url(_ u: URL) -> String {
            tagged("NSURL", "{\"relative\":\(quoted(u.relativeString)),\"base\":\(u.baseURL.map(url) ?? "null"),"
                + "\"absolute\":\(quoted(u.absoluteString))}")
        }
        static func array(_ elements: [String]) -> String { tagged("NSArray", list(elements)) }
        static func orderedSet(_ elements: [String]) -> String { tagged("NSOrderedSet", list(elements)) }
        /// A set: elements sorted bytewise by their description, as oracle.m sorts them.
        static func set(_ elements: [String]) -> String { tagged("NSSet", list(sortedBytewise(elements))) }
        /// A dictionary: `[key,value]` pairs sorted bytewise by the key's description.
        static func dictionary(_ pairs: [(String, String)]) -> String {
            let sorted = pairs.sorted { $0.0.utf8.lexicographicallyPrecedes($1.0.utf8) }
            return tagged("NSDictionary", list(sorted.map { "[\($0.0),\($0.1)]" }))
        }
        static func indexSet(_ ranges: [(Int, Int)]) -> String { tagged("NSIndexSet", list(ranges.map { "[\($0.0),\($0.1)]" })) }
        static func indexPath(_ indexes: [Int]) -> String { tagged("NSIndexPath", list(indexes.map(String.init))) }
        /// An NSMeasurement: its value and its unit's run-time class and symbol, plus `[coefficient,constant]`
        /// for an NSDimension with a linear converter.
        static func measurement(_ value: Double, unitClass: String, symbol: String, converter: (Double, Double)? = nil) -> String {
            let conversion = converter.map { ",\"converter\":[\(real($0.0)),\(real($0.1))]" } ?? ""
            return tagged("NSMeasurement", "{\"value\":\(real(value)),\"unit\":{\"class\":\(quoted(unitClass)),"
                + "\"symbol\":\(quoted(symbol))\(conversion)}}")
        }
        /// An NSColor as gui-oracle.m prints it: the color space name and the components.
        static func color(_ space: String, _ components: [Double]) -> String {
            tagged("NSColor", "{\"space\":\(quoted(space)),\"components\":\(list(components.map(real)))}")
        }
        /// A named (catalog) NSColor as gui-oracle.m prints it.
        static func namedColor(catalog: String, name: String) -> String {
            tagged("NSColor", "{\"space\":\"NSNamedColorSpace\",\"catalog\":\(quoted(catalog)),\"name\":\(quoted(name))}")
        }
        static func countedSet(_ counts: [(String, Int)]) -> String {
            tagged("NSCountedSet", list(sortedBytewise(counts.map { "[\($0.0),\($0.1)]" })))
        }
        static func timeZone(_ name: String) -> String { tagged("NSTimeZone", quoted(name)) }
        static func locale(_ identifier: String) -> String { tagged("NSLocale", quoted(identifier)) }
        static func attributedString(_ string: String, runs: [(Int, Int, String)]) -> String {
            tagged("NSAttributedString", "{\"string\":\(quoted(string)),\"runs\":\(list(runs.map { "[\($0.0),\($0.1),\($0.2)]" }))}")
        }
        /// A `KATestModel` printed for the first time, with its id (1, 2, ... in order of first appearance).
        static func model(id: Int, title: String, count: Int64, ratio: Double, flag: Bool, child: String?, items: String) -> String {
            tagged("KATestModel", "{\"id\":\(id),\"title\":\(string(title)),\"count\":\(count),\"ratio\":\(real(ratio)),"
                + "\"flag\":\(flag),\"child\":\(child ?? "null"),\"items\":\(items)}")
        }
        /// A `KATestModel` already printed: a shared or cyclic reference.
        static func modelReference(_ id: Int) -> String { tagged("KATestModel", "{\"ref\":\(id)}") }

        private static func list(_ elements: [String]) -> String { "[" + elements.joined(separator: ",") + "]" }
        private static func sortedBytewise(_ elements: [String]) -> [String] {
            elements.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        }
    }
}
