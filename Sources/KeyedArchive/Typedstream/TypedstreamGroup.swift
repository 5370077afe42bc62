/// Values written by one `encodeValuesOfObjCTypes:` (or `encodeValueOfObjCType:at:`) call: a type encoding
/// string and one value per type in it.
public struct TypedstreamGroup: Hashable, Sendable {
    /// The Objective-C type encoding string, such as `"@"`, `"iI"` or `"{_NSPoint=ff}"`.
    public var encoding: String
    /// One value per type of ``encoding``, in order.
    public var values: [TypedstreamValue]

    /// A group of `values` of the types `encoding` lists.
    public init(encoding: String, values: [TypedstreamValue]) {
        self.encoding = encoding
        self.values = values
    }
}
