#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The two property-list encodings.
public enum PropertyListFormat: String, Sendable, Hashable, CaseIterable {
    /// Apple's binary format, `bplist00`.
    case binary
    /// Apple's XML format with the plist DOCTYPE.
    case xml
}

/// Limits applied while reading untrusted property lists.
public struct PropertyListReadingOptions: Sendable, Hashable {
    /// The deepest nesting of arrays, sets and dictionaries accepted. Default 512, as CoreFoundation.
    public var maximumDepth: Int = 512
    /// The most objects accepted in one binary file (the trailer's count). Default: 16,777,216.
    public var maximumObjectCount: Int = 1 << 24
    /// Whether to read binary property lists that CoreFoundation rejects but whose meaning is clear, as a
    /// forensic tool meeting damaged or non-Apple files wants to. Default `false`: the reader rejects what
    /// CoreFoundation's binary reader rejects.
    ///
    /// When `true`, the binary reader also accepts:
    /// - a trailer whose object count and offset table do not account for every byte of the file (the
    ///   table must still end before the trailer);
    /// - an object-reference size too small to address every object, or an offset size too small to reach
    ///   the offset table;
    /// - offset and object-reference sizes above 8 (each entry's and reference's low 8 bytes, as CF reads
    ///   them), and an offset-table entry inside the header (below 8) that no reference leads to (CF refuses
    ///   it only where a reference leads to it), read through ``BinaryPropertyListReader/read(_:)``,
    ///   ``PropertyListValue/init(propertyListData:options:)`` and every keyed-archive reader that takes
    ///   these options (``KeyedUnarchiver/readingOptions``, ``ArchivedObjectGraph/init(data:options:)``,
    ///   ``ArchivedObjectGraph/init(onDemand:options:)``, ``ArchivedObjectGraph/init(lenient:options:)``,
    ///   ``LazyArchivedObjectGraph/init(data:options:)``), through a canonical copy of the file in memory
    ///   made only after the strict reading has refused it; errors name the file's own bytes;
    /// - UTF-8 strings (marker `0x7n`) and ordered sets (`0xBn`, read as ``PropertyListValue/set(_:)-swift.enum.case``);
    /// - UIDs above `UInt32.max`, and 9-16-byte UIDs whose upper bytes are not zero (the low 8 bytes, as CF);
    /// - 16-byte integers outside `Int64.min ... UInt64.max`, and 16-byte extended counts (the low 8 bytes,
    ///   as CF);
    /// - ASCII strings (`0x5n`) whose bytes are neither ASCII nor UTF-8 (read as Latin-1, as Foundation on
    ///   Linux reads them), and UTF-16 strings with an unpaired surrogate (read as U+FFFD, as Foundation does).
    ///
    /// The XML reader, when `true`, skips characters outside the base64 alphabet in `<data>`, as plistlib
    /// and CoreFoundation do, and decodes on after a padded quantum, as Foundation on Linux does.
    ///
    /// Nothing that could make the reader misread memory, loop or recurse without bound is relaxed:
    /// every offset, count, reference, depth and cycle is checked either way.
    public var isLenient: Bool = false

    /// The default limits.
    public init() {}
}

extension PropertyListValue {
    /// Reads a property list, binary, XML or OpenStep (old-style ASCII, and `.strings` files), detected from
    /// the bytes.
    ///
    /// Binary is recognised by its `bplist` header. Text whose first character, after whitespace and comments,
    /// starts an OpenStep value (`{`, `(`, a quote, a letter or digit, or `<` followed by hex digits up to a
    /// `>`), and text of only whitespace and comments, is read by ``OpenStepPropertyListReader``, as
    /// Foundation reads it (`"hello"` is the string `hello`); other text starting with `<` is XML.
    ///
    /// Data values of a binary property list share `data`'s bytes (slices of it, no copy); see
    /// ``BinaryPropertyListReader/read(_:)`` for the lifetime and index rules.
    ///
    /// The corresponding Foundation API is `PropertyListSerialization.propertyList(from:options:format:)`.
    /// - Parameters:
    ///   - data: the bytes of a binary (`bplist00`), XML or OpenStep property list.
    ///   - options: limits for untrusted input.
    /// - Returns: the root value.
    /// - Throws: ``PropertyListError``, naming what was wrong and where; ``PropertyListError/Code/unknownFormat``
    ///   when the bytes start none of the three formats.
    public init(propertyListData data: Data, options: PropertyListReadingOptions = .init()) throws {
        let format = PropertyListValue.detectFormat(of: data)
        if format == .binary {
            self = try BinaryPropertyListReader(options: options).read(data)
        } else if OpenStepRecognition.recognizes(data) {
            self = try OpenStepPropertyListReader(options: options).read(data)
        } else if format == .xml {
            self = try XMLPropertyListReader(options: options).read(data)
        } else {
            throw PropertyListError(.unknownFormat, "not a binary (bplist00), XML or OpenStep property list",
                                    at: .init(byteOffset: 0))
        }
    }

    /// The format of `data`, judged from its first bytes, or `nil` if it looks like neither binary nor XML
    /// (OpenStep text has no ``PropertyListFormat``: it is read, never written).
    ///
    /// XML is recognised by a first `<` after optional whitespace, in UTF-8 (with or without a byte-order
    /// mark) or UTF-16 (with a byte-order mark, or a `<` paired with a zero byte).
    public static func detectFormat(of data: Data) -> PropertyListFormat? {
        if data.starts(with: Array("bplist".utf8)) { return .binary }
        let head = Array(data.prefix(1024))
        if head.starts(with: [0xFE, 0xFF]) || head.starts(with: [0xFF, 0xFE])
            || head.starts(with: [0x00, 0x3C]) || head.starts(with: [0x3C, 0x00])
        {
            return .xml
        }
        let body = head.starts(with: [0xEF, 0xBB, 0xBF]) ? head.dropFirst(3) : head[...]
        for byte in body {
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D: continue
            case UInt8(ascii: "<"): return .xml
            default: return nil
            }
        }
        return nil
    }

    /// Encodes this value as a property list.
    ///
    /// The corresponding Foundation API is `PropertyListSerialization.data(fromPropertyList:format:options:)`.
    /// - Parameter format: binary (the default, smallest) or XML.
    /// - Throws: ``PropertyListError`` with code ``PropertyListError/Code/unrepresentable`` when the
    ///   format cannot hold the value (XML has no sets).
    public func propertyListData(format: PropertyListFormat = .binary) throws -> Data {
        switch format {
        case .binary: return BinaryPropertyListWriter().write(self)
        case .xml: return try XMLPropertyListWriter().write(self)
        }
    }
}
