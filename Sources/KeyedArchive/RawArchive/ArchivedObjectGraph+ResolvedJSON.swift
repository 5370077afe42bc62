#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// Resolved JSON: a keyed archive as the object graph it stands for, in JSON that a person or `jq` edits and
// that reads back to an archive with the same graph (classes, sharing, values). Each object is written where
// it is reached; `$objects`, UIDs and class descriptions are not shown.
//
// Objects (what a UID refers to):
// - `null`: UID 0 (nil).
// - a string, a number, `true`/`false`, `{"$real": ...}`, `{"$float": ...}`, `{"$data": ...}`: an NSString,
//   NSNumber or NSData stored inline in `$objects` (typed JSON's scalars).
// - `{"$date": ...}`: an NSDate (class `NSDate`, `NS.time` a real), reached once.
// - `[...]`: an NSArray (`NS.objects`), reached once, its elements objects.
// - `{"key": ...}` without `$class`: an NSDictionary whose keys are all strings, reached once.
// - `{"$class": "Name", ...}`: any other instance. `$classes` (the chain, when it is not the one Apple
//   writes for a Foundation class: always for other classes), `$classhints` when stored, `$id` when the
//   object is reached more than once; then `"$elements": [...]` (`NS.objects`, an array of objects),
//   `"$entries": {...}` or `[[key, value], ...]` (`NS.keys` and `NS.objects`), and the other fields.
// - `{"$ref": n}`: the object written elsewhere with `"$id": n`.
// - `{"$stored": ...}`: any other entry of `$objects` (a date or a container stored without `$class`), as a
//   field holds it; it may carry `$id`.
//
// Fields (an instance's keyed values and `$top`) hold either an object (a UID) or a value stored in the field
// itself. A field is written as an object (a string is an NSString, `$date` an NSDate), except that a number,
// a Boolean, `$real`, `$float` and `$data` are values stored in the field (what `encodeInteger`, `encodeBool`, `encodeDouble`, `encodeBytes` write); the other
// two cases are marked: `{"$object": 7}` is an NSNumber object (`{"$object": {"$data": ...}}` an NSData
// object), `{"$inline": ...}` a string, date, array, set (`{"$set": [...]}`) or dictionary stored in the
// field, its elements read as fields again.
//
// Every JSON object key that starts with `$` and is not one of these markers is written with one more `$`
// (a coder's `$0` is `$$0`, an archive's escaped `$$key` is `$$$key`).

/// The marker keys of resolved JSON beside typed JSON's scalars.
enum ResolvedJSONMarker {
    static let archiver = "$archiver"
    static let version = "$version"
    static let top = "$top"
    static let className = "$class"
    static let classes = "$classes"
    static let classHints = "$classhints"
    static let id = "$id"
    static let ref = "$ref"
    static let elements = "$elements"
    static let entries = "$entries"
    static let stored = "$stored"
    static let object = "$object"
    static let inline = "$inline"
    /// The keys an instance object may carry beside its fields.
    static let instanceKeys: Set<String> = [className, classes, classHints, id, elements, entries]
    /// Typed JSON's scalar markers, read as in typed JSON.
    static let scalars: Set<String> = [TypedJSONMarker.real, TypedJSONMarker.float, TypedJSONMarker.data]

    /// `key` as a JSON object key: one more `$` when it starts with `$`.
    static func escaped(_ key: String) -> String { key.hasPrefix("$") ? "$" + key : key }
}

extension ArchivedObjectGraph {
    /// The archive as resolved JSON: the object graph reached from `$top`, each object written where it is
    /// reached, with its class; shared objects and cycles written once with an `$id` and referred to by
    /// `{"$ref": n}`; NSArray, NSDictionary and NSDate as JSON arrays, objects and `$date`; strings, numbers and
    /// data as typed JSON's scalars (see <doc:CommandLineTools> for the whole format).
    ///
    /// ``init(resolvedJSON:options:)`` reads it back to an archive whose graph is equal: the same classes
    /// (names, `$classes` chains, `$classhints`), the same sharing, the same values, fields in the same order
    /// (`NS.keys` before `NS.objects` in a dictionary written as `$entries`).
    /// The bytes are not kept: objects nothing reaches are dropped, equal strings and numbers become one entry,
    /// equal class descriptions one, and the objects are numbered again as Apple's archiver numbers them. For
    /// an archive as stored (UIDs, `$objects`), use ``typedJSONData(prettyPrinted:)``.
    /// - Parameters:
    ///   - prettyPrinted: whether to indent nested values by two spaces, one per line.
    ///   - maximumDepth: the deepest nesting of JSON arrays and objects written (512 by default, what
    ///     ``PropertyListReadingOptions/maximumDepth`` lets the reader read).
    /// - Returns: the JSON text, UTF-8.
    /// - Throws: ``KeyedArchiveError`` with code ``KeyedArchiveError/Code/limitExceeded`` (and the UID of the
    ///   object where it stopped) when the graph nests deeper than `maximumDepth` or, through containers that
    ///   several places share, would write more than 64 values per stored value.
    public func resolvedJSONData(prettyPrinted: Bool = false, maximumDepth: Int = 512) throws -> Data {
        var writer = ResolvedJSONWriter(graph: self, maximumDepth: maximumDepth)
        let document = try writer.document()
        var text = ""
        ResolvedJSONWriter.write(document, prettyPrinted: prettyPrinted, indent: 0, into: &text)
        return Data(text.utf8)
    }

    /// Reads an archive written as resolved JSON (``resolvedJSONData(prettyPrinted:maximumDepth:)``, perhaps
    /// edited since) and checks it as any archive.
    ///
    /// Objects are numbered depth first from `$top`, as Apple's archiver numbers them; equal inline strings,
    /// numbers and data share one entry; each class has one description. A `{"$ref": n}` may come before the
    /// object with `"$id": n`.
    /// - Parameters:
    ///   - data: UTF-8 JSON text.
    ///   - options: `maximumDepth` bounds the nesting of JSON arrays and objects (default 512).
    /// - Throws: ``PropertyListError`` with code ``PropertyListError/Code/invalidJSON``: the byte offset of text
    ///   that is not JSON (or nests too deep), or the key path (as `$top.root.$elements.2`) of a value that is not
    ///   resolved JSON: an unknown `$` key, a `$ref` to an id no object has, an `$id` given twice, a class
    ///   name that is not a string, a typed-JSON scalar that does not read. ``KeyedArchiveError`` when the
    ///   archive built breaks a rule of keyed archives.
    public init(resolvedJSON data: Data, options: PropertyListReadingOptions = .init()) throws {
        var scanner = JSONScanner(data, maximumDepth: options.maximumDepth)
        var reader = ResolvedJSONReader()
        let copy = try reader.archive(scanner.parse())
        self = try copy.rewritten(originalIsDepthFirst: true)
    }
}

/// A JSON document being written: scalars as typed JSON's text.
indirect enum ResolvedJSONText {
    case null
    case scalar(PropertyListValue)
    case array([ResolvedJSONText])
    case object([(String, ResolvedJSONText)])
}
