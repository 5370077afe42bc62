#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads Apple's XML property-list format into a ``PropertyListValue``.
///
/// The reader is a strict byte-level scanner written for this package; it uses no XML library.
/// It reads what Apple's writers produce and what Apple's parser accepts, with these rules:
///
/// - **Encodings.** UTF-8, with or without a byte-order mark, is read directly and must be valid
///   (overlong forms, surrogates and code points above U+10FFFF are rejected). UTF-16 (big- or little-endian,
///   detected from its byte-order mark or from a leading `<` byte paired with a zero byte) is converted to
///   UTF-8 first; error locations then count bytes of that UTF-8 conversion, while lines and columns keep
///   their meaning. A document whose XML declaration names ISO-8859-1 is read by it (each byte one
///   character), as Foundation and plistlib read it. An `encoding` declaration naming anything else but
///   UTF-8, UTF-16 or ASCII is rejected unless the document is pure ASCII, as plistlib (expat) rejects an
///   encoding it does not know. UTF-32 is rejected.
/// - **Markup.** Comments and processing instructions may appear anywhere between elements (and inside
///   `<string>` and `<key>`); CDATA sections are read inside `<string>` and `<key>`. Whitespace between
///   elements is skipped; any other text outside a string is an error, as is anything but whitespace,
///   comments and processing instructions after the root element. The root may be wrapped in
///   `<plist>` (which must then hold exactly one value) or be a bare value element, as Apple allows.
/// - **No entity expansion.** The DOCTYPE is skipped, never interpreted: an internal subset (`[...]`, where
///   entities would be declared) is rejected, so neither "billion laughs" nor external entities can occur.
///   Only the five predefined entities and numeric character references (`&#65;`, `&#x41;`) are read;
///   a numeric reference must name a Unicode scalar value (surrogates and values above U+10FFFF are errors).
/// - **Integers** cover `Int64.min ... UInt64.max`, in decimal or `0x` hexadecimal, with an optional sign
///   (Apple reads both forms). Surrounding whitespace is allowed. Anything else, or overflow, is an error.
/// - **Reals** accept decimal notation and `nan`, `inf`, `infinity` (any case, optionally signed), as
///   Apple's parser does; hexadecimal reals are rejected, as Apple rejects them.
/// - **Dates** must be `YYYY-MM-DDTHH:MM:SSZ` (UTC, whole seconds), with an optional `-` before the year and
///   any number of year digits (up to 11). Years use the proleptic Gregorian calendar with astronomical
///   numbering (year 0 exists). Fields out of range (month 13, February 30, hour 24, second 60) are errors.
/// - **Data** is base64; whitespace anywhere is ignored; any other character outside the base64 alphabet
///   is an error, or skipped with ``PropertyListReadingOptions/isLenient`` (as plistlib and CoreFoundation
///   skip it). Missing final padding is tolerated; a lone trailing character (6 bits) is an error, and so is
///   text after a padded quantum (lenient decodes on, as Foundation on Linux does).
/// - **UIDs.** A `<dict>` whose only key is `CF$UID` (a repeated key keeps its last value) and whose value is an
///   `<integer>` from 0 to `UInt32.max` (CoreFoundation's UIDs are 32-bit; the binary reader rejects larger ones)
///   reads as ``PropertyListValue/uid(_:)``, as Apple's parser and writer treat it. Any other dictionary, even one
///   with a `CF$UID` key or a larger value, stays a dictionary, so it survives a conversion to binary and back.
/// - **Limits.** Containers nest at most ``PropertyListReadingOptions/maximumDepth`` deep (the root array or
///   dictionary is depth 1); deeper input throws ``PropertyListError/Code/tooDeep``. Parsing is iterative, so
///   input of any depth cannot exhaust the stack. At most ``PropertyListReadingOptions/maximumObjectCount``
///   values are read. Every allocation is bounded by the input's size.
///
/// Each rule that rejects input rests on a real reader's verdict on the same input, Foundation on Linux's
/// `PropertyListSerialization` or python's plistlib (`ReaderRuleEvidenceTests` puts each beside a real
/// writer's output): text after the root element, `<key>` outside a `<dict>`, an out-of-range date field and
/// an XML declaration after a comment are read by Foundation and rejected by plistlib, as here.
///
/// Every fault is a ``PropertyListError`` (code ``PropertyListError/Code/invalidXML`` unless a more specific
/// code applies) whose location gives the byte offset, line, column and key path.
///
/// The corresponding Foundation API is `PropertyListSerialization.propertyList(from:options:format:)`.
public struct XMLPropertyListReader: Sendable {
    /// The limits applied while reading.
    public var options: PropertyListReadingOptions

    /// A reader with the given limits.
    ///
    /// - Parameter options: limits for untrusted input; the defaults suit most uses.
    public init(options: PropertyListReadingOptions = .init()) { self.options = options }

    /// Reads the root value of an XML property list.
    ///
    /// - Parameter data: the bytes of the document, UTF-8 (optionally with a byte-order mark) or UTF-16.
    /// - Returns: the root value.
    /// - Throws: ``PropertyListError`` naming what was wrong and where (byte offset, line, column, key path).
    public func read(_ data: Data) throws -> PropertyListValue {
        let utf8: [UInt8]?
        let skip: Int
        switch XMLTextEncoding.detect(data) {
        case .utf8(let bomLength):
            if bomLength == 0, let latin1 = XMLTextEncoding.transcodedLatin1(data) {
                return try latin1.withUnsafeBufferPointer { buffer in
                    var scanner = XMLPropertyListScanner(bytes: buffer, start: 0, options: options, fromUTF16: false,
                                                         fromLatin1: true)
                    return try scanner.scanDocument()
                }
            }
            utf8 = nil
            skip = bomLength
        case .utf16(let bigEndian, let bomLength):
            utf8 = try XMLTextEncoding.transcodeUTF16(data, bigEndian: bigEndian, skipping: bomLength)
            skip = 0
        case .utf32:
            throw PropertyListError(.invalidXML, "UTF-32 property lists are not supported; convert to UTF-8",
                                    at: .init(byteOffset: 0, line: 1, column: 1))
        }
        let fromUTF16 = utf8 != nil
        if let utf8 {
            return try utf8.withUnsafeBufferPointer { buffer in
                var scanner = XMLPropertyListScanner(bytes: buffer, start: 0, options: options, fromUTF16: fromUTF16)
                return try scanner.scanDocument()
            }
        }
        return try data.withUnsafeBytes { raw in
            let buffer = raw.bindMemory(to: UInt8.self)
            var scanner = XMLPropertyListScanner(bytes: buffer, start: skip, options: options, fromUTF16: false)
            return try scanner.scanDocument()
        }
    }
}

/// How the bytes of an XML document are encoded, judged from its first bytes.
enum XMLTextEncoding {
    case utf8(bomLength: Int)
    case utf16(bigEndian: Bool, bomLength: Int)
    case utf32

    /// The names (lowercased) of ISO-8859-1 in an XML declaration that the reader transcodes.
    static let latin1Names: Set<String> = ["iso-8859-1", "iso8859-1", "latin1", "latin-1"]

    /// The UTF-8 transcoding of `data` when it opens with an XML declaration naming ISO-8859-1 (each byte
    /// is the code point of the same number), else nil. plistlib (expat) and Foundation read such a
    /// document by its declaration.
    static func transcodedLatin1(_ data: Data) -> [UInt8]? {
        let head = Array(data.prefix(256))
        guard head.starts(with: Array("<?xml".utf8)),
              let close = (0 ..< max(0, head.count - 1)).first(where: { head[$0] == UInt8(ascii: "?") && head[$0 + 1] == UInt8(ascii: ">") })
        else { return nil }
        let encoding = head[5 ..< close].withUnsafeBufferPointer { XMLPropertyListScanner.declaredEncoding($0) }
        guard let encoding, latin1Names.contains(encoding) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(data.count + data.count / 8)
        for b in data {
            if b < 0x80 {
                out.append(b)
            } else {
                out.append(0xC0 | (b >> 6))
                out.append(0x80 | (b & 0x3F))
            }
        }
        return out
    }

    static func detect(_ data: Data) -> XMLTextEncoding {
        let head = Array(data.prefix(4))
        func at(_ i: Int) -> UInt8? { i < head.count ? head[i] : nil }
        if at(0) == 0x00, at(1) == 0x00, at(2) == 0xFE, at(3) == 0xFF { return .utf32 }
        if at(0) == 0xFF, at(1) == 0xFE, at(2) == 0x00, at(3) == 0x00 { return .utf32 }
        if at(0) == 0xEF, at(1) == 0xBB, at(2) == 0xBF { return .utf8(bomLength: 3) }
        if at(0) == 0xFE, at(1) == 0xFF { return .utf16(bigEndian: true, bomLength: 2) }
        if at(0) == 0xFF, at(1) == 0xFE { return .utf16(bigEndian: false, bomLength: 2) }
        if at(0) == 0x00, at(1) == 0x3C { return .utf16(bigEndian: true, bomLength: 0) }
        if at(0) == 0x3C, at(1) == 0x00 { return .utf16(bigEndian: false, bomLength: 0) }
        return .utf8(bomLength: 0)
    }

    /// Converts UTF-16 to UTF-8, rejecting unpaired surrogates and an odd byte count.
    static func transcodeUTF16(_ data: Data, bigEndian: Bool, skipping bom: Int) throws -> [UInt8] {
        guard (data.count - bom) % 2 == 0 else {
            throw PropertyListError(.invalidXML, "UTF-16 document has an odd number of bytes",
                                    at: .init(byteOffset: data.count - 1))
        }
        return try data.withUnsafeBytes { raw -> [UInt8] in
            let bytes = raw.bindMemory(to: UInt8.self)
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count / 2 + bytes.count / 8)
            var i = bom
            func unit(_ at: Int) -> UInt16 {
                let a = UInt16(bytes[at]), b = UInt16(bytes[at + 1])
                return bigEndian ? (a << 8 | b) : (b << 8 | a)
            }
            while i + 1 < bytes.count {
                let u = unit(i)
                var scalarValue = UInt32(u)
                var width = 2
                if (0xD800...0xDBFF).contains(u) {
                    guard i + 3 < bytes.count else {
                        throw PropertyListError(.invalidXML, "UTF-16 high surrogate at the end of the document",
                                                at: .init(byteOffset: i))
                    }
                    let low = unit(i + 2)
                    guard (0xDC00...0xDFFF).contains(low) else {
                        throw PropertyListError(.invalidXML, "unpaired UTF-16 high surrogate",
                                                at: .init(byteOffset: i))
                    }
                    scalarValue = 0x10000 + ((UInt32(u) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
                    width = 4
                } else if (0xDC00...0xDFFF).contains(u) {
                    throw PropertyListError(.invalidXML, "unpaired UTF-16 low surrogate", at: .init(byteOffset: i))
                }
                guard let scalar = Unicode.Scalar(scalarValue) else {
                    throw PropertyListError(.invalidXML, "invalid UTF-16", at: .init(byteOffset: i))
                }
                UTF8.encode(scalar, into: { out.append($0) })
                i += width
            }
            return out
        }
    }
}
