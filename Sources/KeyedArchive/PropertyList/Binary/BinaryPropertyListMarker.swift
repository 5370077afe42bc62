/// The kind of a `bplist00` object: the high nibble of its marker byte.
///
/// Every object starts with a marker byte. Its high nibble says what the object is; its low nibble holds
/// a length, a width exponent or a singleton's value (see each case). The builder writes markers only
/// through this type and the reader decodes them only through it, so no other layer reads marker nibbles.
enum BinaryPropertyListMarker: UInt8 {
    /// `0x00` null, `0x08` false, `0x09` true, `0x0F` fill.
    case singleton = 0x0
    /// `0x1n`: an integer of `1 << n` bytes (1, 2, 4 unsigned; 8 signed; 16 a 128-bit value).
    case integer = 0x1
    /// `0x2n`: a real of `1 << n` bytes (4 or 8).
    case real = 0x2
    /// `0x33`: a date, seconds since 2001-01-01 as an 8-byte real.
    case date = 0x3
    /// `0x4n`: `n` bytes of data (`n == 0xF`: the count follows as an integer object).
    case data = 0x4
    /// `0x5n`: an ASCII string of `n` bytes.
    case asciiString = 0x5
    /// `0x6n`: a UTF-16 big-endian string of `n` code units.
    case utf16String = 0x6
    /// `0x7n`: a UTF-8 string of `n` bytes (no Apple reader decodes it; read only when lenient).
    case utf8String = 0x7
    /// `0x8n`: a UID of `n + 1` bytes.
    case uid = 0x8
    /// `0xAn`: an array of `n` object references.
    case array = 0xA
    /// `0xBn`: an ordered set (no Apple reader decodes it; read only when lenient).
    case orderedSet = 0xB
    /// `0xCn`: a set of `n` object references.
    case set = 0xC
    /// `0xDn`: a dictionary of `n` key references followed by `n` value references.
    case dictionary = 0xD

    /// The kind of the object whose marker byte is `byte`; nil for the unused high nibbles 9, E and F.
    ///
    /// A switch rather than `init(rawValue:)`, which the compiler leaves as a call: this runs for every
    /// object the reader visits, and the switch inlines to a table look-up.
    @inline(__always)
    init?(byte: UInt8) {
        switch byte >> 4 {
        case 0x0: self = .singleton
        case 0x1: self = .integer
        case 0x2: self = .real
        case 0x3: self = .date
        case 0x4: self = .data
        case 0x5: self = .asciiString
        case 0x6: self = .utf16String
        case 0x7: self = .utf8String
        case 0x8: self = .uid
        case 0xA: self = .array
        case 0xB: self = .orderedSet
        case 0xC: self = .set
        case 0xD: self = .dictionary
        default: return nil
        }
    }

    /// The marker byte of this kind with `nibble` in its low four bits.
    @inline(__always)
    func byte(nibble: UInt8) -> UInt8 { rawValue << 4 | nibble }

    /// The low nibble that says "the count follows as an integer object".
    static let extendedCount: UInt8 = 0x0F

    /// The low nibble of a marker byte.
    @inline(__always)
    static func nibble(_ byte: UInt8) -> UInt8 { byte & 0x0F }

    /// The singletons' marker bytes.
    static let nullByte: UInt8 = 0x00
    static let falseByte: UInt8 = 0x08
    static let trueByte: UInt8 = 0x09
    static let fillByte: UInt8 = 0x0F

    /// The name of a container kind in messages ("array", "ordered set", "set", "dictionary").
    var containerName: String {
        switch self {
        case .array: "array"
        case .orderedSet: "ordered set"
        case .set: "set"
        default: "dictionary"
        }
    }

    /// Whether objects of this kind hold object references (array, ordered set, set, dictionary).
    var isContainer: Bool { rawValue >= Self.array.rawValue }

    /// How many object references a container of this kind with `count` entries holds: a dictionary
    /// has a key and a value reference per entry.
    @inline(__always)
    func referenceCount(entries count: Int) -> Int { self == .dictionary ? 2 * count : count }
}

/// The number of an object in a binary property list: its index in the offset table, and what an object
/// reference holds. The root written by ``BinaryPropertyListBuilder`` is number 0.
struct BinaryPropertyListObjectNumber: Hashable, Comparable {
    /// The number. A file written by this package has fewer than 2^32 objects.
    var rawValue: UInt32

    @inline(__always)
    init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Object number `index` (below 2^32).
    @inline(__always)
    init(_ index: Int) { rawValue = UInt32(truncatingIfNeeded: index) }

    /// The number as an index into the offset table.
    @inline(__always)
    var index: Int { Int(rawValue) }

    static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}
