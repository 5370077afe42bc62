// keyedarchive-demo: the whole library at work in one run. Archives a small object graph with a shared
// object and a cycle, writes it atomically to a temporary directory, reads it back securely, checks that
// identity survived, and shows the archive as `archive-dump` would.
//
//     swift run keyedarchive-demo [--keep]
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import ArchiveDumpCore
import KeyedArchive

signal(SIGPIPE, SIG_IGN)
let out = DumpOutput.fileDescriptor(1)
let err = DumpOutput.fileDescriptor(2)
let arguments = Array(CommandLine.arguments.dropFirst())
let usage = "keyedarchive-demo [--keep]"
if arguments == ["-h"] || arguments == ["--help"] {
    out.write("""
        OVERVIEW: Archives a small object graph (a team with a shared manager and back-references), writes it
        atomically to a temporary directory, reads it back securely and checks that identity survived.

        USAGE: \(usage)

        OPTIONS:
          --keep                  Keep the temporary directory (its path is printed).
          -h, --help              Show help information.

        """)
    out.flush()
    exit(0)
}
guard arguments.isEmpty || arguments == ["--keep"] else {
    err.write("Error: Unexpected argument '\(arguments.first { $0 != "--keep" } ?? arguments[0])'\nUsage: \(usage)\n"
              + "  See 'keyedarchive-demo --help' for more information.\n")
    err.flush()
    exit(64)
}
let keep = arguments == ["--keep"]

var failures = 0
@MainActor func check(_ ok: Bool, _ what: String) {
    out.write("  \(ok ? "ok  " : "FAIL") \(what)\n")
    if !ok { failures += 1 }
}
var directory = ""
@MainActor func cleanUp() {
    if !keep && !directory.isEmpty { try? FileManager.default.removeItem(atPath: directory) }
}
@MainActor func fail(_ message: String) -> Never {
    cleanUp()
    out.flush()
    err.write("Error: \(message)\n")
    err.flush()
    exit(1)
}

// 1. Build the graph.
let ada = Person(name: "Ada", role: "manager")
let team = Team(name: "Compilers", manager: ada, members: [
    Person(name: "Grace", role: "engineer", manager: ada),
    Person(name: "Alan", role: "engineer", manager: ada),
    Person(name: "Barbara", role: "designer", manager: ada),
])
for person in [ada] + team.members { person.team = team }
out.write("1. Built a team of 3 members; each member's manager is the same Person (Ada), "
          + "and every person points back to the team (a cycle).\n")

// 2. Archive and write atomically.
directory = FileManager.default.temporaryDirectory.appendingPathComponent("keyedarchive-demo-\(UUID().uuidString)").path
let path = directory + "/team.archive"
let bytes: Data
do {
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    bytes = try KeyedArchiver.archivedData(withRootObject: team)
    try AtomicFileWriter().write(bytes, toPath: path)
} catch {
    fail("archiving failed: \(error)")
}
out.write("2. Archived with KeyedArchiver (binary, \(bytes.count) bytes) and wrote it atomically to\n   \(path)\(keep ? "" : " (removed at exit)")\n")

// 3. Read back securely.
let data: Data
let copy: Team
do {
    data = try FileReader().read(atPath: path)
    var unarchiver = KeyedUnarchiver()
    unarchiver.limits.maximumObjectCount = 1_000
    unarchiver.limits.maximumDepth = 32
    copy = try unarchiver.decode(Team.self, from: data)
} catch {
    fail("reading back failed: \(error)")
}
out.write("3. Read it back with FileReader and KeyedUnarchiver: root must be a Team, its people Persons (allow-list), limits 1,000 objects, depth 32.\n")

// 4. Check.
out.write("4. Checks:\n")
check(data == bytes, "the file holds exactly the archived bytes")
check(copy.name == team.name && copy.manager.name == "Ada"
      && zip(copy.members, team.members).allSatisfy { $0.name == $1.name && $0.role == $1.role }
      && copy.members.count == team.members.count, "names and roles survived")
check(copy.members.allSatisfy { $0.manager === copy.manager }, "shared: every member's manager is the team's manager, one object (===)")
check(([copy.manager] + copy.members).allSatisfy { $0.team === copy }, "cycle: every person's team is the decoded team itself (===)")
check(Set(copy.members.map(ObjectIdentifier.init)).count == 3, "distinct people stay distinct objects")
let graph: ArchivedObjectGraph
do {
    graph = try ArchivedObjectGraph(data: data)
} catch {
    fail("the raw graph could not be read: \(error)")
}
let counts = graph.instanceCounts()
check(counts["Team"] == 1 && counts["Person"] == 4, "stored once each: \(counts["Team"] ?? 0) Team and \(counts["Person"] ?? 0) Person objects in $objects")
do {
    _ = try KeyedUnarchiver().decode(Person.self, from: data)
    check(false, "asking for a Person at the root refuses the archive's Team")
} catch let error as KeyedArchiveError {
    check(error.code == .classNotAllowed, "asking for a Person at the root refuses the Team (\(error.code)), before any init runs")
} catch {
    check(false, "asking for a Person at the root refuses the archive's Team (got \(error))")
}

// 5. Show it.
out.write("5. The archive, as `archive-dump \(path.split(separator: "/").last ?? "")` shows it:\n")
let dump = DumpOutputCollector()  // its own line numbers, as archive-dump would print them
TreeRenderer().render(graph: graph, to: dump.output)
dump.output.flush()
out.write(dump.text)

for person in [copy.manager] + copy.members { person.team = nil }
if failures > 0 { fail("\(failures) check\(failures == 1 ? "" : "s") failed") }
cleanUp()
out.write("All checks passed.\n")
out.flush()
exit(out.hasFailed ? 1 : 0)
