#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Foundation's `NSPersonNameComponents`: the parts of a person's name.
///
/// The corresponding Foundation types are `NSPersonNameComponents` and `PersonNameComponents`.
///
/// Layout (Foundation on Linux, `NSKeyedArchiver.archivedData(withRootObject:requiringSecureCoding: true)`;
/// `$classes` `[NSPersonNameComponents, NSObject]`): `NS.namePrefix`, `NS.givenName`, `NS.middleName`,
/// `NS.familyName`, `NS.nameSuffix` and `NS.nickname`, each UID → string, or UID 0 (`$null`) when the
/// part is nil (Foundation on Linux writes all six keys); `NS.phoneticRepresentation`, UID → another
/// NSPersonNameComponents, which Foundation on Linux neither writes nor reads. A missing key reads as nil.
/// No Apple-written archive of the class is in the corpus.
public struct ArchivedPersonNameComponents: CataloguedValue {
    /// `NS.namePrefix` ("Dr.").
    public var namePrefix: String?
    /// `NS.givenName`.
    public var givenName: String?
    /// `NS.middleName`.
    public var middleName: String?
    /// `NS.familyName`.
    public var familyName: String?
    /// `NS.nameSuffix` ("Jr.").
    public var nameSuffix: String?
    /// `NS.nickname`.
    public var nickname: String?

    // An array so that the struct may hold a value of its own type; at most one element.
    private var phoneticStorage: [ArchivedPersonNameComponents] = []

    /// `NS.phoneticRepresentation`: the name as pronounced, itself name components.
    public var phoneticRepresentation: ArchivedPersonNameComponents? {
        get { phoneticStorage.first }
        set { phoneticStorage = newValue.map { [$0] } ?? [] }
    }

    /// Name components with the given parts.
    public init(namePrefix: String? = nil, givenName: String? = nil, middleName: String? = nil, familyName: String? = nil,
                nameSuffix: String? = nil, nickname: String? = nil, phoneticRepresentation: ArchivedPersonNameComponents? = nil) {
        self.namePrefix = namePrefix
        self.givenName = givenName
        self.middleName = middleName
        self.familyName = familyName
        self.nameSuffix = nameSuffix
        self.nickname = nickname
        self.phoneticRepresentation = phoneticRepresentation
    }

    public static var archivedClassName: String { "NSPersonNameComponents" }
    public static var foundationValueName: String { "personNameComponents" }

    /// The keys of the string parts, in the order Foundation writes them.
    static let partKeys = ["NS.namePrefix", "NS.givenName", "NS.middleName", "NS.familyName", "NS.nameSuffix", "NS.nickname"]

    /// Reads the parts that are present; a missing key or `$null` is nil.
    ///
    /// - Throws: ``KeyedArchiveError`` naming `NSPersonNameComponents` and the key when a part is not a
    ///   string or the phonetic representation is not an NSPersonNameComponents.
    public init(from decoder: any ArchiveDecoder) throws {
        self = try namingClass(Self.archivedClassName) { try Self(reading: decoder) }
    }

    private init(reading decoder: any ArchiveDecoder) throws {
        namePrefix = try decoder.decodeIfPresent(String.self, forKey: "NS.namePrefix")
        givenName = try decoder.decodeIfPresent(String.self, forKey: "NS.givenName")
        middleName = try decoder.decodeIfPresent(String.self, forKey: "NS.middleName")
        familyName = try decoder.decodeIfPresent(String.self, forKey: "NS.familyName")
        nameSuffix = try decoder.decodeIfPresent(String.self, forKey: "NS.nameSuffix")
        nickname = try decoder.decodeIfPresent(String.self, forKey: "NS.nickname")
        phoneticRepresentation = try decoder.decodeIfPresent(ArchivedPersonNameComponents.self, forKey: "NS.phoneticRepresentation")
    }

    /// Writes the six parts as Foundation does (a nil part as `$null`), and the phonetic representation
    /// when there is one.
    public func encode(to encoder: any ArchiveEncoder) throws {
        for (key, part) in zip(Self.partKeys, [namePrefix, givenName, middleName, familyName, nameSuffix, nickname]) {
            if let part { try encoder.encode(part, forKey: key) } else { try encoder.encodeNil(forKey: key) }
        }
        if let phoneticRepresentation { try encoder.encodeObject(phoneticRepresentation, forKey: "NS.phoneticRepresentation") }
    }

    private enum CodingKeys: String, CodingKey {
        case namePrefix, givenName, middleName, familyName, nameSuffix, nickname, phoneticRepresentation
    }

    /// Reads the Codable form: each part under its property's name, absent when nil.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        namePrefix = try container.decodeIfPresent(String.self, forKey: .namePrefix)
        givenName = try container.decodeIfPresent(String.self, forKey: .givenName)
        middleName = try container.decodeIfPresent(String.self, forKey: .middleName)
        familyName = try container.decodeIfPresent(String.self, forKey: .familyName)
        nameSuffix = try container.decodeIfPresent(String.self, forKey: .nameSuffix)
        nickname = try container.decodeIfPresent(String.self, forKey: .nickname)
        phoneticRepresentation = try container.decodeIfPresent(ArchivedPersonNameComponents.self, forKey: .phoneticRepresentation)
    }

    /// Writes the Codable form: each part under its property's name, absent when nil.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(namePrefix, forKey: .namePrefix)
        try container.encodeIfPresent(givenName, forKey: .givenName)
        try container.encodeIfPresent(middleName, forKey: .middleName)
        try container.encodeIfPresent(familyName, forKey: .familyName)
        try container.encodeIfPresent(nameSuffix, forKey: .nameSuffix)
        try container.encodeIfPresent(nickname, forKey: .nickname)
        try container.encodeIfPresent(phoneticRepresentation, forKey: .phoneticRepresentation)
    }

    /// `NSPersonNameComponents Dr. Ada Lovelace`: the present parts in Foundation's order.
    public var description: String {
        let parts = [namePrefix, givenName, middleName, familyName, nameSuffix].compactMap { $0 }
        var text = (["NSPersonNameComponents"] + parts).joined(separator: " ")
        if let nickname { text += " (\(nickname))" }
        return text
    }
}
