import Foundation
import Testing
@testable import KeyedArchive

// NSColor and NSFont are AppKit classes: Foundation on Linux has neither, so there is no in-process
// interop check, and the corpus holds no Apple-written NSColor or NSFont archive. The reference archives
// below are built member by member from the layouts documented on ArchivedColor and ArchivedFont (GNUstep's
// keyed coding, and the Apple-written NSFont archive of Terminal.app's "Basic" profile quoted in public
// repositories: NSName -> "SFMonoTerminal-Regular", NSSize 11.0 inline, NSfFlags 16 inline).

/// A one-object archive of class `chain[0]` with `fields`, plus `extra` objects from UID 3 on.
private func reference(_ chain: [String], _ fields: PropertyListDictionary, _ extra: [PropertyListValue] = []) throws -> Data {
    try HandMadeArchive.binary([.dictionary(fields.merging(["$class": HandMadeArchive.uid(2)])), HandMadeArchive.classDict(chain)] + extra)
}

@Suite struct ArchivedFontTests {
    static let terminalBasic: PropertyListDictionary = ["NSName": HandMadeArchive.uid(3), "NSSize": 11.0, "NSfFlags": 16]

    @Test func terminalProfileFontReads() throws {
        let data = try reference(["NSFont", "NSObject"], Self.terminalBasic, ["SFMonoTerminal-Regular"])
        let font = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedFont.self, from: data)
        #expect(font == ArchivedFont(name: "SFMonoTerminal-Regular", size: 11, flags: 16))
        #expect(font.description == "NSFont SFMonoTerminal-Regular 11.0")
        #expect(try ArchiveStructure.differences(expected: data, actual: KeyedArchiver.archivedData(withRootObject: font)) == [])
    }

    @Test func fontsRoundTrip() throws {
        for font in [ArchivedFont(name: "Helvetica", size: 12), ArchivedFont(name: "Menlo-Bold", size: 10.5, flags: 16), ArchivedFont(name: "", size: 0)] {
            let back = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedFont.self, from: KeyedArchiver.archivedData(withRootObject: font))
            #expect(back.name == font.name && back.size == font.size && back.flags == font.flags)
            #expect(try JSONDecoder().decode(ArchivedFont.self, from: JSONEncoder().encode(font)) == font)
        }
    }

    @Test func malformedFontsThrowNamingClassAndKey() throws {
        let cases: [(PropertyListDictionary, String, String)] = [
            (["NSSize": 11.0], "keyNotFound", "root.NSName"),
            (["NSName": HandMadeArchive.uid(3), "NSSize": HandMadeArchive.uid(3)], "typeMismatch", "root.NSSize"),
            (["NSName": HandMadeArchive.uid(3), "NSSize": -1.0], "dataCorrupted", "root.NSSize"),
            (["NSName": HandMadeArchive.uid(3), "NSSize": .real(.nan)], "dataCorrupted", "root.NSSize"),
            (["NSName": HandMadeArchive.uid(3), "NSSize": 11.0, "NSfFlags": 1.5], "typeMismatch", "root.NSfFlags"),
            (["NSName": 7, "NSSize": 11.0], "typeMismatch", "root.NSName"),
        ]
        for (fields, code, path) in cases {
            let data = try reference(["NSFont", "NSObject"], fields, ["Menlo"])
            let e = errorSummary { _ = try KeyedUnarchiver.unarchivedObject(ofClass: ArchivedFont.self, from: data) }
            #expect(e?.code == code && e?.className == "NSFont" && e?.keyPath == path, "\(fields) -> \(String(describing: e))")
        }
    }
}

@Suite struct ArchivedColorTests {
    typealias C = ArchivedColor
    static let colorChain = ["NSColor", "NSObject"]

    /// Each documented layout as a reference archive, with the value it holds.
    static func references() throws -> [(Data, C)] {
        let spaceClass = HandMadeArchive.classDict(["NSColorSpace", "NSObject"])
        return [
            // Terminal's Generic RGB form: NSRGB with a trailing NUL, alpha left out.
            (try reference(colorChain, ["NSColorSpace": 1, "NSRGB": .data(Data("0.1 0.1 0.1\0".utf8))]),
             C(.rgb(red: 0.1, green: 0.1, blue: 0.1, alpha: 1, calibrated: true))),
            // The sRGB form: device RGB with NSComponents and NSCustomColorSpace -> NSColorSpace {NSID 7}.
            (try reference(colorChain, ["NSColorSpace": 2, "NSRGB": .data(Data("1 0.5 0 0.25\0".utf8)),
                                        "NSComponents": .data(Data("1 0.5 0 0.25".utf8)), "NSCustomColorSpace": HandMadeArchive.uid(3)],
                           [.dictionary(["$class": HandMadeArchive.uid(4), "NSID": 7]), spaceClass]),
             C(.rgb(red: 1, green: 0.5, blue: 0, alpha: 0.25, calibrated: false), components: [1, 0.5, 0, 0.25], colorSpace: .init(id: 7))),
            (try reference(colorChain, ["NSColorSpace": 3, "NSWhite": .data(Data("0.5\0".utf8))]),
             C(.white(white: 0.5, alpha: 1, calibrated: true))),
            (try reference(colorChain, ["NSColorSpace": 4, "NSWhite": .data(Data("0 0.75\0".utf8))]),
             C(.white(white: 0, alpha: 0.75, calibrated: false))),
            (try reference(colorChain, ["NSColorSpace": 5, "NSCYMK": .data(Data("0.1 0.2 0.3 0.4\0".utf8))]),
             C(.cmyk(cyan: 0.1, magenta: 0.2, yellow: 0.3, black: 0.4, alpha: 1))),
            // A catalog color with its fallback color (UID 5, an NSColor of the same class dictionary).
            (try reference(colorChain, ["NSColorSpace": 6, "NSCatalogName": HandMadeArchive.uid(3), "NSColorName": HandMadeArchive.uid(4),
                                        "NSColor": HandMadeArchive.uid(5)],
                           ["System", "textColor", .dictionary(["$class": HandMadeArchive.uid(2), "NSColorSpace": 3, "NSWhite": .data(Data("0\0".utf8))])]),
             C(.catalog(catalogName: "System", colorName: "textColor", fallback: C(.white(white: 0, alpha: 1, calibrated: true))))),
        ]
    }

    @Test func everyDocumentedLayoutReads() throws {
        for (data, expected) in try Self.references() {
            let color = try KeyedUnarchiver.unarchivedObject(ofClass: C.self, from: data)
            #expect(color.content == expected.content)
            #expect(color.components == expected.components)
            #expect(color.colorSpace == expected.colorSpace)
        }
    }

    @Test func ourColorsHaveTheDocumentedStructureAndBytes() throws {
        for (data, value) in try Self.references() {
            let ours = try KeyedArchiver.archivedData(withRootObject: value)
            #expect(try ArchiveStructure.differences(expected: data, actual: ours) == [], "\(value)")
            // The component texts are byte for byte those of the reference.
            for key in ["NSRGB", "NSWhite", "NSCYMK", "NSComponents"] {
                #expect(try ArchiveStructure.value(ours, path: [key]) == ArchiveStructure.value(data, path: [key]), "\(value) \(key)")
            }
        }
    }

    @Test func colorsRoundTrip() throws {
        let values = try Self.references().map(\.1) + [
            C(.rgb(red: 0.30000000000000004, green: 1e-7, blue: 1, alpha: 0, calibrated: true)),
            C(.catalog(catalogName: "Apple", colorName: "Red", fallback: nil)),
            C(.white(white: 1, alpha: 1, calibrated: false), components: [1, 1], colorSpace: .init(iccProfile: Data([1, 2, 3]))),
        ]
        for color in values {
            let back = try KeyedUnarchiver.unarchivedObject(ofClass: C.self, from: KeyedArchiver.archivedData(withRootObject: color))
            #expect(back.content == color.content && back.components == color.components && back.colorSpace == color.colorSpace)
            #expect(try JSONDecoder().decode(C.self, from: JSONEncoder().encode(color)) == color)
        }
        #expect(values[1].description == "NSColor device rgb(1, 0.5, 0, 0.25)")
        #expect(values[5].description == "NSColor catalog System/textColor")
    }

    @Test func malformedColorsThrowNamingClassAndKey() throws {
        let cases: [(PropertyListDictionary, String, String)] = [
            (["NSColorSpace": 10], "dataCorrupted", "root.NSColorSpace"),
            (["NSColorSpace": "1"], "typeMismatch", "root.NSColorSpace"),
            (["NSColorSpace": 1], "keyNotFound", "root.NSRGB"),
            (["NSColorSpace": 1, "NSRGB": .data(Data("1 x 0\0".utf8))], "dataCorrupted", "root.NSRGB"),
            (["NSColorSpace": 1, "NSRGB": .data(Data("1 0\0".utf8))], "dataCorrupted", "root.NSRGB"),
            (["NSColorSpace": 1, "NSRGB": .data(Data("1 0 0 1 1\0".utf8))], "dataCorrupted", "root.NSRGB"),
            (["NSColorSpace": 1, "NSRGB": .data(Data(repeating: 0x31, count: 100_000))], "dataCorrupted", "root.NSRGB"),
            (["NSColorSpace": 1, "NSRGB": 3], "typeMismatch", "root.NSRGB"),
            (["NSColorSpace": 3, "NSWhite": .data(Data("0.5\0".utf8)), "NSComponents": .data(Data("a".utf8))], "dataCorrupted", "root.NSComponents"),
            (["NSColorSpace": 6, "NSColorName": HandMadeArchive.uid(3)], "keyNotFound", "root.NSCatalogName"),
            (["NSColorSpace": 6, "NSCatalogName": HandMadeArchive.uid(3), "NSColorName": HandMadeArchive.uid(3), "NSColor": HandMadeArchive.uid(3)],
             "typeMismatch", "root.NSColor"),
        ]
        for (fields, code, path) in cases {
            let data = try reference(Self.colorChain, fields, ["System"])
            let e = errorSummary { _ = try KeyedUnarchiver.unarchivedObject(ofClass: C.self, from: data) }
            #expect(e?.code == code && e?.className == "NSColor" && e?.keyPath == path, "\(fields) -> \(String(describing: e))")
        }
        // A catalog color whose fallback is itself: a cycle, reported, not a crash.
        let cyclic = try reference(Self.colorChain, ["NSColorSpace": 6, "NSCatalogName": HandMadeArchive.uid(3),
                                                     "NSColorName": HandMadeArchive.uid(3), "NSColor": HandMadeArchive.uid(1)], ["System"])
        #expect(errorSummary { _ = try KeyedUnarchiver.unarchivedObject(ofClass: C.self, from: cyclic) }?.code == "cycle")
    }
}
