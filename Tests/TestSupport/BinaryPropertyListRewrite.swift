import Foundation

/// Rewrites a binary property list whose objects lie one after another in the order of their offsets
/// (Foundation's `PropertyListSerialization` and `NSKeyedArchiver`, this package's writer) into forms no
/// writer writes but CoreFoundation reads: offset-table entries or object references of another width, an
/// offset-table entry that no reference leads to.
public enum BinaryPropertyListRewrite {
    /// The trailer's fields.
    public struct Trailer {
        public var offsetSize: Int
        public var referenceSize: Int
        public var count: Int
        public var top: Int
        public var tableOffset: Int
    }

    /// The trailer of `file`, a binary property list of at least 32 bytes whose fields fit an `Int`.
    public static func trailer(_ file: [UInt8]) -> Trailer {
        let t = file.count - 32
        func field(_ at: Int) -> Int { file[at ..< at + 8].reduce(0) { $0 << 8 | Int($1) } }
        return Trailer(offsetSize: Int(file[t + 6]), referenceSize: Int(file[t + 7]), count: field(t + 8),
                       top: field(t + 16), tableOffset: field(t + 24))
    }

    /// `file` with `offsetSize`-byte offset-table entries and `referenceSize`-byte object references (nil:
    /// as in `file`, offsets wider when they must reach further), the bytes of an entry or reference above its low 8 set to `high`. The objects keep
    /// their order; containers get their references in the new width, so objects after one move when
    /// `referenceSize` changes (with it unchanged, every object keeps its offset).
    public static func widened(_ file: Data, offsetSize: Int? = nil, referenceSize: Int? = nil, high: UInt8 = 0) -> Data {
        let bytes = [UInt8](file)
        let old = trailer(bytes)
        let newReferenceSize = referenceSize ?? old.referenceSize
        let offsets = (0 ..< old.count).map { n in number(bytes, old.tableOffset + n * old.offsetSize, old.offsetSize) }
        let order = offsets.indices.sorted { offsets[$0] < offsets[$1] }
        var out = Array(bytes[0 ..< 8])
        var moved = offsets
        for (i, n) in order.enumerated() {
            let start = offsets[n]
            let end = i + 1 < order.count ? offsets[order[i + 1]] : old.tableOffset
            moved[n] = out.count
            let marker = bytes[start]
            guard (0xA ... 0xD).contains(marker >> 4) else {
                out += bytes[start ..< end]
                continue
            }
            // The count: the marker's low nibble, or an integer object after it when that is 0xF.
            var header = 1
            var entries = Int(marker & 0x0F)
            if entries == 0x0F {
                let width = 1 << Int(bytes[start + 1] & 0x0F)
                entries = number(bytes, start + 2, width)
                header = 2 + width
            }
            let references = marker >> 4 == 0xD ? 2 * entries : entries
            out += bytes[start ..< start + header]
            for k in 0 ..< references {
                out += bigEndian(number(bytes, start + header + k * old.referenceSize, old.referenceSize), newReferenceSize, high: high)
            }
            out += bytes[(start + header + references * old.referenceSize) ..< end]
        }
        let tableOffset = out.count
        // Unless given, the input's offset size, or a wider one of 2, 4 or 8 bytes if the objects moved past its reach.
        var newOffsetSize = offsetSize ?? old.offsetSize
        while offsetSize == nil, newOffsetSize < 8, tableOffset >> (8 * newOffsetSize) != 0 { newOffsetSize *= 2 }
        for offset in moved { out += bigEndian(offset, newOffsetSize, high: high) }
        out += bytes[(bytes.count - 32) ..< (bytes.count - 26)] + [UInt8(newOffsetSize), UInt8(newReferenceSize)]
        out += bigEndian(old.count, 8) + bigEndian(old.top, 8) + bigEndian(tableOffset, 8)
        return Data(out)
    }

    /// `file` with one more offset-table entry, `offset` (object number: the old object count), that no
    /// reference leads to. The object count grows by one; nothing else moves.
    public static func addingEntry(_ file: Data, offset: Int) -> Data {
        let bytes = [UInt8](file)
        let old = trailer(bytes)
        var out = Array(bytes[0 ..< (old.tableOffset + old.count * old.offsetSize)])
        out += bigEndian(offset, old.offsetSize)
        out += bytes[(bytes.count - 32) ..< (bytes.count - 24)]
        out += bigEndian(old.count + 1, 8) + bigEndian(old.top, 8) + bigEndian(old.tableOffset, 8)
        return Data(out)
    }

    /// The big-endian number in the low (at most) 8 of the `width` bytes at `start`.
    public static func number(_ bytes: [UInt8], _ start: Int, _ width: Int) -> Int {
        bytes[(start + max(0, width - 8)) ..< (start + width)].reduce(0) { $0 << 8 | Int($1) }
    }

    /// `value` as `width` big-endian bytes, those above the low 8 set to `high`.
    public static func bigEndian(_ value: Int, _ width: Int, high: UInt8 = 0) -> [UInt8] {
        (0 ..< width).map { i in
            let fromRight = width - 1 - i
            return fromRight >= 8 ? high : UInt8(truncatingIfNeeded: UInt64(value) >> UInt64(8 * fromRight))
        }
    }
}
