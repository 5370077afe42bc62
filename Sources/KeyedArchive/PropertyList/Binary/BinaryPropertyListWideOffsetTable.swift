#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Rewrites a binary property list whose offset-table entries are wider than 8 bytes into one with 8-byte
/// entries, for a lenient read (``PropertyListReadingOptions/isLenient``); the scanner reads sizes 1...8 only.
///
/// CF (`CFBinaryPList.c`, `__CFBinaryPlistGetTopLevelInfo`) accepts any offset size of at least 1 and keeps
/// an entry's low 8 bytes (`_getSizedInt`); Foundation on Linux reads such a file too. The rewrite keeps the
/// header and the object area byte for byte at the same offsets, replaces each entry by its low 8 bytes and
/// sets the trailer's offset size to 8, so every object, and every byte offset an error names in it, is the
/// same as in the input. Bytes between the table and the trailer (which lenient reading accepts) are dropped.
///
/// The rewrite is smaller than the input (each entry shrinks from 9 or more bytes to 8); the trailer's fields
/// and every entry are checked first, with errors naming the input's byte offsets.
enum BinaryPropertyListWideOffsetTable {
    /// `data` rewritten with 8-byte offset-table entries when its trailer's offset size is above 8; nil
    /// when it is not (or the file is too short to have a trailer), for the scanner to read or refuse.
    ///
    /// - Throws: ``PropertyListError`` when a trailer field or an entry is outside what the scanner accepts.
    static func narrowed(_ data: Data, options: PropertyListReadingOptions) throws -> Data? {
        let size = data.count
        let trailerSize = BinaryPropertyListScanner.trailerSize
        let headerSize = BinaryPropertyListScanner.headerSize
        guard size >= headerSize + 1 + trailerSize else { return nil }
        let t = size - trailerSize
        let offsetSize = Int(data[data.startIndex + t + 6])
        guard offsetSize > 8 else { return nil }
        let bytes = [UInt8](data)

        /// The big-endian number in the last (at most) 8 of the `width` bytes at `start`: its low 8 bytes, as CF keeps them.
        func low8(_ start: Int, _ width: Int) -> UInt64 {
            bytes[(start + max(0, width - 8)) ..< (start + width)].reduce(0) { $0 << 8 | UInt64($1) }
        }
        let count = low8(t + 8, 8)
        let top = low8(t + 16, 8)
        let table = low8(t + 24, 8)
        // The scanner's trailer rules that lenient reading keeps, here so that their errors name the input's
        // offsets; the table then ends before the trailer, so count < size / 9.
        _ = try BinaryPropertyListScanner.checkedTableEnd(count: count, top: top, table: table, offsetSize: offsetSize,
                                                          trailer: t, options: options)
        let tableOffset = Int(table)
        var out = [UInt8]()
        out.reserveCapacity(tableOffset + Int(count) * 8 + trailerSize)
        out += bytes[0 ..< tableOffset]
        for n in 0 ..< Int(count) {
            let entry = tableOffset + n * offsetSize
            let offset = low8(entry, offsetSize)
            // CF __CFBinaryPlistGetTopLevelInfo: every entry's (low 8 bytes') offset lies before the table;
            // as for narrower entries, one below 8 is refused whether or not a reference reaches it.
            guard offset >= UInt64(headerSize), offset < table else {
                throw PropertyListError(.invalidReference,
                                        "bplist: offset-table entry \(offset) (its low 8 bytes) is outside the object area 8..<\(table)",
                                        at: .init(byteOffset: entry, objectNumber: n))
            }
            out += BinaryPropertyListScanner.bigEndianBytes(offset)
        }
        out += bytes[t ..< t + 6]
        out.append(8)
        out += bytes[(t + 7) ..< size]
        return Data(out)
    }
}

extension BinaryPropertyListScanner {
    /// The 8 big-endian bytes of `value`.
    static func bigEndianBytes(_ value: UInt64) -> [UInt8] {
        (0 ..< 8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) }
    }
}
