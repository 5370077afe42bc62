// libFuzzer target: forensic reading with nested payloads (`ForensicReader`, `archive-dump --nested`).
//
// Each input is read by `ForensicReader` as it is, and carried as a data value inside a binary property
// list and inside a keyed archive (so every input is also met as a nested payload), and given to
// `archive-dump --nested`, `--nested --json`, `--timeline --nested` and `--dot --nested` as standard input.
// Properties checked: reading finishes with a document or a thrown error (never a trap; the nesting, value
// and byte limits bound the work); a nested payload met as a carrier decodes or keeps its error, and the
// carrier's byte offset, when given, points at its bytes in the enclosing input; the document's JSON parses;
// a document differs from itself in nothing; the tool exits 0 or 1 and its JSON outputs parse.
//
// Build and run with Scripts/fuzz.sh nested SECONDS.

import Foundation
import KeyedArchive
import ArchiveDumpCore

let nestedModes: [[String]] = [["--nested"], ["--nested", "--json"], ["--timeline", "--nested"], ["--dot", "--nested"]]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzNested(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()
    checkForensicReading(data)
    // The input as a payload nested one level down, in a property list and in a keyed archive.
    if let plist = try? PropertyListValue.dictionary(["blob": .data(data)]).propertyListData(format: .binary) {
        checkForensicReading(plist)
    }
    let archive = PropertyListValue.dictionary([
        "$archiver": "NSKeyedArchiver", "$version": 100000, "$top": ["root": .uid(UID(1))], "$objects": ["$null", .data(data)],
    ])
    if let archived = try? archive.propertyListData(format: .binary) { checkForensicReading(archived) }

    for mode in nestedModes {
        var collected: [UInt8] = []
        let output = DumpOutput { chunk in
            if collected.count < 1 << 20 { collected.append(contentsOf: chunk) }
            return 0
        }
        let status = ArchiveDumpCommand.run(arguments: mode + ["-"], input: { data }, output: output,
                                            errors: DumpOutput { _ in 0 }, outputIsTerminal: false)
        guard status == ArchiveDumpCommand.exitSuccess || status == ArchiveDumpCommand.exitFailure else {
            fuzzViolation("archive-dump \(mode) returned \(status)")
        }
        output.flush()
        guard status == ArchiveDumpCommand.exitSuccess, mode.contains("--json") || mode.contains("--timeline"), collected.count < 1 << 20 else { continue }
        for line in collected.split(separator: UInt8(ascii: "\n")) {
            do {
                _ = try JSONSerialization.jsonObject(with: Data(line), options: [.fragmentsAllowed])
            } catch {
                fuzzViolation("archive-dump \(mode) wrote invalid JSON: \(error)\n\(String(decoding: line.prefix(2000), as: UTF8.self))")
            }
        }
    }
    return 0
}

/// Reads `data` with `ForensicReader` and checks the document (see the file's comment).
func checkForensicReading(_ data: Data) {
    guard let document = try? ForensicReader().read(data) else { return }
    for payload in document.nestedPayloads where payload.path.nestingDepth == 0 {
        guard payload.value != nil || payload.error != nil else { fuzzViolation("payload at \(payload.path) has neither value nor error") }
        if let offset = payload.byteOffset {
            guard offset >= 0, offset <= data.count - payload.storedBytes.count,
                  data.dropFirst(offset).starts(with: payload.storedBytes) else {
                fuzzViolation("payload at \(payload.path): offset \(offset) does not point at its \(payload.storedBytes.count) bytes")
            }
        }
    }
    let json = ForensicJSON.text(document.root)
    do {
        _ = try JSONSerialization.jsonObject(with: Data(json.utf8), options: [.fragmentsAllowed])
    } catch {
        fuzzViolation("forensic JSON does not parse: \(error)\n\(json.prefix(2000))")
    }
    let differences = document.differences(to: document)
    guard differences.isEmpty else { fuzzViolation("a document differs from itself: \(differences.prefix(3))") }
}
