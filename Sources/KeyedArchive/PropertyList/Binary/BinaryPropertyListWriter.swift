#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes Apple's binary property-list format (`bplist00`). PLACEHOLDER: replaced by the engine work.
public struct BinaryPropertyListWriter: Sendable {
    /// A writer.
    public init() {}

    /// The smallest valid `bplist00` encoding of `value`.
    public func write(_ value: PropertyListValue) -> Data {
        Data()
    }
}
