/// A class as a typedstream stores it: its name, the version its `+version` reported when it was archived
/// (how old code told which fields a stream holds), and its superclass.
public struct TypedstreamClass: Hashable, Sendable {
    /// The class name (`NSMutableString`).
    public var name: String
    /// The class version the stream records (`NSString` 1, `NSObject` 0, `NSFont` 21 or 30...).
    public var version: Int
    /// The index of the superclass in ``TypedstreamArchive/classes``, or nil for a root class.
    public var superclass: Int?

    /// A class named `name`, at `version`, whose superclass is the class at index `superclass`.
    public init(name: String, version: Int, superclass: Int?) {
        self.name = name
        self.version = version
        self.superclass = superclass
    }
}
