import KeyedArchive

/// A team: a name, a manager and members. Archived as class `Team`.
final class Team: KeyedArchivable {
    static var archivedClassName: String { "Team" }

    var name: String
    var manager: Person
    var members: [Person]

    init(name: String, manager: Person, members: [Person]) {
        self.name = name
        self.manager = manager
        self.members = members
    }

    init(from decoder: any ArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        manager = try decoder.decode(Person.self, forKey: "manager")
        members = try decoder.decode([Person].self, forKey: "members")
    }

    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(manager, forKey: "manager")
        try encoder.encode(members, forKey: "members")
    }
}

/// A person: a name, a role, an optional manager (shared by many people) and a back-reference to the
/// team (a cycle: team -> person -> team). Archived as class `Person`.
final class Person: KeyedArchivable {
    static var archivedClassName: String { "Person" }

    var name: String
    var role: String
    var manager: Person?
    /// Weak: the team owns its people.
    weak var team: Team?

    init(name: String, role: String, manager: Person? = nil) {
        self.name = name
        self.role = role
        self.manager = manager
    }

    init(from decoder: any ArchiveDecoder) throws {
        name = try decoder.decode(String.self, forKey: "name")
        role = try decoder.decode(String.self, forKey: "role")
        manager = try decoder.decodeIfPresent(Person.self, forKey: "manager")
        // The team is still being decoded when its people are: ask for it as a back-reference,
        // delivered once the whole graph is built.
        try decoder.decodeObjectReference(of: Team.self, forKey: "team") { [unowned self] team in self.team = team }
    }

    func encode(to encoder: any ArchiveEncoder) throws {
        try encoder.encode(name, forKey: "name")
        try encoder.encode(role, forKey: "role")
        try encoder.encode(manager, forKey: "manager")
        // Conditional, as Foundation archives back-references: written only because the team itself is.
        try encoder.encodeConditionalObject(team, forKey: "team")
    }
}
