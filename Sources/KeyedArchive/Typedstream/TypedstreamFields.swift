#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The groups of one object, read in order with the types its class writes.
struct TypedstreamFields {
    let archive: TypedstreamArchive
    let objectIndex: Int
    let className: String
    private let groups: [TypedstreamGroup]
    private var group = 0
    private var value = 0

    init(archive: TypedstreamArchive, objectIndex: Int) {
        self.archive = archive
        self.objectIndex = objectIndex
        className = archive.className(ofObjectAt: objectIndex) ?? "?"
        groups = archive.objects[objectIndex].groups
    }

    var isAtEnd: Bool { group >= groups.count }
    /// The type encoding of the next group, or nil at the end.
    var nextEncoding: String? { group < groups.count ? groups[group].encoding : nil }
    var remainingGroups: Int { max(groups.count - group, 0) }

    /// The next value, which must have the type `encoding` (a value may be one of several of a group); nil
    /// takes the next value of the group ``enterGroup(_:)`` entered, whatever its type.
    mutating func next(_ encoding: String?) throws(TypedstreamError) -> TypedstreamValue {
        let expected = encoding ?? "any"
        guard group < groups.count else { throw corrupted("it ends where a \(expected.debugDescription) value should follow") }
        let current = groups[group]
        let types = TypedstreamTypeEncoding.split(current.encoding)
        guard value < types.count, types.count == current.values.count, encoding.map({ types[value] == $0 }) ?? true else {
            throw corrupted("group \(group) has type \(current.encoding.debugDescription) where \(expected.debugDescription) should follow")
        }
        defer {
            value += 1
            if value == types.count { group += 1; value = 0 }
        }
        return current.values[value]
    }

    /// The next whole group, whose encoding must be `encoding`.
    mutating func nextGroup(_ encoding: String) throws(TypedstreamError) -> [TypedstreamValue] {
        guard value == 0, group < groups.count, groups[group].encoding == encoding else {
            throw corrupted("group \(group) is not of type \(encoding.debugDescription)")
        }
        group += 1
        return groups[group - 1].values
    }

    /// Moves to the next group, whose encoding must be `encoding`, and returns how many values it holds
    /// (read them with `next(nil)`).
    mutating func enterGroup(_ encoding: String) throws(TypedstreamError) -> Int {
        guard value == 0, group < groups.count, groups[group].encoding == encoding,
              TypedstreamTypeEncoding.split(encoding).count == groups[group].values.count else {
            throw corrupted("group \(group) is not of type \(encoding.debugDescription)")
        }
        return groups[group].values.count
    }

    func expectEnd() throws(TypedstreamError) {
        guard isAtEnd else { throw corrupted("\(groups.count - group) groups are left after its values") }
    }

    func corrupted(_ message: String) -> TypedstreamError {
        TypedstreamError(.dataCorrupted, message, objectIndex: objectIndex, className: className)
    }
}
