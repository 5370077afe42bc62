#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Typed JSON: a property list written as JSON without losing what JSON cannot say by itself.
//
// - A string, a Boolean and an array are JSON's own; a dictionary is a JSON object, its keys in stored order.
// - An integer is a JSON number without a point or exponent (`42`, `-7`, `18446744073709551615`); a real
//   (8 bytes) always has one (`1.0`, `2.5e-300`), so the two stay apart.
// - `{"$real": "nan"}`, `"inf"`, `"-inf"` (or `"0x7ff8000000000001"`, the 16 hex digits of any other NaN):
//   reals JSON has no number for.
// - `{"$float": 1.5}`: a real stored in 4 bytes (the number, `"nan"`, `"inf"`, `"-inf"`, or 8 hex digits).
// - `{"$date": "2024-05-01T12:00:00Z"}`: a date, ISO 8601 in UTC, with a fraction of a second when it has one
//   (`"...:00.25Z"`, the shortest digits that give back the same Double); a date outside the years 1-9999,
//   a negative zero or a fraction JSON cannot write in plain digits is the number of seconds since
//   2001-01-01T00:00:00Z, a real (`{"$date": -0.0}`), or one of the strings of `$real`.
// - `{"$data": "AAEC"}`: bytes, base64 (standard alphabet, padded).
// - `{"$uid": 7}`: a keyed archive's UID.
// - `{"$set": [...]}`: a set.
// - `{"$dictionary": {...}}`: a dictionary whose only key is one of these markers, so that it is not read as
//   the marker (any other dictionary, `$archiver` and `$top` included, is a plain object).
//
// JSON's `null` has no property-list meaning and is refused, as are a marker object with anything else
// beside its key and a value of the wrong kind for its marker.

/// The marker keys of typed JSON.
enum TypedJSONMarker {
    static let real = "$real"
    static let float = "$float"
    static let date = "$date"
    static let data = "$data"
    static let uid = "$uid"
    static let set = "$set"
    static let dictionary = "$dictionary"
    static let all: Set<String> = [real, float, date, data, uid, set, dictionary]
}

extension PropertyListValue {
    /// The value as typed JSON: JSON that ``init(typedJSON:options:)`` reads back to an equal value, dates,
    /// data, UIDs, sets and the difference between integers and reals kept.
    ///
    /// The shape:
    /// - a string, a Boolean and an array are JSON's own; a dictionary is a JSON object, keys in stored order;
    /// - an integer is a number without a point or exponent (`42`); a real (8 bytes) always has one (`1.0`);
    /// - `{"$real": "nan"}` (`"inf"`, `"-inf"`, or `"0x"` and the 16 hex digits of another NaN's bits): a real
    ///   JSON has no number for;
    /// - `{"$float": 1.5}`: a real stored in 4 bytes (non-finite ones as for `$real`, 8 hex digits);
    /// - `{"$date": "2024-05-01T12:00:00.25Z"}`: a date in UTC, with the shortest fraction of a second that
    ///   gives back the same value; outside the years 1-9999 (or for -0.0) the seconds since
    ///   2001-01-01T00:00:00Z as a real;
    /// - `{"$data": "AAEC"}`: bytes, base64; `{"$uid": 7}`: a keyed archive's UID; `{"$set": [...]}`: a set;
    /// - `{"$dictionary": {...}}`: a dictionary whose only key is one of these markers (any other dictionary,
    ///   `$archiver` and `$top` included, is a plain object).
    ///
    /// A keyed archive written so keeps its `$objects` and UIDs as they are stored, so a `jq` edit of the JSON
    /// can be read back as the archive. This is not Apple's `plutil -convert json`, which refuses dates, data
    /// and UIDs.
    /// - Parameter prettyPrinted: whether to indent nested values by two spaces, one per line.
    /// - Returns: the JSON text, UTF-8.
    public func typedJSONData(prettyPrinted: Bool = false) -> Data {
        var writer = TypedJSONWriter(prettyPrinted: prettyPrinted)
        writer.write(self)
        return Data(writer.output.utf8)
    }

    /// Reads typed JSON (``typedJSONData(prettyPrinted:)``) back into a property-list value.
    ///
    /// - Parameters:
    ///   - data: UTF-8 JSON text.
    ///   - options: `maximumDepth` bounds the nesting of arrays and objects (default 512).
    /// - Throws: ``PropertyListError`` with code ``PropertyListError/Code/invalidJSON``: the byte offset of
    ///   text that is not JSON (or nests too deep), or the key path of a value that is not typed JSON (a
    ///   `null`, a `$uid` that is not an integer of 0 ... 2^32 - 1, bad base64, an unreadable date, a number
    ///   outside the 64-bit range, a marker object with another key beside its own).
    public init(typedJSON data: Data, options: PropertyListReadingOptions = .init()) throws {
        var scanner = JSONScanner(data, maximumDepth: options.maximumDepth)
        self = try TypedJSONDecoding.value(scanner.parse(), path: [])
    }
}

/// Typed JSON to property-list values.
enum TypedJSONDecoding {
    static func error(_ message: String, _ path: [String]) -> PropertyListError {
        PropertyListError(.invalidJSON, message, at: .init(keyPath: path.isEmpty ? "(root)" : ArchiveKeyPath(components: path).description))
    }

    /// The value `json` stands for (recursion bounded by the scanner's depth limit).
    static func value(_ json: JSONValue, path: [String]) throws -> PropertyListValue {
        switch json {
        case .null: throw error("null has no property-list meaning", path)
        case .bool(let b): return .bool(b)
        case .string(let s): return .string(s)
        case .number(let text): return try number(text, path)
        case .array(let items):
            var out: [PropertyListValue] = []
            out.reserveCapacity(items.count)
            for (i, item) in items.enumerated() { out.append(try value(item, path: path + [String(i)])) }
            return .array(out)
        case .object(let entries):
            if entries.count == 1, TypedJSONMarker.all.contains(entries[0].key) {
                return try marked(entries[0].key, entries[0].value, path: path + [entries[0].key])
            }
            return .dictionary(try dictionary(entries, path: path))
        }
    }

    static func dictionary(_ entries: [(key: String, value: JSONValue)], path: [String]) throws -> PropertyListDictionary {
        var out = PropertyListDictionary()
        for (key, item) in entries { out[key] = try value(item, path: path + [key]) }
        return out
    }

    /// An integer (no point, no exponent) or a real.
    static func number(_ text: String, _ path: [String]) throws -> PropertyListValue {
        if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
            if let i = Int64(text) { return .integer(PropertyListInteger(i)) }
            if let u = UInt64(text) { return .integer(PropertyListInteger(u)) }
            throw error("the integer \(text) is outside the property-list range (Int64.min ... UInt64.max)", path)
        }
        return .real(try real(.number(text), path))
    }

    /// A real: a JSON number, or `"nan"`, `"inf"`, `"-inf"`, `"0x<16 hex digits>"`.
    static func real(_ json: JSONValue, _ path: [String]) throws -> Double {
        switch json {
        case .number(let text):
            guard let d = Double(text) else { throw error("\(text) is not a real", path) }
            return d
        case .string("nan"): return .nan
        case .string("inf"): return .infinity
        case .string("-inf"): return -.infinity
        case .string(let s) where s.hasPrefix("0x") && s.count == 18:
            guard let bits = UInt64(s.dropFirst(2), radix: 16) else { throw error("\(s) is not a real's bit pattern", path) }
            return Double(bitPattern: bits)
        default: throw error("expected a real (a number, \"nan\", \"inf\" or \"-inf\"), found a \(json.kindName)", path)
        }
    }

    private static func marked(_ marker: String, _ json: JSONValue, path: [String]) throws -> PropertyListValue {
        switch marker {
        case TypedJSONMarker.real:
            return .real(try real(json, path))
        case TypedJSONMarker.float:
            switch json {
            case .number(let text):
                guard let f = Float(text) else { throw error("\(text) is not a 4-byte real", path) }
                return .float(f)
            case .string("nan"): return .float(.nan)
            case .string("inf"): return .float(.infinity)
            case .string("-inf"): return .float(-.infinity)
            case .string(let s) where s.hasPrefix("0x") && s.count == 10:
                guard let bits = UInt32(s.dropFirst(2), radix: 16) else { throw error("\(s) is not a 4-byte real's bit pattern", path) }
                return .float(Float(bitPattern: bits))
            default:
                throw error("expected a 4-byte real (a number, \"nan\", \"inf\" or \"-inf\"), found a \(json.kindName)", path)
            }
        case TypedJSONMarker.date:
            return .date(try TypedJSONDate.date(json, path: path))
        case TypedJSONMarker.data:
            guard case .string(let text) = json, let data = Data(base64Encoded: text) else {
                throw error("$data must be a base64 string", path)
            }
            return .data(data)
        case TypedJSONMarker.uid:
            guard case .number(let text) = json, let value = UInt64(text), value <= UInt64(UInt32.max) else {
                throw error("$uid must be an integer of 0 ... \(UInt32.max) (CoreFoundation's UID range), found \(json.kindName) \(Self.describe(json))", path)
            }
            return .uid(UID(value))
        case TypedJSONMarker.set:
            guard case .array(let items) = json else { throw error("$set must be an array, found a \(json.kindName)", path) }
            var out: [PropertyListValue] = []
            out.reserveCapacity(items.count)
            for (i, item) in items.enumerated() { out.append(try value(item, path: path + [String(i)])) }
            return .set(out)
        default:
            guard case .object(let entries) = json else { throw error("$dictionary must be an object, found a \(json.kindName)", path) }
            return .dictionary(try dictionary(entries, path: path))
        }
    }

    static func describe(_ json: JSONValue) -> String {
        switch json {
        case .number(let t): return t
        case .string(let s): return "\"\(s.prefix(40))\""
        default: return ""
        }
    }
}

/// Typed JSON dates: ISO 8601 in UTC with the shortest exact fraction, or seconds since 2001.
enum TypedJSONDate {
    /// The `$date` payload for `date`.
    static func text(_ date: Date) -> String {
        let t = date.timeIntervalSinceReferenceDate
        if t.isFinite, !(t == 0 && t.sign == .minus), abs(t) < 1e15 {
            let whole = t.rounded(.down)
            let fraction = t - whole
            let digits = fraction == 0 ? "" : String(describing: fraction)
            if let iso = XMLPropertyListOutput.format(Date(timeIntervalSinceReferenceDate: whole)), iso.count == 20,
               iso.first?.isNumber == true, iso.prefix(4) != "0000", digits.isEmpty || (digits.hasPrefix("0.") && !digits.contains("e")) {
                return "\"" + iso.dropLast() + digits.dropFirst() + "Z\""
            }
        }
        return TypedJSONWriter.realText(t)
    }

    /// The date a `$date` payload stands for.
    static func date(_ json: JSONValue, path: [String]) throws -> Date {
        guard case .string(let text) = json, text.first?.isNumber == true else {
            return Date(timeIntervalSinceReferenceDate: try TypedJSONDecoding.real(json, path))
        }
        let bytes = Array(text.utf8)
        func field(_ from: Int, _ count: Int) -> Int64? {
            guard from + count <= bytes.count else { return nil }
            var value: Int64 = 0
            for b in bytes[from ..< from + count] {
                guard b >= UInt8(ascii: "0"), b <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(b - UInt8(ascii: "0"))
            }
            return value
        }
        func separator(_ at: Int, _ c: Character) -> Bool { at < bytes.count && bytes[at] == c.asciiValue }
        guard bytes.count >= 20, let year = field(0, 4), separator(4, "-"), let month = field(5, 2), separator(7, "-"),
              let day = field(8, 2), separator(10, "T"), let hour = field(11, 2), separator(13, ":"),
              let minute = field(14, 2), separator(16, ":"), let second = field(17, 2), bytes.last == UInt8(ascii: "Z"),
              year >= 1, (1 ... 12).contains(month), day >= 1, day <= XMLDateArithmetic.daysInMonth(year: year, month: month),
              hour < 24, minute < 60, second < 60 else {
            throw TypedJSONDecoding.error("$date \"\(text.prefix(40))\" is not YYYY-MM-DDTHH:MM:SS[.fraction]Z", path)
        }
        var fraction = 0.0
        if bytes.count > 20 {
            let digits = bytes[19 ..< bytes.count - 1]
            guard digits.first == UInt8(ascii: "."), digits.count > 1, digits.dropFirst().allSatisfy({ $0 >= 48 && $0 <= 57 }),
                  let f = Double("0" + String(decoding: digits, as: UTF8.self)) else {
                throw TypedJSONDecoding.error("$date \"\(text.prefix(40))\" has a bad fraction of a second", path)
            }
            fraction = f
        }
        let days = XMLDateArithmetic.daysFromCivil(year: year, month: month, day: day)
            - XMLDateArithmetic.daysFromCivil(year: 2001, month: 1, day: 1)
        let whole = Double(days * 86_400 + hour * 3_600 + minute * 60 + second)
        return Date(timeIntervalSinceReferenceDate: whole + fraction)
    }
}

/// Writes property-list values as typed JSON, without recursion.
struct TypedJSONWriter {
    let prettyPrinted: Bool
    private(set) var output = ""

    init(prettyPrinted: Bool) {
        self.prettyPrinted = prettyPrinted
    }

    /// A real as a JSON number that reads back to the same bits, always with a point or an exponent; a
    /// non-finite real as a `$real` string.
    static func realText(_ d: Double) -> String {
        if d.isNaN { return d.bitPattern == Double.nan.bitPattern ? "\"nan\"" : "\"0x" + hex(d.bitPattern) + "\"" }
        if d.isInfinite { return d < 0 ? "\"-inf\"" : "\"inf\"" }
        return d.description
    }

    private static func hex(_ bits: UInt64) -> String {
        let s = String(bits, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    static func quoted(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let h = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - h.count) + h
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// The text of a scalar, or nil for a container.
    static func scalarText(_ value: PropertyListValue) -> String? {
        switch value {
        case .string(let s): return quoted(s)
        case .integer(let i): return i.description
        case .real(let d): return d.isFinite ? realText(d) : "{\"$real\":\(realText(d))}"
        case .float(let f):
            let text: String
            if f.isFinite {
                text = f.description
            } else if f.isNaN {
                let bits = String(f.bitPattern, radix: 16)
                text = f.bitPattern == Float.nan.bitPattern ? "\"nan\"" : "\"0x" + String(repeating: "0", count: 8 - bits.count) + bits + "\""
            } else {
                text = f < 0 ? "\"-inf\"" : "\"inf\""
            }
            return "{\"$float\":\(text)}"
        case .bool(let b): return b ? "true" : "false"
        case .date(let d): return "{\"$date\":\(TypedJSONDate.text(d))}"
        case .data(let d): return "{\"$data\":\"\(d.base64EncodedString())\"}"
        case .uid(let u): return "{\"$uid\":\(u.value)}"
        case .array, .set, .dictionary: return nil
        }
    }

    private mutating func newline(_ depth: Int) {
        guard prettyPrinted else { return }
        output += "\n" + String(repeating: "  ", count: depth)
    }

    mutating func write(_ root: PropertyListValue) {
        // Each open container: what is left to write, and the text that closes it.
        struct Frame {
            var items: [(key: String?, value: PropertyListValue)]
            var next: Int
            var close: String
        }
        var frames: [Frame] = []
        func open(_ value: PropertyListValue, into frames: inout [Frame], output: inout String) -> Bool {
            switch value {
            case .array(let a):
                output += "["
                frames.append(Frame(items: a.map { (nil, $0) }, next: 0, close: "]"))
            case .set(let a):
                output += "{\"$set\":["
                frames.append(Frame(items: a.map { (nil, $0) }, next: 0, close: "]}"))
            case .dictionary(let d):
                let wrapped = d.count == 1 && TypedJSONMarker.all.contains(d.keys[0])
                output += wrapped ? "{\"$dictionary\":{" : "{"
                frames.append(Frame(items: zip(d.keys, d.values).map { ($0, $1) }, next: 0, close: wrapped ? "}}" : "}"))
            default:
                return false
            }
            return true
        }
        if !open(root, into: &frames, output: &output) {
            output += Self.scalarText(root) ?? ""
            return
        }
        while let last = frames.indices.last {
            let frame = frames[last]
            if frame.next == frame.items.count {
                frames.removeLast()
                if !frame.items.isEmpty { newline(frames.count) }
                output += frame.close
                continue
            }
            let (key, value) = frame.items[frame.next]
            frames[last].next += 1
            if frame.next > 0 { output += "," }
            newline(frames.count)
            if let key { output += Self.quoted(key) + (prettyPrinted ? ": " : ":") }
            if let text = Self.scalarText(value) {
                output += text
            } else {
                _ = open(value, into: &frames, output: &output)
            }
        }
    }
}
