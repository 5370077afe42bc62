#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension XMLPropertyListScanner {
    // MARK: - UTF-8 validation

    enum UTF8Validity {
        case valid(isASCII: Bool)
        case invalid(offset: Int)
    }

    /// Checks that `bytes[start...]` is well-formed UTF-8 (no overlong forms, surrogates or values above U+10FFFF).
    static func validateUTF8(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> UTF8Validity {
        var i = start
        let n = bytes.count
        var ascii = true
        while i < n {
            let b0 = bytes[i]
            if b0 < 0x80 {
                i += 1
                continue
            }
            ascii = false
            func cont(_ k: Int) -> Bool { i + k < n && bytes[i + k] & 0xC0 == 0x80 }
            switch b0 {
            case 0xC2...0xDF:
                guard cont(1) else { return .invalid(offset: i) }
                i += 2
            case 0xE0...0xEF:
                guard cont(1), cont(2) else { return .invalid(offset: i) }
                let b1 = bytes[i + 1]
                if b0 == 0xE0 && b1 < 0xA0 { return .invalid(offset: i) }  // overlong
                if b0 == 0xED && b1 > 0x9F { return .invalid(offset: i) }  // surrogate
                i += 3
            case 0xF0...0xF4:
                guard cont(1), cont(2), cont(3) else { return .invalid(offset: i) }
                let b1 = bytes[i + 1]
                if b0 == 0xF0 && b1 < 0x90 { return .invalid(offset: i) }  // overlong
                if b0 == 0xF4 && b1 > 0x8F { return .invalid(offset: i) }  // above U+10FFFF
                i += 4
            default:
                return .invalid(offset: i)
            }
        }
        return .valid(isASCII: ascii)
    }
}
