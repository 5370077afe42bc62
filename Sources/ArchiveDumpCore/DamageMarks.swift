import KeyedArchive

/// How the renderers mark the damaged places of a graph read leniently (``ArchivedObjectGraph/damage``):
/// each with the error the strict reader reports for it. A strictly read graph has none, so its output
/// never shows a mark.
enum DamageMarks {
    /// One damaged place as text: where it is, then the error (`$top.root: UID 9 is out of range: ...`).
    static func text(_ error: KeyedArchiveError) -> String {
        let description = error.description
        let prefix = "keyed archive: "
        return ValueFormatting.sanitizedLine(description.hasPrefix(prefix) ? String(description.dropFirst(prefix.count)) : description)
    }

    /// The damage of object `uid` itself (its `$class`, `$objects[0]`), joined; nil when it has none. UIDs out
    /// of range inside it are marked where they are shown (``outOfRange(_:in:)``).
    static func object(_ uid: UID, in graph: ArchivedObjectGraph) -> String? {
        guard !graph.damage.isEmpty else { return nil }
        let marks = graph.damage(of: uid).filter { $0.code != .invalidReference }.map(text)
        return marks.isEmpty ? nil : marks.joined(separator: "; ")
    }

    /// The error for a reference to `uid`, which is past the end of `$objects`.
    static func outOfRange(_ uid: UID, in graph: ArchivedObjectGraph) -> String {
        "UID \(uid.value) is out of range: $objects has \(graph.count) entries"
    }
}
