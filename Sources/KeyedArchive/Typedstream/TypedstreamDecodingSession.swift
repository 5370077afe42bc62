#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The state of one ``TypedstreamUnarchiver/decode(_:from:)``: the archive, the registry, the Foundation
/// values made so far, and the objects being decoded (to refuse an object that contains itself).
final class TypedstreamDecodingSession {
    let archive: TypedstreamArchive
    let registry: [String: any TypedstreamDecodable.Type]
    let maximumDepth: Int
    private var foundationValues: TypedstreamFoundationValues<TypedstreamArchiveSource>
    private var inProgress = Set<Int>()

    init(archive: TypedstreamArchive, registry: [String: any TypedstreamDecodable.Type], maximumDepth: Int, keepsUnknownObjects: Bool) {
        self.archive = archive
        self.registry = registry
        self.maximumDepth = maximumDepth
        foundationValues = TypedstreamFoundationValues(source: TypedstreamArchiveSource(archive: archive), maximumDepth: maximumDepth, keepsUnknownObjects: keepsUnknownObjects)
    }

    func foundationValue(of value: TypedstreamValue, depth: Int) throws(TypedstreamError) -> FoundationValue {
        try foundationValues.value(value, depth: depth)
    }

    func object<T: TypedstreamDecodable>(of type: T.Type, from value: TypedstreamValue, depth: Int) throws(TypedstreamError) -> T? {
        let index: Int
        switch value {
        case .nilObject: return nil
        case .object(let i), .objectReference(let i): index = i
        default: throw TypedstreamError(.dataCorrupted, "\(value) is not an object where a \(T.typedstreamClassName) is read")
        }
        guard let name = archive.className(ofObjectAt: index) else {
            throw TypedstreamError(.invalidArchive, "object #\(index) or its class is past the archive's tables")
        }
        guard name == T.typedstreamClassName || registry[name].map({ $0 == type }) == true else {
            throw TypedstreamError(.dataCorrupted, "class \(name) is not allowed here; allowed: \(T.typedstreamClassName)",
                                   objectIndex: index, className: name)
        }
        guard depth < maximumDepth else {
            throw TypedstreamError(.limitExceeded, "objects nest deeper than limits.maximumDepth (\(maximumDepth))", objectIndex: index, className: name)
        }
        // The thread is sized by an estimate of the stack per level (runTypedstreamWork): this keeps a build
        // with bigger frames from overflowing it. Every 8th level (stackSafetyMargin holds 8).
        guard depth & 7 != 7 || !stackIsNearItsEnd() else {
            throw TypedstreamError(.limitExceeded, "objects nest deeper than this thread's stack holds (\(depth) levels)",
                                   objectIndex: index, className: name)
        }
        guard inProgress.insert(index).inserted else {
            throw TypedstreamError(.dataCorrupted, "the object contains itself", objectIndex: index, className: name)
        }
        defer { inProgress.remove(index) }
        let decoder = TypedstreamDecoder(session: self, objectIndex: index, depth: depth + 1)
        let result: T
        do {
            result = try T(from: decoder)
        } catch let error as TypedstreamError {
            throw error
        } catch {
            throw TypedstreamError(.dataCorrupted, "\(T.self).init(from:) threw: \(error)", objectIndex: index, className: name)
        }
        try decoder.finish()
        return result
    }
}
