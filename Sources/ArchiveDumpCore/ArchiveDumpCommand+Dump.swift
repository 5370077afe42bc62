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
import KeyedArchive

extension ArchiveDumpCommand {
    /// Reads the one input `options` names and writes what the chosen mode shows of it.
    ///
    /// - Returns: the exit status: 0, or 1 (unreadable or malformed input, failed validation, failed write).
    static func dump(_ options: Options, standardInput input: () throws -> Data, output: DumpOutput, errors: DumpOutput,
                     outputIsTerminal: Bool) -> Int32 {
        let name = options.input == "-" ? "<stdin>" : options.input
        func fail(_ message: String) -> Int32 {
            errors.write("Error: \(ValueFormatting.printable(name)): \(ValueFormatting.sanitizedLine(message))\n")
            return exitFailure
        }

        // Read and parse.
        let data: Data
        switch readInput(options.input, standardInput: input) {
        case .success(let bytes): data = bytes
        case .failure(let problem): return fail(problem.message)
        }
        // A few hundred bytes whose containers share sub-trees can stand for 2^40 values: every output
        // shows them in full, so the work is capped before any of it starts.
        let budget = nodeBudget(inputByteCount: data.count)
        let root: PropertyListValue
        let graph: ArchivedObjectGraph?
        var mapped: MappedPropertyList?
        var typedstream: TypedstreamRenderer?
        if TypedstreamRenderer.isTypedstream(data) {
            // Refused as `--classes` refuses a property list that is no keyed archive: the input, not the
            // command line, is what does not fit (exit 1).
            if [.xml, .binary].contains(options.mode) {
                return fail("a typedstream (NSArchiver) archive is not a property list; '\(options.mode == .xml ? "--xml" : "--binary")' "
                            + "cannot convert it")
            }
            if options.isLenient {
                // The typedstream reader has no lenient mode: the archive is read whole or refused.
                errors.write("Note: \(ValueFormatting.printable(name)): --lenient does not apply to a typedstream "
                             + "(NSArchiver) archive; it is read with the strict rules\n")
            }
            do {
                typedstream = TypedstreamRenderer(archive: try TypedstreamArchive(data: data), budget: budget, maxDepth: options.maxDepth)
            } catch {
                return fail("\(error)")
            }
            root = .dictionary([:])
            graph = nil
        } else if [.raw, .rawJSON].contains(options.mode), let plist = MappedPropertyList(data, expandedValueBudget: budget) {
            // The property list as stored, of a binary file that passes every check below: its containers
            // are read from the bytes as they are shown (memory: the file and, while checking, 9 bytes per object).
            root = .dictionary([:])
            graph = nil
            mapped = plist
        } else if [.tree, .json, .classes, .validate].contains(options.mode),
           let onDemand = ArchivedObjectGraph.onDemandIfValid(data, options: .init(), expandedValueBudget: budget) {
            // A binary keyed archive that passes every check below: its objects are read from the bytes as
            // they are shown, and the decoded tree never exists as a whole (memory: the file and a few
            // bytes per object). Anything else, faults included, takes the path below.
            root = .dictionary([:])
            graph = onDemand
        } else {
            do {
                var reading = PropertyListReadingOptions()
                reading.isLenient = options.isLenient
                root = try PropertyListValue(propertyListData: data, options: reading)
            } catch {
                // --validate: say whether only the strict rules reject it, and whose they are.
                var lenient = PropertyListReadingOptions()
                lenient.isLenient = true
                if options.mode == .validate, BinaryPropertyListReader.isRefusedOnlyForWhatCoreFoundationReads(data) {
                    return fail("\(error) (refused by the strict reader, as no writer writes it; CoreFoundation reads it, "
                                + "and so does PropertyListReadingOptions.isLenient)")
                }
                if options.mode == .validate, (try? PropertyListValue(propertyListData: data, options: lenient)) != nil {
                    return fail("\(error) (refused by the strict rules; PropertyListReadingOptions.isLenient reads it)")
                }
                return fail("\(error)")
            }
            guard expandedNodeCount(root, atMost: budget) <= budget else {
                return fail("the property list shares containers and, shown in full, has more than \(budget) values "
                            + "(archive-dump's limit: 4 per input byte + \(nodeBudgetConstant)); nothing was shown")
            }
            // --xml, --binary and --raw show the property list as stored and never look at the object
            // graph: not building it saves a second decoded copy of the archive (about as large as `root`).
            if isKeyedArchive(root), [.tree, .json, .classes, .validate].contains(options.mode) {
                do {
                    // The tree read above serves the graph too: the file is read as a property list once.
                    graph = options.isLenient ? try ArchivedObjectGraph(lenientPropertyList: root)
                        : try ArchivedObjectGraph(data: data, parsedRoot: root)
                } catch {
                    return fail("\(error)" + (options.mode == .validate ? "" : " (use --raw to see the property list as stored)"))
                }
            } else {
                graph = nil
            }
        }

        /// Writes the chosen output to `out`; returns the exit status of a failure (its message written).
        func render(to out: DumpOutput) -> Int32? {
            if let typedstream {
                return renderTypedstream(typedstream, mode: options.mode, to: out, fail: fail)
            }
            switch options.mode {
            case .tree:
                if let graph {
                    TreeRenderer(maxDepth: options.maxDepth).render(graph: graph, to: out)
                } else {
                    TreeRenderer(maxDepth: options.maxDepth).render(propertyList: root, to: out)
                }
            case .raw:
                if let mapped {
                    RawTextRenderer(maxDepth: options.maxDepth).render(mapped: mapped, to: out)
                } else {
                    RawTextRenderer(maxDepth: options.maxDepth).render(root, to: out)
                }
            case .rawJSON:
                if let mapped {
                    JSONRenderer(maxDepth: options.maxDepth).render(mapped: mapped, to: out)
                } else {
                    JSONRenderer(maxDepth: options.maxDepth).render(propertyList: root, to: out)
                }
            case .json:
                if let graph {
                    JSONRenderer(maxDepth: options.maxDepth).render(graph: graph, to: out)
                } else {
                    JSONRenderer(maxDepth: options.maxDepth).render(propertyList: root, to: out)
                }
            case .xml, .binary:
                if options.mode == .binary, options.output == nil, outputIsTerminal {
                    errors.write("Error: refusing to write binary data to a terminal; use -o <file> or redirect the output\n")
                    return exitFailure
                }
                do {
                    out.write(bytes: try root.propertyListData(format: options.mode == .xml ? .xml : .binary))
                } catch {
                    return fail("\(error)")
                }
            case .validate:
                out.write("OK\n")
            case .classes:
                guard let graph else { return fail("not a keyed archive: it has no $archiver and $objects") }
                let counts = graph.instanceCounts().sorted { a, b in a.value != b.value ? a.value > b.value : a.key < b.key }
                writeClassCounts(counts.map { ($0.key, $0.value) }, to: out)
            case .timeline, .extract, .diff, .dot:
                break  // run() gives these modes to forensicRun
            }
            return nil
        }

        /// Writes a typedstream archive in `mode` (never --xml or --binary, refused above).
        func renderTypedstream(_ renderer: TypedstreamRenderer, mode: Options.Mode, to out: DumpOutput,
                               fail: (String) -> Int32) -> Int32? {
            switch mode {
            case .tree: renderer.renderTree(to: out)
            case .raw: renderer.renderRaw(to: out)
            case .json, .rawJSON:
                if let message = renderer.renderJSON(asStored: mode == .rawJSON, to: out) { return fail(message) }
            case .classes: writeClassCounts(renderer.classCounts(), to: out)
            case .validate, .xml, .binary: out.write("OK\n")
            case .timeline, .extract, .diff, .dot: break  // run() gives these modes to forensicRun
            }
            return nil
        }
        return writeOutput(toPath: options.output, standardOutput: output, errors: errors, render)
    }

    /// Writes `counts` (most first) as `--classes` shows them: each count right-aligned, then the class name.
    private static func writeClassCounts(_ counts: [(name: String, count: Int)], to out: DumpOutput) {
        let width = String(counts.first?.count ?? 0).count
        for (name, count) in counts {
            let n = String(count)
            out.write(String(repeating: " ", count: width - n.count) + n + "  " + ValueFormatting.printable(name) + "\n")
        }
    }

    /// Why an input could not be read, as the message says it.
    struct InputProblem: Error {
        let message: String
    }

    /// The bytes of the input at `path`, or of standard input for `-`.
    static func readInput(_ path: String, standardInput input: () throws -> Data) -> Result<Data, InputProblem> {
        do {
            return .success(path == "-" ? try input() : try FileReader().read(atPath: path))
        } catch let error as FileIOError {
            return .failure(InputProblem(message: error.errno == EISDIR ? "is a directory" : error.reason))
        } catch {
            return .failure(InputProblem(message: "\(error)"))
        }
    }
}
