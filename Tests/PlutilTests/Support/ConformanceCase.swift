import Foundation
import Testing
import KeyedArchive

/// One `plutil` command line of the conformance table: what ours must do, and how the toolchain's
/// `plutil` compares on the same line.
struct ConformanceCase: Sendable, CustomTestStringConvertible {
    /// What standard output must hold.
    enum Output: Sendable {
        /// Exactly this text.
        case text(String)
        /// A property list (any format) or JSON document equal to this value.
        case value(PropertyListValue)
        /// Text that starts with this.
        case prefix(String)
    }

    /// How the toolchain's `plutil` compares on the same command line.
    enum Toolchain: Sendable {
        /// The same exit status, output bytes, messages and file bytes.
        case identical
        /// The same exit status, and output and files equal as values (key order or spelling of the same
        /// values differs: JSON's unordered keys, XML's sorted keys); a message on standard error from both or neither.
        case sameResult
        /// The same exit status and standard output; the message on standard error is worded differently
        /// (the reason says how).
        case sameStatusAndOutput(String)
        /// The same exit status; the output differs on purpose (the reason says how).
        case sameStatus(String)
        /// A deliberate difference in outcome (status, output or file), checked to still be there.
        case differs(String)
    }

    var arguments: [String]
    var input = Data()
    var status: Int32 = 0
    var stdout: Output = .text("")
    /// The exact standard error; nil: any message (and one there when the status is not 0).
    var stderr: String? = ""
    /// Files after the run, as values.
    var files: [String: PropertyListValue] = [:]
    /// Fixture files that must be byte for byte as they were.
    var unchanged: [String] = []
    /// Files after the run, as text.
    var textFiles: [String: String] = [:]
    var toolchain: Toolchain = .identical
    /// Whether it reads the corpus files of ``PlutilFixtures/corpusFiles``.
    var needsCorpus = false

    var testDescription: String { "plutil " + arguments.joined(separator: " ") }

    /// The value of a property list or JSON document, or nil when it is neither.
    static func semanticValue(_ data: Data) -> AnyHashable? {
        if let value = try? PropertyListValue(propertyListData: data) { return value }
        if let json = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? NSObject {
            return json
        }
        return nil
    }

    /// Checks a run of this package's `plutil` against the expectations.
    func check(_ result: PlutilRunner.Result, in runner: PlutilRunner, fixtures: [String: Data]) {
        #expect(result.status == status, "\(testDescription): stderr \(result.stderr)")
        #expect(!result.crashed)
        switch stdout {
        case .text(let text): #expect(result.text == text, "\(testDescription)")
        case .prefix(let text): #expect(result.text.hasPrefix(text), "\(testDescription): \(result.text)")
        case .value(let value):
            #expect(Self.semanticValue(result.stdout) == AnyHashable(value) || jsonEquals(result.stdout, value),
                    "\(testDescription): \(result.text)")
        }
        if let stderr {
            #expect(result.stderr == stderr, "\(testDescription)")
        } else if status != 0 {
            #expect(!result.stderr.isEmpty && result.stderr.hasSuffix("\n"), "\(testDescription)")
        }
        for (name, value) in files {
            let written = runner.file(name).flatMap { try? PropertyListValue(propertyListData: $0) }
            #expect(written == value, "\(testDescription): \(name)")
        }
        for name in unchanged {
            #expect(runner.file(name) == fixtures[name], "\(testDescription): \(name) changed")
        }
        for (name, text) in textFiles {
            #expect(runner.file(name).map { String(decoding: $0, as: UTF8.self) } == text, "\(testDescription): \(name)")
        }
    }

    /// Whether `data` is JSON for `value` (a JSON document read back the way Foundation reads it).
    private func jsonEquals(_ data: Data, _ value: PropertyListValue) -> Bool {
        guard let expected = try? JSONSerialization.data(withJSONObject: Self.foundationObject(value), options: [.fragmentsAllowed]),
              let a = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) as? NSObject,
              let b = try? JSONSerialization.jsonObject(with: expected, options: [.fragmentsAllowed]) as? NSObject
        else { return false }
        return a == b
    }

    /// A JSON-compatible Foundation object for `value` (strings, numbers, booleans, arrays, dictionaries).
    static func foundationObject(_ value: PropertyListValue) -> Any {
        switch value {
        case .string(let s): return s
        case .integer(let i): return i.int64Value.map { NSNumber(value: $0) } ?? NSNumber(value: i.uint64Value ?? 0)
        case .real(let d): return NSNumber(value: d)
        case .float(let f): return NSNumber(value: f)
        case .bool(let b): return NSNumber(value: b)
        case .array(let a), .set(let a): return a.map(foundationObject)
        case .dictionary(let d): return Dictionary(uniqueKeysWithValues: d.map { ($0.key, foundationObject($0.value)) })
        case .date, .data, .uid: return "\(value)"
        }
    }

    /// Checks the toolchain's run against ours, as ``toolchain`` says.
    func compare(toolchain theirs: PlutilRunner.Result, in theirRunner: PlutilRunner,
                 with ours: PlutilRunner.Result, in ourRunner: PlutilRunner) {
        let fileNames = Set(files.keys).union(unchanged).union(textFiles.keys)
        func filesAsBytes(_ runner: PlutilRunner) -> [String: Data] {
            Dictionary(uniqueKeysWithValues: fileNames.compactMap { name in runner.file(name).map { (name, $0) } })
        }
        func filesAsValues(_ runner: PlutilRunner) -> [String: AnyHashable] {
            filesAsBytes(runner).compactMapValues { Self.semanticValue($0) }
        }
        let sameStatus = theirs.status == ours.status && theirs.crashed == ours.crashed
        let sameValues = Self.semanticValue(theirs.stdout) == Self.semanticValue(ours.stdout)
            && (theirs.stdout.isEmpty == ours.stdout.isEmpty) && filesAsValues(theirRunner) == filesAsValues(ourRunner)
        switch toolchain {
        case .identical:
            #expect(sameStatus, "\(testDescription): toolchain status \(theirs.status)")
            #expect(theirs.text == ours.text, "\(testDescription)")
            #expect(theirs.stderr == ours.stderr, "\(testDescription)")
            #expect(filesAsBytes(theirRunner) == filesAsBytes(ourRunner), "\(testDescription)")
            #expect(theirRunner.fileNames() == ourRunner.fileNames(), "\(testDescription)")
        case .sameResult:
            #expect(sameStatus, "\(testDescription): toolchain status \(theirs.status) \(theirs.stderr)")
            #expect(sameValues, "\(testDescription): toolchain output \(theirs.text)")
            #expect(theirs.stderr.isEmpty == ours.stderr.isEmpty, "\(testDescription): toolchain stderr \(theirs.stderr)")
        case .sameStatusAndOutput:
            #expect(sameStatus, "\(testDescription): toolchain status \(theirs.status) \(theirs.stderr)")
            #expect(theirs.text == ours.text, "\(testDescription)")
            #expect(filesAsValues(theirRunner) == filesAsValues(ourRunner), "\(testDescription)")
        case .sameStatus:
            #expect(sameStatus, "\(testDescription): toolchain status \(theirs.status) \(theirs.stderr)")
        case .differs(let reason):
            #expect(!(sameStatus && sameValues && theirs.text == ours.text && theirs.stderr.isEmpty == ours.stderr.isEmpty),
                    "\(testDescription): documented as different (\(reason)), but the toolchain now does the same")
        }
    }
}
