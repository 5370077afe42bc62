#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One difference between two versions of an archive, found by ``ForensicDocument/differences(to:)``.
public struct ForensicDifference: Hashable, Sendable {
    /// What changed.
    public enum Kind: String, Hashable, Sendable {
        /// A value is at this path only in the new version.
        case added
        /// A value is at this path only in the old version.
        case removed
        /// The value at this path differs (a scalar, or a value of another kind).
        case changed
        /// The object at this path is of another class.
        case classChanged = "class changed"
        /// The path now refers to an object shown at another path (shared), where it held its own value.
        case sharingAppeared = "sharing appeared"
        /// The path now holds its own value, where it referred to an object shown at another path.
        case sharingWent = "sharing went"
    }

    /// What changed.
    public var kind: Kind
    /// Where, in both versions.
    public var path: ForensicPath
    /// The old value (nil when added).
    public var old: ForensicValue?
    /// The new value (nil when removed).
    public var new: ForensicValue?

    /// A difference of `kind` at `path` from `old` to `new`.
    public init(kind: Kind, path: ForensicPath, old: ForensicValue?, new: ForensicValue?) {
        self.kind = kind
        self.path = path
        self.old = old
        self.new = new
    }
}

extension ForensicDocument {
    /// What changed from this document to `new`: objects are matched by their path from the root (`$top`
    /// of a keyed archive), never by UID, so renumbered objects that hold the same values are equal.
    ///
    /// Fields and dictionary entries are matched by key, array elements by index. An object of another class
    /// is reported once (``ForensicDifference/Kind/classChanged``) and its fields are compared too. A path
    /// that became a reference to an object shown elsewhere, or stopped being one, is reported as sharing
    /// that appeared or went; two references that point at different paths are ``ForensicDifference/Kind/changed``.
    /// Nested payloads are compared by format and then by their decoded values. Iterative, so any depth is safe.
    ///
    /// - Parameter new: the newer version.
    /// - Returns: the differences, depth first in the old version's stored order; empty when they are equal.
    public func differences(to new: ForensicDocument) -> [ForensicDifference] {
        var found: [ForensicDifference] = []
        var pending: [(ForensicPath, ForensicValue, ForensicValue)] = [(rootPath, root, new.root)]
        if format != new.format || rootPath != new.rootPath {
            return [ForensicDifference(kind: .changed, path: rootPath, old: root, new: new.root)]
        }
        while let (path, old, new) = pending.popLast() {
            var children: [(ForensicPath, ForensicValue, ForensicValue)] = []
            // A key that occurs more than once (an NSDictionary whose NS.keys repeat one) is matched
            // occurrence by occurrence: the n-th old entry of a key with the n-th new entry of that key.
            func matchByKey(_ old: [ForensicEntry], _ new: [ForensicEntry]) {
                var newByKey: [String: [ForensicValue]] = [:]
                for entry in new { newByKey[entry.key, default: []].append(entry.value) }
                var oldOccurrences: [String: Int] = [:]
                for entry in old {
                    let occurrence = oldOccurrences[entry.key, default: 0]
                    oldOccurrences[entry.key] = occurrence + 1
                    if let others = newByKey[entry.key], occurrence < others.count {
                        children.append((path.appending(key: entry.key), entry.value, others[occurrence]))
                    } else {
                        found.append(ForensicDifference(kind: .removed, path: path.appending(key: entry.key), old: entry.value, new: nil))
                    }
                }
                var newOccurrences: [String: Int] = [:]
                for entry in new {
                    let occurrence = newOccurrences[entry.key, default: 0]
                    newOccurrences[entry.key] = occurrence + 1
                    if occurrence >= oldOccurrences[entry.key, default: 0] {
                        found.append(ForensicDifference(kind: .added, path: path.appending(key: entry.key), old: nil, new: entry.value))
                    }
                }
            }
            switch (old, new) {
            case (.reference(let a), .reference(let b)):
                if a.target != b.target { found.append(ForensicDifference(kind: .changed, path: path, old: old, new: new)) }
            case (.reference, _):
                found.append(ForensicDifference(kind: .sharingWent, path: path, old: old, new: new))
            case (_, .reference):
                found.append(ForensicDifference(kind: .sharingAppeared, path: path, old: old, new: new))
            case (.object(let a), .object(let b)):
                if a.className != b.className { found.append(ForensicDifference(kind: .classChanged, path: path, old: old, new: new)) }
                matchByKey(a.fields, b.fields)
            case (.dictionary(let a), .dictionary(let b)):
                matchByKey(a, b)
            case (.array(let a), .array(let b)):
                for index in 0..<max(a.count, b.count) {
                    let at = path.appending(index: index)
                    if index >= b.count {
                        found.append(ForensicDifference(kind: .removed, path: at, old: a[index], new: nil))
                    } else if index >= a.count {
                        found.append(ForensicDifference(kind: .added, path: at, old: nil, new: b[index]))
                    } else {
                        children.append((at, a[index], b[index]))
                    }
                }
            case (.nested(let a), .nested(let b)):
                if a.format != b.format || a.error != b.error || (a.value == nil) != (b.value == nil) {
                    found.append(ForensicDifference(kind: .changed, path: path, old: old, new: new))
                } else if let innerA = a.value, let innerB = b.value {
                    children.append((a.rootPath ?? a.innerPath, innerA, innerB))
                }
            default:
                if !Self.isSameScalar(old, new) { found.append(ForensicDifference(kind: .changed, path: path, old: old, new: new)) }
            }
            pending.append(contentsOf: children.reversed())
        }
        return found
    }

    /// Whether two scalars are stored alike: reals and dates by their bits, so a NaN equals the same NaN.
    private static func isSameScalar(_ old: ForensicValue, _ new: ForensicValue) -> Bool {
        switch (old, new) {
        case (.real(let a), .real(let b)): return a.bitPattern == b.bitPattern
        case (.date(let a), .date(let b)):
            return a.timeIntervalSinceReferenceDate.bitPattern == b.timeIntervalSinceReferenceDate.bitPattern
        default: return old == new
        }
    }
}
