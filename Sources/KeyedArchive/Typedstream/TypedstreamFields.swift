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

    /// The next value, which must have the type `encoding` (a value may be one of several of a group).
    mutating func next(_ encoding: String) throws(TypedstreamError) -> TypedstreamValue {
        guard group < groups.count else { throw corrupted("it ends where a \(encoding.debugDescription) value should follow") }
        let current = groups[group]
        let types = TypedstreamTypeEncoding.split(current.encoding)
        guard value < types.count, types.count == current.values.count, types[value] == encoding else {
            throw corrupted("group \(group) has type \(current.encoding.debugDescription) where \(encoding.debugDescription) should follow")
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

    /// A `*` type encoding (NSNumber's, NSValue's) as text.
    mutating func typeEncoding() throws(TypedstreamError) -> String {
        guard case .cString(let bytes?) = try next("*"), let text = String(validating: bytes, as: UTF8.self), !text.isEmpty else {
            throw corrupted("its type encoding is not a C string")
        }
        return text
    }

    /// A count (`i` or `I`), checked against `bound` (by default the groups left: each element of an
    /// NSArray, NSSet or NSDictionary is at least one group).
    mutating func count(_ encoding: String, atMost bound: Int? = nil) throws(TypedstreamError) -> Int {
        let bound = bound ?? remainingGroups
        let stored = try next(encoding)
        let count: Int?
        switch stored {
        case .integer(let v): count = Int(exactly: v)
        case .unsignedInteger(let v): count = Int(exactly: v)
        default: count = nil
        }
        guard let count, count >= 0, count <= bound else {
            throw corrupted("count \(stored) is negative or more than the \(bound) it can be")
        }
        return count
    }

    func expectEnd() throws(TypedstreamError) {
        guard isAtEnd else { throw corrupted("\(groups.count - group) groups are left after its values") }
    }

    func corrupted(_ message: String) -> TypedstreamError {
        TypedstreamError(.dataCorrupted, message, objectIndex: objectIndex, className: className)
    }
}
