/// How an archived class name reads after its types moved to another module
/// (``KeyedUnarchiver/mapModule(_:to:)``): the module names in it are replaced, in both spellings the
/// archivers write.
///
/// - The reflected spelling (`App.Note`, `App.Box<App.Item>`, `App.Outer.Inner`): every identifier equal to the
///   old module and followed by a dot, at the start of the name or after a character that cannot continue
///   a dotted name (`<`, `,`, a space), is replaced.
/// - The Objective-C runtime name of a nested class (`_TtCC3App5Outer5Inner`, see ``ArchivedClassNameRules``):
///   the length-prefixed module after `_Tt` and the kind letters is replaced (`_TtCC6Models5Outer5Inner`).
///
/// A name is only ever compared with the names of the types the caller allows at that point (see
/// ``ArchiveAllowList``): a move makes an old name mean the moved type, never any other type.
enum ArchivedModuleMoves {
    /// `name` with the modules `moves` maps (old module to new) replaced, or nil when it names none of them.
    static func movedName(_ name: String, moves: [String: String]) -> String? {
        guard !moves.isEmpty else { return nil }
        if let mangled = movedRuntimeName(name, moves: moves) { return mangled }
        var result = ""
        var changed = false
        var index = name.startIndex
        var atBoundary = true
        while index < name.endIndex {
            let character = name[index]
            if atBoundary, isIdentifierCharacter(character) {
                var end = index
                while end < name.endIndex, isIdentifierCharacter(name[end]) { end = name.index(after: end) }
                let identifier = String(name[index..<end])
                if end < name.endIndex, name[end] == ".", let moved = moves[identifier] {
                    result += moved
                    changed = true
                } else {
                    result += identifier
                }
                index = end
                atBoundary = false
                continue
            }
            result.append(character)
            atBoundary = !(isIdentifierCharacter(character) || character == ".")
            index = name.index(after: index)
        }
        return changed ? result : nil
    }

    /// The names `names` would have had before the moves `moves` (old module to new): each name in a new
    /// module, spelled with the old one. Used where names are compared the other way round (a value of one
    /// of several types, ``ArchiveDecoder/decodeValue(ofAnyOf:forKey:)``).
    static func namesBeforeMoves(_ names: [String], moves: [String: String]) -> [String] {
        guard !moves.isEmpty else { return [] }
        var reversed: [String: String] = [:]
        for (old, new) in moves { reversed[new] = old }
        return names.compactMap { movedName($0, moves: reversed) }
    }

    /// The Objective-C runtime name `_Tt<kinds><length><module>...` with its module moved, or nil.
    private static func movedRuntimeName(_ name: String, moves: [String: String]) -> String? {
        guard name.hasPrefix("_Tt") else { return nil }
        var rest = name.dropFirst(3)
        let kinds = rest.prefix { ArchivedClassNameRules.kindLetters.contains($0) }
        guard !kinds.isEmpty else { return nil }
        rest = rest.dropFirst(kinds.count)
        let digits = rest.prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 4, let length = Int(digits), length > 0 else { return nil }
        rest = rest.dropFirst(digits.count)
        guard rest.count >= length, let moved = moves[String(rest.prefix(length))] else { return nil }
        return "_Tt" + kinds + "\(moved.utf8.count)" + moved + rest.dropFirst(length)
    }

    /// Whether `character` continues a Swift identifier (ASCII letters, digits, `_`; any non-ASCII character,
    /// as Swift identifiers allow).
    private static func isIdentifierCharacter(_ character: Character) -> Bool {
        character == "_" || character.isLetter || character.isNumber || !character.isASCII
    }
}
