#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The state of one ``ForensicReader/read(_:)``: the budgets all nesting levels share, and the reading of
/// each payload (the outer input is the first).
final class ForensicReadingSession {
    let reader: ForensicReader
    /// Values the tree may still hold.
    private var valuesLeft: Int
    /// The limit `valuesLeft` started from, for messages.
    private let valueLimit: Int
    /// Bytes nested payloads may still hold.
    private var nestedBytesLeft: Int
    /// The limit `nestedBytesLeft` started from, for messages.
    private let nestedByteLimit: Int

    init(reader: ForensicReader, inputByteCount: Int) {
        self.reader = reader
        let (fourPerByte, overflow) = inputByteCount.multipliedReportingOverflow(by: 4)
        let scaled = overflow ? Int.max / 2 : fourPerByte
        valueLimit = reader.limits.maximumValueCount ?? scaled + 4096
        nestedByteLimit = reader.limits.maximumNestedByteCount ?? scaled + (1 << 20)
        valuesLeft = valueLimit
        nestedBytesLeft = nestedByteLimit
    }

    /// One payload being read: its bytes (where nested payloads' offsets are found) and the objects shown so far.
    struct Payload {
        /// The payload's bytes.
        let bytes: Data
        /// Per carrier's bytes: where they were first found, and where the next search for them starts (nil
        /// once no later copy is left), so equal carriers stored twice are found at their successive places
        /// and a carrier met again after its last copy costs no search.
        var searches: [Data: (first: Int?, next: Int?)] = [:]
        /// Bytes the searches may still scan: 16 per payload byte plus 1 MiB, so a payload that carries many
        /// equal or distinct carriers costs time linear in its size; once spent, offsets are not looked for.
        var searchBytesLeft: Int
        /// Objects shown in full, by their number in this payload, with the path where.
        var shownObjects: [UInt64: ForensicPath] = [:]

        init(bytes: Data) {
            self.bytes = bytes
            let (scaled, overflow) = bytes.count.multipliedReportingOverflow(by: 16)
            searchBytesLeft = overflow ? Int.max / 2 : scaled + (1 << 20)
        }

        /// Where `needle` starts in ``bytes``: the first place after the previous one found for equal bytes,
        /// else the first place; nil when it is not there or the search budget is spent.
        mutating func offset(of needle: Data) -> Int? {
            guard !needle.isEmpty else { return nil }
            let known = searches[needle]
            guard let start = known == nil ? 0 : known?.next else { return known?.first ?? nil }
            let scanned = bytes.count - start
            guard scanned <= searchBytesLeft else { return known?.first ?? nil }
            searchBytesLeft -= scanned
            let found = Self.search(needle, in: bytes, from: start)
            searches[needle] = (known?.first ?? found, found.map { $0 + 1 })
            return found ?? known?.first ?? nil
        }

        /// The first index (from 0) at or after `start` where `needle` occurs in `haystack`, by
        /// Knuth-Morris-Pratt: time linear in both lengths whatever the bytes repeat.
        private static func search(_ needle: Data, in haystack: Data, from start: Int) -> Int? {
            let pattern = [UInt8](needle)
            guard start >= 0, start < haystack.count, pattern.count <= haystack.count - start else { return nil }
            // fallback[i]: the length of the longest proper prefix of pattern[0...i] that is also its suffix.
            var fallback = [Int](repeating: 0, count: pattern.count)
            var matched = 0
            for i in 1..<max(pattern.count, 1) {
                while matched > 0, pattern[i] != pattern[matched] { matched = fallback[matched - 1] }
                if pattern[i] == pattern[matched] { matched += 1 }
                fallback[i] = matched
            }
            matched = 0
            var position = start
            for byte in haystack.dropFirst(start) {
                while matched > 0, byte != pattern[matched] { matched = fallback[matched - 1] }
                if byte == pattern[matched] { matched += 1 }
                position += 1
                if matched == pattern.count { return position - pattern.count }
            }
            return nil
        }
    }

    /// Spends one value at `path`, `level` levels deep; throws when either limit is passed.
    func spend(at path: ForensicPath, level: Int) throws {
        valuesLeft -= 1
        if valuesLeft < 0 {
            throw limitReached("more than \(valueLimit) values in all nesting levels "
                               + "(ForensicReader.Limits.maximumValueCount; by default 4 per input byte + 4096)", at: path)
        }
        if level > reader.limits.maximumValueDepth {
            throw limitReached("values nested more than \(reader.limits.maximumValueDepth) levels deep "
                               + "(ForensicReader.Limits.maximumValueDepth)", at: path)
        }
    }

    func limitReached(_ message: String, at path: ForensicPath) -> ForensicLimitReached {
        ForensicLimitReached(error: KeyedArchiveError(.limitExceeded, "forensic reading stopped: " + message, keyPath: path.description))
    }

    /// Reads `data` as a document whose root is under `prefix` (empty for the input, a payload's inner
    /// path for a nested one); `format` is known when sniffed.
    func readDocument(_ data: Data, at prefix: ForensicPath, level: Int,
                      hop: ((PayloadFormat) -> ForensicPath)? = nil) throws -> ForensicDocument {
        var payload = Payload(bytes: data)
        if PayloadFormat.isTypedstream(data) {
            let archive = try TypedstreamArchive(data: data, limits: reader.unarchiverLimits)
            let base = hop?(.typedstream) ?? prefix
            return try typedstreamDocument(archive, in: &payload, at: base, level: level)
        }
        let root = try PropertyListValue(propertyListData: data, options: reader.readingOptions)
        if ForensicReader.isKeyedArchive(root) {
            let graph: ArchivedObjectGraph
            do {
                graph = try ArchivedObjectGraph(data: data, parsedRoot: root)
            } catch {
                // Forensic work shows what a damaged archive still holds, with each damaged place named.
                guard let lenient = try? ArchivedObjectGraph(lenientPropertyList: root), !lenient.damage.isEmpty else { throw error }
                graph = lenient
            }
            let base = (hop?(.keyedArchive) ?? prefix).appending(key: "$top")
            var fields: [ForensicEntry] = []
            try spend(at: base, level: level)
            for field in graph.top {
                fields.append(ForensicEntry(field.key, try keyedValue(field.value, in: graph, payload: &payload,
                                                                      at: base.appending(key: field.key), owner: nil, level: level + 1)))
            }
            var document = ForensicDocument(format: .keyedArchive, root: .dictionary(fields), rootPath: base)
            document.damage = graph.damage.map { "\($0)" }
            return document
        }
        let format: PayloadFormat = data.starts(with: "bplist".utf8) ? .binaryPropertyList : .xmlPropertyList
        let base = (hop?(format) ?? prefix).appending(key: "$root")
        return ForensicDocument(format: format, root: try plistValue(root, payload: &payload, at: base, owner: nil, level: level),
                                rootPath: base)
    }

    /// `bytes` (a data value) as a nested payload when it starts as one, else as data.
    func dataValue(_ bytes: Data, payload: inout Payload, at path: ForensicPath, owner: String?, level: Int) throws -> ForensicValue {
        guard reader.decodesNestedPayloads, PayloadFormat.sniff(bytes) != nil else { return .data(bytes) }
        return .nested(try nested(bytes, carrier: .data, stored: bytes, payload: &payload, at: path, owner: owner, level: level))
    }

    /// `string` as a nested payload when it is an XML property list, or base64 or hex text of a payload
    /// (looked at only when it starts as the encoding of a binary property list's or a typedstream's
    /// signature); else as a string.
    func stringValue(_ string: String, payload: inout Payload, at path: ForensicPath, owner: String?, level: Int) throws -> ForensicValue {
        guard reader.decodesNestedPayloads, string.utf8.count >= 12 else { return .string(string) }
        let text = Data(string.utf8)
        if PayloadFormat.sniff(text) == .xmlPropertyList {
            return .nested(try nested(text, carrier: .string, stored: text, payload: &payload, at: path, owner: owner, level: level))
        }
        let base64Signatures = ["YnBsaXN0MD", "BAtzdHJlYW10eXBlZ", "BAt0eXBlZHN0cmVhb"]
        if base64Signatures.contains(where: string.hasPrefix),
           let bytes = Data(base64Encoded: string, options: .ignoreUnknownCharacters), PayloadFormat.sniff(bytes) != nil {
            return .nested(try nested(bytes, carrier: .base64String, stored: text, payload: &payload, at: path, owner: owner, level: level))
        }
        let hexSignatures = ["62706c697374303", "040b73747265616d7479706564", "040b747970656473747265616d"]
        if hexSignatures.contains(where: { string.lowercased().hasPrefix($0) }), let bytes = Self.hexBytes(string),
           PayloadFormat.sniff(bytes) != nil {
            return .nested(try nested(bytes, carrier: .hexString, stored: text, payload: &payload, at: path, owner: owner, level: level))
        }
        return .string(string)
    }

    /// The bytes hexadecimal `text` spells (an even number of digits, nothing else), or nil.
    static func hexBytes(_ text: String) -> Data? {
        let digits = Array(text.utf8)
        guard digits.count.isMultiple(of: 2) else { return nil }
        var bytes = Data(capacity: digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = hexDigit(digits[index]), let low = hexDigit(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    /// The value of one hexadecimal digit, or nil.
    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: return byte - 0x30
        case 0x41...0x46: return byte - 0x41 + 10
        case 0x61...0x66: return byte - 0x61 + 10
        default: return nil
        }
    }

    /// Decodes `bytes`, carried at `path` as `carrier` (whose own bytes are `stored`), as a nested payload.
    private func nested(_ bytes: Data, carrier: NestedPayload.Carrier, stored: Data, payload: inout Payload,
                        at path: ForensicPath, owner: String?, level: Int) throws -> NestedPayload {
        try spend(at: path, level: level)
        let depth = path.nestingDepth + 1
        if depth > reader.limits.maximumNestingDepth {
            throw limitReached("a payload nested \(depth) levels deep (ForensicReader.Limits.maximumNestingDepth: "
                               + "\(reader.limits.maximumNestingDepth))", at: path)
        }
        nestedBytesLeft -= bytes.count
        if nestedBytesLeft < 0 {
            throw limitReached("nested payloads of more than \(nestedByteLimit) bytes in all "
                               + "(ForensicReader.Limits.maximumNestedByteCount; by default 4 per input byte + 1 MiB)", at: path)
        }
        let sniffed = PayloadFormat.sniff(bytes) ?? .binaryPropertyList
        var result = NestedPayload(format: sniffed, carrier: carrier, path: path, containingObject: owner, key: path.lastKey,
                                   byteOffset: payload.offset(of: stored), storedBytes: stored, value: nil, error: nil)
        do {
            let document = try readDocument(bytes, at: path, level: level + 1) { format in
                path.appending(.payload(carrier: carrier.rawValue, format: format))
            }
            result.format = document.format
            result.value = document.root
            result.rootPath = document.rootPath
            result.damage = document.damage
        } catch let limit as ForensicLimitReached {
            throw limit
        } catch {
            result.error = "\(error)"
        }
        return result
    }

    /// A property-list value (of a plain property list, or inline in a keyed archive).
    func plistValue(_ value: PropertyListValue, payload: inout Payload, at path: ForensicPath, owner: String?,
                    level: Int) throws -> ForensicValue {
        try spend(at: path, level: level)
        switch value {
        case .string(let s): return try stringValue(s, payload: &payload, at: path, owner: owner, level: level)
        case .data(let d): return try dataValue(d, payload: &payload, at: path, owner: owner, level: level)
        case .integer(let i): return .integer(i)
        case .real(let d): return .real(d)
        case .float(let f): return .real(Double(f))
        case .bool(let b): return .bool(b)
        case .date(let d): return .date(d)
        case .uid(let u): return .uid(u)
        case .array(let items), .set(let items):
            var values: [ForensicValue] = []
            for (index, item) in items.enumerated() {
                values.append(try plistValue(item, payload: &payload, at: path.appending(index: index), owner: owner, level: level + 1))
            }
            return .array(values)
        case .dictionary(let entries):
            var fields: [ForensicEntry] = []
            for (key, item) in entries {
                fields.append(ForensicEntry(key, try plistValue(item, payload: &payload, at: path.appending(key: key), owner: owner,
                                                                 level: level + 1)))
            }
            return .dictionary(fields)
        }
    }
}
