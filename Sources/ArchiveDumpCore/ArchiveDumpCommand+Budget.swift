#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import KeyedArchive

extension ArchiveDumpCommand {
    /// The constant part of ``nodeBudget(inputByteCount:)``.
    static let nodeBudgetConstant = 4096

    /// The most values (containers, scalars, UIDs) an output may show for an input of `inputByteCount`
    /// bytes: 4 per byte plus a constant. A property list without shared containers never reaches it,
    /// since every value but the root costs at least one reference byte.
    static func nodeBudget(inputByteCount: Int) -> Int {
        let (product, overflow) = inputByteCount.multipliedReportingOverflow(by: 4)
        return overflow ? Int.max - nodeBudgetConstant : product + nodeBudgetConstant
    }

    /// The number of values in `root` counted as the outputs show them (a shared container once per
    /// reference), or `limit + 1` as soon as it passes `limit`. Iterative, so any depth is safe.
    static func expandedNodeCount(_ root: PropertyListValue, atMost limit: Int) -> Int {
        var count = 0
        var pending: [PropertyListValue] = [root]
        while let value = pending.popLast() {
            count += 1
            if count > limit { return count }
            switch value {
            case .array(let items), .set(let items):
                if items.count > limit - count { return limit + 1 }
                pending.append(contentsOf: items)
            case .dictionary(let d):
                if d.count > limit - count { return limit + 1 }
                count += d.count  // the keys
                pending.append(contentsOf: d.values)
            default:
                continue
            }
        }
        return count
    }

    /// Whether the root is a keyed archive: a dictionary with `$archiver` and `$objects`, or with `$top`.
    static func isKeyedArchive(_ root: PropertyListValue) -> Bool {
        ForensicReader.isKeyedArchive(root)
    }
}
