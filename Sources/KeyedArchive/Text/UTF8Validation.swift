#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `bytes` as a string when they are valid UTF-8, else nil: what the standard library's
/// `String(validating:as:)` gives, on every platform the package supports (that initializer needs macOS 15,
/// iOS 18, tvOS 18, watchOS 11).
///
/// `String(decoding:as:)` repairs each invalid sequence (and so changes its bytes), so the bytes are valid
/// exactly when the decoded string's UTF-8 is byte for byte the input.
package func validatedUTF8String<Bytes: Collection>(_ bytes: Bytes) -> String? where Bytes.Element == UInt8 {
    if let result = bytes.withContiguousStorageIfAvailable({ validatedUTF8String(buffer: $0) }) { return result }
    return Array(bytes).withUnsafeBufferPointer { validatedUTF8String(buffer: $0) }
}

/// `bytes` as a string when they are valid UTF-8, else nil (see ``validatedUTF8String(_:)``).
package func validatedUTF8String(_ bytes: Data) -> String? {
    bytes.withUnsafeBytes { validatedUTF8String(buffer: $0.bindMemory(to: UInt8.self)) }
}

/// The check behind ``validatedUTF8String(_:)``, over contiguous bytes.
private func validatedUTF8String(buffer units: UnsafeBufferPointer<UInt8>) -> String? {
    var text = String(decoding: units, as: UTF8.self)
    let unchanged = text.withUTF8 { decoded in
        guard decoded.count == units.count else { return false }
        return decoded.elementsEqual(units)
    }
    return unchanged ? text : nil
}
