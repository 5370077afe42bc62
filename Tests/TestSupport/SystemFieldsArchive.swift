import Foundation

/// A record's system fields written straight into Foundation's `NSKeyedArchiver` (Foundation on Linux,
/// in-process), the shape CloudKit's `CKRecord.encodeSystemFields(with:)` gives: booleans, integers, a
/// real and bytes land inline in `$top`, objects (a string, a date, a nested zone ID) as UIDs.
public enum SystemFieldsArchive {
    /// The values written, key by key.
    public static let isZoneWide = true
    public static let wasCached = false
    public static let changeTag: Int64 = 1_234_567_890_123
    public static let version: Int32 = -7
    public static let ratio = 0.25
    public static let etag: [UInt8] = [0x00, 0x01, 0xFE]
    public static let recordName = "record-1"
    public static let modificationDate = Date(timeIntervalSinceReferenceDate: 123_456.75)
    public static let zone = (zoneName: "zone", ownerName: "__defaultOwner__")

    /// The keys that hold inline values, and those that hold UIDs.
    public static let inlineKeys: Set<String> = ["isZoneWide", "wasCached", "changeTag", "version", "ratio", "etag"]
    public static let objectKeys: Set<String> = ["RecordName", "ModificationDate", "ZoneID"]

    /// The archive as Foundation on Linux writes it (binary).
    public static func foundation() -> Data {
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.encode(isZoneWide, forKey: "isZoneWide")
        archiver.encode(wasCached, forKey: "wasCached")
        archiver.encode(changeTag, forKey: "changeTag")
        archiver.encode(version, forKey: "version")
        archiver.encode(ratio, forKey: "ratio")
        etag.withUnsafeBufferPointer { archiver.encodeBytes($0.baseAddress, length: $0.count, forKey: "etag") }
        archiver.encode(recordName as NSString, forKey: "RecordName")
        archiver.encode(modificationDate as NSDate, forKey: "ModificationDate")
        archiver.encode(SystemFieldsZoneID(zoneName: zone.zoneName, ownerName: zone.ownerName), forKey: "ZoneID")
        archiver.finishEncoding()
        return archiver.encodedData
    }
}

/// The zone ID nested in ``SystemFieldsArchive``: an ordinary `NSCoding` class with two string fields (top
/// level, as corelibs' `NSStringFromClass` requires of an archived class).
public final class SystemFieldsZoneID: NSObject, NSCoding {
    public let zoneName: String
    public let ownerName: String

    public init(zoneName: String, ownerName: String) {
        self.zoneName = zoneName
        self.ownerName = ownerName
    }

    public required init?(coder: NSCoder) {
        guard let zone = coder.decodeObject(forKey: "ZoneName") as? String,
              let owner = coder.decodeObject(forKey: "OwnerName") as? String else { return nil }
        zoneName = zone
        ownerName = owner
    }

    public func encode(with coder: NSCoder) {
        coder.encode(zoneName as NSString, forKey: "ZoneName")
        coder.encode(ownerName as NSString, forKey: "OwnerName")
    }

    /// The class name Foundation writes for it (`Module.ZoneID` on Linux).
    public static var archivedName: String { NSStringFromClass(SystemFieldsZoneID.self) }
}
