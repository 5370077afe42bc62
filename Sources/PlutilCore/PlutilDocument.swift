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
        /// Typed JSON (`-from typed-json`): `{"$date": ...}`, `{"$uid": 1}` read back to the values they keep.
        case typedJSON
        /// Resolved JSON of a keyed archive (`-from resolved-json`), read back to the archive.
        case resolvedJSON
    }

    /// The bytes as read.
    let data: Data
    /// The property list (after any edit).
    var root: PropertyListValue
    /// The format of ``data``.
    let format: SourceFormat

    /// Reads a binary or XML property list, or (unless `propertyListsOnly`, as `-lint` asks) JSON in the form
    /// `-from` names: plain JSON unless the user asks for typed or resolved JSON, as Apple's `plutil` reads
    /// any JSON file as plain JSON (`{"$date": ...}` is a dictionary then).
    /// - Throws: ``PlutilFailure`` with the property-list reader's error, and the JSON reader's when JSON was tried.
    init(data: Data, propertyListsOnly: Bool = false, jsonForm: PlutilArguments.InputFormat = .json) throws(PlutilFailure) {
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
        if propertyListsOnly && jsonForm == .json { throw PlutilFailure(propertyListFault) }
        switch jsonForm {
        case .json:
            do throws(PlutilFailure) {
                root = try Self.json(data)
                format = .json
            } catch {
                throw PlutilFailure("\(propertyListFault); not JSON either: \(error.message)")
            }
        case .typedJSON:
            do {
                root = try PropertyListValue(typedJSON: data)
            } catch {
                throw PlutilFailure("typed JSON: \(error)")
            }
            format = .typedJSON
        case .resolvedJSON:
            do {
                root = try ArchivedObjectGraph(resolvedJSON: data).propertyList
            } catch {
                throw PlutilFailure("resolved JSON: \(error)")
            }
            format = .resolvedJSON
        }
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
