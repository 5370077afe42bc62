#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The element names of Apple's plist DTD.
enum XMLPropertyListTag: Sendable {
    case plist, array, dict, key, string, data, date, real, integer, `true`, `false`

    var name: String {
        switch self {
        case .plist: return "plist"
        case .array: return "array"
        case .dict: return "dict"
        case .key: return "key"
        case .string: return "string"
        case .data: return "data"
        case .date: return "date"
        case .real: return "real"
        case .integer: return "integer"
        case .true: return "true"
        case .false: return "false"
        }
    }

    /// The tag whose name is exactly `name`, or `nil`.
    init?(_ name: UnsafeBufferPointer<UInt8>) {
        func equals(_ s: StaticString) -> Bool {
            guard s.utf8CodeUnitCount == name.count else { return false }
            let p = s.utf8Start
            for i in 0..<name.count where p[i] != name[i] { return false }
            return true
        }
        guard let first = name.first else { return nil }
        switch first {
        case UInt8(ascii: "a") where equals("array"): self = .array
        case UInt8(ascii: "d") where equals("dict"): self = .dict
        case UInt8(ascii: "d") where equals("data"): self = .data
        case UInt8(ascii: "d") where equals("date"): self = .date
        case UInt8(ascii: "f") where equals("false"): self = .false
        case UInt8(ascii: "i") where equals("integer"): self = .integer
        case UInt8(ascii: "k") where equals("key"): self = .key
        case UInt8(ascii: "p") where equals("plist"): self = .plist
        case UInt8(ascii: "r") where equals("real"): self = .real
        case UInt8(ascii: "s") where equals("string"): self = .string
        case UInt8(ascii: "t") where equals("true"): self = .true
        default: return nil
        }
    }
}
