extension TypedstreamFields {
    /// The next group, which must hold one value of one of the type characters `types`.
    mutating func nextGroup(ofOneTypeIn types: String) throws(TypedstreamError) -> TypedstreamValue {
        guard !isAtEnd else { throw corrupted("no value is left where one of type \(types.debugDescription) is read") }
        let encoding = nextEncoding ?? ""
        guard encoding.count == 1, types.contains(encoding) else {
            throw corrupted("the next group has type \(encoding.debugDescription) where one of \(types.debugDescription) is read")
        }
        return try nextGroup(encoding)[0]
    }
}
