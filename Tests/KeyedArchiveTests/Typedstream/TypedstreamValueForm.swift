import Foundation
@testable import KeyedArchive

/// ``FoundationValue``s and pytypedstream's decoded values in one comparable form: compact JSON strings
/// built from the typed forms `Tests/TypedstreamOracle/pytypedstream_oracle.py` prints.
///
/// pytypedstream's forms are normalized where the two models differ by design, not by value: an NSNumber's or
/// NSValue's stored type is dropped (``FoundationValue`` keeps the number, not its Objective-C type), raw `+`
/// bytes read as data, an NSNull (a class pytypedstream does not know: a generic object with no fields) is
/// nil, and dictionary entries are sorted (``FoundationValue`` dictionaries have no order).
enum TypedstreamValueForm {
    /// pytypedstream's typed value, normalized.
    static func oracle(_ json: Any) -> Any {
        guard let object = json as? [String: Any], let (tag, payload) = object.first else { return json }
        switch tag {
        case "number", "value":
            guard let pair = payload as? [Any], pair.count == 2 else { return json }
            return oracle(pair[1])
        case "bytes": return ["data": payload]
        case "array", "set", "carray", "struct":
            return [tag: (payload as? [Any] ?? []).map(oracle)]
        case "dict":
            let pairs = (payload as? [[Any]] ?? []).map { [oracle($0[0]), oracle($0[1])] }
            return ["dict": sortedPairs(pairs)]
        case "url":
            guard let pair = payload as? [Any], pair.count == 2 else { return json }
            return ["url": [pair[0] is NSNull ? NSNull() : oracle(pair[0]), pair[1]]]
        case "color":
            guard var parts = payload as? [Any] else { return json }
            if parts.count == 4, (parts[0] as? Int) == 6 { parts[3] = oracle(parts[3]) }
            return ["color": parts]
        case "attributedString":
            guard let pair = payload as? [Any], pair.count == 2, let runs = pair[1] as? [[Any]] else { return json }
            return ["attributedString": [oracle(pair[0]), runs.map { [$0[0], oracle($0[1])] }]]
        case "object":
            if let body = payload as? [String: Any], let classes = body["classes"] as? [[Any]],
               classes.first?.first as? String == "NSNull", (body["groups"] as? [Any])?.isEmpty == true {
                return ["nil": true]
            }
            return json
        default:
            return json
        }
    }

    /// Our value in the same form.
    static func ours(_ value: FoundationValue) -> Any {
        if let special = value.cataloguedValue as? ArchivedSpecialValue { return specialForm(special) }
        if let color = value.cataloguedValue as? ArchivedColor { return colorForm(color) }
        if let font = value.cataloguedValue as? ArchivedFont {
            let flags = (0 ..< 4).map { Int(Int8(truncatingIfNeeded: (font.flags ?? 0) >> (8 * (3 - $0)))) }
            return ["font": [font.name, hex(font.size), flags] as [Any]]
        }
        if let text = value.cataloguedValue as? ArchivedAttributedString {
            let runs = text.runs.map { run -> [Any] in
                [run.range.count, ours(.dictionary(Dictionary(uniqueKeysWithValues: run.attributes.map { (FoundationValue.string($0.key), $0.value) })))]
            }
            return ["attributedString": [["string": text.string], runs] as [Any]]
        }
        switch value {
        case .null: return ["nil": true]
        case .bool(let b): return ["bool": b]
        case .integer(let i): return ["int": i.description]
        case .real(let d): return ["real": hex(d)]
        case .string(let s): return ["string": s]
        case .data(let d): return ["data": d.base64EncodedString()]
        case .date(let d): return ["date": hex(d.timeIntervalSinceReferenceDate)]
        case .url(let url): return urlForm(url)
        case .array(let a): return ["array": a.elements.map(ours)]
        case .set(let a): return ["set": a.elements.map(ours)]
        case .dictionary(let d): return ["dict": sortedPairs(d.dictionary.map { [ours($0.key), ours($0.value)] })]
        default: return ["unexpected": "\(value)"]
        }
    }

    static func urlForm(_ url: URL) -> Any {
        ["url": [url.baseURL.map(urlForm) ?? NSNull(), url.relativeString] as [Any]]
    }

    static func specialForm(_ value: ArchivedSpecialValue) -> Any {
        func real(_ d: Double) -> Any { ["real": hex(d)] }
        switch value.content {
        case .range(let location, let length): return ["struct": [["int": String(location)], ["int": String(length)]]]
        case .point(let x, let y): return ["struct": [real(x), real(y)]]
        case .size(let w, let h): return ["struct": [real(w), real(h)]]
        case .rect(let x, let y, let w, let h): return ["struct": [["struct": [real(x), real(y)]], ["struct": [real(w), real(h)]]]]
        case .edgeInsets(let top, let left, let bottom, let right): return ["struct": [real(top), real(left), real(bottom), real(right)]]
        case .objCValue(let v) where v.typeEncoding.hasPrefix("[") && (v.typeEncoding.hasSuffix("c]") || v.typeEncoding.hasSuffix("C]")):
            // pytypedstream reads a C array of bytes as its bytes.
            let bytes = v.elements.map { number -> UInt8 in
                switch number {
                case .integer(let i): return UInt8(truncatingIfNeeded: i)
                case .unsignedInteger(let u): return UInt8(truncatingIfNeeded: u)
                default: return 0
                }
            }
            return ["data": Data(bytes).base64EncodedString()]
        case .objCValue(let v):
            let numbers: [Any] = v.elements.map { number -> Any in
                switch number {
                case .integer(let i): return ["int": String(i)]
                case .unsignedInteger(let u): return ["int": String(u)]
                case .real(let d): return real(d)
                case .bool(let b): return ["bool": b]
                }
            }
            return v.typeEncoding.hasPrefix("[") ? ["carray": numbers] : (numbers.first ?? [:])
        }
    }

    static func colorForm(_ color: ArchivedColor) -> Any {
        switch color.content {
        case .rgb(let r, let g, let b, let a, let calibrated): return ["color": [calibrated ? 1 : 2, hex(r), hex(g), hex(b), hex(a)] as [Any]]
        case .white(let w, let a, let calibrated): return ["color": [calibrated ? 3 : 4, hex(w), hex(a)] as [Any]]
        case .cmyk(let c, let m, let y, let k, let a): return ["color": [5, hex(c), hex(m), hex(y), hex(k), hex(a)] as [Any]]
        case .catalog(let list, let name, let fallback):
            return ["color": [6, list, name, fallback.map(colorForm) ?? ["nil": true]] as [Any]]
        }
    }

    static func hex(_ d: Double) -> String {
        let s = String(d.bitPattern, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }

    static func sortedPairs(_ pairs: [[Any]]) -> [[Any]] {
        pairs.sorted { string($0[0]) < string($1[0]) }
    }

    /// The compact JSON text of a form.
    static func string(_ form: Any) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: [form], options: [.sortedKeys]) else { return "\(form)" }
        return String(decoding: data, as: UTF8.self)
    }
}
