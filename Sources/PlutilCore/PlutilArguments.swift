import KeyedArchive

/// A `plutil` command line, parsed as Apple's `plutil` parses it: the first argument is the command
/// (anything else means `-lint`, with that argument as the first file), the command's own arguments
/// follow it in a fixed order, and then come the common options and the files.
struct PlutilArguments: Equatable {
    /// An output format: of `-convert`, `-extract` and `-create`.
    enum Format: String, Equatable, CaseIterable {
        case xml1, binary1, json, swift, objc, raw
        /// Typed JSON (``PropertyListValue/typedJSONData(prettyPrinted:)``): JSON that keeps dates, data,
        /// UIDs, sets and reals apart from integers, so that it converts back to the same values.
        case typedJSON = "typed-json"
        /// Resolved JSON of a keyed archive (``ArchivedObjectGraph/resolvedJSONData(prettyPrinted:maximumDepth:)``):
        /// the object graph with its classes, shared objects once, converting back to an archive with the same graph.
        case resolvedJSON = "resolved-json"
    }

    /// How `-from` says a JSON input is read: plain JSON (the default, as Apple's `plutil` reads it), typed
    /// JSON, or resolved JSON. Binary, XML and OpenStep input is recognised by its bytes whatever `-from` says.
    enum InputFormat: String, Equatable {
        case json
        case typedJSON = "typed-json"
        case resolvedJSON = "resolved-json"
    }

    /// What to do with each file.
    enum Command: Equatable {
        case help
        case lint
        case print
        case convert(Format, objcHeader: Bool)
        case extract(PropertyListKeyPath, Format, expect: String?)
        case type(PropertyListKeyPath, expect: String?)
        case insert(PropertyListKeyPath, typeOption: String, value: String?, append: Bool)
        case replace(PropertyListKeyPath, typeOption: String, value: String?)
        case remove(PropertyListKeyPath)
        case create(Format)
    }

    var command: Command
    /// The files, `-` for standard input (or, for `-create`, standard output).
    var paths: [String] = []
    /// `-s`: no `OK` lines.
    var silent = false
    /// `-r`: indented JSON with sorted keys.
    var readable = false
    /// `-n` clears it: the newline after `raw` and `-type` output.
    var terminatingNewline = true
    /// `-o path`.
    var outputPath: String?
    /// `-e extension`.
    var outputExtension: String?
    /// `-from FORMAT`: how a JSON input is read.
    var inputFormat: InputFormat = .json
    /// `-lint -archive`: a keyed archive must also keep the archive's rules (and the file must be one).
    var checksArchive = false
    /// The edit of `-insert`, `-replace` and `-remove`, its value read from the command line once for all files.
    private(set) var editOperation: PlutilKeyPathOperation?

    /// Parses the arguments (without the program name).
    /// - Throws: ``PlutilFailure`` with the message Apple's `plutil` prints for the same mistake.
    init(_ arguments: [String]) throws(PlutilFailure) {
        var rest = arguments[...]
        func next() -> String? { rest.popFirst() }
        func format(_ text: String?, missing: String) throws(PlutilFailure) -> Format {
            guard let text else { throw PlutilFailure(missing) }
            guard let format = Format(rawValue: text) else { throw PlutilFailure("Unknown format specifier: \(text)") }
            return format
        }
        func expectation() throws(PlutilFailure) -> String? {
            guard rest.first == "-expect" else { return nil }
            rest.removeFirst()
            guard let type = next() else { throw PlutilFailure("-expect requires a type argument.") }
            guard PlutilTextFormats.expectableTypeNames.contains(type) else { throw PlutilFailure("-expect type [\(type)] not valid.") }
            return type
        }
        let extractUsage = "'Extract' requires a key path and a plist format."
        guard let first = next() else { throw PlutilFailure("No files specified.") }
        switch first {
        case "-help":
            command = .help
            return
        case "-lint":
            command = .lint
            if rest.first == "-archive" {
                rest.removeFirst()
                checksArchive = true
            }
        case "-p": command = .print
        case "-convert":
            let chosen = try format(next(), missing: "Missing format specifier for command.")
            let header = rest.first == "-header"
            if header {
                guard chosen == .objc else { throw PlutilFailure("-header is only valid for objc literal conversions.") }
                rest.removeFirst()
            }
            command = .convert(chosen, objcHeader: header)
        case "-extract":
            guard let keyPath = next() else { throw PlutilFailure(extractUsage) }
            let chosen = try format(next(), missing: extractUsage)
            command = .extract(PropertyListKeyPath(keyPath), chosen, expect: try expectation())
        case "-type":
            guard let keyPath = next() else { throw PlutilFailure(extractUsage) }
            command = .type(PropertyListKeyPath(keyPath), expect: try expectation())
        case "-insert", "-replace":
            let usage = "'Insert' and 'Replace' require a key path, a type, and a value."
            guard let keyPath = next(), let typeOption = next() else { throw PlutilFailure(usage) }
            guard PlutilValueArgument.typeOptions.contains(typeOption) else {
                throw PlutilFailure("Unknown insert or replace type \(typeOption)")
            }
            var value: String?
            if PlutilValueArgument.takesValue(typeOption) {
                guard let text = next() else { throw PlutilFailure(usage) }
                value = text
            }
            let append = rest.first == "-append"
            if append { rest.removeFirst() }
            command = first == "-insert"
                ? .insert(PropertyListKeyPath(keyPath), typeOption: typeOption, value: value, append: append)
                : .replace(PropertyListKeyPath(keyPath), typeOption: typeOption, value: value)
        case "-remove":
            guard let keyPath = next() else { throw PlutilFailure("'Remove' requires a key path.") }
            command = .remove(PropertyListKeyPath(keyPath))
        case "-create":
            command = .create(try format(next(), missing: "'Create' requires a plist format."))
        default:
            command = .lint
            rest = arguments[...]
        }
        try parseCommonOptions(&rest)
        switch command {
        case .insert(_, let typeOption, let text, let append):
            let value = try PlutilValueArgument.value(typeOption: typeOption, text: text ?? "")
            editOperation = append ? .append(value) : .insert(value)
        case .replace(_, let typeOption, let text):
            editOperation = .replace(try PlutilValueArgument.value(typeOption: typeOption, text: text ?? ""))
        case .remove:
            editOperation = .remove
        default:
            break
        }
    }

    /// The options every command shares, and the files.
    private mutating func parseCommonOptions(_ rest: inout ArraySlice<String>) throws(PlutilFailure) {
        while let argument = rest.popFirst() {
            switch argument {
            case "--":
                paths += rest
                rest = []
            case "-n": terminatingNewline = false
            case "-s": silent = true
            case "-r": readable = true
            case "-from":
                guard let value = rest.popFirst() else { throw PlutilFailure("Missing argument for -from.") }
                guard let format = InputFormat(rawValue: value) else {
                    throw PlutilFailure("Unknown input format for -from: \(value) (json, typed-json or resolved-json)")
                }
                inputFormat = format
            case "-o", "-e":
                guard let value = rest.popFirst() else { throw PlutilFailure("Missing argument for \(argument).") }
                if argument == "-o" { outputPath = value } else { outputExtension = value }
            default:
                if argument.hasPrefix("-"), argument.count > 1 { throw PlutilFailure("unrecognized option: \(argument)") }
                paths.append(argument)
            }
        }
        guard !paths.isEmpty else { throw PlutilFailure("No files specified.") }
        switch command {
        case .lint, .print:
            let name = command == .lint ? "-lint" : "-p"
            if outputPath != nil { throw PlutilFailure("-o is not used with \(name).") }
            if outputExtension != nil { throw PlutilFailure("-e is not used with \(name).") }
        default:
            break
        }
    }
}
