#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Where an error happened: the key path of the object being decoded, rendered for messages.
extension UnarchivingSession {
    // MARK: Paths and errors

    func pathString(appending key: String? = nil) -> String {
        render(path, appending: key)
    }

    func render(_ path: [ArchivePathComponent], appending key: String?) -> String {
        var result = ""
        for component in path { append(component, to: &result) }
        if let key { append(.key(key), to: &result) }
        return result
    }

    /// Appends one path component to a rendered key path (`a.b[2].<key 0>`).
    func append(_ component: ArchivePathComponent, to result: inout String) {
        switch component {
        case .key(let key):
            if !result.isEmpty { result += "." }
            result += key
        case .index(let i), .dictionaryValue(let i, _): result += "[\(i)]"
        case .dictionaryKey(let i): result += ".<key \(i)>"
        }
    }

    func error(_ code: KeyedArchiveError.Code, _ message: String, key: String?, uid: ArchiveObjectID?, className: String?) -> KeyedArchiveError {
        KeyedArchiveError(code, message, keyPath: pathString(appending: key), objectUID: uid?.objectUID, className: className)
    }

    func error(_ code: KeyedArchiveError.Code, _ message: String, path: [ArchivePathComponent], key: String?, uid: ArchiveObjectID,
               className: String) -> KeyedArchiveError {
        KeyedArchiveError(code, message, keyPath: render(path, appending: key), objectUID: uid.objectUID, className: className)
    }
}
