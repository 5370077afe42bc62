#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// XMLPropertyListScanner parsing the content of <integer>, <real>, <date> and <data>.
extension XMLPropertyListScanner {
    /// Parses `<integer>` content: optional sign, decimal or `0x` hexadecimal digits, in `Int64.min ... UInt64.max`.
    ///
    /// Foundation on Linux rejects an empty integer, a stray character and a value past 64 bits; plistlib
    /// reads any size (Python integers).
    func parseInteger(_ start: Int, _ stop: Int) throws -> PropertyListInteger {
        var (a, b) = trimmed(start, stop)
        guard a < b else { throw error("empty <integer>", at: start) }
        var negative = false
        if bytes[a] == UInt8(ascii: "-") || bytes[a] == UInt8(ascii: "+") {
            negative = bytes[a] == UInt8(ascii: "-")
            a += 1
            while a < b, XMLPropertyListScanner.isWhitespace(bytes[a]) { a += 1 }
        }
        var radix: UInt64 = 10
        if b - a >= 2, bytes[a] == UInt8(ascii: "0"), bytes[a + 1] | 0x20 == UInt8(ascii: "x") {
            radix = 16
            a += 2
        }
        guard a < b else { throw error("<integer> has no digits", at: start) }
        var magnitude: UInt64 = 0
        for i in a..<b {
            guard let d = XMLPropertyListScanner.digitValue(bytes[i]), UInt64(d) < radix else {
                throw error("bad character in <integer>", at: i)
            }
            let (m, o1) = magnitude.multipliedReportingOverflow(by: radix)
            let (s, o2) = m.addingReportingOverflow(UInt64(d))
            guard !o1, !o2 else { throw error("<integer> overflows 64 bits", at: start) }
            magnitude = s
        }
        if negative {
            if magnitude <= UInt64(Int64.max) { return PropertyListInteger(-Int64(magnitude)) }
            if magnitude == UInt64(Int64.max) + 1 { return PropertyListInteger(Int64.min) }
            throw error("<integer> below Int64.min", at: start)
        }
        return PropertyListInteger(magnitude)
    }

    /// Parses `<real>` content: decimal notation or `nan`/`inf`/`infinity` (any case, optionally signed).
    /// Foundation on Linux and plistlib both reject anything else.
    func parseReal(_ start: Int, _ stop: Int) throws -> Double {
        let (a, b) = trimmed(start, stop)
        guard a < b else { throw error("empty <real>", at: start) }
        var i = a
        var sign: Double = 1
        if bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") {
            if bytes[i] == UInt8(ascii: "-") { sign = -1 }
            i += 1
        }
        // Special values.
        let word = UnsafeBufferPointer(rebasing: bytes[i..<b])
        func isWord(_ s: StaticString) -> Bool {
            guard word.count == s.utf8CodeUnitCount else { return false }
            for k in 0..<word.count where word[k] | 0x20 != s.utf8Start[k] { return false }
            return true
        }
        if isWord("nan") { return .nan }
        if isWord("inf") || isWord("infinity") { return sign * .infinity }
        // Decimal: digits [. digits] [e [sign] digits], at least one mantissa digit.
        var mantissaDigits = 0
        while i < b, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1; mantissaDigits += 1 }
        if i < b, bytes[i] == UInt8(ascii: ".") {
            i += 1
            while i < b, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1; mantissaDigits += 1 }
        }
        guard mantissaDigits > 0 else { throw error("misformatted <real>", at: start) }
        if i < b, bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < b, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            var exponentDigits = 0
            while i < b, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") { i += 1; exponentDigits += 1 }
            guard exponentDigits > 0 else { throw error("misformatted <real>: exponent has no digits", at: start) }
        }
        guard i == b else { throw error("misformatted <real>", at: i) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[a..<b]), as: UTF8.self)
        guard let value = Double(text) else { throw error("misformatted <real>", at: start) }
        return value
    }

    /// Parses `<date>` content: `[-]YYYY-MM-DDTHH:MM:SSZ`, proleptic Gregorian, UTC.
    ///
    /// plistlib rejects a field out of range ("month must be in 1..12") and a date without its `Z`;
    /// Foundation on Linux rejects the latter and rolls an out-of-range field over.
    func parseDate(_ start: Int, _ stop: Int) throws -> Date {
        let (a, b) = trimmed(start, stop)
        var i = a
        func bad(_ why: String) -> PropertyListError { error("bad <date> (\(why)); expected YYYY-MM-DDTHH:MM:SSZ", at: start) }
        var negative = false
        if i < b, bytes[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        var year: Int64 = 0
        var yearDigits = 0
        while i < b, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") {
            year = year * 10 + Int64(bytes[i] - UInt8(ascii: "0"))
            yearDigits += 1
            i += 1
            if yearDigits > 11 { throw bad("year has more than 11 digits") }
        }
        guard yearDigits > 0 else { throw bad("no year") }
        if negative { year = -year }
        func expect(_ c: Character) throws {
            guard i < b, bytes[i] == UInt8(ascii: c.unicodeScalars.first ?? "?") else { throw bad("expected '\(c)'") }
            i += 1
        }
        func twoDigits(_ what: String) throws -> Int64 {
            guard i + 1 < b, let d1 = XMLPropertyListScanner.decimal(bytes[i]),
                  let d2 = XMLPropertyListScanner.decimal(bytes[i + 1])
            else { throw bad("\(what) is not two digits") }
            i += 2
            return d1 * 10 + d2
        }
        try expect("-")
        let month = try twoDigits("month")
        try expect("-")
        let day = try twoDigits("day")
        try expect("T")
        let hour = try twoDigits("hour")
        try expect(":")
        let minute = try twoDigits("minute")
        try expect(":")
        let second = try twoDigits("second")
        try expect("Z")
        guard i == b else { throw bad("text after 'Z'") }
        guard (1...12).contains(month) else { throw bad("month \(month)") }
        guard day >= 1, day <= XMLDateArithmetic.daysInMonth(year: year, month: month) else { throw bad("day \(day)") }
        guard hour <= 23 else { throw bad("hour \(hour)") }
        guard minute <= 59 else { throw bad("minute \(minute)") }
        guard second <= 59 else { throw bad("second \(second)") }
        let days = XMLDateArithmetic.daysFromCivil(year: year, month: month, day: day)
            - XMLDateArithmetic.daysFromCivil(year: 2001, month: 1, day: 1)
        // |days| < 4e13 for 11-digit years, so this cannot overflow Int64.
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
        return Date(timeIntervalSinceReferenceDate: Double(seconds))
    }

    static func decimal(_ c: UInt8) -> Int64? {
        c >= UInt8(ascii: "0") && c <= UInt8(ascii: "9") ? Int64(c - UInt8(ascii: "0")) : nil
    }

    /// Decodes `<data>` content: base64 with whitespace ignored; other characters are errors.
    func decodeBase64(_ start: Int, _ stop: Int) throws -> Data {
        var out = [UInt8]()
        out.reserveCapacity((stop - start) / 4 * 3 + 3)
        var accumulator: UInt32 = 0
        var count = 0  // significant characters in the current quantum
        var padding = 0
        for i in start..<stop {
            let c = bytes[i]
            if XMLPropertyListScanner.isWhitespace(c) { continue }
            if c == UInt8(ascii: "=") {
                padding += 1
                guard padding <= 2, count >= 2 else { throw error("bad base64 padding in <data>", at: i) }
                continue
            }
            let v = XMLBase64.decodeTable[Int(c)]
            // plistlib (binascii.a2b_base64, not strict) and CFPropertyList.c's base64 decoder skip a
            // character outside the alphabet; Foundation on Linux returns empty data. Lenient: skip it.
            if v < 0, isLenient { continue }
            guard v >= 0 else {
                throw error("bad base64 character '\(Unicode.Scalar(c).escaped(asASCII: true))' in <data>", at: i)
            }
            if padding > 0 {
                // Text after a padded quantum: plistlib stops at the padding, Foundation on Linux decodes on
                // (a second base64 run). No reader refuses it; lenient decodes on, as Foundation does.
                guard isLenient, count >= 2 else { throw error("base64 text after '=' padding in <data>", at: i) }
                out.append(UInt8(truncatingIfNeeded: accumulator >> (count == 2 ? 4 : 10)))
                if count == 3 { out.append(UInt8(truncatingIfNeeded: accumulator >> 2)) }
                (accumulator, count, padding) = (0, 0, 0)
            }
            accumulator = accumulator << 6 | UInt32(v)
            count += 1
            if count == 4 {
                out.append(UInt8(truncatingIfNeeded: accumulator >> 16))
                out.append(UInt8(truncatingIfNeeded: accumulator >> 8))
                out.append(UInt8(truncatingIfNeeded: accumulator))
                accumulator = 0
                count = 0
            }
        }
        switch count {
        case 0:
            guard padding == 0 else { throw error("bad base64 padding in <data>", at: start) }
        case 2:
            guard padding == 0 || padding == 2 else { throw error("bad base64 padding in <data>", at: start) }
            out.append(UInt8(truncatingIfNeeded: accumulator >> 4))
        case 3:
            guard padding <= 1 else { throw error("bad base64 padding in <data>", at: start) }
            out.append(UInt8(truncatingIfNeeded: accumulator >> 10))
            out.append(UInt8(truncatingIfNeeded: accumulator >> 2))
        default:
            throw error("truncated base64 in <data> (a lone final character)", at: start)
        }
        return Data(out)
    }
}
