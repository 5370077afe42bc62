import Foundation
import Testing
@testable import KeyedArchive
import KeyedArchiveTestSupport

/// A keyed archive Foundation wrote, rewritten as no writer writes it but CoreFoundation reads it (9-byte
/// object references or offsets, an offset-table entry inside the header that no reference leads to), is
/// refused by every keyed-archive reader with default options, with the binary reader's own error, and read
/// by each with ``PropertyListReadingOptions/isLenient`` to the value of the archive Foundation wrote; faults
/// of the rewritten file name its own bytes.
@Suite struct LenientArchiveReadingTests {
    typealias Rewrite = BinaryPropertyListRewrite

    static let lenient: PropertyListReadingOptions = {
        var options = PropertyListReadingOptions()
        options.isLenient = true
        return options
    }()

    /// Strings, a shared string, numbers, a date, data and a nested dictionary, written by Foundation.
    static let archive: Data = {
        let root: NSDictionary = ["name": "x", "list": [1, 2.5, "shared"], "again": "shared", "flag": true,
                                  "when": NSDate(timeIntervalSinceReferenceDate: 1), "bytes": Data([1, 2, 3]),
                                  "nested": ["k": -7]]
        return (try? NSKeyedArchiver.archivedData(withRootObject: root, requiringSecureCoding: false)) ?? Data()
    }()

    static let rewrites: [String] = ["references 9", "offsets 9", "header entry"]

    static func rewritten(_ name: String, _ file: Data = archive) -> Data {
        switch name {
        case "references 9": Rewrite.widened(file, referenceSize: 9)
        case "offsets 9": Rewrite.widened(file, offsetSize: 9)
        default: Rewrite.addingEntry(file, offset: 4)
        }
    }

    /// The binary reader's strict error for `data`, which every strict keyed-archive reader reports beneath its own.
    static func strictFault(_ data: Data) throws -> PropertyListError {
        try #require(throws: PropertyListError.self) { try BinaryPropertyListReader().read(data) }
    }

    static func expectRefused(_ name: String, _ fault: PropertyListError, _ read: () throws -> Void,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            try read()
            Issue.record("\(name): read strictly", sourceLocation: sourceLocation)
        } catch let error as KeyedArchiveError {
            #expect(error.code == .invalidPropertyList, "\(name): \(error)", sourceLocation: sourceLocation)
            #expect(error.underlying == fault, "\(name): \(error)", sourceLocation: sourceLocation)
            #expect(error.message == "not a readable property list: \(fault.message)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("\(name): \(error)", sourceLocation: sourceLocation)
        }
    }

    /// `graph` holds what `expected` holds: the envelope, `$top` and every object, one by one.
    static func expectSameGraph(_ graph: ArchivedObjectGraph, _ expected: ArchivedObjectGraph, _ name: String,
                                sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(graph.archiverName == expected.archiverName, "\(name)", sourceLocation: sourceLocation)
        #expect(graph.version == expected.version, "\(name)", sourceLocation: sourceLocation)
        #expect(graph.top == expected.top, "\(name)", sourceLocation: sourceLocation)
        #expect(graph.count == expected.count, "\(name)", sourceLocation: sourceLocation)
        #expect(graph.damage.isEmpty, "\(name): \(graph.damage)", sourceLocation: sourceLocation)
        for uid in expected.uids {
            #expect(graph.object(uid) == expected.object(uid), "\(name) \(uid)", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: rewrites)
    func typedUnarchiverReadsLenientlyOnly(_ name: String) throws {
        let file = Self.rewritten(name)
        let fault = try Self.strictFault(file)
        Self.expectRefused(name, fault) { _ = try KeyedUnarchiver().decode(FoundationValue.self, from: file) }

        let expected = try KeyedUnarchiver().decode(FoundationValue.self, from: Self.archive)
        var unarchiver = KeyedUnarchiver()
        unarchiver.readingOptions = Self.lenient
        let value = try unarchiver.decode(FoundationValue.self, from: file)
        guard case .dictionary(let expectedFields) = expected, case .dictionary(let fields) = value else {
            Issue.record("\(name): not dictionaries: \(expected), \(value)")
            return
        }
        #expect(fields.dictionary.count == expectedFields.dictionary.count, "\(name)")
        for (key, expectedValue) in expectedFields.dictionary {
            #expect(fields[key] == expectedValue, "\(name) \(key)")
        }
        #expect(expectedFields[.string("name")] == .string("x"))
        #expect(expectedFields[.string("again")] == .string("shared"))
    }

    @Test(arguments: rewrites)
    func eagerGraphReadsLenientlyOnly(_ name: String) throws {
        let file = Self.rewritten(name)
        Self.expectRefused(name, try Self.strictFault(file)) { _ = try ArchivedObjectGraph(data: file) }
        Self.expectSameGraph(try ArchivedObjectGraph(data: file, options: Self.lenient), try ArchivedObjectGraph(data: Self.archive), name)
    }

    @Test(arguments: rewrites)
    func onDemandGraphReadsLenientlyOnDemand(_ name: String) throws {
        let file = Self.rewritten(name)
        Self.expectRefused(name, try Self.strictFault(file)) { _ = try ArchivedObjectGraph(onDemand: file) }
        let graph = try ArchivedObjectGraph(onDemand: file, options: Self.lenient)
        // Read from the (copied) bytes, not from a decoded tree.
        #expect(graph.storage.isMapped, "\(name)")
        Self.expectSameGraph(graph, try ArchivedObjectGraph(data: Self.archive), name)
    }

    @Test(arguments: rewrites)
    func lenientGraphReadsWithoutDamage(_ name: String) throws {
        let file = Self.rewritten(name)
        Self.expectSameGraph(try ArchivedObjectGraph(lenient: file), try ArchivedObjectGraph(data: Self.archive), name)
    }

    /// Strict opening of `file` by the lazy graph (`open`): refused as the binary reader refuses it for a
    /// width above 8; opened for an unreferenced header entry, as the lazy graph checks an offset-table entry
    /// only when its object is read.
    static func expectLazyStrictOpening(_ name: String, _ file: Data, _ open: () throws -> LazyArchivedObjectGraph,
                                        sourceLocation: SourceLocation = #_sourceLocation) throws {
        if name == "header entry" {
            #expect(try open().count == (try ArchivedObjectGraph(data: archive)).count, sourceLocation: sourceLocation)
        } else {
            expectRefused(name, try strictFault(file), { _ = try open() }, sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: rewrites)
    func lazyGraphReadsLenientlyOnly(_ name: String) throws {
        let file = Self.rewritten(name)
        try Self.expectLazyStrictOpening(name, file) { try LazyArchivedObjectGraph(data: file) }
        let expected = try LazyArchivedObjectGraph(data: Self.archive)
        let graph = try LazyArchivedObjectGraph(data: file, options: Self.lenient)
        #expect(graph.archiverName == expected.archiverName)
        #expect(graph.version == expected.version)
        #expect(graph.top == expected.top)
        #expect(graph.count == expected.count)
        for uid in expected.uids {
            #expect(try graph.object(uid) == expected.object(uid), "\(name) \(uid)")
        }
    }

    @Test(arguments: rewrites)
    func lazyGraphReadsLenientlyFromAFile(_ name: String) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("lenient-\(UUID().uuidString).archive").path
        let file = Self.rewritten(name)
        try file.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        // Mapped whatever its size (where mapping is safe), so the copy is made from the mapping.
        let fileOptions = FileReader.Options(mappingThreshold: 0)
        try Self.expectLazyStrictOpening(name, file) { try LazyArchivedObjectGraph(contentsOfFile: path, fileOptions: fileOptions) }
        let graph = try LazyArchivedObjectGraph(contentsOfFile: path, options: Self.lenient, fileOptions: fileOptions)
        let expected = try ArchivedObjectGraph(data: Self.archive)
        #expect(graph.count == expected.count)
        for uid in expected.uids {
            #expect(try graph.object(uid) == expected.object(uid), "\(name) \(uid)")
        }
    }

    /// `archive` with its one-character string "x" (an `$objects` entry) given the unknown marker `0x90`,
    /// rewritten as `name`; and the offset of that object in the rewritten file.
    static func brokenEntry(_ name: String) throws -> (file: Data, offset: Int) {
        var bytes = [UInt8](archive)
        let t = Rewrite.trailer(bytes)
        let offsets = (0 ..< t.count).map { Rewrite.number(bytes, t.tableOffset + $0 * t.offsetSize, t.offsetSize) }
        let x = try #require(offsets.first { bytes[$0] == 0x51 && bytes[$0 + 1] == UInt8(ascii: "x") })
        bytes[x] = 0x90
        let file = rewritten(name, Data(bytes))
        let wide = [UInt8](file)
        let w = Rewrite.trailer(wide)
        let offset = try #require((0 ..< w.count).map { Rewrite.number(wide, w.tableOffset + $0 * w.offsetSize, w.offsetSize) }
            .first { wide[$0] == 0x90 })
        return (file, offset)
    }

    /// A fault in the rewritten file is reported at the file's own byte, by the readers that check every
    /// object when opening and by the lazy graph when the object is read.
    @Test(arguments: rewrites)
    func faultsNameTheInputsBytes(_ name: String) throws {
        let (file, offset) = try Self.brokenEntry(name)
        let fault = try #require(throws: PropertyListError.self) { try BinaryPropertyListReader(options: Self.lenient).read(file) }
        #expect(fault.location.byteOffset == offset, "\(fault)")
        var unarchiver = KeyedUnarchiver()
        unarchiver.readingOptions = Self.lenient
        let errors: [(String, () throws -> Void)] = [
            ("typed unarchiver", { _ = try unarchiver.decode(FoundationValue.self, from: file) }),
            ("eager", { _ = try ArchivedObjectGraph(data: file, options: Self.lenient) }),
            ("on demand", { _ = try ArchivedObjectGraph(onDemand: file, options: Self.lenient) }),
        ]
        for (reader, read) in errors {
            let error = try #require(throws: KeyedArchiveError.self, "\(reader)") { try read() }
            #expect(error.code == .invalidPropertyList, "\(reader): \(error)")
            #expect(error.underlying?.location.byteOffset == offset, "\(reader): \(error)")
            #expect(error.underlying?.code == fault.code, "\(reader): \(error)")
        }
        // The lazy graph opens the file (the entry is not read yet) and reports the entry when it is read.
        let lazy = try LazyArchivedObjectGraph(data: file, options: Self.lenient)
        let eager = try ArchivedObjectGraph(data: Self.archive)
        let uid = try #require(eager.uids.first { eager.object($0)?.content == .value(.string("x")) })
        let error = try #require(throws: KeyedArchiveError.self) { _ = try lazy.object(uid) }
        #expect(error.code == .invalidPropertyList, "\(error)")
        #expect(error.objectUID == uid.value, "\(error)")
        #expect(error.underlying?.location.byteOffset == offset, "\(error)")
    }
}
