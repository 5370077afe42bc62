import Foundation
import Testing
import KeyedArchive

/// Key paths in plutil's syntax, and get, replace, insert, append and remove on ``PropertyListValue``.
@Suite struct PropertyListKeyPathTests {
    /// `{name: "Ann", list: ["x", 2, {k: "v"}], "a.b": "dotted", tags: set["t"]}`
    let sample: PropertyListValue = [
        "name": "Ann",
        "list": ["x", 2, ["k": "v"]],
        "a.b": "dotted",
        "tags": .set(["t"]),
    ]

    @Test func plutilSyntaxSplitsAtUnescapedDots() {
        #expect(PropertyListKeyPath("list.2.k").components == ["list", "2", "k"])
        #expect(PropertyListKeyPath(#"com\.apple\.dock.tilesize"#).components == ["com.apple.dock", "tilesize"])
        #expect(PropertyListKeyPath("").components == [""])
        #expect(PropertyListKeyPath("a..b").components == ["a", "", "b"])
        #expect(PropertyListKeyPath(".").components == ["", ""])
        // A backslash before anything but a dot is itself, as in Apple's plutil.
        #expect(PropertyListKeyPath(#"a\b.c\"#).components == [#"a\b"#, #"c\"#])
        #expect(PropertyListKeyPath(#"a\\.b"#).components == [#"a\.b"#])
    }

    @Test func descriptionEscapesDotsAndParsesBack() {
        let path = PropertyListKeyPath(components: ["com.apple.dock", "tiles", "0"])
        #expect(path.description == #"com\.apple\.dock.tiles.0"#)
        #expect(PropertyListKeyPath(path.description) == path)
        let literal: PropertyListKeyPath = "a.b"
        #expect(literal.components == ["a", "b"])
    }

    @Test func valueFollowsKeysAndIndices() throws {
        #expect(try sample.value(at: "list.2.k") == "v")
        #expect(try sample.value(at: "list.1") == 2)
        #expect(try sample.value(at: #"a\.b"#) == "dotted")
        #expect(try sample.value(at: "tags.0") == "t")
        #expect(try sample.value(at: PropertyListKeyPath(components: [])) == sample)
    }

    @Test func missingValuesThrowWithTheKeyPathAndTheFailingComponent() {
        #expect { try sample.value(at: "nope") } throws: { error in
            let e = error as? PropertyListError
            return e?.code == .keyPathNotFound && e?.message == "no key 'nope' in the dictionary at the root"
                && e?.location.keyPath == "nope"
        }
        #expect { try sample.value(at: "list.9") } throws: { error in
            let e = error as? PropertyListError
            return e?.code == .keyPathNotFound
                && e?.message == "index 9 is out of range for the array at 'list' (3 elements)"
        }
        #expect { try sample.value(at: "list.first") } throws: { error in
            let e = error as? PropertyListError
            return e?.code == .keyPathMismatch && e?.message == "'first' is not an index of the array at 'list' (3 elements)"
        }
        #expect { try sample.value(at: "list.-1") } throws: { error in
            (error as? PropertyListError)?.code == .keyPathMismatch
        }
        #expect { try sample.value(at: "name.x") } throws: { error in
            let e = error as? PropertyListError
            return e?.code == .keyPathMismatch
                && e?.message == "the value at 'name' is a string, which has no key or index 'x'"
        }
        #expect { try sample.value(at: "list.99999999999999999999999") } throws: { error in
            (error as? PropertyListError)?.code == .keyPathNotFound
        }
    }

    @Test func replaceOverwritesAddsAndAppends() throws {
        var value = sample
        try value.replaceValue(at: "list.0", with: "y")
        try value.replaceValue(at: "list.2.k", with: true)
        try value.replaceValue(at: "new", with: 1)
        try value.replaceValue(at: "list.3", with: "end")
        #expect(try value.value(at: "list") == ["y", 2, ["k": true], "end"])
        #expect(try value.value(at: "new") == 1)
        #expect(value.dictionaryValue?.keys == ["name", "list", "a.b", "tags", "new"])
        try value.replaceValue(at: PropertyListKeyPath(components: []), with: "root")
        #expect(value == "root")
    }

    @Test func insertAddsKeysAndShiftsElements() throws {
        var value = sample
        try value.insertValue("first", at: "list.0")
        try value.insertValue("last", at: "list.4")
        try value.insertValue(["z": 1], at: "extra")
        try value.insertValue(0, at: "tags.1")
        #expect(try value.value(at: "list") == ["first", "x", 2, ["k": "v"], "last"])
        #expect(try value.value(at: "extra.z") == 1)
        #expect(try value.value(at: "tags") == .set(["t", 0]))
    }

    @Test func insertRefusesAnExistingKeyAndAnIndexPastTheEnd() {
        var value = sample
        #expect { try value.insertValue("B", at: "name") } throws: { error in
            let e = error as? PropertyListError
            return e?.code == .valueExists && e?.message == "the dictionary at the root already has the key 'name' (a string)"
        }
        #expect { try value.insertValue("B", at: "list.4") } throws: { error in
            (error as? PropertyListError)?.code == .keyPathNotFound
        }
        #expect { try value.insertValue("B", at: "missing.key") } throws: { error in
            (error as? PropertyListError)?.code == .keyPathNotFound
        }
        #expect { try value.insertValue("B", at: PropertyListKeyPath(components: [])) } throws: { error in
            (error as? PropertyListError)?.code == .valueExists
        }
        #expect(value == sample)
    }

    @Test func appendNeedsAnArray() throws {
        var value = sample
        try value.appendValue("end", toArrayAt: "list")
        #expect(try value.value(at: "list.3") == "end")
        #expect { try value.appendValue("x", toArrayAt: "name") } throws: { error in
            let e = error as? PropertyListError
            return e?.code == .keyPathMismatch && e?.message == "the value there is a string, not an array to append to"
        }
        var array: PropertyListValue = [1]
        try array.appendValue(2, toArrayAt: PropertyListKeyPath(components: []))
        #expect(array == [1, 2])
    }

    @Test func removeReturnsTheValueAndLeavesTheRestInOrder() throws {
        var value = sample
        #expect(try value.removeValue(at: "list.0") == "x")
        #expect(try value.removeValue(at: "list.1.k") == "v")
        #expect(try value.removeValue(at: #"a\.b"#) == "dotted")
        #expect(try value.value(at: "list") == [2, [:]])
        #expect(value.dictionaryValue?.keys == ["name", "list", "tags"])
        #expect { try value.removeValue(at: "list.2") } throws: { error in
            (error as? PropertyListError)?.code == .keyPathNotFound
        }
        #expect { try value.removeValue(at: PropertyListKeyPath(components: [])) } throws: { error in
            (error as? PropertyListError)?.code == .keyPathNotFound
        }
    }

    @Test func aFailedEditLeavesTheValueUnchanged() {
        var value = sample
        #expect(throws: PropertyListError.self) { try value.replaceValue(at: "list.2.k.deeper", with: 1) }
        #expect(throws: PropertyListError.self) { try value.removeValue(at: "list.7") }
        #expect(value == sample)
    }

    @Test func editsDoNotChangeCopiesThatShareStorage() throws {
        let original = sample
        var edited = original
        try edited.replaceValue(at: "list.2.k", with: "changed")
        #expect(try original.value(at: "list.2.k") == "v")
        #expect(try edited.value(at: "list.2.k") == "changed")
    }

    @Test func aLongKeyPathIsWalkedWithoutRecursion() throws {
        var value: PropertyListValue = "leaf"
        for _ in 0..<20_000 { value = ["k": value] }
        let path = PropertyListKeyPath(components: Array(repeating: "k", count: 20_000))
        #expect(try value.value(at: path) == "leaf")
        try value.replaceValue(at: path, with: "new leaf")
        #expect(try value.value(at: path) == "new leaf")
    }
}
