#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes Apple's XML property-list format. PLACEHOLDER: replaced by the XML work.
public struct XMLPropertyListWriter: Sendable {
    /// A writer.
    public init() {}

    /// The XML encoding of `value`.
    public func write(_ value: PropertyListValue) throws -> Data {
        throw PropertyListError(.unrepresentable, "XML writer not implemented yet")
    }
}
