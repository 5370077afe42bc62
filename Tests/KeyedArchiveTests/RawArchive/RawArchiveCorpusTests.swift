import Testing
import Foundation
@testable import KeyedArchive

@Suite struct RawArchiveCorpusTests {
    /// Every keyed archive of the corpus: read -> write -> read gives an equal graph, in both formats.
    @Test(.requiresCorpus) func corpusArchivesRoundTripThroughTheRawModel() throws {
        let walker = try #require(FileManager.default.enumerator(at: Corpus.directory, includingPropertiesForKeys: nil))
        var roundTripped = 0, rejected = 0
        for case let file as URL in walker {
            guard let data = try? Data(contentsOf: file), let root = try? PropertyListValue(propertyListData: data),
                  case .dictionary(let d) = root, d["$archiver"] != nil else { continue }
            guard let graph = try? ArchivedObjectGraph(propertyList: root) else {
                rejected += 1
                continue
            }
            for format in PropertyListFormat.allCases {
                let written: Data
                do {
                    written = try graph.archivedData(format: format)
                } catch let error as PropertyListError where format == .xml && error.code == .unrepresentable {
                    continue  // XML has no sets
                }
                let again = try ArchivedObjectGraph(data: written)
                #expect(again == graph, "\(file.path) via \(format)")
                #expect(again.objects == graph.objects, "\(file.path) via \(format)")
                #expect(again.top == graph.top)
            }
            roundTripped += 1
        }
        print("round-tripped \(roundTripped) corpus archives through ArchivedObjectGraph (\(rejected) broken ones rejected)")
        #expect(roundTripped > 80)
    }
}
