#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Builds a ``TypedstreamArchive`` from ``FoundationValue``s: classes (with Apple's versions and
/// superclasses) once each, each value a new object.
struct TypedstreamModelBuilder {
    var archive: TypedstreamArchive
    let maximumDepth: Int
    /// A class's name to the name the archive stores for it (``TypedstreamArchiver/setClassName(_:forClassName:)``).
    let classNames: [String: String]
    /// A class's name (before ``classNames``) to its index in the archive's classes.
    private var classIndexes: [String: Int] = [:]
    /// A Foundation class's name to the index of its class once its whole chain (``chains``) was checked
    /// against the classes added before, by a Foundation value or by a kept object's chain; a name is
    /// added only after that check, so whichever comes first, a chain that contradicts another is refused.
    private var checkedFoundationClassIndexes: [String: Int] = [:]
    /// The archives kept objects were copied from, each with the indexes its objects were copied to, so that
    /// an object of such an archive met again (in the same kept value or in another) is a reference to its
    /// copy: NSArchiver writes an object once. An archive is found by the address of its objects' storage
    /// (``copiedObjectsIndex``), which the copy kept here holds alive and unchanged.
    private var copiedSources: [(archive: TypedstreamArchive, copied: [Int: Int])] = []
    /// The address of a source archive's objects' storage to its entry in ``copiedSources``.
    private var copiedObjectsIndex: [UInt: Int] = [:]

    init(byteOrder: TypedstreamArchive.ByteOrder, maximumDepth: Int, classNames: [String: String] = [:]) {
        archive = TypedstreamArchive(byteOrder: byteOrder)
        self.maximumDepth = maximumDepth
        self.classNames = classNames
    }

    /// The class chains written, each class with its superclass (the versions of Apple's files in the corpus).
    private static let chains: [String: [TypedstreamClassVersion]] = [
        "NSString": [.init(name: "NSString", version: 1), .init(name: "NSObject", version: 0)],
        "NSNumber": [.init(name: "NSNumber", version: 0), .init(name: "NSValue", version: 0), .init(name: "NSObject", version: 0)],
        "NSValue": [.init(name: "NSValue", version: 0), .init(name: "NSObject", version: 0)],
        "NSData": [.init(name: "NSData", version: 0), .init(name: "NSObject", version: 0)],
        "NSDate": [.init(name: "NSDate", version: 0), .init(name: "NSObject", version: 0)],
        "NSURL": [.init(name: "NSURL", version: 0), .init(name: "NSObject", version: 0)],
        "NSNull": [.init(name: "NSNull", version: 0), .init(name: "NSObject", version: 0)],
        "NSArray": [.init(name: "NSArray", version: 0), .init(name: "NSObject", version: 0)],
        "NSSet": [.init(name: "NSSet", version: 0), .init(name: "NSObject", version: 0)],
        "NSDictionary": [.init(name: "NSDictionary", version: 0), .init(name: "NSObject", version: 0)],
        "NSColor": [.init(name: "NSColor", version: 0), .init(name: "NSObject", version: 0)],
        "NSFont": [.init(name: "NSFont", version: 30), .init(name: "NSObject", version: 0)],
        "NSAttributedString": [.init(name: "NSAttributedString", version: 0), .init(name: "NSObject", version: 0)],
    ]

    /// The index of the first class of `chain` (a class, its superclasses, the root), adding the classes
    /// not added before, each once, under the name ``classNames`` gives it in the archive.
    ///
    /// - Throws: ``TypedstreamError/Code/invalidArchive`` when `chain` is empty, or a class added before had
    ///   another version or superclass (one class is stored once, so its chain cannot differ).
    mutating func classIndex(chain: [TypedstreamClassVersion]) throws(TypedstreamError) -> Int {
        var superclass: Int?
        for entry in chain.reversed() {
            if let existing = classIndexes[entry.name] {
                let stored = archive.classes[existing]
                guard stored.version == entry.version, stored.superclass == superclass else {
                    let storedSuper = stored.superclass.map { archive.classes[$0].name } ?? "none"
                    let newSuper = superclass.map { archive.classes[$0].name } ?? "none"
                    throw TypedstreamError(.invalidArchive, "class \(entry.name) is written at version \(entry.version) with superclass \(newSuper), "
                                           + "but was written before at version \(stored.version) with superclass \(storedSuper)", className: entry.name)
                }
                superclass = existing
                continue
            }
            archive.classes.append(TypedstreamClass(name: classNames[entry.name] ?? entry.name, version: entry.version, superclass: superclass))
            superclass = archive.classes.count - 1
            classIndexes[entry.name] = superclass
        }
        guard let first = superclass else { throw TypedstreamError(.invalidArchive, "an empty class chain") }
        return first
    }

    /// Stores `value` as a new object (``FoundationValue/null`` as an NSNull) and returns the value that
    /// stores it.
    mutating func object(_ value: FoundationValue, depth: Int) throws(TypedstreamError) -> TypedstreamValue {
        guard depth < maximumDepth else { throw TypedstreamError(.limitExceeded, "values nest deeper than maximumDepth (\(maximumDepth))") }
        if let kept = value.cataloguedValue as? ArchivedTypedstreamObject {
            let source = sourceIndex(of: kept.archive)
            var copied = copiedSources[source].copied
            copiedSources[source].copied = [:]  // one owner while copying: no copy of the table per object
            defer { copiedSources[source].copied = copied }
            return try copy(objectAt: kept.objectIndex, of: kept.archive, depth: depth, copied: &copied)
        }
        let (className, groups) = try content(of: value, depth: depth + 1)
        let index = archive.objects.count
        let classIndex: Int
        if let known = checkedFoundationClassIndexes[className] {
            classIndex = known
        } else {
            classIndex = try self.classIndex(chain: Self.chains[className] ?? [TypedstreamClassVersion(name: className, version: 0)])
            checkedFoundationClassIndexes[className] = classIndex
        }
        archive.objects.append(TypedstreamObject(classIndex: classIndex, groups: []))
        archive.objects[index].groups = try groups(&self)
        return .object(index)
    }

    /// The entry of ``copiedSources`` for `archive`, added when it has none. Two archives are one source when
    /// they share their objects' storage (kept values read from one archive do); equal archives read apart
    /// are two sources, whose objects are copied apart.
    private mutating func sourceIndex(of archive: TypedstreamArchive) -> Int {
        let address = archive.objects.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        if let known = copiedObjectsIndex[address] { return known }
        copiedSources.append((archive, [:]))
        copiedObjectsIndex[address] = copiedSources.count - 1
        return copiedSources.count - 1
    }

    /// Stores the object at `index` of `source` as it is stored there (its class chain with versions, its
    /// groups), and the objects it holds, each once: `copied` maps the objects of `source` copied so far to
    /// their new indexes, so an object met again is a reference. Returns the value that stores it.
    private mutating func copy(objectAt index: Int, of source: TypedstreamArchive, depth: Int,
                               copied: inout [Int: Int]) throws(TypedstreamError) -> TypedstreamValue {
        if let done = copied[index] { return .objectReference(done) }
        guard depth < maximumDepth else { throw TypedstreamError(.limitExceeded, "values nest deeper than maximumDepth (\(maximumDepth))") }
        guard source.className(ofObjectAt: index) != nil else {
            throw TypedstreamError(.invalidArchive, "object #\(index) or its class is past the archive's tables", objectIndex: index)
        }
        let classIndex = try copy(classAt: source.objects[index].classIndex, of: source)
        let stored = archive.objects.count
        archive.objects.append(TypedstreamObject(classIndex: classIndex, groups: []))
        copied[index] = stored
        var groups = source.objects[index].groups
        for g in groups.indices {
            for v in groups[g].values.indices {
                groups[g].values[v] = try copy(groups[g].values[v], of: source, depth: depth + 1, copied: &copied)
            }
        }
        archive.objects[stored].groups = groups
        return .object(stored)
    }

    /// `value` of `source` with the objects and classes it names copied. An array or struct counts as a
    /// level of nesting, as an object does, so that the recursion stays within ``maximumDepth`` levels.
    private mutating func copy(_ value: TypedstreamValue, of source: TypedstreamArchive, depth: Int,
                               copied: inout [Int: Int]) throws(TypedstreamError) -> TypedstreamValue {
        switch value {
        case .object(let index), .objectReference(let index):
            return try copy(objectAt: index, of: source, depth: depth, copied: &copied)
        case .class(let index?):
            return .class(try copy(classAt: index, of: source))
        case .array(let items), .structure(let items):
            guard depth < maximumDepth else { throw TypedstreamError(.limitExceeded, "values nest deeper than maximumDepth (\(maximumDepth))") }
            var result: [TypedstreamValue] = []
            result.reserveCapacity(items.count)
            for item in items { result.append(try copy(item, of: source, depth: depth + 1, copied: &copied)) }
            if case .array = value { return .array(result) }
            return .structure(result)
        default:
            return value
        }
    }

    private mutating func copy(classAt index: Int, of source: TypedstreamArchive) throws(TypedstreamError) -> Int {
        try classIndex(chain: source.classChain(ofClassAt: index).map { TypedstreamClassVersion(name: $0.name, version: $0.version) })
    }

    /// A value's class and a function making its groups (run after the object is numbered, so that the
    /// objects it holds come after it, as in Apple's stream).
    private func content(of value: FoundationValue, depth: Int) throws(TypedstreamError)
        -> (String, (inout TypedstreamModelBuilder) throws(TypedstreamError) -> [TypedstreamGroup]) {
        func group(_ encoding: String, _ values: TypedstreamValue...) -> TypedstreamGroup { TypedstreamGroup(encoding: encoding, values: values) }
        if let text = value.cataloguedValue as? ArchivedAttributedString {
            return ("NSAttributedString", { builder throws(TypedstreamError) in
                var groups = [group("@", try builder.object(.string(text.string), depth: depth))]
                var numbers: [[String: FoundationValue]: Int] = [:]
                for run in text.runs {
                    let known = numbers[run.attributes]
                    let number = known ?? numbers.count + 1
                    groups.append(group("iI", .integer(Int64(number)), .unsignedInteger(UInt64(run.range.count))))
                    if known == nil {
                        numbers[run.attributes] = number
                        let entries = Dictionary(uniqueKeysWithValues: run.attributes.map { (FoundationValue.string($0.key), $0.value) })
                        groups.append(group("@", try builder.object(.dictionary(entries), depth: depth)))
                    }
                }
                return groups
            })
        }
        if let color = value.cataloguedValue as? ArchivedColor {
            return ("NSColor", { builder throws(TypedstreamError) in try builder.colorGroups(color, depth: depth) })
        }
        if let font = value.cataloguedValue as? ArchivedFont {
            return ("NSFont", { _ throws(TypedstreamError) in
                // The name as an old-style property list string: type 6, UTF-16 with a byte-order mark,
                // zero-padded to 4 bytes (as the corpus's nibs store it).
                var name: [UInt8] = [0xFF, 0xFE]
                for unit in font.name.utf16 { name += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
                var plist = [6, 0, 0, 0] + withUnsafeBytes(of: UInt32(name.count).littleEndian, Array.init) + name
                plist += [UInt8](repeating: 0, count: (4 - plist.count % 4) % 4)
                var groups = [group("i", .integer(Int64(plist.count))), group("[\(plist.count)c]", .byteArray(Data(plist))),
                              group("f", .float(Float(font.size)))]
                let flags = font.flags ?? 0
                for shift in [24, 16, 8, 0] { groups.append(group("c", .integer(Int64(Int8(truncatingIfNeeded: flags >> shift))))) }
                return groups
            })
        }
        if let special = value.cataloguedValue as? ArchivedSpecialValue {
            let (type, stored) = try Self.specialValue(special)
            return ("NSValue", { _ throws(TypedstreamError) in [group("*", .cString(Data(type.utf8))), group(type, stored)] })
        }
        switch value {
        case .null: return ("NSNull", { _ throws(TypedstreamError) in [] })
        case .string(let s): return ("NSString", { _ throws(TypedstreamError) in [group("+", .bytes(Data(s.utf8)))] })
        case .bool(let b): return Self.number("c", .integer(b ? 1 : 0))
        case .integer(let i):
            if let signed = i.int64Value { return Self.number("q", .integer(signed)) }
            return Self.number("Q", .unsignedInteger(i.uint64Value ?? 0))
        case .real(let d): return Self.number("d", .double(d))
        case .data(let d):
            return ("NSData", { _ throws(TypedstreamError) in [group("i", .integer(Int64(d.count))), group("[\(d.count)c]", .byteArray(d))] })
        case .date(let d):
            return ("NSDate", { _ throws(TypedstreamError) in [group("d", .double(d.timeIntervalSinceReferenceDate))] })
        case .url(let url):
            return ("NSURL", { builder throws(TypedstreamError) in
                var groups = [group("c", .integer(url.baseURL == nil ? 0 : 1))]
                if let base = url.baseURL { groups.append(group("@", try builder.object(.url(base), depth: depth))) }
                groups.append(group("@", try builder.object(.string(url.relativeString), depth: depth)))
                return groups
            })
        case .array(let a):
            return ("NSArray", { builder throws(TypedstreamError) in try builder.elementGroups("i", a.elements, depth: depth) })
        case .set(let a):
            return ("NSSet", { builder throws(TypedstreamError) in try builder.elementGroups("I", a.elements, depth: depth) })
        case .dictionary(let d):
            return ("NSDictionary", { builder throws(TypedstreamError) in
                let entries = CanonicalOrder.orderedEntries(of: d.dictionary) ?? Array(d.dictionary)
                var groups = [group("i", .integer(Int64(entries.count)))]
                for (key, entry) in entries {
                    groups.append(group("@", try builder.object(key, depth: depth)))
                    groups.append(group("@", try builder.object(entry, depth: depth)))
                }
                return groups
            })
        default:
            throw TypedstreamError(.invalidArchive, "\(value) has no typedstream form here")
        }
    }

    private static func number(_ type: String, _ stored: TypedstreamValue)
        -> (String, (inout TypedstreamModelBuilder) throws(TypedstreamError) -> [TypedstreamGroup]) {
        ("NSNumber", { _ throws(TypedstreamError) in
            [TypedstreamGroup(encoding: "*", values: [.cString(Data(type.utf8))]), TypedstreamGroup(encoding: type, values: [stored])]
        })
    }

    private mutating func elementGroups(_ countType: String, _ elements: [FoundationValue], depth: Int) throws(TypedstreamError) -> [TypedstreamGroup] {
        let count: TypedstreamValue = countType == "I" ? .unsignedInteger(UInt64(elements.count)) : .integer(Int64(elements.count))
        var groups = [TypedstreamGroup(encoding: countType, values: [count])]
        for element in elements { groups.append(TypedstreamGroup(encoding: "@", values: [try object(element, depth: depth)])) }
        return groups
    }

    private mutating func colorGroups(_ color: ArchivedColor, depth: Int) throws(TypedstreamError) -> [TypedstreamGroup] {
        func floats(_ kind: Int64, _ components: [Double]) -> [TypedstreamGroup] {
            [TypedstreamGroup(encoding: "c", values: [.integer(kind)]),
             TypedstreamGroup(encoding: String(repeating: "f", count: components.count), values: components.map { .float(Float($0)) })]
        }
        switch color.content {
        case .rgb(let r, let g, let b, let a, let calibrated): return floats(calibrated ? 1 : 2, [r, g, b, a])
        case .white(let w, let a, let calibrated): return floats(calibrated ? 3 : 4, [w, a])
        case .cmyk(let c, let m, let y, let k, let a): return floats(5, [c, m, y, k, a])
        case .catalog(let list, let name, let fallback):
            let fallbackValue: TypedstreamValue = try fallback.map { color throws(TypedstreamError) in try object(.color(color), depth: depth) } ?? .nilObject
            return [TypedstreamGroup(encoding: "c", values: [.integer(6)]),
                    TypedstreamGroup(encoding: "@@@", values: [try object(.string(list), depth: depth), try object(.string(name), depth: depth), fallbackValue])]
        }
    }

    /// An NSValue's type encoding and stored value.
    private static func specialValue(_ value: ArchivedSpecialValue) throws(TypedstreamError) -> (String, TypedstreamValue) {
        switch value.content {
        case .range(let location, let length):
            return ("{_NSRange=QQ}", .structure([.unsignedInteger(UInt64(clamping: location)), .unsignedInteger(UInt64(clamping: length))]))
        case .point(let x, let y): return ("{CGPoint=dd}", .structure([.double(x), .double(y)]))
        case .size(let w, let h): return ("{CGSize=dd}", .structure([.double(w), .double(h)]))
        case .rect(let x, let y, let w, let h):
            return ("{CGRect={CGPoint=dd}{CGSize=dd}}", .structure([.structure([.double(x), .double(y)]), .structure([.double(w), .double(h)])]))
        case .edgeInsets(let top, let left, let bottom, let right):
            return ("{NSEdgeInsets=dddd}", .structure([.double(top), .double(left), .double(bottom), .double(right)]))
        case .objCValue(let v):
            let numbers: [TypedstreamValue] = v.elements.map { number in
                switch number {
                case .integer(let i): return .integer(i)
                case .unsignedInteger(let u): return .unsignedInteger(u)
                case .real(let d): return v.typeEncoding.contains("f") ? .float(Float(d)) : .double(d)
                case .bool(let b): return .bool(b)
                }
            }
            if v.typeEncoding.hasPrefix("[") {
                guard v.typeEncoding.hasSuffix("c]") || v.typeEncoding.hasSuffix("C]") else { return (v.typeEncoding, .array(numbers)) }
                // A C array of bytes is stored as its bytes (TypedstreamReader reads it so).
                var bytes = Data()
                for number in v.elements {
                    switch number {
                    case .integer(let i) where Int8(exactly: i) != nil: bytes.append(UInt8(bitPattern: Int8(i)))
                    case .unsignedInteger(let u) where u <= UInt64(UInt8.max): bytes.append(UInt8(u))
                    default: throw TypedstreamError(.invalidArchive, "an NSValue of type \(v.typeEncoding) holding \(number), which is not a byte")
                    }
                }
                return (v.typeEncoding, .byteArray(bytes))
            }
            guard let first = numbers.first else { throw TypedstreamError(.invalidArchive, "an NSValue of type \(v.typeEncoding) without a value") }
            return (v.typeEncoding, first)
        }
    }
}
