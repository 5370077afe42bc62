import Foundation

/// The Swift toolchain's `plutil` (Foundation's, beside `swift`), not GNUstep's `/usr/bin/plutil`.
enum ToolchainPlutil {
    static let path: String? = {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        for directory in directories {
            let swift = URL(fileURLWithPath: directory).appendingPathComponent("swift").resolvingSymlinksInPath()
            let plutil = swift.deletingLastPathComponent().appendingPathComponent("plutil").path
            if FileManager.default.isExecutableFile(atPath: swift.path), FileManager.default.isExecutableFile(atPath: plutil) { return plutil }
        }
        return nil
    }()
}
