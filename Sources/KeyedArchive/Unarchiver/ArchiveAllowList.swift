// The allow-list decision of the typed unarchiver, alone in this file so that a security review finds it
// in one place.
//
// What it decides: whether the class an archive claims for an object (its `$classname`, attacker-controlled)
// may become one of the types the caller allowed at that point, and which type is instantiated. Only the
// allowed types, the names they answer to (`archivedClassName`, `legacyClassNames`), the caller's registry
// (`KeyedUnarchiver.setClass(_:forClassName:)`, which admits a registered subclass of an allowed type) and the
// caller's module moves (`KeyedUnarchiver.mapModule(_:to:)`: the archived name is also read with its module
// replaced, `ArchivedModuleMoves`, and that name is compared with the same allowed types and registry) are
// consulted. The `$classes` chain never is (an archive cannot widen what is allowed by claiming an allowed
// superclass), and no type is ever looked up by name at run time.
//
// When: before any initializer runs, for every object, including an object met again through a second
// reference (checked against that field's types too).
//
// Where it is called:
// - `UnarchivingSession.instance(_:allowed:key:expected:)` (every object a field, an element or the top
//   level decodes) and `ArchiveObjectDecoder.decodeObjectReference(of:forKey:assign:)` (back-references)
//   call `allowedType(classAt:uid:allowed:key:expected:)` below;
// - `UnarchivingSession.resolve(classAt:allowed:)` caches the answer per class dictionary and single allowed
//   type, and `UnarchivingSession.sharedObject(_:of:)` reuses the last cached answer for the typed fast
//   path: performance only, keyed by every input of the decision;
// - `ArchiveObjectDecoder+Heterogeneous.swift` (`decodeValue(ofAnyOf:)`) picks among the requested types
//   by `acceptedNames(of:registry:names:)` below.
// Untyped Foundation values (`FoundationValue`) never reach a model type: only the catalogue's value
// classes are read there (`ArchiveObjectDecoder+FoundationValue.swift`).
//
// Other places refuse a class by a fixed list of names, never instantiating by name either, and throw
// `classNotAllowed` themselves: `ArchiveObjectDecoder.builtinObject` (Foundation's own classes read as
// strings, dates, collections...), `ArchiveObjectDecoder+FoundationValue.swift` (the catalogue's classes),
// `ArchiveCodableDecoder`'s keyed container (a Codable model's nested object named as a Foundation class)
// and `decodeDecodable`'s subtree conversion (property-list classes only). Every typed path reads an
// object's class through `UnarchivingSession.objectClass(_:key:)` first: a rule about the class name
// itself, whatever the caller allowed, belongs there so that no path skips it.

/// The allow-list decision: which allowed type, if any, an archived class name may become.
enum ArchiveAllowList {
    /// Every name `type` answers to: its archived class name, then its legacy names (see
    /// ``ArchivedClassNameRules/acceptedNames(of:)``).
    static func names(of type: any KeyedArchivable.Type) -> [String] {
        ArchivedClassNameRules.acceptedNames(of: type)
    }

    /// The type to instantiate for an object whose archive claims the class `name`, or nil when none of
    /// `allowed` may be produced from it.
    ///
    /// - Parameters:
    ///   - name: the object's `$classname`.
    ///   - allowed: the types the caller allows at this point.
    ///   - registry: the caller's class-name registrations; a registered type is taken only where it is
    ///     one of `allowed` or a subclass of one.
    ///   - names: ``names(of:)``, possibly cached.
    ///   - moves: the caller's module moves (old module to new); `name` with its module moved is tried
    ///     after `name` itself, against the same `allowed` types and `registry`.
    static func type(forClassName name: String, allowed: [any KeyedArchivable.Type],
                     registry: [String: any KeyedArchivable.Type], moves: [String: String] = [:],
                     names: (any KeyedArchivable.Type) -> [String]) -> (any KeyedArchivable.Type)? {
        if let found = type(forExactName: name, allowed: allowed, registry: registry, names: names) { return found }
        guard let moved = ArchivedModuleMoves.movedName(name, moves: moves) else { return nil }
        return type(forExactName: moved, allowed: allowed, registry: registry, names: names)
    }

    /// ``type(forClassName:allowed:registry:moves:names:)`` for `name` as written.
    private static func type(forExactName name: String, allowed: [any KeyedArchivable.Type],
                             registry: [String: any KeyedArchivable.Type],
                             names: (any KeyedArchivable.Type) -> [String]) -> (any KeyedArchivable.Type)? {
        for type in allowed where names(type).contains(name) { return type }
        if let registered = registry[name] {
            for type in allowed where isType(registered, subtypeOf: type) { return registered }
        }
        return nil
    }

    /// The class names an object may claim to be read as `type` where a value of one of several types
    /// is asked for (`decodeValue(ofAnyOf:)`): the type's own names, the names the caller registered
    /// for it or for a subclass of it, and each of these spelled with the module it moved from (`moves`).
    static func acceptedNames(of type: any KeyedArchivable.Type, registry: [String: any KeyedArchivable.Type],
                              moves: [String: String] = [:], names: (any KeyedArchivable.Type) -> [String]) -> [String] {
        func registered<A: KeyedArchivable>(_ allowed: A.Type) -> [String] {
            registry.compactMap { $0.value is A.Type ? $0.key : nil }
        }
        let accepted = names(type) + registered(type)
        return accepted + ArchivedModuleMoves.namesBeforeMoves(accepted, moves: moves)
    }

    /// Whether an object of class `name` is a nested Codable value of `type` (a ``CodableDecodedObject``):
    /// one of its names, or a name the unarchiver's registry or module moves map to it. Decided before the
    /// value's initializer runs; `archive` is not the unarchiver's decoder only in tests of the adapter.
    static func isNestedObject(named name: String, of type: any KeyedArchivable.Type, in archive: any ArchiveDecoder) -> Bool {
        guard let reader = archive.objectReading else {
            return ArchivedClassNameRules.acceptedNames(of: type).contains(name)
        }
        return reader.acceptsObject(named: name, as: type)
    }

    /// Whether `candidate` is `allowed` or one of its subclasses (a static check, no name lookup).
    static func isType(_ candidate: any KeyedArchivable.Type, subtypeOf allowed: any KeyedArchivable.Type) -> Bool {
        func check<A: KeyedArchivable>(_ allowed: A.Type) -> Bool { candidate is A.Type }
        return check(allowed)
    }
}

extension UnarchivingSession {
    /// The type to instantiate for the object `uid` of class `classTable[classIndex]` where `allowed` may
    /// be produced (``ArchiveAllowList``, through the session's cache). Takes the index, not the class: a
    /// copy of ``ArchivedClass`` costs a retain and a release of each of its strings and arrays per object.
    /// - Throws: ``KeyedArchiveError/Code/classNotAllowed`` naming the class, the object and the key path.
    func allowedType(classAt classIndex: Int, uid: ArchiveObjectID, allowed: [any KeyedArchivable.Type], key: String?,
                     expected: @autoclosure () -> String) throws -> any KeyedArchivable.Type {
        guard let type = resolve(classAt: classIndex, allowed: allowed) else {
            let name = classTable[classIndex].name
            throw error(.classNotAllowed, "class \"\(name)\" is not allowed here; expected \(expected())"
                            + ArchivedClassNameRules.renamedClassHint(for: name),
                        key: key, uid: uid, className: name)
        }
        return type
    }
}
