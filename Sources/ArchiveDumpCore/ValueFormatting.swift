#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// How scalar values are spelled in the dump's outputs.
public enum ValueFormatting {
    /// The seconds between 1970-01-01 and 2001-01-01 (the property-list date epoch).
    static let epochOffset: Double = 978_307_200

    /// `"text"` with `"`, `\` and every control character escaped (`\n`, `\t`, `\u{1B}`), so a
    /// hostile string cannot drive the terminal.
    public static func quoted(_ s: String) -> String {
        var out = "\""
        out.reserveCapacity(s.utf8.count + 2)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
                    || scalar.value == 0x2028 || scalar.value == 0x2029 {
                    out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
        return out
    }

    /// A JSON string literal (RFC 8259): `"`, `\` and control characters escaped, everything else as is.
    public static func jsonString(_ s: String) -> String {
        var out = "\""
        out.reserveCapacity(s.utf8.count + 2)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
        return out
    }

    /// A JSON number that always has a fraction or an exponent and reads back to the same double
    /// (`1.0`, `0.1`, `1e+100`), or `{"$real": "nan"}` / `"inf"` / `"-inf"` for the values JSON lacks.
    public static func jsonReal(_ d: Double) -> String {
        if d.isNaN { return "{\"$real\":\"nan\"}" }
        if d.isInfinite { return d < 0 ? "{\"$real\":\"-inf\"}" : "{\"$real\":\"inf\"}" }
        // Swift's description is the shortest representation that round-trips, and always has "." or "e".
        let s = d.description
        if s.contains(".") || s.contains("e") { return s }
        return s + ".0"
    }

    /// A real as the text outputs show it: shortest round-trip form, `nan`, `+infinity`, `-infinity`.
    public static func textReal(_ d: Double) -> String {
        if d.isNaN { return "nan" }
        if d.isInfinite { return d < 0 ? "-infinity" : "+infinity" }
        return d.description
    }

    /// ISO 8601 in UTC (`2024-05-01T10:00:00Z`, with up to six fraction digits when the time has them),
    /// or `nil` for times that are not finite or lie beyond ±30,000 years.
    public static func iso8601(sinceReferenceDate t: Double) -> String? {
        guard t.isFinite, abs(t) < 1e12 else { return nil }
        let unixMicros = ((t + epochOffset) * 1_000_000).rounded()
        let micros = Int64(unixMicros)
        let seconds = floorDivide(micros, 1_000_000)
        let fraction = micros - seconds * 1_000_000
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civilDate(daysSince1970: days)
        var out = year < 0 ? "-" + pad(-year, 4) : pad(year, 4)
        out += "-" + pad(month, 2) + "-" + pad(day, 2)
        out += "T" + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if fraction != 0 {
            var digits = pad(fraction, 6)
            while digits.hasSuffix("0") { digits.removeLast() }
            out += "." + digits
        }
        return out + "Z"
    }

    /// Date as the text outputs show it: ISO 8601, or the raw seconds when out of range.
    public static func textDate(_ date: Date) -> String {
        let t = date.timeIntervalSinceReferenceDate
        return iso8601(sinceReferenceDate: t) ?? "date(\(textReal(t)) s since 2001-01-01)"
    }

    /// `{length = 5, bytes = 0x68656c6c6f}`, as plutil shows data; long data shows its first 24 and
    /// last 8 bytes.
    public static func textData(_ data: Data) -> String {
        let count = data.count
        var hex = "0x"
        func append(_ bytes: Data.SubSequence) {
            for b in bytes {
                let h = String(b, radix: 16)
                if h.count == 1 { hex += "0" }
                hex += h
            }
        }
        if count <= 32 {
            append(data[...])
        } else {
            append(data.prefix(24))
            hex += " ... "
            append(data.suffix(8))
        }
        return "{length = \(count), bytes = \(hex)}"
    }

    /// A string as is when every character is printable, quoted and escaped otherwise.
    public static func printable(_ s: String) -> String {
        let plain = !s.isEmpty && s.unicodeScalars.allSatisfy {
            $0.value >= 0x20 && $0.value != 0x7F && !(0x80...0x9F).contains($0.value)
                && $0.value != 0x2028 && $0.value != 0x2029
        }
        return plain ? s : quoted(s)
    }

    /// A UUID in its canonical upper-case form.
    public static func uuidString(_ uuid: UUID) -> String { uuid.uuidString }

    private static func pad(_ n: Int64, _ width: Int) -> String {
        let s = String(n)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    /// Year, month, day of the proleptic Gregorian calendar for a day count from 1970-01-01
    /// (Howard Hinnant's civil-from-days algorithm).
    private static func civilDate(daysSince1970: Int64) -> (Int64, Int64, Int64) {
        let z = daysSince1970 + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// The stored value of a date, exactly: seconds since 2001-01-01 as a JSON number.
    static func jsonDate(_ date: Date) -> String {
        let t = date.timeIntervalSinceReferenceDate
        let iso = iso8601(sinceReferenceDate: t).map(jsonString) ?? "null"
        return "{\"$date\":\(iso),\"$time\":\(jsonReal(t))}"
    }

    /// A scalar property-list value as JSON (containers are handled by the renderers).
    static func jsonScalar(_ v: PropertyListValue) -> String {
        switch v {
        case .string(let s): return jsonString(s)
        case .integer(let i): return i.description
        case .real(let d): return jsonReal(d)
        case .float(let f): return jsonReal(Double(f))
        case .bool(let b): return b ? "true" : "false"
        case .date(let d): return jsonDate(d)
        case .data(let d): return "{\"$data\":\"" + d.base64EncodedString() + "\"}"
        case .uid(let u): return "{\"$uid\":\(u.value)}"
        case .array(let a): return a.isEmpty ? "[]" : "[...]"
        case .set(let a): return a.isEmpty ? "[]" : "[...]"
        case .dictionary(let d): return d.isEmpty ? "{}" : "{...}"
        }
    }

    /// A scalar property-list value as the text outputs show it (containers are handled by the renderers).
    static func textScalar(_ v: PropertyListValue) -> String {
        switch v {
        case .string(let s): return quoted(s)
        case .integer(let i): return i.description
        case .real(let d): return textReal(d)
        case .float(let f): return f.isFinite ? f.description : textReal(Double(f))
        case .bool(let b): return b ? "true" : "false"
        case .date(let d): return textDate(d)
        case .data(let d): return textData(d)
        case .uid(let u): return u.description
        case .array(let a): return a.isEmpty ? "[]" : "[...]"
        case .set(let a): return a.isEmpty ? "{()}" : "{(...)}"
        case .dictionary(let d): return d.isEmpty ? "{}" : "{...}"
        }
    }
}
