#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The Foundation values of a typedstream's objects, asked of ``TypedstreamUnarchiver`` one object at a time.
///
/// An object whose value fails is remembered with every object that refers to it, directly or not (their
/// values would fail at the same place), so no object is asked for twice and a failure deep in a chain
/// costs one walk down it, not one per object above it.
package final class TypedstreamFoundationValueFinder {
    /// The archive whose objects are read.
    package let archive: TypedstreamArchive
    /// The unarchiver that reads them (its limits).
    let unarchiver: TypedstreamUnarchiver
    private var values: [Int: FoundationValue] = [:]
    private var failed: [Bool]
    /// For each object, the objects whose stored values refer to it.
    private let referrers: [[Int]]

    /// A finder for the objects of `archive`, read by `unarchiver`.
    package init(archive: TypedstreamArchive, unarchiver: TypedstreamUnarchiver) {
        self.archive = archive
        self.unarchiver = unarchiver
        failed = Array(repeating: false, count: archive.objects.count)
        var referrers = Array(repeating: [Int](), count: archive.objects.count)
        for (index, object) in archive.objects.enumerated() {
            var pending = object.groups.flatMap(\.values)
            while let value = pending.popLast() {
                switch value {
                case .object(let target), .objectReference(let target):
                    if referrers.indices.contains(target) { referrers[target].append(index) }
                case .array(let items), .structure(let items):
                    pending.append(contentsOf: items)
                default:
                    continue
                }
            }
        }
        self.referrers = referrers
    }

    /// The Foundation value of object `index`, or nil when it (or an object it reaches) has none.
    package func value(ofObjectAt index: Int) -> FoundationValue? {
        guard failed.indices.contains(index), !failed[index] else { return nil }
        if let known = values[index] { return known }
        do {
            let value = try unarchiver.foundationValues(of: [.object(index)], in: archive)[0]
            values[index] = value
            return value
        } catch {
            if let culprit = error.objectIndex { markFailed(culprit) }
            markFailed(index)
            return nil
        }
    }

    /// Marks object `index` and every object that reaches it as having no Foundation value.
    private func markFailed(_ index: Int) {
        guard failed.indices.contains(index), !failed[index] else { return }
        failed[index] = true
        var pending = [index]
        while let next = pending.popLast() {
            for referrer in referrers[next] where !failed[referrer] {
                failed[referrer] = true
                pending.append(referrer)
            }
        }
    }
}
