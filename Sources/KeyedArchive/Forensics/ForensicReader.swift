#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads a keyed archive, a typedstream or a property list as one ``ForensicValue`` tree, and decodes the
/// payloads found inside its data values and strings where they stand, to a depth limit, each with its
/// provenance path.
///
/// ```
/// $top.root.parts[2] -> data -> typedstream -> NSAttributedString.string
/// ```
///
/// Every nested payload is read with the same reading options and unarchiver limits as the outer input,
/// and all of them share one budget of values and one of bytes, sized from the outer input, so an input
/// whose nested copies multiply cannot expand past a bound. A nested payload that does not decode is kept
/// with its error (``NestedPayload/error``); a limit that is reached stops the whole read with an error
/// that names the limit and the path.
///
/// There is no corresponding Foundation API.
public struct ForensicReader: Sendable {
    /// The bounds of one read. Each default rests on the input's size, so the work stays proportional to it.
    public struct Limits: Hashable, Sendable {
        /// The most hops into nested payloads on one path (16). A payload nested deeper stops the read.
        public var maximumNestingDepth = 16
        /// The most levels of values on one path, counted across all hops (512, CoreFoundation's depth
        /// limit for property lists). Deeper values stop the read.
        public var maximumValueDepth = 512
        /// The most values the whole tree may hold, nested payloads included; nil for 4 per input byte plus
        /// 4,096 (`archive-dump`'s output budget).
        public var maximumValueCount: Int?
        /// The most bytes all nested payloads may hold together; nil for 4 per input byte plus 1 MiB. A
        /// payload is part of its enclosing one, so only payloads read more than once (shared, or
        /// multiplied by sharing inside them) come near it.
        public var maximumNestedByteCount: Int?

        /// The default limits.
        public init() {}
    }

    /// The bounds of one read.
    public var limits = Limits()
    /// Whether payloads inside data values and strings are decoded (true); when false they stay bytes and
    /// strings.
    public var decodesNestedPayloads = true
    /// The unarchiver limits for typedstreams, the outer input's and the nested ones'.
    public var unarchiverLimits = KeyedUnarchiver.Limits()
    /// The property-list reading options, the outer input's and the nested ones'.
    public var readingOptions = PropertyListReadingOptions()

    /// A reader with the default limits that decodes nested payloads.
    public init() {}

    /// Reads `data`: a typedstream, or a binary or XML property list (a keyed archive when it is one).
    ///
    /// - Parameter data: the input's bytes.
    /// - Returns: the input's format and its tree.
    /// - Throws: ``KeyedArchiveError``: ``KeyedArchiveError/Code/limitExceeded`` when a limit of ``limits``
    ///   is reached (its key path is where), ``KeyedArchiveError/Code/invalidPropertyList`` or the archive's
    ///   first fault when the input does not read; ``TypedstreamError`` when a typedstream does not read.
    public func read(_ data: Data) throws -> ForensicDocument {
        let session = ForensicReadingSession(reader: self, inputByteCount: data.count)
        do {
            return try runOnThread(levels: limits.maximumValueDepth + 64, bytesPerLevel: KeyedUnarchiver.defaultStackBytesPerLevel) {
                try session.readDocument(data, at: ForensicPath([]), level: 0)
            }
        } catch let limit as ForensicLimitReached {
            throw limit.error
        }
    }

    /// The bytes hexadecimal `text` spells (an even number of digits, either case, nothing else), or nil.
    package static func bytes(hex text: String) -> Data? {
        ForensicReadingSession.hexBytes(text)
    }

    /// Whether `root` is a keyed archive: a dictionary with `$archiver` and `$objects`, or with `$top`.
    package static func isKeyedArchive(_ root: PropertyListValue) -> Bool {
        guard case .dictionary(let d) = root else { return false }
        return d["$archiver"] != nil && (d["$objects"] != nil || d["$top"] != nil)
    }
}

/// A limit of ``ForensicReader/Limits`` reached: passes through the readers of nested payloads (whose own
/// failures are kept on the payload) to the top, where its error is thrown.
struct ForensicLimitReached: Error {
    let error: KeyedArchiveError
}
