// swift-tools-version:6.0
//
// KeyedArchive reads and writes Apple's NSKeyedArchiver archives on Linux and Apple platforms.
// The package depends on nothing but the Swift toolchain.

import PackageDescription

let package = Package(
    name: "KeyedArchive",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    products: [
        .library(name: "KeyedArchive", targets: ["KeyedArchive"]),
        .executable(name: "archive-dump", targets: ["archive-dump"]),
        .executable(name: "plutil", targets: ["plutil"]),
        .library(name: "KeyedArchiveTesting", targets: ["KeyedArchiveTesting"]),
        .executable(name: "keyedarchive-demo", targets: ["keyedarchive-demo"]),
    ],
    targets: [
        // MARK: - Public API

        /// Property lists (binary and XML), the keyed archiver and unarchiver, atomic file I/O.
        .target(name: "KeyedArchive", dependencies: ["KeyedArchiveCSupport"]),

        /// Round-trip checks for users' own test suites (works with Swift Testing and XCTest alike).
        .target(name: "KeyedArchiveTesting", dependencies: ["KeyedArchive"]),

        // MARK: - Implementation details

        /// C the core library calls for what Swift cannot say (cache prefetch hints): header-only `static inline`.
        .target(name: "KeyedArchiveCSupport"),

        /// The renderers behind `archive-dump` (tree, raw, JSON), shared with the samples.
        .target(name: "ArchiveDumpCore", dependencies: ["KeyedArchive"]),

        /// The logic of `plutil` (arguments, key-path commands, the JSON, raw and literal formats), over
        /// ArchiveDumpCore's renderers.
        .target(name: "PlutilCore", dependencies: ["ArchiveDumpCore", "KeyedArchive"]),

        // MARK: - Tools

        /// `archive-dump`: shows what is inside any property list or keyed archive.
        .executableTarget(name: "archive-dump", dependencies: ["ArchiveDumpCore", "KeyedArchive"]),

        /// `plutil`: Apple's plutil command line (lint, print, convert, extract, edit), keyed archives included.
        .executableTarget(name: "plutil", dependencies: ["PlutilCore"]),

        /// `archive-bench`: times this package against Foundation in one run (`swift run -c release archive-bench`).
        .executableTarget(name: "archive-bench", dependencies: ["KeyedArchive"], path: "Sources/ArchiveBench"),

        /// `keyedarchive-demo`: the main job; archives a small graph, reads it back securely, checks and dumps it.
        .executableTarget(name: "keyedarchive-demo", dependencies: ["KeyedArchive", "ArchiveDumpCore"]),

        // MARK: - Samples

        /// `notes`: a command-line notes app keeping its notes in a keyed archive (logic in NotesCore).
        .target(name: "NotesCore", dependencies: ["KeyedArchive"], path: "Samples/Notes/Sources/NotesCore"),
        .executableTarget(name: "notes", dependencies: ["NotesCore"], path: "Samples/Notes/Sources/notes"),

        /// `schema-migration`: reads archives written by an older version of a model (renamed class, new and removed fields).
        .target(name: "SchemaMigration", dependencies: ["KeyedArchive"], path: "Samples/SchemaMigration/Sources/SchemaMigration"),
        .executableTarget(name: "schema-migration", dependencies: ["SchemaMigration", "KeyedArchive"],
                          path: "Samples/SchemaMigration/Sources/schema-migration"),

        // MARK: - Tests

        /// What the test targets share: the archive builder, the built-tool finder and runner, the corpus locator, the
        /// tests' temporary directories and the models the unarchiver fuzz target compiles too (Scripts/fuzz.sh).
        /// Not a product.
        .target(name: "KeyedArchiveTestSupport", dependencies: ["KeyedArchive"], path: "Tests/TestSupport"),

        .testTarget(name: "KeyedArchiveTests", dependencies: ["KeyedArchive", "KeyedArchiveTesting", "KeyedArchiveTestSupport", "atomic-write-crash-child",
                                                               "essentials-only-child"]),
        .testTarget(name: "ArchiveDumpTests", dependencies: ["ArchiveDumpCore", "KeyedArchive", "KeyedArchiveTestSupport",
                                                             "archive-dump"]),
        .testTarget(name: "PlutilTests", dependencies: ["PlutilCore", "ArchiveDumpCore", "KeyedArchive", "KeyedArchiveTestSupport",
                                                        "plutil"]),
        .testTarget(name: "SamplesTests", dependencies: ["KeyedArchive", "KeyedArchiveTesting", "KeyedArchiveTestSupport",
                                                         "NotesCore", "SchemaMigration",
                                                         "notes", "schema-migration", "keyedarchive-demo"]),
        .testTarget(name: "KeyedArchiveTestingTests", dependencies: ["KeyedArchive", "KeyedArchiveTesting"],
                    resources: [.copy("GoldenFiles")]),

        /// Saves in a loop until killed: the crash test's child process (also used for umask tests).
        .executableTarget(name: "atomic-write-crash-child", dependencies: ["KeyedArchive"], path: "Tests/AtomicWriteCrashChild"),

        /// Decodes archives in a process that links FoundationEssentials only (the calendar identifier tests).
        .executableTarget(name: "essentials-only-child", dependencies: ["KeyedArchive"], path: "Tests/EssentialsOnlyChild"),
    ]
)
