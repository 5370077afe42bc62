import Foundation
import KeyedArchive
import KeyedArchiveTestSupport
import Testing

/// A user's code in Swift 6 mode (complete concurrency checking) may keep a configured unarchiver in a
/// `static let`, use it from a detached task and pass what a decode returns or throws across tasks.
///
/// The user's code is `Tests/SendableUserPackage` (a package depending on this one by path). Its source is
/// compiled, in the Swift 6 language mode, against the `KeyedArchive` module this test run built: a real
/// compile with the user's flags, in a second instead of the minutes a nested `swift build` takes.
@Suite struct SendableUserPackageTests {
    /// The user package's source file.
    static let userSource = BuiltProducts.packageRoot
        .appendingPathComponent("Tests/SendableUserPackage/Sources/SendableUser/main.swift")

    /// The folder holding the `KeyedArchive.swiftmodule` built with the tests (`Modules/` beside the products
    /// in current SwiftPM, the products folder itself in older ones).
    static let moduleDirectory: URL? = BuiltProducts.directories
        .flatMap { [$0.appendingPathComponent("Modules"), $0] }
        .first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("KeyedArchive.swiftmodule").path) }

    /// The module map SwiftPM made for the package's C target (`KeyedArchiveCSupport`, which `KeyedArchive`
    /// imports internally): a client compiling against `KeyedArchive.swiftmodule` loads it, and SwiftPM passes it
    /// to every dependent target as this compile does.
    static let cSupportModuleMap: URL? = BuiltProducts.directories
        .map { $0.appendingPathComponent("KeyedArchiveCSupport.build/module.modulemap") }
        .first { FileManager.default.fileExists(atPath: $0.path) }

    /// `swiftc` from `PATH`: the compiler of the toolchain running `swift test`.
    static let compiler: URL? = (ProcessInfo.processInfo.environment["PATH"] ?? "")
        .split(separator: ":")
        .map { URL(fileURLWithPath: String($0)).appendingPathComponent("swiftc") }
        .first { FileManager.default.isExecutableFile(atPath: $0.path) }

    static var canCompile: Bool { moduleDirectory != nil && cSupportModuleMap != nil && compiler != nil }

    /// Type-checks `file` as a Swift 6 user of `KeyedArchive`; returns the exit status and the diagnostics.
    ///
    /// The compiler driver leaves a `TemporaryDirectory.*` folder in its `TMPDIR` at every run, so it gets a
    /// temporary directory of its own, removed afterwards.
    static func compile(_ file: URL) throws -> (status: Int32, diagnostics: String) {
        let compiler = try #require(compiler), modules = try #require(moduleDirectory), moduleMap = try #require(cSupportModuleMap)
        return try withTemporaryDirectory("swiftc") { driverTemporaries in
            var environment = ProcessInfo.processInfo.environment
            environment["TMPDIR"] = driverTemporaries.path
            let run = try OracleProcess.run(compiler, ["-swift-version", "6", "-strict-concurrency=complete", "-typecheck",
                                                       "-I", modules.path, "-Xcc", "-fmodule-map-file=" + moduleMap.path,
                                                       file.path], environment: environment)
            return (run.status, String(decoding: run.stderr + run.stdout, as: UTF8.self))
        }
    }

    @Test(.enabled(if: canCompile, "needs swiftc on PATH and the built KeyedArchive module with its C module map"))
    func userPackageCompilesInSwift6Mode() throws {
        let result = try Self.compile(Self.userSource)
        #expect(result.status == 0, "\(result.diagnostics)")
        #expect(result.diagnostics.isEmpty, "\(result.diagnostics)")
    }

    /// The control: the same check rejects the user code's pattern for a type that is not `Sendable` (an
    /// archiver holds one archive's state), so the test above would fail if `KeyedUnarchiver` were not.
    @Test(.enabled(if: canCompile, "needs swiftc on PATH and the built KeyedArchive module with its C module map"))
    func nonSendableStaticLetIsDiagnosed() throws {
        let folder = try TemporaryDirectory.create("sendable-control")
        defer { TemporaryDirectory.remove(folder) }
        let file = folder.appendingPathComponent("main.swift")
        try Data("""
            import KeyedArchive
            enum Archiving {
                static let archiver = KeyedArchiver()
            }
            let task = Task.detached { try Archiving.archiver.encodedData() }
            """.utf8).write(to: file)
        let result = try Self.compile(file)
        #expect(result.status != 0)
        #expect(result.diagnostics.contains("static property 'archiver' is not concurrency-safe"), "\(result.diagnostics)")
        #expect(result.diagnostics.contains("'KeyedArchiver'"), "\(result.diagnostics)")
    }
}
