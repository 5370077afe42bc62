// swift-tools-version:6.0
//
// Benchmarks that need more than the Swift toolchain, kept out of the root package so that it stays
// dependency-free. `libplist-bench` times the C library libplist (Debian's `libplist-dev`) reading the
// same bytes as KeyedArchive's reader, in the same process:
//
//     apt-get install libplist-dev
//     swift build -c release --package-path Benchmarks
//     swift run -c release archive-bench          # from the root: picks Benchmarks/.build/release/libplist-bench up

import PackageDescription

let package = Package(
    name: "KeyedArchiveBenchmarks",
    dependencies: [.package(name: "KeyedArchive", path: "..")],
    targets: [
        /// libplist's C API, linked from the system (pkg-config `libplist-2.0`).
        .systemLibrary(name: "CLibplist", path: "Sources/CLibplist", pkgConfig: "libplist-2.0",
                       providers: [.apt(["libplist-dev"])]),
        /// `libplist-bench FILE...`: our reader against libplist's `plist_from_bin` on each file.
        .executableTarget(name: "libplist-bench", dependencies: ["CLibplist", .product(name: "KeyedArchive", package: "KeyedArchive")],
                          path: "Sources/LibplistBench"),
    ]
)
