#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads Apple's XML property-list format. PLACEHOLDER: replaced by the XML work.
public struct XMLPropertyListReader: Sendable {
    /// The limits applied while reading.
    public var options: PropertyListReadingOptions

    /// A reader with the given limits.
    public init(options: PropertyListReadingOptions = .init()) { self.options = options }

    /// Reads the root value of an XML property list.
    public func read(_ data: Data) throws -> PropertyListValue {
        throw PropertyListError(.unknownFormat, "XML reader not implemented yet")
    }
}
