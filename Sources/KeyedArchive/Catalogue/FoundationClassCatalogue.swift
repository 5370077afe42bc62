/// How a member of a catalogued Foundation class is stored in its object's dictionary.
enum FoundationMemberStorage: Hashable, Sendable {
    /// A plain value in the object itself (`NS.time`: a real; `NS.uuidbytes`: data), as `encodeDouble`/`encodeBytes` write it.
    case inline
    /// A UID referring to another `$objects` entry (`NS.relative` → a string; `NS.base` → an NSURL or nil).
    case reference
    /// An array of UIDs, one per element (`NS.objects`, `NS.keys`).
    case referenceArray
    /// One UID member per element, named by the member's key plus the element's index (`NS.object.0`,
    /// `NS.object.1`, ...), in any stored order.
    case referencePerIndex
}

/// What a member of a catalogued class means (how the code that reads or writes the class finds it).
enum FoundationMemberRole: Hashable, Sendable {
    /// The string of an NSString object (`NS.string`).
    case string
    /// The bytes of an NSData object (`NS.data`).
    case bytes
    /// An NSDate's seconds since 2001-01-01 UTC (`NS.time`).
    case time
    /// An NSUUID's 16 bytes (`NS.uuidbytes`).
    case uuidBytes
    /// An NSURL's base URL (`NS.base`).
    case base
    /// An NSURL's relative string (`NS.relative`).
    case relative
    /// The elements of an array, set or ordered set; a dictionary's values (`NS.objects`, `NS.object.N`).
    case elements
    /// A dictionary's keys, parallel to its values (`NS.keys`).
    case keys
}

/// One member of a catalogued class: its key, how it is stored and what it means.
struct FoundationMember: Hashable, Sendable {
    /// The stored key (for ``FoundationMemberStorage/referencePerIndex``, the prefix before the index).
    let key: String
    let storage: FoundationMemberStorage
    let role: FoundationMemberRole
    /// Whether a writer may leave the member out (an empty collection's elements, an absolute URL's base).
    let optional: Bool

    init(_ key: String, _ storage: FoundationMemberStorage, _ role: FoundationMemberRole, optional: Bool = false) {
        self.key = key
        self.storage = storage
        self.role = role
        self.optional = optional
    }
}

/// Which Swift value a catalogued class becomes, and so which code reads and writes it.
/// (`@unchecked`: the only payload is a metatype, which is immutable.)
enum FoundationClassFamily: @unchecked Sendable {
    /// NSString: `String` (inline in `$objects` when immutable; NSMutableString has `NS.string`).
    case string
    /// NSNumber: `Bool`, integers, `Float`, `Double` (always inline in `$objects`).
    case number
    /// NSData: `Data` (inline when immutable; NSMutableData has `NS.data`).
    case data
    /// NSDate: `Date`.
    case date
    /// NSUUID: `UUID`.
    case uuid
    /// NSURL: `URL`.
    case url
    /// NSNull: ``ArchiveNull``.
    case null
    /// NSArray: `[T]`.
    case array
    /// NSOrderedSet: `[T]` in order (``FoundationValue/orderedSet(_:)``).
    case orderedSet
    /// NSSet: `Set<T>`.
    case set
    /// NSDictionary: `[K: V]`.
    case dictionary
    /// A ``KeyedArchivable`` value type implemented elsewhere (`FoundationTypes/`): that type reads and
    /// writes the class and is the one place its member keys are written down (the entry holds no
    /// members); the raw model shows the object by decoding it with this type.
    case archivable(any KeyedArchivable.Type)
}

/// One Foundation class the package knows: its archived names, the `$classes` chains Apple writes, the
/// members of its object and the Swift value it becomes.
struct FoundationClass: Sendable {
    /// The immutable class name (`NSArray`).
    let name: String
    /// The `$classes` chain written for ``name`` (`["NSArray", "NSObject"]`).
    let chain: [String]
    /// The mutable variant (`NSMutableArray`), if the class has one; its chain is this name followed by ``chain``.
    let mutableName: String?
    /// Whether the immutable class is written inline in `$objects` (a plain string, number or data)
    /// rather than as an object with `$class`.
    let isInline: Bool
    /// The members of an object of the class (besides `$class`).
    let members: [FoundationMember]
    let family: FoundationClassFamily

    init(_ name: String, mutable mutableName: String? = nil, chain: [String]? = nil, inline: Bool = false,
         members: [FoundationMember] = [], _ family: FoundationClassFamily) {
        self.name = name
        self.chain = chain ?? [name, "NSObject"]
        self.mutableName = mutableName
        self.isInline = inline
        self.members = members
        self.family = family
    }

    /// The entry of a class implemented by a ``KeyedArchivable`` value type: its name, chain and mutable
    /// name (the first of ``KeyedArchivable/legacyClassNames``, as `NSMutableIndexSet` for `NSIndexSet`)
    /// come from the type, which alone knows the members.
    init(archivable type: any KeyedArchivable.Type) {
        self.init(type.archivedClassName, mutable: type.legacyClassNames.first, chain: type.archivedClassChain,
                  .archivable(type))
    }

    /// Every name an archive may use for the class: the immutable name, then the mutable one.
    var names: [String] { mutableName.map { [name, $0] } ?? [name] }

    /// The `$classes` chain Apple writes for `className` (one of ``names``), or nil for another name.
    func chain(for className: String) -> [String]? {
        if className == name { return chain }
        if className == mutableName { return [className] + chain }
        return nil
    }

    /// The member with `role`, if the class's entry has one.
    func member(_ role: FoundationMemberRole) -> FoundationMember? {
        members.first(where: { $0.role == role })
    }

    /// The key of the member with `role`. Asked only by the archiver's and decoder's static tables, for roles
    /// their entries have (`FoundationClassCatalogueTests` checks every one); an entry without the role gives
    /// the empty string, which no stored key equals, rather than a trap.
    func key(_ role: FoundationMemberRole) -> String { member(role)?.key ?? "" }
}

/// The Foundation classes the package knows, written down once: the archiver, the typed decoder, the raw
/// model's resolved view and `archive-dump` all take class names, chains and member keys from here.
///
/// Adding a class is one entry (plus its tests). A class implemented as a ``CataloguedValue`` type elsewhere
/// is one line in ``valueTypes`` (family ``FoundationClassFamily/archivable(_:)``; names and chain from the
/// type); ``FoundationValue`` holds its values in ``FoundationValue/catalogued(_:)`` without a change:
///
/// ```swift
/// FoundationClass(archivable: ArchivedIndexSet.self),
/// ```
///
/// Evidence for each layout: each value type's documentation (the writer, reader or file it follows) and the
/// macOS-written fixtures of the shared corpus that the structural comparison tests read.
struct FoundationClassCatalogue: Sendable {
    /// The entries, in the order the catalogue was given them.
    let entries: [FoundationClass]
    /// Every archived name (immutable and mutable) to its entry.
    private let byName: [String: Int]

    /// A catalogue of `entries`; a later entry with a name already present replaces the earlier one.
    init(_ entries: [FoundationClass]) {
        self.entries = entries
        var byName: [String: Int] = [:]
        for (i, entry) in entries.enumerated() {
            for name in entry.names { byName[name] = i }
        }
        self.byName = byName
    }

    /// The entry for an archived class name (immutable or mutable), if catalogued.
    func entry(named name: String) -> FoundationClass? {
        byName[name].map { entries[$0] }
    }

    /// This catalogue with `extra` entries added (replacing entries with the same names). For tests and
    /// for callers that render archives with more value types than the package ships.
    func adding(_ extra: [FoundationClass]) -> FoundationClassCatalogue {
        FoundationClassCatalogue(entries + extra)
    }

    // MARK: The standard entries

    static let string = FoundationClass("NSString", mutable: "NSMutableString", inline: true,
                                        members: [FoundationMember("NS.string", .inline, .string)], .string)
    static let number = FoundationClass("NSNumber", chain: ["NSNumber", "NSValue", "NSObject"], inline: true, .number)
    static let data = FoundationClass("NSData", mutable: "NSMutableData", inline: true,
                                      members: [FoundationMember("NS.data", .inline, .bytes)], .data)
    static let date = FoundationClass("NSDate", members: [FoundationMember("NS.time", .inline, .time)], .date)
    static let uuid = FoundationClass("NSUUID", members: [FoundationMember("NS.uuidbytes", .inline, .uuidBytes)], .uuid)
    static let url = FoundationClass("NSURL", members: [FoundationMember("NS.base", .reference, .base, optional: true),
                                                        FoundationMember("NS.relative", .reference, .relative)], .url)
    static let null = FoundationClass("NSNull", .null)
    static let array = FoundationClass("NSArray", mutable: "NSMutableArray",
                                       members: [FoundationMember("NS.objects", .referenceArray, .elements, optional: true)], .array)
    static let orderedSet = FoundationClass("NSOrderedSet", mutable: "NSMutableOrderedSet",
                                            members: [FoundationMember("NS.object.", .referencePerIndex, .elements, optional: true)],
                                            .orderedSet)
    static let set = FoundationClass("NSSet", mutable: "NSMutableSet",
                                     members: [FoundationMember("NS.objects", .referenceArray, .elements, optional: true)], .set)
    static let dictionary = FoundationClass("NSDictionary", mutable: "NSMutableDictionary",
                                            members: [FoundationMember("NS.keys", .referenceArray, .keys, optional: true),
                                                      FoundationMember("NS.objects", .referenceArray, .elements, optional: true)],
                                            .dictionary)
    /// The classes implemented by the value types of `FoundationTypes/`, one line each; each type's own
    /// documentation gives its layout and evidence. Each is a ``CataloguedValue`` (the untyped decoder reads
    /// an entry's class as ``FoundationValue/catalogued(_:)`` only then; `CatalogueFoundationValueTests` checks it).
    static let valueTypes: [FoundationClass] = [
        // NSValue: range, point, size, rect, edge insets; an Objective-C number type or C array of one ($0 type
        // string, $1 number or _NSKeyedCoderOldStyleArray, read only: that array has no entry of its own, as it
        // is never a value by itself).
        FoundationClass(archivable: ArchivedSpecialValue.self),
        FoundationClass(archivable: ArchivedIndexSet.self),          // NSIndexSet, NSMutableIndexSet
        FoundationClass(archivable: ArchivedIndexPath.self),         // NSIndexPath
        FoundationClass(archivable: ArchivedCountedSet.self),        // NSCountedSet
        FoundationClass(archivable: ArchivedMeasurement.self),       // NSMeasurement
        FoundationClass(archivable: ArchivedTimeZone.self),          // NSTimeZone
        FoundationClass(archivable: ArchivedLocale.self),            // NSLocale
        FoundationClass(archivable: ArchivedISO8601DateFormatter.self),  // NSISO8601DateFormatter
        FoundationClass(archivable: ArchivedAttributedString.self),  // NSAttributedString, NSMutableAttributedString
        FoundationClass(archivable: ArchivedColor.self),             // NSColor
        FoundationClass(archivable: ArchivedFont.self),              // NSFont
        FoundationClass(archivable: ArchivedPersonNameComponents.self),  // NSPersonNameComponents
        FoundationClass(archivable: ArchivedDecimalNumber.self),     // NSDecimalNumber
    ]

    /// The classes the package reads and writes: the plain Foundation values, then the value types.
    static let standard = FoundationClassCatalogue([
        string, number, data, date, uuid, url, null, array, orderedSet, set, dictionary,
    ] + valueTypes)

    /// The other spelling of the indexed-element layout: one array of UIDs, `NS.objects` (what this package
    /// wrote for ordered sets before it wrote Apple's layout, and what some writers use for arrays).
    static let elementArrayKey = "NS.objects"
    /// The prefix of the indexed-element layout (`NS.object.0`, `NS.object.1`, ...).
    static let elementPerIndexPrefix = "NS.object."

    /// The index in an `NS.object.<index>` key: decimal digits only, no sign, no leading zero (but `0`).
    static func elementIndex(inKey key: Substring) -> Int? {
        guard let first = key.utf8.first, first >= 0x30, first <= 0x39, key.utf8.count <= 18,
              key.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), first != 0x30 || key.utf8.count == 1 else { return nil }
        return Int(key)
    }

    /// The positions of elements stored one key per element: given the stored keys (any order), the
    /// position of `NS.object.0`, `NS.object.1`, ... in that list; nil when the indices have a gap (or a key
    /// starts with the prefix but has no valid index: a sign, a leading zero, a non-digit), which is not a
    /// list. A key stored twice counts once, at its last position (a repeated key's last value wins, as
    /// everywhere in this package); distinct keys cannot share an index.
    static func indexedElementPositions(keys: some Sequence<String>, prefix: String = elementPerIndexPrefix) -> [Int]? {
        var positions: [Int] = []
        var found: [Int: Int] = [:]
        for (position, key) in keys.enumerated() where key.hasPrefix(prefix) {
            guard let index = elementIndex(inKey: key.dropFirst(prefix.utf8.count)) else { return nil }
            found[index] = position
        }
        positions.reserveCapacity(found.count)
        for index in 0 ..< found.count {
            guard let position = found[index] else { return nil }
            positions.append(position)
        }
        return positions
    }
}
