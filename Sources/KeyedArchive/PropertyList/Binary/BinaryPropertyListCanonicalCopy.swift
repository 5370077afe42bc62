#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A copy of a binary property list that CoreFoundation (CF) reads but the scanner refuses, laid out so that
/// the scanner reads it to the value CF reads: what a lenient read (``PropertyListReadingOptions/isLenient``)
/// reads when the scanner refuses the input.
///
/// The scanner takes offset and reference sizes 1...8 only and checks every offset-table entry up front, so
/// that no read after that check needs one. CF (`CFBinaryPList.c`) accepts more, and Foundation on Linux
/// reads these files too:
/// - an offset size above 8: `__CFBinaryPlistGetTopLevelInfo` takes any size of at least 1, and
///   `_getSizedInt` keeps an entry's low 8 bytes;
/// - a reference size above 8: likewise, `_getOffsetOfRefAt` keeps each reference's low 8 bytes;
/// - an offset-table entry below 8 (inside the header) of any object but the top one:
///   `__CFBinaryPlistGetTopLevelInfo` checks those entries against the table's offset only, and
///   `__CFBinaryPlistCreateObjectFiltered` refuses an offset below 8 only when a reference leads to it.
///
/// The copy holds, in order: the input's 8-byte header; a fill byte (`0x0F`, which the scanner refuses as a
/// value) when some object must fail only where a reference leads to it; when the reference size is above
/// 8, every container (array, ordered set, set, dictionary) again, its header as in the input followed by
/// the low 8 bytes of each reference; the input's object area, byte for byte; an offset table of 8-byte
/// entries; and the trailer, with offset size 8 and a reference size of at most 8. An entry points at the
/// object in the input's area, at its container's copy, or at the fill byte (an entry below 8, or a
/// container whose references do not fit the object area at the input's reference size, which CF refuses
/// when it reads it). Any other object reads the input's bytes, also one that overlaps a container, as in CF.
///
/// Errors of a read of the copy name the input's bytes (``inputError(_:)``).
struct BinaryPropertyListCanonicalCopy: Sendable {
    /// The rewritten file, for the scanner.
    let data: Data
    /// The input, from which ``inputError(_:)`` makes the errors of objects that point at the fill byte.
    private let input: Data
    /// The input's trailer, as read (sizes may be above 8).
    private let inputLayout: BinaryPropertyListScanner.Layout
    /// Whether the copy's object area starts with the fill byte (at byte 8).
    private let hasFill: Bool
    /// The containers copied with 8-byte references, in the order of the copy.
    private let containers: [CopiedContainer]
    /// How far the input's object area moved: an input byte of the object area is at its offset + `shift`.
    private let shift: Int
    /// Where the copy's offset table starts (the input's table offset + `shift`).
    private let tableOffset: Int

    /// A container copied with 8-byte references.
    struct CopiedContainer {
        /// Where the copy starts in ``data``.
        var copyOffset: Int
        /// Where the container starts in the input.
        var inputOffset: Int
        /// Its marker and count bytes, the same in both.
        var headerLength: Int
        /// Its references (a dictionary's keys and values).
        var references: Int
    }

    /// Where object `n` is in the copy, before the size of what precedes the input's object area is known.
    private enum Place {
        /// The object at this offset of the input's object area.
        case input(Int)
        /// The fill byte: reading the object fails.
        case fill
        /// The container copy with this index in `containers`.
        case container(Int)
    }

    /// The copy of `data`, or nil when the scanner's refusal of `data` stands: its offset and reference sizes
    /// are 1...8 and every entry lies in the object area (or it has no trailer, or a size of 0).
    ///
    /// - Throws: ``PropertyListError`` naming the input's bytes for what CF refuses too: a trailer field (the
    ///   scanner's rules that lenient reading keeps), an entry at or past the offset table, the top object's
    ///   entry below 8; ``PropertyListError/Code/limitExceeded`` when the copies of containers would be larger
    ///   than the object area (only containers whose references overlap make them so).
    init?(_ data: Data, options: PropertyListReadingOptions) throws {
        let headerSize = BinaryPropertyListScanner.headerSize
        let trailerSize = BinaryPropertyListScanner.trailerSize
        let size = data.count
        guard size >= headerSize + 1 + trailerSize else { return nil }
        let t = size - trailerSize
        let offsetSize = Int(data[data.startIndex + t + 6])
        let refSize = Int(data[data.startIndex + t + 7])
        guard offsetSize >= 1, refSize >= 1 else { return nil }
        let built: (data: Data, layout: BinaryPropertyListScanner.Layout, hasFill: Bool, containers: [CopiedContainer],
                    shift: Int, tableOffset: Int)? = try data.withUnsafeBytes { raw in
            let count = Self.low8(raw, t + 8, 8)
            let top = Self.low8(raw, t + 16, 8)
            let table = Self.low8(raw, t + 24, 8)
            // The scanner's trailer rules that lenient reading keeps, naming the input's bytes; the table then
            // ends before the trailer, so every entry below is inside the input.
            _ = try BinaryPropertyListScanner.checkedTableEnd(count: count, top: top, table: table, offsetSize: offsetSize,
                                                              trailer: t, options: options)
            let tableOffset = Int(table)
            let layout = BinaryPropertyListScanner.Layout(offsetSize: offsetSize, refSize: refSize, objectCount: Int(count),
                                                          topObject: Int(top), tableOffset: tableOffset,
                                                          maximumDepth: options.maximumDepth, isLenient: true)
            // Over the input, for its checks and errors only (its loads of 1...8-byte sizes are not used).
            let scanner = try BinaryPropertyListScanner(checked: raw, layout: layout, source: nil)
            var places: [Place] = []
            places.reserveCapacity(layout.objectCount)
            var containers: [CopiedContainer] = []
            var copied: [Int: Int] = [:]  // input offset of a container -> its index in `containers`
            var copiesSize = 0
            for n in 0 ..< layout.objectCount {
                let offset = Self.low8(raw, tableOffset + n * offsetSize, offsetSize)
                // CF __CFBinaryPlistGetTopLevelInfo: every entry lies before the table, the top object's at 8 or after.
                guard offset < table, offset >= UInt64(headerSize) || n != layout.topObject else {
                    try scanner.offsetEntryError(offset, n)
                }
                // CF __CFBinaryPlistCreateObjectFiltered refuses an offset below 8 when a reference leads to it.
                guard offset >= UInt64(headerSize) else {
                    places.append(.fill)
                    continue
                }
                let o = Int(offset)
                let marker = raw[o]
                // Containers only: 0xA array, 0xB ordered set, 0xC set, 0xD dictionary (one unsigned compare).
                guard refSize > 8, marker &- 0xA0 < 0x40 else {
                    places.append(.input(o))
                    continue
                }
                if let c = copied[o] {
                    places.append(.container(c))
                    continue
                }
                // A container whose references do not fit fails where it is read (CF: when it is read).
                guard let (entries, start) = try? scanner.checkedContainer(marker, at: o, object: n) else {
                    places.append(.fill)
                    continue
                }
                let references = BinaryPropertyListMarker(byte: marker) == .dictionary ? 2 * entries : entries
                let copySize = start - o + 8 * references
                // Disjoint containers' copies are smaller than the containers; overlapping ones could be quadratic.
                guard copiesSize + copySize <= tableOffset - headerSize else {
                    throw PropertyListError(.limitExceeded,
                                            "bplist: containers with \(refSize)-byte references, copied with 8-byte ones, would need more "
                                                + "than the object area's \(tableOffset - headerSize) bytes (their references overlap)",
                                            at: .init(byteOffset: o, objectNumber: n))
                }
                copied[o] = containers.count
                places.append(.container(containers.count))
                containers.append(CopiedContainer(copyOffset: copiesSize, inputOffset: o, headerLength: start - o, references: references))
                copiesSize += copySize
            }
            let hasFill = places.contains { if case .fill = $0 { true } else { false } }
            guard offsetSize > 8 || refSize > 8 || hasFill else { return nil }

            let fill = hasFill ? 1 : 0
            let shift = fill + copiesSize
            var out: [UInt8] = []
            out.reserveCapacity(tableOffset + shift + 8 * layout.objectCount + trailerSize)
            out += UnsafeRawBufferPointer(rebasing: raw[0 ..< headerSize])
            if hasFill { out.append(BinaryPropertyListMarker.fillByte) }
            for i in containers.indices {
                let c = containers[i]
                containers[i].copyOffset = out.count
                out += UnsafeRawBufferPointer(rebasing: raw[c.inputOffset ..< c.inputOffset + c.headerLength])
                let start = c.inputOffset + c.headerLength
                for k in 0 ..< c.references {
                    out += BinaryPropertyListScanner.bigEndianBytes(Self.low8(raw, start + k * refSize, refSize))
                }
            }
            out += UnsafeRawBufferPointer(rebasing: raw[headerSize ..< tableOffset])
            let newTable = out.count
            for place in places {
                let offset = switch place {
                case .input(let o): o + shift
                case .fill: headerSize
                case .container(let c): containers[c].copyOffset
                }
                out += BinaryPropertyListScanner.bigEndianBytes(UInt64(offset))
            }
            out += UnsafeRawBufferPointer(rebasing: raw[t ..< t + 6])
            out += [8, UInt8(min(refSize, 8))]
            out += BinaryPropertyListScanner.bigEndianBytes(count)
            out += BinaryPropertyListScanner.bigEndianBytes(top)
            out += BinaryPropertyListScanner.bigEndianBytes(UInt64(newTable))
            return (Data(out), layout, hasFill, containers, shift, newTable)
        }
        guard let built else { return nil }
        self.data = built.data
        self.input = data
        self.inputLayout = built.layout
        self.hasFill = built.hasFill
        self.containers = built.containers
        self.shift = built.shift
        self.tableOffset = built.tableOffset
    }

    /// Reads the copy with `read`; its errors name the input's bytes.
    func read(_ read: (Data) throws -> PropertyListValue) throws -> PropertyListValue {
        do {
            return try read(data)
        } catch let error as PropertyListError {
            throw inputError(error)
        }
    }

    /// `error`, thrown by a read of ``data``, as the input has it: its byte offset the input's, and an object
    /// that points at the fill byte failing with the input's reason (an entry below 8, or a container whose
    /// references do not fit), at the key path where the read met it.
    func inputError(_ error: PropertyListError) -> PropertyListError {
        guard let b = error.location.byteOffset else { return error }
        if hasFill, b == BinaryPropertyListScanner.headerSize, let n = error.location.objectNumber {
            var reason = inputObjectError(n)
            reason.location.keyPath = error.location.keyPath
            return reason
        }
        var mapped = error
        mapped.location.byteOffset = inputOffset(b)
        // The one message that names a place in the file: "... runs past the end of the object area at <table>".
        let end = "object area at \(tableOffset)"
        if mapped.message.hasSuffix(end) {
            mapped.message = mapped.message.dropLast(end.count) + "object area at \(inputLayout.tableOffset)"
        }
        return mapped
    }

    /// `error`, thrown by a keyed-archive read of ``data``, with its property-list fault as the input has it
    /// (``inputError(_:)``), in ``KeyedArchiveError/underlying`` and in the message that quotes it.
    func inputError(_ error: KeyedArchiveError) -> KeyedArchiveError {
        guard let fault = error.underlying else { return error }
        let input = inputError(fault)
        var mapped = error
        mapped.underlying = input
        if error.message.hasSuffix(fault.message) {
            mapped.message = error.message.dropLast(fault.message.count) + input.message
        }
        return mapped
    }

    /// The input's byte offset of byte `b` of the copy.
    private func inputOffset(_ b: Int) -> Int {
        let headerSize = BinaryPropertyListScanner.headerSize
        let areaStart = headerSize + shift  // where the input's object area starts in the copy
        if b < headerSize { return b }
        if b >= tableOffset {
            // The offset table (entry by entry), then the trailer.
            let entries = tableOffset + 8 * inputLayout.objectCount
            if b < entries { return inputLayout.tableOffset + (b - tableOffset) / 8 * inputLayout.offsetSize }
            return input.count - (data.count - b)
        }
        if b >= areaStart { return b - shift }
        // A container's copy: the last one starting at or before b.
        var low = 0, high = containers.count
        while low < high {
            let mid = (low + high) / 2
            if containers[mid].copyOffset <= b { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return b }
        let c = containers[low - 1]
        let within = b - c.copyOffset
        if within < c.headerLength { return c.inputOffset + within }
        return c.inputOffset + c.headerLength + (within - c.headerLength) / 8 * inputLayout.refSize
    }

    /// Why the input's object `n`, which the copy points at the fill byte, cannot be read: its entry is
    /// below 8, or its references do not fit the object area; the strict scanner's error for it.
    private func inputObjectError(_ n: Int) -> PropertyListError {
        let layout = inputLayout
        let entry = layout.tableOffset + n * layout.offsetSize
        return input.withUnsafeBytes { raw in
            do {
                let scanner = try BinaryPropertyListScanner(checked: raw, layout: layout, source: nil)
                let offset = Self.low8(raw, entry, layout.offsetSize)
                if offset < UInt64(BinaryPropertyListScanner.headerSize) { try scanner.offsetEntryError(offset, n) }
                let o = Int(offset)
                _ = try scanner.checkedContainer(raw[o], at: o, object: n)
            } catch let error as PropertyListError {
                return error
            } catch {}
            // Not reached: the copy points only such objects at the fill byte.
            return PropertyListError(.invalidObject, "bplist: object \(n) cannot be read", at: .init(byteOffset: entry, objectNumber: n))
        }
    }

    /// The big-endian number in the last (at most) 8 of the `width` bytes at `start` of `raw` (inside it):
    /// its low 8 bytes, as CF's `_getSizedInt` keeps them.
    private static func low8(_ raw: UnsafeRawBufferPointer, _ start: Int, _ width: Int) -> UInt64 {
        var value: UInt64 = 0
        for i in (start + max(0, width - 8)) ..< (start + width) { value = value << 8 | UInt64(raw[i]) }
        return value
    }
}

extension BinaryPropertyListScanner {
    /// The 8 big-endian bytes of `value`.
    static func bigEndianBytes(_ value: UInt64) -> [UInt8] {
        (0 ..< 8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * UInt64($0))) }
    }
}
