#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ArchiveWorkingCopy {
    /// The edited archive as a graph: its objects numbered again (`ArchiveReferenceOrder`), those nothing
    /// reaches dropped, then read through every check an archive gets.
    ///
    /// - Parameter originalIsDepthFirst: whether the archive before the edit was numbered depth first
    ///   (``ArchiveReferenceOrder/isDepthFirst(top:objects:)``).
    /// - Throws: ``KeyedArchiveError`` from ``ArchivedObjectGraph/init(propertyList:)`` when the edited archive
    ///   breaks a rule (only a raw edit can: a UID out of range, a `$class` that is no class description).
    func rewritten(originalIsDepthFirst: Bool) throws -> ArchivedObjectGraph {
        let order = ArchiveReferenceOrder(originalCount: originalCount, placed: placed)
        let count = objects.count
        let topRefs = order.children(of: .dictionary(top), index: nil)
        let walk = ArchiveReferenceOrder.depthFirst(top: topRefs, count: count) { index in
            order.children(of: objects[index], index: index)
        }
        let final = order.finalOrder(walk: walk, originalIsDepthFirst: originalIsDepthFirst)
        var newUID = [UInt64](repeating: UInt64.max, count: count)
        for (position, index) in final.enumerated() { newUID[index] = UInt64(position) }
        // A UID out of range (a raw edit's) is kept as it is, so that the check below names it.
        let renumber: (UInt64) -> UInt64 = { u in
            u < UInt64(count) && newUID[Int(u)] != .max ? newUID[Int(u)] : u &+ UInt64(final.count)
        }
        var renumbered: [PropertyListValue] = []
        renumbered.reserveCapacity(final.count)
        for index in final { renumbered.append(ArchivedUIDWalk.replacingUIDs(in: objects[index], renumber)) }
        let newTop = ArchivedUIDWalk.replacingUIDs(in: .dictionary(top), renumber)
        return try ArchivedObjectGraph(propertyList: .dictionary([
            "$version": .integer(version),
            "$archiver": .string(archiverName),
            "$top": newTop,
            "$objects": .array(renumbered),
        ]))
    }
}
