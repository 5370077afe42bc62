#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ArchivedObjectGraph {
    /// Reads a keyed archive with the checks and the result of ``init(data:options:)``, without keeping
    /// the decoded property-list tree: entries are decoded from `data` each time they are read.
    ///
    /// Use it for large binary archives that are read once, object by object (`archive-dump` does): the
    /// memory is `data` (for a file mapped by ``FileReader``, its pages) and a few bytes per object while
    /// the archive is checked, instead of the whole decoded tree. The archive is checked in full first,
    /// without building the tree, so objects read later cannot fail; an archive the check cannot clear
    /// (or an XML one) is read with ``init(data:options:)``, so faults are reported exactly as there.
    /// Reading an object costs decoding it each time; ``LazyArchivedObjectGraph`` opens an archive
    /// without checking it in full, for reading a few objects of a very large one.
    ///
    /// `data` is kept (not copied) for the graph's lifetime, and data values read from it are slices of it.
    /// - Parameters:
    ///   - data: the bytes of a property list whose root is a keyed archive.
    ///   - options: limits for the property-list reader.
    /// - Throws: ``KeyedArchiveError`` as ``init(data:options:)`` throws it.
    public init(onDemand data: Data, options: PropertyListReadingOptions = .init()) throws {
        if let graph = Self.onDemandIfValid(data, options: options, expandedValueBudget: .max) {
            self = graph
        } else {
            try self.init(data: data, options: options)
        }
    }

    /// The graph read on demand when `data` is a binary keyed archive that a whole read accepts and whose
    /// values, counted as a whole read would expand them (a shared container once per reference), are
    /// at most `expandedValueBudget`; nil otherwise (read it the usual way then, to get the fault).
    package static func onDemandIfValid(_ data: Data, options: PropertyListReadingOptions,
                                        expandedValueBudget: Int) -> ArchivedObjectGraph? {
        guard let (archive, classes) = KeyedArchiveReader.onDemandArchive(data, options: options,
                                                                         expandedValueBudget: expandedValueBudget) else { return nil }
        return ArchivedObjectGraph(mapped: archive, classes: classes)
    }
}
