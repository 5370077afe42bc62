#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

extension ArchiveDumpCommand {
    /// One blob of a batch: where it came from and its bytes, or why its line did not decode.
    struct BatchItem: Sendable {
        /// `"input":"<name>",` and, for a line, `"line":<n>,`: the start of each JSON line about it.
        var origin: String
        /// The blob, or the reason its text is not one.
        var blob: Result<Data, InputProblem>
    }

    /// Runs a batch (`--batch`, `--hex`, `--base64`): every input file, or every line of every input with
    /// `--hex`/`--base64`, is one blob, read on all processors (`--jobs`); writes one JSON line per blob
    /// (its value or its error), or with `--timeline` one per date, in input order, and goes on after errors.
    ///
    /// - Returns: 0 when every blob was read, 1 when any was not (each is reported in its line) or an input
    ///   file could not be read (reported on standard error).
    static func batchRun(_ options: Options, standardInput input: () throws -> Data, output: DumpOutput, errors: DumpOutput) -> Int32 {
        var items: [BatchItem] = []
        var status = exitSuccess
        for path in options.inputs {
            let name = path == "-" ? "<stdin>" : path
            switch readInput(path, standardInput: input) {
            case .failure(let problem):
                errors.write("Error: \(ValueFormatting.printable(name)): \(ValueFormatting.sanitizedLine(problem.message))\n")
                status = exitFailure
            case .success(let data):
                let origin = "\"input\":" + ValueFormatting.jsonString(name) + ","
                if let encoding = options.blobEncoding {
                    items += blobLines(data, encoding: encoding, origin: origin)
                } else {
                    items.append(BatchItem(origin: origin, blob: .success(data)))
                }
            }
        }
        let reader = forensicReader(options)
        let isTimeline = options.mode == .timeline
        let jobs = options.jobs ?? ProcessInfo.processInfo.activeProcessorCount
        let blobs = items
        var failed = false
        let written = writeOutput(toPath: options.output, standardOutput: output, errors: errors) { out in
            OrderedWork.run(count: blobs.count, workers: jobs, window: max(jobs, 1) * 64, work: { index in
                batchLines(blobs[index], reader: reader, timeline: isTimeline)
            }, deliver: { lines, isFailure in
                failed = failed || isFailure
                for line in lines { out.write(line + "\n") }
                return !out.hasFailed
            })
            return nil
        }
        return written != exitSuccess || failed ? exitFailure : status
    }

    /// The JSON lines of one blob, and whether it failed.
    static func batchLines(_ item: BatchItem, reader: ForensicReader, timeline: Bool) -> ([String], Bool) {
        let document: ForensicDocument
        do {
            document = try reader.read(try item.blob.get())
        } catch let problem as InputProblem {
            return (["{" + item.origin + "\"error\":" + ValueFormatting.jsonString(problem.message) + "}"], true)
        } catch {
            return (["{" + item.origin + "\"error\":" + ValueFormatting.jsonString("\(error)") + "}"], true)
        }
        if timeline { return (timelineLines(document.dates(), origin: item.origin), false) }
        let json = documentJSON(document)
        return (["{" + item.origin + json.dropFirst()], false)
    }

    /// The blobs of `data`, one per line (`\n` or `\r\n`), with their 1-based line numbers. A line that is
    /// empty (what `sqlite3` prints for NULL) or not valid hex or base64 becomes an item with its error, so
    /// line numbers stay those of the input.
    static func blobLines(_ data: Data, encoding: Options.BlobEncoding, origin: String) -> [BatchItem] {
        var items: [BatchItem] = []
        var lines = data.split(separator: 0x0A, omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        for (index, rawLine) in lines.enumerated() {
            let line = rawLine.last == 0x0D ? rawLine.dropLast() : rawLine
            let lineOrigin = origin + "\"line\":\(index + 1),"
            let text = String(decoding: line.drop(while: { $0 == 0x20 || $0 == 0x09 }), as: UTF8.self)
            let bytes: Data? = switch encoding {
            case .hex: ForensicReader.bytes(hex: text)
            case .base64: Data(base64Encoded: text)
            }
            if text.isEmpty {
                items.append(BatchItem(origin: lineOrigin, blob: .failure(InputProblem(message: "empty line (no blob)"))))
            } else if let bytes {
                items.append(BatchItem(origin: lineOrigin, blob: .success(bytes)))
            } else {
                items.append(BatchItem(origin: lineOrigin, blob: .failure(InputProblem(
                    message: "not \(encoding == .hex ? "hexadecimal (an even number of digits 0-9, a-f)" : "base64") text"))))
            }
        }
        return items
    }
}
