#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The `$objects` entries of an ``ArchivedObjectGraph``: decoded, or read from the archive's bytes when asked.
///
/// A graph read by ``ArchivedObjectGraph/init(data:options:)`` holds every entry decoded. One read by
/// ``ArchivedObjectGraph/init(onDemand:options:)`` holds the checked bytes and decodes an entry at each
/// access (so the decoded tree never exists as a whole); that archive passed every check a whole read
/// makes first, so decoding an entry cannot fail.
struct ArchivedObjectStorage: RandomAccessCollection, Hashable, Sendable {
    private enum Backing: Sendable {
        case decoded([PropertyListValue])
        case mapped(MappedArchive)
    }
    private let backing: Backing

    init(_ decoded: [PropertyListValue]) { backing = .decoded(decoded) }
    init(mapped archive: MappedArchive) { backing = .mapped(archive) }

    var startIndex: Int { 0 }
    var endIndex: Int {
        switch backing {
        case .decoded(let entries): return entries.count
        case .mapped(let archive): return archive.count
        }
    }

    subscript(index: Int) -> PropertyListValue {
        switch backing {
        case .decoded(let entries): return entries[index]
        case .mapped(let archive):
            // Checked in full before the graph was made; an empty dictionary only if the bytes changed.
            return (try? archive.storedValue(index)) ?? .dictionary([:])
        }
    }

    /// Whether the entries are read from bytes on demand.
    var isMapped: Bool {
        if case .mapped = backing { return true }
        return false
    }

    static func == (lhs: ArchivedObjectStorage, rhs: ArchivedObjectStorage) -> Bool {
        if case .decoded(let a) = lhs.backing, case .decoded(let b) = rhs.backing { return a == b }
        return lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }

    func hash(into hasher: inout Hasher) {
        if case .decoded(let entries) = backing {
            hasher.combine(entries)
            return
        }
        // As [PropertyListValue] hashes: the count, then every element.
        hasher.combine(count)
        for entry in self { hasher.combine(entry) }
    }
}
