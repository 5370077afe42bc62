import Foundation
@testable import KeyedArchive

/// Compares two ``FoundationValue`` graphs for the differential tests and says where they differ.
///
/// Sets compare by their members whatever the order. Strings compare as NSString compares them (their
/// scalars), as ``FoundationValue``'s `==` does. The ``Allowance`` options relax exactly the known faults
/// of Foundation on Linux they name, and nothing else.
enum FoundationValueComparison {
    struct Allowance: OptionSet {
        let rawValue: Int

        /// Foundation on Linux's NSKeyedArchiver writes objects that are `-isEqual:` once (FORMAT-NOTES.md),
        /// and NSNumber's `-isEqual:` compares values across kinds, so `true`, `1` and `1.0` in one graph
        /// all read back as whichever was written first.
        static let equalNumbersMerge = Allowance(rawValue: 1)

        /// Foundation on Linux hands out an NSURL held in an NSArray, NSSet or NSDictionary as a Swift `URL`
        /// with its base folded in (`baseURL` nil: its bridging drops the base), so a URL read by Foundation
        /// compares by its absolute string when it comes without a base. The NSURL itself keeps its base.
        static let urlBasesResolved = Allowance(rawValue: 2)
    }

    /// Where and how `actual` differs from `expected`, or nil when it does not.
    static func difference(_ expected: FoundationValue, _ actual: FoundationValue, allowing: Allowance = [],
                           path: String = "root") -> String? {
        switch (expected, actual) {
        case (.array(let x), .array(let y)):
            guard x.count == y.count else { return "\(path): \(x.count) elements, found \(y.count)" }
            for (i, (u, v)) in zip(x, y).enumerated() {
                if let d = difference(u, v, allowing: allowing, path: "\(path)[\(i)]") { return d }
            }
            return nil
        case (.orderedSet(let x), .orderedSet(let y)):
            return members(Array(x), Array(y), ordered: true, allowing: allowing, path: path)
        case (.set(let x), .set(let y)):
            return members(Array(x), Array(y), ordered: false, allowing: allowing, path: path)
        case (.dictionary(let x), .dictionary(let y)):
            return entries(x.dictionary, y.dictionary, allowing: allowing, path: path)
        case (.url(let a), .url(let b)):
            // URL's == also compares how each was made; NSURL's -isEqual: compares the string and the base.
            if a.relativeString == b.relativeString, a.baseURL?.absoluteString == b.baseURL?.absoluteString { return nil }
            if allowing.contains(.urlBasesResolved), b.baseURL == nil, a.absoluteString == b.absoluteString { return nil }
            return "\(path): expected \(a) (base \(a.baseURL?.absoluteString ?? "none")), found \(b) (base \(b.baseURL?.absoluteString ?? "none"))"
        default:
            if expected == actual { return nil }
            if allowing.contains(.equalNumbersMerge), let a = number(expected), let b = number(actual), a == b { return nil }
            return "\(path): expected \(expected), found \(actual)"
        }
    }

    /// The numeric value of a boolean, integer or real, as NSNumber's `-isEqual:` compares them.
    private static func number(_ value: FoundationValue) -> Double? {
        switch value {
        case .bool(let b): return b ? 1 : 0
        case .integer(let i): return i.int64Value.map(Double.init) ?? i.uint64Value.map(Double.init)
        case .real(let d): return d
        default: return nil
        }
    }

    private static func members(_ x: [FoundationValue], _ y: [FoundationValue], ordered: Bool, allowing: Allowance,
                                path: String) -> String? {
        guard x.count == y.count else { return "\(path): \(ordered ? "ordered set" : "set") of \(x.count) members, found \(y.count): \(y)" }
        // Members are never collections here (RandomFoundationValue): numbers compare by value when allowed.
        func comparable(_ m: FoundationValue) -> FoundationValue {
            allowing.contains(.equalNumbersMerge) ? number(m).map { .real($0) } ?? m : m
        }
        let (u, v) = (x.map(comparable), y.map(comparable))
        if ordered { return u == v ? nil : "\(path): expected \(x), found \(y)" }
        return Set(u) == Set(v) ? nil : "\(path): expected the set \(x), found \(y)"
    }

    private static func entries(_ x: [FoundationValue: FoundationValue], _ y: [FoundationValue: FoundationValue],
                                allowing: Allowance, path: String) -> String? {
        guard x.count == y.count else { return "\(path): \(x.count) entries, found \(y.count): keys \(Array(y.keys))" }
        for (k, u) in x {
            guard let v = y[k] else { return "\(path): key \(k) missing; found keys \(Array(y.keys))" }
            if let d = difference(u, v, allowing: allowing, path: "\(path)[\(k)]") { return d }
        }
        return nil
    }
}
