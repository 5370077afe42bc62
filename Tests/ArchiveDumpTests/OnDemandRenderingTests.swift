import Testing
import Foundation
@testable import ArchiveDumpCore
import KeyedArchive
import KeyedArchiveTestSupport

/// `archive-dump` shows valid binary archives from a graph read on demand (``ArchivedObjectGraph/init(onDemand:options:)``):
/// every output must be the one the fully decoded graph gives.
@Suite struct OnDemandRenderingTests {
    private func outputs(_ graph: ArchivedObjectGraph) -> [String] {
        var texts: [String] = []
        for maxDepth in [nil, 2] {
            let tree = DumpOutputCollector()
            TreeRenderer(maxDepth: maxDepth).render(graph: graph, to: tree.output)
            let json = DumpOutputCollector()
            JSONRenderer(maxDepth: maxDepth).render(graph: graph, to: json.output)
            texts += [tree.text, json.text]
        }
        texts.append(graph.instanceCounts().sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: "\n"))
        return texts
    }

    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus"))
    func corpusArchivesRenderTheSameFromTheOnDemandGraph() throws {
        var compared = 0
        for file in Corpus.binaryFiles() {
            let data = try Corpus.data(file)
            guard let eager = try? ArchivedObjectGraph(data: data) else { continue }
            let onDemand = try #require(ArchivedObjectGraph.onDemandIfValid(data, options: .init(), expandedValueBudget: .max),
                                        "\(file) reads eagerly but not on demand")
            #expect(outputs(onDemand) == outputs(eager), "\(file)")
            compared += 1
        }
        #expect(compared > 50)
    }

    @Test func aGraphOverTheBudgetIsNotReadOnDemand() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: ["a", "b", "c"])
        #expect(ArchivedObjectGraph.onDemandIfValid(data, options: .init(), expandedValueBudget: .max) != nil)
        #expect(ArchivedObjectGraph.onDemandIfValid(data, options: .init(), expandedValueBudget: 3) == nil)
        let xml = try KeyedArchiver.archivedData(withRootObject: ["a"], format: .xml)
        #expect(ArchivedObjectGraph.onDemandIfValid(xml, options: .init(), expandedValueBudget: .max) == nil)
    }
}
