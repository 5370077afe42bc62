#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// `URLComponents` has no Foundation class form to write: NSURLComponents adopts NSCopying only, not NSCoding, in
// Apple's SDK headers, in swift-corelibs-foundation and in GNUstep, so no NSKeyedArchiver writes or reads one. It is
// archived as the object of its Codable form under one name on every platform, `Foundation.URLComponents`, and read
// field by field, because `URLComponents.init(from:)` stops the process on a scheme that is not RFC 3986's or a
// negative port (its `scheme` and `port` setters call `fatalError`, swift-foundation URLComponents.swift).

/// The object a `URLComponents` is archived as: `scheme`, `user`, `password`, `host`, `port`, `path`, `query` and
/// `fragment`, the keys of `URLComponents`' Codable form (each missing component as `$null`; `path` always
/// present), under the class name `Foundation.URLComponents` (`FoundationEssentials.URLComponents` is read too).
struct URLComponentsObject: KeyedArchivable {
    static var archivedClassName: String { "Foundation.URLComponents" }
    static var legacyClassNames: [String] { ["FoundationEssentials.URLComponents"] }
    let components: URLComponents

    init(_ components: URLComponents) { self.components = components }

    /// Reads the components, checking the scheme and the port before `URLComponents` sees them.
    /// - Throws: ``KeyedArchiveError/Code/dataCorrupted`` naming `scheme` for a scheme that is not a letter
    ///   followed by letters, digits, `+`, `-` and `.` (RFC 3986, section 3.1), and `port` for a negative port.
    init(from decoder: any ArchiveDecoder) throws {
        var components = URLComponents()
        let scheme = try decoder.decodeIfPresent(String.self, forKey: "scheme")
        if let scheme, !Self.isScheme(scheme) {
            throw foundationTypeError(decoder, className: Self.archivedClassName, key: "scheme",
                                      "\"\(scheme)\" is not a URL scheme (a letter, then letters, digits, +, - or .)")
        }
        let port = try decoder.decodeIfPresent(Int.self, forKey: "port")
        if let port, port < 0 {
            throw foundationTypeError(decoder, className: Self.archivedClassName, key: "port", "port \(port) is negative")
        }
        components.scheme = scheme
        components.user = try decoder.decodeIfPresent(String.self, forKey: "user")
        components.password = try decoder.decodeIfPresent(String.self, forKey: "password")
        components.host = try decoder.decodeIfPresent(String.self, forKey: "host")
        components.port = port
        components.path = try decoder.decode(String.self, forKey: "path")
        components.query = try decoder.decodeIfPresent(String.self, forKey: "query")
        components.fragment = try decoder.decodeIfPresent(String.self, forKey: "fragment")
        self.components = components
    }

    func encode(to encoder: any ArchiveEncoder) throws {
        func optional<V: ArchiveValue>(_ value: V?, _ key: String) throws {
            if let value { try encoder.encode(value, forKey: key) } else { try encoder.encodeNil(forKey: key) }
        }
        try optional(components.scheme, "scheme")
        try optional(components.user, "user")
        try optional(components.password, "password")
        try optional(components.host, "host")
        try optional(components.port, "port")
        try encoder.encode(components.path, forKey: "path")
        try optional(components.query, "query")
        try optional(components.fragment, "fragment")
    }

    /// RFC 3986's `scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`, the rule `URLComponents`' scheme
    /// setter enforces.
    static func isScheme(_ scheme: String) -> Bool {
        let bytes = scheme.utf8
        guard let first = bytes.first, first.isASCIILetter else { return false }
        return bytes.allSatisfy { $0.isASCIILetter || (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains($0)
            || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }
    }
}

private extension UInt8 {
    var isASCIILetter: Bool { (UInt8(ascii: "a") ... UInt8(ascii: "z")).contains(self | 0x20) }
}

/// `URLComponents` are archived as the object of their Codable form under the class name
/// `Foundation.URLComponents` on every platform (no Foundation class archives them: NSURLComponents does not adopt
/// NSCoding); `FoundationEssentials.URLComponents`, which earlier versions wrote on Linux, is read too.
/// - Throws: on reading, ``KeyedArchiveError/Code/dataCorrupted`` for an invalid scheme or a negative port.
extension URLComponents: ArchiveValue {
    public func encode(to encoder: any ArchiveEncoder, forKey key: String) throws {
        try encoder.encodeObject(URLComponentsObject(self), forKey: key)
    }
    public static func decode(from decoder: any ArchiveDecoder, forKey key: String) throws -> URLComponents {
        try decoder.decodeObject(of: URLComponentsObject.self, forKey: key).components
    }
}
