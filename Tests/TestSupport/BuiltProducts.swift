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

    /// The directories that may hold the built products, most likely first: beside the image that holds
    /// this code (the test bundle), then beside the main bundle.
    public static let directories: [URL] = {
        var candidates: [URL] = []
        if let image = imagePathHoldingThisCode() {
            candidates += productDirectories(besideImage: image).map { URL(fileURLWithPath: $0) }
        }
        candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
        candidates.append(Bundle.main.bundleURL)
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            candidates.append(bundle.bundleURL.deletingLastPathComponent())
        }
        return candidates
    }()

    /// The directories where the products built with the image at `path` lie: the folder of the
    /// `.xctest` bundle the image is in or is (a bundle directory on Darwin,
    /// `debug/KeyedArchivePackageTests.xctest/Contents/MacOS/KeyedArchivePackageTests`; the executable
    /// itself on Linux), and the image's own folder (a test runner or a tool).
    public static func productDirectories(besideImage path: String) -> [String] {
        let components = path.split(separator: "/", omittingEmptySubsequences: false)
        var directories: [String] = []
        if let bundle = components.lastIndex(where: { $0.hasSuffix(".xctest") }), bundle > 0 {
            directories.append(components[..<bundle].joined(separator: "/"))
        }
        if components.count > 1 {
            let folder = components.dropLast().joined(separator: "/")
            if !directories.contains(folder) { directories.append(folder) }
        }
        return directories.filter { !$0.isEmpty }
    }

    /// The path of the loaded image (executable or test bundle) that holds this code: `dladdr` on Darwin
    /// (where there is no `/proc`, and a test bundle is loaded with `dlopen` into a runner of Xcode's),
    /// `/proc/self/exe` elsewhere (the test bundle is the executable).
    static func imagePathHoldingThisCode() -> String? {
        #if canImport(Darwin)
        var info = Dl_info()
        guard dladdr(#dsohandle, &info) != 0, let name = info.dli_fname else { return nil }
        return String(cString: name)
        #else
        return try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        #endif
    }

    /// The built executable called `name`, or `nil` when none of ``directories`` holds it.
    public static func executable(_ name: String) -> URL? {
        for dir in directories {
            let tool = dir.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: tool.path) { return tool }
        }
        return nil
    }
}
