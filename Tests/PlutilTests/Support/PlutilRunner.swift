// Every file of this target sees the shared test support (Tests/TestSupport: the built-tool finder, the
// corpus locator) without importing it.
@_exported import KeyedArchiveTestSupport
import Foundation
import Testing

/// Runs a `plutil` executable in a folder of its own, with files made for the run.
struct PlutilRunner {
    typealias Result = ToolProcess.Result

    /// The `plutil` this package builds, next to the test bundle.
    static let built: URL? = BuiltProducts.executable("plutil")

    /// The Swift toolchain's `plutil` (swift-corelibs-foundation's), beside the `swift` on the PATH after
    /// symbolic links are resolved; nil when it is not there. GNUstep's `/usr/bin/plutil` is never used.
    static let toolchain: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":") {
            let swift = URL(fileURLWithPath: String(folder)).appendingPathComponent("swift")
            guard FileManager.default.isExecutableFile(atPath: swift.path) else { continue }
            let tool = swift.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("plutil")
            return FileManager.default.isExecutableFile(atPath: tool.path) && tool.path != "/usr/bin/plutil" ? tool : nil
        }
        return nil
    }()

    /// The folder the run happens in; the files are made there and relative paths name them.
    let folder: URL

    /// A new folder holding `files` (name: contents).
    init(files: [String: Data]) throws {
        folder = try TemporaryDirectory.create("plutil-run")
        for (name, contents) in files { try contents.write(to: folder.appendingPathComponent(name)) }
    }

    /// The contents of a file of the folder, or nil.
    func file(_ name: String) -> Data? {
        try? Data(contentsOf: folder.appendingPathComponent(name))
    }

    /// The names of the folder's files, sorted.
    func fileNames() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    /// Removes the folder with its files.
    func remove() {
        TemporaryDirectory.remove(folder)
    }

    /// Runs `tool` with `arguments` in the folder, `input` on standard input.
    func run(_ tool: URL, _ arguments: [String], input: Data = Data()) throws -> Result {
        var environment = ProcessInfo.processInfo.environment
        environment["SWIFT_BACKTRACE"] = "enable=no"  // a crash of the toolchain's plutil reports no backtrace
        return try ToolProcess.run(tool, arguments, input: input, currentDirectory: folder, environment: environment)
    }
}
