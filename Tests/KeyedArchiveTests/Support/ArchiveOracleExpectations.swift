import Foundation
import Testing
@testable import KeyedArchive

/// Archives `root` under "root" three ways (the one-call API, an archiver instance, and the tree oracle
/// ``TreeReferenceArchiver`` written by `BinaryPropertyListWriter`) and expects the same bytes from all three,
/// and the oracle's tree from `archivedPropertyList(withRootObject:)`; returns the one-call API's bytes.
@discardableResult
func expectArchiveMatchesOracle<T: ArchiveValue>(_ root: T, sourceLocation: SourceLocation = #_sourceLocation) throws -> Data {
    let oneCall = try KeyedArchiver.archivedData(withRootObject: root)
    let archiver = KeyedArchiver()
    try archiver.encode(root, forKey: "root")
    let instance = try archiver.encodedData()
    let reference = TreeReferenceArchiver()
    try reference.encode(root, forKey: "root")
    let referenceTree = try reference.finishEncoding()
    let expected = BinaryPropertyListWriter().write(referenceTree)
    #expect(oneCall == expected, "archivedData(withRootObject:): \(oneCall.count) bytes, the oracle's \(expected.count)",
            sourceLocation: sourceLocation)
    #expect(instance == expected, "KeyedArchiver instance: \(instance.count) bytes, the oracle's \(expected.count)",
            sourceLocation: sourceLocation)
    #expect(try KeyedArchiver.archivedPropertyList(withRootObject: root) == referenceTree,
            "archivedPropertyList(withRootObject:)", sourceLocation: sourceLocation)
    return oneCall
}
