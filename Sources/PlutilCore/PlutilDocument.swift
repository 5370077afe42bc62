#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import ArchiveDumpCore
import KeyedArchive

/// One input of `plutil`: the property list read from a file or standard input, the format it came in,
/// and whether it is a keyed archive.
struct PlutilDocument {
    /// The format a document was read from; edits are written back in it.
    enum SourceFormat: Equatable {
        case xml, binary, json
        /// JSON with typed-JSON markers (`{"$date": ...}`, `{"$uid": 1}`), read back to the values it keeps.
        case typedJSON
    }

    /// The bytes as read.
    let data: Data
    /// The property list (after any edit).
    var root: PropertyListValue
    /// The format of ``data``.
    let format: SourceFormat

    /// Reads a binary or XML property list, or (unless `propertyListsOnly`, as `-lint` asks) JSON.
    /// - Throws: ``PlutilFailure`` with the property-list reader's error, and the JSON reader's when JSON was tried.
    init(data: Data, propertyListsOnly: Bool = false) throws(PlutilFailure) {
        self.data = data
        let propertyListFault: String
        do {
            root = try PropertyListValue(propertyListData: data)
            format = PropertyListValue.detectFormat(of: data) == .binary ? .binary : .xml
            return
        } catch {
            propertyListFault = "\(error)"
        }
        if TypedstreamRenderer.isTypedstream(data) {
            throw PlutilFailure("a typedstream (NSArchiver) archive, not a property list; plutil -lint and -p read it, archive-dump shows it in full")
        }
        if propertyListsOnly { throw PlutilFailure(propertyListFault) }
        do throws(PlutilFailure) {
            let plain = try Self.json(data)
            if Self.hasTypedJSONMarker(plain) {
                do {
                    root = try PropertyListValue(typedJSON: data)
                } catch {
                    throw PlutilFailure("typed JSON: \(error)")
                }
                format = .typedJSON
            } else {
                root = plain
                format = .json
            }
        } catch {
            throw PlutilFailure("\(propertyListFault); not JSON either: \(error.message)")
        }
    }

    /// The keys that mark typed JSON (``PropertyListValue/typedJSONData(prettyPrinted:)``) when one is the
    /// only key of an object.
    static let typedJSONMarkers: Set<String> = ["$real", "$float", "$date", "$data", "$uid", "$set", "$dictionary"]

    /// Whether `value`, read as plain JSON, holds an object whose only key is a typed-JSON marker: then the
    /// text is typed JSON and is read as such. The walk uses a stack, not recursion.
    static func hasTypedJSONMarker(_ value: PropertyListValue) -> Bool {
        var pending = [value]
        while let next = pending.popLast() {
            switch next {
            case .array(let items): pending.append(contentsOf: items)
            case .dictionary(let entries):
                if entries.count == 1, let key = entries.keys.first, typedJSONMarkers.contains(key) { return true }
                pending.append(contentsOf: entries.values)
            default: continue
            }
        }
        return false
    }

    /// Reads JSON as `plutil` reads it, with the library's reader (``PropertyListValue/init(json:options:)``).
    /// - Throws: ``PlutilFailure``: `JSON: at byte 6: ...` or `JSON: at a.0: ...`, where and what.
    static func json(_ data: Data) throws(PlutilFailure) -> PropertyListValue {
        do {
            return try PropertyListValue(json: data)
        } catch let error as PropertyListError {
            throw PlutilFailure("JSON: \(error.location): \(error.message)")
        } catch {
            throw PlutilFailure("JSON: \(error)")
        }
    }

    /// Whether the root is a keyed archive: a dictionary with `$archiver` and `$objects` or `$top`.
    var isKeyedArchive: Bool {
        guard case .dictionary(let d) = root, format != .json else { return false }
        // A keyed archive written as typed JSON keeps its UIDs, so it is an archive again.
        return d["$archiver"] != nil && (d["$objects"] != nil || d["$top"] != nil)
    }

    /// The keyed archive's object graph, checked by the unarchiver's rules (the bytes as read while
    /// ``root`` is unchanged, else the edited tree).
    /// - Throws: the first fault, with its object UID and key path.
    func archiveGraph(edited: Bool) throws -> ArchivedObjectGraph {
        edited ? try ArchivedObjectGraph(propertyList: root) : try ArchivedObjectGraph(data: data, parsedRoot: root)
    }
}
