#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Foundation's `NSNull`: a placeholder object, archived as an `NSNull` instance with no fields.
public struct ArchiveNull: KeyedArchivable, Hashable, Sendable {
    public static var archivedClassName: String { "NSNull" }
    /// The null value.
    public init() {}
    public init(from decoder: any ArchiveDecoder) throws {}
    public func encode(to encoder: any ArchiveEncoder) throws {}
}
