#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How an archived NSURL (`NS.relative` string, `NS.base` URL or nil) becomes a `URL`, with the same result
/// on every platform for what Apple's, Foundation-on-Linux's and GNUstep's archivers write.
///
/// - An empty relative string with a base is the base itself: `NSURL(string: "", relativeTo: base)` has the
///   base's `absoluteString`, fragment included, in CoreFoundation (Foundation on Linux, checked in-process)
///   and in GNUstep (its oracle, which also writes this layout). Swift's `URL(string:relativeTo:)` returns
///   nil for an empty string on every platform (swift-foundation's URL.swift: "The public initializers
///   don't allow the empty string"), and no public `URL` initializer keeps an empty relative string, so the
///   result is the base's absolute URL: the `URL` that Foundation on Linux bridges that NSURL to.
/// - An empty relative string without a base has no `URL` (Foundation keeps an empty NSURL): it is refused.
/// - A relative string that RFC 3986 does not allow as it is (a character outside its unreserved, reserved
///   and `%` set, such as a space or a non-ASCII letter, or a `%` not followed by two hex digits) is
///   refused before it is parsed: URL parsing on macOS 14, iOS 17 and later and on Linux percent-encodes
///   such characters, macOS 13 and iOS 16 refuse them (Apple's `URL.init(string:)` documentation), and so
///   does Foundation on Linux's NSKeyedUnarchiver (its NSURL, CoreFoundation's parser, fails to decode
///   `"a b"` and `"café"`; checked in-process). Apple's archivers write NSURL's own relative string, which
///   is already encoded.
/// - Any other string is parsed by `URL(string:relativeTo:)`. What can still differ between platforms is how
///   CoreFoundation's older RFC 1808 parser (macOS 13, iOS 16) and the RFC 3986 parser of later systems and
///   Linux treat some strings of allowed characters, such as an unclosed IPv6 bracket (`"http://[::1"`):
///   refused here on Linux and macOS 14 and later, read on macOS 13.
enum ArchivedURLResolution {
    /// Why an archived NSURL has no `URL`, for the error message.
    enum Refusal: Error, Equatable {
        case emptyWithoutBase
        case characterNotAllowed(offset: Int)
        case unparsable
    }

    /// The `URL` of an archived NSURL whose `NS.relative` is `relative` and whose `NS.base` is `base`.
    static func url(relative: String, base: URL?) -> Result<URL, Refusal> {
        if relative.isEmpty {
            guard let base else { return .failure(.emptyWithoutBase) }
            return .success(base.absoluteURL)
        }
        if let offset = firstOffsetNotAllowed(in: relative) { return .failure(.characterNotAllowed(offset: offset)) }
        guard let url = URL(string: relative, relativeTo: base) else { return .failure(.unparsable) }
        return .success(url)
    }

    /// The UTF-8 offset of the first byte of `string` that RFC 3986 does not allow in a URI reference (a
    /// byte outside ALPHA, DIGIT, `-._~`, `:/?#[]@`, `!$&'()*+,;=` and `%`, or a `%` not followed by two
    /// hex digits), or nil when there is none.
    static func firstOffsetNotAllowed(in string: String) -> Int? {
        let bytes = Array(string.utf8)
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == UInt8(ascii: "%") {
                guard i + 2 < bytes.count, isHexDigit(bytes[i + 1]), isHexDigit(bytes[i + 2]) else { return i }
                i += 3
            } else {
                guard b < 0x80, allowed[Int(b)] else { return i }
                i += 1
            }
        }
        return nil
    }

    private static func isHexDigit(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || (b | 0x20 >= UInt8(ascii: "a") && b | 0x20 <= UInt8(ascii: "f"))
    }

    /// Per ASCII byte, whether RFC 3986 allows it unencoded in a URI reference (unreserved and reserved).
    private static let allowed: [Bool] = {
        var table = [Bool](repeating: false, count: 128)
        for b in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:/?#[]@!$&'()*+,;=".utf8 {
            table[Int(b)] = true
        }
        return table
    }()
}
