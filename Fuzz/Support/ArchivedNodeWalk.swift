// A bounded walk over an untrusted graph with ArchivedNode's navigation, shared by the targets that read
// raw graphs. Property checked: every step (subscript by each field key and each index, every accessor)
// finishes without a trap, and no index at or past the node's count, or below zero, finds anything.

import KeyedArchive

/// Visits at most `limit` nodes breadth-first from every `$top` value of `graph`, through every field,
/// every index below `count` (the first 16 of each).
func walkWithNavigation(_ graph: ArchivedObjectGraph, limit: Int = 512) {
    var pending = graph.top.compactMap { graph[$0.key] }
    var visited = 0
    while visited < pending.count, visited < limit {
        let node = pending[visited]
        visited += 1
        _ = (node.string, node.integer, node.int, node.integer(as: UInt8.self), node.double, node.bool, node.data,
             node.date, node.uuid, node.isNull, node.className, node.object)
        if let count = node.count {
            for index in 0 ..< min(count, 16) {
                if let element = node[index] { pending.append(element) }  // nil for a dictionary's entries
            }
            if node[count] != nil { fuzzViolation("node[\(count)] is not nil at its count") }
        }
        for field in node.object?.instance?.fields.prefix(16) ?? [] {
            if let next = node[field.key] { pending.append(next) }
        }
        if node[-1] != nil { fuzzViolation("node[-1] is not nil") }
    }
}
