/// A class as an archive describes it: a class dictionary of `$objects` (`$classname`, `$classes`,
/// `$classhints`), which instances point at with `$class`. Attacker-controlled in untrusted archives.
///
/// The raw model shows it both as an entry of `$objects` (``ArchivedObject/Content/classDefinition(_:)``)
/// and as the class of each instance (``ArchivedInstance/archivedClass``); the two are equal.
public struct ArchivedClass: Hashable, Sendable {
    /// `$classname`.
    public var name: String
    /// `$classes`: the class, its superclasses, up to the root class (empty when absent).
    public var chain: [String]
    /// `$classhints`, when present (an array of strings).
    public var hints: [String]?
    /// Where the class dictionary is in `$objects`.
    public var uid: UID

    /// Creates a class description.
    ///
    /// - Parameters:
    ///   - name: `$classname`.
    ///   - chain: `$classes`; empty writes no `$classes` key.
    ///   - hints: `$classhints`; nil writes none.
    ///   - uid: the class dictionary's index in `$objects`.
    public init(name: String, chain: [String], hints: [String]? = nil, uid: UID) {
        self.name = name
        self.chain = chain
        self.hints = hints
        self.uid = uid
    }
}
