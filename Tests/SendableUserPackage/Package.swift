// swift-tools-version:6.0
//
// A user's package in Swift 6 mode (complete concurrency checking): it keeps a configured unarchiver in a
// `static let` and uses it, and the values and errors a decode returns, across tasks. The test
// `SendableUserPackageTests` compiles its source against the KeyedArchive module the test run built;
// `swift build --package-path Tests/SendableUserPackage` builds the whole package.

import PackageDescription

let package = Package(
    name: "SendableUser",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9)],
    dependencies: [.package(name: "KeyedArchive", path: "../..")],
    targets: [
        .executableTarget(name: "SendableUser", dependencies: [.product(name: "KeyedArchive", package: "KeyedArchive")]),
    ],
    swiftLanguageModes: [.v6]
)
