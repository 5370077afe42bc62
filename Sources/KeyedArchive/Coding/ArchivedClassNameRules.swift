/// The default `$classname` of a Swift type (``KeyedArchivable/archivedClassName``), as Apple's archiver names
/// Swift classes, and the names that must never be written.
///
/// What Apple's `NSKeyedArchiver` writes is `NSStringFromClass`, the Objective-C runtime name:
/// - a top-level class: `Module.Class` (the runtime's `_TtC6Module5Class`, shown demangled; objc4's
///   `copySwiftV1DemangledName` and `copySwiftV1MangledName` convert between the two forms for names with
///   exactly one dot, so `NSClassFromString("Module.Class")` finds the class and `"Module.Outer.Inner"`
///   finds nothing);
/// - a nested class: the Swift 3 mangled name itself, `_TtCC6Module5Outer5Inner` (the Swift compiler's
///   fix-it for such a class records exactly that name for "compatibility with existing archives", in
///   swiftlang/swift's test/decl/protocol/conforms/nscoding.swift); this is the default here too, so Apple's
///   unarchiver reads what this package writes. The `Module.Outer.Inner` this package wrote before is
///   still read (``acceptedNames(of:)``);
/// - a generic class: an unstable mangled name (`_TtGC5_Test20ArchivedTwiceGenericSi_`) that Apple's
///   Foundation warns about at run time and asks to map with `setClassName(_:for:)`
///   (test/Interpreter/SDK/check_class_for_archiving.swift). No name of a generic class is both stable and
///   read by Apple's unarchiver, so the default stays `String(reflecting:)` (`Module.Box<Swift.Int>`): the
///   same on every run, read by this package, mapped by the caller for Apple's;
/// - a private, fileprivate or local class: a name holding a file-name hash; `String(reflecting:)` holds
///   `(unknown context at $<address>)` instead, which changes on every launch. The archiver refuses such a
///   name (``unstableNameError(name:)``): the type must set ``KeyedArchivable/archivedClassName``.
///
/// Structs and enums have no Objective-C name; theirs is `String(reflecting:)`.
enum ArchivedClassNameRules {
    /// What `String(reflecting:)` shows for a private or local declaration context, before its address.
    static let addressMarker = "(unknown context at "

    /// The default `$classname` of `type`; computed once per type per archive or unarchive session (the
    /// archiver and the unarchiver cache names by type).
    static func defaultName(of type: Any.Type) -> String {
        let reflected = String(reflecting: type)
        guard type is AnyClass, let path = nestedTypePath(reflected) else { return reflected }
        return swiftRuntimeName(of: type, path: path) ?? reflected
    }

    /// Whether `name` holds a memory address, so that it would differ on the next launch.
    static func holdsAddress(_ name: String) -> Bool { name.contains(addressMarker) }

    /// The error for a class name that changes from run to run.
    static func unstableNameError(name: String) -> KeyedArchiveError {
        KeyedArchiveError(.invalidValue, "the class name \"\(name)\" holds a memory address that changes on every launch "
                          + "(a private or local type): set the type's archivedClassName to a fixed name "
                          + "(a Codable value: adopt ArchiveNamed and set it there)", className: name)
    }

    /// What to add to a ``KeyedArchiveError/Code/classNotAllowed`` message for `name`: when it has the form of
    /// a Swift class's archived name (`Module.Class`, a generic `Module.Box<Module.Item>`, or a mangled
    /// `_TtC...`), the APIs that read a class renamed or moved since the archive was written; otherwise
    /// nothing (Objective-C class names have no module).
    static func renamedClassHint(for name: String) -> String {
        guard looksLikeSwiftClassName(name) else { return "" }
        return " (a Swift class renamed or moved to another module since the archive was written is read with "
            + "KeyedUnarchiver.setClass(_:forClassName:), the type's legacyClassNames, or "
            + "KeyedUnarchiver.mapModule(_:to:) for a whole module)"
    }

    /// Whether `name` is module-qualified (an identifier, then a dot) or a Swift mangled class name.
    static func looksLikeSwiftClassName(_ name: String) -> Bool {
        if name.hasPrefix("_Tt") { return true }
        guard let dot = name.firstIndex(of: "."), let first = name.unicodeScalars.first,
              first == "_" || first.properties.isAlphabetic else { return false }
        return name[..<dot].unicodeScalars.allSatisfy { $0 == "_" || $0.properties.isAlphabetic || $0.properties.numericType != nil }
    }

    /// Every name `type` answers to when reading: its ``KeyedArchivable/archivedClassName``, its
    /// ``KeyedArchivable/legacyClassNames`` and, for a nested class, the `Module.Outer.Inner` that earlier
    /// versions of this package wrote by default (that name can only mean this type). Names holding an
    /// address are left out: they were never written by another run.
    static func acceptedNames(of type: any KeyedArchivable.Type) -> [String] {
        var names = [type.archivedClassName] + type.legacyClassNames
        let reflected = String(reflecting: type)
        if type is AnyClass, !names.contains(reflected), nestedTypePath(reflected) != nil { names.append(reflected) }
        return names.filter { !holdsAddress($0) }
    }

    /// The module and the type names of a nested type's `String(reflecting:)` (`["M", "Outer", "Inner"]`),
    /// or nil when it is not a nested type of plain identifiers (top level, generic, private or local).
    static func nestedTypePath(_ reflected: String) -> [Substring]? {
        let path = reflected.split(separator: ".", omittingEmptySubsequences: false)
        guard path.count >= 3, path.allSatisfy(isMangleableIdentifier) else { return nil }
        return path
    }

    /// Whether `name` is an identifier the Swift 3 mangling writes as its length and its characters: ASCII
    /// letters, digits and `_`, not starting with a digit (other identifiers are Punycode-encoded there).
    static func isMangleableIdentifier(_ name: Substring) -> Bool {
        guard let first = name.utf8.first, !(UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(first) else { return false }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a") ... UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A") ... UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0") ... UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
    }

    /// The kind letters of a nominal type, the same in both manglings: class, struct, enum.
    static let kindLetters: [Character] = ["C", "V", "O"]

    /// The Swift 3 mangled runtime name of the nested class `type` whose reflected name is `path`, or nil when
    /// its enclosing types cannot be told (a type nested in an extension of another module's type).
    ///
    /// The kind of each enclosing type is found by asking the runtime for the type that each candidate
    /// mangled name names (`_typeByName`, the standard library's lookup by mangled name), and the whole
    /// name must then name `type` itself.
    static func swiftRuntimeName(of type: Any.Type, path: [Substring]) -> String? {
        var mangled = "\(path[0].utf8.count)\(path[0])"
        var kinds: [Character] = []
        for name in path.dropFirst() {
            let prefix = mangled + "\(name.utf8.count)\(name)"
            guard let kind = kindLetters.first(where: { _typeByName(prefix + String($0)) != nil }) else { return nil }
            kinds.append(kind)
            mangled = prefix + String(kind)
        }
        guard let found = _typeByName(mangled), ObjectIdentifier(found) == ObjectIdentifier(type) else { return nil }
        return objectiveCRuntimeName(path: path, kinds: kinds)
    }

    /// The Swift 3 mangling of a nested nominal type, the Objective-C runtime name of a nested Swift class:
    /// `_Tt`, the kind letters from the innermost type out, then the module and each type name, outermost
    /// first, each preceded by its length (`["M", "Outer", "Inner"]`, `["C", "C"]` gives
    /// `_TtCC1M5Outer5Inner`). `kinds` has one letter for each type name in `path`.
    static func objectiveCRuntimeName(path: [Substring], kinds: [Character]) -> String {
        var name = "_Tt" + String(kinds.reversed())
        for component in path { name += "\(component.utf8.count)\(component)" }
        return name
    }
}
