import Foundation
import Testing
@testable import KeyedArchive

// The default `$classname`s: what Apple's archiver writes for each kind of Swift class (see
// ArchivedClassNameRules), the names earlier versions wrote still read, and names holding an address refused.

/// A model with one field; its subclasses below are declared in each of the places a class can be.
class ClassNameModel: KeyedArchivable {
    let label: String
    init(label: String) { self.label = label }
    required init(from decoder: any ArchiveDecoder) throws { label = try decoder.decode(String.self, forKey: "label") }
    func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(label, forKey: "label") }
}

final class TopLevelClassNameModel: ClassNameModel {}
final class GenericClassNameModel<Element>: ClassNameModel {}

enum ClassNameFixtures {
    final class NestedModel: ClassNameModel {}
    final class OuterClass {
        final class InnerModel: ClassNameModel {}
    }
    struct OuterStruct {
        final class InnerModel: ClassNameModel {}
    }
    struct NestedStructModel: KeyedArchivable {
        init(from decoder: any ArchiveDecoder) throws {}
        func encode(to encoder: any ArchiveEncoder) throws {}
    }
}

private final class PrivateClassNameModel: ClassNameModel {}

/// A private model that sets its name, as the refusal asks; its one field is a fixed mark.
private struct PrivateModelWithFixedName: KeyedArchivable {
    static var archivedClassName: String { "PrivateModelWithFixedName" }
    init() {}
    init(from decoder: any ArchiveDecoder) throws {
        guard try decoder.decode(Int.self, forKey: "mark") == 7 else { throw KeyedArchiveError(.dataCorrupted, "wrong mark") }
    }
    func encode(to encoder: any ArchiveEncoder) throws { try encoder.encode(7, forKey: "mark") }
}

@Suite struct ArchivedClassNameRulesTests {
    @Test func nestedClassesAreNamedAsTheObjectiveCRuntimeNamesThem() {
        // Kinds from the innermost type out (C class, V struct, O enum), then each name with its length.
        #expect(ClassNameFixtures.NestedModel.archivedClassName == "_TtCO17KeyedArchiveTests17ClassNameFixtures11NestedModel")
        #expect(ClassNameFixtures.OuterClass.InnerModel.archivedClassName
            == "_TtCCO17KeyedArchiveTests17ClassNameFixtures10OuterClass10InnerModel")
        #expect(ClassNameFixtures.OuterStruct.InnerModel.archivedClassName
            == "_TtCVO17KeyedArchiveTests17ClassNameFixtures11OuterStruct10InnerModel")
    }

    @Test func theManglingIsTheOneTheSwiftCompilerRecordsForArchives() {
        // swiftlang/swift test/decl/protocol/conforms/nscoding.swift: class CodingA.NestedA in module nscoding
        // has the archive name "_TtCC8nscoding7CodingA7NestedA".
        #expect(ArchivedClassNameRules.objectiveCRuntimeName(path: ["nscoding", "CodingA", "NestedA"], kinds: ["C", "C"])
            == "_TtCC8nscoding7CodingA7NestedA")
    }

    @Test func topLevelGenericAndNonClassTypesKeepTheirReflectedNames() {
        #expect(TopLevelClassNameModel.archivedClassName == "KeyedArchiveTests.TopLevelClassNameModel")
        #expect(GenericClassNameModel<Int>.archivedClassName == "KeyedArchiveTests.GenericClassNameModel<Swift.Int>")
        #expect(ClassNameFixtures.NestedStructModel.archivedClassName == "KeyedArchiveTests.ClassNameFixtures.NestedStructModel")
    }

    @Test(arguments: ["M.Outer.Inner", "M.Outer_2.Inner_b"])
    func plainNestedNamesHaveAPath(reflected: String) {
        #expect(ArchivedClassNameRules.nestedTypePath(reflected)?.count == 3)
    }

    @Test(arguments: ["M.Top", "M.Box<Swift.Int>.Inner", "M.(unknown context at $10a3b4c).Inner", "M.Outer.Ünïcode",
                      "M.Outer.", "M..Inner", "M.Outer.1st"])
    func otherNamesHaveNoNestedPath(reflected: String) {
        #expect(ArchivedClassNameRules.nestedTypePath(reflected) == nil)
    }

    @Test func nestedClassesRoundTripUnderTheirNewNames() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: ClassNameFixtures.OuterClass.InnerModel(label: "a"))
        #expect(try ArchiveStructure.classNames(data) == ["_TtCCO17KeyedArchiveTests17ClassNameFixtures10OuterClass10InnerModel"])
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: ClassNameFixtures.OuterClass.InnerModel.self, from: data).label == "a")
    }

    @Test func archivesWithTheEarlierDottedNameOfANestedClassStillDecode() throws {
        let archiver = KeyedArchiver()
        archiver.setClassName("KeyedArchiveTests.ClassNameFixtures.NestedModel", for: ClassNameFixtures.NestedModel.self)
        try ClassNameFixtures.NestedModel(label: "old").encode(to: archiver, forKey: "root")
        let data = try archiver.encodedData()
        #expect(try ArchiveStructure.classNames(data) == ["KeyedArchiveTests.ClassNameFixtures.NestedModel"])
        #expect(try KeyedUnarchiver.unarchivedObject(ofClass: ClassNameFixtures.NestedModel.self, from: data).label == "old")
        // Through the several-types path too.
        let decoded = try KeyedUnarchiver.unarchivedObject(ofClasses: [TopLevelClassNameModel.self, ClassNameFixtures.NestedModel.self],
                                                           from: data)
        #expect((decoded as? ClassNameFixtures.NestedModel)?.label == "old")
    }

    @Test func theDottedNameOfAnotherNestedClassIsNotAccepted() throws {
        let archiver = KeyedArchiver()
        archiver.setClassName("KeyedArchiveTests.ClassNameFixtures.OuterClass.InnerModel", for: ClassNameFixtures.NestedModel.self)
        try ClassNameFixtures.NestedModel(label: "x").encode(to: archiver, forKey: "root")
        let data = try archiver.encodedData()
        #expect(errorSummary { _ = try KeyedUnarchiver.unarchivedObject(ofClass: ClassNameFixtures.NestedModel.self, from: data) }?.code
            == "classNotAllowed")
    }

    @Test func privateAndLocalTypesAreRefusedWithAdvice() throws {
        final class LocalModel: ClassNameModel {}
        for name in [PrivateClassNameModel.archivedClassName, LocalModel.archivedClassName] {
            #expect(ArchivedClassNameRules.holdsAddress(name), "\(name)")
        }
        for archive in [{ _ = try KeyedArchiver.archivedData(withRootObject: PrivateClassNameModel(label: "p")) },
                        { _ = try KeyedArchiver.archivedData(withRootObject: [LocalModel(label: "l")]) }] {
            do {
                try archive()
                Issue.record("a type whose name holds an address was archived")
            } catch let error as KeyedArchiveError {
                #expect(error.code == .invalidValue)
                #expect(error.message.contains("set the type's archivedClassName"))
                #expect(error.className.map(ArchivedClassNameRules.holdsAddress) == true)
            }
        }
        // Such a name is never one a type answers to when reading.
        #expect(ArchivedClassNameRules.acceptedNames(of: PrivateClassNameModel.self) == [])
    }

    @Test func aPrivateTypeWithAFixedNameRoundTrips() throws {
        let data = try KeyedArchiver.archivedData(withRootObject: PrivateModelWithFixedName())
        #expect(try ArchiveStructure.classNames(data) == ["PrivateModelWithFixedName"])
        _ = try KeyedUnarchiver.unarchivedObject(ofClass: PrivateModelWithFixedName.self, from: data)
    }
}
