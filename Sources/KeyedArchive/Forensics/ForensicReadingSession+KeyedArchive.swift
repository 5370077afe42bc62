#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ForensicReadingSession {
    /// A keyed archive's field value: references followed, each object shown in full where first met.
    func keyedValue(_ value: ArchivedValue, in graph: ArchivedObjectGraph, payload: inout Payload, at path: ForensicPath,
                    owner: String?, level: Int) throws -> ForensicValue {
        switch value {
        case .null:
            try spend(at: path, level: level)
            return .null
        case .value(let stored):
            return try plistValue(stored, payload: &payload, at: path, owner: owner, level: level)
        case .array(let items), .set(let items):
            try spend(at: path, level: level)
            var values: [ForensicValue] = []
            for (index, item) in items.enumerated() {
                values.append(try keyedValue(item, in: graph, payload: &payload, at: path.appending(index: index), owner: owner,
                                             level: level + 1))
            }
            return .array(values)
        case .dictionary(let fields):
            try spend(at: path, level: level)
            var entries: [ForensicEntry] = []
            for field in fields {
                entries.append(ForensicEntry(field.key, try keyedValue(field.value, in: graph, payload: &payload,
                                                                       at: path.appending(key: field.key), owner: owner, level: level + 1)))
            }
            return .dictionary(entries)
        case .reference(let uid):
            return try keyedObject(uid, in: graph, payload: &payload, at: path, owner: owner, level: level)
        }
    }

    /// The object `uid`: an inline value as its value; an instance in full when first met, else as a
    /// reference to where it was shown; Foundation's classes as their values.
    private func keyedObject(_ uid: UID, in graph: ArchivedObjectGraph, payload: inout Payload, at path: ForensicPath,
                             owner: String?, level: Int) throws -> ForensicValue {
        guard let resolved = graph.resolvedObject(uid) else {
            try spend(at: path, level: level)
            return .null
        }
        switch resolved.kind {
        case .null:
            try spend(at: path, level: level)
            return .null
        case .value(let stored):
            switch stored {
            case .array, .set, .dictionary:
                break  // a container stored without `$class` (or, read leniently, with a bad one): an object below
            default:
                // NSString, NSNumber and NSData stored inline: values, shown wherever referred to.
                return try plistValue(stored, payload: &payload, at: path, owner: owner, level: level)
            }
        default:
            break
        }
        let storedID = "#\(uid.value)"
        let className = resolved.archivedClass?.name
        if let shown = payload.shownObjects[uid.value] {
            try spend(at: path, level: level)
            return .reference(ForensicReference(storedID: storedID, className: className, target: shown))
        }
        payload.shownObjects[uid.value] = path
        let label = storedID + (className.map { " " + $0 } ?? "")
        switch resolved.kind {
        case .string(let s):
            try spend(at: path, level: level)
            return try stringValue(s, payload: &payload, at: path, owner: label, level: level)
        case .data(let d):
            try spend(at: path, level: level)
            return try dataValue(d, payload: &payload, at: path, owner: label, level: level)
        case .date(let d):
            try spend(at: path, level: level)
            return .date(d)
        case .uuid(let u):
            try spend(at: path, level: level)
            return .string(u.uuidString)
        case .url(let relative, .null):
            try spend(at: path, level: level)
            return .string(relative)
        case .nsNull:
            try spend(at: path, level: level)
            return .null
        case .value(let stored):
            // Its UIDs are references, followed as a field's are.
            return try keyedValue(ArchivedValue(stored), in: graph, payload: &payload, at: path, owner: label, level: level)
        case .list(let items):
            return try keyedValue(.array(items), in: graph, payload: &payload, at: path, owner: label, level: level)
        case .map(let keys, let values):
            try spend(at: path, level: level)
            var entries: [ForensicEntry] = []
            for (key, item) in zip(keys, values) {
                let name = graph.inlineValue(key)?.stringValue ?? key.referenceUID.map { "#\($0.value)" } ?? "\(key.storedValue)"
                entries.append(ForensicEntry(name, try keyedValue(item, in: graph, payload: &payload, at: path.appending(key: name),
                                                                  owner: label, level: level + 1)))
            }
            return .dictionary(entries)
        default:
            // Any other instance (a URL with a base, a catalogued value type, an unknown class): its fields.
            try spend(at: path, level: level)
            var fields: [ForensicEntry] = []
            for field in graph.object(uid)?.instance?.fields ?? [] {
                fields.append(ForensicEntry(field.key, try keyedValue(field.value, in: graph, payload: &payload,
                                                                      at: path.appending(key: field.key), owner: label, level: level + 1)))
            }
            return .object(ForensicObject(className: className ?? "", storedID: storedID, fields: fields))
        }
    }
}
