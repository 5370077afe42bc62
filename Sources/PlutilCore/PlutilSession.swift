#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ArchiveDumpCore
import KeyedArchive

/// One run of a `plutil` command over its files: reads each, does the command, writes the result.
struct PlutilSession {
    let arguments: PlutilArguments
    let input: () throws -> Data
    let output: DumpOutput
    /// Standard input, once read (a second `-` reads what is left: nothing).
    private var standardInputRead = false

    init(arguments: PlutilArguments, input: @escaping () throws -> Data, output: DumpOutput) {
        self.arguments = arguments
        self.input = input
        self.output = output
    }

    /// Does the command for one file.
    /// - Throws: ``PlutilFailure`` saying what went wrong; the file is unchanged then.
    mutating func handle(_ path: String) throws(PlutilFailure) {
        switch arguments.command {
        case .help:
            return
        case .create(let format):
            // An empty dictionary, in the format asked for.
            let bytes = try PlutilOutput.encode(.dictionary([:]), format: format, readable: arguments.readable, sourcePath: path,
                                                destination: path, objcHeader: false)
            try write(bytes, for: path, format: format, to: path)
        case .lint:
            let data = try read(path)
            if TypedstreamRenderer.isTypedstream(data) {
                _ = try Self.typedstream(data)
            } else {
                var document = try PlutilDocument(data: data, propertyListsOnly: true, jsonForm: arguments.inputFormat)
                if arguments.checksArchive {
                    guard document.isKeyedArchive else { throw PlutilFailure("not a keyed archive (-archive checks keyed archives)") }
                    try checkArchive(&document, edited: false)
                }
            }
            if !arguments.silent { output.write((path == "-" ? "<stdin>" : ValueFormatting.printable(path)) + ": OK\n") }
        case .print:
            let data = try read(path)
            if TypedstreamRenderer.isTypedstream(data) {
                try Self.typedstream(data).renderTree(to: output)
            } else {
                try printDocument(try PlutilDocument(data: data, jsonForm: arguments.inputFormat))
            }
        case .convert(let format, let header):
            let document = try PlutilDocument(data: try read(path), jsonForm: arguments.inputFormat)
            try write(document.root, from: path, format: format, objcHeader: header)
        case .extract(let keyPath, let format, let expect):
            try extract(keyPath, from: path, format: format, expect: expect)
        case .type(let keyPath, let expect):
            try extract(keyPath, from: path, format: nil, expect: expect)
        case .insert(let keyPath, _, _, _), .replace(let keyPath, _, _), .remove(let keyPath):
            guard let operation = arguments.editOperation else { return }
            try edit(path, at: keyPath, operation)
        }
    }

    // MARK: - Commands

    private mutating func extract(_ keyPath: PropertyListKeyPath, from path: String, format: PlutilArguments.Format?,
                                  expect: String?) throws(PlutilFailure) {
        var document = try PlutilDocument(data: try read(path), jsonForm: arguments.inputFormat)
        // Through an archive's UIDs the type comes from the object found (`object` for an instance of a
        // class with no property-list form), and the plain value is made only when it is written.
        var found: ArchivedKeyPathValue?
        var value: PropertyListValue?
        if document.isKeyedArchive, ArchiveKeyPathResolution.followsObjectGraph(keyPath) {
            let graph: ArchivedObjectGraph
            do {
                graph = try document.archiveGraph(edited: false)
            } catch {
                throw PlutilFailure("\(error)")
            }
            found = try ArchiveKeyPathResolution.value(at: keyPath, in: graph)
        } else {
            value = try PlutilKeyPathOperation.get.perform(on: &document, at: keyPath)
        }
        guard let type = found?.typeName ?? value.map(PlutilTextFormats.typeName(of:)) else { return }
        if let expect, expect != type {
            throw PlutilFailure("Value at [\(keyPath)] expected to be \(expect) but is \(type)")
        }
        guard let format else {
            try write(Data(type.utf8), for: path, format: .raw, to: arguments.outputPath)
            return
        }
        if let found { value = try ArchiveKeyPathResolution.plainValue(of: found) }
        guard let value else { return }
        try write(value, from: path, format: format, objcHeader: false)
    }

    private mutating func edit(_ path: String, at keyPath: PropertyListKeyPath, _ operation: PlutilKeyPathOperation) throws(PlutilFailure) {
        var document = try PlutilDocument(data: try read(path), jsonForm: arguments.inputFormat)
        let wasArchive = document.isKeyedArchive
        _ = try operation.perform(on: &document, at: keyPath)
        if wasArchive {
            // An edit of the stored archive must leave an archive that Foundation reads.
            try checkArchive(&document, edited: true)
        }
        let format: PlutilArguments.Format = switch document.format {
        case .xml: .xml1
        case .binary: .binary1
        case .json: .json
        case .typedJSON: .typedJSON
        case .resolvedJSON: .resolvedJSON
        }
        try write(document.root, from: path, format: format, objcHeader: false)
    }

    /// Checks a keyed archive by the unarchiver's rules (nothing for other property lists).
    private func checkArchive(_ document: inout PlutilDocument, edited: Bool) throws(PlutilFailure) {
        guard document.isKeyedArchive else { return }
        do {
            _ = try document.archiveGraph(edited: edited)
        } catch {
            throw PlutilFailure(edited ? "the edit would leave an invalid keyed archive, nothing was written: \(error)" : "\(error)")
        }
    }

    /// A typedstream (NSArchiver) archive read whole, ready to show as `archive-dump` shows it (its output
    /// bounded by a budget that grows with the input's size).
    /// - Throws: ``PlutilFailure`` with the typedstream reader's fault.
    private static func typedstream(_ data: Data) throws(PlutilFailure) -> TypedstreamRenderer {
        let (scaled, overflow) = data.count.multipliedReportingOverflow(by: 4)
        do {
            return TypedstreamRenderer(archive: try TypedstreamArchive(data: data),
                                       budget: overflow ? Int.max / 2 : scaled + 100_000, maxDepth: nil)
        } catch {
            throw PlutilFailure("\(error)")
        }
    }

    private func printDocument(_ document: PlutilDocument) throws(PlutilFailure) {
        if document.isKeyedArchive, let graph = try? document.archiveGraph(edited: false) {
            try PlutilOutput.checkExpansion(document.root)
            TreeRenderer().render(graph: graph, to: output)
        } else {
            var formats = PlutilTextFormats()
            output.write(try formats.printed(document.root))
        }
    }

    // MARK: - Reading and writing

    private mutating func read(_ path: String) throws(PlutilFailure) -> Data {
        if path == "-" {
            if standardInputRead { return Data() }
            standardInputRead = true
            do {
                return try input()
            } catch {
                throw PlutilFailure("(cannot read standard input: \(error))")
            }
        }
        guard !path.isEmpty else { throw PlutilFailure("Empty path specified") }
        do {
            return try FileReader().read(atPath: path)
        } catch {
            throw PlutilFailure("(\(error.errno == EISDIR ? "is a directory" : error.reason))")
        }
    }

    /// Writes `value` (read from `path`) in `format` where the options say: `-o`, or `path` with `-e`'s
    /// extension (`.swift`, `.m` for the literals), or standard output for `raw` and for standard input.
    private func write(_ value: PropertyListValue, from path: String, format: PlutilArguments.Format, objcHeader: Bool) throws(PlutilFailure) {
        let destination = PlutilOutput.destination(for: path, format: format, outputPath: arguments.outputPath,
                                                   outputExtension: arguments.outputExtension)
        let bytes = try PlutilOutput.encode(value, format: format, readable: arguments.readable, sourcePath: path,
                                            destination: destination ?? "-", objcHeader: false)
        try write(bytes, for: path, format: format, to: destination)
        if objcHeader, let destination, destination != "-" {
            let header = try PlutilOutput.encode(value, format: format, readable: false, sourcePath: path,
                                                 destination: destination, objcHeader: true)
            try PlutilOutput.writeFile(header, to: PlutilOutput.replacingExtension(of: destination, with: "h"))
        }
    }

    /// Writes `bytes` to `destination` (`-` or nil: standard output, with a newline after `raw` text
    /// unless `-n`).
    private func write(_ bytes: Data, for path: String, format: PlutilArguments.Format, to destination: String?) throws(PlutilFailure) {
        if destination == nil || destination == "-" {
            output.write(bytes: bytes)
            if format == .raw, arguments.terminatingNewline { output.write("\n") }
        } else if let destination {
            try PlutilOutput.writeFile(bytes, to: destination)
        }
    }
}
