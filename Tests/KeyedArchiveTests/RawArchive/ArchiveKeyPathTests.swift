import Foundation
import Testing
@testable import KeyedArchive

/// Key paths through an archive's UIDs (``ArchivedObjectGraph/value(at:)``), on archives ``KeyedArchiver`` writes.
@Suite struct ArchiveKeyPathTests {
    /// A dictionary of contacts, the first named `firstName`, the second with a date.
    static func contacts(firstName: String = "Ann") -> FoundationValue {
        .dictionary([
            .string("title"): .string("Friends"),
            .string("contacts"): .array([
                .dictionary([.string("name"): .string(firstName), .string("age"): .integer(30)]),
                .dictionary([.string("name"): .string("Bob"), .string("born"): .date(Date(timeIntervalSinceReferenceDate: 86_400))]),
            ]),
            .string("tags"): .set([.string("x")]),
            .string("ordered"): .orderedSet([.string("first"), .string("second")]),
        ])
    }

    static let contacts = contacts()

    static func graph() throws -> ArchivedObjectGraph {
        try ArchivedObjectGraph(data: KeyedArchiver.archivedData(withRootObject: contacts))
    }

    @Test func keyPathsParseDotsAndEscapes() {
        #expect(ArchiveKeyPath("root.contacts.0.name").components == ["root", "contacts", "0", "name"])
        // plutil's syntax, parsed as PropertyListKeyPath parses it: only `\.` is an escape.
        #expect(ArchiveKeyPath(#"root.a\.b.c\\d"#).components == ["root", "a.b", #"c\\d"#])
        #expect(ArchiveKeyPath(#"root.a\.b.c\d"#).description == #"root.a\.b.c\d"#)
        for text in ["", "a..b", #"x\"#, #"com\.apple\.dock.tile"#] {
            #expect(ArchiveKeyPath(text).components == PropertyListKeyPath(text).components, "\(text)")
        }
        #expect(ArchiveKeyPath("a.").components == ["a", ""])
        #expect(ArchiveKeyPath("$objects.3").isRaw)
        #expect(!ArchiveKeyPath("root").isRaw)
    }

    @Test func pathsFollowUIDsThroughDictionariesArraysAndSets() throws {
        let graph = try Self.graph()
        let name = try graph.value(at: "root.contacts.1.name")
        #expect(name.node.string == "Bob")
        #expect(name.typeName == "string")
        #expect(name.className == nil)
        let contacts = try graph.value(at: "root.contacts")
        #expect(contacts.className == "NSArray")
        #expect(contacts.typeName == "array")
        #expect(contacts.node.count == 2)
        #expect(try graph.value(at: "root.contacts.0").typeName == "dictionary")
        #expect(try graph.value(at: "root.contacts.0.age").node.int == 30)
        #expect(try graph.value(at: "root.contacts.0.age").typeName == "integer")
        let born = try graph.value(at: "root.contacts.1.born")
        #expect(born.className == "NSDate")
        #expect(born.typeName == "date")
        #expect(born.node.date == Date(timeIntervalSinceReferenceDate: 86_400))
        #expect(try graph.value(at: "root.tags.0").node.string == "x")
        #expect(try graph.value(at: "root.ordered.1").node.string == "second")
        #expect(try graph.value(at: "root.ordered").className == "NSOrderedSet")
        // The NSDate's own field, by its coder key.
        #expect(try graph.value(at: "root.contacts.1.born.NS\\.time").storedValue == .real(86_400))
    }

    @Test func rawPathsReadTheStoredPropertyList() throws {
        let graph = try Self.graph()
        let root = try #require(graph.topReference())
        let top = try graph.value(at: "$top.root")
        #expect(top.storedValue == .uid(root))
        #expect(top.typeName == "uid")
        #expect(top.object == nil)
        #expect(try graph.value(at: "$objects.0").storedValue == .string("$null"))
        #expect(try graph.value(at: "$archiver").storedValue == .string("NSKeyedArchiver"))
        let rootObject = try graph.value(at: ArchiveKeyPath("$objects.\(root.value)"))
        #expect(rootObject.typeName == "dictionary")
        #expect(try graph.value(at: ArchiveKeyPath("$objects.\(root.value).$class")).typeName == "uid")
    }

    @Test func inlineTopValuesAreReachable() throws {
        let top: [ArchivedField] = [
            ArchivedField("IB.objectdata", .reference(UID(1))),
            ArchivedField("IB.systemFontUpdateVersion", .value(.integer(1))),
        ]
        let objects = [
            ArchivedObject(uid: UID(0), content: .null),
            ArchivedObject(uid: UID(1), content: .value(.string("data"))),
        ]
        let graph = try ArchivedObjectGraph(top: top, objects: objects)
        #expect(try graph.value(at: #"IB\.systemFontUpdateVersion"#).storedValue == .integer(1))
        #expect(try graph.value(at: #"IB\.objectdata"#).node.string == "data")
        // As in plutil, an unescaped dot always separates components: no retry with the following ones joined.
        let unescaped = try #require(throws: KeyedArchiveError.self) { try graph.value(at: "IB.objectdata") }
        #expect(unescaped.code == .keyPathNotFound)
        #expect(unescaped.keyPath == "IB")
    }

    @Test func missingStepsNameTheKeyPath() throws {
        let graph = try Self.graph()
        for (path, failing) in [("root.nope", "root.nope"), ("root.contacts.2", "root.contacts.2"),
                                ("root.contacts.x", "root.contacts.x"), ("root.title.more", "root.title.more"),
                                ("nothing.at.all", "nothing"), ("$objects.99999", "$objects.99999")] {
            let error = try #require(throws: KeyedArchiveError.self, "\(path)") { try graph.value(at: ArchiveKeyPath(path)) }
            #expect(error.code == .keyPathNotFound, "\(path): \(error)")
            #expect(error.keyPath == failing, "\(path): \(error)")
        }
        let tooLong = ArchiveKeyPath(components: ["root"] + Array(repeating: "a", count: ArchiveKeyPath.maximumComponentCount))
        #expect(throws: KeyedArchiveError.self) { try graph.value(at: tooLong) }
    }
}
