// libFuzzer target: archive-dump's rendering (tree, raw, JSON, raw JSON, classes, validate, XML, binary).
//
// Each input is given to `ArchiveDumpCommand.run` as standard input in every mode, writing into a
// discarding sink. Properties checked: rendering finishes with exit status 0 or 1 (never a trap, never a
// usage error); the JSON modes produce valid JSON whenever they succeed; and when the input is a keyed
// archive the raw object graph round-trips: graph -> property list -> graph is equal, and graph ->
// binary archive bytes -> graph is equal. The readers that do not build the tree agree with the one that
// does: `ArchivedObjectGraph(onDemand:)` accepts exactly what `ArchivedObjectGraph(data:)` accepts and gives
// the same graph, and when the eager read succeeds `LazyArchivedObjectGraph` opens the same bytes and reads
// every object as the eager graph has it (when it fails, reading every object lazily must only not trap:
// the lazy graph never checks objects that no `$objects` entry is). The lenient view
// (`ArchivedObjectGraph(lenient:)`, `--lenient` in the modes above) agrees with the strict one: it reads a
// valid archive as the same graph with no damage, and it records damage for every archive the strict
// reader rejects for breaking the archive's rules (not the property list's) that it can read. Navigating
// the graph with `ArchivedNode` never traps (`walkWithNavigation`).
//
// Build and run with Scripts/fuzz.sh dump SECONDS.

import Foundation
import KeyedArchive
import ArchiveDumpCore

let modes: [[String]] = [
    [], ["--raw"], ["--json"], ["--raw", "--json"], ["--classes"], ["--validate"], ["--xml"], ["--binary"],
    ["--max-depth", "2"], ["--json", "--max-depth", "1"],
    ["--lenient"], ["--lenient", "--json"], ["--lenient", "--classes"], ["--lenient", "--raw"], ["--lenient", "--xml"],
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDump(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    let data = bytes.map { Data(bytes: $0, count: count) } ?? Data()

    for mode in modes {
        var collected: [UInt8] = []
        let isJSON = mode.contains("--json")
        let output = DumpOutput { chunk in
            // Keep JSON output (bounded) to check it parses; discard everything else.
            if isJSON, collected.count < 1 << 20 { collected.append(contentsOf: chunk) }
            return 0
        }
        let errors = DumpOutput { _ in 0 }
        let status = ArchiveDumpCommand.run(arguments: mode + ["-"], input: { data },
                                            output: output, errors: errors, outputIsTerminal: false)
        guard status == ArchiveDumpCommand.exitSuccess || status == ArchiveDumpCommand.exitFailure else {
            fuzzViolation("archive-dump \(mode) returned \(status)")
        }
        if isJSON, status == ArchiveDumpCommand.exitSuccess, collected.count < 1 << 20 {
            do {
                _ = try JSONSerialization.jsonObject(with: Data(collected), options: [.fragmentsAllowed])
            } catch {
                fuzzViolation("archive-dump \(mode) wrote invalid JSON: \(error)\n\(String(decoding: collected.prefix(2000), as: UTF8.self))")
            }
        }
    }

    checkOnDemandReadersAgreeWithTheEagerOne(data)
    checkLenientViewAgreesWithTheStrictOne(data)

    // The raw graph round-trips.
    guard let root = try? PropertyListValue(propertyListData: data, options: FuzzLimits.readingOptions),
          let graph = try? ArchivedObjectGraph(propertyList: root) else { return 0 }
    walkWithNavigation(graph)
    do {
        let again = try ArchivedObjectGraph(propertyList: graph.propertyList)
        guard again == graph else { fuzzViolation("raw graph -> property list -> graph changed the graph") }
    } catch {
        fuzzViolation("raw graph's own property list is rejected: \(error)")
    }
    do {
        let bytes = try graph.archivedData(format: .binary)
        let again = try ArchivedObjectGraph(data: bytes)
        guard again == graph else { fuzzViolation("raw graph -> binary archive -> graph changed the graph") }
    } catch {
        fuzzViolation("raw graph's binary archive is not read back: \(error)")
    }
    return 0
}

/// The on-demand and lazy readers against the eager one (see the file's comment).
func checkOnDemandReadersAgreeWithTheEagerOne(_ data: Data) {
    let options = FuzzLimits.readingOptions
    let eager = Result { try ArchivedObjectGraph(data: data, options: options) }
    let onDemand = Result { try ArchivedObjectGraph(onDemand: data, options: options) }
    switch (eager, onDemand) {
    case (.success(let a), .success(let b)):
        guard a == b else { fuzzViolation("ArchivedObjectGraph(onDemand:) read a different graph than init(data:)") }
    case (.failure, .failure):
        break
    case (.success, .failure(let error)):
        fuzzViolation("ArchivedObjectGraph(onDemand:) rejected what init(data:) accepts: \(error)")
    case (.failure(let error), .success):
        fuzzViolation("ArchivedObjectGraph(onDemand:) accepted what init(data:) rejects: \(error)")
    }

    let lazy: LazyArchivedObjectGraph
    do {
        lazy = try LazyArchivedObjectGraph(data: data, options: options)
    } catch {
        if case .success = eager { fuzzViolation("LazyArchivedObjectGraph rejected what init(data:) accepts: \(error)") }
        return
    }
    guard case .success(let graph) = eager else {
        for uid in lazy.uids { _ = try? lazy.object(uid) }
        return
    }
    guard lazy.count == graph.count, lazy.top == graph.top, lazy.archiverName == graph.archiverName,
          lazy.version == graph.version else {
        fuzzViolation("LazyArchivedObjectGraph's envelope differs from init(data:)'s")
    }
    for uid in graph.uids {
        do {
            guard try lazy.object(uid) == graph.object(uid) else {
                fuzzViolation("LazyArchivedObjectGraph read object \(uid) differently from init(data:)")
            }
        } catch {
            fuzzViolation("LazyArchivedObjectGraph failed on object \(uid) that init(data:) read: \(error)")
        }
    }
}

/// The lenient view against the strict reader (see the file's comment).
func checkLenientViewAgreesWithTheStrictOne(_ data: Data) {
    let options = FuzzLimits.readingOptions
    let strict = Result { try ArchivedObjectGraph(data: data, options: options) }
    let lenient = Result { try ArchivedObjectGraph(lenient: data, options: options) }
    switch (strict, lenient) {
    case (.success(let graph), .success(let view)):
        guard view == graph, view.damage.isEmpty else {
            fuzzViolation("the lenient view of a valid archive differs from the strict graph (damage: \(view.damage))")
        }
    case (.success, .failure(let error)):
        fuzzViolation("the lenient view rejected a valid archive: \(error)")
    case (.failure(let error as KeyedArchiveError), .success(let view)) where error.code != .invalidPropertyList:
        guard !view.damage.isEmpty else {
            fuzzViolation("the strict reader rejects the archive (\(error)) but the lenient view found no damage")
        }
    default:
        break
    }
}
