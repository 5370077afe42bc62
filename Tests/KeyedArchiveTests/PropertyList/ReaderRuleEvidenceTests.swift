import Foundation
import Testing
@testable import KeyedArchive

/// Every rule by which the strict binary and XML readers reject input, each beside its evidence: a real
/// writer's output that the rule accepts (Foundation's `PropertyListSerialization` or `NSKeyedArchiver`,
/// writing in-process) next to the crafted input it rejects, with real readers' verdicts on that input.
///
/// `foundation` is what Foundation on Linux's `PropertyListSerialization` does with the rejected input, and
/// `plistlib` what python's plistlib does (nil: not asserted). Where Foundation reads what we reject
/// (`.accepts`), the rule rests on the other evidence its row names (CoreFoundation's `CFBinaryPList.c`
/// source, plistlib's verdict, a value the model cannot hold) or the lenient option reads it (`lenientAccepts`).
struct ReaderRule: Sendable, CustomTestStringConvertible {
    enum Verdict: Sendable { case accepts, rejects }

    var name: String
    /// Where the rule comes from (the same note stands at the rule in the reader's source).
    var evidence: String
    /// A real writer's output or a real file of the same kind, which the rule accepts.
    var accepted: @Sendable () throws -> Data
    /// The crafted input the rule rejects.
    var rejected: [UInt8]
    var code: PropertyListError.Code
    var foundation: Verdict
    var plistlib: Verdict? = nil
    /// Whether ``PropertyListReadingOptions/isLenient`` reads `rejected`.
    var lenientAccepts = false
    var options = PropertyListReadingOptions()

    var testDescription: String { name }
}

/// Builds binary property lists object by object, for crafted inputs: the header, the objects as given, an
/// offset table of `offsetSize`-byte entries and the trailer, whose fields can be overridden.
struct BinaryPropertyListAssembly {
    var objects: [[UInt8]]
    var offsetSize = 1
    var refSize = 1
    var top: UInt64 = 0
    var count: UInt64?
    var tableOffset: UInt64?
    /// Bytes put between the offset table and the trailer.
    var gap: [UInt8] = []
    var header = Array("bplist00".utf8)
    /// Replaces offset-table entries: object number to offset.
    var offsets: [Int: UInt64] = [:]

    var bytes: [UInt8] {
        var out = header
        var table: [UInt64] = []
        for object in objects {
            table.append(UInt64(out.count))
            out += object
        }
        for (n, offset) in offsets { table[n] = offset }
        let start = UInt64(out.count)
        for entry in table { out += Self.bigEndian(entry, offsetSize) }
        out += gap
        out += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)]
        out += Self.bigEndian(count ?? UInt64(objects.count), 8)
        out += Self.bigEndian(top, 8)
        out += Self.bigEndian(tableOffset ?? start, 8)
        return out
    }

    static func bigEndian(_ value: UInt64, _ width: Int) -> [UInt8] {
        (0 ..< width).map { i in
            let shift = 8 * (width - 1 - i)
            return shift >= 64 ? 0 : UInt8(truncatingIfNeeded: value >> UInt64(shift))
        }
    }

    /// A one-object file holding `object`.
    static func single(_ object: [UInt8]) -> [UInt8] { Self(objects: [object]).bytes }

    /// An array (object 0) of the objects that follow it.
    static func array(_ elements: [[UInt8]]) -> [UInt8] {
        Self(objects: [[0xA0 | UInt8(elements.count)] + (1 ... elements.count).map { UInt8($0) }] + elements).bytes
    }
}

@Suite struct ReaderRuleEvidenceTests {
    typealias A = BinaryPropertyListAssembly

    /// Foundation's binary (or XML) serialization of `object`: a real writer's output.
    static func written(_ object: Any, _ format: PropertyListSerialization.PropertyListFormat = .binary) -> @Sendable () throws -> Data {
        let data = Result { try PropertyListSerialization.data(fromPropertyList: object, format: format, options: 0) }
        return { try data.get() }
    }

    static func plistlibVerdict(_ bytes: [UInt8]) throws -> ReaderRule.Verdict {
        if case .rejected = try PlistlibOracle.read(bytes: Data(bytes)) { return .rejects }
        return .accepts
    }

    static func foundationVerdict(_ bytes: [UInt8]) -> ReaderRule.Verdict {
        (try? PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil)) == nil ? .rejects : .accepts
    }

    /// Foundation's NSKeyedArchiver output (UIDs of one byte): a real writer's UIDs.
    static let archivedByFoundation: @Sendable () throws -> Data = {
        try NSKeyedArchiver.archivedData(withRootObject: "x", requiringSecureCoding: false)
    }

    static let ascii: [UInt8] = [0x51, 0x61]  // "a"
    static let int1: [UInt8] = [0x10, 0x05]

    /// A rule on the trailer: one integer object, then `change` to the assembly; Foundation's file of one
    /// integer is what the rule accepts.
    static func trailerRule(_ name: String, _ evidence: String, foundation: ReaderRule.Verdict, plistlib: ReaderRule.Verdict? = nil,
                            lenientAccepts: Bool = false, _ change: (inout A) -> Void) -> ReaderRule {
        var a = A(objects: [int1])
        change(&a)
        return ReaderRule(name: name, evidence: evidence, accepted: written(1), rejected: a.bytes, code: .invalidTrailer,
                          foundation: foundation, plistlib: plistlib, lenientAccepts: lenientAccepts)
    }

    static let binaryRules: [ReaderRule] = [
        ReaderRule(name: "bplist: header is bplist0 plus one byte",
                   evidence: "CFBinaryPList.c __CFBinaryPlistGetTopLevelInfo: the first 7 bytes are \"bplist0\"",
                   accepted: written(["a"]), rejected: { var a = A(objects: [ascii]); a.header = Array("bplist10".utf8); return a.bytes }(),
                   code: .unknownFormat, foundation: .rejects),
        ReaderRule(name: "bplist: at least 41 bytes",
                   evidence: "__CFBinaryPlistGetTopLevelInfo: header + 1 object byte + 32-byte trailer",
                   accepted: written(1), rejected: Array(A.single(int1).prefix(40)),
                   code: .truncated, foundation: .rejects),
        trailerRule("bplist: offset size 0",
                    "__CFBinaryPlistGetTopLevelInfo: offset int size >= 1", foundation: .rejects) { $0.offsetSize = 0 },
        trailerRule("bplist: offset size above 8",
                    "none beyond its writers (CF's picks 1, 2, 4 or 8): CF and Foundation keep the low 8 bytes (so does "
                        + "lenient), plistlib reads it; kept for the scanner's single 8-byte loads",
                    foundation: .accepts, plistlib: .accepts, lenientAccepts: true) { $0.offsetSize = 9 },
        trailerRule("bplist: reference size 0",
                    "__CFBinaryPlistGetTopLevelInfo: object ref size >= 1", foundation: .rejects) { $0.refSize = 0 },
        trailerRule("bplist: reference size above 8",
                    "none beyond its writers (CF's picks 1, 2, 4 or 8): CF and Foundation keep the low 8 bytes (so does "
                        + "lenient), plistlib reads it whole; kept for the scanner's single 8-byte loads",
                    foundation: .accepts, plistlib: .accepts, lenientAccepts: true) { $0.refSize = 9 },
        trailerRule("bplist: no objects",
                    "__CFBinaryPlistGetTopLevelInfo: object count >= 1", foundation: .rejects) { $0.count = 0 },
        trailerRule("bplist: top object past the count",
                    "__CFBinaryPlistGetTopLevelInfo: top object < object count", foundation: .rejects) { $0.top = 1 },
        trailerRule("bplist: offset table before byte 9",
                    "__CFBinaryPlistGetTopLevelInfo: offset table offset >= 9", foundation: .rejects) { $0.tableOffset = 8 },
        trailerRule("bplist: offset table runs into the trailer",
                    "__CFBinaryPlistGetTopLevelInfo: the table (count x offset size, "
                        + "overflow-checked) ends before the trailer", foundation: .rejects) { $0.count = 2 },
        trailerRule("bplist: bytes between the offset table and the trailer",
                    "__CFBinaryPlistGetTopLevelInfo: 8 + object area + table + 32 "
                        + "equals the file's length", foundation: .rejects, lenientAccepts: true) { $0.gap = [0] },
        ReaderRule(name: "bplist: reference size too narrow for the object count",
                   evidence: "__CFBinaryPlistGetTopLevelInfo: a reference can name every object",
                   accepted: written((0 ..< 300).map { $0 }),
                   rejected: { var a = A(objects: Array(repeating: int1, count: 256)); a.offsetSize = 2; return a.bytes }(),
                   code: .invalidTrailer, foundation: .rejects, lenientAccepts: true),
        ReaderRule(name: "bplist: offset size too narrow for the table",
                   evidence: "__CFBinaryPlistGetTopLevelInfo: an offset can reach the offset table",
                   accepted: written([String(repeating: "x", count: 300)]),
                   rejected: A.single([0x5F, 0x11, 0x01, 0x00] + Array(repeating: 0x78, count: 256)),
                   code: .invalidTrailer, foundation: .rejects, lenientAccepts: true),
        ReaderRule(name: "bplist: offset-table entry past the object area",
                   evidence: "__CFBinaryPlistGetTopLevelInfo: every entry < offset table offset",
                   accepted: written(1), rejected: { var a = A(objects: [int1]); a.offsets = [0: 10]; return a.bytes }(),
                   code: .invalidReference, foundation: .rejects),
        ReaderRule(name: "bplist: offset-table entry inside the header (unreferenced)",
                   evidence: "none beyond its writers: CF checks an entry below 8 only when a reference leads to it (so does "
                       + "lenient), so CF, Foundation and plistlib read the file; kept so that reads after the up-front check need none",
                   accepted: written(1), rejected: { var a = A(objects: [int1, int1]); a.offsets = [1: 2]; return a.bytes }(),
                   code: .invalidReference, foundation: .accepts, plistlib: .accepts, lenientAccepts: true),
        ReaderRule(name: "bplist: reference past the object count",
                   evidence: "CFBinaryPList.c _getOffsetOfRefAt: reference < object count",
                   accepted: written([1]), rejected: A.single([0xA1, 0x05]),
                   code: .invalidReference, foundation: .rejects),
        ReaderRule(name: "bplist: extended count that is not an integer",
                   evidence: "__CFBinaryPlistCreateObjectFiltered: a 0xF count is read by _readInt (integer markers only)",
                   accepted: written(Data(count: 20)), rejected: A.single([0x4F, 0x50, 0x14] + Array(repeating: 0, count: 20)),
                   code: .invalidObject, foundation: .rejects),
        ReaderRule(name: "bplist: extended count of 16 bytes",
                   evidence: "none: CFBinaryPList.c _readInt takes any integer width (the low 8 bytes), as "
                       + "Foundation does (so does lenient); no writer writes one",
                   accepted: written(Data(count: 20)), rejected: A.single([0x4F, 0x14] + Array(repeating: 0, count: 15) + [3, 1, 2, 3]),
                   code: .invalidObject, foundation: .accepts, lenientAccepts: true),
        ReaderRule(name: "bplist: extended count above Int.max",
                   evidence: "__CFBinaryPlistCreateObjectFiltered: LONG_MAX < count fails",
                   accepted: written(Data(count: 20)), rejected: A.single([0x4F, 0x13, 0x80, 0, 0, 0, 0, 0, 0, 0]),
                   code: .invalidObject, foundation: .rejects),
        ReaderRule(name: "bplist: data past the object area",
                   evidence: "__CFBinaryPlistCreateObjectFiltered: every extent (overflow-checked) lies in the object area",
                   accepted: written(Data(count: 3)), rejected: A.single([0x43, 0x00]),
                   code: .limitExceeded, foundation: .rejects),
        ReaderRule(name: "bplist: integer past the object area",
                   evidence: "__CFBinaryPlistCreateObjectFiltered: the integer's bytes lie in the object area",
                   accepted: written(1), rejected: A.single([0x13, 0x00]),
                   code: .truncated, foundation: .rejects),
        ReaderRule(name: "bplist: null marker 0x00",
                   evidence: "the value model has no null and no Apple writer writes one (PropertyListSerialization refuses "
                       + "NSNull); CF and Foundation read kCFNull, plistlib None",
                   accepted: written([true]), rejected: A.array([[0x00]]),
                   code: .invalidObject, foundation: .accepts, plistlib: .accepts),
        ReaderRule(name: "bplist: fill byte 0x0F",
                   evidence: "__CFBinaryPlistCreateObjectFiltered: singletons are 0x00, 0x08, 0x09 only",
                   accepted: written([true]), rejected: A.array([[0x0F]]),
                   code: .invalidObject, foundation: .rejects),
        ReaderRule(name: "bplist: unknown marker 0x9n",
                   evidence: "__CFBinaryPlistCreateObjectFiltered: no case for 0x7_, 0x9_, 0xB_, 0xE_, 0xF_",
                   accepted: written([1]), rejected: A.array([[0x90]]),
                   code: .invalidObject, foundation: .rejects),
        ReaderRule(name: "bplist: UTF-8 string marker 0x7n",
                   evidence: "__CFBinaryPlistCreateObjectFiltered: no case for 0x7_ (no Apple writer writes it)",
                   accepted: written(["a"]), rejected: A.array([[0x71, 0x61]]),
                   code: .invalidObject, foundation: .rejects, lenientAccepts: true),
        ReaderRule(name: "bplist: ordered set marker 0xBn",
                   evidence: "__CFBinaryPlistCreateObjectFiltered: no case for 0xB_ (no Apple writer writes it)",
                   accepted: written([1]), rejected: A(objects: [[0xB1, 0x01], int1]).bytes,
                   code: .invalidObject, foundation: .rejects, lenientAccepts: true),
        ReaderRule(name: "bplist: real of 2 bytes",
                   evidence: "__CFBinaryPlistCreateObjectFiltered: reals are 0x22 or 0x23",
                   accepted: written(2.5), rejected: A.single([0x21, 0x00, 0x00]),
                   code: .invalidObject, foundation: .rejects),
        ReaderRule(name: "bplist: date marker other than 0x33",
                   evidence: "__CFBinaryPlistCreateObjectFiltered: a date is exactly 0x33",
                   accepted: written(Date(timeIntervalSinceReferenceDate: 1)), rejected: A.single([0x32, 0, 0, 0, 0]),
                   code: .invalidObject, foundation: .rejects),
        ReaderRule(name: "bplist: integer of 32 bytes",
                   evidence: "__CFBinaryPlistCreateObjectFiltered: 16 < width fails",
                   accepted: written(1), rejected: A.single([0x15] + Array(repeating: 0, count: 32)),
                   code: .invalidObject, foundation: .rejects),
        ReaderRule(name: "bplist: 16-byte integer outside Int64.min...UInt64.max",
                   evidence: "no 64-bit value holds it: CF and Foundation keep the low 8 bytes (so does lenient), plistlib the whole number",
                   accepted: written(NSNumber(value: UInt64.max)), rejected: A.single([0x14, 0, 0, 0, 0, 0, 0, 0, 1] + Array(repeating: 0, count: 8)),
                   code: .invalidObject, foundation: .accepts, plistlib: .accepts, lenientAccepts: true),
        ReaderRule(name: "bplist: UID above UInt32.max",
                   evidence: "__CFBinaryPlistCreateObjectFiltered: UINT32_MAX < uid fails",
                   accepted: archivedByFoundation,
                   rejected: A.array([[0x84, 0x01, 0, 0, 0, 0]]),
                   code: .invalidObject, foundation: .rejects, lenientAccepts: true),
        ReaderRule(name: "bplist: UID of 16 bytes above UInt64.max",
                   evidence: "the value is not the one written: CF and Foundation drop the upper bytes (so does lenient)",
                   accepted: archivedByFoundation,
                   rejected: A.array([[0x8F, 1] + Array(repeating: 0, count: 15)]),
                   code: .invalidObject, foundation: .accepts, lenientAccepts: true),
        ReaderRule(name: "bplist: ASCII string with bytes that are not UTF-8",
                   evidence: "plistlib refuses it; Foundation reads Latin-1 (so does lenient)",
                   accepted: written(["a"]), rejected: A.array([[0x51, 0xFF]]),
                   code: .invalidString, foundation: .accepts, plistlib: .rejects, lenientAccepts: true),
        ReaderRule(name: "bplist: UTF-16 string with an unpaired surrogate",
                   evidence: "plistlib refuses it; Foundation reads U+FFFD (so does lenient)",
                   accepted: written(["é"]), rejected: A.array([[0x61, 0xD8, 0x00]]),
                   code: .invalidString, foundation: .accepts, plistlib: .rejects, lenientAccepts: true),
        ReaderRule(name: "bplist: dictionary key that is not a string",
                   evidence: "the value model keys dictionaries by string and Apple's writers refuse other keys "
                       + "(PropertyListSerialization cannot write [1: 1]); CF, Foundation and plistlib read it",
                   accepted: written(["k": 1]), rejected: A(objects: [[0xD1, 0x01, 0x01], int1]).bytes,
                   code: .invalidKey, foundation: .accepts),
        ReaderRule(name: "bplist: container that contains itself",
                   evidence: "__CFBinaryPlistCreateObjectFiltered: the set of offsets on the current path (a cycle fails)",
                   accepted: written([[1]]), rejected: A.single([0xA1, 0x00]),
                   code: .cycle, foundation: .rejects),
        ReaderRule(name: "bplist: nesting deeper than the limit",
                   evidence: "__CFBinaryPlistCreateObjectFiltered: depth limit (512 on macOS and Linux); here maximumDepth",
                   accepted: written([[1]]), rejected: A(objects: [[0xA1, 0x01], [0xA1, 0x02], int1]).bytes,
                   code: .tooDeep, foundation: .accepts,
                   options: { var o = PropertyListReadingOptions(); o.maximumDepth = 1; return o }()),
        ReaderRule(name: "bplist: more objects than the limit",
                   evidence: "a resource limit of the caller's (maximumObjectCount), not a format rule",
                   accepted: written([1]), rejected: A(objects: [[0xA1, 0x01], int1]).bytes,
                   code: .limitExceeded, foundation: .accepts,
                   options: { var o = PropertyListReadingOptions(); o.maximumObjectCount = 1; return o }()),
    ]

    @Test(arguments: binaryRules)
    func binaryRule(_ rule: ReaderRule) throws {
        try Self.check(rule) { try BinaryPropertyListReader(options: $1).read($0) }
    }

    /// `read` (with default options) reads the accepted input; with the rule's options it rejects the crafted
    /// one with the rule's code, Foundation gives its verdict, and lenient reading reads it or not as the
    /// rule says.
    static func check(_ rule: ReaderRule, _ read: (Data, PropertyListReadingOptions) throws -> PropertyListValue) throws {
        _ = try read(try rule.accepted(), PropertyListReadingOptions())
        let error = try #require(throws: PropertyListError.self) { try read(Data(rule.rejected), rule.options) }
        #expect(error.code == rule.code, "\(error)")
        #expect(foundationVerdict(rule.rejected) == rule.foundation)
        var lenient = rule.options
        lenient.isLenient = true
        if rule.lenientAccepts {
            #expect(throws: Never.self) { _ = try read(Data(rule.rejected), lenient) }
        } else {
            #expect(throws: PropertyListError.self) { _ = try read(Data(rule.rejected), lenient) }
        }
    }

    /// An XML property list whose `<plist>` holds `body`.
    static func xml(_ body: String, prolog: String = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n") -> [UInt8] {
        Array((prolog + "<plist version=\"1.0\">" + body + "</plist>").utf8)
    }

    static func xmlRule(_ name: String, _ evidence: String, accepted: Any, _ rejected: [UInt8], foundation: ReaderRule.Verdict,
                        plistlib: ReaderRule.Verdict? = nil, lenientAccepts: Bool = false,
                        options: PropertyListReadingOptions = .init()) -> ReaderRule {
        ReaderRule(name: "xml: " + name, evidence: evidence, accepted: written(accepted, .xml), rejected: rejected,
                   code: options.maximumDepth < PropertyListReadingOptions().maximumDepth ? .tooDeep
                       : options.maximumObjectCount < PropertyListReadingOptions().maximumObjectCount ? .limitExceeded : .invalidXML,
                   foundation: foundation, plistlib: plistlib, lenientAccepts: lenientAccepts, options: options)
    }

    static let xmlRules: [ReaderRule] = [
        xmlRule("invalid UTF-8", "CFPropertyList.c / swift-foundation XMLPlistScanner: the document is UTF-8 (or UTF-16 with a BOM)",
                accepted: ["é"], xml("<string>\u{FFFD}</string>").map { $0 == 0xBD ? 0xFF : $0 }, foundation: .rejects, plistlib: .rejects),
        xmlRule("UTF-16 with an odd number of bytes", "a UTF-16 document is whole code units",
                accepted: ["a"], [0xFF, 0xFE, 0x3C], foundation: .rejects, plistlib: .rejects),
        xmlRule("no root element", "swift-foundation XMLPlistScanner: a document holds one value",
                accepted: ["a"], Array("<?xml version=\"1.0\"?>".utf8), foundation: .rejects, plistlib: .rejects),
        xmlRule("empty <plist>", "swift-foundation XMLPlistScanner: <plist> holds exactly one value",
                accepted: ["a"], xml(""), foundation: .rejects, plistlib: .accepts),
        xmlRule("two values in <plist>", "swift-foundation XMLPlistScanner: <plist> holds exactly one value",
                accepted: ["a"], xml("<string>a</string><string>b</string>"), foundation: .rejects, plistlib: .accepts),
        xmlRule("text after the root element", "XML 1.0: nothing but misc after the document element; plistlib (expat) refuses it",
                accepted: ["a"], xml("<string>a</string>") + Array("junk".utf8), foundation: .accepts, plistlib: .rejects),
        xmlRule("unknown element", "swift-foundation XMLPlistScanner: only the plist DTD's elements",
                accepted: ["a"], xml("<strong>a</strong>"), foundation: .rejects, plistlib: .accepts),
        xmlRule("mismatched closing tag", "XML 1.0 well-formedness; swift-foundation XMLPlistScanner",
                accepted: ["a"], xml("<array><string>a</array>"), foundation: .rejects, plistlib: .rejects),
        xmlRule("unclosed element", "XML 1.0 well-formedness",
                accepted: ["a"], Array("<plist version=\"1.0\"><array><string>a</string>".utf8), foundation: .rejects, plistlib: .rejects),
        xmlRule("<key> outside a <dict>", "plistlib: \"unexpected key\" (the DTD puts <key> in <dict> only); Foundation reads a string",
                accepted: ["k": 1], xml("<array><key>k</key></array>"), foundation: .accepts, plistlib: .rejects),
        xmlRule("dictionary value without a key", "swift-foundation XMLPlistScanner: <dict> alternates <key> and a value",
                accepted: ["k": 1], xml("<dict><string>v</string></dict>"), foundation: .rejects, plistlib: .rejects),
        xmlRule("key without a value", "swift-foundation XMLPlistScanner: every <key> has a value",
                accepted: ["k": 1], xml("<dict><key>k</key></dict>"), foundation: .rejects, plistlib: .rejects),
        xmlRule("text inside a container", "swift-foundation XMLPlistScanner: containers hold elements and whitespace",
                accepted: [1], xml("<array>x<integer>1</integer></array>"), foundation: .rejects, plistlib: .accepts),
        xmlRule("empty <integer>", "swift-foundation XMLPlistScanner: an integer has digits",
                accepted: [1], xml("<integer></integer>"), foundation: .rejects, plistlib: .rejects),
        xmlRule("letter in <integer>", "swift-foundation XMLPlistScanner: digits with an optional sign (or 0x)",
                accepted: [1], xml("<integer>12a</integer>"), foundation: .rejects, plistlib: .rejects),
        xmlRule("<integer> above UInt64.max", "swift-foundation XMLPlistScanner: an integer fits 64 bits",
                accepted: [NSNumber(value: UInt64.max)], xml("<integer>18446744073709551616</integer>"), foundation: .rejects, plistlib: .accepts),
        xmlRule("<integer> below Int64.min", "swift-foundation XMLPlistScanner: an integer fits 64 bits",
                accepted: [Int64.min], xml("<integer>-9223372036854775809</integer>"), foundation: .rejects, plistlib: .accepts),
        xmlRule("misformatted <real>", "swift-foundation XMLPlistScanner: a decimal number, nan or inf",
                accepted: [2.5], xml("<real>2.5x</real>"), foundation: .rejects, plistlib: .rejects),
        xmlRule("<date> month 13", "plistlib: \"month must be in 1..12\"; Foundation rolls it over into the next year",
                accepted: [Date(timeIntervalSinceReferenceDate: 0)], xml("<date>2001-13-01T00:00:00Z</date>"), foundation: .accepts, plistlib: .rejects),
        xmlRule("<date> without its Z", "swift-foundation XMLPlistScanner: yyyy-mm-ddThh:mm:ssZ",
                accepted: [Date(timeIntervalSinceReferenceDate: 0)], xml("<date>2001-01-01T00:00:00</date>"), foundation: .rejects, plistlib: .rejects),
        xmlRule("character outside base64 in <data>", "none: plistlib and CF skip it (so does lenient); Foundation on Linux reads empty data",
                accepted: [Data([1, 2, 3])], xml("<data>AQ*ID</data>"), foundation: .accepts, plistlib: .accepts, lenientAccepts: true),
        xmlRule("unknown entity", "XML 1.0: only the five predefined entities without a DTD",
                accepted: ["<&>"], xml("<string>&nbsp;</string>"), foundation: .rejects, plistlib: .rejects),
        xmlRule("character reference to a surrogate", "XML 1.0 Char production excludes surrogates",
                accepted: ["é"], xml("<string>&#xD800;</string>"), foundation: .rejects, plistlib: .rejects),
        xmlRule("DOCTYPE with an internal subset", "entity declarations could expand without bound; Apple's writer never writes one",
                accepted: ["a"], xml("<string>a</string>", prolog: "<!DOCTYPE plist [<!ENTITY e \"x\">]>"), foundation: .rejects, plistlib: .rejects),
        xmlRule("XML declaration not at the start", "XML 1.0: the declaration opens the document; plistlib (expat) refuses it",
                accepted: ["a"], xml("<string>a</string>", prolog: "<!-- c --><?xml version=\"1.0\"?>"), foundation: .accepts, plistlib: .rejects),
        xmlRule("encoding other than UTF-8, UTF-16 or ISO-8859-1", "plistlib (expat) refuses an encoding it "
            + "does not know; reading it as UTF-8 would change the text",
                accepted: ["a"], xml("<string>\u{E9}</string>", prolog: "<?xml "
                    + "version=\"1.0\" encoding=\"x-unknown\"?>"), foundation: .rejects, plistlib: .rejects),
        xmlRule("unterminated comment", "XML 1.0 well-formedness",
                accepted: ["a"], xml("<string>a</string><!-- x"), foundation: .rejects, plistlib: .rejects),
        xmlRule("UTF-32 document", "swift-foundation XMLPlistScanner reads UTF-8 and UTF-16",
                accepted: ["a"], [0x00, 0x00, 0xFE, 0xFF, 0, 0, 0, 0x3C], foundation: .rejects, plistlib: .rejects),
        xmlRule("a second DOCTYPE", "XML 1.0: one document type declaration; plistlib (expat) refuses it",
                accepted: ["a"], xml("<string>a</string>", prolog: "<!DOCTYPE plist><!DOCTYPE plist>"), foundation: .accepts, plistlib: .rejects),
        xmlRule("markup declaration outside a DOCTYPE", "XML 1.0: declarations belong in the DOCTYPE",
                accepted: ["a"], xml("<string>a</string>", prolog: "<!ENTITY e \"x\">"), foundation: .rejects, plistlib: .rejects),
        xmlRule("element after the root element", "XML 1.0: one document element; plistlib (expat) refuses it",
                accepted: ["a"], xml("<string>a</string>") + Array("<string>b</string>".utf8), foundation: .accepts, plistlib: .rejects),
        xmlRule("<plist> inside a value", "Apple's PropertyList-1.0.dtd: <plist> is no plistObject, so only the root (Foundation and plistlib skip it)",
                accepted: [["a"]], xml("<array><plist><string>a</string></plist></array>"), foundation: .accepts, plistlib: .accepts),
        xmlRule("empty <integer/>", "swift-foundation XMLPlistScanner: an integer has digits",
                accepted: [1], xml("<array><integer/></array>"), foundation: .rejects, plistlib: .rejects),
        xmlRule("unterminated CDATA section", "XML 1.0 well-formedness",
                accepted: ["a"], xml("<string><![CDATA[a</string>"), foundation: .rejects, plistlib: .rejects),
        xmlRule("unterminated attribute value", "XML 1.0 well-formedness; plistlib (expat) refuses it",
                accepted: ["a"], Array("<plist version=\"1.0><string>a</string></plist>".utf8), foundation: .accepts, plistlib: .rejects),
        xmlRule("element inside <string>", "Apple's PropertyList-1.0.dtd: <string> holds text only",
                accepted: ["a"], xml("<string>a<b/></string>"), foundation: .rejects, plistlib: .accepts),
        xmlRule("'<' in an attribute value", "XML 1.0 AttValue production; plistlib (expat) refuses it",
                accepted: ["a"], Array("<plist version=\"<1\"><string>a</string></plist>".utf8), foundation: .accepts, plistlib: .rejects),
        xmlRule("character reference above U+10FFFF", "XML 1.0 Char production",
                accepted: ["a"], xml("<string>&#x110000;</string>"), foundation: .rejects, plistlib: .rejects),
        xmlRule("empty character reference", "XML 1.0 CharRef production; plistlib (expat) refuses it",
                accepted: ["a"], xml("<string>&#;</string>"), foundation: .accepts, plistlib: .rejects),
        xmlRule("unterminated entity reference", "XML 1.0 Reference production",
                accepted: ["a"], xml("<string>&amp</string>"), foundation: .rejects, plistlib: .rejects),
        xmlRule("base64 text after its padding", "none: plistlib stops at the padding, Foundation decodes on (so does lenient)",
                accepted: [Data([1, 2, 3])], xml("<data>AQ==AQID</data>"), foundation: .accepts, plistlib: .accepts, lenientAccepts: true),
        xmlRule("base64 padding after one character", "plistlib refuses it (Foundation reads a zero byte)",
                accepted: [Data([1, 2, 3])], xml("<data>A===</data>"), foundation: .accepts, plistlib: .rejects),
        xmlRule("base64 with a lone final character", "6 bits are no byte",
                accepted: [Data([1, 2, 3])], xml("<data>AQIDB</data>"), foundation: .accepts, plistlib: .rejects),
        xmlRule("<date> hour 24", "plistlib: \"hour must be in 0..23\"",
                accepted: [Date(timeIntervalSinceReferenceDate: 0)], xml("<date>2001-01-01T24:00:00Z</date>"), foundation: .accepts, plistlib: .rejects),
        xmlRule("<real> exponent without digits", "Foundation and plistlib refuse a misformatted real",
                accepted: [2.5], xml("<real>2.5e</real>"), foundation: .rejects, plistlib: .rejects),
        xmlRule("nesting deeper than the limit", "a resource limit of the caller's (maximumDepth), as CF's depth limit",
                accepted: [[1]], xml("<array><array><integer>1</integer></array></array>"), foundation: .accepts,
                options: { var o = PropertyListReadingOptions(); o.maximumDepth = 1; return o }()),
        xmlRule("more values than the limit", "a resource limit of the caller's (maximumObjectCount)",
                accepted: [1], xml("<array><integer>1</integer></array>"), foundation: .accepts,
                options: { var o = PropertyListReadingOptions(); o.maximumObjectCount = 1; return o }()),
    ]

    @Test(arguments: xmlRules)
    func xmlRule(_ rule: ReaderRule) throws {
        try Self.check(rule) { try XMLPropertyListReader(options: $1).read($0) }
    }

    /// plistlib's verdict on each rejected input that has one.
    @Test(.requiresPlistlib, arguments: (binaryRules + xmlRules).filter { $0.plistlib != nil })
    func plistlibVerdict(_ rule: ReaderRule) throws {
        #expect(try Self.plistlibVerdict(rule.rejected) == rule.plistlib)
    }

    /// Lenient base64 decodes on after a padded quantum, as Foundation does.
    @Test func lenientBase64DecodesOnAfterPaddingAsFoundationDoes() throws {
        var lenient = PropertyListReadingOptions()
        lenient.isLenient = true
        for text in ["AQ==AQID", "AQI=AQID", "AQ==AQ=="] {
            let document = Data(Self.xml("<data>\(text)</data>"))
            let theirs = try PropertyListSerialization.propertyList(from: document, options: [], format: nil)
            #expect(try XMLPropertyListReader(options: lenient).read(document) == .data(try #require(theirs as? Data)), "\(text)")
        }
    }

    /// A document that declares ISO-8859-1 reads by its declaration, as Foundation and plistlib read it.
    @Test func latin1DeclarationReadsAsFoundationReadsIt() throws {
        let document = Data("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><plist version=\"1.0\"><string>caf".utf8)
            + Data([0xE9]) + Data("</string></plist>".utf8)
        let theirs = try PropertyListSerialization.propertyList(from: document, options: [], format: nil)
        #expect(try XMLPropertyListReader().read(document) == .string("café"))
        #expect(theirs as? String == "café")
    }
}
