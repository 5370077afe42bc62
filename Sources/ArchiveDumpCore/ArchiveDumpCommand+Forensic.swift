#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

extension ArchiveDumpCommand {
    /// The forensic reader the options ask for: nested payloads decoded with `--nested`.
    static func forensicReader(_ options: Options) -> ForensicReader {
        var reader = ForensicReader()
        reader.decodesNestedPayloads = options.decodesNested
        return reader
    }

    /// Runs the modes that read the input with ``ForensicReader``: `--nested` (tree or JSON), `--timeline`,
    /// `--extract`, `--diff` and `--dot`.
    ///
    /// - Returns: the exit status: 0, or 1 (unreadable input, a limit reached, a failed write).
    static func forensicRun(_ options: Options, standardInput input: () throws -> Data, output: DumpOutput,
                            errors: DumpOutput) -> Int32 {
        func fail(_ path: String, _ message: String) -> Int32 {
            let name = path == "-" ? "<stdin>" : path
            errors.write("Error: \(ValueFormatting.printable(name)): \(ValueFormatting.sanitizedLine(message))\n")
            return exitFailure
        }
        func readDocument(at path: String) -> Result<ForensicDocument, InputProblem> {
            readInput(path, standardInput: input).flatMap { data in
                Result { try forensicReader(options).read(data) }.mapError { InputProblem(message: "\($0)") }
            }
        }
        let read = readDocument(at: options.input)
        guard case .success(let document) = read else {
            if case .failure(let problem) = read { return fail(options.input, problem.message) }
            return exitFailure
        }
        switch options.mode {
        case .timeline:
            let lines = timelineLines(document.dates(), origin: "")
            return writeOutput(toPath: options.output, standardOutput: output, errors: errors) { out in
                for line in lines { out.write(line + "\n") }
                return nil
            }
        case .extract:
            let directory = options.extractDirectory ?? "."
            let written: [BlobExtractor.WrittenFile]
            do {
                written = try BlobExtractor(directory: directory).write(document.blobs())
            } catch {
                return fail(directory, "\(error)")
            }
            return writeOutput(toPath: options.output, standardOutput: output, errors: errors) { out in
                for file in written { out.write(file.jsonLine + "\n") }
                return nil
            }
        case .diff:
            // `--diff OLD NEW`: what changed from the file named by --diff (the old one) to the input (the new one).
            let oldPath = options.diffTarget ?? "-"
            let other = readDocument(at: oldPath)
            guard case .success(let older) = other else {
                if case .failure(let problem) = other { return fail(oldPath, problem.message) }
                return exitFailure
            }
            let differences = older.differences(to: document)
            let files = (old: oldPath, new: options.input)
            return writeOutput(toPath: options.output, standardOutput: output, errors: errors) { out in
                for difference in differences {
                    out.write((options.writesJSONLines ? differenceJSON(difference, files: files) : differenceText(difference)) + "\n")
                }
                return nil
            }
        case .dot:
            return writeOutput(toPath: options.output, standardOutput: output, errors: errors) { out in
                GraphvizRenderer(maxDepth: options.maxDepth, maxObjects: options.maxObjects ?? GraphvizRenderer.defaultMaxObjects)
                    .render(document, to: out)
                return nil
            }
        case .json:
            return writeOutput(toPath: options.output, standardOutput: output, errors: errors) { out in
                out.write(documentJSON(document) + "\n")
                return nil
            }
        default:
            return writeOutput(toPath: options.output, standardOutput: output, errors: errors) { out in
                ForensicTreeRenderer(maxDepth: options.maxDepth).render(document, to: out)
                return nil
            }
        }
    }

    /// A document as one JSON object: `{"format": ..., "path": root path, "damage": [...] (when damaged), "value": ...}`.
    static func documentJSON(_ document: ForensicDocument) -> String {
        "{\"format\":" + ValueFormatting.jsonString(document.format.name) + ",\"path\":"
            + ValueFormatting.jsonString(document.rootPath.description) + ForensicJSON.damageMember(document.damage)
            + ",\"value\":" + ForensicJSON.text(document.root) + "}"
    }

    /// The `--timeline` lines of `dates`, earliest first (then by path; dates that are not finite last): each
    /// a JSON object that starts with the date in ISO 8601, so lines of several runs sort with `sort`.
    /// `origin` is inserted after the time (`"input":...,"line":...,` in a batch).
    static func timelineLines(_ dates: [ForensicDate], origin: String) -> [String] {
        let ordered = dates.map { entry in
            (entry, entry.date.timeIntervalSinceReferenceDate, entry.path.description)
        }.sorted { a, b in
            let (aFinite, bFinite) = (a.1.isFinite, b.1.isFinite)
            if aFinite != bFinite { return aFinite }
            if aFinite, a.1 != b.1 { return a.1 < b.1 }
            return a.2 < b.2
        }
        return ordered.map { entry, time, path in
            "{\"date\":" + (ValueFormatting.iso8601(sinceReferenceDate: time).map(ValueFormatting.jsonString) ?? "null")
                + ",\"time\":" + ValueFormatting.jsonReal(time) + "," + origin
                + "\"source\":" + ValueFormatting.jsonString(entry.source) + ",\"path\":" + ValueFormatting.jsonString(path) + "}"
        }
    }

    /// A difference as one line of text: `changed $top.root.name: "a" -> "b"`.
    static func differenceText(_ difference: ForensicDifference) -> String {
        let path = ValueFormatting.printable(difference.path.description)
        let old = difference.old.map(summary) ?? ""
        let new = difference.new.map(summary) ?? ""
        switch difference.kind {
        case .added: return "added " + path + ": " + new
        case .removed: return "removed " + path + ": " + old
        case .changed, .classChanged: return difference.kind.rawValue + " " + path + ": " + old + " -> " + new
        case .sharingAppeared: return "sharing appeared " + path + ": " + old + " -> " + new
        case .sharingWent: return "sharing went " + path + ": " + old + " -> " + new
        }
    }

    /// A difference as one JSON object: `{"change": kind, "path": ..., "old": value, "new": value, "oldFile":
    /// path, "newFile": path}`: `old` is the value in `files.old` (the file named by `--diff`), `new` the value in
    /// `files.new` (the input); `-` names standard input.
    static func differenceJSON(_ difference: ForensicDifference, files: (old: String, new: String)) -> String {
        "{\"change\":" + ValueFormatting.jsonString(difference.kind.rawValue) + ",\"path\":"
            + ValueFormatting.jsonString(difference.path.description)
            + (difference.old.map { ",\"old\":" + ForensicJSON.text($0) } ?? "")
            + (difference.new.map { ",\"new\":" + ForensicJSON.text($0) } ?? "")
            + ",\"oldFile\":" + ValueFormatting.jsonString(files.old) + ",\"newFile\":" + ValueFormatting.jsonString(files.new) + "}"
    }

    /// A value in a few words: scalars as the tree shows them, containers and objects by what they are.
    static func summary(_ value: ForensicValue) -> String {
        switch value {
        case .array(let items): return ValueTreeWriter.count(items.count, "item")
        case .dictionary(let entries): return ValueTreeWriter.count(entries.count, "entry")
        case .object(let object): return ValueFormatting.printable(object.className) + " " + ValueTreeWriter.count(object.fields.count, "field")
        case .reference(let reference):
            return "the object at " + ValueFormatting.printable(reference.target.description)
        case .nested(let payload): return payload.carrier.rawValue + " -> " + payload.format.rawValue
        default: return ForensicTreeRenderer.scalarText(value)
        }
    }
}
