import Testing
import Foundation
@testable import KeyedArchive

@Suite struct RawArchiveResolvedTests {
    @Test func foundationClassesAreInterpreted() throws {
        var b = ArchiveBuilder()
        let one = b.add(1)                                                               // #1
        let key = b.add("k")                                                             // #2
        let list = b.object("NSMutableArray", ["NSArray", "NSObject"], [("NS.objects", [one, .ref(0)])])
        let set = b.object("NSSet", ["NSObject"], [("NS.objects", [one])])
        let ordered = b.object("NSOrderedSet", ["NSObject"], [("NS.object.0", key), ("NS.object.1", one)])
        let map = b.object("NSDictionary", ["NSObject"], [("NS.keys", [key]), ("NS.objects", [one])])
        let date = b.object("NSDate", ["NSObject"], [("NS.time", 86400.5)])
        let uuidBytes: [UInt8] = [0x6B, 0xA7, 0xB8, 0x10, 0x9D, 0xAD, 0x11, 0xD1, 0x80, 0xB4, 0x00, 0xC0, 0x4F, 0xD4, 0x30, 0xC8]
        let uuid = b.object("NSUUID", ["NSObject"], [("NS.uuidbytes", .data(Data(uuidBytes)))])
        let urlString = b.add("https://example.com/a")
        let url = b.object("NSURL", ["NSObject"], [("NS.base", .ref(0)), ("NS.relative", urlString)])
        let relativeString = b.add("b/c")
        let relative = b.object("NSURL", ["NSObject"], [("NS.base", url), ("NS.relative", relativeString)])
        let null = b.object("NSNull", ["NSObject"], [])
        let text = b.add("hello")
        let mutableString = b.object("NSMutableString", ["NSString", "NSObject"], [("NS.string", text)])
        let bytes = b.add(.data(Data([9, 8])))
        let mutableData = b.object("NSMutableData", ["NSData", "NSObject"], [("NS.data", bytes)])
        let five = b.add(5)
        let range = b.object("NSValue", ["NSObject"], [("NS.special", 4), ("NS.rangeval.location", one), ("NS.rangeval.length", five)])
        let rectString = b.add("{{0, 0}, {10, 20}}")
        let rect = b.object("NSValue", ["NSObject"], [("NS.special", 3), ("NS.rectval", rectString)])
        let graph = try ArchivedObjectGraph(propertyList: b.archive(root: list))

        func kind(_ ref: PropertyListValue) throws -> ResolvedArchivedObject.Kind {
            let uid = try #require(ref.uidValue)
            return try #require(graph.resolvedObject(uid)).kind
        }
        #expect(try kind(list) == .list([.reference(UID(1)), .null]))
        #expect(try kind(set) == .list([.reference(UID(1))]))
        #expect(try kind(ordered) == .list([.reference(UID(2)), .reference(UID(1))]))
        #expect(try kind(map) == .map(keys: [.reference(UID(2))], values: [.reference(UID(1))]))
        #expect(try kind(date) == .date(Date(timeIntervalSinceReferenceDate: 86400.5)))
        #expect(try kind(uuid) == .uuid(try #require(UUID(uuidString: "6BA7B810-9DAD-11D1-80B4-00C04FD430C8"))))
        #expect(try kind(url) == .url(relative: "https://example.com/a", base: .null))
        #expect(try kind(relative) == .url(relative: "b/c", base: try #require(ArchivedValue(url).referenceUID.map(ArchivedValue.reference))))
        #expect(try kind(null) == .nsNull)
        #expect(try kind(mutableString) == .string("hello"))
        #expect(try kind(mutableData) == .data(Data([9, 8])))
        // NSValue is ArchivedSpecialValue's entry: decoded by the value type, its description and JSON shown.
        #expect(try kind(range) == .decoded(typeName: "ArchivedSpecialValue", description: "NSValue range {1, 5}",
                                            json: #"{"content":{"range":{"length":5,"location":1}}}"#))
        guard case .decoded(_, let rectText, _) = try kind(rect) else {
            Issue.record("the NSValue rect was not decoded")
            return
        }
        #expect(rectText == "NSValue rect {{0, 0}, {10, 20}}")
        #expect(try kind(one) == .value(1))
        #expect(try kind(.ref(0)) == .null)
        #expect(graph.resolvedObject(UID(1))?.archivedClass == nil)
        #expect(graph.resolvedObject(try #require(list.uidValue))?.archivedClass?.name == "NSMutableArray")
        #expect(graph.resolvedObject(UID(9999)) == nil)
    }

    @Test func malformedFoundationObjectsFallBackToTheirFields() throws {
        var b = ArchiveBuilder()
        let one = b.add(1)
        // NS.keys and NS.objects of different lengths.
        let map = b.object("NSDictionary", ["NSObject"], [("NS.keys", [one, one]), ("NS.objects", [one])])
        // NS.uuidbytes of the wrong size.
        let uuid = b.object("NSUUID", ["NSObject"], [("NS.uuidbytes", .data(Data([1, 2])))])
        // NS.objects holding an inline number instead of references.
        let list = b.object("NSArray", ["NSObject"], [("NS.objects", [1, 2])])
        let graph = try ArchivedObjectGraph(propertyList: b.archive(root: map))
        for ref in [map, uuid, list] {
            let uid = try #require(ref.uidValue)
            let resolved = try #require(graph.resolvedObject(uid))
            guard case .object(let instance) = resolved.kind else {
                Issue.record("object \(uid) should not be interpreted: \(resolved.kind)")
                continue
            }
            #expect(instance == graph.object(uid)?.instance)
        }
    }

    @Test func inlineValueFollowsOneReferenceToAScalar() throws {
        var b = ArchiveBuilder()
        let s = b.add("x")
        let a = b.object("NSArray", ["NSObject"], [("NS.objects", [s])])
        let graph = try ArchivedObjectGraph(propertyList: b.archive(root: a))
        #expect(graph.inlineValue(.reference(UID(1))) == "x")
        #expect(graph.inlineValue(.value(3)) == 3)
        #expect(graph.inlineValue(.reference(UID(3))) == nil)  // an instance
        #expect(graph.inlineValue(.reference(UID(0))) == nil)  // $null
        #expect(graph.inlineValue(.null) == nil)
    }
}
