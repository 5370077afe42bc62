/// Bounds the work of a walk that expands shared sub-trees (``PropertyListValue/description``, the XML
/// writer), so a small value whose containers share children cannot make it run for ever.
///
/// A property list read from a binary file can share one sub-tree between several containers (the format
/// refers to objects by number and the reader decodes a shared object once), and a program can build such
/// a value itself: containers that each hold the next one twice, 40 levels deep, make a value of 40
/// distinct containers with 2^40 paths. A walk that follows every path counts the values it visits; the
/// distinct values are counted once each, by the identity of their container's storage. The walk stays
/// within budget while it has visited at most ``repeatFactor`` times the distinct values it has seen, plus
/// ``allowance``: a tree without sharing always does (each value is visited once), and output bounded by
/// a small multiple of the value's size is the most a walk can produce.
///
/// Nothing is counted until ``allowance`` values have been visited, so small values pay nothing.
package struct PropertyListExpansionBudget {
    /// How many times, on average, a walk may visit each distinct value.
    static let repeatFactor = 16
    /// Visits always allowed, whatever the sharing.
    static let allowance = 100_000

    private var visited = 0
    /// Once counting has started: the containers seen (by storage identity), and what was visited since.
    private var seen: Set<StorageIdentity>?
    private var distinct = 0
    private var visitedSinceCounting = 0

    private struct StorageIdentity: Hashable {
        var keys: UnsafeRawPointer?
        var values: UnsafeRawPointer?
    }

    /// A budget with nothing visited yet.
    package init() {}

    /// What the budget allows, for error messages.
    package static var limitDescription: String {
        "\(repeatFactor) visits per distinct value plus \(allowance)"
    }

    /// Counts a visit of a container's elements; returns `false` once the walk is over budget.
    ///
    /// - Parameters:
    ///   - values: the container's elements (a dictionary's values).
    ///   - keys: a dictionary's keys, so dictionaries that share values but not keys count as distinct.
    package mutating func visit(_ values: [PropertyListValue], keys: [String]? = nil) -> Bool {
        visited += values.count
        guard visited > Self.allowance else { return true }
        if seen == nil { seen = [] }
        visitedSinceCounting += values.count
        let identity = StorageIdentity(
            keys: keys?.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) },
            values: values.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) })
        if seen?.insert(identity).inserted == true { distinct += values.count }
        return visitedSinceCounting <= Self.repeatFactor * distinct + Self.allowance
    }
}
