#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension ForensicReadingSession {
    /// A typedstream's document: its one root object under its class name, or its top-level values as
    /// `$values[i]`. Objects with a Foundation value (``TypedstreamUnarchiver``) are shown as it, others as
    /// their stored values (`$0`, `$1`... in stored order).
    func typedstreamDocument(_ archive: TypedstreamArchive, in payload: inout Payload, at prefix: ForensicPath,
                             level: Int) throws -> ForensicDocument {
        var unarchiver = TypedstreamUnarchiver()
        unarchiver.limits = reader.unarchiverLimits
        let finder = TypedstreamFoundationValueFinder(archive: archive, unarchiver: unarchiver)
        let values = archive.groups.flatMap(\.values)
        if values.count == 1, case .object(let index) = values[0] {
            let path = prefix.appending(key: archive.className(ofObjectAt: index) ?? "$root")
            return ForensicDocument(format: .typedstream,
                                    root: try typedstreamValue(values[0], finder: finder, payload: &payload, at: path, owner: nil, level: level),
                                    rootPath: path)
        }
        let path = prefix.appending(key: "$values")
        try spend(at: path, level: level)
        var items: [ForensicValue] = []
        for (index, value) in values.enumerated() {
            items.append(try typedstreamValue(value, finder: finder, payload: &payload, at: path.appending(index: index), owner: nil,
                                              level: level + 1))
        }
        return ForensicDocument(format: .typedstream, root: .array(items), rootPath: path)
    }

    /// One stored typedstream value.
    private func typedstreamValue(_ value: TypedstreamValue, finder: TypedstreamFoundationValueFinder, payload: inout Payload,
                                  at path: ForensicPath, owner: String?, level: Int) throws -> ForensicValue {
        let archive = finder.archive
        switch value {
        case .bytes(let bytes?):
            return try dataValue(bytes, payload: &payload, at: path, owner: owner, level: level)
        case .byteArray(let bytes):
            return try dataValue(bytes, payload: &payload, at: path, owner: owner, level: level)
        case .object(let index):
            if let shown = payload.shownObjects[UInt64(index)] {
                try spend(at: path, level: level)
                return .reference(ForensicReference(storedID: "#\(index)", className: archive.className(ofObjectAt: index), target: shown))
            }
            payload.shownObjects[UInt64(index)] = path
            let className = archive.className(ofObjectAt: index) ?? ""
            let label = "#\(index) " + className
            if let foundation = finder.value(ofObjectAt: index) {
                return try foundationValue(foundation, className: className, storedID: "#\(index)", payload: &payload, at: path,
                                           owner: label, level: level)
            }
            try spend(at: path, level: level)
            var fields: [ForensicEntry] = []
            let stored = archive.objects.indices.contains(index) ? archive.objects[index].groups.flatMap(\.values) : []
            for (position, item) in stored.enumerated() {
                fields.append(ForensicEntry("$\(position)", try typedstreamValue(item, finder: finder, payload: &payload,
                                                                                 at: path.appending(key: "$\(position)"), owner: label,
                                                                                 level: level + 1)))
            }
            return .object(ForensicObject(className: className, storedID: "#\(index)", fields: fields))
        case .array(let items), .structure(let items):
            try spend(at: path, level: level)
            var values: [ForensicValue] = []
            for (position, item) in items.enumerated() {
                values.append(try typedstreamValue(item, finder: finder, payload: &payload, at: path.appending(index: position),
                                                   owner: owner, level: level + 1))
            }
            return .array(values)
        default:
            try spend(at: path, level: level)
            switch value {
            case .integer(let i): return .integer(PropertyListInteger(i))
            case .unsignedInteger(let u): return .integer(PropertyListInteger(u))
            case .bool(let b): return .bool(b)
            case .float(let f): return .real(Double(f))
            case .double(let d): return .real(d)
            case .cString(let bytes?), .atom(let bytes?), .selector(let bytes?):
                return validatedUTF8String(bytes).map(ForensicValue.string) ?? .data(bytes)
            case .class(let index?):
                return .string(archive.classes.indices.contains(index) ? archive.classes[index].name : "#class\(index)")
            case .objectReference(let index):
                return .reference(ForensicReference(storedID: "#\(index)", className: archive.className(ofObjectAt: index),
                                                    target: payload.shownObjects[UInt64(index)] ?? path))
            default: return .null
            }
        }
    }

    /// A Foundation value read from a typedstream object (`className` and `storedID` name that object; the
    /// values inside it are values).
    private func foundationValue(_ value: FoundationValue, className: String?, storedID: String?, payload: inout Payload,
                                 at path: ForensicPath, owner: String?, level: Int) throws -> ForensicValue {
        switch value {
        case .string(let s):
            try spend(at: path, level: level)
            return try stringValue(s, payload: &payload, at: path, owner: owner, level: level)
        case .data(let d):
            try spend(at: path, level: level)
            return try dataValue(d, payload: &payload, at: path, owner: owner, level: level)
        case .array(let items), .set(let items), .orderedSet(let items):
            try spend(at: path, level: level)
            var values: [ForensicValue] = []
            for (index, item) in items.enumerated() {
                values.append(try foundationValue(item, className: nil, storedID: nil, payload: &payload, at: path.appending(index: index),
                                                  owner: owner, level: level + 1))
            }
            return .array(values)
        case .dictionary(let dictionary):
            try spend(at: path, level: level)
            return .dictionary(try foundationEntries(dictionary.map { (Self.keyText($0.key), $0.value) }, payload: &payload, at: path,
                                                     owner: owner, level: level))
        case .catalogued(let attributed as ArchivedAttributedString):
            try spend(at: path, level: level)
            let runsPath = path.appending(key: "runs")
            var runs: [ForensicValue] = []
            for (index, run) in attributed.runs.enumerated() {
                let runPath = runsPath.appending(index: index)
                let attributes = try foundationEntries(run.attributes.map { ($0.key, $0.value) }, payload: &payload,
                                                       at: runPath.appending(key: "attributes"), owner: owner, level: level + 3)
                runs.append(.dictionary([ForensicEntry("location", .integer(PropertyListInteger(Int64(run.range.lowerBound)))),
                                         ForensicEntry("length", .integer(PropertyListInteger(Int64(run.range.count)))),
                                         ForensicEntry("attributes", .dictionary(attributes))]))
            }
            let string = try stringValue(attributed.string, payload: &payload, at: path.appending(key: "string"), owner: owner,
                                         level: level + 1)
            return .object(ForensicObject(className: className ?? "NSAttributedString", storedID: storedID ?? "",
                                          fields: [ForensicEntry("string", string), ForensicEntry("runs", .array(runs))]))
        case .catalogued(let other):
            try spend(at: path, level: level)
            return .object(ForensicObject(className: className ?? type(of: other).archivedClassName, storedID: storedID ?? "",
                                          fields: [ForensicEntry("description", .string(String(describing: other)))]))
        default:
            try spend(at: path, level: level)
            switch value {
            case .bool(let b): return .bool(b)
            case .integer(let i): return .integer(i)
            case .real(let d): return .real(d)
            case .date(let d): return .date(d)
            case .uuid(let u): return .string(u.uuidString)
            case .url(let u): return .string(u.absoluteString)
            default: return .null
            }
        }
    }

    /// A dictionary's entries (or a run's attributes), sorted by key so the order does not depend on hashing.
    private func foundationEntries(_ entries: [(String, FoundationValue)], payload: inout Payload, at path: ForensicPath,
                                   owner: String?, level: Int) throws -> [ForensicEntry] {
        var result: [ForensicEntry] = []
        for (key, item) in entries.sorted(by: { $0.0 < $1.0 }) {
            result.append(ForensicEntry(key, try foundationValue(item, className: nil, storedID: nil, payload: &payload,
                                                                 at: path.appending(key: key), owner: owner, level: level + 1)))
        }
        return result
    }

    /// A dictionary key as text: a string as itself, anything else as its description.
    private static func keyText(_ key: FoundationValue) -> String {
        if case .string(let s) = key { return s }
        return key.description
    }
}
