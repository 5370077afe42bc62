#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The kinds of payload forensic reading decodes, at the top level and nested inside data and strings.
public enum PayloadFormat: String, Hashable, Sendable, CaseIterable {
    /// A binary property list (`bplist00`) that is not a keyed archive.
    case binaryPropertyList = "binary property list"
    /// An XML property list that is not a keyed archive.
    case xmlPropertyList = "XML property list"
    /// An `NSKeyedArchiver` archive, binary or XML.
    case keyedArchive = "keyed archive"
    /// A typedstream (`NSArchiver`), starting `04 0B` and `streamtyped` or `typedstream`.
    case typedstream

    /// The short name used in provenance paths (`-> data -> typedstream -> ...`) and JSON.
    public var name: String {
        switch self {
        case .binaryPropertyList: return "bplist"
        case .xmlPropertyList: return "xmlplist"
        case .keyedArchive: return "keyedarchive"
        case .typedstream: return "typedstream"
        }
    }

    /// The format the first bytes of `data` announce, or nil when they announce none of these. A property
    /// list is named by its syntax here (`binaryPropertyList` or `xmlPropertyList`); whether it is a keyed
    /// archive is known only once it is read.
    ///
    /// The signatures are the writers' own: `bplist00` (CoreFoundation's binary writer; its reader takes
    /// `bplist0` and any version byte), `<?xml` or `<!DOCTYPE plist` or `<plist` after optional white space
    /// and a UTF-8 byte-order mark (Apple's XML writer), `04 0B streamtyped` / `04 0B typedstream`
    /// (NSArchiver on little- and big-endian machines).
    public static func sniff(_ data: Data) -> PayloadFormat? {
        if data.starts(with: "bplist0".utf8), data.count >= 8 { return .binaryPropertyList }
        if isTypedstream(data) { return .typedstream }
        var text = data[...]
        if text.starts(with: [0xEF, 0xBB, 0xBF]) { text = text.dropFirst(3) }
        text = text.drop(while: { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D })
        for opening in ["<?xml", "<!DOCTYPE plist", "<plist"] where text.starts(with: opening.utf8) {
            // An XML declaration alone says nothing of a property list: the root element must say it.
            if opening == "<?xml", text.prefix(512).firstRange(of: Array("<plist".utf8)) == nil { return nil }
            return .xmlPropertyList
        }
        return nil
    }

    /// Whether `data` starts as a typedstream does: `04 0B` and `streamtyped` (little-endian writer) or
    /// `typedstream` (big-endian writer).
    package static func isTypedstream(_ data: Data) -> Bool {
        guard data.count >= 13, data[data.startIndex] == 0x04, data[data.startIndex + 1] == 0x0B else { return false }
        let signature = data[(data.startIndex + 2) ..< (data.startIndex + 13)]
        return signature.elementsEqual("streamtyped".utf8) || signature.elementsEqual("typedstream".utf8)
    }
}
