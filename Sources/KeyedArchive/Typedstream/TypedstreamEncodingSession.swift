#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The state of one ``TypedstreamArchiver/archive(withRootObject:)``: the archive being built, and the class
/// instances written so far (an instance met again is written as a reference to where it was stored).
final class TypedstreamEncodingSession {
    var builder: TypedstreamModelBuilder
    private var stored: [ObjectIdentifier: Int] = [:]
    /// The instances `stored` names, kept alive so that no identifier is reused while the archive is built.
    private var instances: [AnyObject] = []

    init(builder: TypedstreamModelBuilder) {
        self.builder = builder
    }

    func foundationValue(_ value: FoundationValue, depth: Int) throws(TypedstreamError) -> TypedstreamValue {
        try builder.object(value, depth: depth)
    }

    /// Stores `object` as a new object (or refers to the instance stored before) and returns the value that
    /// stores it.
    func object<T: TypedstreamEncodable>(_ object: T, depth: Int) throws(TypedstreamError) -> TypedstreamValue {
        let type = Swift.type(of: object)
        let name = type.typedstreamClassName
        var identity: ObjectIdentifier?
        if type is AnyObject.Type {
            let instance = object as AnyObject
            let id = ObjectIdentifier(instance)
            if let index = stored[id] { return .objectReference(index) }
            identity = id
            instances.append(instance)
        }
        guard depth < builder.maximumDepth else {
            throw TypedstreamError(.limitExceeded, "objects nest deeper than maximumDepth (\(builder.maximumDepth))", className: name)
        }
        let chain = type.typedstreamClassChain
        guard chain.first?.name == name else {
            throw TypedstreamError(.invalidArchive, "its class chain \(chain.map(\.name)) does not start with its class name \(name)", className: name)
        }
        let index = builder.archive.objects.count
        builder.archive.objects.append(TypedstreamObject(classIndex: try builder.classIndex(chain: chain), groups: []))
        if let identity { stored[identity] = index }
        let encoder = TypedstreamEncoder(session: self, depth: depth + 1, className: name)
        do {
            try object.encode(to: encoder)
        } catch let error as TypedstreamError {
            throw error
        } catch {
            throw TypedstreamError(.invalidArchive, "\(type).encode(to:) threw: \(error)", objectIndex: index, className: name)
        }
        builder.archive.objects[index].groups = encoder.groups
        return .object(index)
    }
}
