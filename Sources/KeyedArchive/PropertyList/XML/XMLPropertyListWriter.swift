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
#elseif canImport(ucrt)
import ucrt
#endif

/// Writes Apple's XML property-list format, laid out as Apple's writer lays it out.
///
/// The output starts with the XML declaration, Apple's plist DOCTYPE and `<plist version="1.0">`, indents
/// with tabs, writes empty containers as `<array/>` and `<dict/>`, and wraps `<data>` in base64 lines of
/// 76 characters less 8 per level of indentation (indentation capped at 8 tabs), exactly as Foundation does.
/// Differences from Foundation, and what XML cannot keep:
///
/// - Dictionary keys are written in the dictionary's stored order; Foundation sorts them. Reading a file that
///   Apple's writer produced and writing it again therefore reproduces it byte for byte.
/// - Reals are written as Apple writes them: 17 significant digits (`0.10000000000000001`, `3`, `1e+17`),
///   which always read back to the same `Double`; zero is `0.0`; `nan`, `+infinity` and `-infinity` as Apple
///   spells them. Negative zero is written `-0.0` (Foundation writes `0.0`, losing the sign). A NaN's sign and
///   payload are not kept.
/// - ``PropertyListValue/float(_:)`` values are written as `<real>` holding the same number; XML has no
///   4-byte real, so they read back as ``PropertyListValue/real(_:)``.
/// - Dates are written in whole seconds (`2001-01-01T00:00:00Z`), rounded down, as Apple's writer does:
///   sub-second precision is lost. Years before 1 use astronomical numbering (`0000`, `-001`). A date
///   that is not finite or lies beyond about 3 billion years is ``PropertyListError/Code/unrepresentable``.
/// - ``PropertyListValue/uid(_:)`` is written as `<dict><key>CF$UID</key><integer>n</integer></dict>`. UIDs are 32-bit
///   in the format: one above `UInt32.max` is written as given but reads back as that dictionary, not as a UID.
/// - Strings escape `&`, `<` and `>`; control characters other than tab and line feed (which XML 1.0 cannot
///   hold literally, and which XML parsers would otherwise alter, such as carriage return) are written as
///   numeric references (`&#13;`). Apple's parser and this package read them back; strict XML parsers such
///   as Python's `plistlib` reject references to control characters other than `&#9;`, `&#10;` and `&#13;`.
/// - Sets cannot be written: XML has no set. Writing one throws ``PropertyListError/Code/unrepresentable``.
/// - XML has no references, so a sub-tree that several containers share is written out in full each time.
///   A value that shares sub-trees so much that its document would exceed 16 times its distinct values
///   (plus 100,000 values) throws ``PropertyListError/Code/limitExceeded`` instead of expanding: 40 levels
///   of arrays each holding the next twice, a few hundred bytes in a binary property list, have 2^40 paths.
///
/// The writer is iterative, so values of any depth are written without exhausting the stack. Each level
/// is indented by a tab, as Apple's writer does, down to 512 levels; deeper lines are not indented, so
/// the document grows linearly with the depth.
///
/// The corresponding Foundation API is `PropertyListSerialization.data(fromPropertyList:format:options:)`
/// with the `.xml` format.
public struct XMLPropertyListWriter: Sendable {
    /// A writer.
    public init() {}

    /// The XML encoding of `value`, as UTF-8 bytes.
    ///
    /// - Parameter value: the root value.
    /// - Returns: the document.
    /// - Throws: ``PropertyListError`` with code ``PropertyListError/Code/unrepresentable`` for a set or
    ///   a date XML cannot express, ``PropertyListError/Code/limitExceeded`` for a value whose shared
    ///   sub-trees would expand beyond the budget above; its location names the key path.
    public func write(_ value: PropertyListValue) throws -> Data {
        var output = XMLPropertyListOutput()
        output.append(XMLPropertyListOutput.header)
        try output.writeDocumentBody(value)
        output.append("</plist>\n")
        return Data(output.bytes)
    }
}

struct XMLPropertyListOutput {
    static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """

    var bytes: [UInt8] = []

    private struct Frame {
        var values: [PropertyListValue]
        var keys: [String]?
        var next = 0
        var depth: Int
    }
    private var stack: [Frame] = []
    private var budget = PropertyListExpansionBudget()

    init() { bytes.reserveCapacity(4096) }

    mutating func append(_ s: String) { bytes.append(contentsOf: s.utf8) }

    /// The deepest level that is indented (one tab per level, as Apple's writer does). Lines below it are
    /// not indented: the tabs of a million levels would fill half a terabyte.
    static let maximumIndentation = 512

    private mutating func indent(_ depth: Int) {
        guard depth <= Self.maximumIndentation else { return }
        for _ in 0..<depth { bytes.append(0x09) }
    }

    mutating func writeDocumentBody(_ root: PropertyListValue) throws {
        try writeValue(root, depth: 0)
        while let top = stack.last {
            let t = stack.count - 1
            if top.next == top.values.count {
                stack.removeLast()
                indent(top.depth)
                append(top.keys == nil ? "</array>\n" : "</dict>\n")
                continue
            }
            let i = top.next
            stack[t].next += 1
            if let keys = top.keys {
                indent(top.depth + 1)
                append("<key>")
                appendEscaped(keys[i])
                append("</key>\n")
            }
            try writeValue(top.values[i], depth: top.depth + 1)
        }
    }

    /// The key path of the value being written, for errors.
    private var keyPath: String {
        var path = ""
        for frame in stack {
            let i = frame.next - 1
            if let keys = frame.keys {
                path += path.isEmpty ? keys[i] : "." + keys[i]
            } else {
                path += "[\(i)]"
            }
        }
        return path
    }

    private mutating func writeValue(_ value: PropertyListValue, depth: Int) throws {
        indent(depth)
        switch value {
        case .string(let s):
            append("<string>")
            appendEscaped(s)
            append("</string>\n")
        case .integer(let n):
            append("<integer>\(n.description)</integer>\n")
        case .real(let d):
            append("<real>\(XMLPropertyListOutput.format(d))</real>\n")
        case .float(let f):
            append("<real>\(XMLPropertyListOutput.format(Double(f)))</real>\n")
        case .bool(let b):
            append(b ? "<true/>\n" : "<false/>\n")
        case .date(let date):
            guard let text = XMLPropertyListOutput.format(date) else {
                throw PropertyListError(.unrepresentable,
                                        "date \(date.timeIntervalSinceReferenceDate) cannot be written in XML",
                                        at: .init(keyPath: keyPath))
            }
            append("<date>\(text)</date>\n")
        case .data(let data):
            appendData(data, depth: depth)
        case .array(let elements):
            if elements.isEmpty {
                append("<array/>\n")
            } else {
                try spend(elements.elements, keys: nil)
                append("<array>\n")
                stack.append(Frame(values: elements.elements, keys: nil, depth: depth))
            }
        case .dictionary(let dictionary):
            if dictionary.isEmpty {
                append("<dict/>\n")
            } else {
                try spend(dictionary.values, keys: dictionary.keys)
                append("<dict>\n")
                stack.append(Frame(values: dictionary.values, keys: dictionary.keys, depth: depth))
            }
        case .uid(let uid):
            append("<dict>\n")
            indent(depth + 1)
            append("<key>CF$UID</key>\n")
            indent(depth + 1)
            append("<integer>\(uid.value)</integer>\n")
            indent(depth)
            append("</dict>\n")
        case .set:
            throw PropertyListError(.unrepresentable, "XML property lists have no sets",
                                    at: .init(keyPath: keyPath))
        }
    }

    /// Counts a container's elements against the expansion budget; throws once shared sub-trees repeat
    /// too often for the document to stay bounded.
    private mutating func spend(_ values: [PropertyListValue], keys: [String]?) throws {
        guard budget.visit(values, keys: keys) else {
            throw PropertyListError(
                .limitExceeded,
                "the value shares sub-trees that XML, which has no references, would repeat beyond the limit of "
                    + "\(PropertyListExpansionBudget.limitDescription); write it as a binary property list",
                at: .init(keyPath: keyPath))
        }
    }

    /// Appends `s` with `&`, `<`, `>` and control characters (except tab and line feed) escaped.
    private mutating func appendEscaped(_ s: String) {
        var s = s
        s.withUTF8 { utf8 in
            var runStart = 0
            for i in 0..<utf8.count {
                let c = utf8[i]
                let replacement: String
                switch c {
                case UInt8(ascii: "&"): replacement = "&amp;"
                case UInt8(ascii: "<"): replacement = "&lt;"
                case UInt8(ascii: ">"): replacement = "&gt;"
                case 0x09, 0x0A: continue
                case 0x00..<0x20: replacement = "&#\(c);"
                default: continue
                }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i]))
                append(replacement)
                runStart = i + 1
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count]))
        }
    }

    /// Appends `<data>` with base64 lines laid out as Foundation lays them out.
    private mutating func appendData(_ data: Data, depth: Int) {
        append("<data>\n")
        let lineIndent = min(depth, 8)
        let lineLength = 76 - 8 * lineIndent  // a multiple of 4: whole base64 quanta per line
        let bytesPerLine = lineLength / 4 * 3
        data.withUnsafeBytes { raw in
            let input = raw.bindMemory(to: UInt8.self)
            var i = 0
            while i < input.count {
                let lineEnd = min(i + bytesPerLine, input.count)
                indent(lineIndent)
                XMLPropertyListOutput.encodeBase64(UnsafeBufferPointer(rebasing: input[i..<lineEnd]), into: &bytes)
                bytes.append(0x0A)
                i = lineEnd
            }
        }
        indent(depth)
        append("</data>\n")
    }

    static func encodeBase64(_ input: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        let table = XMLBase64.alphabet
        var i = 0
        while i + 3 <= input.count {
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
            out.append(table[Int(n >> 18 & 63)])
            out.append(table[Int(n >> 12 & 63)])
            out.append(table[Int(n >> 6 & 63)])
            out.append(table[Int(n & 63)])
            i += 3
        }
        let rest = input.count - i
        if rest == 1 {
            let n = UInt32(input[i]) << 16
            out.append(table[Int(n >> 18 & 63)])
            out.append(table[Int(n >> 12 & 63)])
            out.append(contentsOf: [UInt8(ascii: "="), UInt8(ascii: "=")])
        } else if rest == 2 {
            let n = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
            out.append(table[Int(n >> 18 & 63)])
            out.append(table[Int(n >> 12 & 63)])
            out.append(table[Int(n >> 6 & 63)])
            out.append(UInt8(ascii: "="))
        }
    }

    /// A real as Apple's XML writer spells it: `printf("%.17g")`, `0.0` for zero, `nan`, `+infinity`, `-infinity`.
    static func format(_ d: Double) -> String {
        if d.isNaN { return "nan" }
        if d.isInfinite { return d < 0 ? "-infinity" : "+infinity" }
        if d == 0 { return d.sign == .minus ? "-0.0" : "0.0" }
        var buffer = [CChar](repeating: 0, count: 40)
        let n = buffer.withUnsafeMutableBufferPointer { p in
            withVaList([d]) { vsnprintf(p.baseAddress, p.count, "%.17g", $0) }
        }
        guard n > 0, n < buffer.count else { return d.description }
        // The C library formats in the "C" locale unless the process changed it; undo a decimal comma.
        let bytes = buffer.prefix(Int(n)).map { $0 == CChar(UInt8(ascii: ",")) ? UInt8(ascii: ".") : UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A date as `YYYY-MM-DDTHH:MM:SSZ` (whole seconds, rounded down), or `nil` if out of range.
    static func format(_ date: Date) -> String? {
        let t = date.timeIntervalSinceReferenceDate
        guard t.isFinite, abs(t) < 1e17 else { return nil }
        let seconds = Int64(t.rounded(.down))
        var (days, rem) = seconds.quotientAndRemainder(dividingBy: 86_400)
        if rem < 0 {
            days -= 1
            rem += 86_400
        }
        let civil = XMLDateArithmetic.civilFromDays(days + XMLDateArithmetic.daysFromCivil(year: 2001, month: 1, day: 1))
        func pad(_ n: Int64, _ width: Int) -> String {
            let s = String(n)
            return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
        }
        let year = civil.year >= 0 ? pad(civil.year, 4) : "-" + pad(-civil.year, 3)
        return "\(year)-\(pad(civil.month, 2))-\(pad(civil.day, 2))T\(pad(rem / 3600, 2)):\(pad(rem / 60 % 60, 2)):\(pad(rem % 60, 2))Z"
    }
}
