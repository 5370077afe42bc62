import Foundation
import KeyedArchive

/// The files every conformance run starts with.
enum PlutilFixtures {
    /// `a.plist`: every scalar type, a nested array and dictionary, a key with a dot.
    static let sampleXML = Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>name</key>
        \t<string>Ann</string>
        \t<key>age</key>
        \t<integer>42</integer>
        \t<key>pi</key>
        \t<real>3.5</real>
        \t<key>ok</key>
        \t<true/>
        \t<key>when</key>
        \t<date>2024-01-02T03:04:05Z</date>
        \t<key>blob</key>
        \t<data>AAECAw==</data>
        \t<key>list</key>
        \t<array><string>x</string><integer>2</integer><dict><key>k</key><string>v</string></dict></array>
        \t<key>a.b</key>
        \t<string>dotted</string>
        \t<key>Zed</key>
        \t<string>z</string>
        </dict>
        </plist>

        """.utf8)

    /// `c.plist`: strings, integers, a boolean and containers only, keys in an order every sort agrees on,
    /// so that every format (XML included) is written alike by both tools.
    static let plainXML = Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>age</key>
        \t<integer>42</integer>
        \t<key>list</key>
        \t<array>
        \t\t<string>x</string>
        \t\t<integer>2</integer>
        \t\t<dict>
        \t\t\t<key>k</key>
        \t\t\t<string>v</string>
        \t\t</dict>
        \t</array>
        \t<key>name</key>
        \t<string>Ann</string>
        \t<key>ok</key>
        \t<true/>
        </dict>
        </plist>

        """.utf8)

    /// `bad.plist`: XML that ends inside the dictionary.
    static let badXML = Data("<plist><dict><key>k</key>".utf8)

    /// `in.json`: integers, reals and booleans apart, nested containers.
    static let json = Data(#"{"k":[1,1.0,1.5e2,true,"s",{}],"z":"a\/b"}"#.utf8)

    /// `archive.plist`: a small valid keyed archive, `$top.root` -> "hello".
    static let archive: PropertyListValue = [
        "$archiver": "NSKeyedArchiver", "$version": 100000,
        "$top": ["root": .uid(UID(1))], "$objects": ["$null", "hello"],
    ]

    /// `broken-archive.plist`: `$top.root` refers past the end of `$objects`.
    static let brokenArchive: PropertyListValue = [
        "$archiver": "NSKeyedArchiver", "$version": 100000,
        "$top": ["root": .uid(UID(5))], "$objects": ["$null", "hello"],
    ]

    /// The corpus files copied in when the corpus is there: an XML archive Apple's Foundation wrote, and a
    /// binary one.
    static let corpusFiles = [
        "complex.plist": "corelibs-foundation/Resources/NSKeyedUnarchiver-ComplexTest.plist",
        "indexset.archive": "corelibs-foundation/Fixtures/macOS-10.14/NSIndexSet-ManyRanges.archive",
        "Emacs.clr": "typedstream/python-typedstream/Emacs.clr",
        "invalid-version.plist": "bpylist2/invalid_version_archive.plist",
    ]

    /// `openstep.plist`: an OpenStep (old ASCII) property list, as NeXT and `defaults` wrote them.
    static let openStep = Data("{\n    name = \"A b\";\n    list = (1, two, <0001>);\n    nested = { k = v; };\n}\n".utf8)

    /// `Localizable.strings`: a `.strings` file (a dictionary without its braces), with a comment.
    static let strings = Data("/* greeting */\n\"hello\" = \"Bonjour\";\n\"bye\" = \"Au revoir\";\n".utf8)

    /// The value of `a.plist`.
    static func sample() throws -> PropertyListValue {
        try PropertyListValue(propertyListData: sampleXML)
    }

    /// The value of `a.plist` after `edit`.
    static func sample(_ edit: (inout PropertyListValue) throws -> Void) throws -> PropertyListValue {
        var value = try sample()
        try edit(&value)
        return value
    }

    /// Every fixture file, by name.
    static func files() throws -> [String: Data] {
        var files: [String: Data] = [
            "a.plist": sampleXML,
            "b.bplist": try sample().propertyListData(format: .binary),
            "c.plist": plainXML,
            "-d.plist": plainXML,
            "bad.plist": badXML,
            "in.json": json,
            "archive.plist": try archive.propertyListData(format: .xml),
            "broken-archive.plist": try brokenArchive.propertyListData(format: .xml),
            "openstep.plist": openStep,
            "Localizable.strings": strings,
        ]
        if Corpus.isAvailable {
            for (name, path) in corpusFiles { files[name] = try Corpus.data(path) }
        }
        return files
    }
}
