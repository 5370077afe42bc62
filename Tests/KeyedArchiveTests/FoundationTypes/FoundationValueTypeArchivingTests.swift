import Foundation
import Testing
@testable import KeyedArchive

// Calendar, DateComponents, URLComponents and Measurement held by a Codable model: written as Apple's archiver
// writes them (NSCalendar, NSDateComponents, NSMeasurement) or, for URLComponents, which no Foundation class
// archives, under one name on every platform; read back field by field, checked against Foundation on Linux in
// both directions, and read from the forms earlier versions wrote.

struct CalendarModel: ArchivableCodable {
    var calendar: Calendar
    var components: DateComponents
    var link: URLComponents?
    var distance: Measurement<UnitLength>
    var temperature: Measurement<UnitTemperature>
}

/// The Codable form earlier versions wrote for a `Calendar`/`DateComponents`/`URLComponents` field: an object
/// named after the Swift type holding the type's own Codable fields.
struct LegacyCodableForm<Value: Codable>: Codable, ArchiveNamed {
    static var archivedClassName: String { "FoundationEssentials." + String(describing: Value.self) }
    var value: Value
    init(_ value: Value) { self.value = value }
    init(from decoder: any Decoder) throws { value = try Value(from: decoder) }
    func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}

struct LegacyCalendarModel: ArchivableCodable {
    static var archivedClassName: String { "KeyedArchiveTests.CalendarModel" }
    var calendar: LegacyCodableForm<Calendar>
    var components: LegacyCodableForm<DateComponents>
    var link: LegacyCodableForm<URLComponents>?
    var distance: Measurement<UnitLength>
    var temperature: Measurement<UnitTemperature>
}

/// The object of class `className` in `data`'s `$objects`, and the objects.
private func archivedObject(_ className: String, in data: Data) throws -> (fields: PropertyListDictionary, objects: [PropertyListValue]) {
    let tree = try PropertyListValue(propertyListData: data)
    guard case .dictionary(let root) = tree, case .array(let objects)? = root["$objects"] else {
        throw KeyedArchiveError(.invalidArchive, "no $objects")
    }
    let list = Array(objects)
    for case .dictionary(let fields) in list {
        if case .uid(let cls)? = fields["$class"], case .dictionary(let c) = list[Int(cls.value)], c["$classname"] == .string(className) {
            return (fields, list)
        }
    }
    throw KeyedArchiveError(.invalidArchive, "no \(className) object")
}

/// `data` with every string object `old` replaced by `new`.
private func replacingString(_ old: String, with new: String, in data: Data) throws -> Data {
    let tree = try PropertyListValue(propertyListData: data)
    guard case .dictionary(var root) = tree, case .array(let objects)? = root["$objects"] else { return data }
    root["$objects"] = .array(PropertyListArray(Array(objects).map { $0 == .string(old) ? .string(new) : $0 }))
    return try PropertyListValue.dictionary(root).propertyListData(format: .binary)
}

/// `data` with `$top.root` pointing at its first object of class `className`.
private func rooted(at className: String, in data: Data) throws -> Data {
    let tree = try PropertyListValue(propertyListData: data)
    guard case .dictionary(var root) = tree, case .array(let objects)? = root["$objects"] else { return data }
    let list = Array(objects)
    for (i, object) in list.enumerated() {
        if case .dictionary(let fields) = object, case .uid(let cls)? = fields["$class"],
           case .dictionary(let c) = list[Int(cls.value)], c["$classname"] == .string(className) {
            root["$top"] = .dictionary(["root": .uid(UID(UInt64(i)))])
            return try PropertyListValue.dictionary(root).propertyListData(format: .binary)
        }
    }
    throw KeyedArchiveError(.invalidArchive, "no \(className) object")
}

/// `data` with `transform` applied to every object of class `className`.
private func changing(_ className: String, in data: Data, _ transform: (inout PropertyListDictionary) -> Void) throws -> Data {
    let tree = try PropertyListValue(propertyListData: data)
    guard case .dictionary(var root) = tree, case .array(let objects)? = root["$objects"] else { return data }
    var list = Array(objects)
    for (i, object) in list.enumerated() {
        guard case .dictionary(var fields) = object, case .uid(let cls)? = fields["$class"],
              case .dictionary(let c) = list[Int(cls.value)], c["$classname"] == .string(className) else { continue }
        transform(&fields)
        list[i] = .dictionary(fields)
    }
    root["$objects"] = .array(PropertyListArray(list))
    return try PropertyListValue.dictionary(root).propertyListData(format: .binary)
}

private func japaneseCalendar() throws -> Calendar {
    var calendar = Calendar(identifier: .japanese)
    calendar.timeZone = try #require(TimeZone(identifier: "Asia/Tokyo"))
    calendar.locale = Locale(identifier: "ja_JP")
    calendar.firstWeekday = 2
    calendar.minimumDaysInFirstWeek = 4
    return calendar
}

private func sampleModel() throws -> CalendarModel {
    var components = DateComponents(calendar: Calendar(identifier: .gregorian), timeZone: TimeZone(identifier: "Europe/Paris"),
                                    year: 2024, month: 2, day: 29, hour: 13, nanosecond: 5)
    components.isLeapMonth = false
    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) { components.dayOfYear = 60 }
    return CalendarModel(calendar: try japaneseCalendar(), components: components,
                         link: URLComponents(string: "https://u:p@example.com:8080/a%20b?q=1#top"),
                         distance: Measurement(value: 2.5, unit: .miles),
                         temperature: Measurement(value: -3, unit: .fahrenheit))
}

private func expectSameCalendar(_ a: Calendar, _ b: Calendar, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(a.identifier == b.identifier, sourceLocation: sourceLocation)
    #expect(a.timeZone.identifier == b.timeZone.identifier, sourceLocation: sourceLocation)
    #expect(a.locale?.identifier == b.locale?.identifier, sourceLocation: sourceLocation)
    #expect(a.firstWeekday == b.firstWeekday, sourceLocation: sourceLocation)
    #expect(a.minimumDaysInFirstWeek == b.minimumDaysInFirstWeek, sourceLocation: sourceLocation)
}

private var componentFields: [(String, KeyPath<DateComponents, Int?>)] { [
    ("era", \.era), ("year", \.year), ("quarter", \.quarter), ("month", \.month), ("day", \.day), ("hour", \.hour),
    ("minute", \.minute), ("second", \.second), ("nanosecond", \.nanosecond), ("weekOfYear", \.weekOfYear),
    ("weekOfMonth", \.weekOfMonth), ("yearForWeekOfYear", \.yearForWeekOfYear), ("weekday", \.weekday),
    ("weekdayOrdinal", \.weekdayOrdinal),
] }

private func expectSameComponents(_ a: DateComponents, _ b: DateComponents, sourceLocation: SourceLocation = #_sourceLocation) {
    for (name, field) in componentFields {
        #expect(a[keyPath: field] == b[keyPath: field], "\(name)", sourceLocation: sourceLocation)
    }
    #expect(a.timeZone?.identifier == b.timeZone?.identifier, sourceLocation: sourceLocation)
    #expect(a.calendar?.identifier == b.calendar?.identifier, sourceLocation: sourceLocation)
}

@Suite struct FoundationValueTypeArchivingTests {
    @Test func aModelsFoundationValuesRoundTripAsAppleClasses() throws {
        let model = try sampleModel()
        let data = try KeyedArchiver.archivedData(withRootObject: model)
        let counts = try ArchivedObjectGraph(data: data).instanceCounts()
        #expect(counts["NSCalendar"] == 2 && counts["NSDateComponents"] == 1 && counts["NSMeasurement"] == 2, "\(counts)")
        #expect(counts["NSUnitLength"] == 1 && counts["NSUnitTemperature"] == 1, "\(counts)")
        #expect(counts["Foundation.URLComponents"] == 1, "\(counts)")
        #expect(!counts.keys.contains { $0.hasPrefix("FoundationEssentials.") || $0.hasPrefix("Foundation.Measurement") }, "\(counts)")

        let back = try KeyedUnarchiver.unarchivedObject(ofClass: CalendarModel.self, from: data)
        expectSameCalendar(back.calendar, model.calendar)
        #expect(back.components == model.components)
        #expect(back.components.isLeapMonth == false)
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) { #expect(back.components.dayOfYear == 60) }
        #expect(back.link == model.link)
        #expect(back.distance == model.distance && back.distance.unit.symbol == "mi")
        #expect(back.temperature.value == -3 && back.temperature.unit.symbol == "°F")
        #expect(back.temperature.converted(to: .celsius).value == model.temperature.converted(to: .celsius).value)
    }

    @Test func nsCalendarHasApplesKeys() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: try japaneseCalendar())
        let (fields, objects) = try archivedObject("NSCalendar", in: data)
        guard case .uid(let identifier)? = fields["NS.identifier"], case .uid(let zone)? = fields["NS.timezone"],
              case .uid(let locale)? = fields["NS.locale"] else {
            Issue.record("NSCalendar fields \(fields)")
            return
        }
        #expect(objects[Int(identifier.value)] == .string("japanese"))
        #expect(fields["NS.firstwkdy"] == .integer(2))
        #expect(fields["NS.mindays"] == .integer(4))
        #expect(fields["NS.gstartdate"] == nil)
        #expect(objects[Int(zone.value)] != .string("$null") && objects[Int(locale.value)] != .string("$null"))
    }

    /// NSDateComponents: every component corelibs writes, `Int.max` when undefined; the leap-month flag under
    /// both Apple's and corelibs' keys.
    @Test func nsDateComponentsWriteEveryComponentUndefinedAsIntMax() throws {
        var components = DateComponents(year: 2024, month: 2)
        components.isLeapMonth = true
        let data = try KeyedArchiver.archivedData(withRootObject: components)
        let (fields, _) = try archivedObject("NSDateComponents", in: data)
        #expect(fields["NS.year"] == .integer(2024))
        #expect(fields["NS.month"] == .integer(2))
        for key in ["NS.era", "NS.day", "NS.hour", "NS.minute", "NS.second", "NS.nanosec", "NS.quarter", "NS.weekday",
                    "NS.weekdayOrdinal", "NS.weekOfMonth", "NS.weekOfYear", "NS.yearForWOY"] {
            #expect(fields[key] == .integer(PropertyListInteger(Int64.max)), "\(key)")
        }
        #expect(fields["NS.isLeapMonth"] == .bool(true))
        #expect(fields["NS.leapMonth"] == .integer(1))
        #expect(fields["NS.calendar"] == nil && fields["NS.dayOfYear"] == nil)
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: DateComponents.self, from: data) == components)
    }

    /// Apple's form: only defined components, `NS.leapMonth` an integer (iOS 26's -[NSDateComponents encodeWithCoder:]).
    @Test func applesSparseNSDateComponentsRead() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: DateComponents(year: 2023, day: 9))
        let apple = try changing("NSDateComponents", in: data) { fields in
            for (key, value) in fields where value == .integer(PropertyListInteger(Int64.max)) { fields[key] = nil }
            fields["NS.leapMonth"] = .integer(1)
            fields["NS.isLeapMonth"] = nil
            fields["NS.dayOfYear"] = .integer(9)
        }
        let read = try KeyedUnarchiver.unarchivedObject(ofClass: DateComponents.self, from: apple)
        #expect(read.year == 2023 && read.day == 9 && read.month == nil && read.era == nil)
        #expect(read.isLeapMonth == true)
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) { #expect(read.dayOfYear == 9) }
    }

    @Test(arguments: ["gregorian", "iso8601", "japanese", "hebrew", "chinese", "buddhist", "islamic-civil", "persian",
                      "ethiopic-amete-alem", "roc"])
    func calendarsOfEveryIdentifierRoundTrip(identifier: String) throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Calendar(identifier: .gregorian))
        let withIdentifier = try replacingString("gregorian", with: identifier, in: data)
        let calendar = try KeyedUnarchiver.unarchivedObject(ofClass: Calendar.self, from: withIdentifier)
        let again = try KeyedArchiver.archivedData(withRootObject: calendar)
        let (fields, written) = try archivedObject("NSCalendar", in: again)
        guard case .uid(let uid)? = fields["NS.identifier"] else {
            Issue.record("no NS.identifier")
            return
        }
        #expect(written[Int(uid.value)] == .string(identifier))
        expectSameCalendar(try KeyedUnarchiver.unarchivedObject(ofClass: Calendar.self, from: again), calendar)
    }

    @Test func anUnknownCalendarIdentifierIsRefusedNamingIt() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: Calendar(identifier: .gregorian))
        let damaged = try replacingString("gregorian", with: "martian", in: data)
        let error = try #require(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(ofClass: Calendar.self, from: damaged)
        }
        #expect(error.code == .dataCorrupted)
        #expect(error.className == "NSCalendar")
        #expect(error.description.contains("\"martian\"") && error.description.contains("NS.identifier"), "\(error)")
    }

    @Test(arguments: [("1http", "scheme"), ("", "scheme"), ("a_b", "scheme")])
    func anInvalidURLSchemeIsRefusedBeforeURLComponentsSeesIt(scheme: String, key: String) throws {
        let data = try KeyedArchiver.archivedData(withRootObject: URLComponents(string: "zz://example.com/x") ?? URLComponents())
        let damaged = try replacingString("zz", with: scheme, in: data)
        let error = try #require(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(ofClass: URLComponents.self, from: damaged)
        }
        #expect(error.code == .dataCorrupted)
        #expect(error.description.contains(key) && error.description.contains("not a URL scheme"), "\(error)")
    }

    @Test func aNegativePortIsRefused() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: URLComponents(string: "http://example.com:80/") ?? URLComponents())
        let damaged = try changing("Foundation.URLComponents", in: data) { $0["port"] = .integer(-1) }
        let error = try #require(throws: KeyedArchiveError.self) {
            try KeyedUnarchiver.unarchivedObject(ofClass: URLComponents.self, from: damaged)
        }
        #expect(error.code == .dataCorrupted)
        #expect(error.description.contains("port -1 is negative"), "\(error)")
    }

    /// The Codable forms earlier versions wrote (`FoundationEssentials.Calendar`..., `Foundation.Measurement<...>`)
    /// are read.
    @Test func theCodableFormsEarlierVersionsWroteStillRead() throws {
        let model = try sampleModel()
        let legacy = LegacyCalendarModel(calendar: .init(model.calendar), components: .init(model.components),
                                         link: model.link.map { .init($0) }, distance: model.distance, temperature: model.temperature)
        let archiver = KeyedArchiver()
        try archiver.encode(legacy, forKey: "root")
        let data = try archiver.encodedData()
        let counts = try ArchivedObjectGraph(data: data).instanceCounts()
        #expect(counts["FoundationEssentials.Calendar"] == 1 && counts["FoundationEssentials.DateComponents"] == 1
                && counts["FoundationEssentials.URLComponents"] == 1, "\(counts)")
        let back = try KeyedUnarchiver.unarchivedObject(ofClass: CalendarModel.self, from: data)
        expectSameCalendar(back.calendar, model.calendar)
        expectSameComponents(back.components, model.components)
        #expect(back.link == model.link)
        // The Measurement objects bookshelfV1Archive holds are read by ModelChangeTests.
        #expect(back.distance == model.distance)
    }

    /// A legacy Calendar object with an identifier nobody knows is refused before Calendar's own init(from:),
    /// which stops the process on Foundations older than swift-foundation.
    @Test func aLegacyCalendarWithAnUnknownIdentifierIsRefused() throws {
        let model = try sampleModel()
        let legacy = LegacyCalendarModel(calendar: .init(Calendar(identifier: .gregorian)), components: .init(DateComponents()),
                                         link: nil, distance: model.distance, temperature: model.temperature)
        let archiver = KeyedArchiver()
        try archiver.encode(legacy, forKey: "root")
        let damaged = try replacingString("gregorian", with: "martian", in: try archiver.encodedData())
        let error = try #require(throws: DecodingError.self) {
            try KeyedUnarchiver.unarchivedObject(ofClass: CalendarModel.self, from: damaged)
        }
        let underlying = try #require(archiveError(error))
        #expect(underlying.code == .dataCorrupted)
        #expect(underlying.description.contains("\"martian\"") && underlying.description.contains("identifier"), "\(underlying)")
    }

    @Test func aMeasurementOfAnotherUnitIsATypeMismatch() throws {
        struct Mass: ArchivableCodable {
            static var archivedClassName: String { "Probe" }
            var value: Measurement<UnitMass>
        }
        struct Length: ArchivableCodable {
            static var archivedClassName: String { "Probe" }
            var value: Measurement<UnitLength>
        }
        let data = try KeyedArchiver.archivedData(withRootObject: Mass(value: Measurement(value: 3, unit: .kilograms)))
        let error = try #require(throws: DecodingError.self) { try KeyedUnarchiver.unarchivedObject(ofClass: Length.self, from: data) }
        let underlying = try #require(archiveError(error))
        #expect(underlying.code == .typeMismatch)
        #expect(underlying.description.contains("NSUnitMass") && underlying.description.contains("NSUnitLength"), "\(underlying)")
        guard case .typeMismatch(_, let context) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(context.codingPath.map(\.stringValue) == ["value"])
    }
}

/// Foundation on Linux as the oracle: its NSKeyedUnarchiver reads what we write and we read what its
/// NSKeyedArchiver writes, compared field by field.
@Suite struct FoundationValueTypeInteropTests {
    @Test func foundationReadsOurNSCalendar() throws {
        let calendar = try japaneseCalendar()
        let data = try KeyedArchiver.archivedData(withRootObject: calendar)
        let theirs = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSCalendar.self, from: data))
        expectSameCalendar(theirs as Calendar, calendar)
    }

    @Test func weReadFoundationsNSCalendar() throws {
        let calendar = try japaneseCalendar()
        let data = try NSKeyedArchiver.archivedData(withRootObject: calendar as NSCalendar, requiringSecureCoding: true)
        expectSameCalendar(try KeyedUnarchiver.unarchivedObject(ofClass: Calendar.self, from: data), calendar)
    }

    @Test func foundationReadsOurNSDateComponents() throws {
        let components = try sampleModel().components
        let data = try KeyedArchiver.archivedData(withRootObject: components)
        let theirs = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSDateComponents.self, from: data))
        expectSameComponents(theirs as DateComponents, components)
        #expect(theirs.isLeapMonth == false)
    }

    /// corelibs writes every undefined component as Int.max and a nil leap-month flag as `false`; both read as
    /// corelibs itself reads them.
    @Test func weReadFoundationsNSDateComponents() throws {
        let components = try sampleModel().components
        let data = try NSKeyedArchiver.archivedData(withRootObject: components as NSDateComponents, requiringSecureCoding: true)
        let ours = try KeyedUnarchiver.unarchivedObject(ofClass: DateComponents.self, from: data)
        expectSameComponents(ours, components)
        let theirs = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: NSDateComponents.self, from: data))
        #expect(ours.isLeapMonth == theirs.isLeapMonth)
    }

    @Test func foundationReadsOurNSMeasurement() throws {
        let model = try sampleModel()
        let data = try rooted(at: "NSMeasurement", in: try KeyedArchiver.archivedData(withRootObject: model))
        let theirs = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClasses: [NSMeasurement.self, UnitLength.self], from: data)
            as? NSMeasurement)
        #expect(theirs.doubleValue == model.distance.value)
        let unit = try #require(theirs.unit as? UnitLength)
        #expect(unit.symbol == "mi")
        #expect(unit.converter.baseUnitValue(fromValue: 1) == UnitLength.miles.converter.baseUnitValue(fromValue: 1))
    }

    @Test func weReadFoundationsNSMeasurement() throws {
        struct Holder: ArchivableCodable {
            static var archivedClassName: String { "Holder" }
            var temperature: Measurement<UnitTemperature>
        }
        let measurement = NSMeasurement(doubleValue: 21.5, unit: UnitTemperature.celsius)
        let archiver = NSKeyedArchiver(requiringSecureCoding: false)
        archiver.encode(measurement, forKey: "temperature")
        archiver.finishEncoding()
        // Foundation's object under `temperature`, read as a Codable model's field.
        let tree = try PropertyListValue(propertyListData: archiver.encodedData)
        guard case .dictionary(var root) = tree, case .dictionary(let top)? = root["$top"], case .array(let objects)? = root["$objects"] else {
            Issue.record("unexpected archive")
            return
        }
        var list = Array(objects)
        var holder = PropertyListDictionary()
        holder["temperature"] = top["temperature"]
        list.append(.dictionary(["$classname": .string("Holder"), "$classes": .array([.string("Holder"), .string("NSObject")])]))
        holder["$class"] = .uid(UID(UInt64(list.count - 1)))
        list.append(.dictionary(holder))
        root["$objects"] = .array(PropertyListArray(list))
        root["$top"] = .dictionary(["root": .uid(UID(UInt64(list.count - 1)))])
        let data = try PropertyListValue.dictionary(root).propertyListData(format: .binary)
        let read = try KeyedUnarchiver.unarchivedObject(ofClass: Holder.self, from: data)
        #expect(read.temperature.value == 21.5)
        #expect(read.temperature.unit.symbol == "°C")
        #expect(read.temperature.converted(to: .kelvin).value == Measurement(value: 21.5, unit: UnitTemperature.celsius).converted(to: .kelvin).value)
    }

    /// Why `AttributedString` keeps its Codable form: it does not bridge to NSAttributedString (or to any NSCoding
    /// object), so no NSKeyedArchiver writes one; converting it to NSAttributedString keeps only the attributes of
    /// the scopes named, with values Objective-C can hold.
    @Test func attributedStringIsNotArchivableByFoundation() {
        #expect(!((AttributedString("x") as AnyObject) is NSCoding))
        #expect(!((AttributedString("x") as AnyObject) is NSAttributedString))
        #if os(Linux)
        // swift-foundation on Linux does not make AttributedString Codable: no Codable model holds one there.
        #expect(!(AttributedString("x") is any Encodable))
        #endif
    }

    /// Why `URLComponents` keeps its Codable form: Foundation has no archived form of NSURLComponents.
    @Test func nsURLComponentsIsNotArchivable() {
        #expect(!((NSURLComponents() as AnyObject) is NSCoding))
    }
}

/// Whether a process can link FoundationEssentials without FoundationInternationalization: on Linux only.
private var essentialsOnlyProcessesExist: Bool {
    #if canImport(Darwin)
    return false
    #else
    return true
    #endif
}

/// Decoding a calendar in a process that links FoundationEssentials alone (the `essentials-only-child` tool):
/// the Gregorian calendar is read, any other is refused with an error naming it, and nothing stops the process.
/// Such a process exists on Linux only: Apple platforms load the whole of Foundation into every process.
@Suite(.enabled(if: essentialsOnlyProcessesExist,
                "Apple platforms load all of Foundation: no process links FoundationEssentials alone"),
       .enabled(if: BuiltProducts.executable("essentials-only-child") != nil, "essentials-only-child not built"))
struct EssentialsOnlyCalendarTests {

    @Test(arguments: ["gregorian", "japanese", "hebrew", "chinese", "islamic", "persian"])
    func decodingACalendarNeverStopsAnEssentialsOnlyProcess(identifier: String) throws {
        let child = try #require(BuiltProducts.executable("essentials-only-child"))
        // A time zone FoundationEssentials builds alone (without FoundationInternationalization it knows no named
        // zone, not even "GMT+0100").
        var calendar = Calendar(identifier: try #require(calendarIdentifiers[identifier]))
        calendar.timeZone = try #require(TimeZone(identifier: "GMT"))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("essentials-\(identifier)-\(getpid()).archive")
        try KeyedArchiver.archivedData(withRootObject: calendar).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try OracleProcess.run(child, ["calendar", file.path])
        let output = String(decoding: run.stdout, as: UTF8.self)
        #expect(!run.crashed && run.status == 0, "\(output) \(String(decoding: run.stderr, as: UTF8.self))")
        #expect(output.contains("internationalization: no"), "the child must link FoundationEssentials only: \(output)")
        if identifier == "gregorian" {
            #expect(output.contains("calendar gregorian"), "\(output)")
        } else {
            #expect(output.contains("error unsupported") && output.contains("\"\(identifier)\""), "\(output)")
        }
    }

    private let calendarIdentifiers: [String: Calendar.Identifier] = [
        "gregorian": .gregorian, "japanese": .japanese, "hebrew": .hebrew, "chinese": .chinese, "islamic": .islamic,
        "persian": .persian,
    ]
}

/// GNUstep base as a second reader of the NSMeasurement a Codable model's `Measurement` becomes. (It reads neither
/// Apple's NSCalendar nor NSDateComponents: its NSCalendar, like its NSLocale and NSTimeZone, codes unkeyed `$0`,
/// `$1`, `$2`, GNUstep libs-base NSCalendar.m.)
@Suite(.enabled(if: GNUstepOracle.isAvailable, "GNUstep not installed (apt-get install gobjc libgnustep-base-dev gnustep-base-runtime)"))
struct FoundationValueTypeGNUstepTests {
    @Test func gnustepReadsTheNSMeasurementOfACodableModel() throws {
        let model = try sampleModel()
        let data = try rooted(at: "NSMeasurement", in: try KeyedArchiver.archivedData(withRootObject: model))
        let line = try GNUstepOracle.decode(data)
        // swift-corelibs-foundation's mile is 1609.34 m (Apple's 1609.344): the archive keeps the writer's.
        let coefficient = try #require(UnitLength.miles.converter as? UnitConverterLinear).coefficient
        #expect(line == GNUstepOracle.Description.measurement(2.5, unitClass: "NSUnitLength", symbol: "mi", converter: (coefficient, 0)),
                "\(line)")
    }
}
