#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Makes ``FoundationValue``s of a typedstream's objects, read from `Source`: the raw model
/// (``TypedstreamArchiveSource``), or the stream itself (``TypedstreamStreamSource``, which makes each object
/// where it is stored, so no raw model is built). Each object is made once (later references share the
/// value), an object reached again while it is being made is a cycle, nesting is counted against the depth
/// limit.
struct TypedstreamFoundationValues<Source: TypedstreamValueSource> {
    var source: Source
    let maximumDepth: Int
    /// Whether an object of a class with no Foundation value is kept as an ``ArchivedTypedstreamObject``
    /// (else reading it throws). Only a source with a raw model can keep one.
    let keepsUnknownObjects: Bool
    /// What ``made`` holds for an object: its value; or, for an object read without its ``FoundationValue``
    /// form (made only when something refers to the object), an NSString's text or an attributed string's
    /// attribute dictionary.
    private enum Made {
        case value(FoundationValue)
        case string(String)
        case attributes([String: FoundationValue])
    }
    /// What each object made so far is, by object index.
    private var made: [Made?] = []
    private var inProgress = Set<Int>()

    init(source: Source, maximumDepth: Int, keepsUnknownObjects: Bool = false) {
        self.source = source
        self.maximumDepth = maximumDepth
        self.keepsUnknownObjects = keepsUnknownObjects
        made.reserveCapacity(source.objectCapacityHint)
    }

    mutating func value(_ value: TypedstreamValue, depth: Int) throws(TypedstreamError) -> FoundationValue {
        switch value {
        case .integer(let v): return .integer(PropertyListInteger(v))
        case .unsignedInteger(let v): return .integer(PropertyListInteger(v))
        case .bool(let b): return .bool(b)
        case .float(let f): return .real(Double(f))
        case .double(let d): return .real(d)
        case .nilObject: return .null
        case .bytes(let data?): return .data(data)
        case .object(let index), .objectReference(let index): return try object(index, depth: depth)
        default: throw TypedstreamError(.dataCorrupted, "a value \(value) has no Foundation form")
        }
    }

    /// The next value `cursor` reads, which must have the type `encoding` (nil: the next of the group
    /// ``nextGroup(_:_:depth:)`` entered). From a stream source, an object stored here is made now, at `depth`.
    mutating func next(_ cursor: inout Source.Cursor, _ encoding: String?, depth: Int) throws(TypedstreamError) -> TypedstreamValue {
        let found = try source.next(&cursor, encoding)
        if Source.makesObjectsWhereStored, case .object(let index) = found { try makeStoredObject(index, depth: depth) }
        return found
    }

    /// The values of the next whole group, whose encoding must be `encoding`.
    mutating func nextGroup(_ cursor: inout Source.Cursor, _ encoding: String, depth: Int) throws(TypedstreamError) -> [TypedstreamValue] {
        let count = try source.enterGroup(&cursor, encoding)
        var values: [TypedstreamValue] = []
        values.reserveCapacity(count)
        for _ in 0 ..< count { values.append(try next(&cursor, nil, depth: depth)) }
        return values
    }

    /// A `*` type encoding (NSNumber's, NSValue's) as text.
    mutating func typeEncoding(_ cursor: inout Source.Cursor, depth: Int) throws(TypedstreamError) -> String {
        guard let text = try source.nextCString(&cursor), !text.isEmpty else {
            throw cursor.corrupted("its type encoding is not a C string")
        }
        return text
    }

    /// A count (`i` or `I`), checked against `bound` (by default the groups left: each element of an
    /// NSArray, NSSet or NSDictionary is at least one group).
    mutating func count(_ cursor: inout Source.Cursor, _ encoding: String, atMost bound: Int? = nil, depth: Int) throws(TypedstreamError) -> Int {
        let bound = bound ?? source.remainingGroups(cursor)
        let stored = try next(&cursor, encoding, depth: depth)
        let count: Int?
        switch stored {
        case .integer(let v): count = Int(exactly: v)
        case .unsignedInteger(let v): count = Int(exactly: v)
        default: count = nil
        }
        guard let count, count >= 0, count <= bound else {
            throw cursor.corrupted("count \(stored) is negative or more than the \(bound) it can be")
        }
        return count
    }

    private mutating func store(_ value: Made, at index: Int) {
        while made.count <= index { made.append(nil) }
        made[index] = value
    }

    /// Refuses to read object `index`, stored where it is met, at `depth` past the limits.
    private func checkStoredObjectDepth(_ depth: Int, of index: Int) throws(TypedstreamError) {
        guard depth < maximumDepth, depth < Source.deepestNesting else {
            throw TypedstreamError(.limitExceeded, "values nest deeper than limits.maximumDepth (\(maximumDepth))", objectIndex: index)
        }
        try checkStack(depth, of: index)
    }

    /// Refuses to enter object `index`, at `depth`, when the thread's stack is near its end: the thread was
    /// sized by an estimate of the stack per level (``runTypedstreamWork(levels:_:)``), which this keeps from
    /// ever overflowing whatever the build's frames are. Checked every 8th level (``stackSafetyMargin`` holds
    /// 8 levels), so shallow archives, most of them, never pay for it.
    @inline(__always)
    private func checkStack(_ depth: Int, of index: Int) throws(TypedstreamError) {
        if depth & 7 == 7, stackIsNearItsEnd() {
            throw TypedstreamError(.limitExceeded, "values nest deeper than this thread's stack holds (\(depth) levels)", objectIndex: index)
        }
    }

    /// Makes the object a stream source has just begun (its class read, its groups next), at `depth`.
    private mutating func makeStoredObject(_ index: Int, depth: Int) throws(TypedstreamError) {
        try checkStoredObjectDepth(depth, of: index)
        var cursor = try source.cursor(forObjectAt: index)
        guard let value = try make(&cursor, depth: depth + 1) else {
            throw cursor.corrupted("class \(cursor.className) has no Foundation value; read it from the raw model (TypedstreamArchive)")
        }
        try source.finish(cursor)
        store(.value(value), at: index)
    }

    /// The value of an object made before (its ``made`` entry `done`, at `index`).
    private mutating func value(ofMade done: Made, at index: Int) -> FoundationValue {
        switch done {
        case .value(let value): return value
        case .string(let text):
            let value = FoundationValue.string(text)
            store(.value(value), at: index)
            return value
        case .attributes(let table):
            var entries = [FoundationValue: FoundationValue](minimumCapacity: table.count)
            for (name, attribute) in table { entries[.string(name)] = attribute }
            let value = FoundationValue.dictionary(entries)
            store(.value(value), at: index)
            return value
        }
    }

    private mutating func object(_ index: Int, depth: Int) throws(TypedstreamError) -> FoundationValue {
        if index >= 0, index < made.count, let done = made[index] { return value(ofMade: done, at: index) }
        guard let archive = source.archive, !Source.makesObjectsWhereStored else {
            throw TypedstreamError(.dataCorrupted, "object #\(index) is used before it is made (an object that contains itself)", objectIndex: index)
        }
        guard archive.objects.indices.contains(index) else {
            throw TypedstreamError(.invalidArchive, "object #\(index) is past the \(archive.objects.count) objects")
        }
        guard depth < maximumDepth else {
            throw TypedstreamError(.limitExceeded, "values nest deeper than limits.maximumDepth (\(maximumDepth))", objectIndex: index,
                                   className: archive.className(ofObjectAt: index))
        }
        try checkStack(depth, of: index)
        guard inProgress.insert(index).inserted else {
            throw TypedstreamError(.dataCorrupted, "the object contains itself", objectIndex: index, className: archive.className(ofObjectAt: index))
        }
        defer { inProgress.remove(index) }
        var fields = try source.cursor(forObjectAt: index)
        let result: FoundationValue
        if let value = try make(&fields, depth: depth + 1) {
            try source.finish(fields)
            result = value
        } else {
            guard keepsUnknownObjects else {
                throw fields.corrupted("class \(fields.className) has no Foundation value; read it from the raw model (TypedstreamArchive)")
            }
            result = .catalogued(try ArchivedTypedstreamObject(objectAt: index, in: archive))
        }
        store(.value(result), at: index)
        return result
    }

    /// The value of the object `fields` reads, or nil when its class has no Foundation value.
    private mutating func make(_ fields: inout Source.Cursor, depth: Int) throws(TypedstreamError) -> FoundationValue? {
        guard let foundationClass = fields.foundationClass else { return nil }
        switch foundationClass {
        case .string:
            return .string(try source.nextString(&fields))
        case .number:
            let type = try typeEncoding(&fields, depth: depth)
            let number = try next(&fields, type, depth: depth)
            switch number {
            case .integer, .unsignedInteger, .float, .double, .bool: return try value(number, depth: depth)
            default: throw fields.corrupted("an NSNumber of type \(type.debugDescription), which is not a number")
            }
        case .value:
            return .specialValue(try specialValue(&fields, depth: depth))
        case .data:
            return .data(try data(&fields, depth: depth))
        case .date:
            guard case .double(let seconds) = try next(&fields, "d", depth: depth) else { throw fields.corrupted("an NSDate without a 'd'") }
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case .url:
            return .url(try url(&fields, depth: depth))
        case .null:
            return .null
        case .array, .set:
            let isSet = foundationClass == .set
            let count = try count(&fields, isSet ? "I" : "i", depth: depth)
            var elements: [FoundationValue] = []
            elements.reserveCapacity(min(count, source.remainingGroups(fields)))
            for _ in 0 ..< count { elements.append(try value(next(&fields, "@", depth: depth), depth: depth)) }
            return isSet ? .set(elements) : .array(elements)
        case .dictionary:
            let count = try count(&fields, "i", depth: depth)
            var entries = [FoundationValue: FoundationValue](minimumCapacity: count)
            for _ in 0 ..< count {
                let key = try value(next(&fields, "@", depth: depth), depth: depth)
                entries[key] = try value(next(&fields, "@", depth: depth), depth: depth)
            }
            return .dictionary(entries)
        case .color:
            return .color(try color(&fields, depth: depth))
        case .font:
            return .font(try font(&fields, depth: depth))
        case .attributedString:
            return .attributedString(try attributedString(&fields, depth: depth))
        }
    }

    private mutating func data(_ fields: inout Source.Cursor, depth: Int) throws(TypedstreamError) -> Data {
        let count = try count(&fields, "i", atMost: Int(Int32.max), depth: depth)
        guard case .byteArray(let bytes) = try next(&fields, "[\(count)c]", depth: depth) else { throw fields.corrupted("NSData without its bytes") }
        return bytes
    }

    private mutating func url(_ fields: inout Source.Cursor, depth: Int) throws(TypedstreamError) -> URL {
        guard case .integer(let relative) = try next(&fields, "c", depth: depth), relative == 0 || relative == 1 else {
            throw fields.corrupted("an NSURL whose 'relative' flag is not 0 or 1")
        }
        var base: URL?
        if relative == 1 {
            let baseValue = try value(next(&fields, "@", depth: depth), depth: depth)
            guard case .url(let url) = baseValue else { throw fields.corrupted("an NSURL whose base is not an NSURL") }
            base = url
        }
        guard let text = try nextString(&fields, depth: depth) else {
            throw fields.corrupted("an NSURL whose string is not an NSString")
        }
        guard let url = URL(string: text, relativeTo: base) else { throw fields.corrupted("an NSURL string \(text.debugDescription) that is not a URL") }
        return url
    }

    private mutating func specialValue(_ fields: inout Source.Cursor, depth: Int) throws(TypedstreamError) -> ArchivedSpecialValue {
        let type = try typeEncoding(&fields, depth: depth)
        let stored = try next(&fields, type, depth: depth)
        func reals(_ values: [TypedstreamValue]) -> [Double]? {
            let result = values.compactMap { value -> Double? in
                switch value {
                case .float(let f): return Double(f)
                case .double(let d): return d
                default: return nil
                }
            }
            return result.count == values.count ? result : nil
        }
        let name = type.hasPrefix("{") ? String(type.dropFirst().prefix { $0 != "=" }) : ""
        switch (name, stored) {
        case ("_NSRange", .structure(let parts)) where parts.count == 2:
            let numbers = parts.compactMap { part -> Int? in
                switch part {
                case .integer(let v): return Int(exactly: v)
                case .unsignedInteger(let v): return Int(exactly: v)
                default: return nil
                }
            }
            guard numbers.count == 2 else { throw fields.corrupted("an NSRange of type \(type) whose fields are not integers") }
            return ArchivedSpecialValue(.range(location: numbers[0], length: numbers[1]))
        case ("_NSPoint", .structure(let parts)), ("CGPoint", .structure(let parts)):
            guard let r = reals(parts), r.count == 2 else { throw fields.corrupted("a point of type \(type) that is not two reals") }
            return ArchivedSpecialValue(.point(x: r[0], y: r[1]))
        case ("_NSSize", .structure(let parts)), ("CGSize", .structure(let parts)):
            guard let r = reals(parts), r.count == 2 else { throw fields.corrupted("a size of type \(type) that is not two reals") }
            return ArchivedSpecialValue(.size(width: r[0], height: r[1]))
        case ("_NSRect", .structure(let parts)), ("CGRect", .structure(let parts)):
            guard parts.count == 2, case .structure(let origin) = parts[0], case .structure(let size) = parts[1],
                  let o = reals(origin), let s = reals(size), o.count == 2, s.count == 2
            else { throw fields.corrupted("a rect of type \(type) that is not two pairs of reals") }
            return ArchivedSpecialValue(.rect(x: o[0], y: o[1], width: s[0], height: s[1]))
        case ("NSEdgeInsets", .structure(let parts)):
            guard let r = reals(parts), r.count == 4 else { throw fields.corrupted("edge insets of type \(type) that are not four reals") }
            return ArchivedSpecialValue(.edgeInsets(top: r[0], left: r[1], bottom: r[2], right: r[3]))
        case (_, .byteArray(let bytes)):
            // `[Nc]` or `[NC]`: the stream stores the N bytes as they are (see TypedstreamReader); each is a number.
            let signed = type.hasSuffix("c]")
            let numbers = bytes.map { byte -> ArchivedSpecialValue.ObjCValue.Number in
                signed ? .integer(Int64(Int8(bitPattern: byte))) : .unsignedInteger(UInt64(byte))
            }
            return ArchivedSpecialValue(.objCValue(ArchivedSpecialValue.ObjCValue(typeEncoding: type, elements: numbers)))
        default:
            let elements: [TypedstreamValue]
            if case .array(let items) = stored { elements = items } else { elements = [stored] }
            var numbers: [ArchivedSpecialValue.ObjCValue.Number] = []
            for element in elements {
                switch element {
                case .integer(let v): numbers.append(.integer(v))
                case .unsignedInteger(let v): numbers.append(.unsignedInteger(v))
                case .float(let f): numbers.append(.real(Double(f)))
                case .double(let d): numbers.append(.real(d))
                case .bool(let b): numbers.append(.bool(b))
                default: throw fields.corrupted("an NSValue of type \(type.debugDescription), which is not a number, range, point, size, rect or edge insets")
                }
            }
            return ArchivedSpecialValue(.objCValue(ArchivedSpecialValue.ObjCValue(typeEncoding: type, elements: numbers)))
        }
    }

    /// NSColor's typedstream form: `c` kind (1 calibrated RGB, 2 device RGB, 3 calibrated white, 4 device
    /// white, 5 device CMYK, 6 named), then its `f` components with alpha, or for a named color its list's
    /// name, its name and the NSColor to use without the list (pytypedstream's NSColor, and the nibs and
    /// color list of the corpus).
    private mutating func color(_ fields: inout Source.Cursor, depth: Int) throws(TypedstreamError) -> ArchivedColor {
        guard case .integer(let kind) = try next(&fields, "c", depth: depth) else { throw fields.corrupted("an NSColor without its kind") }
        switch kind {
        case 1, 2:
            let c = try colorComponents(4, &fields, depth: depth)
            return ArchivedColor(.rgb(red: c[0], green: c[1], blue: c[2], alpha: c[3], calibrated: kind == 1))
        case 3, 4:
            let c = try colorComponents(2, &fields, depth: depth)
            return ArchivedColor(.white(white: c[0], alpha: c[1], calibrated: kind == 3))
        case 5:
            let c = try colorComponents(5, &fields, depth: depth)
            return ArchivedColor(.cmyk(cyan: c[0], magenta: c[1], yellow: c[2], black: c[3], alpha: c[4]))
        case 6:
            let parts = try nextGroup(&fields, "@@@", depth: depth)
            guard case .string(let list) = try value(parts[0], depth: depth), case .string(let name) = try value(parts[1], depth: depth) else {
                throw fields.corrupted("a named NSColor whose list or color name is not an NSString")
            }
            var fallback: ArchivedColor?
            if parts[2] != .nilObject {
                guard let resolved = try value(parts[2], depth: depth).archivedColorValue else {
                    throw fields.corrupted("a named NSColor whose fallback is not an NSColor")
                }
                fallback = resolved
            }
            return ArchivedColor(.catalog(catalogName: list, colorName: name, fallback: fallback))
        default:
            throw fields.corrupted("an NSColor of kind \(kind); kinds 1 to 6 are known")
        }
    }

    /// The next group of `count` `f` values, as reals.
    private mutating func colorComponents(_ count: Int, _ fields: inout Source.Cursor, depth: Int) throws(TypedstreamError) -> [Double] {
        let values = try nextGroup(&fields, String(repeating: "f", count: count), depth: depth)
        let reals = values.compactMap { if case .float(let f) = $0 { return Double(f) } else { return nil } }
        guard reals.count == count else { throw fields.corrupted("an NSColor whose \(count) components are not all 'f' values") }
        return reals
    }

    /// NSFont's typedstream form (versions 21 and 30 in the corpus's nibs): its name as an old-style
    /// (NeXTSTEP) binary property list string in an NSData's form, `f` size, then four `c` flag bytes, kept as
    /// ``ArchivedFont/flags`` with the first in the high byte.
    private mutating func font(_ fields: inout Source.Cursor, depth: Int) throws(TypedstreamError) -> ArchivedFont {
        let plist = [UInt8](try data(&fields, depth: depth))
        let name: String
        do throws(TypedstreamError) { name = try oldPropertyListString(plist) } catch {
            throw fields.corrupted("an NSFont whose name is not an old-style property list string (UTF-16, or ASCII): \(error.message)")
        }
        guard case .float(let size) = try next(&fields, "f", depth: depth) else { throw fields.corrupted("an NSFont without its size") }
        var flags: UInt32 = 0
        for _ in 0 ..< 4 {
            guard case .integer(let byte) = try next(&fields, "c", depth: depth) else { throw fields.corrupted("an NSFont without its four flags") }
            flags = flags << 8 | UInt32(UInt8(truncatingIfNeeded: byte))
        }
        // Built in UInt32: 0 to 2^32 - 1 with a 64-bit Int; with a 32-bit one the same four bytes, as Int32.
        return ArchivedFont(name: name, size: Double(size), flags: Int(truncatingIfNeeded: flags))
    }

    /// The next value, run `run`'s attribute dictionary (an NSDictionary whose keys are NSStrings), as a Swift
    /// dictionary. From a stream source, a dictionary stored here is read into one directly, at `depth` as
    /// ``makeStoredObject(_:depth:)`` reads it; ``made`` then keeps it.
    private mutating func attributes(_ fields: inout Source.Cursor, run: Int, depth: Int) throws(TypedstreamError) -> [String: FoundationValue] {
        let found = try source.next(&fields, "@")
        if Source.makesObjectsWhereStored, case .object(let index) = found {
            var cursor = try source.cursor(forObjectAt: index)
            guard cursor.foundationClass == .dictionary else {
                try makeStoredObject(index, depth: depth)
                return try attributes(of: found, in: fields, run: run, depth: depth)
            }
            try checkStoredObjectDepth(depth, of: index)
            let count = try count(&cursor, "i", depth: depth + 1)
            // Made at its size (init(minimumCapacity:) is specialised here; reserveCapacity is called
            // generic and looks its storage type up on every call).
            var attributes = [String: FoundationValue](minimumCapacity: count)
            for _ in 0 ..< count {
                guard let name = try nextString(&cursor, depth: depth + 1) else {
                    throw fields.corrupted("run \(run) has an attribute name that is not a string")
                }
                attributes[name] = try value(next(&cursor, "@", depth: depth + 1), depth: depth + 1)
            }
            try source.finish(cursor)
            store(.attributes(attributes), at: index)
            return attributes
        }
        return try attributes(of: found, in: fields, run: run, depth: depth)
    }

    /// The next value, an object that should be an NSString, as text; nil when it is another value. From a
    /// stream source, an NSString stored here is read straight into text, at `depth` as
    /// ``makeStoredObject(_:depth:)`` reads it; ``made`` then keeps the text.
    private mutating func nextString(_ cursor: inout Source.Cursor, depth: Int) throws(TypedstreamError) -> String? {
        let found = try source.next(&cursor, "@")
        switch found {
        case .object(let index) where Source.makesObjectsWhereStored:
            var object = try source.cursor(forObjectAt: index)
            guard object.foundationClass == .string else {
                try makeStoredObject(index, depth: depth)
                break
            }
            try checkStoredObjectDepth(depth, of: index)
            let text = try source.nextString(&object)
            try source.finish(object)
            store(.string(text), at: index)
            return text
        case .objectReference(let index):
            if index >= 0, index < made.count, case .string(let text)? = made[index] { return text }
        default:
            break
        }
        guard case .string(let text) = try value(found, depth: depth) else { return nil }
        return text
    }

    /// The attribute dictionary `found` (run `run`'s) names, made as any value is.
    private mutating func attributes(of found: TypedstreamValue, in fields: Source.Cursor, run: Int, depth: Int) throws(TypedstreamError) -> [String: FoundationValue] {
        guard let entries = try value(found, depth: depth).plainDictionary else {
            throw fields.corrupted("run \(run)'s attributes are not an NSDictionary")
        }
        var attributes = [String: FoundationValue](minimumCapacity: entries.count)
        for (key, attribute) in entries {
            guard case .string(let name) = key else { throw fields.corrupted("run \(run) has an attribute name that is not a string") }
            attributes[name] = attribute
        }
        return attributes
    }

    /// NSAttributedString's typedstream form: the string object, then per run an `iI` group (the run's
    /// attribute dictionary, numbered from 1 in order of first use; the run's length in UTF-16 units)
    /// followed, when the number is new, by an `@` group with that dictionary.
    private mutating func attributedString(_ fields: inout Source.Cursor, depth: Int) throws(TypedstreamError) -> ArchivedAttributedString {
        guard let text = try nextString(&fields, depth: depth) else {
            throw fields.corrupted("an NSAttributedString whose string is not an NSString")
        }
        // A few runs and dictionaries are typical; the arrays grow past that when they need to.
        var dictionaries: [[String: FoundationValue]] = []
        dictionaries.reserveCapacity(4)
        var runs: [ArchivedAttributedString.Run] = []
        runs.reserveCapacity(4)
        var position = 0
        let units = utf16Length(of: text)
        while !source.isAtEnd(fields) {
            _ = try source.enterGroup(&fields, "iI")
            let header = (try next(&fields, nil, depth: depth), try next(&fields, nil, depth: depth))
            guard case .integer(let number) = header.0, case .unsignedInteger(let length) = header.1,
                  number >= 1, number <= Int64(dictionaries.count) + 1, length > 0, let runLength = Int(exactly: length),
                  runLength <= units - position
            else { throw fields.corrupted("run \(runs.count): dictionary \(header.0) and length \(header.1) do not fit \(dictionaries.count) dictionaries and \(units - position) units left") }
            if number == Int64(dictionaries.count) + 1 {
                dictionaries.append(try attributes(&fields, run: runs.count, depth: depth))
            }
            runs.append(ArchivedAttributedString.Run(range: position ..< position + runLength, attributes: dictionaries[Int(number) - 1]))
            position += runLength
        }
        // Each run starts where the one before ends and is not empty: the runs are valid when they end at the
        // string's end.
        if position == units { return ArchivedAttributedString(string: text, validRuns: runs) }
        do {
            return try ArchivedAttributedString(string: text, runs: runs)
        } catch {
            throw fields.corrupted("its runs do not cover the string: \(error)")
        }
    }
}

private extension FoundationValue {
    /// The color, when this value is one.
    var archivedColorValue: ArchivedColor? { cataloguedValue as? ArchivedColor }

    /// The entries, when this value is a dictionary.
    var plainDictionary: [FoundationValue: FoundationValue]? {
        if case .dictionary(let d) = self { return d.dictionary }
        return nil
    }
}
