import Foundation
import Testing
@testable import KeyedArchive

/// GNUstep's oracle model `KATestModel` (title, count, ratio, flag, child, items), as a Codable class with
/// no hand-written coding: the archive of a Codable model must read in another implementation of the
/// format, and that implementation's archive must read into the Codable model.
final class CodableGNUstepModel: ArchivableCodable {
    static var archivedClassName: String { "KATestModel" }
    var title: String
    var count: Int64
    var ratio: Double
    var flag: Bool
    var child: CodableGNUstepModel?
    var items: [String]

    init(title: String, count: Int64, ratio: Double, flag: Bool, child: CodableGNUstepModel? = nil, items: [String] = []) {
        self.title = title
        self.count = count
        self.ratio = ratio
        self.flag = flag
        self.child = child
        self.items = items
    }
}

private typealias D = GNUstepOracle.Description

@Suite(.enabled(if: GNUstepOracle.isAvailable, "GNUstep not installed (apt-get install gobjc libgnustep-base-dev gnustep-base-runtime)"))
struct CodableGNUstepInteropTests {
    @Test(arguments: [PropertyListFormat.binary, .xml])
    func gnustepReadsOurArchiveOfACodableModel(_ format: PropertyListFormat) throws {
        let leaf = CodableGNUstepModel(title: "leaf", count: -3, ratio: 2.25, flag: false)
        let root = CodableGNUstepModel(title: "root", count: 7, ratio: 0.5, flag: true, child: leaf, items: ["a", "b"])
        let printed = try GNUstepOracle.decode(try KeyedArchiver.archivedData(withRootObject: root, format: format))
        #expect(printed == D.model(id: 1, title: "root", count: 7, ratio: 0.5, flag: true,
                                   child: D.model(id: 2, title: "leaf", count: -3, ratio: 2.25, flag: false, child: nil,
                                                  items: D.array([])),
                                   items: D.array([D.string("a"), D.string("b")])))
    }

    @Test func gnustepReadsASharedCodableInstanceAsOneObject() throws {
        let shared = CodableGNUstepModel(title: "shared", count: Int64.min, ratio: -1e300, flag: true)
        let printed = try GNUstepOracle.decode(try KeyedArchiver.archivedData(withRootObject: [shared, shared]))
        #expect(printed == D.array([D.model(id: 1, title: "shared", count: Int64.min, ratio: -1e300, flag: true, child: nil,
                                            items: D.array([])),
                                    D.modelReference(1)]))
    }

    @Test(arguments: [PropertyListFormat.binary, .xml])
    func codableModelReadsGNUstepsArchive(_ format: PropertyListFormat) throws {
        let root = try KeyedUnarchiver.unarchivedObject(ofClass: CodableGNUstepModel.self,
                                                        from: GNUstepOracle.encode("model", format: format))
        #expect(root.title == "root")
        #expect(root.count == 7)
        #expect(root.ratio == 0.5)
        #expect(root.flag == true)
        #expect(root.items == ["a", "b"])
        let leaf = try #require(root.child)
        #expect(leaf.title == "leaf")
        #expect(leaf.count == -3)
        #expect(leaf.ratio == 2.25)
        #expect(leaf.flag == false)
        #expect(leaf.items == [])
        #expect(leaf.child == nil)
    }

    @Test func gnustepsSharedModelComesBackAsOneCodableInstance() throws {
        let back = try KeyedUnarchiver().decode([CodableGNUstepModel].self, from: GNUstepOracle.encode("sharedModel"))
        #expect(back.count == 2)
        #expect(back.first === back.last)
        #expect(back.first.map { [$0.title, "\($0.count)", "\($0.ratio)", "\($0.flag)"] } == ["shared", "1", "1.0", "true"])
    }
}
