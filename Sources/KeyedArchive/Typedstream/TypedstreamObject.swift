/// An object as a typedstream stores it: its class and the groups of values its `encodeWithCoder:` wrote.
public struct TypedstreamObject: Hashable, Sendable {
    /// The index of its class in ``TypedstreamArchive/classes``.
    public var classIndex: Int
    /// The groups of values, in stream order.
    public var groups: [TypedstreamGroup]

    /// An object of the class at `classIndex` holding `groups`.
    public init(classIndex: Int, groups: [TypedstreamGroup]) {
        self.classIndex = classIndex
        self.groups = groups
    }
}
