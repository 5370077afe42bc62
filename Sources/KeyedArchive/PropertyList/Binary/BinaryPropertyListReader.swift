#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads Apple's binary property-list format (`bplist00`). PLACEHOLDER: replaced by the engine work.
public struct BinaryPropertyListReader: Sendable {
    /// The limits applied while reading.
    public var options: PropertyListReadingOptions

    /// A reader with the given limits.
    public init(options: PropertyListReadingOptions = .init()) { self.options = options }

    /// Reads the root value of a binary property list.
    public func read(_ data: Data) throws -> PropertyListValue {
        throw PropertyListError(.unknownFormat, "binary reader not implemented yet")
    }
}
