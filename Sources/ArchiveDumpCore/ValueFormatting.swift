#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

/// How scalar values are spelled in the dump's outputs.
package enum ValueFormatting {
    /// The seconds between 1970-01-01 and 2001-01-01 (the property-list date epoch).
    static let epochOffset: Double = 978_307_200

    /// `"text"` with `"`, `\` and every control character escaped (`\n`, `\t`, `\u{1B}`, C1 controls,
    /// U+2028/U+2029), so a hostile string cannot drive the terminal.
    package static func quoted(_ s: String) -> String {
        var bytes: [UInt8] = []
        appendEscaped(s, json: false, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A value type's description as the tree shows it after the object's class name: without the
    /// leading class name the descriptions start with (`"NSValue range {2, 5}"` after `NSValue` is
    /// `"range {2, 5}"`; `"NSIndexSet (1 index) [3]"` after `NSMutableIndexSet` is `"(1 index) [3]"`).
    package static func decodedValueText(_ description: String, className: String) -> String {
        let immutable = className.hasPrefix("NSMutable") ? "NS" + className.dropFirst("NSMutable".count) : className
        for name in [className, immutable] where !name.isEmpty && description.hasPrefix(name + " ") {
            return String(description.dropFirst(name.count + 1))
        }
        return description
    }

    /// A JSON string literal (RFC 8259): `"`, `\` and control characters escaped, everything else as is.
    package static func jsonString(_ s: String) -> String {
        var bytes: [UInt8] = []
        appendEscaped(s, json: true, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `s` in double quotes, escaped for JSON or for the text outputs, straight into `buffer`.
    ///
    /// Works on the UTF-8 bytes: runs without anything to escape are copied in one go.
    static func appendEscaped(_ s: String, json: Bool, to buffer: inout [UInt8]) {
        buffer.append(0x22)
        var s = s
        s.withUTF8 { u in
            let n = u.count
            var i = 0, runStart = 0
            while i < n {
                let b = u[i]
                var scalar: UInt32 = 0, length = 0
                if b < 0x20 || b == 0x22 || b == 0x5C || (!json && b == 0x7F) {
                    scalar = UInt32(b); length = 1
                } else if !json, b == 0xC2, i + 1 < n, (0x80...0x9F).contains(u[i + 1]) {
                    scalar = UInt32(u[i + 1]); length = 2
                } else if !json, b == 0xE2, i + 2 < n, u[i + 1] == 0x80, u[i + 2] == 0xA8 || u[i + 2] == 0xA9 {
                    scalar = 0x2000 + UInt32(u[i + 2]) - 0x80; length = 3
                }
                if length == 0 {
                    i += 1
                    continue
                }
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: u[runStart..<i]))
                switch scalar {
                case 0x22: buffer.append(contentsOf: [0x5C, 0x22])
                case 0x5C: buffer.append(contentsOf: [0x5C, 0x5C])
                case 0x0A: buffer.append(contentsOf: [0x5C, 0x6E])
                case 0x0D: buffer.append(contentsOf: [0x5C, 0x72])
                case 0x09: buffer.append(contentsOf: [0x5C, 0x74])
                case 0x08 where json: buffer.append(contentsOf: [0x5C, 0x62])
                case 0x0C where json: buffer.append(contentsOf: [0x5C, 0x66])
                default:
                    if json {
                        let hex = String(scalar, radix: 16)
                        buffer.append(contentsOf: Array("\\u".utf8) + Array(repeating: 0x30, count: 4 - hex.count) + Array(hex.utf8))
                    } else {
                        buffer.append(contentsOf: Array("\\u{".utf8) + Array(String(scalar, radix: 16, uppercase: true).utf8) + [0x7D])
                    }
                }
                i += length
                runStart = i
            }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: u[runStart..<n]))
        }
        buffer.append(0x22)
    }

    /// A JSON number that always has a fraction or an exponent and reads back to the same double
    /// (`1.0`, `0.1`, `1e+100`), or `{"$real": "nan"}` / `"inf"` / `"-inf"` for the values JSON lacks.
    package static func jsonReal(_ d: Double) -> String {
        if d.isNaN { return "{\"$real\":\"nan\"}" }
        if d.isInfinite { return d < 0 ? "{\"$real\":\"-inf\"}" : "{\"$real\":\"inf\"}" }
        // Swift's description is the shortest representation that round-trips, and always has "." or "e".
        let s = d.description
        if s.contains(".") || s.contains("e") { return s }
        return s + ".0"
    }

    /// A real as the text outputs show it: shortest round-trip form, `nan`, `+infinity`, `-infinity`.
    package static func textReal(_ d: Double) -> String {
        if d.isNaN { return "nan" }
        if d.isInfinite { return d < 0 ? "-infinity" : "+infinity" }
        return d.description
    }

    /// ISO 8601 in UTC (`2024-05-01T10:00:00Z`, with up to six fraction digits when the time has them),
    /// or `nil` for times that are not finite or lie beyond ±30,000 years.
    package static func iso8601(sinceReferenceDate t: Double) -> String? {
        guard t.isFinite, abs(t) < 1e12 else { return nil }
        let unixMicros = ((t + epochOffset) * 1_000_000).rounded()
        let micros = Int64(unixMicros)
        let seconds = floorDivide(micros, 1_000_000)
        let fraction = micros - seconds * 1_000_000
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = XMLDateArithmetic.civilFromDays(days)
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
    package static func textDate(_ date: Date) -> String {
        let t = date.timeIntervalSinceReferenceDate
        return iso8601(sinceReferenceDate: t) ?? "date(\(textReal(t)) s since 2001-01-01)"
    }

    /// `{length = 5, bytes = 0x68656c6c6f}`, as plutil shows data; long data shows its first 24 and
    /// last 8 bytes.
    package static func textData(_ data: Data) -> String {
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

    /// A key as is when it is plain (letters, digits, `._$-`), quoted otherwise.
    package static func bareKey(_ k: String) -> String {
        let plain = !k.isEmpty && k.utf8.allSatisfy { b in
            (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A)
                || b == 0x2E || b == 0x5F || b == 0x24 || b == 0x2D
        }
        return plain ? k : quoted(k)
    }

    /// A string as is when every character is printable, quoted and escaped otherwise.
    package static func printable(_ s: String) -> String {
        let plain = !s.isEmpty && s.unicodeScalars.allSatisfy {
            $0.value >= 0x20 && $0.value != 0x7F && !(0x80...0x9F).contains($0.value)
                && $0.value != 0x2028 && $0.value != 0x2029
        }
        return plain ? s : quoted(s)
    }

    /// One line of text for messages: control characters (newlines included) escaped, nothing quoted, so
    /// an error that quotes the input stays on one line and cannot drive the terminal.
    package static func sanitizedLine(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for scalar in s.unicodeScalars {
            let v = scalar.value
            if v < 0x20 || (0x7F...0x9F).contains(v) || v == 0x2028 || v == 0x2029 {
                out += "\\u{" + String(v, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// A UUID in its canonical upper-case form.
    package static func uuidString(_ uuid: UUID) -> String { uuid.uuidString }

    private static func pad(_ n: Int64, _ width: Int) -> String {
        let s = String(n)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
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
