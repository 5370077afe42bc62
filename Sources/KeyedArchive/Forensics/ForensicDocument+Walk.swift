#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A date found by ``ForensicDocument/dates()``: when, where, and what stored it.
public struct ForensicDate: Hashable, Sendable {
    /// The date.
    public var date: Date
    /// Where it is.
    public var path: ForensicPath
    /// What stored it: `NSDate in keyed archive`, `NSDate in typedstream`, `date in binary property list`,
    /// `date in XML property list`.
    public var source: String

    /// A date `date` at `path`, stored as `source` says.
    public init(date: Date, path: ForensicPath, source: String) {
        self.date = date
        self.path = path
        self.source = source
    }
}

extension ForensicDocument {
    /// Calls `visit` with every value of the tree, depth first in stored order, with its path and the
    /// format of the payload it is in; a nested payload's root comes after the payload, under its root path.
    /// Iterative, so any depth is safe.
    ///
    /// - Parameter visit: called once per value.
    public func forEachValue(_ visit: (ForensicPath, ForensicValue, PayloadFormat) throws -> Void) rethrows {
        var pending: [(ForensicPath, ForensicValue, PayloadFormat)] = [(rootPath, root, format)]
        while let (path, value, format) = pending.popLast() {
            try visit(path, value, format)
            var children: [(ForensicPath, ForensicValue, PayloadFormat)] = []
            switch value {
            case .array(let items):
                children = items.enumerated().map { (path.appending(index: $0.offset), $0.element, format) }
            case .dictionary(let entries):
                children = entries.map { (path.appending(key: $0.key), $0.value, format) }
            case .object(let object):
                children = object.fields.map { (path.appending(key: $0.key), $0.value, format) }
            case .nested(let payload):
                if let inner = payload.value { children = [(payload.rootPath ?? payload.innerPath, inner, payload.format)] }
            default:
                break
            }
            pending.append(contentsOf: children.reversed())
        }
    }

    /// Every date of the tree, nested payloads included, with its path and what stored it, in stored order.
    ///
    /// - Returns: the dates: NSDate objects of keyed archives and typedstreams, property-list dates.
    public func dates() -> [ForensicDate] {
        var found: [ForensicDate] = []
        forEachValue { path, value, format in
            guard case .date(let date) = value else { return }
            let source = switch format {
            case .keyedArchive: "NSDate in keyed archive"
            case .typedstream: "NSDate in typedstream"
            case .binaryPropertyList, .xmlPropertyList: "date in " + format.rawValue
            }
            found.append(ForensicDate(date: date, path: path, source: source))
        }
        return found
    }

    /// Every blob of the tree with its path, in stored order: each data value, and the bytes of each data
    /// value that carries a nested payload (whose own blobs follow it).
    ///
    /// - Returns: the paths and bytes.
    public func blobs() -> [(path: ForensicPath, bytes: Data)] {
        var found: [(path: ForensicPath, bytes: Data)] = []
        forEachValue { path, value, _ in
            switch value {
            case .data(let bytes): found.append((path, bytes))
            case .nested(let payload) where payload.carrier == .data: found.append((path, payload.storedBytes))
            default: break
            }
        }
        return found
    }

    /// Every nested payload of the tree, at every depth, in stored order.
    public var nestedPayloads: [NestedPayload] {
        var found: [NestedPayload] = []
        forEachValue { _, value, _ in
            if case .nested(let payload) = value { found.append(payload) }
        }
        return found
    }
}
