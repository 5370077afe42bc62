import Foundation

/// Where the package's built products are, for tests that run them (`archive-dump`, the samples,
/// `atomic-write-crash-child`): a test target that depends on an executable has it built next to the
/// test bundle, in the same products directory.
public enum BuiltProducts {
    /// The package root: the folder holding Package.swift (found from this file's path,
    /// `<root>/Tests/TestSupport/BuiltProducts.swift`).
    public static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // root

    /// The directories that may hold the built products, most likely first.
    public static let directories: [URL] = {
        var candidates: [URL] = []
        if let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(URL(fileURLWithPath: exe).deletingLastPathComponent())
        }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            candidates.append(bundle.bundleURL.deletingLastPathComponent())
        }
        return candidates
    }()

    /// The built executable called `name`, or `nil` when none of ``directories`` holds it.
    public static func executable(_ name: String) -> URL? {
        for dir in directories {
            let tool = dir.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: tool.path) { return tool }
        }
        return nil
    }
}
