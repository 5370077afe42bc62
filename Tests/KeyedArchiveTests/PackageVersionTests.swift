import Foundation
import KeyedArchive
import KeyedArchiveTestSupport
import Testing

/// The package keeps one version: the constant, the changelog's newest release and the README's installation
/// line say the same.
@Suite struct PackageVersionTests {
    static func text(_ name: String) throws -> String {
        try String(contentsOf: BuiltProducts.packageRoot.appendingPathComponent(name), encoding: .utf8)
    }

    @Test func versionIsMajorMinorPatch() {
        let parts = KeyedArchivePackage.version.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } },
                "\(KeyedArchivePackage.version)")
    }

    @Test func changelogNewestReleaseIsTheVersion() throws {
        let headings = try Self.text("CHANGELOG.md").split(separator: "\n").filter { $0.hasPrefix("## [") }
        #expect(headings.first == "## [Unreleased]")
        let release = try #require(headings.dropFirst().first, "CHANGELOG.md lists no release")
        #expect(release.hasPrefix("## [\(KeyedArchivePackage.version)] - "), "\(release)")
    }

    @Test func readmeInstallsTheVersion() throws {
        let readme = try Self.text("README.md")
        #expect(readme.contains(#".package(url: "https://github.com/OWNER/KeyedArchive.git", from: "\#(KeyedArchivePackage.version)")"#))
        #expect(readme.contains(#".product(name: "KeyedArchive", package: "KeyedArchive")"#))
    }
}
