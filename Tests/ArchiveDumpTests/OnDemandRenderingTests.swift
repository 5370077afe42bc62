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

    /// `--raw` and `--json --raw` of every binary corpus file the whole reader accepts: the same text
    /// from the property list read container by container.
    @Test(.enabled(if: Corpus.isAvailable, "needs ../shared/corpus"))
    func corpusPropertyListsRenderRawTheSameFromTheMappedFile() throws {
        var compared = 0
        for file in Corpus.binaryFiles() {
            let data = try Corpus.data(file)
            guard let root = try? PropertyListValue(propertyListData: data) else {
                #expect(MappedPropertyList(data, expandedValueBudget: .max) == nil, "\(file) is unreadable but passed the check")
                continue
            }
            let mapped = try #require(MappedPropertyList(data, expandedValueBudget: .max), "\(file) reads but not mapped")
            for maxDepth in [nil, 1, 3] {
                let eagerText = DumpOutputCollector(), mappedText = DumpOutputCollector()
                RawTextRenderer(maxDepth: maxDepth).render(root, to: eagerText.output)
                RawTextRenderer(maxDepth: maxDepth).render(mapped: mapped, to: mappedText.output)
                #expect(mappedText.text == eagerText.text, "\(file) --raw")
                let eagerJSON = DumpOutputCollector(), mappedJSON = DumpOutputCollector()
                JSONRenderer(maxDepth: maxDepth).render(propertyList: root, to: eagerJSON.output)
                JSONRenderer(maxDepth: maxDepth).render(mapped: mapped, to: mappedJSON.output)
                #expect(mappedJSON.text == eagerJSON.text, "\(file) --json --raw")
            }
            compared += 1
        }
        #expect(compared > 80)
    }

    @Test func repeatedDictionaryKeysCollapseAsInAWholeRead() throws {
        // {"a": 1, "a": 2} by hand: a whole read keeps one "a" (the last value).
        let bytes: [UInt8] = Array("bplist00".utf8) + [
            0xD2, 0x01, 0x01, 0x02, 0x03,  // 0 (8): {#1: #2, #1: #3}
            0x51, 0x61,                    // 1 (13): "a"
            0x10, 0x01,                    // 2 (15): 1
            0x10, 0x02,                    // 3 (17): 2
            8, 13, 15, 17,                 // offset table (19)
            0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 19]
        let data = Data(bytes)
        let root = try PropertyListValue(propertyListData: data)
        let mapped = try #require(MappedPropertyList(data, expandedValueBudget: .max))
        let eagerText = DumpOutputCollector(), mappedText = DumpOutputCollector()
        RawTextRenderer().render(root, to: eagerText.output)
        RawTextRenderer().render(mapped: mapped, to: mappedText.output)
        #expect(mappedText.text == eagerText.text)
        #expect(mappedText.text.components(separatedBy: "\"a\"").count == 2)
    }

    @Test func aGraphOverTheBudgetIsNotReadOnDemand() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: ["a", "b", "c"])
        #expect(ArchivedObjectGraph.onDemandIfValid(data, options: .init(), expandedValueBudget: .max) != nil)
        #expect(ArchivedObjectGraph.onDemandIfValid(data, options: .init(), expandedValueBudget: 3) == nil)
        let xml = try KeyedArchiver.archivedData(withRootObject: ["a"], format: .xml)
        #expect(ArchivedObjectGraph.onDemandIfValid(xml, options: .init(), expandedValueBudget: .max) == nil)
    }
}
