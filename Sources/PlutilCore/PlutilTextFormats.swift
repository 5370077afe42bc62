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

/// A failure of one file (or of the command line), as `plutil` reports it: one line, exit status 1.
struct PlutilFailure: Error, Equatable {
    /// What was wrong, without the file name.
    var message: String
    init(_ message: String) { self.message = message }
}

/// The text forms `plutil` writes a value in: JSON, `raw`, the type name, `-p`'s listing, and Swift and
/// Objective-C literals. XML and binary property lists come from the library's writers.
///
/// Every walk counts the values it visits against a ``PropertyListExpansionBudget``, so a small binary file
/// whose containers share children (2^40 paths in 40 containers) fails instead of writing for ever.
struct PlutilTextFormats {
    private var budget = PropertyListExpansionBudget()

    /// The name `-type` prints and `-expect` checks: bool, integer, float, string, date, data, dictionary,
    /// array; and, beyond Apple's list, set and uid, which its `plutil` shows as `(any)`.
    static func typeName(of value: PropertyListValue) -> String {
        switch value {
        case .bool: return "bool"
        case .integer: return "integer"
        case .real, .float: return "float"
        case .string: return "string"
        case .date: return "date"
        case .data: return "data"
        case .dictionary: return "dictionary"
        case .array: return "array"
        case .set: return "set"
        case .uid: return "uid"
        }
    }

    /// The names `-expect` accepts.
    static let expectableTypeNames: Set<String> = ["bool", "integer", "float", "string", "date", "data", "dictionary", "array"]

    /// A dictionary's entries in ``PlutilKeyOrder``.
    static func sortedEntries(_ d: PropertyListDictionary) -> [(key: String, value: PropertyListValue)] {
        d.sorted { PlutilKeyOrder.precedes($0.key, $1.key) }
    }

    private mutating func visit(_ values: [PropertyListValue], keys: [String]? = nil) throws(PlutilFailure) {
        guard budget.visit(values, keys: keys) else { throw Self.overBudget }
    }

    /// The failure of a walk over its ``PropertyListExpansionBudget``.
    static let overBudget = PlutilFailure("the property list shares containers and, written out in full, is larger than "
                                          + "allowed (\(PropertyListExpansionBudget.limitDescription))")

    // MARK: - JSON

    /// The value as JSON, as Foundation's `JSONSerialization` writes it: compact, or with `readable` indented
    /// by two spaces with keys sorted (an empty container as `{`, an empty line, `}`). A scalar at the top is written as a JSON fragment.
    /// - Throws: ``PlutilFailure`` for a date, data, UID, set or non-finite real, which JSON cannot hold.
    mutating func json(_ value: PropertyListValue, readable: Bool) throws(PlutilFailure) -> String {
        var out = ""
        try appendJSON(value, readable: readable, indent: 0, to: &out)
        return out
    }

    private mutating func appendJSON(_ value: PropertyListValue, readable: Bool, indent: Int, to out: inout String) throws(PlutilFailure) {
        let inner = readable ? "\n" + String(repeating: "  ", count: indent + 1) : ""
        let closing = readable ? "\n" + String(repeating: "  ", count: indent) : ""
        switch value {
        case .string(let s): out += ValueFormatting.jsonString(s)
        case .integer(let i): out += i.description
        case .real(let d): out += try Self.jsonNumber(d)
        case .float(let f): out += try Self.jsonNumber(Double(f))
        case .bool(let b): out += b ? "true" : "false"
        case .array(let elements):
            try visit(elements.elements)
            out += "["
            for (n, element) in elements.enumerated() {
                out += (n == 0 ? "" : ",") + inner
                try appendJSON(element, readable: readable, indent: indent + 1, to: &out)
            }
            out += (elements.isEmpty && readable ? "\n" : "") + closing + "]"
        case .dictionary(let d):
            try visit(d.values, keys: d.keys)
            out += "{"
            let entries = readable ? Self.sortedEntries(d) : Array(d)
            for (n, entry) in entries.enumerated() {
                out += (n == 0 ? "" : ",") + inner + ValueFormatting.jsonString(entry.key) + (readable ? " : " : ":")
                try appendJSON(entry.value, readable: readable, indent: indent + 1, to: &out)
            }
            out += (d.isEmpty && readable ? "\n" : "") + closing + "}"
        case .date, .data, .uid, .set:
            throw PlutilFailure("Invalid object in plist for JSON format: \(value.kindName) values have no JSON form")
        }
    }

    /// A real as `JSONSerialization` writes it: the shortest form that reads back, without a `.0` (`2`, `0.1`, `1e+30`).
    private static func jsonNumber(_ d: Double) throws(PlutilFailure) -> String {
        guard d.isFinite else { throw PlutilFailure("Invalid object in plist for JSON format: the real \(d) has no JSON form") }
        let text = d.description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    // MARK: - raw and -p

    /// The value as `-extract keypath raw` prints it: a scalar as text (reals as `%f`, dates in ISO 8601, data
    /// in base64, a UID as its number), an array or set as its count, a dictionary as its keys, one a line.
    static func raw(_ value: PropertyListValue) -> String {
        switch value {
        case .string(let s): return s
        case .integer(let i): return i.description
        case .real(let d): return fixedPoint(d)
        case .float(let f): return fixedPoint(Double(f))
        case .bool(let b): return b ? "true" : "false"
        case .date(let d): return ValueFormatting.iso8601(sinceReferenceDate: d.timeIntervalSinceReferenceDate.rounded(.down)) ?? "\(d)"
        case .data(let d): return d.base64EncodedString()
        case .uid(let u): return String(u.value)
        case .array(let a), .set(let a): return String(a.count)
        case .dictionary(let d): return sortedEntries(d).map(\.key).joined(separator: "\n")
        }
    }

    /// `printf("%f")`: six decimals, as Apple's `plutil` prints a raw real.
    static func fixedPoint(_ d: Double) -> String {
        guard d.isFinite else { return d.isNaN ? "nan" : (d < 0 ? "-inf" : "inf") }
        var buffer = [CChar](repeating: 0, count: 400)
        let written = buffer.withUnsafeMutableBufferPointer { p in
            withVaList([d]) { vsnprintf(p.baseAddress, p.count, "%f", $0) }
        }
        guard written > 0, written < buffer.count else { return d.description }
        return String(decoding: buffer.prefix(Int(written)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The value as `plutil -p` lists a plain property list: `"key" => value`, keys sorted, two spaces per
    /// level. Strings are quoted with `"`, `\` and control characters escaped.
    mutating func printed(_ value: PropertyListValue) throws(PlutilFailure) -> String {
        var out = ""
        try appendPrinted(value, indent: 0, to: &out)
        return out
    }

    private mutating func appendPrinted(_ value: PropertyListValue, indent: Int, to out: inout String) throws(PlutilFailure) {
        let pad = String(repeating: " ", count: indent + 2), closing = String(repeating: " ", count: indent)
        switch value {
        case .dictionary(let d):
            try visit(d.values, keys: d.keys)
            out += "{\n"
            for (key, element) in Self.sortedEntries(d) {
                out += pad + ValueFormatting.quoted(key) + " => "
                try appendPrinted(element, indent: indent + 2, to: &out)
            }
            out += closing + "}\n"
        case .array(let elements), .set(let elements):
            try visit(elements.elements)
            out += "[\n"
            for (n, element) in elements.enumerated() {
                out += pad + "\(n) => "
                try appendPrinted(element, indent: indent + 2, to: &out)
            }
            out += closing + "]\n"
        case .string(let s): out += ValueFormatting.quoted(s) + "\n"
        case .real(let d): out += d.description + "\n"
        case .float(let f): out += f.description + "\n"
        case .date(let d):
            let seconds = d.timeIntervalSinceReferenceDate.rounded(.down)
            let iso = ValueFormatting.iso8601(sinceReferenceDate: seconds)
            out += (iso.map { $0.replacing("T", with: " ").replacing("Z", with: " +0000") } ?? "\(d)") + "\n"
        case .data(let d): out += ValueFormatting.textData(d) + "\n"
        case .uid(let u): out += u.description + "\n"
        case .integer, .bool: out += Self.raw(value) + "\n"
        }
    }

    // MARK: - Swift and Objective-C literals

    /// The variable name a literal gets from the input file's name: its stem, `-` and spaces as `_`, other
    /// characters that cannot be in a name left out.
    static func variableName(fromFile path: String) -> String {
        let last = path.split(separator: "/").last.map(String.init) ?? path
        let stem = last.lastIndex(of: ".").map { $0 == last.startIndex ? last : String(last[..<$0]) } ?? last
        var name = ""
        for scalar in stem.unicodeScalars {
            if scalar == "-" || scalar == " " {
                name += "_"
            } else if scalar.properties.isAlphabetic || scalar == "_" || ("0"..."9").contains(scalar) {
                name.unicodeScalars.append(scalar)
            }
        }
        return name
    }

    /// The value as a Swift literal, `let name = ...` (with `: [String : Any]` or `: [Any]` when the elements
    /// differ in type); reals in their shortest exact form, data as `Data(bytes: [...])`, dates as
    /// `Date(timeIntervalSinceReferenceDate:)`, strings and keys escaped for Swift.
    /// - Throws: ``PlutilFailure`` when the root is not a dictionary or array, or for a UID or set.
    mutating func swiftLiteral(_ value: PropertyListValue, fileName: String) throws(PlutilFailure) -> String {
        var out = "/// Generated from \(fileName.split(separator: "/").last.map(String.init) ?? fileName)\n"
        out += "let \(Self.variableName(fromFile: fileName))"
        switch value {
        case .dictionary(let d): out += Self.isMixed(d.values) ? " : [String : Any]" : ""
        case .array(let a): out += Self.isMixed(a.elements) ? " : [Any]" : ""
        default: throw PlutilFailure("Swift literal syntax does not support a \(value.kindName) at the top level")
        }
        out += " = "
        try appendLiteral(value, swift: true, depth: 0, to: &out)
        return out + "\n"
    }

    /// The value as an Objective-C literal (`NSDictionary * const name = @{...};`), with `#import "name.h"`
    /// first unless written to standard output; or with `header`, the header that declares it.
    /// - Throws: ``PlutilFailure`` for a date, data, UID or set, which Objective-C literals cannot hold.
    mutating func objcLiteral(_ value: PropertyListValue, fileName: String, outputPath: String, header: Bool) throws(PlutilFailure) -> String {
        let className: String
        switch value {
        case .dictionary: className = "NSDictionary"
        case .array: className = "NSArray"
        case .string: className = "NSString"
        case .integer, .real, .float, .bool: className = "NSNumber"
        default: throw PlutilFailure("Objective-C literal syntax does not support \(value.kindName) values")
        }
        var out = ""
        if header {
            out += "#import <Foundation/Foundation.h>\n\n"
        } else if outputPath != "-" {
            let output = outputPath.split(separator: "/").last.map(String.init) ?? outputPath
            out += "#import \"\(output.lastIndex(of: ".").map { String(output[..<$0]) } ?? output).h\"\n\n"
        }
        out += "/// Generated from \(fileName.split(separator: "/").last.map(String.init) ?? fileName)\n"
        out += "__attribute__((visibility(\"hidden\")))\n"
        out += (header ? "extern " : "") + "\(className) * const \(Self.variableName(fromFile: fileName))"
        if header { return out + ";\n" }
        out += " = "
        try appendLiteral(value, swift: false, depth: 0, to: &out)
        return out + ";\n"
    }

    /// Whether the values are not all of one `-type`.
    private static func isMixed(_ values: [PropertyListValue]) -> Bool {
        guard let first = values.first.map(typeName) else { return false }
        return values.contains { typeName(of: $0) != first }
    }

    private mutating func appendLiteral(_ value: PropertyListValue, swift: Bool, depth: Int, to out: inout String) throws(PlutilFailure) {
        let at = swift ? "" : "@"
        let pad = String(repeating: "    ", count: depth + 1), closing = String(repeating: "    ", count: depth)
        switch value {
        case .dictionary(let d):
            try visit(d.values, keys: d.keys)
            out += at + (swift ? "[\n" : "{\n")
            for (key, element) in Self.sortedEntries(d) {
                out += pad + at + Self.literalString(key, swift: swift) + " : "
                try appendLiteral(element, swift: swift, depth: depth + 1, to: &out)
                out += ",\n"
            }
            out += closing + (swift ? "]" : "}")
        case .array(let elements):
            try visit(elements.elements)
            out += at + "[\n"
            for element in elements {
                out += pad
                try appendLiteral(element, swift: swift, depth: depth + 1, to: &out)
                out += ",\n"
            }
            out += closing + "]"
        case .string(let s): out += at + Self.literalString(s, swift: swift)
        case .integer(let i): out += at + i.description
        case .real(let d): out += at + (try Self.literalReal(d))
        case .float(let f): out += at + (try Self.literalReal(Double(f)))
        case .bool(let b): out += swift ? (b ? "true" : "false") : (b ? "@YES" : "@NO")
        case .data(let d) where swift:
            out += "Data(bytes: [" + d.map { "0x" + ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) + "," }.joined() + "])"
        case .date(let d) where swift:
            out += "Date(timeIntervalSinceReferenceDate: \(try Self.literalReal(d.timeIntervalSinceReferenceDate)))"
        default:
            throw PlutilFailure("\(swift ? "Swift" : "Objective-C") literal syntax does not support \(value.kindName) values")
        }
    }

    /// A real in its shortest exact form; a literal cannot spell infinity or NaN.
    private static func literalReal(_ d: Double) throws(PlutilFailure) -> String {
        guard d.isFinite else { throw PlutilFailure("a literal cannot hold the real \(d)") }
        return d.description
    }

    /// A string literal: `"`, `\` and control characters escaped; in Swift as the dump's quoted strings
    /// (`\n`, `\u{1B}`), in C with octal escapes, which cannot run into the next character as hex escapes can.
    static func literalString(_ s: String, swift: Bool) -> String {
        if swift { return ValueFormatting.quoted(s) }
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let octal = String(scalar.value, radix: 8)
                out += "\\" + String(repeating: "0", count: 3 - octal.count) + octal
            default:
                out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
