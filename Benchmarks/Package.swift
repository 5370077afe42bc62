// swift-tools-version:6.0
//
// Benchmarks that need more than the Swift toolchain, kept out of the root package so that it stays
// dependency-free. `libplist-bench` times the C library libplist (Debian's `libplist-dev`) reading the
// same bytes as KeyedArchive's reader (`plist_from_bin`) and writing the tree of those bytes as our
// writer does (`plist_to_bin`), in the same process. GNUstep/ holds the archive/unarchive peer
// (GNUstep's NSKeyedArchiver/NSKeyedUnarchiver, Objective-C, built by its own script, not by this manifest):
//
//     apt-get install libplist-dev gobjc libgnustep-base-dev
//     swift build -c release --package-path Benchmarks
//     Benchmarks/GNUstep/build.sh
//     swift run -c release archive-bench          # from the root: picks both up (Benchmarks/.build/release/libplist-bench,
//                                                 # Benchmarks/GNUstep/.build/archive-peer)

import PackageDescription

let package = Package(
    name: "KeyedArchiveBenchmarks",
    dependencies: [.package(name: "KeyedArchive", path: "..")],
    targets: [
        /// libplist's C API, linked from the system (pkg-config `libplist-2.0`).
        .systemLibrary(name: "CLibplist", path: "Sources/CLibplist", pkgConfig: "libplist-2.0",
                       providers: [.apt(["libplist-dev"])]),
        /// `libplist-bench FILE...`: our reader and writer against libplist's `plist_from_bin` and `plist_to_bin` on each file.
        .executableTarget(name: "libplist-bench", dependencies: ["CLibplist", .product(name: "KeyedArchive", package: "KeyedArchive")],
                          path: "Sources/LibplistBench"),
    ]
)
